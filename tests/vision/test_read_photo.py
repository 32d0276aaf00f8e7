"""The one rule every door reads a photo's bytes by (vision.photo.read_photo): decoded at the
smallest direct JPEG scale at least DETECT_MAX_SIDE long, detected once."""
from __future__ import annotations

import io

import pytest
from PIL import Image

from vision.decode import ImageError
from vision.detections import Detections
from vision.detector import detect_photo
from vision.photo import DETECT_MAX_SIDE, photo_scale_side, read_photo


@pytest.mark.parametrize("long_side, at_least, side", [
    (4000, 1000, 1000), (4032, 1000, 1008), (4080, 1000, 1020), (3264, 1000, 1632), (8000, 1000, 1000),
    (5712, 1000, 1428), (1600, 1000, 1600), (900, 1000, 900), (4000, 1001, 2000), (4000, 2100, 4000),
    (4000, 500, 500), (4000, 100, 500),
])
def test_the_first_look_is_the_smallest_direct_jpeg_scale_long_enough(long_side, at_least, side):
    assert photo_scale_side(long_side, at_least) == side


def _jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 60)).save(buffer, "JPEG", quality=80)
    return buffer.getvalue()


class TilesOfWidth:
    """A stand-in detector whose tiles span `share` of the image's width each."""

    def __init__(self, share: float):
        self.share = share
        self.sizes: list[tuple[int, int]] = []

    def detect(self, rgb, **_):
        height, width = rgb.shape[:2]
        self.sizes.append((width, height))
        w = self.share * width
        return Detections([{"tile": "W1", "box": [i * w, 10.0, (i + 1) * w, 10.0 + 1.35 * w], "score": 0.9}
                           for i in range(14)])


def test_a_12_mp_photo_is_read_once_at_a_quarter_and_detect_photo_scales_its_boxes_back():
    detector = TilesOfWidth(0.025)  # small tiles (25 x 34 px) too: no second look, it did not pay
    photo = read_photo(_jpeg(4000, 3000))
    rgb, found = photo.image, detector.detect(photo.image, photo=photo).tiles
    assert detector.sizes == [(1000, 750)] and rgb.shape == (750, 1000, 3)
    assert found[0]["box"][2] == pytest.approx(25)
    result = detect_photo(TilesOfWidth(0.025), _jpeg(4000, 3000))
    assert (result["width"], result["height"]) == (4000, 3000)
    assert result["detections"][1]["box"][:3] == pytest.approx([100, 40, 200])  # in pixels of the photo


def test_an_iphone_photo_is_read_at_its_quarter_without_resampling():
    detector = TilesOfWidth(0.06)
    rgb = read_photo(_jpeg(3024, 4032)).image
    detector.detect(rgb)
    assert detector.sizes == [(756, 1008)] and rgb.shape == (1008, 756, 3)


def test_read_photo_decodes_and_detects_nothing():
    detector = TilesOfWidth(0.06)
    photo = read_photo(_jpeg(1600, 1200))
    assert photo.image.shape == (1200, 1600, 3) and photo.long_side == 1600 and detector.sizes == []
    assert DETECT_MAX_SIDE == 1000


def test_bad_bytes_are_the_decoders_error():
    with pytest.raises(ImageError) as caught:
        read_photo(b"not a photo")
    assert caught.value.status == 415
