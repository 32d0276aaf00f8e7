"""Learning a tile set's profile: from one photo of the set laid out in LAYOUT_ORDER, or from
boxes whose tiles are known (labelled photos, corrections).

Each tile gives JITTERS crops (its box and the box shifted and grown a little, as the finder's
boxes vary), its crop turned a little (TURNS) and blurred (BLUR), each way up (tiles lie upside down
as often as not): their embeddings are the set's examples of that class (vision.tileset.apply).
"""
from __future__ import annotations

import datetime
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.boxes import row_angle
from vision.classes import CLASSES, NOT_A_TILE
from vision.classifier import TileClassifier, crop_blob, crop_tiles, ink_view
from vision.detector import Detector
from vision.photo import read_photo
from vision.set_search import gap_boxes
from vision.tileset.apply import PLAIN_FACES, embedding
from vision.tileset.profile import ProfileError, TilesetProfile

# The layout photo's order: characters 1-9, bamboo 1-9, dots 1-9, winds, dragons; then the eight
# flowers and one face-down tile when the set has them (rows may wrap anywhere)
LAYOUT_ORDER = list(CLASSES)
LAYOUT_COUNTS = {34: "the 34 suit and honour tiles", 35: "the 34 and one face-down tile",
                 42: "the 34 and the 8 flowers", 43: "the 34, the 8 flowers and one face-down tile"}
# The box and the box moved by these shares of its size (dx, dy, grow, more at the top, more at the
# bottom: a standing tile shows its body above the face, a lying one below)
JITTERS = [(0.0, 0.0, 0.0, 0.0, 0.0), (0.04, 0.0, 0.0, 0.0, 0.0), (-0.04, 0.0, 0.0, 0.0, 0.0),
           (0.0, 0.04, 0.0, 0.0, 0.0), (0.0, -0.04, 0.0, 0.0, 0.0), (0.0, 0.0, 0.06, 0.0, 0.0),
           (0.0, 0.0, -0.06, 0.0, 0.0), (0.0, 0.0, 0.0, 0.2, 0.0), (0.0, 0.0, 0.0, 0.0, 0.2)]
TURNS = (-8.0, 8.0)  # the plain box's crop also turned by these degrees (tiles lie at a slant)
BLUR = 1.0  # ... and blurred (Gaussian sigma, pixels of the crop): photos out of focus or shaken
EXAMPLES_PER_TILE = 2 * (len(JITTERS) + len(TURNS) + 1)  # each crop both ways up
# crops embedded a run: small batches reuse their memory (a whole layout's crops, copied upside down or
# in ink, were fresh memory each time: a quarter of the learning time)
EMBED_CHUNK = 128
# A layout the shipped classifier reads under this share of as its order names them is refused
# (not laid out in LAYOUT_ORDER, or not a photo of tiles)
MIN_AGREEMENT = 0.4
# The tile a layout names BACK must look face down: a face the classifier reads (a plain face aside),
# giving the back under this, is refused (a stray tile after the last row counted as the back); and a
# tile it names a face must not read as face down
FACE_DOWN_AT_LEAST = 0.1
ROW_GAP = 0.5  # a box whose centre is further than this share of a tile's height from a row starts another
# A tile the finder gives no box (a blank face of a set it never saw) leaves a gap in its row or a
# row shorter at an end: the places there (vision.set_search.gap_boxes) the classifier reads as a
# tile are the layout's tiles too, and so beside them, for this many rounds
MISSED_ROUNDS = 3
MAX_ADDITIONS = 5000  # the sets of such places tried (which fit the order best)
STRAY_READINGS = 1000  # the most readings of the order spent on found tiles that are no part of the layout


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
    agreement: float = 1.0  # the share of its tiles the shipped classifier reads as the order names them
    missed: int = 0  # tiles the finder gave no box, found in the rows' gaps (`missed_tiles`)
    left_out: int = 0  # found tiles left out as no part of the layout (`learn_layout`)


