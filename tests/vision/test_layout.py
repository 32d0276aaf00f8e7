"""Layout: one test per layout case, over hand-written scenes of tile boxes."""
from __future__ import annotations

import math
from collections import Counter

import pytest
from test_layout_scenes import scene

from vision.layout import build_hand
from vision.layout_geometry import clean, row_angle

scoring = pytest.importorskip("scoring")
if not hasattr(scoring, "score_hand"):
    pytest.skip("the scorer is not written yet", allow_module_level=True)

def read(dets, **context):
    return build_hand(dets, (2000, 2000), context)


def test_one_row_winning_tile_apart():
    r = read(scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]]))
    assert r["error"] is None
    assert r["hand"]["win_tile"] == "B4"
    assert sorted(r["hand"]["concealed"]) == sorted("W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3".split())
    assert r["hand"]["melds"] == []
    assert r["score"]["total"] == scoring.score_hand(r["hand"])["total"]
    assert not any("not set apart" in w for w in r["warnings"])


def test_sideways_claimed_tile_makes_an_exposed_meld():
    r = read(scene([["B5* B5 B5", "T2 T3* T4", "W1 W2 W3 F1 F1 J1 J1", "J1"]]))
    assert r["error"] is None, r["error"]
    melds = r["hand"]["melds"]
    assert {"kind": "pung", "tiles": ["B5"] * 3, "exposed": True, "claimed": "B5", "from": "left"} in melds
    chow = next(m for m in melds if m["kind"] == "chow")
    assert chow["tiles"] == ["T2", "T3", "T4"] and chow["claimed"] == "T3"
    assert r["hand"]["win_tile"] == "J1"
    assert sum(t["sideways"] for t in r["tiles"]) == 2


def test_concealed_kong_shown_with_two_backs():
    r = read(scene([["BACK W7 W7 BACK", "B1 B2 B3 T4 T5 T6 F3 F3 J2 J2", "F3"]]))
    assert r["error"] is None, r["error"]
    assert r["hand"]["melds"] == [{"kind": "kong", "tiles": ["W7"] * 4, "exposed": False}]
    assert len(r["hand"]["concealed"]) == 10 and r["hand"]["win_tile"] == "F3"


def test_flowers_count_wherever_they_lie_near_the_hand():
    dets = scene([["H2 W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4", "H5"]])
    dets += scene([["H8"]], origin=(300.0, 200.0))  # in a row of its own below the hand
    dets += scene([["H3"]], origin=(1500.0, 900.0))  # across the table: someone else's
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert r["hand"]["flowers"] == ["H2", "H5", "H8"]
    assert "H2" not in r["hand"]["concealed"]
    without = scoring.score_hand({**r["hand"], "flowers": []})["total"]
    assert r["score"]["total"] == without + 3
    assert [r["tiles"][i]["tile"] for i in r["strays"]] == ["H3"]


def test_winning_tile_not_apart_is_the_last_tile_and_the_others_are_alternatives():
    r = read(scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3 B4"]]))
    assert r["error"] is None
    assert r["hand"]["win_tile"] == "B4"
    assert any("not set apart" in w for w in r["warnings"])
    alt_wins = {a["hand"]["win_tile"] for a in r["alternatives"]}
    assert {"B3", "W3"} <= alt_wins and "B4" not in alt_wins
    for a in r["alternatives"]:
        assert a["total"] == scoring.score_hand(a["hand"])["total"]


def test_two_rows_melds_above_concealed_below():
    r = read(scene([["F2* F2 F2", "B7 B8* B9"], ["W2 W3 W4 T6 T6 T6 T8", "T8"]]))
    assert r["error"] is None, r["error"]
    assert len(r["hand"]["melds"]) == 2
    assert r["hand"]["win_tile"] == "T8"
    assert sorted(r["hand"]["concealed"]) == sorted("W2 W3 W4 T6 T6 T6 T8".split())


def test_strays_away_from_the_hand_are_left_out():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]])
    dets += scene([["J3 F4"]], origin=(900.0, 600.0))
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert "J3" not in r["hand"]["concealed"]
    assert sorted(r["tiles"][i]["tile"] for i in r["strays"]) == ["F4", "J3"]
    assert any("left out" in w for w in r["warnings"])


