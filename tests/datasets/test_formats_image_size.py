"""datasets.formats.image_size: the size as shown (EXIF orientation applied as
PIL.ImageOps.exif_transpose does), read from the header."""
from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image, ImageFile, ImageOps

from datasets import formats

W, H = 60, 40


def with_orientation(orientation: int) -> Image.Exif:
    exif = Image.Exif()
    exif[0x0112] = orientation
    return exif


def save(tmp_path, name: str, orientation: int | None, fmt: str) -> str:
    path = tmp_path / name
    kwargs = {} if orientation is None else {"exif": with_orientation(orientation)}
    Image.new("RGB", (W, H), (200, 30, 30)).save(path, format=fmt, **kwargs)
    return str(path)


def shown_size(path: str) -> tuple[int, int]:
    with Image.open(path) as im:
        return ImageOps.exif_transpose(im).size


@pytest.mark.parametrize("orientation", [None, 1, 2, 3, 4, 5, 6, 7, 8])
@pytest.mark.parametrize("fmt", ["JPEG", "PNG", "WEBP"])
def test_size_as_exif_transpose_shows_it(tmp_path, orientation, fmt):
    path = save(tmp_path, f"x.{fmt.lower()}", orientation, fmt)
    expected = (H, W) if orientation in (5, 6, 7, 8) else (W, H)
    assert shown_size(path) == expected  # the reference this follows
    assert formats.image_size(path) == expected


def test_a_rotated_jpeg_is_measured_without_decoding_its_pixels(tmp_path, monkeypatch):
    path = save(tmp_path, "phone.jpg", 6, "JPEG")  # a phone photo held upright: stored 60x40, shown 40x60

    def no_decoding(self, *args, **kwargs):
        raise AssertionError("the pixels were decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    assert formats.image_size(path) == (H, W)
    assert formats.image_size(save(tmp_path, "plain.png", None, "PNG")) == (W, H)


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def test_a_png_with_its_exif_after_the_pixels(tmp_path):
    buffer = io.BytesIO()
    Image.new("RGB", (W, H)).save(buffer, format="PNG")
    png = buffer.getvalue()
    iend = png.rindex(b"IEND") - 4
    exif = with_orientation(8).tobytes()
    path = tmp_path / "late.png"
    path.write_bytes(png[:iend] + png_chunk(b"eXIf", exif) + png[iend:])
    assert shown_size(str(path)) == (H, W)
    assert formats.image_size(path) == (H, W)


def test_an_xmp_orientation_counts_as_exif_transpose_counts_it(tmp_path):
    path = tmp_path / "xmp.jpg"
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description tiff:Orientation="6"/></x:xmpmeta>'
    Image.new("RGB", (W, H)).save(path, format="JPEG", xmp=xmp)
    assert shown_size(str(path)) == formats.image_size(path) == (H, W)


def test_read_yolo_measures_boxes_against_the_shown_size(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "labels").mkdir()
    save(tmp_path / "images", "upright.jpg", 6, "JPEG")
    formats.write_data_yaml(tmp_path)
    (tmp_path / "labels" / "upright.txt").write_text("0 0.5 0.5 0.5 0.25\n")
    [record] = formats.read_yolo(tmp_path)
    assert (record["width"], record["height"]) == (H, W)
    assert record["boxes"][0]["box"] == [10, 22.5, 30, 37.5]


def test_not_an_image_is_a_dataset_error(tmp_path):
    path = tmp_path / "notes.jpg"
    path.write_text("hello")
    with pytest.raises(formats.DatasetError, match="cannot read image"):
        formats.image_size(path)
