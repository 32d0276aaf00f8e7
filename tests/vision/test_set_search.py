"""The search for tiles the finder gives no box (vision.set_search): the places looked at beside a
row's tiles, the rule that keeps a place, the rounds along a run of them, and the geometry that
spares the classifier weak boxes the rescue would turn down. Small arrays and a fake classifier."""
from __future__ import annotations

import numpy as np

from vision.boxes import iou_matrix
from vision.classes import CLASSES, NOT_A_TILE
from vision.classifier import SetMatch
from vision.set_search import (
    SEARCH_ROUNDS,
    SEARCH_SIMILAR,
    SEARCH_TILE,
    gap_boxes,
    in_a_gap,
    search_gaps,
    worth_naming,
)

J3, W1, BACK = CLASSES.index("J3"), CLASSES.index("W1"), CLASSES.index("BACK")
# a row of tiles 30 x 40 side by side from x = 100, one tile missing (the fourth place)
ROW = np.array([[100, 50, 130, 90], [131, 50, 161, 90], [162, 50, 192, 90], [224, 50, 254, 90]], np.float32)
NOTHING = np.zeros((0, 4), np.float32)


def lefts(places: np.ndarray) -> list[int]:
    return sorted(int(round(x)) for x in places[:, 0])


def test_the_places_looked_at_are_the_row_s_ends_and_its_gap_once():
    places = gap_boxes(ROW, ROW, NOTHING, 400, 300)
    # before the first tile, the gap (from its two sides: one place), after the last; none on a tile
    assert lefts(places) == [69, 193, 255]
    assert np.allclose(places[:, 3] - places[:, 1], 40) and np.allclose(places[:, 2] - places[:, 0], 30)
    # a place a box was looked at already is not looked at again (a weak box there)
    assert lefts(gap_boxes(ROW, ROW, np.array([[254, 52, 286, 90]], np.float32), 400, 300)) == [69, 193]
    # a place the photo's edge cuts is not looked at: the row's start at the photo's left side
    assert lefts(gap_boxes(ROW - [90, 0, 90, 0], ROW - [90, 0, 90, 0], NOTHING, 400, 300)) == [103, 165]
    # only beside the tiles asked about (a round after the first: beside what it found)
    assert lefts(gap_boxes(ROW, ROW[3:], NOTHING, 400, 300)) == [193, 255]


def test_a_row_at_a_slant_is_followed_along_its_slant():
    # tiles stepping 25 across and 10 down (boxes overlapping): the places continue the steps
    slant = np.array([[100, 50, 130, 90], [125, 60, 155, 100], [150, 70, 180, 110]], np.float32)
    places = gap_boxes(slant, slant, NOTHING, 400, 300)
    assert np.allclose(places, [[75, 40, 105, 80], [175, 80, 205, 120]])


def test_a_gap_in_a_packed_row_at_a_slant_is_looked_at():
    # tiles stepping 20 across and 8 down (each box overlapped by both neighbours' boxes), the fifth
    # missing, and four tiles lying apart: the gap's place is covered as much as the row's tiles are
    row = np.array([[100 + 20 * i, 50 + 8 * i, 130 + 20 * i, 90 + 8 * i] for i in range(9) if i != 4], np.float32)
    apart = np.array([[400 + 60 * i, 250, 430 + 60 * i, 290] for i in range(4)], np.float32)
    tiles = np.concatenate([row, apart])
    gap = np.array([[180, 82, 210, 122]], np.float32)
    assert iou_matrix(gap, gap_boxes(tiles, tiles, NOTHING, 800, 400)).max() > 0.9


def test_a_row_down_the_photo_is_searched_down_it():
    column = ROW[:, [1, 0, 3, 2]]  # the same row turned: tiles 40 wide and 30 high, down the photo
    places = gap_boxes(column, column, NOTHING, 300, 400)
    assert sorted(int(round(y)) for y in places[:, 1]) == [69, 193, 255]
    assert np.allclose(places[:, 0], 50)


def test_discards_laid_a_tile_apart_are_searched_at_their_spacing():
    # tiles 30 wide with 25 between them (a row of discards): the places before and after the row
    # lie one spacing on, where the next discard would be, not against the end tile
    spaced = np.array([[100 + 55 * i, 50, 130 + 55 * i, 90] for i in range(3)], np.float32)
    looked = lefts(gap_boxes(spaced, spaced, NOTHING, 600, 300))
    assert looked[0] == 45 and looked[-1] == 265  # not 69 and 241, against the end tiles


def _named(tile: np.ndarray, similarity: np.ndarray, read: np.ndarray, not_a_tile: np.ndarray):
    probs = np.full((len(tile), NOT_A_TILE + 1), 0.001, np.float32)
    probs[np.arange(len(tile)), read] = 0.9
    probs[:, NOT_A_TILE] = not_a_tile
    return probs, SetMatch(np.asarray(similarity, np.float32), np.asarray(tile))


