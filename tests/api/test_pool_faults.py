"""A worker that dies or hangs costs only its own job (issue 36, items 6 and 7): the pool's other
jobs finish, the lost one answers a retryable 503/504, and the worker is replaced. The same
faults against a real `fanshot serve`: tests/api/test_pool_serve_faults.py."""
from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from api.errors import ApiError
from api.pool import InferencePool


def pid_after(seconds: float) -> int:
    """A job of `seconds`: the id of the worker process that ran it."""
    time.sleep(seconds)
    return os.getpid()


def die_after(seconds: float) -> None:
    time.sleep(seconds)
    os._exit(9)


def stop_after(seconds: float) -> None:
    time.sleep(seconds)
    os.kill(os.getpid(), signal.SIGSTOP)


def run_together(pool: InferencePool, *jobs) -> list:
    """The jobs (func, arg) run at once in `pool`; each one's result or ApiError."""
    async def main():
        return await asyncio.wait_for(asyncio.gather(*(pool.run(func, arg) for func, arg in jobs),
                                                     return_exceptions=True), 20)
    return asyncio.run(main())


@pytest.fixture
def two_workers():
    pool = InferencePool(workers=2, queue=6, processes=True, deadline=2)
    yield pool
    pool.shutdown()


def test_a_dead_worker_fails_its_own_job_alone_with_a_retryable_503():
    # before: the other worker's jobs failed too, each a 500 worker_lost without Retry-After
    pool = InferencePool(workers=2, queue=6, processes=True)
    try:
        answers = run_together(pool, (die_after, 0.3), *[(pid_after, 0.2)] * 5)
        lost, done = answers[0], answers[1:]
        assert isinstance(lost, ApiError), answers
        assert (lost.status, lost.code, lost.headers) == (503, "worker_lost", {"Retry-After": "1"})
        assert all(isinstance(pid, int) for pid in done), answers
        assert pool.status()["replaced"] == 1
        assert isinstance(asyncio.run(pool.run(pid_after, 0)), int)  # the replacement works
    finally:
        pool.shutdown()


def test_a_stopped_worker_is_ended_at_the_deadline_and_the_others_go_on(two_workers):
    # before: no deadline: the stopped worker's job never ended (and could stall the whole pool)
    started = time.monotonic()
    answers = run_together(two_workers, (stop_after, 0.2), *[(pid_after, 0.2)] * 5)
    assert time.monotonic() - started < 15  # two workers started, the deadline, under a loaded machine
    stuck, done = answers[0], answers[1:]
    assert isinstance(stuck, ApiError), answers
    assert (stuck.status, stuck.code, stuck.headers) == (504, "analysis_timeout", {"Retry-After": "1"})
    assert all(isinstance(pid, int) for pid in done), answers
    status = two_workers.status()
    assert status["replaced"] == 1 and status["stuck"] == 0 and status["degraded"] is True  # replacing
    assert isinstance(asyncio.run(two_workers.run(pid_after, 0)), int)
    assert two_workers.status()["degraded"] is False and two_workers.status()["ready"] == 2


def test_the_health_of_the_pool_sees_a_stopped_worker_at_once(two_workers):
    pids = run_together(two_workers, (pid_after, 0.3), (pid_after, 0.3))
    assert two_workers.status() == {"ready": 2, "starting": 0, "replacing": 0, "stuck": 0, "replaced": 0,
                                    "degraded": False}
    os.kill(pids[0], signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 2  # the signal is delivered a moment later
        while two_workers.status()["stuck"] == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        status = two_workers.status()
        assert (status["stuck"], status["degraded"]) == (1, True)
    finally:
        os.kill(pids[0], signal.SIGCONT)


def test_an_idle_worker_that_died_is_replaced_without_failing_the_next_job(two_workers):
    pids = run_together(two_workers, (pid_after, 0.3), (pid_after, 0.3))
    os.kill(pids[0], signal.SIGKILL)
    deadline = time.monotonic() + 2  # it has ended (a moment after the signal) before the next jobs come
    while two_workers.status()["stuck"] == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    answers = run_together(two_workers, *[(pid_after, 0.1)] * 4)
    assert all(isinstance(pid, int) and pid != pids[0] for pid in answers), answers


def test_a_request_whose_client_left_gives_up_its_place_in_the_line():
    # before: admission had no way to hear the client go; `admitted` stayed up while it waited
    pool = InferencePool(workers=1, queue=2, processes=False)
    gone = False

    async def client_gone() -> bool:
        return gone

    async def waiting():
        async with pool.admission(client_gone):
            return await pool.execute(time.sleep, 0)

    async def main():
        nonlocal gone
        busy = asyncio.ensure_future(pool.run(time.sleep, 1.0))
        await asyncio.sleep(0.05)
        left = asyncio.ensure_future(waiting())
        await asyncio.sleep(0.05)
        assert pool.admitted == 2
        gone = True
        with pytest.raises(ApiError) as info:
            await asyncio.wait_for(left, 0.8)  # before the busy job ends
        admitted = pool.admitted
        await busy
        return info.value, admitted

    try:
        error, admitted = asyncio.run(main())
    finally:
        pool.shutdown()
    assert error.code == "client_gone" and admitted == 1
