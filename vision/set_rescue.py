"""Tiles the finder is unsure of that the player's tile set vouches for: with a tile-set profile
(vision.tileset), in a photo that shows that set (its found tiles alike the set's examples,
PHOTO_OF_SET), a box the finder scored under its threshold (from RESCUE_FLOOR up) is kept as a
tile when the set's own examples recognise it and no found tile covers it (docs/tilesets.md, "The finder"). A set the finder
never saw may draw a face it hardly finds (a blank white dragon); the profile has seen that face.

The rule, chosen by measurement on the altered synthetic sets: the box's crop is at least
RESCUE_SIMILAR alike to one of the set's examples, and the reading the blend gives it is that
example's class; a plain face (a blank white dragon, a face-down tile: alike most plain patches,
the table's included) must also sit in a row of found tiles, beside one of them at the tile pitch
(`beside_a_tile`; a plain face so kept counts as a tile of the row). Pure numpy over the boxes: the detector calls `rescued`.
"""
from __future__ import annotations

import numpy as np

from vision.boxes import intersections
from vision.classes import CLASSES

RESCUE_FLOOR = 0.05      # the weakest finder score looked at
# the photo shows the set: its found tiles are at the median this alike the set's examples (photos of
# the set learnt: 0.76-0.77 at the 10th percentile; of other sets: 0.62-0.78 at the 90th)
PHOTO_OF_SET = 0.75
RESCUE_SIMILAR = 0.68    # the least cosine similarity to an example of the set (the blend's gate starts at 0.6)
PLAIN_FACES = np.array([CLASSES.index("J3"), CLASSES.index("BACK")])
# "beside a tile": sharing ROW_OVERLAP of the lower one's height with a found tile, at most ROW_GAP
# of the narrower one's width away from it (a winning tile set apart, the gap between two melds),
# its height within ROW_HEIGHT of the tile's
# a missed tile lies where no tile was found: a box found tiles cover more than this share of (the
# sum of their overlaps) lies across them (real photos' weak boxes half a tile along a row)
MAX_COVERED = 0.25
ROW_OVERLAP = 0.6
ROW_GAP = 1.0
ROW_HEIGHT = (0.85, 1.18)


def beside_a_tile(box: np.ndarray, tiles: np.ndarray) -> bool:
    """Whether `box` (xyxy) sits in a row of `tiles` (N x 4) beside one of them: the same height,
    level with it, and touching it or at most a tile's width away (a hand's tiles stand side by side)."""
    if len(tiles) == 0:
        return False
    height, width = box[3] - box[1], box[2] - box[0]
    heights, widths = tiles[:, 3] - tiles[:, 1], tiles[:, 2] - tiles[:, 0]
    shared = (np.minimum(tiles[:, 3], box[3]) - np.maximum(tiles[:, 1], box[1])).clip(0)
    level = shared >= ROW_OVERLAP * np.minimum(heights, height)
    gap = np.maximum(tiles[:, 0] - box[2], box[0] - tiles[:, 2])
    near = gap <= ROW_GAP * np.minimum(widths, width)
    ratio = height / np.maximum(heights, 1e-6)
    return bool((level & near & (ratio >= ROW_HEIGHT[0]) & (ratio <= ROW_HEIGHT[1])).any())


def shows_the_set(tiles_similarity: np.ndarray) -> bool:
    """Whether a photo shows the set: its found tiles' similarity to the set's examples (M) is at
    least PHOTO_OF_SET at the median."""
    return len(tiles_similarity) > 0 and float(np.median(tiles_similarity)) >= PHOTO_OF_SET


def covered(box: np.ndarray, tiles: np.ndarray) -> float:
    """The share of `box`'s area that `tiles` overlap (their overlaps summed)."""
    area = max(float((box[2] - box[0]) * (box[3] - box[1])), 1e-6)
    return float(intersections(tiles, box).sum()) / area if len(tiles) else 0.0


def rescued(boxes: np.ndarray, find_scores: np.ndarray, similarity: np.ndarray, set_tile: np.ndarray,
            read_tile: np.ndarray, tiles: np.ndarray, tiles_similarity: np.ndarray) -> np.ndarray:
    """Which of the weak `boxes` (N x 4, finder scores `find_scores`) are tiles: the set's best
    `similarity` and its example's class `set_tile`, the class each is read as `read_tile` (class
    ids), the tiles found (`tiles`, M x 4) for the plain faces' row rule and their similarity to
    the set (`tiles_similarity`, M: none is kept when the photo does not show the set, PHOTO_OF_SET).
    A boolean mask (N,)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not shows_the_set(tiles_similarity):
        return np.zeros(len(boxes), bool)
    tiles = np.asarray(tiles, np.float32).reshape(-1, 4)
    sure = (find_scores >= RESCUE_FLOOR) & (similarity >= RESCUE_SIMILAR) & (set_tile == read_tile)
    sure &= np.array([covered(box, tiles) <= MAX_COVERED for box in boxes], bool)
    plain = sure & np.isin(set_tile, PLAIN_FACES)
    sure &= ~plain
    # a plain face kept counts as a tile of the row for the next: a pung of blank dragons
    row = np.concatenate([tiles, boxes[sure]])
    waiting = list(np.flatnonzero(plain))
    while waiting:
        beside = [i for i in waiting if beside_a_tile(boxes[i], row)]
        if not beside:
            break
        sure[beside] = True
        row = np.concatenate([row, boxes[beside]])
        waiting = [i for i in waiting if i not in beside]
    return sure
