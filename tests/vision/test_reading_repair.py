"""Repairing a reading that is no winning hand with the detector's next choices
(vision.reading_repair), over hand-written detections and the real layout and scorer."""
from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from test_analyze import StandIn, png_bytes
from test_layout_scenes import scene

import vision.reading_repair as rr
from vision.analyze import analyze_detections, analyze_image
from vision.detections import Detections
from vision.messages_zh import warning_zh

scoring = pytest.importorskip("scoring")

SIZE = (2000, 2000)
PLAIN = [["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3", "B4"]]  # 13 tiles in a row, B4 set apart
W7, B2, WIN = 6, 11, 13  # positions in PLAIN


def detections(rows=PLAIN, **kw):
    """A scene whose every detection carries candidates: its own tile first, nothing else."""
    dets = scene(rows, **kw)
    for d in dets:
        d["candidates"] = [[d["tile"], d["score"]]]
    return dets


def misread(dets, i, candidates):
    """Detection i read as the first candidate; the others are the detector's next choices."""
    dets[i]["tile"], dets[i]["score"] = candidates[0]
    dets[i]["candidates"] = [list(c) for c in candidates]
    return dets


def counting_layout():
    """A layout for rr.repair that records every reading it is given: (the list, the layout)."""
    calls = []

    def layout(changed):
        calls.append(changed)
        return analyze(changed, repair=False)

    return calls, layout


def analyze(dets, repair=True):
    return analyze_detections(dets, SIZE, repair_reading=repair).to_json()


def repairs(result):
    return [w["params"]["changes"] for w in result["warning_details"] if w["code"] == "reading_repaired"]


def true_total(rows=PLAIN):
    result = analyze(detections(rows))
    assert result["error"] is None, result["error"]
    return result["score"]["total"]


def test_one_misread_tile_is_repaired_with_the_second_choice():
    dets = misread(detections(), W7, [("W9", 0.6), ("W7", 0.3), ("W8", 0.05)])
    before = analyze(dets, repair=False)
    assert before["error"]["code"] == "not_a_winning_hand" and before["score"] is None
    result = analyze(dets)
    assert result["error"] is None and result["score"]["total"] == true_total()
    box = [round(x, 1) for x in dets[W7]["box"]]
    assert repairs(result) == [[{"from": "W9", "to": "W7", "choice": 2, "box": box}]]
    assert result["warnings"][0] == (
        "tile read as W9 taken as W7 (the detector's second choice) so that the hand wins; check it")
    [tile] = [t for t in result["tiles"] if t["box"] == box]
    assert tile["tile"] == "W7" and tile["score"] == 0.3 and tile["read_as"] == "W9"
    assert [t for t in result["tiles"] if "read_as" in t] == [tile]  # only the changed tile says it
    assert dets[W7]["tile"] == "W9"  # the input is not changed


def test_a_tile_misread_as_a_flower_is_repaired():
    dets = misread(detections(), 4, [("H6", 0.5), ("W5", 0.2)])
    before = analyze(dets, repair=False)
    assert before["error"]["code"] == "wrong_tile_count" and before["error"]["params"]["found"] == 13
    result = analyze(dets)
    assert result["score"]["total"] == true_total() and result["hand"]["flowers"] == []
    assert [(c["from"], c["to"]) for c in repairs(result)[0]] == [("H6", "W5")]


def test_two_tiles_misread_as_backs_among_faces_are_repaired():
    # the count is right, but two white dragons read as backs lie in the concealed row (F3 F3 BACK
    # BACK could be a concealed kong, were it apart): backs_outside_kong, repaired by a pair
    rows = [["W1 W2 W3 W4 W5 W6 W7 W8 W9 F3 F3 J3 J3", "J3"]]
    dets = misread(detections(rows), 11, [("BACK", 0.5), ("J3", 0.4)])
    misread(dets, 12, [("BACK", 0.6), ("J3", 0.3)])
    before = analyze(dets, repair=False)
    assert before["error"]["code"] == "backs_outside_kong" and before["error"]["params"] == {"found": 14, "backs": 2}
    result = analyze(dets)
    assert result["error"] is None and result["score"]["total"] == true_total(rows)
    assert [(c["from"], c["to"]) for c in repairs(result)[0]] == [("BACK", "J3"), ("BACK", "J3")]


