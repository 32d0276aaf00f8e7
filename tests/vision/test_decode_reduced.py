"""Big phone JPEGs are decoded at a reduced scale by the codec (DCT scaling), including the
multi-frame JPEGs (MPO) phones write and photos stored sideways with an EXIF orientation."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.decode import decode_image, open_reduced


def _photo(width: int, height: int) -> Image.Image:
    """Stored pixels: red left half, blue right half."""
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[:, : width // 2] = (255, 0, 0)
    pixels[:, width // 2 :] = (0, 0, 255)
    return Image.fromarray(pixels)


def _jpeg(image: Image.Image, fmt: str = "JPEG", orientation: int = 1) -> bytes:
    exif = Image.Exif()
    if orientation != 1:
        exif[0x0112] = orientation
    buffer = io.BytesIO()
    extra = {"save_all": True, "append_images": [image.resize((160, 120))]} if fmt == "MPO" else {}
    image.save(buffer, format=fmt, quality=90, exif=exif.tobytes(), **extra)
    return buffer.getvalue()


@pytest.mark.parametrize("fmt", ["JPEG", "MPO"])
@pytest.mark.parametrize("orientation", [1, 6])
def test_a_big_jpeg_is_decoded_at_a_quarter_scale_by_the_codec(fmt, orientation):
    data = _jpeg(_photo(1600, 1200), fmt, orientation)
    image = open_reduced(data, max_side=400)
    assert image.format == fmt
    assert image.size == (400, 300)  # the codec's output size, as stored, before any resampling


@pytest.mark.parametrize("max_side, size", [(800, (800, 600)), (500, (800, 600)), (1600, (1600, 1200)),
                                            (None, (1600, 1200)), (150, (200, 150))])
def test_the_codec_scale_is_the_smallest_that_still_covers_max_side(max_side, size):
    assert open_reduced(_jpeg(_photo(1600, 1200)), max_side=max_side).size == size


def test_an_mpo_photo_stored_sideways_comes_out_upright_and_reduced():
    data = _jpeg(_photo(1600, 1200), "MPO", orientation=6)  # shown rotated 90 degrees clockwise
    rgb = decode_image(data, max_side=400)
    assert rgb.shape == (400, 300, 3)
    # the red left half of the stored photo is now the top half, the blue right half the bottom
    assert rgb[20, 150].tolist()[0] > 200 and rgb[-20, 150].tolist()[2] > 200


def test_png_has_no_codec_scaling_and_is_resampled_instead():
    buffer = io.BytesIO()
    _photo(1600, 1200).save(buffer, format="PNG")
    assert open_reduced(buffer.getvalue(), max_side=400).size == (1600, 1200)
    assert decode_image(buffer.getvalue(), max_side=400).shape == (300, 400, 3)


def _pillow_reference(data: bytes, max_side: int | None) -> np.ndarray:
    """What Pillow alone makes of the bytes: decoded (at the codec's scale for `max_side`), turned upright."""
    from PIL import ImageOps

    image = open_reduced(data, max_side=max_side)
    image.load()
    return np.asarray(ImageOps.exif_transpose(image).convert("RGB"))


@pytest.mark.parametrize("orientation", range(1, 9))
@pytest.mark.parametrize("fmt, max_side", [("JPEG", None), ("JPEG", 160), ("MPO", 320)])  # scales 1, 1/4, 1/2
def test_opencv_decodes_a_colour_jpeg_to_pillows_pixels(monkeypatch, orientation, fmt, max_side):
    import cv2

    import vision.decode

    rng = np.random.default_rng(orientation)
    stored = Image.fromarray(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8).repeat(4, 0).repeat(4, 1))
    data = _jpeg(stored, fmt, orientation)  # 640 x 480 stored; shown turned for orientations 5-8
    calls, imdecode = [], cv2.imdecode
    monkeypatch.setattr(vision.decode.cv2, "imdecode", lambda *a: calls.append(a[1]) or imdecode(*a))
    decoded = decode_image(data, max_side=max_side)
    assert calls, "decoded by Pillow, not OpenCV"
    np.testing.assert_array_equal(decoded, _pillow_reference(data, max_side))
    assert decoded.flags["C_CONTIGUOUS"]


def test_a_truncated_jpeg_is_still_refused():
    from vision.decode import ImageError

    data = _jpeg(_photo(640, 480))
    with pytest.raises(ImageError) as info:
        decode_image(data[: len(data) * 2 // 3])
    assert info.value.status == 422
