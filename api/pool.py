"""A bounded pool for inference: a few workers and a short waiting line.

At most `workers` analyses run at once, in worker processes (`processes`, the
service's default: each has its own Python lock, so one analysis drawing or
scoring in Python does not hold up the others) or in threads of this process
(tests that stand in for the pipeline); the event loop stays free either way.
At most `queue` more wait for a turn. A request beyond that is refused at once
with 503 instead of piling up uploads in memory.

Each worker is its own one-worker executor (a `_Slot`), so a worker that dies or
hangs costs only the job it was running: that job answers 503 `worker_lost` or,
past the `deadline`, 504 `analysis_timeout` (both with Retry-After), and the
worker is replaced; the other jobs go on. (One shared ProcessPoolExecutor fails
every pending job when one worker dies, and one stopped worker can hold its
shared call queue's lock.)
"""
from __future__ import annotations

import asyncio
import contextvars
import functools
import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, ParamSpec, TypeVar

from .errors import ApiError

P = ParamSpec("P")
T = TypeVar("T")
RETRY = {"Retry-After": "1"}
WAIT_POLL = 0.25  # seconds between checks that a waiting request's client is still there

# Set by `admission`: asks whether the request's client has gone (it then leaves the waiting line).
_client_gone: contextvars.ContextVar[Callable[[], Awaitable[bool]] | None] = contextvars.ContextVar(
    "fanshot_client_gone", default=None)


def _started(probe: Callable[[], object] | None) -> tuple[int, object]:
    """A new worker's first job: its process id and what `probe` says (e.g. the model it loaded)."""
    return os.getpid(), probe() if probe is not None else None


