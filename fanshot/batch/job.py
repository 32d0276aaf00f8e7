"""What a batch does to each photo, as plain data the engines send to their workers, and the
job file that keeps a re-run into the same DST from mixing two kinds of records."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

KINDS = ("detect", "analyze", "prelabel")
# the formats each kind writes, its default first
FORMATS = {"detect": ("jsonl", "yolo", "coco", "labelstudio"),
           "prelabel": ("yolo", "coco", "labelstudio", "jsonl"),
           "analyze": ("jsonl",)}
STATE_DIR = ".batch"


class JobError(ValueError):
    """DST holds another job's records."""


class EngineError(RuntimeError):
    """The engine cannot read photos at all (its workers do not start, the cluster cannot be reached)."""


@dataclass(frozen=True)
class BatchJob:
    """One photo's work: `kind` (detect and prelabel: vision.detector.detect_photo; analyze:
    vision.analyze.analyze_photo with `rules` and `context`), the model in `model_dir` (None: the
    shipped one) on `threads` threads, photos over `max_bytes` or `max_pixels` refused; with
    `tileset`, read as that tile set draws its tiles, from its profile file's bytes `profile`
    (vision.tileset: sent to the workers, which need not share the data directory)."""

    kind: str
    dst: str
    model_dir: str | None = None
    rules: str = "mcr"
    context: dict = field(default_factory=dict)
    one_set: bool = False
    threads: int = 1
    max_bytes: int = 20 * 1024 * 1024
    max_pixels: int = 50_000_000
    tileset: str | None = None
    profile: bytes = b""

    def identity(self) -> dict:
        """What the records depend on: a re-run with another identity would mix results. detect
        and prelabel read photos alike: their records are one kind (`reader`). A tile set counts
        by its name and what its profile held (a digest)."""
        same = asdict(self)
        for key in ("dst", "threads", "kind", "profile"):
            del same[key]
        if self.tileset is not None:
            same["tileset"] = f"{self.tileset} {hashlib.sha256(self.profile).hexdigest()[:16]}"
        else:
            del same["tileset"]  # the job files of runs without a set stay as they were
        return {"reader": "analyze" if self.kind == "analyze" else "detect", **same}


def state_dir(dst: str | Path) -> Path:
    return Path(dst) / STATE_DIR


def claim(job: BatchJob, model_version: str) -> None:
    """Record `job` in DST/.batch/job.json, or check that the job already there is the same;
    JobError naming the difference when it is not (its records would not match)."""
    from vision.atomic_file import write_atomically

    path = state_dir(job.dst) / "job.json"
    wanted = {**job.identity(), "model": model_version}
    if path.is_file():
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise JobError(f"{path} cannot be read ({exc}): remove {state_dir(job.dst)} to start over") from exc
        differs = sorted(key for key in set(found) | set(wanted) if found.get(key) != wanted.get(key))
        if differs:
            what = "; ".join(f"{key} {found.get(key)!r} there, {wanted.get(key)!r} now" for key in differs)
            raise JobError(f"{job.dst} holds the records of another job ({what}): give another --out, "
                           f"or remove {state_dir(job.dst)} to start over")
        return
    write_atomically(path, json.dumps(wanted, sort_keys=True, ensure_ascii=False) + "\n")
