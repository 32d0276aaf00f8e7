#!/usr/bin/env python3
"""Photos per second of `fanshot batch detect`, the embedded engine and Ray back to back on the same
photos (not in CI). Each run starts from an empty output folder; the figures are the whole
command (its start, the model loads, Ray's start, the outputs) and the reading alone (the engine's
start included), as the command's summary says.

    .venv/bin/fanshot synth --n 1000 --seed 930000 --long-side 1280 --workers 2 --out /work/data/synth-930000
    .venv/bin/python scripts/batch_bench.py /work/data/synth-930000/images --workers 2

Prints one line per engine, and the load average before each run: other work on the machine
slows either engine.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"(\d+) photos: (\d+) read in ([\d.]+) s")


def run(src: Path, out: Path, workers: int, ray: bool) -> tuple[int, float, float]:
    """(photos read, seconds of the whole command, seconds of the reading)."""
    fanshot = Path(sys.executable).parent / "fanshot"
    command = [str(fanshot), "batch", "detect", str(src), "--out", str(out), "--workers", str(workers), "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(command + (["--ray"] if ray else []), capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - started
    found = SUMMARY.search(done.stderr)
    if done.returncode not in (0, 1) or not found:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return int(found.group(2)), seconds, float(found.group(3))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path, help="folder or list of photos")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print(f"{'engine':9} {'photos':>6} {'command s':>9} {'photos/s':>8} {'reading s':>9} {'photos/s':>8}  load before")
    with tempfile.TemporaryDirectory(prefix="fanshot-batch-bench-") as tmp:
        for name, ray in (("embedded", False), ("ray", True)):
            load = " ".join(f"{v:.2f}" for v in os.getloadavg())
            photos, command, reading = run(args.src, Path(tmp) / name, args.workers, ray)
            print(f"{name:9} {photos:6d} {command:9.1f} {photos / command:8.2f} {reading:9.1f} {photos / reading:8.2f}"
                  f"  {load}", flush=True)
            shutil.rmtree(Path(tmp) / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
