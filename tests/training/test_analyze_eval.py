"""training.analyze_eval: a dropped tile of the reading repair, and a second box on one tile."""
from __future__ import annotations

import copy

import pytest

from training.analyze_eval import FRESH_SEEDS, detection_errors, evaluate
from vision.detections import Detections

pytest.importorskip("scoring")

TILE = [0.0, 0.0, 40.0, 56.0]


def shifted(box, share):
    """`box` moved right by `share` of its width."""
    w = box[2] - box[0]
    return [box[0] + share * w, box[1], box[2] + share * w, box[3]]


def test_a_second_box_on_a_matched_tile_is_a_duplicate():
    boxes = [{"tile": "B6", "box": TILE, "role": "concealed"},
             {"tile": "W2", "box": shifted(TILE, 3), "role": "concealed"}]
    found = [{"tile": "B6", "box": TILE}, {"tile": "W2", "box": shifted(TILE, 3)}]
    assert detection_errors(found, boxes) == []
    twin = {"tile": "W6", "box": shifted(TILE, 0.45)}  # IoU 0.38 with the B6: no tile of its own
    assert detection_errors(found + [twin], boxes) == ["duplicate W6"]
    # a box half on a tile no other box matched is that tile found badly, not a duplicate
    assert detection_errors([found[1], twin], boxes) == ["missed B6"]


class FindsTheTrueBoxes:
    """A detector that finds a scene's true boxes, each read right."""

    def __init__(self, record):
        self.dets = [{"tile": b["tile"], "box": b["box"], "score": 0.95, "candidates": [[b["tile"], 0.95]]}
                     for b in record["boxes"]]

    def detect(self, rgb, **_):
        return Detections(copy.deepcopy(self.dets))


class AddsATwin(FindsTheTrueBoxes):
    """... and a second box on one tile of the hand (shifted 0.4 of its width, read as that tile,
    scored lower)."""

    def __init__(self, record):
        super().__init__(record)
        i = next(i for i, b in enumerate(record["boxes"]) if b["role"] == "concealed")
        self.tile = record["boxes"][i]["tile"]
        self.dets.append({"tile": self.tile, "box": shifted(record["boxes"][i]["box"], 0.4), "score": 0.6,
                          "candidates": [[self.tile, 0.6]]})


def test_analyze_eval_lists_a_dropped_tile_and_counts_the_duplicate():
    from datasets.synth.generate import make_example

    seed = FRESH_SEEDS + 503  # a scene whose layout counts the twin: 15 tiles, no winning hand
    detector = AddsATwin(make_example(seed, 0, [640])["record"])
    without = evaluate(1, seed=seed, long_sides=(640,), detector=detector, repair=False)
    [row] = without["results"]
    assert row["photo_total"] is None and row["stage"] == "detection"
    assert row["detection_errors"] == [f"duplicate {detector.tile}"] and without["hand_tiles"]["duplicates"] == 1
    summary = evaluate(1, seed=seed, long_sides=(640,), detector=detector)
    [row] = summary["results"]
    assert row["photo_total"] == row["true_total"] and row["repaired"] == [f"dropped {detector.tile}"]
    assert {k: summary["repairs"][k] for k in ("photos", "right", "wrong")} == {"photos": 1, "right": 1, "wrong": 0}


@pytest.mark.parametrize("offset, hidden", [(651, True), (503, False)])
def test_a_concealed_kong_of_four_backs_marks_the_scene_tile_hidden(offset, hidden):
    from datasets.synth.generate import make_example

    seed = FRESH_SEEDS + offset  # 651: scene 0 lays its concealed kong of T9 as four backs
    record = make_example(seed, 0, [640])["record"]
    assert (sum(b["tile"] == "BACK" for b in record["boxes"]) == 4) == hidden
    summary = evaluate(1, seed=seed, long_sides=(640,), detector=FindsTheTrueBoxes(record))
    [row] = summary["results"]
    assert row["tile_hidden"] == hidden
    assert summary["tile_hidden"]["scenes"] == int(hidden)
    assert summary["tile_hidden"]["photo_correct"] == int(hidden and row["photo_total"] == row["true_total"])
    assert summary["tile_hidden"]["layout_correct"] == int(hidden and row["layout_total"] == row["true_total"])


def test_analyze_eval_prints_the_share_right_of_the_scenes_that_show_every_tile(capsys):
    from fanshot.cli import main

    # seed 900651: scene 0 lays a concealed kong as four backs, scene 1 shows every tile
    assert main(["analyze-eval", "--n", "2", "--seed", str(FRESH_SEEDS + 651), "--long-side", "640"]) == 0
    out = capsys.readouterr().out
    assert "concealed kong of four backs (its tile not in the photo): 1;" in out
    [line] = [s for s in out.splitlines() if s.startswith("the other scenes")]
    assert line.startswith("the other scenes (every tile of the hand in the photo): ") and "/1 = " in line


@pytest.mark.parametrize("degrees", [0, 90, 180, 270])
def test_a_turned_scene_keeps_each_box_on_its_pixels(degrees):
    import numpy as np

    from training.analyze_eval import turn_scene

    image = np.zeros((60, 100, 3), np.uint8)
    boxes = [{"tile": "B1", "box": [10, 5, 30, 20]}, {"tile": "W9", "box": [70, 30, 95, 58]}]
    for k, b in enumerate(boxes, 1):
        x1, y1, x2, y2 = b["box"]
        image[y1:y2, x1:x2] = k
    turned, moved = turn_scene(image, boxes, degrees)
    assert turned.shape == ((60, 100, 3) if degrees in (0, 180) else (100, 60, 3))
    for k, b in enumerate(moved, 1):
        x1, y1, x2, y2 = b["box"]
        assert (turned[y1:y2, x1:x2] == k).all() and (turned == k).sum() == (image == k).sum()
        assert b["tile"] == boxes[k - 1]["tile"]
    assert boxes[0]["box"] == [10, 5, 30, 20]  # the caller's boxes stay as they were
    with pytest.raises(ValueError):
        turn_scene(image, boxes, 45)


def test_a_turned_scene_is_read_turned():
    """The detector sees the photo turned (portrait for a landscape scene), the true boxes turned
    with it: a stand-in that finds them there reads the scene's total."""
    import numpy as np

    from datasets.synth.generate import make_example
    from training.analyze_eval import turn_scene

    seed = FRESH_SEEDS + 503
    record = make_example(seed, 0, [640])["record"]
    blank = np.zeros((record["height"], record["width"], 3), np.uint8)
    shapes = []

    class FindsTheTurnedBoxes(FindsTheTrueBoxes):
        def detect(self, rgb, **options):
            shapes.append(rgb.shape[:2])
            return super().detect(rgb, **options)

    detector = FindsTheTurnedBoxes({"boxes": turn_scene(blank, record["boxes"], 90)[1]})
    summary = evaluate(1, seed=seed, long_sides=(640,), detector=detector, turn=90)
    [row] = summary["results"]
    assert shapes == [(record["width"], record["height"])] and summary["turn"] == 90
    assert row["detection_errors"] == [] and row["photo_total"] == row["layout_total"] == row["true_total"]
