"""vision.one_set: the readings one physical tile set can hold (4 of a tile, 1 of each flower),
and where it applies: analyze (always), `fanshot detect` / `fanshot eval` (with --one-set),
analyze-eval (as analyze); POST /api/v1/detect and `detect_photo` by default stay raw."""
from __future__ import annotations

import copy
import io
import json
from collections import Counter

import numpy as np
import pytest
from PIL import Image
from test_layout_scenes import scene

from fanshot.cli import main
from vision.analyze import analyze_detections, analyze_image
from vision.classes import CLASSES
from vision.detections import Detections
from vision.detector import detect_photo
from vision.one_set import COPIES_PER_FLOWER, COPIES_PER_TILE, assign_one_set, copies_in_one_set


def det(x: float, *candidates) -> dict:
    """A detection at x whose candidates are (tile, score) pairs, best first."""
    tile, score = candidates[0]
    return {"tile": tile, "box": [x, 0.0, x + 40.0, 60.0], "score": score,
            "candidates": [[t, s] for t, s in candidates]}


def tiles(detections) -> list[str]:
    return [d["tile"] for d in detections]


def test_the_limits_of_one_set():
    assert copies_in_one_set("W2") == copies_in_one_set("J3") == COPIES_PER_TILE == 4
    assert copies_in_one_set("H2") == COPIES_PER_FLOWER == 1
    assert copies_in_one_set("BACK") is None
    assert sum(copies_in_one_set(c) or 0 for c in CLASSES) == 34 * 4 + 8


def test_three_summers_keep_the_best_and_the_others_take_their_second_choice():
    found = [det(0, ("H2", 0.5), ("T1", 0.3)), det(50, ("H2", 0.9), ("T1", 0.05)), det(100, ("H2", 0.6), ("T1", 0.2))]
    assigned = assign_one_set(found)
    assert tiles(assigned) == ["T1", "H2", "T1"]
    assert [d["score"] for d in assigned] == [0.3, 0.9, 0.2]
    assert [d["box"] for d in assigned] == [d["box"] for d in found]


def test_five_w2_keep_four_and_the_weakest_moves():
    scores = [0.8, 0.7, 0.9, 0.4, 0.6]
    found = [det(50 * i, ("W2", s), ("W3", s / 4)) for i, s in enumerate(scores)]
    assigned = assign_one_set(found)
    assert tiles(assigned) == ["W2", "W2", "W2", "W3", "W2"]
    assert assigned[3]["score"] == 0.1


def test_a_tile_whose_every_candidate_is_full_keeps_its_first():
    flowers = [det(0, ("H1", 0.9)), det(50, ("H2", 0.9))]
    last = det(100, ("H1", 0.5), ("H2", 0.4))
    assigned = assign_one_set(flowers + [last])
    assert tiles(assigned) == ["H1", "H2", "H1"]
    assert assigned[2] == last  # never dropped, never changed


def test_face_down_tiles_have_no_limit():
    found = [det(50 * i, ("BACK", 0.9), ("J3", 0.1)) for i in range(7)]
    assert tiles(assign_one_set(found)) == ["BACK"] * 7


def test_the_input_is_not_changed():
    found = [det(0, ("H2", 0.5), ("T1", 0.3)), det(50, ("H2", 0.9), ("T1", 0.05))]
    before = copy.deepcopy(found)
    assigned = assign_one_set(found)
    assert found == before
    assert all(a is not b for a, b in zip(assigned, found))


def test_detections_without_candidates_count_against_the_limits_and_stay():
    plain = [{"tile": "H5", "box": [0, 0, 40, 60], "score": 0.3}]
    plain += [{"tile": "W7", "box": [50 + 50 * i, 0, 90 + 50 * i, 60], "score": 0.2} for i in range(4)]
    with_candidates = [det(300, ("H5", 0.9), ("H6", 0.6)), det(350, ("W7", 0.9), ("W1", 0.5))]
    assigned = assign_one_set(plain + with_candidates)
    assert assigned[:5] == plain
    assert tiles(assigned[5:]) == ["H6", "W1"]


def test_a_reading_one_set_can_hold_is_left_alone():
    found = [det(0, ("W2", 0.4), ("W3", 0.39)), det(50, ("H1", 0.5), ("H2", 0.45)), det(100, ("H2", 0.9))]
    assert assign_one_set(found) == found
    assert assign_one_set([]) == []