def test_a_place_is_a_tile_when_the_set_knows_it_and_the_classifier_agrees():
    probs, match = _named(np.array([J3, J3, J3, J3]), np.array([0.9, SEARCH_SIMILAR - 0.01, 0.9, 0.9]),
                          np.array([J3, J3, W1, J3]), np.array([0.0, 0.0, 0.0, 1 - SEARCH_TILE + 0.01]))
    # alike and agreeing: yes; too unlike, read as another tile, likely no tile: no
    assert in_a_gap(probs, match).tolist() == [True, False, False, False]
    assert in_a_gap(probs[:0], SetMatch(match.similarity[:0], match.tile[:0])).tolist() == []
    # a plain face: the set's nearest example a face-down tile, the blend a blank dragon (or the other
    # way round) is a tile of the blend's kind; a plain example and a drawn face are not
    probs, match = _named(np.array([BACK, J3, BACK]), np.full(3, 0.9), np.array([J3, BACK, W1]), np.zeros(3))
    assert in_a_gap(probs, match).tolist() == [True, True, False]


def _fake_classifier(dragons: np.ndarray, calls: list):
    """Names a place a blank dragon of the set where one of `dragons` is, else no tile."""
    def name(places: np.ndarray):
        calls.append(len(places))
        on = (iou_matrix(places, dragons) >= 0.5).any(axis=1)
        return _named(np.where(on, J3, W1), np.where(on, 0.9, 0.5), np.where(on, J3, W1), np.where(on, 0.0, 0.9))

    return name


def test_a_run_of_unseen_tiles_is_found_round_by_round():
    # three blank dragons after the row's last tile, none given a box: one found each round
    dragons = np.array([[255, 50, 285, 90], [286, 50, 316, 90], [317, 50, 347, 90]], np.float32)
    calls: list[int] = []
    name = _fake_classifier(dragons, calls)
    places = gap_boxes(ROW, ROW, NOTHING, 640, 300)
    probs, match = name(places)
    found, found_probs, found_match = search_gaps(places, probs, match, ROW, NOTHING, NOTHING, 640, 300, name)
    assert lefts(found) == [255, 286, 317][:SEARCH_ROUNDS]
    assert (found_match.tile == J3).all() and len(found_probs) == len(found)
    assert calls[1:] == [1] * (SEARCH_ROUNDS - 1)  # each round looks only beside the last one's find
    # where nothing is found, one naming of the first places and no more rounds
    calls.clear()
    empty = _fake_classifier(NOTHING, calls)
    probs, match = empty(places)
    assert len(search_gaps(places, probs, match, ROW, NOTHING, NOTHING, 640, 300, empty)[0]) == 0 and calls == [len(places)]


def test_two_finds_on_one_place_count_once():
    # the gap in the row seen from both sides is one place; a find a tile already covers is dropped
    dragons = np.array([[193, 50, 223, 90]], np.float32)
    name = _fake_classifier(dragons, [])
    places = np.concatenate([gap_boxes(ROW, ROW, NOTHING, 400, 300), [[200, 50, 230, 90]]]).astype(np.float32)
    probs, match = _named(np.full(len(places), J3), np.full(len(places), 0.9), np.full(len(places), J3),
                          np.zeros(len(places)))
    found = search_gaps(places, probs, match, ROW, NOTHING, NOTHING, 400, 300, name)[0]
    assert lefts(found) == [69, 193, 255]  # the place at 200 lies mostly on the find at 193


def test_weak_boxes_the_rescue_would_turn_down_are_not_named():
    weak = np.array([
        [255, 50, 285, 90],    # after the row: named
        [115, 50, 145, 90],    # half a tile along the row, across two tiles: not
        [255, 50, 265, 60],    # a speck: not (a third of a tile's height)
        [193, 50, 223, 90],    # the gap: named
    ], np.float32)
    row = np.concatenate([ROW, ROW + [0, 100, 0, 100]])  # 5 tiles or more: the size rule applies
    assert worth_naming(weak, row).tolist() == [True, False, False, True]
    assert worth_naming(weak[2:3], ROW).tolist() == [True]  # under 5 tiles, no size rule
    assert worth_naming(NOTHING, ROW).tolist() == []


def test_covered_shares_are_the_rescue_s_covered_for_many_boxes():
    from vision.set_rescue import covered
    from vision.set_search import covered_shares

    rng = np.random.default_rng(3)
    corners = rng.uniform(0, 200, (30, 2)).astype(np.float32)
    boxes = np.concatenate([corners, corners + rng.uniform(5, 60, (30, 2)).astype(np.float32)], axis=1)
    shares = covered_shares(boxes[:10], boxes[10:])
    assert np.allclose(shares, [covered(box, boxes[10:]) for box in boxes[:10]], atol=1e-5)
    assert (shares > 0).any() and covered_shares(boxes[:3], NOTHING).tolist() == [0, 0, 0]
    # a tile's own share covered by the others: itself left out
    assert np.allclose(covered_shares(ROW[:2], ROW, but_itself=True), 0)


def test_a_find_a_rescued_box_covers_is_dropped():
    dragons = np.array([[255, 50, 285, 90]], np.float32)
    name = _fake_classifier(dragons, [])
    places = gap_boxes(ROW, ROW, NOTHING, 640, 300)
    probs, match = name(places)
    rescued_there = np.array([[258, 50, 288, 90]], np.float32)  # a weak box the rescue kept meanwhile
    assert lefts(search_gaps(places, probs, match, ROW, NOTHING, NOTHING, 640, 300, name)[0]) == [255]
    assert len(search_gaps(places, probs, match, ROW, rescued_there, NOTHING, 640, 300, name)[0]) == 0
