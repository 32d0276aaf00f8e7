"""The inference pool: at most `workers` at once, at most `queue` waiting, 503 beyond."""
import asyncio
import threading

import pytest

from api.errors import ApiError
from api.pool import InferencePool


def test_runs_work_in_a_worker_thread_and_returns_its_result():
    pool = InferencePool(workers=1, queue=0)

    async def main():
        return await pool.run(lambda x: (x * 2, threading.current_thread().name), 21)

    try:
        value, thread = asyncio.run(main())
    finally:
        pool.shutdown()
    assert value == 42
    assert thread.startswith("fanshot-infer")


def test_refuses_with_503_when_workers_and_queue_are_full_and_recovers_after():
    pool = InferencePool(workers=1, queue=1)
    release = threading.Event()
    running = []

    def slow(tag):
        running.append(tag)
        release.wait(5)
        return tag

    async def main():
        first = asyncio.ensure_future(pool.run(slow, "a"))
        second = asyncio.ensure_future(pool.run(slow, "b"))
        await asyncio.sleep(0.05)
        assert pool.admitted == 2
        assert running == ["a"]  # one worker: b waits in the line
        with pytest.raises(ApiError) as refused:
            await pool.run(slow, "c")
        release.set()
        done = await asyncio.gather(first, second)
        assert pool.admitted == 0
        after = await pool.run(slow, "d")
        return refused.value, done, after

    try:
        refused, done, after = asyncio.run(main())
    finally:
        release.set()
        pool.shutdown()
    assert (refused.status, refused.code, refused.headers) == (503, "busy", {"Retry-After": "1"})
    assert done == ["a", "b"] and after == "d"
    assert running == ["a", "b", "d"]  # c never ran


def test_a_failing_job_frees_its_place():
    pool = InferencePool(workers=1, queue=0)

    def fail():
        raise ValueError("bad photo")

    async def main():
        with pytest.raises(ValueError):
            await pool.run(fail)
        return pool.admitted, await pool.run(lambda: "ok")

    try:
        assert asyncio.run(main()) == (0, "ok")
    finally:
        pool.shutdown()


def test_the_photo_routes_answer_503_busy_when_the_pool_is_full(make_client, monkeypatch):
    client = make_client(inference_workers=1, inference_queue=0)
    started, release = threading.Event(), threading.Event()

    def blocked_detect(data, tileset=None):
        started.set()
        release.wait(5)
        return {"width": 1, "height": 1, "detections": []}

    monkeypatch.setattr(client.app.state.inference, "detect", blocked_detect)
    files = {"image": ("a.png", b"\x89PNG", "image/png")}
    results = {}
    first = threading.Thread(target=lambda: results.setdefault("first", client.post("/api/v1/detect", files=files)))
    first.start()
    try:
        assert started.wait(5)
        busy = client.post("/api/v1/detect", files=files)
    finally:
        release.set()
        first.join(5)
    assert busy.status_code == 503
    assert busy.json()["error"]["code"] == "busy"
    assert busy.headers["retry-after"] == "1"
    assert results["first"].status_code == 200


def test_the_pool_works_again_after_a_shutdown():
    pool = InferencePool(workers=1, queue=0)

    async def main():
        return await pool.run(lambda: "ok")

    assert asyncio.run(main()) == "ok"
    pool.shutdown()
    assert asyncio.run(main()) == "ok"
    pool.shutdown()
