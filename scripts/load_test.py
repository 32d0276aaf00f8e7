#!/usr/bin/env python3
"""Load test (not in CI): N concurrent clients post photos to /api/v1/analyze on loopback.

    python scripts/load_test.py                      # starts `fanshot serve` on a free port,
                                                     # 8 clients, 60 s, a 12 MP synthetic photo
    python scripts/load_test.py --url http://127.0.0.1:8000 --photo my.jpg --clients 4 --seconds 30

Prints the requests, the errors (by status), the throughput and the p50/p95/max latency.
The run is bounded: it stops sending after --seconds and waits at most --timeout for the
requests in flight. Exit status 1 if any request failed.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def multipart(photo: bytes, filename: str, fields: dict[str, str]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="{filename}"\r\n'
                 f"Content-Type: image/jpeg\r\n\r\n".encode() + photo + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def synthetic_photo(long_side: int, seed: int, folder: Path) -> Path:
    """A synthetic hand photo from `fanshot synth`, `long_side` pixels long (4000: 12 MP)."""
    fanshot = [sys.executable, "-m", "fanshot.cli"]
    subprocess.run(fanshot + ["synth", "--n", "1", "--out", str(folder), "--seed", str(seed),
                              "--long-side", str(long_side), "--quiet"], check=True, cwd=REPO)
    return next((folder / "images").glob("*.jpg"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_healthy(host: str, port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(host, port, timeout=2)
            conn.request("GET", "/api/v1/health")
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"the server on {host}:{port} did not come up in {seconds:.0f} s")


def client_loop(host: str, port: int, path: str, body: bytes, content_type: str, stop_at: float,
                timeout: float, results: list, lock: threading.Lock) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    while time.monotonic() < stop_at:
        began = time.perf_counter()
        try:
            conn.request("POST", path, body=body, headers={"Content-Type": content_type})
            response = conn.getresponse()
            payload = response.read()
            status = response.status
            answer = json.loads(payload) if status == 200 else {}
            if status == 200 and not (answer.get("tiles") or answer.get("detections")):  # analyze / detect
                status = "no tiles"
        except (OSError, http.client.HTTPException) as exc:
            status = type(exc).__name__
            conn.close()
            conn = http.client.HTTPConnection(host, port, timeout=timeout)
        with lock:
            results.append((status, time.perf_counter() - began))
    conn.close()


def process_cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process and its children (the server's worker processes) have
    used so far, from /proc (None where there is none)."""
    def own(stat: str) -> tuple[int, float]:
        fields = stat.rsplit(")", 1)[1].split()
        return int(fields[1]), (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    try:
        total = own(Path(f"/proc/{pid}/stat").read_text())[1]
    except (OSError, ValueError, IndexError):
        return None
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent, seconds = own(stat.read_text())
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
        if parent == pid:
            total += seconds
    return total


def percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running server (default: start `fanshot serve` on a free loopback port)")
    parser.add_argument("--photo", type=Path, help="the photo to post (default: a synthetic one, --long-side long)")
    parser.add_argument("--long-side", type=int, default=4000, help="synthetic photo size (4000: 4000x3000 = 12 MP)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--timeout", type=float, default=30.0, help="per request, seconds")
    parser.add_argument("--route", default="analyze", choices=["analyze", "detect"])
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        photo_path = args.photo or synthetic_photo(args.long_side, 4242, Path(tmp) / "synth")
        photo = photo_path.read_bytes()
        from PIL import Image

        with Image.open(photo_path) as image:
            size = image.size
        server = None
        if args.url:
            parsed = urllib.parse.urlsplit(args.url)
            host, port = parsed.hostname or "127.0.0.1", parsed.port or 80
        else:
            host, port = "127.0.0.1", free_port()
            server = subprocess.Popen([sys.executable, "-m", "fanshot.cli", "serve", "--host", host, "--port",
                                       str(port), "--log-level", "warning"], cwd=REPO, env=os.environ.copy())
        try:
            wait_healthy(host, port, 60)
            # /detect takes the image alone (a field it does not take is a 422)
            fields = {"rules": "mcr"} if args.route == "analyze" else {}
            body, content_type = multipart(photo, photo_path.name, fields)
            path = f"/api/v1/{args.route}"
            # one request first, so model loading is not in the figures
            client_loop(host, port, path, body, content_type, time.monotonic() + 0.001, args.timeout, [],
                        threading.Lock())
            results: list = []
            lock = threading.Lock()
            stop_at = time.monotonic() + args.seconds
            server_cpu = process_cpu_seconds(server.pid) if server is not None else None
            client_cpu = time.process_time()
            began = time.perf_counter()
            threads = [threading.Thread(target=client_loop, daemon=True,
                                        args=(host, port, path, body, content_type, stop_at, args.timeout,
                                              results, lock)) for _ in range(args.clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(args.seconds + args.timeout + 5)
            elapsed = time.perf_counter() - began
            client_cpu = time.process_time() - client_cpu
            if server_cpu is not None:
                after = process_cpu_seconds(server.pid)
                server_cpu = None if after is None else after - server_cpu
        finally:
            if server is not None:
                server.terminate()
                server.wait(10)

    latencies = sorted(t for status, t in results if status == 200)
    errors = Counter(str(status) for status, _ in results if status != 200)
    print(f"photo: {photo_path.name} {size[0]}x{size[1]} ({size[0] * size[1] / 1e6:.1f} MP, {len(photo) / 1e6:.2f} MB)")
    print(f"route: POST {path}  clients: {args.clients}  duration: {elapsed:.1f} s  CPUs: {os.cpu_count()}")
    print(f"requests: {len(results)}  ok: {len(latencies)}  errors: {sum(errors.values())}"
          + (f" {dict(errors)}" if errors else ""))
    print(f"throughput: {len(latencies) / elapsed:.2f} photos/s")
    if latencies:
        print(f"latency: p50 {percentile(latencies, 50) * 1000:.0f} ms  p95 {percentile(latencies, 95) * 1000:.0f} ms"
              f"  max {latencies[-1] * 1000:.0f} ms")
    if results:
        cpu = f"  server {server_cpu * 1000 / len(results):.0f} ms" if server_cpu is not None else ""
        print(f"CPU per request:{cpu}  load-test client {client_cpu * 1000 / len(results):.0f} ms"
              f"  (the machine has {os.cpu_count()} cores for {elapsed:.0f} s: "
              f"{os.cpu_count() * elapsed * 1000 / len(results):.0f} ms of core time per request)")
    return 1 if errors or not latencies else 0


if __name__ == "__main__":
    sys.exit(main())
