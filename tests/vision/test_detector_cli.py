"""`fanshot detect`: clear messages and exit codes, never a traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from fanshot.cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["detect", "photo.jpg"],
    ],
)
def test_without_a_model_the_commands_say_so(tmp_path, capsys, argv):
    assert main(argv + ["--model-dir", str(tmp_path)]) == 2
    assert "no detector model" in capsys.readouterr().err


DATA = Path(__file__).resolve().parent.parent / "data" / "detector"


def test_detect_json_lines_in_stored_pixels(capsys):
    photo = sorted(DATA.glob("*.jpg"))[0]
    assert main(["detect", "--json", str(photo)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["image"] == str(photo)
    with Image.open(photo) as image:
        assert (result["width"], result["height"]) == image.size
    for d in result["detections"]:
        assert set(d) == {"tile", "box", "score"}
        x1, y1, x2, y2 = d["box"]
        assert 0 <= x1 < x2 <= result["width"] and 0 <= y1 < y2 <= result["height"]


def test_detect_reports_a_bad_file_and_goes_on(tmp_path, capsys):
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    photo = sorted(DATA.glob("*.jpg"))[0]
    assert main(["detect", "--json", str(bad), str(photo), str(tmp_path / "missing.jpg")]) == 2
    captured = capsys.readouterr()
    assert "notes.jpg: not_an_image" in captured.err and "missing.jpg: cannot read" in captured.err
    assert len(captured.out.splitlines()) == 1