def test_two_misread_tiles_are_repaired_by_a_pair():
    dets = misread(detections(), W7, [("W9", 0.6), ("W7", 0.3)])
    misread(dets, B2, [("B8", 0.7), ("B2", 0.2)])
    assert analyze(dets, repair=False)["error"]["code"] == "not_a_winning_hand"
    result = analyze(dets)
    assert result["score"]["total"] == true_total()
    assert [(c["from"], c["to"]) for c in repairs(result)[0]] == [("W9", "W7"), ("B8", "B2")]
    assert "check them" in result["warnings"][0]
    assert sorted((t["read_as"], t["tile"]) for t in result["tiles"] if "read_as" in t) == [("B8", "B2"), ("W9", "W7")]


def test_pairs_are_tried_only_when_no_single_change_wins():
    dets = misread(detections(), W7, [("W9", 0.6), ("W7", 0.3)])
    misread(dets, WIN, [("B4", 0.9), ("B1", 0.5)])  # B1 as the winning tile also wins, with W7
    result = analyze(dets)
    assert [(c["from"], c["to"]) for c in repairs(result)[0]] == [("W9", "W7")]
    assert result["hand"]["win_tile"] == "B4"


def test_candidates_that_cannot_make_the_hand_win_keep_the_original_error():
    dets = misread(detections(), W7, [("W9", 0.6), ("F1", 0.3), ("J1", 0.2)])
    result = analyze(dets)
    assert result == analyze(dets, repair=False)
    assert result["error"]["code"] == "not_a_winning_hand" and repairs(result) == []


def test_a_candidate_below_the_share_of_the_own_score_is_not_tried():
    own = 0.6
    dets = misread(detections(), W7, [("W9", own), ("W7", own * rr.MIN_SHARE * 0.9)])
    assert analyze(dets)["error"]["code"] == "not_a_winning_hand"
    dets = misread(detections(), W7, [("W9", own), ("W7", own * rr.MIN_SHARE * 1.1)])
    assert analyze(dets)["error"] is None


def test_detections_without_candidates_are_left_as_they_are():
    dets = scene(PLAIN)
    dets[W7]["tile"] = "W9"
    result = analyze(dets)
    assert result == analyze(dets, repair=False) and result["error"]["code"] == "not_a_winning_hand"


def test_the_cheapest_of_two_winning_repairs_is_chosen():
    # The winning tile read as J1: B4 (B2 B3 B4) and B1 (B1 B2 B3 with the pair B1 B1) both win.
    for cheaper, dearer in (("B4", "B1"), ("B1", "B4")):
        dets = misread(detections(), WIN, [("J1", 0.6), (cheaper, 0.3), (dearer, 0.2)])
        result = analyze(dets)
        assert result["hand"]["win_tile"] == cheaper
        assert repairs(result)[0][0]["to"] == cheaper


def test_a_repair_keeps_within_one_set():
    # Nine gates (W1 W1 W1 W2 .. W8 W9 W9 W9) wins on any character; a fifth W1 is not in one set.
    rows = [["W1 W1 W1 W2 W3 W4 W5 W6 W7 W8 W9 W9 W9", "J1"]]
    dets = misread(detections(rows), 13, [("J1", 0.6), ("W1", 0.3), ("W5", 0.2)])
    assert analyze(dets)["hand"]["win_tile"] == "W1"  # the cheaper repair: a fourth W1
    stray = detections([["W1"]], origin=(1500.0, 900.0))  # another W1, away from the hand
    result = analyze(dets + stray)
    assert result["hand"]["win_tile"] == "W5"
    assert [t["tile"] for t in result["tiles"]].count("W1") == 4


def test_strays_are_not_changed():
    dets = misread(detections(), W7, [("W9", 0.6), ("F1", 0.3)])
    stray = misread(detections([["B5"]], origin=(1500.0, 900.0)), 0, [("B5", 0.9), ("W7", 0.5)])
    all_dets = dets + stray
    tiles = analyze(all_dets, repair=False)["tiles"]
    assert rr.counted_detections(all_dets, tiles) == set(range(len(dets)))
    assert analyze(all_dets)["error"]["code"] == "not_a_winning_hand"


