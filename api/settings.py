"""Service settings, read from the environment in one place.

Every setting has a FANSHOT_* environment variable; `Settings.from_env()` reads
them all, and `create_app(settings)` takes an explicit value in tests.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

MIB = 1024 * 1024
_BOOLEANS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def available_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def default_workers() -> int:
    """One analysis per core (worker processes: the load test on 2 cores, 8 clients, gave p50
    254 ms with 2 processes, 267 ms with 3; docs/photo-resolution.md)."""
    return available_cores()


@dataclass(frozen=True)
class Settings:
    max_upload_bytes: int = 20 * MIB     # an uploaded image larger than this: 413
    max_pixels: int = 50_000_000         # a decoded image with more pixels: 413
    annotated_max_side: int = 1280       # the annotated photo sent back is at most this long
    inference_workers: int = field(default_factory=default_workers)  # analyses / detections at once
    inference_processes: bool = True     # the workers are processes (False: threads of the server's process)
    inference_queue: int = 16            # requests allowed to wait for a worker; more: 503
    image_store_size: int = 64           # annotated images kept for /api/v1/images/{id}.jpg
    model_dir: Path | None = None        # None: the shipped model in models/
    token: str = field(default="", repr=False)  # non-empty: requests must show it (api/access.py)

    ENV_PREFIX = "FANSHOT_"

    def __post_init__(self) -> None:
        for name in ("max_upload_bytes", "max_pixels", "annotated_max_side",
                     "inference_workers", "image_store_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.inference_queue < 0:
            raise ValueError("inference_queue must be 0 or more")
        if any(c.isspace() or not c.isprintable() for c in self.token):
            raise ValueError("FANSHOT_TOKEN must not contain spaces or control characters")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "Settings":
        """Settings from FANSHOT_MAX_UPLOAD_BYTES, FANSHOT_MAX_PIXELS, ... (defaults otherwise)."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for field in fields(cls):
            raw = env.get(cls.ENV_PREFIX + field.name.upper())
            if raw is None or raw == "":
                continue
            if field.name == "model_dir":
                values[field.name] = Path(raw)
            elif field.type == "str":
                values[field.name] = raw
            elif field.type == "bool":
                if raw.lower() not in _BOOLEANS:
                    raise ValueError(f"{cls.ENV_PREFIX}{field.name.upper()} must be 1 or 0, got {raw!r}")
                values[field.name] = _BOOLEANS[raw.lower()]
            else:
                try:
                    values[field.name] = int(raw)
                except ValueError:
                    raise ValueError(f"{cls.ENV_PREFIX}{field.name.upper()} must be an integer, got {raw!r}") from None
        return cls(**values)


def settings_for_command(prog: str, model_dir: str | None = None) -> Settings:
    """The settings of a `fanshot` command: the environment, with --model-dir over it.

    A bad setting ends the command with its message and exit status 2."""
    import dataclasses
    import sys

    try:
        settings = Settings.from_env()
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if model_dir:
        settings = dataclasses.replace(settings, model_dir=Path(model_dir))
    return settings
