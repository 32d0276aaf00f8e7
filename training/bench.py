"""Detector latency: p50 / p95 for a 12-megapixel phone JPEG (decode included and
excluded) and for a 640 px image. Prints figures; nothing here is a test."""
from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

DEFAULT_PHOTO = Path(__file__).resolve().parent.parent / "tests" / "data" / "detector"


def phone_jpeg(source: Path, long_side: int = 4000, quality: int = 92) -> bytes:
    """A 12 MP JPEG made in memory from `source`: 4:3 in the source's own orientation (4000x3000,
    or 3000x4000 for a portrait source), scaled to cover it and cropped in the centre."""
    with Image.open(source) as opened:
        image = opened.convert("RGB")
        short = long_side * 3 // 4
        size = (long_side, short) if image.width >= image.height else (short, long_side)
        scale = max(size[0] / image.width, size[1] / image.height)
        image = image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.BICUBIC)
        left, top = (image.width - size[0]) // 2, (image.height - size[1]) // 2
        image = image.crop((left, top, left + size[0], top + size[1]))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue()


def _percentiles(functions: list, runs: int) -> tuple[float, float, list[float]]:
    """p50 and p95 over `runs` calls of each function (taken in turn, so that a slow spell of the
    machine falls on all of them), and each function's own p50."""
    for function in functions:
        function()  # warm-up
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(runs):
        for function, own in zip(functions, times):
            began = time.perf_counter()
            function()
            own.append((time.perf_counter() - began) * 1000)
    pooled = [t for own in times for t in own]
    return float(np.percentile(pooled, 50)), float(np.percentile(pooled, 95)), [float(np.median(t)) for t in times]


def bench(photo: Path | None, runs: int, detector, max_side: int) -> list[tuple[str, float, float, int]]:
    """(case, p50 ms, p95 ms, tiles found) for a 12 MP JPEG read as every door reads it
    (vision.photo.read_photo, first look at least `max_side` long), decode included and
    excluded, and for a 640 px image. Without `photo`: the committed test photos, each made a 12 MP
    JPEG in its own orientation (`runs` reads of each, pooled; the hands of some run down the
    photo, which costs the turned look), then each photo's own p50."""
    from vision.decode import decode_image
    from vision.photo import read_photo

    def read_and_detect(data: bytes):
        photo = read_photo(data, first_side=max_side)
        return photo.image, detector.detect(photo.image, photo=photo).tiles

    if photo is None:
        sources = sorted(DEFAULT_PHOTO.glob("*.jpg"))
        if not sources:
            raise FileNotFoundError(f"no photo given and no test image in {DEFAULT_PHOTO}")
        datas = [phone_jpeg(source) for source in sources]
        names = [source.stem for source in sources]
    else:
        datas, names = [Path(photo).read_bytes()], [Path(photo).name]
    read: list[tuple[np.ndarray, Any]] = [read_and_detect(data) for data in datas]
    full = decode_image(datas[0])
    small = np.asarray(Image.fromarray(full).resize((640, round(640 * full.shape[0] / full.shape[1]))))
    what = f"{full.shape[1]}x{full.shape[0]} JPEG" if len(datas) == 1 else f"12 MP JPEGs ({len(datas)} test photos)"
    tiles = sum(len(found) for _, found in read)
    results = []
    p50, p95, own = _percentiles([lambda d=data: read_and_detect(d) for data in datas], runs)
    results.append((f"{what}, read_photo (decode + detect)", p50, p95, tiles))
    p50, p95, _ = _percentiles([lambda r=rgb: detector.detect(r) for rgb, _ in read], runs)
    decoded = "decoded" if len(datas) > 1 else f"decoded {read[0][0].shape[1]}x{read[0][0].shape[0]}"
    results.append((f"{what}, detect only ({decoded})", p50, p95, tiles))
    p50, p95, _ = _percentiles([lambda: detector.detect(small)], runs)
    results.append((f"{small.shape[1]}x{small.shape[0]} image, detect only", p50, p95, len(detector.detect(small).tiles)))
    if len(datas) > 1:
        for name, (rgb, found), ms in zip(names, read, own):
            results.append((f"  {name} ({rgb.shape[1]}x{rgb.shape[0]} read), read_photo", ms, float("nan"), len(found)))
    return results