def test_substitutions_are_the_other_candidates_by_cost():
    dets = misread(detections(), W7, [("W9", 0.6), ("W7", 0.3), ("W8", 0.1), ("W1", 0.01)])
    misread(dets, B2, [("B8", 0.5), ("B2", 0.4)])
    subs = rr.substitutions(dets)
    assert [(s.index, s.tile, s.choice) for s in subs] == [(B2, "B2", 2), (W7, "W7", 2), (W7, "W8", 3)]
    assert subs[1].cost == pytest.approx(math.log(0.6) - math.log(0.3))


def test_the_work_is_bounded_when_nothing_wins():
    dets = detections()
    for i, d in enumerate(dets):  # every tile has three next choices, none of them wins
        misread(dets, i, [(d["tile"], 0.9), ("F1", 0.5), ("F2", 0.4), ("F3", 0.3)])
    misread(dets, W7, [("W9", 0.9), ("J1", 0.5), ("J2", 0.4), ("J3", 0.3)])
    calls, layout = counting_layout()
    original = analyze(dets, repair=False)
    assert rr.needs_repair(original)
    assert rr.repair(dets, original, layout) is None
    bound = rr.MAX_SINGLES + rr.PAIR_POOL * (rr.PAIR_POOL - 1) // 2
    assert 0 < len(calls) <= bound


def test_analyze_answers_the_repair_as_a_warning_with_chinese_text_and_marks_the_tile():
    from vision.annotate import LOW_CONFIDENCE_COLOUR, ROLE_COLOURS, annotate

    dets = misread(detections(), W7, [("W9", 0.9), ("W7", 0.6)])  # 0.6: not a low-confidence tile
    result = analyze_image(png_bytes(), detector=StandIn(copy.deepcopy(dets)))
    assert result["score"]["total"] == true_total()
    [detail] = [w for w in result["warning_details"] if w["code"] == "reading_repaired"]
    assert detail["params"]["changes"][0]["from"] == "W9" and detail["params"]["changes"][0]["to"] == "W7"
    assert warning_zh(detail) == "识别为九万的牌按七万计算（识别的第二选择），这样才能和牌，请核对"
    assert all("candidates" not in t for t in result["tiles"])

    box = detail["params"]["changes"][0]["box"]
    [tile] = [t for t in result["tiles"] if t["box"] == box]
    assert tile["low_confidence"] is False and tile["read_as"] == "W9"
    background = np.full((600, 1200, 3), 70, np.uint8)
    out = annotate(background, result)
    left_edge = tuple(out[int((box[1] + box[3]) / 2), int(box[0])])
    assert left_edge == LOW_CONFIDENCE_COLOUR != ROLE_COLOURS["concealed"]
    # the mark follows the tile's own `read_as`, not the warning's box
    unmarked = dict(result, tiles=[{k: v for k, v in t.items() if k != "read_as"} for t in result["tiles"]])
    out = annotate(background, unmarked)
    assert tuple(out[int((box[1] + box[3]) / 2), int(box[0])]) == ROLE_COLOURS["concealed"]


class MisreadsOneTile:
    """A detector that finds a scene's true boxes but reads one tile of the hand as a flower
    that is not in the scene, with the right tile as its second choice."""

    def __init__(self, record):
        self.dets = [{"tile": b["tile"], "box": b["box"], "score": 0.95, "candidates": [[b["tile"], 0.95]]}
                     for b in record["boxes"]]
        flower = next(f"H{i}" for i in range(1, 9) if all(b["tile"] != f"H{i}" for b in record["boxes"]))
        i = next(i for i, b in enumerate(record["boxes"]) if b["role"] == "concealed")
        self.change = (flower, record["boxes"][i]["tile"])
        misread(self.dets, i, [(flower, 0.6), (self.change[1], 0.3)])

    def detect(self, rgb, **_):
        return Detections(copy.deepcopy(self.dets))


def test_analyze_eval_counts_the_repairs():
    from datasets.synth.generate import make_example
    from training.analyze_eval import FRESH_SEEDS, evaluate

    seed = FRESH_SEEDS + 501
    detector = MisreadsOneTile(make_example(seed, 0, [640])["record"])
    without = evaluate(1, seed=seed, long_sides=(640,), detector=detector, repair=False)
    assert without["results"][0]["photo_total"] is None and without["repairs"]["photos"] == 0
    summary = evaluate(1, seed=seed, long_sides=(640,), detector=detector)
    [row] = summary["results"]
    assert row["layout_total"] == row["true_total"] == row["photo_total"]
    assert row["repaired"] == ["{} taken as {}".format(*detector.change)]
    assert {k: summary["repairs"][k] for k in ("on", "photos", "right", "wrong")} == {
        "on": True, "photos": 1, "right": 1, "wrong": 0}


