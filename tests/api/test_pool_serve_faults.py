"""Faults under load against a real `fanshot serve` (2 worker processes, 8 clients at once):
a worker killed (SIGKILL) or stopped (SIGSTOP) costs at most the one request it was running,
answered with a retryable status; health says degraded, then ok once the worker is replaced
(issue 36, items 6, 7 and 9)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from synth_hand import SYNTH_PHOTO

from vision.model_spec import DEFAULT_MODEL_DIR

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 3  # FANSHOT_INFERENCE_DEADLINE of the server, seconds
CLIENTS = 8
PER_CLIENT = 3  # detections each client sends at least


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FANSHOT_INFERENCE_WORKERS": "2", "FANSHOT_INFERENCE_PROCESSES": "1",
           "FANSHOT_INFERENCE_QUEUE": str(CLIENTS), "FANSHOT_INFERENCE_DEADLINE": str(DEADLINE)}
    process = subprocess.Popen([sys.executable, "-m", "fanshot", "serve", "--port", str(port), "--log-level", "warning"],
                               cwd=ROOT, env=env, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: health(url) is not None, 60, "the server to answer")
        yield process, url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def health(url: str) -> dict | None:
    try:
        return httpx.get(f"{url}/api/v1/health", timeout=2).json()
    except httpx.HTTPError:
        return None


def wait_for(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}")
        time.sleep(0.1)


def ready(url: str) -> bool:
    body = health(url)
    return bool(body and body["status"] == "ok" and body["inference"].get("ready") == 2)


def worker_pids(server_pid: int) -> list[int]:
    """The server's worker processes (spawned children, not multiprocessing's resource tracker)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == server_pid and b"spawn_main" in cmdline and b"resource_tracker" not in cmdline:
            pids.append(int(entry.name))
    return sorted(pids)


def under_load(url: str, fault) -> tuple[list[httpx.Response | Exception], list[str]]:
    """CLIENTS clients, each sending detections one after another, from 0.5 s before `fault()` until
    1 s after it (PER_CLIENT at least). Their answers, and the statuses health gave meanwhile and until the pool was
    whole again."""
    photo = SYNTH_PHOTO.read_bytes()
    statuses: list[str] = []
    done, enough = threading.Event(), threading.Event()

    def watch() -> None:
        while not done.is_set():
            body = health(url)
            if body:
                statuses.append(body["status"])
            time.sleep(0.05)

    def detect() -> httpx.Response | Exception:
        try:
            return httpx.post(f"{url}/api/v1/detect", files={"image": ("hand.jpg", photo, "image/jpeg")},
                              timeout=DEADLINE + 12)
        except httpx.HTTPError as exc:  # before: a stopped worker hung the pool until the client gave up
            return exc

    def client() -> list[httpx.Response | Exception]:
        answers = []
        while not enough.is_set() or len(answers) < PER_CLIENT:
            answers.append(detect())
        return answers

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with ThreadPoolExecutor(CLIENTS) as clients:
            running = [clients.submit(client) for _ in range(CLIENTS)]
            time.sleep(0.5)
            fault()
            time.sleep(1)
            enough.set()
            results = [answer for each in running for answer in each.result()]
        wait_for(lambda: ready(url), 30, "the pool to be whole again")
        time.sleep(0.2)
    finally:
        done.set()
        watcher.join()
    return results, statuses


def check_only_one_failed(results, retryable: set[int]) -> None:
    failed = [r for r in results if not isinstance(r, httpx.Response) or r.status_code != 200]
    assert len(results) >= CLIENTS * PER_CLIENT  # no client hung
    assert len(failed) <= 1, [r if isinstance(r, Exception) else (r.status_code, r.text) for r in failed]
    for answer in failed:
        assert isinstance(answer, httpx.Response), answer
        assert answer.status_code in retryable and answer.headers.get("retry-after") == "1", answer.text


def test_health_says_the_model_is_loaded_once_the_workers_loaded_it_before_any_photo(server):
    # before: model_loaded stayed false until the first photo
    _, url = server
    wait_for(lambda: (health(url) or {}).get("model_loaded") is True, 30, "model_loaded")
    wait_for(lambda: ready(url), 30, "two ready workers")
    body = health(url)
    assert body["model"] and body["inference"]["ready"] == 2 and body["status"] == "ok"


def test_a_killed_worker_costs_at_most_its_own_request(server):
    # before: every request in flight answered 500 worker_lost, without Retry-After
    process, url = server
    wait_for(lambda: ready(url), 30, "two ready workers")
    pids = worker_pids(process.pid)
    assert len(pids) == 2
    results, statuses = under_load(url, lambda: os.kill(pids[0], signal.SIGKILL))
    check_only_one_failed(results, {503})
    assert "degraded" in statuses and statuses[-1] == "ok", statuses
    after = worker_pids(process.pid)
    assert pids[0] not in after and pids[1] in after and len(after) == 2
    assert health(url)["inference"]["admitted"] == 0


def test_a_stopped_worker_costs_at_most_its_own_request_and_is_replaced(server):
    # before: the pool stalled (every client waited until it gave up) and health said ok
    process, url = server
    wait_for(lambda: ready(url), 30, "two ready workers")
    pids = worker_pids(process.pid)
    started = time.monotonic()
    results, statuses = under_load(url, lambda: os.kill(pids[1], signal.SIGSTOP))
    check_only_one_failed(results, {503, 504})
    assert time.monotonic() - started < DEADLINE + 20
    assert "degraded" in statuses and statuses[-1] == "ok", statuses
    after = worker_pids(process.pid)
    assert pids[1] not in after and len(after) == 2
    body = health(url)
    assert body["inference"]["admitted"] == 0 and body["inference"]["stuck"] == 0


def test_clients_that_give_up_leave_the_line_and_stuck_workers_are_replaced(server):
    # before: `admitted` stayed up after the clients left, and health said ok
    process, url = server
    wait_for(lambda: ready(url), 30, "two ready workers")
    pids = worker_pids(process.pid)
    photo = SYNTH_PHOTO.read_bytes()
    started = time.monotonic()

    def give_up() -> Exception | httpx.Response:
        try:
            return httpx.post(f"{url}/api/v1/detect", files={"image": ("hand.jpg", photo, "image/jpeg")}, timeout=1.5)
        except httpx.HTTPError as exc:
            return exc

    with ThreadPoolExecutor(CLIENTS) as clients:
        answers = [clients.submit(give_up) for _ in range(CLIENTS)]
        # as soon as both workers have a photo and others wait in line (a fixed pause let all eight
        # finish first on a quiet machine)
        busy = time.monotonic() + 5
        while (health(url) or {}).get("inference", {}).get("admitted", 0) < 3 and time.monotonic() < busy:
            time.sleep(0.01)
        for pid in pids:  # both workers stopped, most likely in the middle of a detection
            os.kill(pid, signal.SIGSTOP)
        stopped = time.monotonic()
        assert health(url)["status"] == "degraded"
        results = [answer.result() for answer in answers]
    assert any(isinstance(a, httpx.TimeoutException) for a in results), results
    # those waiting for a worker left with their clients; those running wait for the deadline
    wait_for(lambda: health(url)["inference"]["admitted"] <= 2, 1, "the waiting requests to leave")
    assert time.monotonic() - stopped < DEADLINE
    wait_for(lambda: ready(url) and health(url)["inference"]["admitted"] == 0, 30, "new workers, no request left")
    assert health(url)["inference"]["stuck"] == 0
    assert not set(pids) & set(worker_pids(process.pid))
    assert time.monotonic() - started < DEADLINE + 20
