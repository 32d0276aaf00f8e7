"""A kill -9 in the middle of recording loses no acknowledged hand and leaves no half-written one
(SQLite in WAL mode, every change one transaction): the real server killed while a client records,
and a recording process killed between a hand and its photo's bytes."""
from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from api.storage.store import GameStore

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_server(data_dir: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FANSHOT_DATA_DIR": str(data_dir), "FANSHOT_INFERENCE_WORKERS": "1",
           "FANSHOT_INFERENCE_PROCESSES": "0"}
    env.pop("FANSHOT_DATABASE_URL", None)
    server = subprocess.Popen([sys.executable, "-m", "uvicorn", "--factory", "api.app:create_app", "--host",
                               "127.0.0.1", "--port", str(port), "--log-level", "warning"], env=env, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/v1/health", timeout=1).status_code == 200:
                return server, url
        except httpx.HTTPError:
            time.sleep(0.1)
    server.kill()
    raise AssertionError("the server did not start")


def _integrity(data_dir: Path) -> str:
    with sqlite3.connect(data_dir / "fanshot.db") as db:
        return db.execute("PRAGMA integrity_check").fetchone()[0]


def test_a_killed_server_keeps_every_acknowledged_hand(tmp_path):
    server, url = _start_server(tmp_path)
    acknowledged: list[dict] = []
    refused: list[str] = []
    try:
        code = httpx.post(url + "/api/v1/games", json={}, timeout=30).json()["code"]

        def record_until_killed() -> None:
            with httpx.Client(base_url=url, timeout=10) as client:
                for number in range(1, 17):
                    body = {"version": number - 1, "outcome": "win", "winner": number % 4, "total": 8 + number}
                    try:
                        answer = client.post(f"/api/v1/games/{code}/hands", json=body)
                    except httpx.HTTPError:
                        return  # the server is gone: this hand was not acknowledged
                    if answer.status_code != 200:
                        refused.append(answer.text)
                        return
                    acknowledged.append(answer.json()["hands"][-1])

        recorder = threading.Thread(target=record_until_killed)
        recorder.start()
        wanted = random.Random().randint(3, 10)
        while len(acknowledged) < wanted and recorder.is_alive():
            time.sleep(0.002)
        server.send_signal(signal.SIGKILL)  # while the next hands are on their way
        server.wait(10)
        recorder.join(30)
    finally:
        server.kill()
    assert refused == [] and len(acknowledged) >= 3
    assert _integrity(tmp_path) == "ok"
    store = GameStore.open(tmp_path)
    try:
        sheet = store.sheet(code)
    finally:
        store.close()
    kept = {h["number"]: (h["winner"], h["total"]) for h in sheet["hands"]}
    assert all(kept.get(h["number"]) == (h["winner"], h["total"]) for h in acknowledged)
    assert sorted(kept) == list(range(1, len(kept) + 1)) and sheet["version"] == len(kept)
    assert len(acknowledged) <= len(kept) <= len(acknowledged) + 1  # at most the one in flight, whole


RECORDER = """
import sys
from pathlib import Path
from api.storage.entries import HandEntry
from api.storage.store import GameStore
store = GameStore.open(Path(sys.argv[1]))
code = store.create()["code"]
print(code, flush=True)
for version in range(16):
    photo = bytes([version]) * 400_000  # large enough that a kill falls inside its writing
    store.record(code, version, HandEntry("win", winner=version % 4, total=8, photo=photo))
    print(version + 1, flush=True)
"""


def test_a_killed_recorder_leaves_no_hand_without_its_photo(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    recorder = subprocess.Popen([sys.executable, "-c", RECORDER, str(tmp_path)], stdout=subprocess.PIPE, text=True,
                                env=env, cwd=ROOT)
    assert recorder.stdout is not None
    code = recorder.stdout.readline().strip()
    wanted, acknowledged = random.Random().randint(2, 8), 0
    while acknowledged < wanted:
        acknowledged = int(recorder.stdout.readline())
    time.sleep(random.Random().uniform(0, 0.02))
    recorder.send_signal(signal.SIGKILL)
    recorder.wait(10)
    assert _integrity(tmp_path) == "ok"
    store = GameStore.open(tmp_path)
    try:
        hands = store.sheet(code)["hands"]
        assert len(hands) >= acknowledged
        for hand in hands:
            assert hand["has_photo"] and store.photo(code, hand["number"]) == bytes([hand["number"] - 1]) * 400_000
    finally:
        store.close()
