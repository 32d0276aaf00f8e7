"""A bounded pool for inference: a few workers and a short waiting line.

At most `workers` analyses run at once, in threads, so the event loop stays
free; at most `queue` more wait for a turn. A request beyond that is refused
at once with 503 instead of piling up uploads in memory.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import AsyncIterator, Callable, TypeVar

from .errors import ApiError

T = TypeVar("T")


class InferencePool:
    def __init__(self, workers: int, queue: int):
        self.workers = workers
        self.queue = queue
        self._executor: ThreadPoolExecutor | None = None  # made on first use, again after a shutdown
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

    async def execute(self, func: Callable[..., T], *args) -> T:
        """Run func(*args) in a worker thread (inside `admission`): at most `workers` at once."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="fanshot-infer")
        return await asyncio.get_running_loop().run_in_executor(self._executor, func, *args)

    async def run(self, func: Callable[..., T], *args) -> T:
        """admission + execute, for work whose input is already in memory."""
        async with self.admission():
            return await self.execute(func, *args)

    def shutdown(self) -> None:
        """Stop the worker threads (at the app's shutdown); a later run starts new ones."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
