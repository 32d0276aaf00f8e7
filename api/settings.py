"""Service settings, read from the environment in one place.

Every setting has a FANSHOT_* environment variable; `Settings.from_env()` reads
them all, and `create_app(settings)` takes an explicit value in tests. The labelling
tool's folder and Label Studio's connection are read here too, on each use
(`label_dir_from_env`, `LabelStudioSettings.from_env`).
"""
from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

MIB = 1024 * 1024
_BOOLEANS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def available_cores() -> int:
    """The CPU cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def default_workers() -> int:
    """One analysis per core, in worker processes (docs/photo-resolution.md)."""
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
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from FANSHOT_MAX_UPLOAD_BYTES, FANSHOT_MAX_PIXELS, ... (defaults otherwise)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for setting in fields(cls):
            raw = env.get(cls.ENV_PREFIX + setting.name.upper())
            if raw is None or raw == "":
                continue
            if setting.name == "model_dir":
                values[setting.name] = Path(raw)
            elif setting.type == "str":
                values[setting.name] = raw
            elif setting.type == "bool":
                if raw.lower() not in _BOOLEANS:
                    raise ValueError(f"{cls.ENV_PREFIX}{setting.name.upper()} must be 1 or 0, got {raw!r}")
                values[setting.name] = _BOOLEANS[raw.lower()]
            else:
                try:
                    values[setting.name] = int(raw)
                except ValueError:
                    raise ValueError(f"{cls.ENV_PREFIX}{setting.name.upper()} must be an integer, "
                                     f"got {raw!r}") from None
        return cls(**values)


def settings_for_command(prog: str, model_dir: str | None = None) -> Settings:
    """The settings of a `fanshot` command: the environment, with --model-dir over it.

    A bad setting ends the command with its message and exit status 2."""
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    if model_dir:
        settings = dataclasses.replace(settings, model_dir=Path(model_dir))
    return settings


LABEL_DIR_ENV = "FANSHOT_LABEL_DIR"
IMAGE_HOSTS_ENV = "FANSHOT_IMAGE_HOSTS"


def label_dir_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The labelling folder of a server not started by `fanshot label DIR` (FANSHOT_LABEL_DIR)."""
    env = os.environ if environ is None else environ
    return env.get(LABEL_DIR_ENV) or None


@dataclass(frozen=True)
class LabelStudioSettings:
    """Where Label Studio is and the hosts its task images may come from, read on each request.

    `url` and `api_key` are LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY (the names Label Studio's own
    ML backends read); `image_hosts` is FANSHOT_IMAGE_HOSTS, comma-separated `host` or
    `host:port` in lower case, `*` for any host."""
    url: str = ""
    api_key: str = ""
    image_hosts: frozenset[str] = frozenset()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LabelStudioSettings:
        env = os.environ if environ is None else environ
        hosts = frozenset(h.strip().lower() for h in env.get(IMAGE_HOSTS_ENV, "").split(",") if h.strip())
        return cls(url=env.get("LABEL_STUDIO_URL", ""), api_key=env.get("LABEL_STUDIO_API_KEY", ""),
                   image_hosts=hosts)


DATA_DIR_ENV = "FANSHOT_DATA_DIR"


def data_dir_from_env(environ: Mapping[str, str] | None = None) -> Path:
    """Where fanshot keeps what it learns (tile-set profiles): FANSHOT_DATA_DIR, else
    $XDG_DATA_HOME/fanshot, else ~/.local/share/fanshot."""
    env = os.environ if environ is None else environ
    if env.get(DATA_DIR_ENV):
        return Path(env[DATA_DIR_ENV])
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base) / "fanshot"