ONE_ROW = [["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3 B4"]]  # the plain hand's tiles in one row
ROW_W7 = 6


def twin_of(dets, i, candidates, shift=0.4):
    """A second box on detection i's tile (shifted `shift` of its width), read as `candidates`."""
    x1, y1, x2, y2 = dets[i]["box"]
    tile, score = candidates[0]
    return {"tile": tile, "box": [x1 + shift * (x2 - x1), y1, x2 + shift * (x2 - x1), y2], "score": score,
            "candidates": [list(c) for c in candidates]}


def test_a_hand_with_a_tile_too_many_drops_the_second_box_on_one_tile():
    dets = detections(ONE_ROW)
    twin = twin_of(dets, ROW_W7, [("W8", 0.6)])
    before = analyze(dets + [twin], repair=False)
    assert before["error"]["code"] == "wrong_tile_count" and before["error"]["params"]["found"] == 15
    result = analyze(dets + [twin])
    assert result["error"] is None and result["score"]["total"] == true_total(ONE_ROW)
    box = [round(x, 1) for x in twin["box"]]
    assert repairs(result) == [[{"from": "W8", "to": None, "box": box, "removed": True}]]
    assert result["warnings"][0] == ("tile read as W8 left out (likely a second box on one tile, or no tile) "
                                     "so that the hand wins; check it")
    # the dropped box stays among the tiles, left out of the hand and marked to be checked
    [tile] = [t for t in result["tiles"] if t.get("dropped")]
    assert tile["box"] == box and tile["tile"] == "W8" and tile["role"] == "stray" and tile["low_confidence"] is True
    assert len(result["tiles"]) == 15 and [t["box"][0] for t in result["tiles"]] == sorted(t["box"][0] for t in result["tiles"])


def test_the_weaker_of_two_boxes_on_one_tile_is_the_cheaper_drop():
    dets = detections(ONE_ROW)
    dets.append(twin_of(dets, ROW_W7, [("W8", 0.6)]))
    counted = set(range(len(dets)))
    costs = {d.index: d.cost for d in rr.drops(dets, counted)}
    assert costs[len(dets) - 1] == rr.DROP_COSTS["weaker_twin"]
    assert costs[ROW_W7] == rr.DROP_COSTS["stronger_twin"]
    assert costs[0] == rr.DROP_COSTS["lone"]
    assert rr.DROP_COSTS["weaker_twin"] < rr.DROP_COSTS["stronger_twin"] < rr.DROP_COSTS["lone_unsure"] < rr.DROP_COSTS["lone"]
    assert [d.index for d in rr.drops(dets, counted)][:2] == [len(dets) - 1, ROW_W7]


def test_a_drop_may_come_with_one_substitution():
    dets = misread(detections(ONE_ROW), 1, [("W3", 0.6), ("W2", 0.3)])  # W2 read as W3 too
    twin = twin_of(dets, ROW_W7, [("W8", 0.6)])
    assert analyze(dets + [twin], repair=False)["error"]["params"]["found"] == 15
    result = analyze(dets + [twin])
    assert result["score"]["total"] == true_total(ONE_ROW)
    [changes] = repairs(result)
    assert [(c["from"], c["to"], c.get("removed", False)) for c in changes] == [("W3", "W2", False), ("W8", None, True)]
    assert "check them" in result["warnings"][0]


def test_a_reading_with_the_right_count_is_never_repaired_by_a_drop():
    dets = detections()  # the hand set apart: with a twin the layout leaves a tile out, no winning hand
    twin = twin_of(dets, W7, [("W8", 0.6)])
    original = analyze(dets + [twin], repair=False)
    assert original["error"]["code"] == "not_a_winning_hand" and not rr.tiles_over(original)
    calls, layout = counting_layout()
    assert rr.repair(dets + [twin], original, layout) is None
    assert all(len(c) == len(dets) + 1 for c in calls)


