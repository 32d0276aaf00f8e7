"""decode_image: formats, EXIF orientation, size limits and the errors for bad input."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision.decode import ImageError, decode_image, probe_image


def _encode(image: Image.Image, fmt: str, **kwargs) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **kwargs)
    return buffer.getvalue()


def _gradient(width: int, height: int) -> Image.Image:
    x = np.linspace(0, 255, width, dtype=np.uint8)[None, :].repeat(height, 0)
    y = np.linspace(0, 255, height, dtype=np.uint8)[:, None].repeat(width, 1)
    return Image.fromarray(np.stack([x, y, np.full_like(x, 128)], axis=-1))


def _red_left_half(width: int, height: int) -> Image.Image:
    pixels = np.zeros((height, width, 3), np.uint8)
    pixels[:, : width // 2] = (255, 0, 0)
    return Image.fromarray(pixels)


@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_decodes_common_formats_to_rgb(fmt):
    rgb = decode_image(_encode(_gradient(64, 48), fmt))
    assert rgb.shape == (48, 64, 3) and rgb.dtype == np.uint8
    assert abs(int(rgb[0, -1, 0]) - 255) < 20  # red grows to the right


def test_decodes_heic():
    pillow_heif = pytest.importorskip("pillow_heif")
    buffer = io.BytesIO()
    try:
        pillow_heif.from_pillow(_gradient(64, 48)).save(buffer, quality=90)
    except Exception as exc:  # no HEVC encoder in this build
        pytest.skip(f"cannot encode HEIC here: {exc}")
    rgb = decode_image(buffer.getvalue())
    assert rgb.shape == (48, 64, 3)



@pytest.mark.parametrize("fmt, mode", [("PNG", "I;16"), ("TIFF", "I;16"), ("TIFF", "I"), ("TIFF", "F")])
def test_a_grey_image_of_16_bit_or_float_samples_keeps_its_tones(fmt, mode):
    # PIL's convert("RGB") clips every sample above 255: such a photo read as a white page
    grey = np.linspace(0, 255, 64, dtype=np.float64)[None, :].repeat(48, 0)
    samples = {"I;16": (grey * 257).astype(np.uint16), "I": (grey * 257).astype(np.int32),
               "F": (grey / 255).astype(np.float32)}[mode]
    image = Image.fromarray(samples)
    assert image.mode == mode
    rgb = decode_image(_encode(image, fmt))
    assert rgb.shape == (48, 64, 3) and rgb.dtype == np.uint8
    assert np.abs(rgb.astype(int) - np.round(grey).astype(int)[..., None]).max() <= 1


def test_an_8_bit_grey_image_is_not_scaled():
    grey = np.linspace(0, 255, 64).astype(np.uint8)[None, :].repeat(48, 0)
    rgb = decode_image(_encode(Image.fromarray(grey), "PNG"))
    assert (rgb == grey[..., None]).all()

def test_applies_exif_orientation():
    exif = Image.Exif()
    exif[0x0112] = 6  # stored landscape, shown rotated 90 degrees clockwise
    data = _encode(_red_left_half(80, 40), "JPEG", exif=exif.tobytes())
    rgb = decode_image(data)
    assert rgb.shape == (80, 40, 3)
    assert probe_image(data) == (40, 80)
    # the red left half of the stored image is now the top half
    assert rgb[5, 20, 0] > 200 and rgb[-5, 20, 0] < 60


def test_alpha_is_composited_on_white():
    rgba = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    assert decode_image(_encode(rgba, "PNG"))[5, 5].tolist() == [255, 255, 255]


def test_max_side_shrinks_a_large_jpeg():
    data = _encode(_gradient(2000, 1500), "JPEG", quality=90)
    rgb = decode_image(data, max_side=500)
    assert max(rgb.shape[:2]) == 500 and rgb.shape[:2] == (375, 500)
    assert decode_image(data, max_side=4000).shape[:2] == (1500, 2000)


def test_max_side_applies_to_png_too():
    rgb = decode_image(_encode(_gradient(300, 200), "PNG"), max_side=150)
    assert rgb.shape[:2] == (100, 150)


@pytest.mark.parametrize(
    "data, code, status",
    [
        (b"", "empty", 422),
        (b"hello, this is not an image at all", "not_an_image", 415),
    ],
)
def test_bad_bytes(data, code, status):
    with pytest.raises(ImageError) as info:
        decode_image(data)
    assert (info.value.code, info.value.status) == (code, status)
    assert info.value.to_json()["error"]["code"] == code


@pytest.mark.parametrize("fmt", ["JPEG", "PNG"])
def test_truncated_image(fmt):
    data = _encode(_gradient(256, 256), fmt)
    with pytest.raises(ImageError) as info:
        decode_image(data[: len(data) // 2])
    assert (info.value.code, info.value.status) == ("truncated", 422)


def test_pixel_cap_is_checked_from_the_header():
    # a 1-bit PNG of 10000 x 10000 is small on disk but 100 megapixels decoded
    data = _encode(Image.new("1", (10_000, 10_000)), "PNG")
    assert len(data) < 200_000
    with pytest.raises(ImageError) as info:
        decode_image(data)
    assert (info.value.code, info.value.status) == ("too_many_pixels", 413)
    with pytest.raises(ImageError):
        decode_image(_encode(_gradient(100, 100), "PNG"), max_pixels=5_000)
