#!/usr/bin/env python3
"""Memory of the Label Studio case of issue 36 (not in CI; Linux): three /labelstudio/predict at
once, each a `data:` URI of a 16-bit 6300x6300 PNG, against a `fanshot serve` with 2 worker
processes started here on a free port.

    python scripts/labelstudio_memory.py [--side 6300] [--calls 3]

Prints each call's status, the pool's `admitted` seen meanwhile, and the peak resident memory
(VmHWM) of the server's own process and of each worker process.
"""
from __future__ import annotations

import argparse
import base64
import io
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LABEL_CONFIG = ('<View><Image name="image" value="$image"/><RectangleLabels name="label" toName="image">'
                '<Label value="B5"/></RectangleLabels></View>')


def png16(side: int) -> bytes:
    import numpy as np
    from PIL import Image

    ramp = (np.arange(side * side, dtype=np.uint32) % 65536).astype(np.uint16).reshape(side, side)
    buffer = io.BytesIO()
    Image.fromarray(ramp).save(buffer, format="PNG")  # uint16: a 16-bit grey image
    return buffer.getvalue()


def peak_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in cmdline \
                    and b"resource_tracker" not in cmdline:
                found.append(int(entry.name))
    return sorted(found)


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.loads(answer.read())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--side", type=int, default=6300)
    parser.add_argument("--calls", type=int, default=3)
    args = parser.parse_args()
    photo = png16(args.side)
    uri = "data:image/png;base64," + base64.b64encode(photo).decode()
    body = json.dumps({"tasks": [{"id": 1, "data": {"image": uri}}], "label_config": LABEL_CONFIG}).encode()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "FANSHOT_INFERENCE_WORKERS": "2", "FANSHOT_INFERENCE_PROCESSES": "1",
           "PYTHONPATH": str(REPO)}
    server = subprocess.Popen([sys.executable, "-m", "fanshot", "serve", "--port", str(port), "--log-level", "warning"],
                              cwd=REPO, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if get(f"{url}/api/v1/health")["inference"].get("ready") == 2:
                    break
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.1)
        before = {pid: peak_mib(pid) for pid in [server.pid, *children(server.pid)]}
        admitted: list[int] = []
        done = threading.Event()

        def watch() -> None:
            while not done.is_set():
                admitted.append(get(f"{url}/api/v1/health")["inference"]["admitted"])
                time.sleep(0.05)

        def predict() -> str:
            request = urllib.request.Request(f"{url}/labelstudio/predict", data=body,
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=120) as answer:
                    return str(answer.status)
            except urllib.error.HTTPError as exc:
                return f"{exc.code} {json.loads(exc.read())['error']['code']}"

        watcher = threading.Thread(target=watch)
        watcher.start()
        started = time.monotonic()
        with ThreadPoolExecutor(args.calls) as calls:
            statuses = list(calls.map(lambda _: predict(), range(args.calls)))
        seconds = time.monotonic() - started
        done.set()
        watcher.join()
        print(f"{args.calls} x /labelstudio/predict, 16-bit {args.side}x{args.side} PNG ({len(photo) // 1024} KB) "
              f"as a data: URI ({len(uri) // 1024} KB): {statuses} in {seconds:.1f} s; "
              f"admitted at most {max(admitted, default=0)}")
        print(f"server process {server.pid}: peak {peak_mib(server.pid):.0f} MiB "
              f"(before the calls {before[server.pid]:.0f} MiB)")
        for pid in children(server.pid):
            print(f"worker process {pid}: peak {peak_mib(pid):.0f} MiB"
                  + (f" (before the calls {before[pid]:.0f} MiB)" if pid in before else " (a new worker)"))
    finally:
        server.terminate()
        server.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
