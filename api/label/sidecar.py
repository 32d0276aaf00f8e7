"""The sidecar of a labelled image (`.fanshot/sub/a.jpg.json`).

A sidecar holds `size` and `image_stamp` (the image's size as shown, cached), `label_sha` (the
hash of the label file it describes), `scores` (one per line, null for a person's box),
`reviewed`, `history` (undo steps `{"text", "scores", "reviewed"}`, bounded by HISTORY_LIMIT
and HISTORY_BYTES) and, after a change, `before`: the state that change replaced (`label_sha`,
`scores`, `reviewed`, and how to take its history back: drop the last `drop` steps, append
`restore`). A change writes the sidecar first, then the label file: when a kill comes between
the two, the label file's hash is the `before` one and `rolled_back` gives that state back.
"""
from __future__ import annotations

import hashlib
import json

from api.label.boxes import is_finite_number
from api.label.errors import LabelError

HISTORY_LIMIT = 200  # undo steps kept per image
HISTORY_BYTES = 4 * 1024 * 1024  # and at most this much of them (as JSON); the newest step is always kept


def label_sha(text: str | None) -> str | None:
    """The hash a sidecar keeps of the label text it describes (None: no label file)."""
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


UNSEEN = object()  # a change sent without the version it was made on: not checked


def check_seen(text: str | None, seen: object, rel: str) -> None:
    """A change made on version `seen` (the `version` a client read: the label file's hash, null for
    none) of label text `text`: 409 `stale_labels` when the file changed since (another page, or
    another replica's), so that no one overwrites an edit unseen."""
    if seen is UNSEEN:
        return
    if seen is not None and not isinstance(seen, str):
        raise LabelError("bad_version", "'version' must be the string a labels answer gave, or null", 422)
    if seen != label_sha(text):
        raise LabelError("stale_labels", f"{rel}: the labels were changed elsewhere (another page or server) "
                         "since this version was read; load them again", 409)


def compact(data: object) -> str:
    """Compact JSON; NaN and infinities are refused (ValueError), never written."""
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


def bounded_history(history: list[dict]) -> list[dict]:
    """The newest undo steps that fit HISTORY_LIMIT and HISTORY_BYTES (their JSON array); the
    newest step is kept whatever its size, so the last change can always be undone."""
    kept: list[dict] = []
    total = 2  # "[]"
    for entry in reversed(history[-HISTORY_LIMIT:]):
        size = len(compact(entry)) + (1 if kept else 0)
        if kept and total + size > HISTORY_BYTES:
            break
        kept.append(entry)
        total += size
    return kept[::-1]


def _clean_scores(scores: object, where: str, warnings: list[str]) -> list | None:
    """A sidecar's list of scores with anything but a finite number or null read as null (a NaN
    kept there would fail every JSON answer that shows it)."""
    if not isinstance(scores, list):
        return None
    clean = [score if score is None or is_finite_number(score) else None for score in scores]
    if any(score is not None and clean_score is None for score, clean_score in zip(scores, clean)):
        warnings.append(f"{where}: a score that is not a number (NaN, infinite or not numeric) is read as no score")
    return clean


def _clean_step(entry: object, where: str, warnings: list[str]) -> dict | None:
    """An undo step `{"text", "scores", "reviewed"}` of a sidecar, or None when it has no text."""
    if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
        warnings.append(f"{where}: an undo step without its label text is left out")
        return None
    return {"text": entry["text"], "scores": _clean_scores(entry.get("scores"), where, warnings),
            "reviewed": bool(entry.get("reviewed", True))}


def clean_sidecar(data: dict, where: str) -> tuple[dict, list[str]]:
    """The fields of a sidecar that are used, each of the expected type, and warnings for what
    had to be left out or read as no score."""
    warnings: list[str] = []
    sha = data.get("label_sha")
    history = data["history"] if isinstance(data.get("history"), list) else []
    clean: dict = {
        "size": data.get("size"),
        "image_stamp": data.get("image_stamp"),
        "label_sha": sha if isinstance(sha, str) else None,
        "scores": _clean_scores(data.get("scores"), where, warnings),
        "reviewed": bool(data.get("reviewed")),
        "history": [step for step in (_clean_step(e, where, warnings) for e in history) if step is not None],
    }
    before = data.get("before")
    if isinstance(before, dict):
        before_sha = before.get("label_sha")
        restore = before["restore"] if isinstance(before.get("restore"), list) else []
        drop = before.get("drop")
        clean["before"] = {
            "label_sha": before_sha if isinstance(before_sha, str) else None,
            "scores": _clean_scores(before.get("scores"), where, warnings),
            "reviewed": bool(before.get("reviewed")),
            "drop": drop if isinstance(drop, int) and not isinstance(drop, bool) and drop > 0 else 0,
            "restore": [step for step in (_clean_step(e, where, warnings) for e in restore) if step is not None],
        }
    return clean, list(dict.fromkeys(warnings))  # each warning once


def rolled_back(sidecar: dict) -> dict:
    """The sidecar of the state its `before` record describes: a change whose label file was
    never written (the server was killed between the sidecar and the label write)."""
    before = sidecar["before"]
    history = sidecar["history"]
    history = history[: max(0, len(history) - before["drop"])] + before["restore"]
    rolled = {**sidecar, "label_sha": before["label_sha"], "scores": before["scores"],
              "reviewed": before["reviewed"], "history": history}
    del rolled["before"]
    return rolled


def shown(sidecar: dict, text: str | None) -> tuple[list | None, bool]:
    """(scores, reviewed) of label text `text` as the tool shows them: the sidecar's when it
    describes `text`; else none, and reviewed when there is a file (changed outside the tool)."""
    scores = sidecar["scores"] if sidecar["label_sha"] == label_sha(text) else None
    reviewed = sidecar["reviewed"] if scores is not None else text is not None
    return scores, reviewed
