"""The embedded engine: worker processes on this machine, one model load each (the pool's
initializer), each photo's record written by the worker that read it."""
from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from fanshot.batch.job import BatchJob, EngineError
from fanshot.batch.reader import PhotoReader
from fanshot.batch.records import write_lost

# photos handed to each worker ahead of the one it reads: enough to keep it busy, few enough
# that a worker lost takes only these with it
AHEAD = 2

_reader: PhotoReader | None = None


def _start_worker(job: BatchJob) -> None:
    """A worker's start: its reader (the model loaded now), and a watch that ends the worker when
    the driver's process ends. Ctrl-C reaches the workers too: the driver ends the run, so they
    ignore it (no traceback from each)."""
    from api.inference import watch_parent

    global _reader
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    watch_parent()
    _reader = PhotoReader(job)


def _process(file: str) -> bool:
    assert _reader is not None, "the pool's initializer makes the reader"
    return _reader.process(file)


def run_embedded(job: BatchJob, files: list[str], workers: int, done: Callable[[bool], None]) -> None:
    """Read `files` in `workers` processes; `done(ok)` after each photo. A worker that dies (out
    of memory, a crash in a library) fails the photos it had been given, with an error record
    each, and a new pool reads the rest."""
    todo = list(reversed(files))
    while todo:
        # spawn: the workers start clean, not as copies of a driver that may hold threads
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                 initargs=(job,)) as pool:
            running: dict[Future, str] = {}
            read = 0
            try:
                while todo or running:
                    while todo and len(running) < workers * AHEAD:
                        file = todo.pop()
                        running[pool.submit(_process, file)] = file
                    finished, _ = wait(running, return_when=FIRST_COMPLETED)
                    for future in finished:
                        ok = future.result()  # BrokenProcessPool: the photo stays among the running
                        running.pop(future)
                        done(ok)
                        read += 1
            except BrokenProcessPool as exc:
                if not read:  # the workers do not start (the model cannot be loaded), or die at once
                    raise EngineError(f"the worker processes ended before reading a photo: {exc}") from exc
                for file in running.values():
                    write_lost(job.dst, Path(file))
                    done(False)
