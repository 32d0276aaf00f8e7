"""A hand one tile short may take one of the finder's weak boxes (scored under its threshold):
vision.detector.Detector.detect's weak_floor, vision.analyze.detect_hand and vision.reading_repair's
additions, over hand-written detections and the real layout and scorer."""
from __future__ import annotations

import copy
from types import SimpleNamespace

import numpy as np
import pytest
from test_analyze import StandIn, png_bytes
from test_reading_repair import SIZE, W7, counting_layout, detections, misread, repairs, true_total

import vision.reading_repair as rr
from vision.analyze import WEAK_FLOOR, analyze_detections, analyze_image, detect_hand
from vision.boxes import suppress_duplicates
from vision.classes import CLASSES
from vision.classifier import TileClassifier
from vision.detections import Detections
from vision.detector import Detector
from vision.finder import FoundTiles
from vision.messages_zh import warning_zh

scoring = pytest.importorskip("scoring")


def weak(det, candidates):
    """`det` as a weak box read as the first of `candidates`."""
    tile, score = candidates[0]
    return {"tile": tile, "box": list(det["box"]), "score": score,
            "candidates": [list(c) for c in candidates]}


def short_of(i, candidates):
    """The plain hand without its tile i, and that tile as a weak box read as `candidates`."""
    dets = detections()
    missed = dets.pop(i)
    return dets, weak(missed, candidates)


def analyze(dets, weak=(), repair=True):
    return analyze_detections(copy.deepcopy(dets), SIZE, weak=copy.deepcopy(list(weak)),
                              repair_reading=repair).to_json()


def test_a_hand_one_tile_short_takes_the_weak_box_that_completes_it():
    dets, faint = short_of(W7, [("W7", 0.2), ("W9", 0.05)])
    before = analyze(dets)
    assert before["error"]["code"] == "wrong_tile_count" and before["error"]["params"]["found"] == 13
    result = analyze(dets, [faint])
    assert result["error"] is None and result["score"]["total"] == true_total()
    box = [round(x, 1) for x in faint["box"]]
    assert repairs(result) == [[{"from": None, "to": "W7", "choice": 1, "box": box, "added": True}]]
    assert result["warnings"][0] == ("a faint tile (under the detector's threshold) taken as W7 "
                                     "(the detector's first choice) so that the hand wins; check it")
    [tile] = [t for t in result["tiles"] if t["box"] == box]
    # the added tile keeps its own low score: the layout marks it low_confidence like any unsure tile
    assert tile["tile"] == "W7" and tile["score"] == 0.2 and tile["low_confidence"] is True
    assert "read_as" not in tile and all("weak" not in t for t in result["tiles"])


def test_a_weak_box_may_come_with_one_substitution():
    dets, faint = short_of(W7, [("W9", 0.3), ("W7", 0.25)])  # its second choice completes the hand
    misread(dets, 0, [("H3", 0.5), ("W1", 0.3)])  # and W1 was read as a flower: 12 tiles of the hand
    assert analyze(dets, repair=False)["error"]["params"]["found"] == 12
    result = analyze(dets, [faint])
    assert result["score"]["total"] == true_total()
    [changes] = repairs(result)
    assert [(c["from"], c["to"], c["choice"], c.get("added", False)) for c in changes] == [
        ("H3", "W1", 2, False), (None, "W7", 2, True)]


def test_a_weak_boxs_candidate_under_the_minimum_score_is_never_added():
    dets, faint = short_of(W7, [("W7", round(rr.MIN_ADDED_SCORE - 0.01, 4))])
    assert analyze(dets, [faint]) == analyze(dets)


def test_a_weak_box_that_does_not_complete_the_hand_keeps_the_original_error():
    dets, faint = short_of(W7, [("J1", 0.2), ("F2", 0.1)])
    result = analyze(dets, [faint])
    assert result["error"]["code"] == "wrong_tile_count" and result["score"] is None
    assert repairs(result) == [] and result == analyze(dets)


def test_weak_boxes_are_never_offered_when_the_count_is_right():
    dets = misread(detections(), W7, [("W9", 0.6)])  # 14 tiles, no winning hand, no next choice
    faint = weak(dict(dets[0], box=[1900.0, 1900.0, 1950.0, 1970.0]), [("W7", 0.3)])
    original = analyze(dets, repair=False)
    assert original["error"]["code"] == "not_a_winning_hand" and not rr.one_tile_short(original)
    calls, layout = counting_layout()
    assert rr.repair(dets, original, layout, [faint]) is None and calls == []
    assert analyze(dets, [faint])["error"] == original["error"]


