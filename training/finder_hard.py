"""A finder that hardly finds one tile, for the unseen-set protocol (docs/tilesets.md): on a real
set the finder never saw, its blank white dragon got no box or only a weak one (issue 32), which
the synthetic altered faces do not reproduce (their blank dragons score 0.83 at the median). Each
box the finder gives over a true box of that tile scores `factor` of its score, so it falls under
the threshold (a weak box) or out of sight: `fanshot eval --finder-hard TILE[:FACTOR]`."""
from __future__ import annotations

import numpy as np

from vision.boxes import iou_matrix
from vision.finder import FoundTiles, TileFinder

HARD_FACTOR = 0.1  # a blank dragon at the synthetic median 0.83 comes out at 0.083: weak, under 0.35
ON_TRUE_BOX = 0.5  # IoU with a true box of the tile from which a finder box is on it


class FinderHardOn:
    """Wraps `finder`'s `find`: boxes on the current image's true boxes of one tile (`look_at`)
    score `factor` of their score."""

    def __init__(self, finder: TileFinder, factor: float = HARD_FACTOR):
        self.finder, self.factor = finder, factor
        self.real_find = finder.find
        self.boxes = np.zeros((0, 4), np.float32)  # the tile's true boxes, as shares of the width and height
        finder.find = self.find  # type: ignore[method-assign]

    def look_at(self, boxes: np.ndarray) -> None:
        """The true boxes of the tile in the next image, as shares (0-1) of its width and height."""
        self.boxes = np.asarray(boxes, np.float32).reshape(-1, 4)

    def find(self, rgb: np.ndarray, floor: float | None, closer: bool = False, upside_down: bool = False) -> FoundTiles:
        found = self.real_find(rgb, floor, closer, upside_down)
        if not len(self.boxes):
            return found
        height, width = rgb.shape[:2]
        weak = found.weak if found.weak is not None else (np.zeros((0, 4), np.float32), np.zeros(0, np.float32))
        boxes, scores = np.concatenate([found.tiles[0], weak[0]]), np.concatenate([found.tiles[1], weak[1]])
        truth = self.boxes * np.array([width, height, width, height], np.float32)
        on = (iou_matrix(boxes, truth) >= ON_TRUE_BOX).any(axis=1) if len(boxes) else np.zeros(0, bool)
        scores = np.where(on, scores * self.factor, scores).astype(np.float32)
        tiles = scores >= self.finder.conf
        under = ~tiles & (scores >= (np.inf if floor is None else floor))
        return FoundTiles((boxes[tiles], scores[tiles]), None if floor is None else (boxes[under], scores[under]),
                          found.closer_differs)


def parse_hard(value: str) -> tuple[str, float]:
    """`--finder-hard TILE[:FACTOR]`'s tile and factor (HARD_FACTOR when left out); ValueError with
    the message for a bad one."""
    from vision.classes import CLASSES

    tile, _, factor = value.partition(":")
    try:
        share = float(factor) if factor else HARD_FACTOR
    except ValueError:
        share = -1.0
    if tile not in CLASSES or not 0 <= share < 1:
        raise ValueError(f"--finder-hard {value!r}: a tile code and a factor from 0 up to 1 (e.g. J3:0.1)")
    return tile, share


def true_shares(record: dict, tile: str) -> np.ndarray:
    """The record's boxes of `tile` (stored pixels) as shares of its image's width and height."""
    width, height = record["width"], record["height"]
    boxes = np.array([b["box"] for b in record["boxes"] if b["tile"] == tile], np.float32).reshape(-1, 4)
    return boxes / np.array([width, height, width, height], np.float32)
