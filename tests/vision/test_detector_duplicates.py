"""Class-agnostic duplicate suppression after classification (no model needed)."""
from __future__ import annotations

import numpy as np

from vision.boxes import suppress_duplicates


def _kept(boxes, scores):
    return sorted(suppress_duplicates(np.array(boxes, np.float32), np.array(scores, np.float32)).tolist())


def test_two_boxes_on_one_tile_keep_the_better_scored():
    # the same 40x56 tile seen twice, a few pixels apart (IoU about 0.7): one tile
    assert _kept([[100, 100, 140, 156], [106, 104, 146, 160]], [0.6, 0.9]) == [1]


def test_a_slightly_smaller_box_inside_a_tile_is_the_same_tile():
    assert _kept([[100, 100, 140, 156], [104, 106, 138, 152]], [0.9, 0.5]) == [0]


def test_neighbouring_tiles_that_touch_or_overlap_a_little_are_kept():
    boxes = [[100, 100, 140, 156], [138, 100, 178, 156], [176, 101, 216, 157], [300, 100, 340, 156]]
    assert _kept(boxes, [0.9, 0.8, 0.7, 0.6]) == [0, 1, 2, 3]


def test_a_tile_nested_in_a_box_twice_its_size_is_another_reading_not_a_duplicate():
    # a box over two tiles and a box over one of them: the layout decides, both stay
    assert _kept([[100, 100, 180, 156], [100, 100, 140, 156]], [0.9, 0.8]) == [0, 1]


def test_suppression_is_greedy_by_score_across_a_chain():
    # b overlaps a and c; a (best) suppresses b, so c survives although b would have taken it
    boxes = [[0, 0, 40, 56], [5, 0, 45, 56], [10, 0, 50, 56]]
    assert _kept(boxes, [0.9, 0.8, 0.7]) == [0]
    assert _kept([[0, 0, 40, 56], [8, 0, 48, 56], [16, 0, 56, 56]], [0.9, 0.95, 0.7]) == [1]


def test_empty_and_degenerate_boxes():
    assert _kept(np.zeros((0, 4)), []) == []
    # a zero-area box is not a duplicate of anything (and nothing is a duplicate of it)
    assert _kept([[10, 10, 10, 50], [0, 0, 40, 56]], [0.9, 0.8]) == [0, 1]


def test_a_weaker_box_lying_across_two_found_neighbours_goes():
    # two touching 40x56 tiles and a box half a tile along, over both (scene 140 of seed 900000:
    # a pung of three read as a kong)
    assert _kept([[100, 100, 140, 156], [140, 100, 180, 156], [120, 100, 160, 156]], [0.9, 0.8, 0.6]) == [0, 1]
    # ... only once both neighbours are kept: scored above one of them, it stays (and so does that one)
    assert _kept([[100, 100, 140, 156], [140, 100, 180, 156], [120, 100, 160, 156]], [0.9, 0.5, 0.6]) == [0, 1, 2]


def test_the_middle_tile_of_a_loose_packed_row_stays():
    # loose boxes 20% wider than the tiles, 40 px apart: the middle one's neighbours cover 40% of it
    boxes = [[96, 100, 144, 156], [136, 100, 184, 156], [176, 100, 224, 156]]
    assert _kept(boxes, [0.9, 0.6, 0.8]) == [0, 1, 2]
    # a tilted row: axis-aligned boxes of tiles turned 30 degrees overlap their neighbours by a third
    boxes = [[0, 0, 61, 66], [35, 20, 96, 86], [70, 40, 131, 106]]
    assert _kept(boxes, [0.9, 0.5, 0.8]) == [0, 1, 2]


def test_a_box_over_two_tiles_goes_when_they_cover_most_of_it():
    # a real val photo: two F3s one above the other (about 62 x 46) and a weaker 79 x 76 box over
    # both, covered 0.68 by them (the finder's NMS at 0.55 lets it through)
    f3s = [[239, 179, 300, 225], [241, 217, 304, 268]]
    assert _kept(f3s + [[230, 166, 309, 242]], [0.46, 0.52, 0.37]) == [0, 1]
    # a box of a tile's size that they cover as much (0.69) is a tile of its own: it stays
    assert _kept(f3s + [[260, 200, 322, 246]], [0.46, 0.52, 0.37]) == [0, 1, 2]


def test_a_box_two_thirds_over_a_better_one_is_the_same_tile():
    # a second box a third of a tile along (40 px wide tile, 13 px off: the intersection covers
    # 27/40 = 0.675 of each): one tile (DUPLICATE_OVERLAP 0.65; at 0.7 both stayed)
    assert _kept([[100, 100, 140, 156], [113, 100, 153, 156]], [0.9, 0.3]) == [0]
    # ... while a neighbour overlapping a third of it stays
    assert _kept([[100, 100, 140, 156], [126, 100, 166, 156]], [0.9, 0.3]) == [0, 1]
