"""The photos of a batch: every image below a folder, or the paths of a list file."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

from datasets.formats import IMAGE_SUFFIXES

# what the readers read (vision.decode): the dataset formats' suffixes and HEIC
PHOTO_SUFFIXES = tuple(IMAGE_SUFFIXES) + (".heic", ".heif")


class SourceError(ValueError):
    """SRC is neither a folder nor a readable list of paths."""


def list_photos(src: str | Path, skip: str | Path | None = None) -> tuple[Path, list[Path]]:
    """(root, photos): the photos' absolute paths, sorted, and the folder their names in the
    outputs are relative to. A folder: its images and its subfolders' (hidden names skipped), the
    folder itself the root. A file: one path a line (blank lines and lines starting # skipped;
    a relative path is relative to the list's folder), any suffix; the root is the folder that
    holds them all. `skip`: a folder below SRC not to look in (the batch's own output)."""
    src = Path(src)
    if src.is_dir():
        root = src.resolve()
        skipped = Path(skip).resolve() if skip is not None else None
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and Path(dirpath) / d != skipped]
            found += [Path(dirpath) / name for name in filenames
                      if not name.startswith(".") and Path(name).suffix.lower() in PHOTO_SUFFIXES]
        return root, sorted(found)
    if not src.is_file():
        raise SourceError(f"{src}: no such folder or list file")
    try:
        lines = src.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{src}: cannot read the list of photos: {exc}") from exc
    base = src.resolve().parent
    photos = sorted({Path(os.path.abspath(base / line.strip())) for line in lines
                     if line.strip() and not line.strip().startswith("#")})
    if not photos:
        return base, []
    return Path(os.path.commonpath([p.parent for p in photos])), photos


def photo_id(path: Path) -> str:
    """The stable name of a photo's record: a digest of its absolute path."""
    return hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def photo_name(path: Path, root: Path) -> str:
    """The photo's name in the outputs: its path below `root`, with forward slashes."""
    return path.relative_to(root).as_posix()
