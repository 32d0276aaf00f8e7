"""Layout: hands the layout read wrong from perfect boxes (analyze-eval --layout-only), one test
per kind of failure, each over a hand-written scene of the shape that failed."""
from __future__ import annotations

import pytest
from test_layout_scenes import H, W, scene

from vision import layout_geometry as geometry
from vision.layout import build_hand

scoring = pytest.importorskip("scoring")


def read(dets, **context):
    return build_hand(dets, (2000, 2000), context)


def melds(result) -> list[tuple[str, tuple[str, ...], bool]]:
    return sorted((m["kind"], tuple(m["tiles"]), m["exposed"]) for m in result["hand"]["melds"])


def test_two_melds_touching_are_cut_apart_at_the_claimed_tile_from_either_end():
    # T3 T3 T3* (claimed from the right: its turned tile ends it) touches B4 B4 B4. Cutting
    # the pung off the left end costs nothing (it is marked); the same cut seen from the right
    # end (an unmarked B4 pung) must not make it cost more than reading all six as concealed.
    r = read(scene([["T3 T3 T3* B4 B4 B4", "T3* T4 T5"], ["T7 T7 T7 W6 W6"]]))
    assert r["error"] is None, r["error"]
    assert melds(r) == [("chow", ("T3", "T4", "T5"), True), ("pung", ("B4",) * 3, True), ("pung", ("T3",) * 3, True)]
    assert sorted(r["hand"]["concealed"]) == ["T7", "T7", "T7", "W6"] and r["hand"]["win_tile"] == "W6"
    assert not any(w["code"] == "unusual_layout" for w in r["warning_details"])


def test_the_winning_tile_laid_against_a_pung_of_its_own_tile_is_not_a_kong():
    # Four T4 touching look like a kong, but then 14 tiles are one too few: the first T4 is the
    # winning tile laid close to the pung.
    r = read(scene([["T3 T5 T6 T7 T8 F2 F2", "T4 T4 T4* T4", "T1* T2 T3"]]), self_drawn=True)
    assert r["error"] is None, r["error"]
    assert melds(r) == [("chow", ("T1", "T2", "T3"), True), ("pung", ("T4",) * 3, True)]
    assert r["hand"]["win_tile"] == "T4"
    assert sorted(r["hand"]["concealed"]) == sorted("T3 T5 T6 T7 T8 F2 F2".split())


def test_a_concealed_kong_touching_a_concealed_tile_is_cut_off_it():
    # The face-down tiles mark B2 BACK BACK B2 as a declared kong although the lone concealed
    # tile T1 touches it; the winning T1 lies apart.
    r = read(scene([["T5* T6 T7", "F4 F4 F4*", "B7* B8 B9", "B2 BACK BACK B2 T1", "T1"]]))
    assert r["error"] is None, r["error"]
    assert ("kong", ("B2",) * 4, False) in melds(r)
    assert r["hand"]["concealed"] == ["T1"] and r["hand"]["win_tile"] == "T1"


def test_a_row_of_more_than_four_backs_is_the_wall_not_a_kong():
    backs = " ".join(["BACK"] * 7)
    dets = scene([[backs], ["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]], row_gap=10.0)
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert r["hand"]["melds"] == [] and r["hand"]["win_tile"] == "B4"
    assert sorted(r["tiles"][i]["tile"] for i in r["strays"]) == ["BACK"] * 7


def test_a_claimed_tile_laid_apart_from_its_pung_makes_a_kong():
    # W1* lies a little apart from W1 W1 W1 (a turned tile takes more room): one kong, not a
    # pung and a tile left out.
    r = read(scene([["W1 W1 W1", "W1*", "W8 W8 W8 W8*"], ["T3 T5 B8 B8 W5 W5 W5", "T4"]], gap=20.0))
    assert r["error"] is None, r["error"]
    assert melds(r) == [("kong", ("W1",) * 4, True), ("kong", ("W8",) * 4, True)]
    assert r["strays"] == []
    assert not any(w["code"] == "unusual_layout" for w in r["warning_details"])


def _row_seen_at_a_low_angle(codes: list[str], grow: float) -> list[dict]:
    """Boxes of a row whose tiles look wider tile after tile (the far end nearer the camera at
    a low angle, as a phone sees a hand across the table); a code ending in * lies sideways."""
    dets, x, width = [], 0.0, W
    for code in codes:
        turned = code.endswith("*")
        w = width * H / W if turned else width
        dets.append({"tile": code.rstrip("*"), "box": [x, 100.0, x + w, 100.0 + H], "score": 0.95})
        x += w
        width *= grow
    return dets


def _sideways_marks(row: list[str]) -> list[bool]:
    """Which tiles of `row`, seen at a low angle, the geometry marks sideways."""
    tiles, _ = geometry.clean(_row_seen_at_a_low_angle(row, grow=1.15))
    geometry.frame(tiles)
    width, _ = geometry.tile_units(tiles)
    geometry.groups(geometry.rows(tiles, width), width)
    return [t.sideways for t in tiles]


def test_tiles_growing_along_a_row_seen_at_a_low_angle_are_not_sideways():
    assert _sideways_marks("T3 T5 B8 B8 W5 W5 W5 W6".split()) == [False] * 8


def test_a_sideways_tile_stands_out_from_the_trend_of_a_row_seen_at_a_low_angle():
    assert _sideways_marks("W1 W1 W1 W1* W8 W8 W8 W8".split()) == [False, False, False, True, False, False, False, False]


def test_chows_laid_down_the_row_say_the_photo_is_turned_round():
    # Seen from the other side of the table the chows read W3 W2 W1 and T5 T4 T3: the tile a
    # player puts last (the winning tile W3 here, not W4) is the first along the photo's row.
    r = read(scene([["T4 T4 T4", "W3 W2 W1", "T5 T4 T3"], ["W3 B4 B4 W5 W4"]]))
    assert r["error"] is None, r["error"]
    assert r["hand"]["win_tile"] == "W3"
    assert sorted(r["hand"]["concealed"]) == ["B4", "B4", "W4", "W5"]


def test_winds_and_dragons_sorted_down_the_row_say_the_photo_is_turned_round():
    # Players sort winds East to North and dragons red, green, white: F4 F4 F2 F2 F2 is
    # F2 F2 F2 F4 and the winning F4, seen from the other side.
    r = read(scene([["F1 F1 F1 F1", "B6 B5 B4", "B3 B3 B3"], ["F4 F4 F2 F2 F2"]]))
    assert r["error"] is None, r["error"]
    assert r["hand"]["win_tile"] == "F4"
    assert sorted(r["hand"]["concealed"]) == ["F2", "F2", "F2", "F4"]


def test_a_flower_turned_across_the_hand_outside_its_rows_is_a_neighbours():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]])
    dets += scene([["H6*"]], origin=(200.0, 40.0))  # just above the hand, turned sideways
    dets += scene([["H2"]], origin=(300.0, 200.0))  # just below it, square with the hand
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert r["hand"]["flowers"] == ["H2"]
    assert [r["tiles"][i]["tile"] for i in r["strays"]] == ["H6"]


