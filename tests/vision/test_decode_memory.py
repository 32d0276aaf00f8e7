"""Decoding memory is bounded by bytes as well as pixels: a small 16-bit PNG of 49 megapixels is
shrunk in its own mode (no float copies at full size), and an image that would take more memory
than a colour photo at the pixel limit is refused from its header, before it is decoded."""
from __future__ import annotations

import io
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.decode import ImageError, decode_bytes, decode_image

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 50_000_000  # the service's FANSHOT_MAX_PIXELS


def png_header(width: int, height: int, colour_type: int, depth: int = 8) -> bytes:
    """A PNG of that size and type with no pixel data: enough for the header checks."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_an_image_over_the_bytes_of_a_colour_photo_is_refused_before_decoding():
    # RGBA, 49 MP: under the pixel limit, but its alpha copies take more than an RGB photo of 50 MP
    with pytest.raises(ImageError) as info:
        decode_image(png_header(7000, 7000, colour_type=6), max_pixels=LIMIT, max_side=1000)
    assert (info.value.code, info.value.status) == ("too_many_bytes", 413)
    assert "7000x7000, RGBA" in info.value.message
    assert "the limit is 300 MB, what a colour photo of 50,000,000 pixels takes" in info.value.message


def test_a_colour_photo_at_the_pixel_limit_is_within_the_byte_limit():
    # decoded, not refused: the header-only file is then found truncated
    with pytest.raises(ImageError) as info:
        decode_image(png_header(7000, 7000, colour_type=2), max_pixels=LIMIT, max_side=1000)
    assert info.value.code == "truncated"
    assert decode_bytes("I;16", 7000, 7000, shrinks=True) < decode_bytes("RGB", LIMIT, 1, shrinks=True)


def test_a_bomb_over_pillows_own_cap_is_told_with_our_limit():
    with pytest.raises(ImageError) as info:
        decode_image(png_header(20_000, 20_000, colour_type=0), max_pixels=LIMIT)
    assert (info.value.code, info.value.status) == ("too_many_pixels", 413)
    assert info.value.message == "the image has 400,000,000 pixels; the limit is 50,000,000"


MEASURE = """
import sys
from pathlib import Path
from vision.decode import decode_image

data = Path(sys.argv[1]).read_bytes()
def kb(field):
    return next(int(l.split()[1]) for l in Path("/proc/self/status").read_text().splitlines() if l.startswith(field))
Path("/proc/self/clear_refs").write_text("5")
before = kb("VmRSS:")
rgb = decode_image(data, max_pixels=50_000_000, max_side=1000)
print(rgb.shape, (kb("VmHWM:") - before) // 1024)
"""


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's /proc peak memory")
def test_a_small_16_bit_png_of_49_megapixels_decodes_in_bounded_memory(tmp_path):
    samples = np.zeros((7000, 7000), np.uint16)
    samples[::97] = 40_000
    buffer = io.BytesIO()
    Image.fromarray(samples).save(buffer, format="PNG")
    del samples
    path = tmp_path / "grey16.png"
    path.write_bytes(buffer.getvalue())
    assert path.stat().st_size < 200_000
    run = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert run.returncode == 0, run.stderr
    shape, peak_mb = run.stdout.rsplit(" ", 1)
    assert shape == "(1000, 1000, 3)"
    # 98 MB of 16-bit samples and the PNG decoder's buffers; it was 1.2 GB (float64 copies at full size)
    assert int(peak_mb) < 200


def test_the_size_of_a_png_is_read_without_decoding_it():
    # a header without pixel data: decoding it would fail, reading its size must not
    from vision.decode import probe_image

    assert probe_image(png_header(6000, 4000, colour_type=6), max_pixels=LIMIT) == (6000, 4000)


def test_a_png_keeps_the_orientation_of_its_exif_chunk():
    exif = Image.Exif()
    exif[0x0112] = 6
    buffer = io.BytesIO()
    Image.new("RGB", (80, 40), (10, 20, 30)).save(buffer, format="PNG", exif=exif.tobytes())
    assert decode_image(buffer.getvalue()).shape == (80, 40, 3)
