"""`fanshot eval / bench-detect`: clear messages and exit codes, never a traceback."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from fanshot.cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["bench-detect"],
    ],
)
def test_without_a_model_the_commands_say_so(tmp_path, capsys, argv):
    assert main(argv + ["--model-dir", str(tmp_path)]) == 2
    assert "no detector model" in capsys.readouterr().err


def test_eval_on_a_folder_that_is_no_dataset(tmp_path, capsys):
    assert main(["eval", "--data", str(tmp_path), "--model-dir", str(tmp_path)]) == 2
    assert "data.yaml" in capsys.readouterr().err


DATA = Path(__file__).resolve().parent.parent / "data" / "detector"


def test_bench_detect_reads_every_test_photo_as_a_phone_jpeg_in_its_own_orientation(capsys):
    from training.bench import phone_jpeg

    photos = sorted(DATA.glob("*.jpg"))
    for photo in photos[:2]:
        with Image.open(photo) as source, Image.open(io.BytesIO(phone_jpeg(photo))) as made:
            assert made.size == ((4000, 3000) if source.width >= source.height else (3000, 4000))
    assert main(["bench-detect", "--runs", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"12 MP JPEGs ({len(photos)} test photos), read_photo (decode + detect): p50 ")
    assert [line.split()[0] for line in lines[3:]] == [photo.stem for photo in photos]
