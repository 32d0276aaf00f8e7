"""Tiles the finder is unsure of that the player's tile set vouches for: with a tile-set profile
(vision.tileset), in a photo that shows that set (its found tiles alike the set's examples,
PHOTO_OF_SET), a box the finder scored under its threshold (from RESCUE_FLOOR up) is kept as a
tile when the set's own examples recognise it and no found tile covers it (docs/tilesets.md, "The finder"). A set the finder
never saw may draw a face it hardly finds (a blank white dragon); the profile has seen that face.

The rule, chosen by measurement on the altered synthetic sets: the box's crop is at least
RESCUE_SIMILAR alike to one of the set's examples, and the reading the blend gives it is that
example's class; a plain face (a blank white dragon, a face-down tile: alike most plain patches,
the table's included) must also sit in a row of found tiles, beside one of them at the tile pitch
(`beside_a_tile`; a plain face so kept counts as a tile of the row). A box the finder is fairly sure
of (FIRM_FIND) and the classifier, were it a tile, reads firmly as the set's class (FIRM_READ) needs
the set's examples less alike (FIRM_SIMILAR), and a plain face so firm may be one the classifier
narrowly calls no tile (under FIRM_NOT_TILE: a face-down tile's plain back is alike a patch of table
to it) when the finder is surer of it (DOUBTED_FIND) (`firm_face`). Pure numpy over the boxes: the detector calls `rescued`.
"""
from __future__ import annotations

import numpy as np

from vision.boxes import intersections
from vision.classes import CLASSES, NOT_A_TILE

RESCUE_FLOOR = 0.05      # the weakest finder score looked at
# the photo shows the set: its found tiles are at the median this alike the set's examples (photos of
# the set learnt: 0.76-0.77 at the 10th percentile; of other sets: 0.62-0.78 at the 90th)
PHOTO_OF_SET = 0.75
RESCUE_SIMILAR = 0.68    # the least cosine similarity to an example of the set
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
# a firm face, measured on the tiles the altered sets 7, 8 and 11 missed (docs/tilesets.md): the weak
# boxes on them had finder scores 0.19-0.76 and were read as the set's class at 0.87-0.97; of the
# false boxes that pass the other gates (a patch of table between two melds, a sliver of a tile cut
# by the photo's edge), those the classifier calls no tile had finder scores 0.14 at most
FIRM_FIND = 0.15         # the least finder score
DOUBTED_FIND = 0.2       # ... for a plain face the classifier calls no tile (vision.analyze's weak floor)
FIRM_READ = 0.8          # the least probability of the set's class among the 43
FIRM_SIMILAR = 0.6       # the least similarity to the set's examples (where the blend's gate starts)
FIRM_NOT_TILE = 0.6      # a plain face's "not a tile" under this: the classifier's doubt, not its no


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


def firm_face(find_scores: np.ndarray, similarity: np.ndarray, set_tile: np.ndarray, probs: np.ndarray,
              doubted: np.ndarray) -> np.ndarray:
    """Which boxes the finder and the classifier are firm about (FIRM_FIND; FIRM_READ of the set's
    class `set_tile`) and the set knows at least FIRM_SIMILAR (`probs` as `rescued`'s); a box the
    classifier calls no tile (`doubted`) only when a plain face it narrowly doubts (under
    FIRM_NOT_TILE) the finder is surer of (DOUBTED_FIND). A mask (N,); the row rule is `rescued`'s."""
    read = probs[:, :NOT_A_TILE]
    share = read.max(axis=1) / read.sum(axis=1).clip(1e-9)
    not_tile = probs[:, NOT_A_TILE] if probs.shape[1] > NOT_A_TILE else np.zeros(len(probs))
    firm = (set_tile == read.argmax(axis=1)) & (find_scores >= FIRM_FIND) & (share >= FIRM_READ)
    firm &= similarity >= FIRM_SIMILAR
    doubt = np.isin(set_tile, PLAIN_FACES) & (not_tile < FIRM_NOT_TILE) & (find_scores >= DOUBTED_FIND)
    return firm & (~doubted | doubt)


def rescued(boxes: np.ndarray, find_scores: np.ndarray, similarity: np.ndarray, set_tile: np.ndarray,
            probs: np.ndarray, tiles: np.ndarray, tiles_similarity: np.ndarray,
            not_a_tile_above: float | None = None) -> np.ndarray:
    """Which of the weak `boxes` (N x 4, finder scores `find_scores`) are tiles: the set's best
    `similarity` and its example's class `set_tile`, each box's reading `probs` (N x 43, or 44 with
    "not a tile" last: the classifier's blended with the set), the tiles found (`tiles`, M x 4) for
    the plain faces' row rule and their similarity to the set (`tiles_similarity`, M: none is kept
    when the photo does not show the set, PHOTO_OF_SET). A box whose "not a tile" is
    `not_a_tile_above` or more (the classifier calls it no tile) may be kept only as a firm plain
    face (`firm_face`). A boolean mask (N,)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not len(boxes) or not shows_the_set(tiles_similarity):
        return np.zeros(len(boxes), bool)
    tiles = np.asarray(tiles, np.float32).reshape(-1, 4)
    probs = np.asarray(probs, np.float32).reshape(len(boxes), -1)
    doubted = np.zeros(len(boxes), bool)
    if not_a_tile_above is not None and probs.shape[1] > NOT_A_TILE:
        doubted = probs[:, NOT_A_TILE] >= not_a_tile_above
    sure = (find_scores >= RESCUE_FLOOR) & (similarity >= RESCUE_SIMILAR) & (set_tile == probs[:, :NOT_A_TILE].argmax(axis=1))
    sure = (sure & ~doubted) | firm_face(find_scores, similarity, set_tile, probs, doubted)
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
