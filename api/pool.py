"""A bounded pool for inference: a few workers and a short waiting line.

At most `workers` analyses run at once, in threads, so the event loop stays
free; at most `queue` more wait for a turn. A request beyond that is refused
at once with 503 instead of piling up uploads in memory.
"""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, TypeVar

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

    async def run(self, func: Callable[..., T], *args) -> T:
        """Run func(*args) in a worker thread, or raise ApiError(503) if the line is full."""
        if self._admitted >= self.capacity:
            raise ApiError(503, "busy", "the server is busy with other photos; retry in a moment",
                           headers={"Retry-After": "1"})
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="fanshot-infer")
        self._admitted += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, func, *args)
        finally:
            self._admitted -= 1

    def shutdown(self) -> None:
        """Stop the worker threads (at the app's shutdown); a later run starts new ones."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
