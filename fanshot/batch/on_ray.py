"""The Ray engine (`--ray`): the same job on Ray Data. The photos' paths are a dataset; an actor
pool of PhotoReaders (the model loaded once per actor) reads them, each actor writing the records
of the photos it reads, so only small status rows come back to the driver."""
from __future__ import annotations

import logging
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from fanshot.batch.job import BatchJob, EngineError
from fanshot.batch.reader import PhotoReader
from fanshot.batch.records import read_record, write_lost

LOCAL = "local"  # `--ray` without an address: a Ray instance of this machine, started for the run
# blocks the photos are cut into per actor: small enough that the actors end close together and
# the progress moves often, large enough that Ray's cost per block stays small
BLOCKS_PER_ACTOR = 64


class _RecordWriter:
    """The actor pool's callable class: one PhotoReader per actor."""

    def __init__(self, job: BatchJob):
        self.reader = PhotoReader(job)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list]:
        files = [str(file) for file in batch["file"]]
        return {"file": files, "ok": [self.reader.process(file) for file in files]}


def require_ray(address: str) -> None:
    """EngineError unless Ray can be imported. Ray reads its settings from the environment when
    it is imported: no usage statistics, and the token of a cluster at `address` sent."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address != LOCAL:
        _token_auth_as_auto_does()
    try:
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise EngineError("--ray needs Ray: pip install 'fanshot[ray]'") from exc


def start_ray(address: str, cpus: int) -> None:
    """Connect to the Ray cluster at `address`, or with LOCAL start one on this machine with
    `cpus` CPUs: no dashboard, no usage report, quiet logs."""
    require_ray(address)
    import ray
    import ray.data

    # Ray Data's notes go to its log file (ray-data.log in the session's logs), not the terminal
    for handler in logging.getLogger("ray.data").handlers:
        if handler.get_name() == "console":
            handler.setLevel(logging.ERROR)
    options: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.ERROR,
                               "log_to_driver": False}
    try:
        if address == LOCAL:
            ray.init(address="local", num_cpus=cpus, **options)  # a new instance, never one found running
        else:
            ray.init(address=address, **options)
    except Exception as exc:  # no cluster at the address, a version mismatch, ...
        raise EngineError(f"cannot start or reach Ray at {address}: {exc}") from exc
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the driver's own bar counts the photos
    context.print_on_execution_start = False
    context.enable_auto_log_stats = False


def _token_auth_as_auto_does() -> None:
    """Ray 2.60 clusters check a token (`ray start` makes ~/.ray/auth_token). `ray.init` sends it
    to an `auto` address when it finds one, but to a HOST:PORT only with RAY_AUTH_MODE=token: the
    same here, unless RAY_AUTH_MODE says otherwise."""
    token_file = Path(os.environ.get("RAY_AUTH_TOKEN_PATH") or Path.home() / ".ray" / "auth_token")
    if "RAY_AUTH_MODE" not in os.environ and (os.environ.get("RAY_AUTH_TOKEN") or token_file.is_file()):
        os.environ["RAY_AUTH_MODE"] = "token"


def run_on_ray(job: BatchJob, files: list[str], workers: int, done: Callable[[bool], None]) -> None:
    """Read `files` on the Ray cluster `start_ray` joined with `workers` actors of `job.threads`
    CPUs each; `done(ok)` after each photo."""
    import ray

    if not files:
        return
    blocks = max(1, min(len(files), workers * BLOCKS_PER_ACTOR))
    photos = ray.data.from_items([{"file": file} for file in files], override_num_blocks=blocks)
    # an actor that dies (killed for its memory, a crash in a library) is restarted and its block
    # of photos tried once more (Ray's default: without end); a block that fails again is left
    # out, not the whole run. Ray 2.60 takes max_task_retries only among the remote arguments it
    # says it will drop in 2.64 (the pin in pyproject.toml), with a warning.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="`ray_remote_args` is deprecated")
        statuses = photos.map_batches(_RecordWriter, batch_size=1, fn_constructor_kwargs={"job": job},
                                      compute=ray.data.ActorPoolStrategy(size=workers), num_cpus=job.threads,
                                      max_task_retries=1)
    ray.data.DataContext.get_current().max_errored_blocks = -1
    waiting = set(files)
    try:
        for row in statuses.iter_rows():
            waiting.discard(row["file"])
            done(bool(row["ok"]))
    except Exception as exc:  # an actor that cannot start (no model on a node), a lost cluster
        raise EngineError(f"the Ray job failed: {exc}") from exc
    for file in sorted(waiting):  # in a block left out: read before its actor died, or failed as
        record = read_record(job.dst, Path(file))  # the embedded engine fails them
        if record is None:
            write_lost(job.dst, Path(file))
        done(record is not None and record.get("ok") is True)


def stop_ray() -> None:
    import ray

    ray.shutdown()


@contextmanager
def output_to(log: Path) -> Iterator[IO[str]]:
    """The process's stdout and stderr (file descriptors 1 and 2) sent to `log` for the while, and
    a stream to the terminal stderr was: Ray writes notes about its own internals there (a
    restarted actor's on stdout), which no setting of Ray's quiets without a note of its own."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    terminal = os.fdopen(os.dup(saved[1]), "w", encoding=sys.stderr.encoding or "utf-8", errors="replace")
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as file:
        os.dup2(file.fileno(), 1)
        os.dup2(file.fileno(), 2)
    try:
        yield terminal
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, kept in zip((1, 2), saved):
            os.dup2(kept, fd)
            os.close(kept)
        terminal.close()
