"""A bounded pool for inference: a few workers and a short waiting line.

At most `workers` analyses run at once, in worker processes (`processes`, the
service's default: each has its own Python lock, so one analysis drawing or
scoring in Python does not hold up the others) or in threads of this process
(tests that stand in for the pipeline); the event loop stays free either way.
At most `queue` more wait for a turn. A request beyond that is refused at once
with 503 instead of piling up uploads in memory.
"""
from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import asynccontextmanager
from typing import Any, ParamSpec, TypeVar

from .errors import ApiError

P = ParamSpec("P")
T = TypeVar("T")


class InferencePool:
    def __init__(self, workers: int, queue: int, processes: bool = False,
                 initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = ()):
        self.workers = workers
        self.queue = queue
        self.processes = processes
        self._initializer = initializer  # run once in each worker process (loads the model)
        self._initargs = initargs
        self._executor: Executor | None = None  # made on first use, again after a shutdown
        self._admitted = 0  # running + waiting; only touched on the event loop

    @property
    def capacity(self) -> int:
        return self.workers + self.queue

    @property
    def admitted(self) -> int:
        return self._admitted

    @asynccontextmanager
    async def admission(self) -> AsyncIterator[None]:
        """A place in the pool (running or waiting) for the block, or ApiError(503) if none is free.

        Take it before reading an upload into memory, so a burst of uploads is refused
        instead of being held."""
        if self._admitted >= self.capacity:
            raise ApiError(503, "busy", "the server is busy with other photos; retry in a moment",
                           headers={"Retry-After": "1"})
        self._admitted += 1
        try:
            yield
        finally:
            self._admitted -= 1

    def _get_executor(self) -> Executor:
        if self._executor is None:
            if self.processes:
                # spawn: a fresh interpreter, not a fork of this one and its threads
                self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                     initializer=self._initializer, initargs=self._initargs)
            else:
                self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="fanshot-infer")
        return self._executor

    def start(self) -> None:
        """Start the worker processes now (each loads the model), so the first photos do not wait for them."""
        if self.processes:
            executor = self._get_executor()
            for _ in range(self.workers):
                executor.submit(os.getpid)

    async def execute(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Run func(*args, **kwargs) in a worker (inside `admission`): at most `workers` at once. In
        worker processes `func` and its arguments must pickle (a module-level function). A worker
        process that dies is replaced: between requests silently, during this one with ApiError(500)."""
        loop = asyncio.get_running_loop()
        job = functools.partial(func, *args, **kwargs)
        executor = self._get_executor()
        try:
            future = loop.run_in_executor(executor, job)
        except BrokenProcessPool:  # a worker process ended while idle: a new pool
            self._discard(executor)
            executor = self._get_executor()
            future = loop.run_in_executor(executor, job)
        try:
            return await future
        except BrokenProcessPool:
            self._discard(executor)
            raise ApiError(500, "worker_lost", "the analysis stopped: its worker process ended; "
                                               "try again") from None

    def _discard(self, executor: Executor) -> None:
        """Drop a broken pool (unless another request has already replaced it)."""
        if self._executor is executor:
            self._executor = None
        executor.shutdown(wait=False, cancel_futures=True)

    async def run(self, func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """admission + execute, for work whose input is already in memory."""
        async with self.admission():
            return await self.execute(func, *args, **kwargs)

    def shutdown(self) -> None:
        """Stop the workers (at the app's shutdown; worker processes are waited for, so none is left
        behind); a later run starts new ones."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=self.processes, cancel_futures=True)