def test_the_work_with_drops_is_bounded():
    dets = detections(ONE_ROW) + [twin_of(detections(ONE_ROW), ROW_W7, [("J1", 0.6)])]
    for i, d in enumerate(dets):  # nothing wins: every tile's next choices are flowers
        misread(dets, i, [(d["tile"], 0.9), ("F1", 0.5), ("F2", 0.4), ("F3", 0.3)])
    dets[0]["tile"] = dets[0]["candidates"][0][0] = "J2"  # and no drop alone makes it win
    calls, layout = counting_layout()
    original = analyze(dets, repair=False)
    assert rr.tiles_over(original)
    assert rr.repair(dets, original, layout) is None
    bound = rr.MAX_SINGLES + rr.MAX_DROPS + rr.PAIR_POOL * (rr.PAIR_POOL - 1) // 2 + rr.DROP_POOL * rr.PAIR_POOL
    assert any(len(c) == len(dets) - 1 for c in calls) and 0 < len(calls) <= bound


def test_a_dropped_tile_is_shown_on_the_photo_and_said_in_chinese():
    from vision.annotate import LOW_CONFIDENCE_COLOUR, annotate

    dets = detections(ONE_ROW)
    twin = twin_of(dets, ROW_W7, [("W8", 0.6)])
    result = analyze_image(png_bytes(), detector=StandIn(copy.deepcopy(dets + [twin])))
    [detail] = [w for w in result["warning_details"] if w["code"] == "reading_repaired"]
    assert warning_zh(detail) == "识别为八万的牌没有计入（可能是同一张牌识别了两次，或不是牌），这样才能和牌，请核对"
    box = detail["params"]["changes"][0]["box"]
    out = annotate(np.full((600, 1200, 3), 70, np.uint8), result)
    assert tuple(out[int((box[1] + box[3]) / 2), int(box[2]) - 1]) == LOW_CONFIDENCE_COLOUR


def test_the_api_answers_a_dropped_tile_as_the_repair_gives_it():
    from pydantic import TypeAdapter

    from api.schemas import PhotoTile, WarningDetail

    dets = detections(ONE_ROW)
    result = analyze(dets + [twin_of(dets, ROW_W7, [("W8", 0.6)])])
    adapter = TypeAdapter(WarningDetail)
    detail = result["warning_details"][0]
    assert adapter.dump_python(adapter.validate_python(detail), mode="json") == detail
    [tile] = [t for t in result["tiles"] if t.get("dropped")]
    assert PhotoTile.model_validate(tile).model_dump()["dropped"] is True
    substituted = analyze(misread(detections(), W7, [("W9", 0.6), ("W7", 0.3)]))["warning_details"][0]
    assert adapter.dump_python(adapter.validate_python(substituted), mode="json") == substituted  # no flags added


def test_a_misread_tile_whose_group_was_left_out_is_repaired_when_the_hand_is_short():
    # a concealed kong shown BACK W4 W4 BACK in a row of its own: one W4 read as W2 breaks it, the
    # layout leaves the row out as strays (11 of 16 tiles), and the unsure stray's third choice wins
    rows = [["BACK W4 W4 BACK"], ["T7 T7", "B7 B7* B7", "BACK J1 J1 BACK", "BACK F2 F2 BACK"]]
    dets = misread(detections(rows), 1, [("W2", 0.29), ("W8", 0.18), ("W4", 0.11)])
    before = analyze(dets, repair=False)
    assert before["error"]["code"] == "wrong_tile_count" and before["error"]["params"]["found"] == 13
    assert [t["role"] for t in before["tiles"] if t["tile"] == "W2"] == ["stray"]
    result = analyze(dets)
    assert result["score"]["total"] == true_total(rows)
    assert [(c["from"], c["to"]) for c in repairs(result)[0]] == [("W2", "W4")]


def test_a_sure_stray_is_never_changed():
    rows = [["BACK W4 W4 BACK"], ["T7 T7", "B7 B7* B7", "BACK J1 J1 BACK", "BACK F2 F2 BACK"]]
    dets = misread(detections(rows), 1, [("W2", 0.6), ("W4", 0.3)])  # read sure: a stray stays one
    assert analyze(dets)["error"]["code"] == "wrong_tile_count"
