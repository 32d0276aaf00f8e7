"""Detector latency: p50 / p95 for a 12-megapixel phone JPEG (decode included and
excluded) and for a 640 px image. Prints figures; nothing here is a test."""
from __future__ import annotations

import io
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

DEFAULT_PHOTO = Path(__file__).resolve().parent.parent / "tests" / "data" / "detector"
FOLDER_PHOTOS = 8  # a folder's JPEGs read, as many as the test photos


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


def _timed(functions: list, runs: int) -> list[list[float]]:
    """Each function's times (ms) over `runs` calls, taken in turn (a slow spell of the machine falls
    on all of them), after one warm-up call each."""
    for function in functions:
        function()  # warm-up
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(runs):
        for function, own in zip(functions, times):
            began = time.perf_counter()
            function()
            own.append((time.perf_counter() - began) * 1000)
    return times


def _pooled(times: list[list[float]]) -> tuple[float, float]:
    pooled = [t for own in times for t in own]
    return float(np.percentile(pooled, 50)), float(np.percentile(pooled, 95))


def photo_sources(photo: Path | None) -> list[Path]:
    """The JPEGs bench-detect reads: `photo`, the JPEGs of the folder `photo` (the first
    FOLDER_PHOTOS), or the committed test photos."""
    if photo is not None and not Path(photo).is_dir():
        return [Path(photo)]
    folder = DEFAULT_PHOTO if photo is None else Path(photo)
    sources = sorted(folder.glob("*.jpg"))[:FOLDER_PHOTOS if photo is not None else None]
    if not sources:
        raise FileNotFoundError(f"no JPEG in {folder}")
    return sources


def bench(photo: Path | None, runs: int, detector, max_side: int, without=None) -> list[tuple[str, float, float, int]]:
    """(case, p50 ms, p95 ms, tiles found) for a 12 MP JPEG read as every door reads it
    (vision.photo.read_photo, first look at least `max_side` long), decode included and
    excluded, and for a 640 px image. Without `photo`, the committed test photos, and with a folder
    its first FOLDER_PHOTOS JPEGs, each made a 12 MP JPEG in its own orientation (`runs` reads of
    each, pooled; the hands of some run down the photo, which costs the turned look), then each
    photo's own p50. `without`: the same detector without the tile set `detector` reads with, each
    case read by both in turn: its figures follow, and what the set adds (the median and the p95
    of the differences of paired reads)."""
    from vision.decode import decode_image
    from vision.photo import read_photo

    def read_and_detect(reader, data: bytes):
        photo = read_photo(data, first_side=max_side)
        return photo.image, reader.detect(photo.image, photo=photo).tiles

    sources = photo_sources(photo)
    if photo is not None and len(sources) == 1 and sources[0] == Path(photo):
        datas, names = [sources[0].read_bytes()], [sources[0].name]
    else:
        datas, names = [phone_jpeg(source) for source in sources], [source.stem for source in sources]
    readers = [detector] if without is None else [detector, without]
    read: list[tuple[np.ndarray, Any]] = [read_and_detect(detector, data) for data in datas]
    full = decode_image(datas[0])
    small = np.asarray(Image.fromarray(full).resize((640, round(640 * full.shape[0] / full.shape[1]))))
    photos = "test photos" if photo is None else "photos"
    what = f"{full.shape[1]}x{full.shape[0]} JPEG" if len(datas) == 1 else f"12 MP JPEGs ({len(datas)} {photos})"
    tiles = sum(len(found) for _, found in read)
    decoded = "decoded" if len(datas) > 1 else f"decoded {read[0][0].shape[1]}x{read[0][0].shape[0]}"
    cases: list[tuple[str, int, list[list[Callable[[], Any]]]]] = [
        (f"{what}, read_photo (decode + detect)", tiles,
         [[partial(read_and_detect, reader, data) for data in datas] for reader in readers]),
        (f"{what}, detect only ({decoded})", tiles, [[partial(reader.detect, rgb) for rgb, _ in read] for reader in readers]),
        (f"{small.shape[1]}x{small.shape[0]} image, detect only", len(detector.detect(small).tiles),
         [[partial(reader.detect, small)] for reader in readers]),
    ]
    results: list[tuple[str, float, float, int]] = []
    own: list[float] = []
    for name, found, functions in cases:
        times = _timed([f for group in functions for f in group], runs)
        with_set = times[:len(functions[0])]
        results.append((name, *_pooled(with_set), found))
        own = own or [float(np.median(t)) for t in with_set]
        if without is not None:
            plain = times[len(functions[0]):]
            results.append((f"{name}, without the set", *_pooled(plain), found))
            added = [a - b for mine, theirs in zip(with_set, plain) for a, b in zip(mine, theirs)]
            results.append((f"{name}, added by the set (paired reads)", float(np.median(added)),
                            float(np.percentile(added, 95)), found))
    if len(datas) > 1:
        for name, (rgb, found), ms in zip(names, read, own):
            results.append((f"  {name} ({rgb.shape[1]}x{rgb.shape[0]} read), read_photo", ms, float("nan"), len(found)))
    return results
