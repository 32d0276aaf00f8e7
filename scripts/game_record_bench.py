#!/usr/bin/env python3
"""Time to record a hand through the API (not in CI): POST /api/v1/games/{code}/hands over HTTP
on loopback, one client, a typed hand scored by the service (the game's winds), 16 per game.

    python scripts/game_record_bench.py                  # SQLite in a temporary data directory
    python scripts/game_record_bench.py --postgres       # a PostgreSQL server started for the run
    python scripts/game_record_bench.py --database-url postgresql://user@host/db

Prints the records, p50, p95 and max latency in milliseconds.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
HAND = {"concealed": ["F4", "F4", "F4", "W1", "W2", "W3", "B4", "B5", "B6", "T7", "T8", "T9", "J3"],
        "melds": [], "win_tile": "J3"}


@contextlib.contextmanager
def serving(database_url: str, data_dir: Path):
    import uvicorn

    from api.app import create_app
    from api.settings import Settings

    settings = dataclasses.replace(Settings(), data_dir=data_dir, database_url=database_url, inference_workers=1,
                                   inference_processes=False)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def bench(url: str, records: int) -> list[float]:
    import httpx

    times: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as client:
        client.get(f"/api/v1/games/{client.post('/api/v1/games', json={}).json()['code']}")  # the store opened
        while len(times) < records:
            code = client.post("/api/v1/games", json={}).json()["code"]
            for version in range(min(16, records - len(times))):
                body = {"version": version, "outcome": "win", "winner": version % 4,
                        "discarder": None if version % 2 else (version + 1) % 4, "hand": HAND}
                start = time.perf_counter()
                answer = client.post(f"/api/v1/games/{code}/hands", json=body)
                times.append(time.perf_counter() - start)
                if answer.status_code != 200:
                    raise SystemExit(f"record failed: {answer.status_code} {answer.text}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=200)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--postgres", action="store_true", help="start a PostgreSQL server for the run")
    where.add_argument("--database-url", default="", help="a database to use (default: SQLite in a temp dir)")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="fanshot-bench-")))
        url = args.database_url
        if args.postgres:
            sys.path.insert(0, str(REPO / "tests" / "games"))
            from pg_server import fresh_database, postgres_server

            url = fresh_database(stack.enter_context(postgres_server()))
        base = stack.enter_context(serving(url, data_dir))
        times = sorted(t * 1000 for t in bench(base, args.records))
    kind = "postgresql" if url else "sqlite"
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(f"{kind}: {len(times)} records through POST /api/v1/games/{{code}}/hands: p50 "
          f"{statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
