"""The one rule every door reads a photo's bytes by (vision.detector.read_photo): a first look at
the smallest direct JPEG scale at least DETECT_MAX_SIDE long, and a second, larger look only when
the tiles come out shorter than MIN_TILE_SIDE."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.decode import ImageError
from vision.detector import (
    DETECT_MAX_SIDE, MIN_TILE_SIDE, detect_photo, photo_scale_side, read_photo, second_look_side,
)


@pytest.mark.parametrize("long_side, at_least, side", [
    (4000, 1000, 1000), (4032, 1000, 1008), (4080, 1000, 1020), (3264, 1000, 1632), (8000, 1000, 1000),
    (5712, 1000, 1428), (1600, 1000, 1600), (900, 1000, 900), (4000, 1001, 2000), (4000, 2100, 4000),
    (4000, 500, 500), (4000, 100, 500),
])
def test_the_first_look_is_the_smallest_direct_jpeg_scale_long_enough(long_side, at_least, side):
    assert photo_scale_side(long_side, at_least) == side


def _tiles(long_side: float, n: int = 14, weak: float | None = None) -> list[dict]:
    found = [{"tile": "B5", "box": [10.0 * i, 0.0, 10.0 * i + long_side * 0.75, long_side]} for i in range(n)]
    if weak is not None:
        found += [{"tile": "B1", "box": [0.0, 0.0, weak * 0.75, weak], "weak": True}] * 30
    return found


def test_big_enough_tiles_need_no_second_look():
    assert second_look_side(_tiles(MIN_TILE_SIDE), 1000, 4000) is None
    assert second_look_side(_tiles(120), 1000, 4000) is None


def test_small_tiles_are_looked_at_again_at_the_scale_that_makes_them_long_enough():
    assert second_look_side(_tiles(40), 1000, 4000) == 2000  # 1400 wanted: the next direct scale
    assert second_look_side(_tiles(20), 1000, 4000) == 4000  # 2800 wanted: the full photo
    assert second_look_side(_tiles(2), 1000, 4000) == 4000  # never more than the photo
    assert second_look_side(_tiles(40), 1000, 1000) is None  # it was the full photo already
    assert second_look_side([], 1000, 4000) is None  # nothing found: nothing to measure


def test_the_weak_boxes_do_not_count_in_the_tile_size():
    assert second_look_side(_tiles(100, weak=10), 1000, 4000) is None
    assert second_look_side(_tiles(40, weak=200), 1000, 4000) == 2000


def test_a_bigger_classifier_input_asks_for_bigger_tiles():
    assert second_look_side(_tiles(60), 1000, 4000, min_tile=64) == 2000
    assert second_look_side(_tiles(60), 1000, 4000) is None


def _jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 60)).save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


class TilesOfWidth:
    """A stand-in detector whose tiles span `share` of the image's width each."""

    def __init__(self, share: float):
        self.share = share
        self.sizes: list[tuple[int, int]] = []

    def detect(self, rgb):
        height, width = rgb.shape[:2]
        self.sizes.append((width, height))
        w = self.share * width
        return [{"tile": "W1", "box": [i * w, 10.0, (i + 1) * w, 10.0 + 1.35 * w], "score": 0.9} for i in range(14)]


def test_a_12_mp_photo_with_big_tiles_is_read_once_at_a_quarter():
    detector = TilesOfWidth(0.06)  # 60 px wide at 1000 px: 81 px long
    rgb, found = read_photo(detector, _jpeg(4000, 3000))
    assert detector.sizes == [(1000, 750)] and rgb.shape == (750, 1000, 3)
    assert found[0]["box"][2] == pytest.approx(60)


def test_a_wide_shot_is_read_again_at_half_and_detect_photo_scales_its_boxes_back():
    detector = TilesOfWidth(0.025)  # 25 x 34 px at 1000 px: a second look
    rgb, found = read_photo(detector, _jpeg(4000, 3000))
    assert detector.sizes == [(1000, 750), (2000, 1500)] and rgb.shape == (1500, 2000, 3)
    result = detect_photo(TilesOfWidth(0.025), _jpeg(4000, 3000))
    assert (result["width"], result["height"]) == (4000, 3000)
    assert result["detections"][1]["box"][:3] == pytest.approx([100, 20, 200])  # in pixels of the photo


def test_the_detection_read_photo_runs_can_be_given():
    detector = TilesOfWidth(0.06)
    calls = []
    rgb, found = read_photo(detector, _jpeg(1600, 1200), lambda image: calls.append(image.shape) or [])
    assert calls == [(1200, 1600, 3)] and found == [] and detector.sizes == []
    assert DETECT_MAX_SIDE == 1000


def test_bad_bytes_are_the_decoders_error():
    with pytest.raises(ImageError) as caught:
        read_photo(TilesOfWidth(0.06), b"not a photo")
    assert caught.value.status == 415
