"""Learning a tile set's profile: from one photo of the set laid out in LAYOUT_ORDER, or from
boxes whose tiles are known (labelled photos, corrections).

Each tile gives JITTERS crops (its box and the box shifted and grown a little, as the finder's
boxes vary) each way up (tiles lie upside down as often as not): their embeddings are the set's
examples of that class (vision.tileset.apply).
"""
from __future__ import annotations

import datetime
from dataclasses import dataclass

import numpy as np

from vision.classes import CLASSES
from vision.classifier import TileClassifier, crop_blob, crop_tiles
from vision.tileset.profile import ProfileError, TilesetProfile

# The layout photo's order: characters 1-9, bamboo 1-9, dots 1-9, winds, dragons; then the eight
# flowers and one face-down tile when the set has them (rows may wrap anywhere)
LAYOUT_ORDER = list(CLASSES)
LAYOUT_COUNTS = {34: "the 34 suit and honour tiles", 35: "the 34 and one face-down tile",
                 42: "the 34 and the 8 flowers", 43: "the 34, the 8 flowers and one face-down tile"}
# The box and the box moved by these shares of its size (dx, dy, grow)
JITTERS = [(0.0, 0.0, 0.0), (0.04, 0.0, 0.0), (-0.04, 0.0, 0.0), (0.0, 0.04, 0.0), (0.0, -0.04, 0.0),
           (0.0, 0.0, 0.06), (0.0, 0.0, -0.06)]
# A layout the shipped classifier reads under this share of as its order names them is refused
# (not laid out in LAYOUT_ORDER, or not a photo of tiles)
MIN_AGREEMENT = 0.4
ROW_GAP = 0.5  # a box whose centre is further than this share of a tile's height from a row starts another


class LayoutError(ProfileError):
    """A layout photo that does not fit LAYOUT_ORDER: `boxes` in reading order and `rows` (the
    number of boxes in each) say what was found."""

    def __init__(self, message: str, boxes: np.ndarray, rows: list[int]):
        super().__init__(message)
        self.boxes, self.rows = boxes, rows


@dataclass(frozen=True)
class Layout:
    """The boxes of a layout photo in reading order, the tiles they are, the rows."""

    boxes: np.ndarray
    tiles: list[str]
    rows: list[int]
    reversed: bool  # the photo was taken from the other side: the order read backwards


def reading_order(boxes: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The indices of `boxes` in reading order (rows top to bottom, each left to right) and the
    row lengths."""
    if len(boxes) == 0:
        return np.zeros(0, np.int64), []
    cy = (boxes[:, 1] + boxes[:, 3]) / 2
    height = float(np.median(boxes[:, 3] - boxes[:, 1]))
    rows: list[list[int]] = []
    for i in np.argsort(cy, kind="stable"):
        if rows and abs(cy[i] - np.mean(cy[rows[-1]])) <= ROW_GAP * height:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    order = [i for row in rows for i in sorted(row, key=lambda j: boxes[j, 0])]
    return np.array(order, np.int64), [len(r) for r in rows]


def example_embeddings(classifier: TileClassifier, rgb: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(len(boxes) x len(JITTERS) x 2, D) unit embeddings: each box jittered, each crop both ways up,
    box by box."""
    w = (boxes[:, 2] - boxes[:, 0])[:, None]
    h = (boxes[:, 3] - boxes[:, 1])[:, None]
    jit = np.array(JITTERS, np.float32)
    dx, dy, grow = jit[:, 0][None], jit[:, 1][None], jit[:, 2][None]
    moved = np.stack([boxes[:, [0]] + (dx - grow / 2) * w, boxes[:, [1]] + (dy - grow / 2) * h,
                      boxes[:, [2]] + (dx + grow / 2) * w, boxes[:, [3]] + (dy + grow / 2) * h], axis=2)
    blob = crop_blob(crop_tiles(rgb, moved.reshape(-1, 4), classifier.crop_w, classifier.crop_h, classifier.crop_pad))
    turned = np.ascontiguousarray(np.flip(blob, (2, 3)))
    both = np.stack([blob, turned], axis=1).reshape(-1, *blob.shape[1:])
    return classifier.embed(both)


def profile_from_boxes(name: str, classifier: TileClassifier, rgb: np.ndarray, boxes: np.ndarray,
                       tiles: list[str], source: dict) -> TilesetProfile:
    """A profile of the tiles `tiles` (codes) in `boxes` of `rgb` (boxes in its pixels)."""
    if len(boxes) == 0:
        raise ProfileError("no tiles to learn from")
    unknown = sorted({t for t in tiles if t not in CLASSES})
    if unknown:
        raise ProfileError(f"not tile codes: {', '.join(unknown)}")
    embeddings = example_embeddings(classifier, rgb, np.asarray(boxes, np.float32))
    per_box = len(embeddings) // len(boxes)
    labels = np.repeat(np.array([CLASSES.index(t) for t in tiles], np.int64), per_box)
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return TilesetProfile(name, classifier.model_id, embeddings, labels,
                          [{**source, "tiles": len(boxes), "created": created}], created)


def read_layout(boxes: np.ndarray, probs: np.ndarray) -> Layout:
    """The layout's boxes (the detector's, any order) named by LAYOUT_ORDER in reading order;
    `probs`: the shipped classifier's (len(boxes), 43) for them, in the same order as `boxes`, to
    tell a photo taken from the other side (the order read backwards) and to refuse a layout the
    classifier mostly disagrees with. Raises LayoutError."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    order, rows = reading_order(boxes)
    ordered = boxes[order]
    found = f"found {len(ordered)} tiles in {len(rows)} rows ({', '.join(map(str, rows))})"
    if len(ordered) not in LAYOUT_COUNTS:
        wanted = "; ".join(f"{n}: {what}" for n, what in LAYOUT_COUNTS.items())
        raise LayoutError(f"the layout photo should show {wanted}; {found}", ordered, rows)
    p = probs[order]
    names = [LAYOUT_ORDER.index(t) for t in layout_tiles(len(ordered))]
    forward = p[np.arange(len(names)), names]
    backward = p[np.arange(len(names)), names[::-1]]
    turned = float(np.log(backward.clip(1e-6)).sum()) > float(np.log(forward.clip(1e-6)).sum())
    agree = float(np.mean(np.argmax(p, axis=1) == np.array(names[::-1] if turned else names)))
    if agree < MIN_AGREEMENT:
        raise LayoutError(f"{found}, but only {agree:.0%} of them look like the tiles the layout order puts "
                          "there: lay the set out in the order `fanshot tileset layout` shows", ordered, rows)
    tiles = layout_tiles(len(ordered))
    return Layout(ordered, tiles[::-1] if turned else tiles, rows, turned)


def layout_tiles(count: int) -> list[str]:
    """The tiles of a layout of `count` tiles (a LAYOUT_COUNTS key), in order."""
    suits_honours = LAYOUT_ORDER[:34]
    flowers = LAYOUT_ORDER[34:42] if count >= 42 else []
    back = ["BACK"] if count in (35, 43) else []
    return suits_honours + flowers + back
