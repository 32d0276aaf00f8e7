"""Detector latency: p50 / p95 for a 12-megapixel phone JPEG (decode included and
excluded) and for a 640 px image. Prints figures; nothing here is a test."""
from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
from PIL import Image

DEFAULT_PHOTO = Path(__file__).resolve().parent.parent / "tests" / "data" / "detector"


def phone_jpeg(source: Path, size: tuple[int, int] = (4000, 3000), quality: int = 92) -> bytes:
    """A 12 MP JPEG made in memory from `source` (scaled to cover `size`, centre crop)."""
    with Image.open(source) as image:
        image = image.convert("RGB")
        scale = max(size[0] / image.width, size[1] / image.height)
        image = image.resize((round(image.width * scale), round(image.height * scale)), Image.BICUBIC)
        left, top = (image.width - size[0]) // 2, (image.height - size[1]) // 2
        image = image.crop((left, top, left + size[0], top + size[1]))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def _percentiles(function, runs: int) -> tuple[float, float]:
    function()  # warm-up
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        function()
        times.append((time.perf_counter() - began) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def bench(photo: Path | None, runs: int, detector, max_side: int) -> list[tuple[str, float, float, int]]:
    """(case, p50 ms, p95 ms, tiles found) for the three cases; the first is the photo read as
    every door reads it (vision.detector.read_photo, first look at least `max_side` long)."""
    from vision.decode import decode_image
    from vision.detector import read_photo

    if photo is None:
        candidates = sorted(DEFAULT_PHOTO.glob("*.jpg"))
        if not candidates:
            raise FileNotFoundError(f"no photo given and no test image in {DEFAULT_PHOTO}")
        data = phone_jpeg(candidates[0])
    else:
        data = Path(photo).read_bytes()
    rgb, _ = read_photo(detector, data, first_side=max_side)
    full = decode_image(data)
    small = np.asarray(Image.fromarray(full).resize((640, round(640 * full.shape[0] / full.shape[1]))))
    cases = [
        (f"{full.shape[1]}x{full.shape[0]} JPEG, read_photo (decode at {rgb.shape[1]}x{rgb.shape[0]} + detect)",
         lambda: read_photo(detector, data, first_side=max_side), rgb),
        (f"{full.shape[1]}x{full.shape[0]} JPEG, detect only (decoded {rgb.shape[1]}x{rgb.shape[0]})",
         lambda: detector.detect(rgb), rgb),
        (f"{small.shape[1]}x{small.shape[0]} image, detect only", lambda: detector.detect(small), small),
    ]
    results = []
    for name, function, image in cases:
        p50, p95 = _percentiles(function, runs)
        results.append((name, p50, p95, len(detector.detect(image))))
    return results