def test_additions_are_the_weak_boxes_candidates_by_cost():
    faint = weak({"box": [0, 0, 10, 10]}, [("W7", 0.3), ("W9", 0.25), ("W8", 0.1)])
    other = weak({"box": [20, 0, 30, 10]}, [("B1", 0.2)])
    adds = rr.additions([faint, other])
    assert [(a.index, a.tile, a.choice, a.added) for a in adds] == [(0, "W7", 1, True), (0, "W9", 2, True),
                                                                    (1, "B1", 1, True)]
    assert adds[2].cost == pytest.approx(-np.log(0.2))  # W8: under MIN_ADDED_SCORE


def test_the_work_with_weak_boxes_is_bounded():
    dets, _ = short_of(W7, [("W7", 0.2)])
    for i, d in enumerate(dets):
        misread(dets, i, [(d["tile"], 0.9), ("F1", 0.5), ("F2", 0.4), ("F3", 0.3)])
    faints = [weak(dict(dets[0], box=[1500.0 + 60 * k, 1800.0, 1550.0 + 60 * k, 1870.0]),
                   [("J1", 0.3), ("J2", 0.25), ("J3", 0.2)]) for k in range(5)]
    calls, layout = counting_layout()
    original = analyze(dets, repair=False)
    assert rr.one_tile_short(original)
    assert rr.repair(dets, original, layout, faints) is None
    bound = (rr.MAX_SINGLES + rr.MAX_ADDS + rr.PAIR_POOL * (rr.PAIR_POOL - 1) // 2 + rr.ADD_POOL * rr.PAIR_POOL)
    assert any(len(c) == len(dets) + 1 for c in calls) and 0 < len(calls) <= bound


class WithWeak(StandIn):
    """A detector that also answers weak boxes: fixed tiles and weak boxes."""

    def __init__(self, detections, weak_boxes):
        super().__init__(detections)
        self.weak_boxes = weak_boxes
        self.floor = None

    def detect(self, rgb, *, weak_floor=None, **_):
        self.floor = weak_floor
        return Detections([dict(d) for d in self.detections], [dict(d) for d in self.weak_boxes])


def test_detect_hand_keeps_the_weak_boxes_apart_from_the_tiles():
    dets, faint = short_of(W7, [("W7", 0.2)])
    detector = WithWeak(dets, [faint])
    found = detect_hand(detector, np.zeros((10, 10, 3), np.uint8))
    assert detector.floor == WEAK_FLOOR
    assert found.tiles == dets and found.weak == [faint]
    assert detect_hand(StandIn(dets), np.zeros((10, 10, 3), np.uint8)).weak == []


def test_analyze_image_repairs_with_a_detectors_weak_box_and_says_it_in_chinese():
    dets, faint = short_of(W7, [("W7", 0.2)])
    result = analyze_image(png_bytes(), detector=WithWeak(dets, [faint]))
    assert result["score"]["total"] == true_total()
    [detail] = [w for w in result["warning_details"] if w["code"] == "reading_repaired"]
    assert warning_zh(detail) == "一张识别把握很小的牌按七万计算（识别的第一选择），这样才能和牌，请核对"
    # a detector that finds no weak box: the same tiles, the count error stays
    assert analyze_image(png_bytes(), detector=StandIn(dets))["error"]["code"] == "wrong_tile_count"


def _fake_detector(boxes, find_scores, weak_boxes, weak_scores, tiles):
    """A Detector whose finder and classifier answer fixed boxes and one-hot-ish probabilities."""
    detector = object.__new__(Detector)
    detector.classifier = object.__new__(TileClassifier)
    detector.classifier.classes = list(CLASSES)
    detector.classifier.not_a_tile_above = None  # a classifier of the 43 classes only
    kept = (np.asarray(boxes, np.float32).reshape(-1, 4), np.asarray(find_scores, np.float32))
    faint = (np.asarray(weak_boxes, np.float32).reshape(-1, 4), np.asarray(weak_scores, np.float32))
    detector.finder = SimpleNamespace(conf=0.35, find=lambda rgb, floor, *look: FoundTiles(kept, faint if floor is not None else None))

    def classify(rgb, all_boxes):
        detector.classified.append(len(all_boxes))
        probs = np.full((len(all_boxes), len(CLASSES)), 0.01 / len(CLASSES), np.float32)
        for i, tile in enumerate(tiles[: len(all_boxes)]):  # the kept boxes come first
            probs[i, CLASSES.index(tile)] = 0.99
        return probs

    detector.classifier.classify, detector.classified = classify, []
    return detector


def test_detect_with_a_weak_floor_keeps_the_tiles_and_drops_weak_twins_of_kept_ones():
    boxes = [[0, 0, 50, 70], [52, 0, 102, 70]]
    weak_boxes = [[2, 1, 51, 71],  # the first tile seen again: dropped
                  [104, 0, 154, 70], [106, 2, 155, 71],  # a new tile, seen twice: the better kept
                  [300, 0, 350, 70]]  # another new tile
    detector = _fake_detector(boxes, [0.9, 0.8], weak_boxes, [0.3, 0.25, 0.3, 0.2], ["W1", "W2", "W3", "W4", "W5", "W6"])
    rgb = np.zeros((100, 400, 3), np.uint8)
    found = detector.detect(rgb, weak_floor=0.1)
    tiles, faint = found.tiles, found.weak
    assert detector.classified == [6]  # one classifier pass for the tiles and the weak boxes
    assert [d["tile"] for d in tiles] == ["W1", "W2"] and tiles == detector.detect(rgb).tiles
    assert [(d["tile"], d["box"]) for d in faint] == [("W5", [106.0, 2.0, 155.0, 71.0]), ("W6", [300.0, 0.0, 350.0, 70.0])]
    assert faint[0]["score"] == pytest.approx(0.3 * 0.99, abs=1e-4) and faint[0]["candidates"][0] == ["W5", faint[0]["score"]]
    all_boxes = np.asarray(boxes + [d["box"] for d in faint])  # what is left is no duplicate of anything
    assert len(suppress_duplicates(all_boxes, np.arange(len(all_boxes))[::-1])) == len(all_boxes)


def test_the_shipped_models_weak_boxes_leave_its_tiles_as_they_are():
    import json
    from pathlib import Path

    from vision.decode import decode_image
    from vision.detector import get_detector

    data = Path(__file__).resolve().parent.parent / "data" / "detector"
    detector = get_detector()
    weak_photos = 0
    for case in sorted(data.glob("*.json")):
        rgb = decode_image((data / json.loads(case.read_text())["image"]).read_bytes())
        found = detector.detect(rgb, weak_floor=0.01)  # a low floor: weak boxes on some photos
        tiles, faint = found.tiles, found.weak
        assert tiles == detector.detect(rgb).tiles
        weak_photos += bool(faint)
        for d in faint:
            assert d["score"] < detector.finder.conf and d["candidates"][0] == [d["tile"], d["score"]]
        boxes = np.asarray([d["box"] for d in tiles + faint])
        assert len(suppress_duplicates(boxes, np.arange(len(boxes))[::-1])) == len(boxes)
    assert weak_photos  # the check saw some


class MissesOneTile:
    """A detector that finds a scene's true boxes but one concealed tile, which it sees only
    as a weak box."""

    def __init__(self, record):
        dets = [{"tile": b["tile"], "box": b["box"], "score": 0.95, "candidates": [[b["tile"], 0.95]]}
                for b in record["boxes"]]
        i = next(i for i, b in enumerate(record["boxes"]) if b["role"] == "concealed")
        self.missed = dets.pop(i)
        self.dets = dets

    def detect(self, rgb, *, weak_floor=None, **_):
        tile = self.missed["tile"]
        weak = [] if weak_floor is None else [dict(self.missed, score=0.3, candidates=[[tile, 0.3]])]
        return Detections(copy.deepcopy(self.dets), weak)


def test_analyze_eval_counts_an_added_weak_box_as_a_repair_and_the_miss_as_the_detectors():
    from datasets.synth.generate import make_example
    from training.analyze_eval import FRESH_SEEDS, evaluate

    seed = FRESH_SEEDS + 502
    detector = MissesOneTile(make_example(seed, 0, [640])["record"])
    [row] = evaluate(1, seed=seed, long_sides=(640,), detector=detector)["results"]
    assert row["photo_total"] == row["true_total"]
    assert row["repaired"] == [f"added {detector.missed['tile']}"]
    assert row["detection_errors"] == [f"missed {detector.missed['tile']}"]
