"""Photo -> score, and the `fanshot analyze` command, with a stand-in detector."""
from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image
from test_layout_scenes import scene

from fanshot.cli import main
from scoring.errors import HandError
from vision.analyze import RESULT_KEYS, analyze_image
from vision.decode import ImageError
from vision.detections import Detections

scoring = pytest.importorskip("scoring")
needs_scorer = pytest.mark.skipif(not hasattr(scoring, "score_hand"), reason="the scorer is not written yet")

HAND_ROWS = [["B5* B5 B5", "T2 T3* T4", "W1 W2 W3 F1 F1 J1 J1", "J1", "H3"]]


class StandIn:
    """A detector that returns fixed detections (what a trained model would find)."""

    def __init__(self, detections):
        self.detections = detections
        self.seen = None

    def detect(self, rgb, **_):
        self.seen = rgb.shape
        return Detections([dict(d) for d in self.detections])


def png_bytes(width=800, height=300) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.full((height, width, 3), 128, np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


@needs_scorer
def test_analyze_image_reads_the_hand_and_scores_it():
    detector = StandIn(scene(HAND_ROWS))
    result = analyze_image(png_bytes(), {"seat_wind": "S", "self_drawn": True}, detector=detector)
    assert detector.seen == (300, 800, 3)
    assert set(RESULT_KEYS) <= set(result)
    assert result["error"] is None
    hand = result["hand"]
    assert hand["win_tile"] == "J1" and hand["flowers"] == ["H3"]
    assert hand["context"]["seat_wind"] == "S" and hand["context"]["self_drawn"] is True
    assert result["score"] == scoring.score_hand(hand)
    assert len(result["tiles"]) == 15 and {t["role"] for t in result["tiles"]} == {"meld", "concealed", "win", "flower"}


@needs_scorer
def test_too_few_tiles_gives_no_score_and_an_error():
    dets = scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2", "B4"]])
    result = analyze_image(png_bytes(), detector=StandIn(dets))
    assert result["score"] is None
    assert result["error"]["code"] == "wrong_tile_count"
    assert "13 tiles found" in result["error"]["message"]


def test_not_an_image_is_refused_before_detection():
    detector = StandIn([])
    with pytest.raises(ImageError) as info:
        analyze_image(b"this is not a photo", detector=detector)
    assert info.value.code == "not_an_image" and info.value.status == 415
    assert detector.seen is None


def test_a_bad_context_is_refused():
    with pytest.raises(HandError) as info:
        analyze_image(png_bytes(), {"seat_wind": "Q"}, detector=StandIn([]))
    assert info.value.code == "invalid_context"
    with pytest.raises(HandError):
        analyze_image(png_bytes(), {"dealer": True}, detector=StandIn([]))


def test_an_unknown_rule_set_is_refused(tmp_path, capsys):
    with pytest.raises(HandError) as info:
        analyze_image(png_bytes(), rules="no-such-rules", detector=StandIn([]))
    assert info.value.code == "unknown_ruleset"
    path = tmp_path / "hand.png"
    path.write_bytes(png_bytes())
    assert main(["analyze", str(path), "--rules", "no-such-rules"]) == 2
    assert "unknown rule set" in capsys.readouterr().err


def test_cli_missing_file_is_a_message_not_a_traceback(tmp_path, capsys):
    assert main(["analyze", str(tmp_path / "nope.jpg")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_not_an_image(tmp_path, capsys):
    path = tmp_path / "notes.jpg"
    path.write_text("hello")
    assert main(["analyze", str(path)]) == 2
    assert "not a JPEG, PNG, WebP or HEIC image" in capsys.readouterr().err


def test_cli_without_a_model_says_so(tmp_path, capsys):
    path = tmp_path / "hand.png"
    path.write_bytes(png_bytes())
    assert main(["analyze", str(path), "--model-dir", str(tmp_path / "empty")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fanshot analyze: ") and "Traceback" not in err


@needs_scorer
def test_cli_json_and_annotated_photo(tmp_path, capsys, monkeypatch):
    import vision.detector

    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None: StandIn(scene(HAND_ROWS)))
    photo, out = tmp_path / "hand.png", tmp_path / "annotated.jpg"
    photo.write_bytes(png_bytes())
    code = main(["analyze", str(photo), "--json", "--out", str(out), "--prevalent-wind", "S", "--self-drawn"])
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(printed) == set(RESULT_KEYS)
    assert printed["hand"]["context"]["prevalent_wind"] == "S"
    assert printed["hand"]["context"]["self_drawn"] is True
    assert printed["score"]["total"] == scoring.score_hand(printed["hand"])["total"]
    image = Image.open(out)
    assert image.format == "JPEG" and image.width == 800 and image.height > 300


@needs_scorer
def test_cli_text_output_lists_tiles_fans_and_total(tmp_path, capsys, monkeypatch):
    import vision.detector

    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None: StandIn(scene(HAND_ROWS)))
    photo = tmp_path / "hand.png"
    photo.write_bytes(png_bytes())
    assert main(["analyze", str(photo)]) == 0
    text = capsys.readouterr().out
    total = scoring.score_hand(
        analyze_image(png_bytes(), detector=StandIn(scene(HAND_ROWS)))["hand"]
    )["total"]
    assert "tiles (15):" in text and f"total: {total}" in text and "箭刻" in text


def test_cli_text_says_why_a_total_with_flowers_is_under_the_minimum():
    from fanshot.commands.analyze import format_analysis

    hand = {"concealed": ["W1", "W2", "W3", "W4", "W5", "W6", "T2", "T3", "T4", "B6", "B7", "B8", "B5"],
            "melds": [], "win_tile": "B5", "flowers": ["H1", "H2", "H3"], "context": {}}
    score = scoring.score_hand(hand)
    assert score["total"] == 8 and not score["meets_minimum"]
    text = format_analysis({"tiles": [], "hand": hand, "score": score, "warnings": []})
    assert "total: 8 (below the 8-point minimum; 5 without the flowers, which do not count)" in text


def test_cli_a_folder_is_named_a_folder(tmp_path, capsys):
    assert main(["analyze", str(tmp_path)]) == 2
    assert f"{tmp_path} is a folder, not a photo" in capsys.readouterr().err


@pytest.mark.parametrize("out, message", [
    ("missing/a.jpg", "no folder"), (".", "is a folder"), ("a.png", "the annotated photo is a JPEG"),
])
def test_cli_an_unwritable_out_is_a_message_before_the_analysis(tmp_path, capsys, monkeypatch, out, message):
    # it was a FileNotFoundError / IsADirectoryError traceback after the whole analysis
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "hand.png"
    path.write_bytes(png_bytes())
    assert main(["analyze", str(path), "--out", out]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "a.png").exists()