class StandIn:
    """A detector that returns fixed detections (and, below its threshold, fixed weak ones)."""

    def __init__(self, detections, weak=()):
        self.detections, self.weak = detections, list(weak)

    def detect(self, rgb, *, weak_floor=None, **_):
        weak = [] if weak_floor is None else [copy.deepcopy(d) for d in self.weak if d["score"] >= weak_floor]
        return Detections(copy.deepcopy(self.detections), weak)


def png_bytes(width=800, height=300) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.full((height, width, 3), 128, np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


def with_candidates(detections, second: dict[int, tuple[str, str, float, float]]) -> list[dict]:
    """`detections` with candidates; detection i in `second` is read (first, second) with those scores."""
    out = []
    for i, d in enumerate(detections):
        if i in second:
            first, other, s1, s2 = second[i]
            d = {**d, "tile": first, "score": s1, "candidates": [[first, s1], [other, s2]]}
        else:
            d = {**d, "candidates": [[d["tile"], d["score"]]]}
        out.append(d)
    return out


# A chow T1 T2 T3 whose T1 the detector reads as the flower H3 that also lies by the hand.
ROWS = [["B5* B5 B5", "T1 T2* T3", "W1 W2 W3 F1 F1 J1 J1", "J1", "H3"]]
MISREAD_T1 = {3: ("H3", "T1", 0.6, 0.3)}


def test_analyze_reads_the_photo_as_one_set_and_keeps_candidates_out_of_its_tiles():
    found = with_candidates(scene(ROWS), MISREAD_T1)
    raw = analyze_detections(found, (800, 300), repair_reading=False)
    assert raw.score is None  # two H3 and a chow short of a tile: no winning hand
    result = analyze_image(png_bytes(), detector=StandIn(found))
    assert result["error"] is None and result["score"]["total"] > 0
    assert Counter(t["tile"] for t in result["tiles"]) == Counter(d["tile"] for d in scene(ROWS))
    assert result["hand"]["flowers"] == ["H3"]
    assert all(set(t) == {"tile", "box", "score", "role", "sideways", "low_confidence"} for t in result["tiles"])


def test_detect_photo_gives_tile_box_score_only_raw_unless_asked():
    found = with_candidates(scene(ROWS), MISREAD_T1)
    raw = detect_photo(StandIn(found), png_bytes())["detections"]
    assert all(set(d) == {"tile", "box", "score"} for d in raw)
    assert Counter(tiles(raw))["H3"] == 2
    one_set = detect_photo(StandIn(found), png_bytes(), one_set=True)["detections"]
    assert all(set(d) == {"tile", "box", "score"} for d in one_set)
    assert Counter(tiles(one_set))["H3"] == 1 and one_set[3] == {**raw[3], "tile": "T1", "score": 0.3}


def test_detect_photo_with_a_weak_floor_gives_the_weak_boxes_and_every_candidate():
    found = with_candidates(scene(ROWS), MISREAD_T1)
    weak = [det(900, ("F2", 0.02), ("F3", 0.01)), det(950, ("F4", 0.005))]
    result = detect_photo(StandIn(found, weak), png_bytes(), weak_floor=0.01)
    assert [d["candidates"] for d in result["detections"]] == [d["candidates"] for d in found]
    assert [d["tile"] for d in result["weak"]] == ["F2"]  # the one under the floor is not asked for
    assert "weak" not in detect_photo(StandIn(found, weak), png_bytes())


def test_detect_command_reads_one_set_only_with_the_flag(tmp_path, capsys, monkeypatch):
    import vision.detector

    found = with_candidates(scene(ROWS), MISREAD_T1)
    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None: StandIn(found))
    photo = tmp_path / "hand.png"
    photo.write_bytes(png_bytes())
    counts = []
    for flags in ([], ["--one-set"]):
        assert main(["detect", "--json", *flags, str(photo)]) == 0
        counts.append(Counter(d["tile"] for d in json.loads(capsys.readouterr().out)["detections"]))
    assert counts[0]["H3"] == 2 and counts[0]["T1"] == 0
    assert counts[1]["H3"] == 1 and counts[1]["T1"] == 1