def reading_order(boxes: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The indices of `boxes` in reading order (rows top to bottom, each left to right) and the
    row lengths; rows at a slant (the photo turned) are read along their direction (row_angle)."""
    if len(boxes) == 0:
        return np.zeros(0, np.int64), []
    theta = row_angle(boxes)
    x, y = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    along, across = x * np.cos(theta) + y * np.sin(theta), y * np.cos(theta) - x * np.sin(theta)
    height = float(np.median(boxes[:, 3] - boxes[:, 1]))
    rows: list[list[int]] = []
    for i in np.argsort(across, kind="stable"):
        if rows and abs(across[i] - np.mean(across[rows[-1]])) <= ROW_GAP * height:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    order = [i for row in rows for i in sorted(row, key=lambda j: along[j])]
    return np.array(order, np.int64), [len(r) for r in rows]


def example_embeddings(classifier: TileClassifier, rgb: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(len(boxes) x EXAMPLES_PER_TILE, D) unit embeddings: each box jittered, its crop turned a
    little and blurred, each crop both ways up, box by box."""
    return _embedded(classifier, _example_crops(classifier, rgb, boxes))


def _example_crops(classifier: TileClassifier, rgb: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """The crops `example_embeddings` embeds (one way up): N x H x W x 3 uint8 (`_embedded` makes
    them the classifier's input)."""
    w = (boxes[:, 2] - boxes[:, 0])[:, None]
    h = (boxes[:, 3] - boxes[:, 1])[:, None]
    jit = np.array(JITTERS, np.float32)
    dx, dy, grow, top, bottom = (jit[:, k][None] for k in range(5))
    moved = np.stack([boxes[:, [0]] + (dx - grow / 2) * w, boxes[:, [1]] + (dy - grow / 2 - top) * h,
                      boxes[:, [2]] + (dx + grow / 2) * w, boxes[:, [3]] + (dy + grow / 2 + bottom) * h], axis=2)
    crops = crop_tiles(rgb, moved.reshape(-1, 4), classifier.crop_w, classifier.crop_h, classifier.crop_pad)
    crops = crops.reshape(len(boxes), len(JITTERS), *crops.shape[1:])
    centre = (classifier.crop_w / 2, classifier.crop_h / 2)
    turned = [[cv2.warpAffine(crop, cv2.getRotationMatrix2D(centre, angle, 1.0), (classifier.crop_w, classifier.crop_h),
                              borderMode=cv2.BORDER_REPLICATE) for angle in TURNS] for crop in crops[:, 0]]
    blurred = [cv2.GaussianBlur(crop, (0, 0), BLUR) for crop in crops[:, 0]]
    crops = np.concatenate([crops, np.array(turned, np.uint8).reshape(len(boxes), len(TURNS), *crops.shape[2:]),
                            np.array(blurred, np.uint8)[:, None]], axis=1)
    return crops.reshape(-1, *crops.shape[2:])


def _embedded(classifier: TileClassifier, crops: np.ndarray, ink: bool = False) -> np.ndarray:
    """Unit embeddings of the uint8 `crops` (of their ink views: `ink`), each followed by the crop
    upside down, EMBED_CHUNK crops a run."""
    out = []
    for start in range(0, len(crops), EMBED_CHUNK):
        part = crop_blob(crops[start:start + EMBED_CHUNK])
        part = ink_view(part) if ink else part
        up = embedding(classifier.embed(part))
        down = embedding(classifier.embed(np.ascontiguousarray(np.flip(part, (2, 3)))))
        out.append(np.stack([up, down], axis=1).reshape(-1, up.shape[1]))
    return np.concatenate(out)


def profile_from_boxes(name: str, classifier: TileClassifier, rgb: np.ndarray, boxes: np.ndarray,
                       tiles: list[str], source: dict) -> TilesetProfile:
    """A profile of the tiles `tiles` (codes) in `boxes` of `rgb` (boxes in its pixels)."""
    if len(boxes) == 0:
        raise ProfileError("no tiles to learn from")
    unknown = sorted({t for t in tiles if t not in CLASSES})
    if unknown:
        raise ProfileError(f"not tile codes: {', '.join(unknown)}")
    boxes = np.asarray(boxes, np.float32)
    crops = _example_crops(classifier, rgb, boxes)
    embeddings = _embedded(classifier, crops)
    labels = np.repeat(np.array([CLASSES.index(t) for t in tiles], np.int64), EXAMPLES_PER_TILE)
    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return TilesetProfile(name, classifier.model_id, embeddings, labels,
                          [{**source, "tiles": len(boxes), "created": created}], created,
                          _embedded(classifier, crops, ink=True))  # the same crops' ink views


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
    tiles = tiles[::-1] if turned else tiles
    plain = [CLASSES[int(i)] for i in PLAIN_FACES]
    down = [t for t, read in zip(tiles, np.argmax(p, axis=1)) if t not in plain and CLASSES[int(read)] == "BACK"]
    if down:  # a face-down tile where a face should be (a flower left out, the back laid among them)
        raise LayoutError(f"{found}: a face-down tile lies where the order puts {down[0]}: lay the tiles face up in "
                          "the order, the face-down tile (if any) last", ordered, rows)
    if "BACK" in tiles:  # a tile that is no part of the layout at its end must not be learnt as the back
        back = p[tiles.index("BACK")]
        read = int(np.argmax(back))
        if CLASSES[read] not in plain and back[CLASSES.index("BACK")] < FACE_DOWN_AT_LEAST:
            raise LayoutError(f"{found}: the layout's face-down tile, {'first' if turned else 'last'} in its order, "
                              f"looks like {CLASSES[read]}: take out any tile that is not part of the layout "
                              "(or leave the face-down tile out)", ordered, rows)
    return Layout(ordered, tiles, rows, turned, agree)


def layout_tiles(count: int) -> list[str]:
    """The tiles of a layout of `count` tiles (a LAYOUT_COUNTS key), in order."""
    suits_honours = LAYOUT_ORDER[:34]
    flowers = LAYOUT_ORDER[34:42] if count >= 42 else []
    back = ["BACK"] if count in (35, 43) else []
    return suits_honours + flowers + back


def missed_tiles(boxes: np.ndarray, doubt: Callable[[np.ndarray], np.ndarray], most: float, width: int, height: int
                 ) -> np.ndarray:
    """The places where a layout's tile may lie that the finder missed: beside the found `boxes`
    (N x 4) where their rows leave a gap or end (vision.set_search.gap_boxes), those whose `doubt`
    (the classifier's "not a tile") is under `most`, then beside those, for up to MISSED_ROUNDS
    rounds. (K x 4), each round's surest first."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    found = [np.zeros((0, 4), np.float32)]
    around, looked = boxes, boxes
    for _ in range(MISSED_ROUNDS):
        places = gap_boxes(np.concatenate([boxes, *found]), around, looked, width, height)
        if not len(places):
            break
        looked = np.concatenate([looked, places])
        not_tile = doubt(places)
        kept = np.flatnonzero(not_tile < most)
        kept = kept[np.argsort(not_tile[kept], kind="stable")]
        if not len(kept):
            break
        around = places[kept]
        found.append(around)
    return np.concatenate(found)


def learn_layout(detector: Detector, data: bytes, name: str, file: str = "") -> tuple[TilesetProfile, Layout]:
    """The profile `name` learnt from one layout photo's bytes (read as every photo is read,
    vision.photo.read_photo): the detector's tiles in reading order named by LAYOUT_ORDER. When its
    classifier can tell a tile from none, the places in the rows' gaps that hold a tile the finder
    missed (`missed_tiles`) are added: those that make the layout fit the order best (the largest
    share of its tiles read as the order names them; none unless that is higher). A found tile or two
    that is no part of the layout (a stray beside it shifts the order's names after it, or is taken
    for the back) is left out where more tiles are read as named without it, or nothing fits with it. Raises
    LayoutError (what was found: its `boxes`, in the photo's pixels as read), ImageError."""
    photo = read_photo(data)
    found = detector.detect(photo.image, photo=photo)
    boxes = np.array([d["box"] for d in found.tiles], np.float32).reshape(-1, 4)
    classifier = detector.classifier
    source, _ = detector.classifier_view(photo.image, boxes, photo)  # decided by the tiles found
    sx, sy = source.shape[1] / photo.image.shape[1], source.shape[0] / photo.image.shape[0]
    in_view = np.array([sx, sy, sx, sy], np.float32)
    places = np.zeros((0, 4), np.float32)
    if classifier.not_a_tile_above is not None and len(boxes):
        def doubt(at: np.ndarray) -> np.ndarray:
            return classifier.classify(source, at * in_view)[:, NOT_A_TILE]

        places = missed_tiles(boxes, doubt, classifier.not_a_tile_above, photo.image.shape[1], photo.image.shape[0])
    every = np.concatenate([boxes, places])
    probs = classifier.classify(source, every * in_view)[:, :NOT_A_TILE]
    layout, chosen, refused = _best_fit(every, probs, np.arange(len(boxes)), len(places))
    for stray in (1, 2):  # found tiles that are no part of the layout: more tiles read as named without them
        without = _without_strays(every, probs, len(boxes), len(places), stray)
        if without is not None and (layout is None or _agreeing(without[0]) > _agreeing(layout)):
            layout, chosen = without
    if layout is None:
        assert refused is not None
        raise refused
    order, _ = reading_order(every[chosen])
    # the tiles the finder gave no box: photos of the set are searched for them (TilesetProfile.searched)
    missed = [tile for tile, k in zip(layout.tiles, order) if chosen[k] >= len(boxes)]
    profile = profile_from_boxes(name, classifier, source, every[chosen][order] * in_view, layout.tiles,
                                 {"kind": "layout", "file": file, "missed": missed})
    return profile, layout


def _best_fit(every: np.ndarray, probs: np.ndarray, found: np.ndarray, places: int
              ) -> tuple[Layout | None, np.ndarray, LayoutError | None]:
    """Of the `found` boxes (indices into `every`) with none, some or all of the last `places` of
    `every` (`_additions`), the layout that fits the order best (`read_layout`; `probs` as `every`):
    the layout (None when none fits), the boxes chosen, and the first refusal."""
    layout, chosen, refused = None, found, None
    for added in _additions(len(found), places):
        tried = np.concatenate([found, len(every) - places + np.array(added, np.int64)])
        try:
            fits = read_layout(every[tried], probs[tried])
        except LayoutError as exc:
            refused = refused or exc
            continue
        if layout is None or fits.agreement > layout.agreement:
            layout, chosen = replace(fits, missed=len(added)), tried
    return layout, chosen, refused


def _without_strays(every: np.ndarray, probs: np.ndarray, found: int, places: int, stray: int
                    ) -> tuple[Layout, np.ndarray] | None:
    """The layout of the first `found` boxes of `every` but `stray` of them, with places of the last
    `places` added as `_best_fit` adds them (while that reads the order at most STRAY_READINGS times),
    that fits the order best, and the boxes chosen; None when none fits."""
    if not any(found - stray + extra in LAYOUT_COUNTS for extra in range(places + 1)):
        return None  # no count within reach: every reading would be refused
    tries = len(_additions(found - stray, places)) * math.comb(found, stray)
    if tries > STRAY_READINGS:
        places = 0
        if found - stray not in LAYOUT_COUNTS or math.comb(found, stray) > STRAY_READINGS:
            return None
    best: tuple[Layout, np.ndarray] | None = None
    for left in itertools.combinations(range(found), stray):
        kept = np.concatenate([np.delete(np.arange(found), left), np.arange(len(every) - places, len(every))])
        fits, chosen, _ = _best_fit(every[kept], probs[kept], np.arange(found - stray), places)
        if fits is not None and (best is None or _agreeing(fits) > _agreeing(best[0])):
            best = replace(fits, left_out=stray), kept[chosen]
    return best


def _agreeing(layout: Layout) -> int:
    """How many of the layout's tiles the shipped classifier reads as the order names them."""
    return round(layout.agreement * len(layout.tiles))


def _additions(found: int, places: int) -> list[tuple[int, ...]]:
    """The sets of places (indices) that make `found` tiles a count of LAYOUT_COUNTS, fewest first
    (none first of all), at most MAX_ADDITIONS of them."""
    out: list[tuple[int, ...]] = [()]
    for extra in range(1, places + 1):
        if found + extra in LAYOUT_COUNTS:
            out.extend(itertools.islice(itertools.combinations(range(places), extra), MAX_ADDITIONS))
    return out[:MAX_ADDITIONS]


def photo_boxes_in_view(detector: Detector, data: bytes, boxes: np.ndarray, size: tuple[int, int] | None,
                        max_pixels: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A labelled photo's bytes read as the detector reads photos, and its labelled `boxes` (in
    pixels of the photo as stored, `size` = (width, height); None: of the photo as read, the frame of
    an analysis's boxes) in the pixels of the classifier's view."""
    photo = read_photo(data, max_pixels=max_pixels)
    scaled = np.asarray(boxes, np.float32).reshape(-1, 4)
    if size is not None:
        sx, sy = photo.image.shape[1] / size[0], photo.image.shape[0] / size[1]
        scaled = scaled * np.array([sx, sy, sx, sy], np.float32)
    return detector.classifier_view(photo.image, scaled, photo)
