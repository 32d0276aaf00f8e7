"""A batch from start to end: list the photos, claim DST for the job, read the photos not done
yet on the engine asked for, with a progress bar, and assemble the outputs."""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from fanshot.batch.job import BatchJob, EngineError, claim, state_dir
from fanshot.batch.outputs import Outputs, assemble
from fanshot.batch.photos import SourceError, list_photos
from fanshot.batch.records import is_done


@dataclass(frozen=True)
class Engine:
    """Where the photos are read: `ray` None (this machine's processes) or a Ray address
    (on_ray.LOCAL: a Ray instance started for the run), with `workers` at once."""

    workers: int
    ray: str | None = None


@dataclass
class BatchReport:
    photos: int      # photos listed
    skipped: int     # done by an earlier run
    attempted: int   # read by this run
    seconds: float   # reading them took
    outputs: Outputs


def run_batch(job: BatchJob, src: str | Path, fmt: str, engine: Engine, *, model_version: str,
              document_root: Path | None = None, quiet: bool = False) -> BatchReport:
    """Run `job` on the photos of `src` and write its outputs in `fmt`; raises photos.SourceError,
    job.JobError, job.EngineError, OSError (DST cannot be written)."""
    dst = Path(job.dst)
    root, photos = list_photos(src, skip=dst)
    if document_root is not None and document_root != root and document_root not in root.parents:
        raise SourceError(f"--document-root {document_root} must be a folder above the photos' folder {root} "
                          "(Label Studio serves local files only from below its document root)")
    claim(job, model_version)
    todo = [str(photo) for photo in photos if not is_done(dst, photo)]
    seconds = _read(job, todo, engine, quiet) if todo else 0.0
    outputs = assemble(dst, root, photos, fmt, model_version=model_version, document_root=document_root)
    return BatchReport(len(photos), len(photos) - len(todo), len(todo), seconds, outputs)


def _read(job: BatchJob, todo: list[str], engine: Engine, quiet: bool) -> float:
    """Read `todo` on `engine`; the seconds the reading took (the engine's start included)."""
    started = time.perf_counter()
    if engine.ray is None:
        from fanshot.batch.embedded import run_embedded

        with _progress(job, len(todo), sys.stderr, quiet) as done:
            run_embedded(job, todo, engine.workers, done)
        return time.perf_counter() - started
    from fanshot.batch.on_ray import output_to, require_ray, run_on_ray, start_ray, stop_ray

    require_ray(engine.ray)
    log = state_dir(job.dst) / "ray.log"
    try:
        with output_to(log) as terminal:
            start_ray(engine.ray, engine.workers * job.threads)
            try:
                with _progress(job, len(todo), terminal, quiet) as done:
                    run_on_ray(job, todo, engine.workers, done)
            finally:
                stop_ray()
    except EngineError as exc:
        raise EngineError(f"{exc} (Ray's messages: {log})") from exc
    return time.perf_counter() - started


@contextmanager
def _progress(job: BatchJob, total: int, terminal: IO[str], quiet: bool) -> Iterator[Callable[[bool], None]]:
    """A progress bar on `terminal` (rate and time left; none with `quiet` or off a terminal), and
    the call that moves it on by one photo, read or failed."""
    from tqdm import tqdm

    bar = tqdm(total=total, unit="photo", desc=f"batch {job.kind}", file=terminal,
               disable=quiet or not terminal.isatty(), dynamic_ncols=True)
    failed = 0

    def done(ok: bool) -> None:
        nonlocal failed
        failed += not ok
        if failed:
            bar.set_postfix(failed=failed, refresh=False)
        bar.update(1)

    try:
        yield done
    finally:
        bar.close()