def test_eval_command_says_whether_it_read_one_set(tmp_path, capsys, monkeypatch):
    import vision.detector
    from datasets.formats import write_yolo

    image = tmp_path / "photo.png"
    image.write_bytes(png_bytes())
    truth = scene(ROWS)
    write_yolo([{"file": str(image), "width": 800, "height": 300, "boxes": truth}], tmp_path / "set")
    found = with_candidates(truth, MISREAD_T1)
    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None: StandIn(found))
    results = {}
    for flags in ([], ["--one-set"]):
        assert main(["eval", "--data", str(tmp_path / "set"), "--json", *flags]) == 0
        results[bool(flags)] = json.loads(capsys.readouterr().out)
    assert results[False]["one_set"] is False and results[False]["exact_images"] == 0.0
    assert results[True]["one_set"] is True and results[True]["exact_images"] == 1.0
    assert main(["eval", "--data", str(tmp_path / "set"), "--one-set"]) == 0
    assert "one-set readings: on" in capsys.readouterr().out


def test_analyze_eval_reads_the_detector_as_analyze_does():
    from training.analyze_eval import FRESH_SEEDS, evaluate

    outside = [det(-200, ("H1", 0.9)), det(-100, ("H1", 0.5), ("H2", 0.4))]
    for d in outside:
        d["box"] = [d["box"][0], -100.0, d["box"][0] + 40.0, -40.0]  # off the photo: extra tiles
    row = evaluate(1, seed=FRESH_SEEDS + 500, long_sides=(640,), detector=StandIn(outside))["results"][0]
    extras = [e for e in row["detection_errors"] if e.startswith("extra ")]
    assert sorted(extras) == ["extra H1", "extra H2"]


def test_eval_writes_where_the_labels_and_the_detector_disagree(tmp_path, capsys, monkeypatch):
    import vision.detector
    from datasets.formats import write_yolo

    image = tmp_path / "photo.png"
    image.write_bytes(png_bytes())
    truth = scene(ROWS)
    forgotten, found = truth[-1], truth[:-1]  # the labels forget the last tile; a label no tile is under
    nowhere = {"tile": "W9", "box": [700.0, 250.0, 740.0, 295.0]}
    write_yolo([{"file": str(image), "width": 800, "height": 300, "boxes": found + [nowhere]}], tmp_path / "set")
    monkeypatch.setattr(vision.detector, "get_detector",
                        lambda model_dir=None: StandIn(with_candidates(truth, {})))
    out = tmp_path / "disagree.jsonl"
    assert main(["eval", "--data", str(tmp_path / "set"), "--disagreements", str(out)]) == 0
    assert "disagreements: 1 of 1 images" in capsys.readouterr().err
    (line,) = [json.loads(text) for text in out.read_text().splitlines()]
    assert line["image"].endswith("photo.png")
    assert [d["tile"] for d in line["unlabelled"]] == [forgotten["tile"]]
    assert [d["tile"] for d in line["unfound"]] == ["W9"]


def test_eval_ranks_the_weak_boxes_for_map_and_leaves_them_out_of_the_answer(tmp_path, capsys, monkeypatch):
    import vision.detector
    from datasets.formats import write_yolo

    image = tmp_path / "photo.png"
    image.write_bytes(png_bytes())
    truth = scene(ROWS)
    missed = truth[-1]  # the finder scores the last tile under its threshold
    write_yolo([{"file": str(image), "width": 800, "height": 300, "boxes": truth}], tmp_path / "set")
    weak = [{**missed, "score": 0.1, "candidates": [[missed["tile"], 0.1]]}]
    monkeypatch.setattr(vision.detector, "get_detector",
                        lambda model_dir=None: StandIn(with_candidates(truth[:-1], {}), weak))
    runs = {}
    for floor in ("0.05", "0.2"):
        assert main(["eval", "--data", str(tmp_path / "set"), "--json", "--rank-floor", floor]) == 0
        runs[floor] = json.loads(capsys.readouterr().out)
    ranked, unranked = runs["0.05"], runs["0.2"]
    assert ranked["rank_floor"] == 0.05 and ranked["weak_boxes"] == 1 and unranked["weak_boxes"] == 0
    for m in (ranked, unranked):  # the answer is the same: one tile short
        assert m["exact_images"] == 0.0 and m["predictions"] == len(truth) - 1
        assert m["recall"] == pytest.approx((len(truth) - 1) / len(truth)) and m["precision"] == 1.0
    # H3's AP: 1 with the weak box ranked, 0 without; every other class 1
    classes = len({t["tile"] for t in truth})
    assert ranked["map50"] == pytest.approx(1.0)
    assert unranked["map50"] == ranked["map50_answer"] == pytest.approx((classes - 1) / classes)
