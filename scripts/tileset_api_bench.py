#!/usr/bin/env python3
"""Tile sets through the API (not in CI): the time to learn a set from a layout photo with
POST /api/v1/tilesets/{name}/layout, and POST /api/v1/analyze's latency without and with the
`tileset` field, in one worker process as `fanshot serve` runs it (the model loaded before timing).

    python scripts/tileset_api_bench.py [--runs 5] [--side 2048]

The photos are `fanshot synth` renderings of the altered one-set 7 (docs/tilesets.md) at --side px
(the phone page uploads at most 2048 px). Prints the learning times and the analyses' p50 and max
in milliseconds, each photo analysed alternately without and with the set.
"""
from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def _jpeg(example: dict) -> bytes:
    import cv2

    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(example["image"], cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 90])
    return buf.tobytes()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="photos analysed each way (default 5)")
    parser.add_argument("--side", type=int, default=2048, help="the photos' long side in px (default 2048)")
    args = parser.parse_args()

    import datasets.synth.generate as synth
    from api.app import create_app
    from api.settings import Settings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    layout = _jpeg(synth.make_example(910000, 0, [args.side], None, synth.OneSet(7, True, 43)))
    scenes = [_jpeg(synth.make_example(920000, i, [args.side], None, synth.OneSet(7, True))) for i in range(args.runs)]
    with tempfile.TemporaryDirectory() as data_dir:
        settings = dataclasses.replace(Settings(), inference_processes=True, inference_workers=1,
                                       data_dir=Path(data_dir))
        with TestClient(create_app(settings)) as client:
            client.post("/api/v1/detect", files={"image": ("warm.jpg", scenes[0], "image/jpeg")})  # the model loaded
            learn = []
            for _ in range(3):
                started = time.perf_counter()
                answer = client.post("/api/v1/tilesets/bench/layout", files={"image": ("l.jpg", layout, "image/jpeg")})
                assert answer.status_code == 200, answer.text
                learn.append((time.perf_counter() - started, answer.json()["learnt"]["seconds"]))
            for wall, worker in learn:
                print(f"learn a {args.side} px layout photo (43 tiles): {1000 * wall:.0f} ms through the API, "
                      f"{1000 * worker:.0f} ms in the worker")
            times: dict[str, list[float]] = {"without": [], "with": []}
            for scene in scenes:
                for way, form in (("without", {}), ("with", {"tileset": "bench"})):
                    started = time.perf_counter()
                    answer = client.post("/api/v1/analyze", files={"image": ("s.jpg", scene, "image/jpeg")}, data=form)
                    assert answer.status_code == 200, answer.text
                    times[way].append(1000 * (time.perf_counter() - started))
            for way, ms in times.items():
                print(f"analyze {way} the set: p50 {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms "
                      f"({len(ms)} photos of {args.side} px)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