@dataclass(eq=False)  # a worker is itself, whatever its state
class _Slot:
    """One worker and its one-worker executor."""
    executor: Executor
    started: Future[tuple[int, object]]  # the worker's first job (`_started`)
    replacement: bool  # started in place of a lost or stuck worker
    busy_since: float | None = None
    jobs: int = field(default=0)

    @property
    def pid(self) -> int | None:
        if self.started.done() and self.started.exception() is None:
            return self.started.result()[0]
        return None

    def report(self) -> object:
        if self.started.done() and self.started.exception() is None:
            return self.started.result()[1]
        return None

    def _state(self) -> str | None:
        """The worker process's state letter (Linux /proc): R, S, T (stopped), Z (ended); "" when it
        has gone, None when unknown (not started, a thread, not Linux)."""
        pid = self.pid
        if pid is None or pid == os.getpid() or not os.path.isdir("/proc/self"):
            return None
        try:
            with open(f"/proc/{pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return ""

    def stopped(self) -> bool:
        """The worker process is stopped (SIGSTOP): it will not answer."""
        return self._state() in ("T", "t")

    def ended(self) -> bool:
        """The worker process has ended (its executor may not have noticed yet)."""
        return self._state() in ("", "Z", "X")


class InferencePool:
    def __init__(self, workers: int, queue: int, processes: bool = False,
                 initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = (),
                 deadline: float | None = None, probe: Callable[[], object] | None = None):
        self.workers = workers
        self.queue = queue
        self.processes = processes
        self.deadline = deadline  # seconds a job may run in a worker; None: no limit
        self._initializer = initializer  # run once in each worker process (loads the model)
        self._initargs = initargs
        self._probe = probe  # run once in each new worker process; its answer is `reports()`
        self._slots: list[_Slot] = []  # made on first use, again after a shutdown
        self._free: list[_Slot] = []
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._admitted = 0  # running + waiting; only touched on the event loop
        self.replaced = 0  # workers replaced since the start (lost or stuck)

    @property
    def capacity(self) -> int:
        return self.workers + self.queue

    @property
    def admitted(self) -> int:
        return self._admitted

    @asynccontextmanager
    async def admission(self, client_gone: Callable[[], Awaitable[bool]] | None = None) -> AsyncIterator[None]:
        """A place in the pool (running or waiting) for the block, or ApiError(503) if none is free.

        Take it before reading an upload into memory, so a burst of uploads is refused
        instead of being held. With `client_gone` (a request's `is_disconnected`), a request
        still waiting for a worker when its client goes leaves the line (and its place)."""
        if self._admitted >= self.capacity:
            raise ApiError(503, "busy", "the server is busy with other photos; retry in a moment",
                           headers=dict(RETRY))
        self._admitted += 1
        token = _client_gone.set(client_gone)
        try:
            yield
        finally:
            _client_gone.reset(token)
            self._admitted -= 1

    # workers ---------------------------------------------------------------

    def _new_slot(self, replacement: bool = False) -> _Slot:
        executor: Executor
        if self.processes:
            # spawn: a fresh interpreter, not a fork of this one and its threads
            executor = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                           initializer=self._initializer, initargs=self._initargs)
            started = executor.submit(_started, self._probe)
        else:
            executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fanshot-infer")
            started = Future()
            started.set_result((os.getpid(), None))
        return _Slot(executor, started, replacement)

    def _ensure_slots(self) -> None:
        if not self._slots:
            self._slots = [self._new_slot() for _ in range(self.workers)]
            self._free = list(self._slots)

    def _replace(self, slot: _Slot, kill: bool) -> None:
        """A new worker in `slot` in place of a lost or stuck one (killed first when `kill`)."""
        old, pid = slot.executor, slot.pid
        if kill and self.processes and pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)  # a stopped process ends too
            except ProcessLookupError:
                pass
        old.shutdown(wait=False, cancel_futures=True)
        fresh = self._new_slot(replacement=True)
        slot.executor, slot.started, slot.replacement = fresh.executor, fresh.started, True
        self.replaced += 1

    def start(self) -> None:
        """Start the worker processes now (each loads the model), so the first photos do not wait for them."""
        if self.processes:
            self._ensure_slots()

    async def _take(self) -> _Slot:
        """A free worker; waits in line for one (leaving it if the client goes)."""
        self._ensure_slots()
        while not self._free:
            waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await self._while_client_waits(waiter)
            except BaseException:
                if waiter.done() and not waiter.cancelled():
                    self._wake()  # pass the turn on
                else:
                    waiter.cancel()
                raise
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
        return self._free.pop()

    @staticmethod
    async def _while_client_waits(future: asyncio.Future[Any]) -> Any:
        """`await future`, or ApiError 499 once the request's client has gone (`admission`)."""
        gone = _client_gone.get()
        while not future.done():
            await asyncio.wait({future}, timeout=WAIT_POLL if gone is not None else None)
            if not future.done() and gone is not None and await gone():
                raise ApiError(499, "client_gone", "the client left before a worker was free")
        return future.result()

    def _wake(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    def _give(self, slot: _Slot) -> None:
        slot.busy_since = None
        if slot in self._slots:  # not from before a shutdown
            self._free.append(slot)
            self._wake()

    async def execute(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run func(*args, **kwargs) in a free worker (inside `admission`): at most `workers` at once. In
        worker processes `func` and its arguments must pickle (a module-level function). A worker that
        dies during the call answers 503 `worker_lost`; one still running it after `deadline` seconds is
        ended and answers 504 `analysis_timeout`; either is replaced and the other calls go on."""
        job = functools.partial(func, *args, **kwargs)
        slot = await self._take()
        try:
            try:
                await self._while_client_waits(asyncio.wrap_future(slot.started))  # a new worker loads the model
                if slot.ended() or slot.stopped():  # a worker lost while idle: a new one, and this job is not lost
                    self._replace(slot, kill=True)
                    await self._while_client_waits(asyncio.wrap_future(slot.started))
                try:
                    running = slot.executor.submit(job)
                except BrokenProcessPool:
                    self._replace(slot, kill=False)
                    await asyncio.wrap_future(slot.started)
                    running = slot.executor.submit(job)
            except BrokenProcessPool:  # the new worker did not start
                self._replace(slot, kill=False)
                raise self._lost() from None
            slot.busy_since, slot.jobs = time.monotonic(), slot.jobs + 1
            waited = asyncio.wrap_future(running)
            done, _ = await asyncio.wait({waited}, timeout=self.deadline)
            if not done:
                waited.cancel()
                self._replace(slot, kill=True)
                raise ApiError(504, "analysis_timeout", f"the analysis did not finish in {self.deadline:g} s; "
                                                        "its worker was restarted; try again", headers=dict(RETRY))
            try:
                return waited.result()
            except BrokenProcessPool:
                self._replace(slot, kill=False)
                raise self._lost() from None
        finally:
            self._give(slot)

    @staticmethod
    def _lost() -> ApiError:
        return ApiError(503, "worker_lost", "the analysis stopped: its worker process ended; try again",
                        headers=dict(RETRY))

    async def run(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """admission + execute, for work whose input is already in memory."""
        async with self.admission():
            return await self.execute(func, *args, **kwargs)

    # health ----------------------------------------------------------------

    def renew_idle(self) -> None:
        """Replace the idle workers that ended or were stopped (on the event loop: the health check)."""
        for slot in self._free:
            if slot.ended() or slot.stopped():
                self._replace(slot, kill=True)

    def reports(self) -> list[object]:
        """What each started worker's `probe` said, in worker order (None: not started yet)."""
        return [slot.report() for slot in self._slots]

    def status(self) -> dict[str, Any]:
        """`ready` workers (started; in processes, with the model loaded), `starting` ones (of which
        `replacing`: in place of a lost or stuck one), `stuck` ones (stopped, or running a job past
        the deadline), `replaced` since the start; `degraded` when one is stuck or being replaced."""
        now = time.monotonic()
        started = [slot for slot in self._slots if slot.started.done()]
        stuck = [slot for slot in started if slot.stopped() or slot.ended() or (
            self.deadline is not None and slot.busy_since is not None and now - slot.busy_since > self.deadline)]
        starting = [slot for slot in self._slots if not slot.started.done()]
        replacing = [slot for slot in starting if slot.replacement]
        return {"ready": len(started) - len(stuck), "starting": len(starting), "replacing": len(replacing),
                "stuck": len(stuck), "replaced": self.replaced, "degraded": bool(stuck or replacing)}

    def shutdown(self) -> None:
        """Stop the workers (at the app's shutdown; worker processes are waited for, so none is left
        behind); a later run starts new ones."""
        slots, self._slots, self._free = self._slots, [], []
        for slot in slots:
            pid = slot.pid
            if self.processes and pid is not None and slot.stopped():
                os.kill(pid, signal.SIGKILL)  # a stopped worker would never be waited for
            slot.executor.shutdown(wait=self.processes, cancel_futures=True)