def test_a_claimed_tile_turned_in_a_chow_does_not_hide_its_order():
    # T8 T6 T7*: the chow's upright tiles go down the row (its claimed tile, turned, lies at the
    # player's left, here the right): the photo is turned round and B9 is the winning tile.
    r = read(scene([["W4 W4 W4", "F1 F1 F1", "T8 T6 T7*"], ["B9 B9 B9 W2 W2"]], row_gap=20.0))
    assert r["error"] is None, r["error"]
    assert r["hand"]["win_tile"] == "B9"
    assert sorted(r["hand"]["concealed"]) == ["B9", "B9", "W2", "W2"]


def test_concealed_tiles_lie_in_one_row_so_a_pung_apart_in_another_is_a_meld():
    # T5 | T5 T5 lie in the melds' row, a little apart: a pung, not two concealed pieces and a
    # winning tile away from the concealed row.
    r = read(scene([["T5", "T5 T5"], ["T5 T6 T7 T7 T8 T9 W8 W8 W8 W9 W7"]]))
    assert r["error"] is None, r["error"]
    assert melds(r) == [("pung", ("T5",) * 3, True)]
    assert r["hand"]["win_tile"] == "W7"


def test_single_tiles_strewn_outside_the_hands_rows_are_left_out_with_their_flowers():
    dets = scene([["W9 W9 W9", "T6 T7 T8", "B2 B3 B3 B3 B4 B5 B6 B2"]], origin=(100.0, 100.0))
    # just above the hand, each apart: W9 with H8 beside it, F4 and W6 in rows of their own
    dets += scene([["W9", "H8"]], gap=40.0, origin=(100.0, 45.0))
    dets += scene([["F4"]], origin=(250.0, 60.0)) + scene([["W6"]], origin=(320.0, 45.0))
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert melds(r) == [("chow", ("T6", "T7", "T8"), True), ("pung", ("W9",) * 3, True)]
    assert r["hand"]["flowers"] == []
    assert sorted(r["tiles"][i]["tile"] for i in r["strays"]) == ["F4", "H8", "W6", "W9"]


def test_of_two_unsure_tiles_the_less_sure_is_the_one_left_out():
    # One tile too many, and two tiles the detector was unsure of: leaving out either makes a
    # winning hand (without the B4 it scores more), but the B3 read at 0.35 is likelier no tile.
    dets = scene([["B2 B2 B2 B2 B3 B3 B4 B4 B4 B5 B5 B7 B8 B9", "B5"]])
    dets[5]["score"], dets[6]["score"] = 0.35, 0.45  # the second B3, the first B4
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert r["hand"]["concealed"].count("B3") == 1 and r["hand"]["concealed"].count("B4") == 3
    assert r["strays"] == [5]
    without_b4 = {**r["hand"], "concealed": "B2 B2 B2 B2 B3 B3 B4 B4 B5 B5 B7 B8 B9".split()}
    assert scoring.score_hand(without_b4)["total"] > r["score"]["total"]


def test_groups_are_linked_by_the_spacing_of_touching_tiles_when_boxes_are_narrow():
    # Seen at a low angle, tiles standing in a row show boxes much narrower than their spacing
    # (22 px boxes, 40 px apart); the gaps between groups (0.6 tile) are measured in that spacing,
    # not in box widths (which would make them 1.9 tiles wide, too far apart for one hand).
    dets, x = [], 100.0
    for group in ["B6 B6 W6 W5", "W7", "W3 W4 W5", "T7 T8 T9", "B2 B3 B4"]:
        for code in group.split():
            dets.append({"tile": code, "box": [x, 100.0, x + 22.0, 140.0], "score": 0.95})
            x += 40.0
        x += 24.0
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert r["hand"]["win_tile"] == "W7" and sorted(r["hand"]["concealed"]) == ["B6", "B6", "W5", "W6"]
    assert len(r["hand"]["melds"]) == 3
