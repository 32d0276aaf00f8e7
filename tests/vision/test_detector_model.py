"""The shipped model (models/): it loads once and answers concurrent calls consistently.

Test images: synthetic scenes from the held-out seed range (990000), never trained on."""
from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from vision.decode import decode_image
from vision.detector import get_detector

DATA = Path(__file__).resolve().parent.parent / "data" / "detector"
CASES = sorted(DATA.glob("*.json"))


@pytest.fixture(scope="module")
def detector():
    return get_detector()


def _image(case: Path):
    return decode_image((DATA / json.loads(case.read_text())["image"]).read_bytes())


def test_the_shipped_model_loads_once(detector):
    assert get_detector() is detector
    assert len(detector.classes) == 43


def test_concurrent_calls_give_the_same_answer(detector):
    images = [_image(case) for case in CASES[:3]]
    serial = [detector.detect(rgb) for rgb in images]
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(detector.detect, images * 2))
    assert parallel == serial * 2
