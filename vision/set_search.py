"""Tiles the finder gives no box at all, found with the player's tile set (vision.tileset): a set
the finder never saw may draw a face it cannot see (issue 32: a real set's blank white dragon, no
box even at a score of 0.02 for 66 of 113). In a photo that shows the set (vision.set_rescue's
photo gate), the places one tile pitch before and after each tile of a row where no tile is
(`gap_boxes`) are cut out and named; a place is a tile when the set's own examples recognise it
and the classifier agrees (`in_a_gap`). A tile so found is a place to look beside in turn (a pung
of blank dragons), for up to SEARCH_ROUNDS rounds. docs/tilesets.md, "The finder".

Also the cheap geometry that spares the classifier the finder's weak boxes the rescue would turn
down whatever they show (`worth_naming`). Pure numpy over boxes; naming is the caller's (`Name`).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from vision.boxes import iou_matrix, long_sides, suppress_duplicates, tile_size
from vision.classes import NOT_A_TILE
from vision.classifier import SetMatch
from vision.set_rescue import MAX_COVERED, PLAIN_FACES, ROW_OVERLAP

# measured with the finder blind to the blank dragons of sets 7, 8 and 11 (docs/tilesets.md,
# training/MODELS.md): places cut a little off the tile are less surely a tile
SEARCH_SIMILAR = 0.7   # the least cosine similarity to one of the set's examples
SEARCH_TILE = 0.7      # the least probability that the place holds a tile (1 - "not a tile")
PITCH = 1.03           # a tile's neighbour is this many of its widths along (tiles stand side by side)
INSIDE = 0.8           # a place cut by the photo's edge to under this share of a tile is not looked at
# a row neighbour's step is taken as the next one's when it is this close (of a width): a row at a
# slant, and discards laid about a tile apart (the next one lies a step on, not beside)
NEIGHBOUR_GAP = 1.0
SAME_PLACE = 0.5       # IoU from which a place is the same as a box already looked at
SEARCH_ROUNDS = 3      # rounds of looking beside what the last round found
SEARCH_SCORE = 0.05    # the finder score a box found so is given (the weakest the rescue looks at)
# the finder's weak boxes named with a profile (the rescue's) are at least this share of the tiles'
# median long side: vision.detector's SMALL_TILE rule, which drops smaller ones after naming anyway
SMALL_TILE = 0.5

Name = Callable[[np.ndarray], tuple[np.ndarray, SetMatch]]  # boxes -> (probabilities, SetMatch)


def worth_naming(weak: np.ndarray, tiles: np.ndarray) -> np.ndarray:
    """Which of the finder's weak boxes (N x 4) the rescue could keep, from their geometry alone:
    tile sized (SMALL_TILE of the `tiles`' median, 5 tiles or more) and covered by the tiles found at
    most MAX_COVERED (vision.set_rescue turns the others down whatever they show). A mask (N,)."""
    weak = np.asarray(weak, np.float32).reshape(-1, 4)
    tiles = np.asarray(tiles, np.float32).reshape(-1, 4)
    keep = covered_shares(weak, tiles) <= MAX_COVERED
    if len(tiles) >= 5 and len(weak):
        keep &= long_sides(weak) >= SMALL_TILE * tile_size(tiles)
    return keep


def covered_shares(boxes: np.ndarray, tiles: np.ndarray, but_itself: bool = False) -> np.ndarray:
    """The share of each of `boxes` (K x 4) that `tiles` (N x 4) overlap, their overlaps summed
    (vision.set_rescue.covered for many boxes at once); `but_itself`: a tile equal to the box is
    left out (a tile's own share covered by the others). (K,)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    tiles = np.asarray(tiles, np.float32).reshape(-1, 4)
    if len(boxes) == 0 or len(tiles) == 0:
        return np.zeros(len(boxes), np.float32)
    w = (np.minimum(boxes[:, None, 2], tiles[None, :, 2]) - np.maximum(boxes[:, None, 0], tiles[None, :, 0])).clip(0)
    h = (np.minimum(boxes[:, None, 3], tiles[None, :, 3]) - np.maximum(boxes[:, None, 1], tiles[None, :, 1])).clip(0)
    shared = w * h
    if but_itself:
        shared[(boxes[:, None, :] == tiles[None, :, :]).all(axis=2)] = 0
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).clip(1e-6)
    return shared.sum(axis=1) / area


def gap_boxes(tiles: np.ndarray, around: np.ndarray, avoid: np.ndarray, width: int, height: int) -> np.ndarray:
    """The places before and after each of `around` (K x 4) along its row, each the size of its
    tile (`row_steps`; the row runs down the photo for a tile whose close neighbours lie above or
    below it, or that has none and is wider than tall: a hand read turned), inside the photo (at
    least INSIDE of it), covered by the `tiles` (N x 4, the tiles found) at most MAX_COVERED or as
    much as its tile or nine in ten of the tiles are, plus MAX_COVERED / 2 (a packed row at a slant:
    the boxes overlap), and not the same place
    (SAME_PLACE) as a box of `avoid` (looked at already) or as a place listed before it. (M x 4)."""
    around = np.asarray(around, np.float32).reshape(-1, 4)
    tiles = np.asarray(tiles, np.float32).reshape(-1, 4)
    if len(around) == 0:
        return np.zeros((0, 4), np.float32)
    turn = [1, 0, 3, 2]  # x and y swapped: a row down the photo searched as one across it
    before, after, across = row_steps(tiles, around)
    down_before, down_after, down = row_steps(tiles[:, turn], around[:, turn])
    wide = (around[:, 2] - around[:, 0]) > (around[:, 3] - around[:, 1])
    along = (down & ~across) | (~down & ~across & wide)
    before[along], after[along] = down_before[along][:, turn], down_after[along][:, turn]
    places = np.concatenate([around - before, around + after])
    # as much as its tile or most tiles of the photo are covered (a packed row or a grid at a slant:
    # a gap's place has tiles on both sides, its tile beside the gap on one)
    own = covered_shares(around, tiles, but_itself=True)
    if len(tiles):
        own = np.maximum(own, np.percentile(covered_shares(tiles, tiles, but_itself=True), 90))
    allowed = np.maximum(MAX_COVERED, np.concatenate([own, own]) + MAX_COVERED / 2)
    clipped = places.copy()
    clipped[:, [0, 2]] = clipped[:, [0, 2]].clip(0, width)
    clipped[:, [1, 3]] = clipped[:, [1, 3]].clip(0, height)
    inside = ((clipped[:, 2] - clipped[:, 0]) * (clipped[:, 3] - clipped[:, 1])
              >= INSIDE * (places[:, 2] - places[:, 0]) * (places[:, 3] - places[:, 1]))
    free = covered_shares(clipped, tiles) <= allowed
    places = clipped[inside & free]
    avoid = np.asarray(avoid, np.float32).reshape(-1, 4)
    if len(avoid) and len(places):
        places = places[iou_matrix(places, avoid).max(axis=1) < SAME_PLACE]
    chosen: list[int] = []
    for i in range(len(places)):
        if not chosen or iou_matrix(places[i:i + 1], places[chosen]).max() < SAME_PLACE:
            chosen.append(i)
    return places[chosen].astype(np.float32)


def row_steps(tiles: np.ndarray, around: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """How far (K x 4, added to a box) each of `around` lies from its row neighbour before it and
    after it, rows across: the step from the neighbour on the other side when there is one close
    by (at most NEIGHBOUR_GAP of a width apart, level with it: a row at a slant, tiles overlapping
    in their boxes), else PITCH of its own width straight across; and whether it has a close
    neighbour (K,)."""
    def centres(boxes: np.ndarray) -> np.ndarray:
        return (boxes[:, :2] + boxes[:, 2:]) / 2

    widths = around[:, 2] - around[:, 0]
    straight = np.zeros((len(around), 4), np.float32)
    straight[:, 0] = straight[:, 2] = PITCH * widths
    before, after = straight.copy(), straight.copy()
    if len(tiles) == 0:
        return before, after, np.zeros(len(around), bool)
    shared = np.minimum(tiles[None, :, 3], around[:, None, 3]) - np.maximum(tiles[None, :, 1], around[:, None, 1])
    heights = np.minimum(tiles[None, :, 3] - tiles[None, :, 1], around[:, None, 3] - around[:, None, 1])
    level = shared >= ROW_OVERLAP * heights
    offset = centres(tiles)[None, :, :] - centres(around)[:, None, :]  # (K, N, 2)
    gap = np.maximum(tiles[None, :, 0] - around[:, None, 2], around[:, None, 0] - tiles[None, :, 2])
    close = level & (gap <= NEIGHBOUR_GAP * widths[:, None]) & (np.abs(offset[:, :, 0]) > 0.5 * widths[:, None])
    rows = np.arange(len(around))
    for steps, side in ((after, -1), (before, 1)):
        # after a tile: the step from its neighbour before it to it; before it: from it to the one after
        near = close & (np.sign(offset[:, :, 0]) == side)
        has = near.any(axis=1)
        nearest = np.where(near, np.abs(offset[:, :, 0]), np.inf).argmin(axis=1)
        step = side * offset[rows, nearest]  # (K, 2), pointing along the row
        steps[has] = np.concatenate([step, step], axis=1)[has]
    return before, after, close.any(axis=1)


def in_a_gap(probs: np.ndarray, match: SetMatch) -> np.ndarray:
    """Which named places hold a tile of the set: at least SEARCH_SIMILAR alike one of its examples,
    read as that example's class, and a tile (1 - "not a tile" at least SEARCH_TILE; `probs` (N, 43
    or 44), the classifier's blended with the set). A mask (N,)."""
    if len(probs) == 0:
        return np.zeros(0, bool)
    read = probs[:, :NOT_A_TILE].argmax(axis=1)
    tile = 1 - probs[:, NOT_A_TILE] if probs.shape[1] > NOT_A_TILE else np.ones(len(probs))
    # a plain face's kind (a blank dragon, a face-down tile) is the blend's: their examples are alike
    same = (match.tile == read) | (np.isin(match.tile, PLAIN_FACES) & np.isin(read, PLAIN_FACES))
    return (match.similarity >= SEARCH_SIMILAR) & same & (tile >= SEARCH_TILE)


def search_gaps(places: np.ndarray, probs: np.ndarray, match: SetMatch, tiles: np.ndarray, added: np.ndarray,
                avoid: np.ndarray, width: int, height: int, name: Name) -> tuple[np.ndarray, np.ndarray, SetMatch]:
    """The tiles found in gaps: `places` (gap_boxes beside `tiles`) already named (`probs`,
    `match`), then, for up to SEARCH_ROUNDS - 1 more rounds, the places beside the last round's
    finds, named by `name`. A place found is kept unless tiles found after the places were listed
    (`added`, then each round's finds) cover it more than MAX_COVERED, or it is the same tile as a
    find of its round that is more alike (`avoid`: boxes already looked at). (boxes, probs, SetMatch)."""
    boxes, found_probs, similarity, tile = [], [], [], []
    row = np.concatenate([np.asarray(tiles, np.float32).reshape(-1, 4), np.asarray(added, np.float32).reshape(-1, 4)])
    newer = np.asarray(added, np.float32).reshape(-1, 4)
    looked = np.concatenate([np.asarray(avoid, np.float32).reshape(-1, 4), places])
    found = np.zeros((0, 4), np.float32)
    for round_ in range(SEARCH_ROUNDS):
        if round_:
            places = gap_boxes(row, found, looked, width, height)
            if not len(places):
                break
            looked = np.concatenate([looked, places])
            probs, match = name(places)
        keep = in_a_gap(probs, match) & (covered_shares(places, newer) <= MAX_COVERED)
        # two finds of a round on one tile (vision.boxes.suppress_duplicates' rule): the more alike stays
        chosen = np.flatnonzero(keep)
        keep[:] = False
        keep[chosen[suppress_duplicates(places[chosen], match.similarity[chosen])]] = True
        found = places[keep]
        if not len(found):
            break
        boxes.append(found)
        found_probs.append(probs[keep])
        similarity.append(match.similarity[keep])
        tile.append(match.tile[keep])
        row, newer = np.concatenate([row, found]), np.concatenate([newer, found])
    if not boxes:
        return (np.zeros((0, 4), np.float32), np.zeros((0, probs.shape[1]), np.float32),
                SetMatch(np.zeros(0, np.float32), np.zeros(0, np.int64)))
    return (np.concatenate(boxes), np.concatenate(found_probs),
            SetMatch(np.concatenate(similarity), np.concatenate(tile)))
