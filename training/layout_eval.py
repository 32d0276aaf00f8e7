"""Layout photos taken at a slant or in perspective, or with a stray tile beside the layout (issue
32): the layout photo of an altered set (`fanshot synth --one-set SEED --altered --layout COUNT`)
turned and foreshortened, or with a copy of one of its tiles a tile's step before a row or after
the last one, each also with the finder blind to the blank dragon (training.finder_hard), learnt with
vision.tileset.learn.learn_layout; a photo counts when every tile of it is named right (each learnt
box's centre nearest the true tile of its name; a refusal, LayoutError, is printed and does not count).

    python -m training.layout_eval [--sets 7 8 11] [--count 43]

prints one line a photo and the photos named right of all.
"""
from __future__ import annotations

import argparse
from collections.abc import Iterator

import cv2
import numpy as np

# (name, turn in degrees, far edge narrower by this share): docs/tilesets.md, "What a user can do"
WARPS = [("turned 8", 8, 0.0), ("turned 12", 12, 0.0), ("turned 16", 16, 0.0), ("turned -16", -16, 0.0),
         ("10% narrower", 0, 0.1), ("20% narrower", 0, 0.2), ("30% narrower", 0, 0.3),
         ("10% narrower, turned 6", 6, 0.1), ("20% narrower, turned 6", 6, 0.2), ("30% narrower, turned 6", 6, 0.3),
         ("30% narrower, turned -6", -6, 0.3)]
# a copy of tile COPY laid a step (its width and a gap) before the first tile of row ROW, or after
# the last tile of the last row (ROW -1): (name, ROW, before, COPY)
STRAYS = [("a stray before the first row", 0, True, 4), ("a stray before the third row", 2, True, 12),
          ("a stray after the last row", -1, False, 20)]
BLIND = "J3"  # the face the finder is made blind to in each photo's second read


def warp(image: np.ndarray, turn: float, narrower: float) -> tuple[np.ndarray, np.ndarray]:
    """`image` with its far (top) edge `narrower` shorter, then turned `turn` degrees about its
    centre on a canvas that holds it all (a table-coloured border: the image's median colour), and
    the 3 x 3 matrix that maps its pixels to the result's."""
    h, w = image.shape[:2]
    inset = narrower * w / 2
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[inset, 0], [w - inset, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    turned = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0), [0, 0, 1]])
    corners = cv2.perspectiveTransform(src[None], turned @ matrix)[0]
    low, high = corners.min(axis=0), corners.max(axis=0)
    shift = np.array([[1, 0, -low[0]], [0, 1, -low[1]], [0, 0, 1]])
    whole = shift @ turned @ matrix
    size = (int(np.ceil(high[0] - low[0])), int(np.ceil(high[1] - low[1])))
    border = tuple(int(v) for v in np.median(image.reshape(-1, 3), axis=0))
    return cv2.warpPerspective(image, whole, size, borderValue=border), whole


def _boxes_after(boxes: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Each box's corners mapped by `matrix`, bounded (N, 4)."""
    corners = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], axis=1)
    mapped = cv2.perspectiveTransform(corners.reshape(1, -1, 2).astype(np.float32), matrix)[0].reshape(-1, 4, 2)
    return np.concatenate([mapped.min(axis=1), mapped.max(axis=1)], axis=1)


def with_stray(image: np.ndarray, boxes: np.ndarray, row: int, before: bool, copy: int) -> np.ndarray | None:
    """`image` with tile `copy`'s pixels (its box in `boxes`) laid again a step before the first tile
    of row `row` (rows as vision.tileset.learn reads them) or after the last tile (`before` False);
    None where that place is not wholly in the photo."""
    from vision.tileset.learn import reading_order

    order, rows = reading_order(boxes)
    anchor = boxes[order[sum(rows[:row])]] if before else boxes[order[-1]]
    x0, y0, x1, y1 = (int(round(v)) for v in boxes[copy])
    patch = image[y0:y1, x0:x1]
    step = (anchor[2] - anchor[0]) * 1.07
    left = int(round(anchor[0] - step if before else anchor[0] + step))
    top = int(round(anchor[1]))
    height, width = patch.shape[:2]
    if left < 0 or top < 0 or left + width > image.shape[1] or top + height > image.shape[0]:
        return None
    out = image.copy()
    out[top:top + height, left:left + width] = patch
    return out