def test_too_few_tiles_says_what_is_off():
    r = read(scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2", "B4"]]))
    assert r["score"] is None
    assert r["error"]["code"] == "wrong_tile_count"
    assert r["error"]["message"].startswith("13 tiles found; a winning hand needs 14, plus one for each kong")


def test_too_few_tiles_with_a_kong_counts_the_kong():
    r = read(scene([["T9 T9 T9* T9", "W1 W2 W3 W4 W5 W6 W7 B1 B2", "B3"]]))
    assert r["error"]["code"] == "wrong_tile_count"
    assert "14 tiles found" in r["error"]["message"] and "15 with 1 kong" in r["error"]["message"]


def test_not_a_winning_hand_is_an_error_not_an_invention():
    r = read(scene([["W1 W2 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3 B5", "T9"]]))
    assert r["score"] is None
    assert r["error"]["code"] == "not_a_winning_hand"


@pytest.mark.parametrize("angle", [-25.0, -8.0, 12.0, 30.0, 90.0])
def test_rotated_photo_reads_the_same(angle):
    rows = [["B5* B5 B5", "T2 T3* T4", "W1 W2 W3 F1 F1 J1 J1", "J1"]]
    straight = read(scene(rows))
    turned = read(scene(rows, angle_deg=angle, origin=(800.0, 300.0)))
    assert turned["error"] is None, (angle, turned["error"])
    assert turned["hand"] == straight["hand"]


def test_row_angle_follows_the_rows():
    for angle in (-40, -10, 0, 15, 35, 89):
        dets = scene([["W1 W2 W3 W4 W5 W6 W7"]], angle_deg=angle)
        tiles, _ = clean(dets)
        est = math.degrees(row_angle(tiles))
        assert abs(((est - angle) + 90) % 180 - 90) < 3, (angle, est)


def test_low_confidence_tiles_come_back_as_warnings():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]])
    dets[4]["score"] = 0.31
    r = read(dets)
    assert r["tiles"][4]["low_confidence"] is True
    assert any("read with low confidence" in w and "W5 (0.31)" in w for w in r["warnings"])


def test_duplicate_boxes_on_one_tile_keep_the_surer_reading():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]])
    dup = dict(dets[0], tile="T1", score=0.4)
    r = read(dets + [dup])
    assert r["error"] is None and len(r["tiles"]) == 14
    assert any("read two ways" in w for w in r["warnings"])


def test_concealed_kong_of_four_backs_is_scored_with_the_usual_total_and_a_warning():
    r = read(scene([["BACK BACK BACK BACK", "B1 B2 B3 T4 T5 T6 W7 W8 W9 J2", "J2"]]))
    assert r["error"] is None, r["error"]
    kong = r["hand"]["melds"][0]
    assert kong["kind"] == "kong" and kong["exposed"] is False
    assert kong["tiles"][0] not in {"B1", "B2", "B3", "T4", "T5", "T6", "W7", "W8", "W9", "J2"}
    assert any("four backs" in w for w in r["warnings"])
    # the total chosen is the one most of the possible kong tiles give
    shown = {"B1", "B2", "B3", "T4", "T5", "T6", "W7", "W8", "W9", "J2"}
    totals = Counter()
    for code in [f"{s}{n}" for s in "WTB" for n in range(1, 10)] + ["F1", "F2", "F3", "F4", "J1", "J2", "J3"]:
        if code not in shown:
            hand = {**r["hand"], "melds": [{"kind": "kong", "tiles": [code] * 4, "exposed": False}]}
            totals[scoring.score_hand(hand)["total"]] += 1
    assert totals[r["score"]["total"]] == max(totals.values())


