"""Each photo's record: DST/.batch/records/<photo id>.json, written whole or not at all.

    {"file": "/abs/path.jpg", "ok": true, "result": {...}}           the reader's answer
    {"file": "/abs/path.jpg", "ok": false, "error": {"code", "message"}}

A photo with an ok record is done; one with an error record, or none, or one that cannot be
read, is read (again) by the next run.
"""
from __future__ import annotations

import json
from pathlib import Path

from fanshot.batch.job import state_dir
from fanshot.batch.photos import photo_id
from vision.atomic_file import write_atomically


def records_dir(dst: str | Path) -> Path:
    return state_dir(dst) / "records"


def record_path(dst: str | Path, photo: Path) -> Path:
    return records_dir(dst) / f"{photo_id(photo)}.json"


def write_record(dst: str | Path, photo: Path, record: dict) -> None:
    write_atomically(record_path(dst, photo), json.dumps(record, ensure_ascii=False) + "\n")


def read_record(dst: str | Path, photo: Path) -> dict | None:
    """The photo's record, or None when it has none that can be read (or one of another file)."""
    try:
        record = json.loads(record_path(dst, photo).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("file") != str(photo):
        return None
    return record


def is_done(dst: str | Path, photo: Path) -> bool:
    record = read_record(dst, photo)
    return record is not None and record.get("ok") is True


def write_lost(dst: str | Path, photo: Path) -> None:
    """The error record of a photo whose worker ended while it was being read (killed for its
    memory, a crash in a library): the next run reads it again."""
    write_record(dst, photo, {"file": str(photo), "ok": False, "error": {
        "code": "worker_lost",
        "message": "the worker process ended while this photo or another was being read; "
                   "run the batch again to retry it"}})