def named_right(layout_boxes: np.ndarray, layout_tiles: list[str], truth: np.ndarray, tiles: list[str],
                scale: float) -> bool:
    """Whether every true tile is learnt once, under its own name: each learnt box (in pixels of the
    photo as read: x `scale` to the photo's) is the true box whose centre is nearest its centre."""
    if len(layout_tiles) != len(tiles):
        return False
    centres = (layout_boxes[:, :2] + layout_boxes[:, 2:]) / 2 * scale
    true_centres = (truth[:, :2] + truth[:, 2:]) / 2
    nearest = np.linalg.norm(centres[:, None] - true_centres[None], axis=2).argmin(axis=1)
    return len(set(nearest.tolist())) == len(tiles) and all(tiles[j] == t for j, t in zip(nearest, layout_tiles))


def photos(sets: list[int], count: int) -> Iterator[tuple[str, np.ndarray, np.ndarray, list[str]]]:
    """(name, image RGB, true boxes (N, 4) in its pixels, true tiles) of each set's layout photo
    warped (WARPS) and with a stray (STRAYS)."""
    from datasets.synth.generate import OneSet, make_example

    for seed in sets:
        example = make_example(910000, 0, [1280], None, OneSet(seed, True, count))
        boxes = np.array([b["box"] for b in example["record"]["boxes"]], np.float32)
        tiles = [b["tile"] for b in example["record"]["boxes"]]
        for name, turn, narrower in WARPS:
            image, matrix = warp(example["image"], turn, narrower)
            yield f"set {seed}, {count} tiles, {name}", image, _boxes_after(boxes, matrix), tiles
        for name, row, before, copy in STRAYS:
            strayed = with_stray(example["image"], boxes, row, before, copy)
            if strayed is not None:  # a layout that fills the photo's width leaves no room before its rows
                yield f"set {seed}, {count} tiles, {name}", strayed, boxes, tiles


def main(argv: list[str] | None = None) -> int:
    from training.finder_hard import FinderHardOn
    from vision.detector import Detector
    from vision.photo import read_photo
    from vision.tileset.learn import LayoutError, learn_layout

    parser = argparse.ArgumentParser(prog="python -m training.layout_eval", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, nargs="+", default=[7, 8, 11], help="altered set seeds")
    parser.add_argument("--count", type=int, default=43, help="tiles in the layout (34, 35, 42 or 43)")
    args = parser.parse_args(argv)
    detector = Detector()
    hard = FinderHardOn(detector.finder, 0.0)
    right = total = 0
    for name, image, truth, tiles in photos(args.sets, args.count):
        _, jpeg = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 90])
        data = jpeg.tobytes()
        scale = image.shape[1] / read_photo(data).image.shape[1]
        shares = truth / np.array([image.shape[1], image.shape[0]] * 2, np.float32)
        for blind in (False, True):
            hard.look_at(shares[[t == BLIND for t in tiles]] if blind else np.zeros((0, 4), np.float32))
            try:
                _, layout = learn_layout(detector, data, "eval")
                good = named_right(layout.boxes, layout.tiles, truth, tiles, scale)
                said = f"{'named right' if good else 'NAMED WRONG'} (missed {layout.missed}, left out {layout.left_out})"
            except LayoutError as exc:
                good, said = False, f"refused: {exc}"
            right, total = right + good, total + 1
            print(f"{name}{', blind to ' + BLIND if blind else ''}: {said}", flush=True)
    print(f"{right} of {total} layout photos named right")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
