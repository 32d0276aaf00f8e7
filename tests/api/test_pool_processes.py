"""The photo pipeline in worker processes, as `fanshot serve` runs it (api.pool, api.inference):
the same answers as in threads, errors that cross back whole, and a dead worker replaced."""
from __future__ import annotations

import asyncio
import dataclasses
import os
import pickle
import warnings

import pytest
from synth_hand import SYNTH_PHOTO

from api.app import create_app
from api.errors import ApiError
from api.pool import InferencePool
from api.settings import Settings
from vision.model_spec import DEFAULT_MODEL_DIR

with warnings.catch_warnings():  # starlette's httpx deprecation notice, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient



def test_an_api_error_pickles_whole():
    error = ApiError(422, "not_a_winning_hand", "no", headers={"X": "1"}, params={"found": 13})
    back = pickle.loads(pickle.dumps(error))
    assert (back.status, back.code, back.message, back.headers, back.params) == (422, "not_a_winning_hand", "no",
                                                                                  {"X": "1"}, {"found": 13})


def test_a_worker_process_that_dies_is_a_retryable_503_and_is_replaced():
    pool = InferencePool(workers=1, queue=0, processes=True)

    async def main():
        first = await pool.execute(os.getpid)
        with pytest.raises(ApiError) as info:
            await pool.execute(os._exit, 3)  # the worker ends in the middle of the call
        return first, info.value, await pool.execute(os.getpid)

    try:
        first, error, second = asyncio.run(main())
    finally:
        pool.shutdown()
    assert first != os.getpid() and second not in (first, os.getpid())
    assert (error.status, error.code, error.headers) == (503, "worker_lost", {"Retry-After": "1"})


def test_a_worker_process_ignores_ctrl_c(tmp_path):
    """Ctrl-C in `make serve`'s terminal reaches the workers too; the server stops them itself
    (without this, each printed a KeyboardInterrupt traceback)."""
    import signal

    from api.inference import start_worker

    pool = InferencePool(workers=1, queue=0, processes=True, initializer=start_worker,
                         initargs=(Settings(inference_workers=1, model_dir=tmp_path),))
    try:
        handler = asyncio.run(pool.run(signal.getsignal, signal.SIGINT))
    finally:
        pool.shutdown()
    assert handler == signal.SIG_IGN


@pytest.fixture(scope="module")
def clients():
    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    settings = dataclasses.replace(Settings(), inference_workers=1, inference_processes=False)
    with TestClient(create_app(dataclasses.replace(settings, inference_processes=True))) as in_processes, \
            TestClient(create_app(settings)) as in_threads:
        yield in_processes, in_threads


def test_a_photo_reads_the_same_in_a_worker_process(clients, monkeypatch):
    in_processes, in_threads = clients

    def not_here(*args):
        raise AssertionError("the analysis ran in the server's own process")

    monkeypatch.setattr(in_processes.app.state.inference, "analyze", not_here)
    monkeypatch.setattr(in_processes.app.state.inference, "detect", not_here)
    files = {"image": ("hand.jpg", SYNTH_PHOTO.read_bytes(), "image/jpeg")}
    assert in_processes.get("/api/v1/health").json()["model_loaded"] is False
    answers = [client.post("/api/v1/analyze", files=files, data={"rules": "mcr"}) for client in clients]
    assert [a.status_code for a in answers] == [200, 200]
    body, expected = (a.json() for a in answers)
    assert body["tiles"] and [t["tile"] for t in body["tiles"]] == [t["tile"] for t in expected["tiles"]]
    assert body["score"] == expected["score"]
    assert in_processes.get(body["image_url"]).status_code == 200  # the annotated photo, kept by the server
    health = in_processes.get("/api/v1/health").json()
    assert health["model_loaded"] is True and health["model"] == expected_model_name()
    detected = in_processes.post("/api/v1/detect", files=files)
    assert detected.status_code == 200 and len(detected.json()["detections"]) == len(body["tiles"])


def test_an_error_in_a_worker_process_is_answered_as_in_one_process(clients):
    for client in clients:
        answer = client.post("/api/v1/analyze", files={"image": ("a.jpg", b"not an image", "image/jpeg")})
        assert answer.status_code == 415
        assert answer.json()["error"]["code"] == "not_an_image"


def expected_model_name() -> str:
    from vision.model_spec import read_model_spec

    return read_model_spec()[1]["provenance"]["name"]


def test_the_worker_processes_end_with_the_server(tmp_path):
    """Killed (no shutdown at all), the server leaves no worker process behind."""
    import signal
    import subprocess
    import sys
    import time

    server = subprocess.Popen([sys.executable, "-c", f"""
import asyncio, os, sys, time
from api.inference import start_worker
from api.pool import InferencePool
from api.settings import Settings
pool = InferencePool(1, 0, processes=True, initializer=start_worker,
                     initargs=(Settings(inference_workers=1, model_dir={str(tmp_path)!r}),))
print(asyncio.run(pool.execute(os.getpid)), flush=True)
time.sleep(60)
"""], stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    try:
        worker = int(server.stdout.readline())
        assert _alive(worker)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(10)
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