def test_a_kong_of_four_backs_is_no_tile_seen_among_the_strays():
    # a concealed kong holds all four copies of its tile: a stray of a code rules that code out.
    # Strays of every code but F1 that the hand does not show, far below it, one by one.
    hand = scene([["BACK BACK BACK BACK", "B1 B2 B3 T4 T5 T6 W7 W8 W9 J2", "J2"]])
    shown = {"B1", "B2", "B3", "T4", "T5", "T6", "W7", "W8", "W9", "J2"}
    codes = [f"{s}{n}" for s in "WTB" for n in range(1, 10)] + ["F1", "F2", "F3", "F4", "J1", "J2", "J3"]
    others = [c for c in codes if c not in shown and c != "F1"]
    strays = [{"tile": c, "box": [100 + 200 * (k % 8), 1000 + 200 * (k // 8), 130 + 200 * (k % 8),
                                  1040 + 200 * (k // 8)], "score": 0.95} for k, c in enumerate(others)]
    r = read(hand + strays)
    assert r["error"] is None, r["error"]
    assert r["hand"]["melds"][0]["tiles"] == ["F1"] * 4
    assert sorted(t["tile"] for t in r["tiles"] if t["role"] == "stray") == sorted(others)


def test_two_melds_laid_too_close_are_cut_apart():
    r = read(scene([["B5* B5 B5 T2* T3 T4", "W1 W2 W3 F1 F1 J1 J1", "J1"]]))
    assert r["error"] is None, r["error"]
    assert sorted(m["kind"] for m in r["hand"]["melds"]) == ["chow", "pung"]


def test_tiles_of_one_meld_laid_apart_are_joined():
    r = read(scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1", "B1"], ["F2", "F2", "F2"]], gap=8.0))
    assert r["error"] is None, r["error"]
    assert r["hand"]["melds"] == [{"kind": "pung", "tiles": ["F2"] * 3, "exposed": True}]
    assert r["hand"]["win_tile"] == "B1" and len(r["hand"]["concealed"]) == 10


def test_upside_down_photo_takes_the_first_tile_as_the_last():
    # The runs go down from left to right: the photo is upside down, and the tile
    # a player would put last (here W1, not B9) is on the left.
    r = read(scene([["W1 B9 B8 B7 W9 W8 W7 W6 W5 W4 W3 W2 W1 W1"]]))
    assert r["error"] is None, r["error"]
    assert r["hand"]["win_tile"] == "W1"


def test_a_table_full_of_tiles_is_a_count_error_not_a_guess():
    long_row = ["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B2 B3 B4 B5 B6 B7 B8 B9 T1 T2"]
    r = read(scene([long_row, long_row, ["T3 T4 T5 T6 T7 T8 T9 F1 F2 F3"]]))
    assert r["score"] is None and r["error"]["code"] == "wrong_tile_count"
    assert "too many" in r["error"]["message"]


def test_several_kongs_of_backs_are_scored_from_a_sample_of_their_tiles():
    backs = "BACK BACK BACK BACK"
    r = read(scene([[backs, backs, backs, backs, "W1"], ["W1"]]))
    assert r["error"] is None, r["error"]
    assert [m["exposed"] for m in r["hand"]["melds"]] == [False] * 4
    assert any("four backs" in w for w in r["warnings"])


def test_an_unsure_extra_tile_is_dropped_when_the_count_needs_it():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B2 B3", "B4"]])
    dets[12]["score"] = 0.3  # the second B2: a reflection the detector half believed
    r = read(dets)
    assert r["error"] is None, r["error"]
    assert r["hand"]["concealed"].count("B2") == 1
    assert r["tiles"][12]["role"] == "stray"
    assert any("left out: B2" in w for w in r["warnings"])


def test_a_tile_cut_by_the_frame_next_to_the_hand_is_left_out():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]], origin=(100.0, 100.0))
    # the winning tile B4 ends at x = 532; a tile cut in half by the photo's right edge lies just after
    dets.append({"tile": "B1", "box": [545.0, 100.0, 560.0, 140.0], "score": 0.9})
    r = build_hand(dets, (560, 400), {})
    assert r["error"] is None, r["error"]
    assert r["hand"]["win_tile"] == "B4" and r["hand"]["concealed"].count("B1") == 2
    assert [r["tiles"][i]["box"][0] for i in r["strays"]] == [545.0]


def test_a_claimed_tile_laid_apart_from_its_meld_joins_it():
    # B2 (claimed, sideways) was laid a little apart from B1 B3, which touch the next meld.
    r = read(scene([["B2*", "B1 B3 J3* J3 J3", "W1 W2 W3 T4 T5 T7 T7", "T6"]], gap=20.0))
    assert r["error"] is None, r["error"]
    assert {"kind": "chow", "tiles": ["B1", "B2", "B3"], "exposed": True, "claimed": "B2", "from": "left"} in r["hand"]["melds"]
    assert r["hand"]["win_tile"] == "T6"


def test_a_second_box_half_over_a_tile_is_the_same_tile():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]])
    x1, y1, x2, y2 = dets[6]["box"]
    shifted = [x1 + 0.3 * (x2 - x1), y1, x2 + 0.3 * (x2 - x1), y2]  # covers 70% of W7
    r = read(dets + [{"tile": "W1", "box": shifted, "score": 0.2}])
    assert r["error"] is None, r["error"]
    assert len(r["tiles"]) == 14 and any("read two ways" in w for w in r["warnings"])


def test_cutting_touching_tiles_apart_costs_more_than_ignoring_a_gap():
    # The concealed tiles lie in two pieces (T1 T1 | T4 T5 T6 F3 F3 F3): reading the second
    # piece as two declared melds would need a cut where the tiles touch.
    r = read(scene([["T1 T1", "T4 T5 T6 F3 F3 F3", "T2 T3 T4", "T8 T8 T8"]]))
    assert r["error"] is None, r["error"]
    assert sorted(r["hand"]["concealed"]) == ["F3", "F3", "T1", "T1", "T4", "T5", "T6"]
    assert r["hand"]["win_tile"] == "F3"


def test_boxes_half_over_each_other_are_one_tile_only_when_one_is_unsure():
    # Boxes covering 60% of each other, centres 0.4 box apart: neighbours in a tilted,
    # foreshortened row look like this, and so does a second, unsure read of one tile.
    a = {"tile": "W1", "box": [0, 0, 40, 40], "score": 0.9}
    b = {"tile": "W2", "box": [16, 0, 56, 40], "score": 0.9}
    assert len(clean([a, b])[0]) == 2
    assert len(clean([a, dict(b, score=0.2)])[0]) == 1
