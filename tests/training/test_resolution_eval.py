"""`fanshot resolution-eval`: totals right, tile errors and CPU time per photo, by decode rule."""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from fanshot.cli import main
from training.resolution_eval import evaluate, format_summary, wide_shot
from vision.decode import decode_image
from vision.detections import Detections

API_DATA = Path(__file__).resolve().parent.parent / "api" / "data"
RECORD = json.loads((API_DATA / "synth_hand.json").read_text(encoding="utf-8"))  # a 1600 x 1200 synth scene


@pytest.fixture
def scenes(tmp_path):
    """A `fanshot synth` folder holding the API tests' synthetic scene."""
    (tmp_path / "images").mkdir()
    (tmp_path / "records").mkdir()
    shutil.copy(API_DATA / "synth_hand.jpg", tmp_path / "images" / RECORD["image"])
    (tmp_path / "records" / "scene.json").write_text(json.dumps(RECORD), encoding="utf-8")
    return tmp_path


class TrueBoxes:
    """Finds the scene's own tiles, scaled to the image it is given."""

    def __init__(self):
        self.sizes = []

    def detect(self, rgb, **_):
        self.sizes.append(rgb.shape[1::-1])
        scale = rgb.shape[1] / RECORD["width"]
        return Detections([{"tile": b["tile"], "box": [v * scale for v in b["box"]], "score": 0.9} for b in RECORD["boxes"]])


def test_the_true_tiles_give_the_true_total_at_every_rule(scenes):
    detector = TrueBoxes()
    summary = evaluate(scenes, ["400", "800", "full", "photo"], detector)
    for rule, side in (("400", 400), ("800", 800), ("full", 1600), ("photo", 1600)):
        s = summary["rules"][rule]
        assert (s["photos"], s["right"], s["side_median"]) == (1, 1, side), rule
        assert s["tile_errors"] == {"missed": 0, "misread": 0, "extra": 0} and s["cpu_ms_mean"] > 0
    assert summary["photos"] == [{"image": RECORD["image"], "true_total": RECORD["score"]["total"],
                                  "read": dict.fromkeys(["400", "800", "full", "photo"], RECORD["score"]["total"]),
                                  "tile_errors": dict.fromkeys(["400", "800", "full", "photo"],
                                                               {"missed": 0, "misread": 0, "extra": 0})}]
    assert "photo" in format_summary(summary, "title")


def test_a_detector_that_finds_nothing_misses_every_tile_of_the_hand(scenes):
    class Blind:
        def detect(self, rgb, **_):
            return Detections([])

    s = evaluate(scenes, ["800"], Blind())["rules"]["800"]
    hand_tiles = sum(b["role"] != "stray" for b in RECORD["boxes"])
    assert s["right"] == 0 and s["tile_errors"]["missed"] == hand_tiles and s["photos_with_tile_errors"] == 1


def test_a_wide_shot_puts_the_scene_smaller_where_it_says():
    image = np.zeros((300, 400, 3), np.uint8)
    image[100:200, 200:300] = (250, 250, 250)
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, "JPEG", quality=95)
    data, (scale, left, top) = wide_shot(buffer.getvalue(), 2.0, seed=7)
    wide = decode_image(data)
    assert wide.shape == image.shape and scale == pytest.approx(0.5)
    x, y = round(250 * scale + left), round(150 * scale + top)  # the square's centre
    assert wide[y, x].min() > 200
    assert wide[round(50 * scale + top), round(50 * scale + left)].max() < 60  # black around it


def test_the_command_prints_the_table_and_refuses_bad_rules(scenes, capsys, monkeypatch):
    monkeypatch.setattr("vision.detector.get_detector", lambda *a, **k: TrueBoxes())
    assert main(["resolution-eval", str(scenes), "--rules", "800,full"]) == 0
    out = capsys.readouterr().out
    assert "800" in out and "1/1" in out
    assert main(["resolution-eval", str(scenes), "--rules", "800,half"]) == 2
    assert "half" in capsys.readouterr().err
    assert main(["resolution-eval", str(scenes / "nowhere")]) == 2
    assert "no scene records" in capsys.readouterr().err


def test_a_record_that_is_no_scene_is_a_clear_message(scenes, capsys, monkeypatch):
    monkeypatch.setattr("vision.detector.get_detector", lambda *a, **k: TrueBoxes())
    (scenes / "records" / "scene.json").write_text(json.dumps({"hand": {}}), encoding="utf-8")
    assert main(["resolution-eval", str(scenes)]) == 2
    assert "is no scene record" in capsys.readouterr().err
