"""Where tile-set profiles live: `DATA_DIR/tilesets/NAME.tileset` (the data directory is the
caller's: api.settings.data_dir_of). Writes are atomic (a whole file or the old one, across a
kill -9); a file that is not a whole profile is refused (vision.tileset.profile)."""
from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vision.atomic_file import write_atomically
from vision.tileset.names import NAME_PATTERN, check_name
from vision.tileset.profile import ProfileError, TilesetProfile, profile_from_bytes, profile_to_bytes

__all__ = ["NAME_PATTERN", "check_name", "NoSuchTileset", "ProfileStore"]

SUFFIX = ".tileset"


class NoSuchTileset(ProfileError):
    """No profile of that name in the store (`known`: the names there are)."""

    code = "tileset_not_found"

    def __init__(self, message: str, known: list[str]):
        super().__init__(message)
        self.known = known


class ProfileStore:
    """The profiles under `data_dir/tilesets/`."""

    def __init__(self, data_dir: str | Path):
        self.dir = Path(data_dir) / "tilesets"

    def path(self, name: str) -> Path:
        return self.dir / f"{check_name(name)}{SUFFIX}"

    def names(self) -> list[str]:
        return sorted(p.name[: -len(SUFFIX)] for p in self.dir.glob(f"*{SUFFIX}")) if self.dir.is_dir() else []

    def load(self, name: str) -> TilesetProfile:
        """The profile `name`; ProfileError when there is none or its file is not a whole profile."""
        path = self.path(name)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            names = self.names()
            raise NoSuchTileset(f"no tile set named {name!r} in {self.dir} (known: {', '.join(names) or 'none yet'}); "
                                f"learn it with `fanshot tileset learn {name} --layout PHOTO`", names) from None
        profile = profile_from_bytes(data, str(path))
        if profile.name != name:
            raise ProfileError(f"{path} holds the tile set {profile.name!r}, not {name!r}: it was renamed by hand")
        return profile

    def save(self, profile: TilesetProfile) -> Path:
        """Writes `profile` atomically (a temporary file synced, then renamed over the old)."""
        path = self.path(profile.name)
        self.dir.mkdir(parents=True, exist_ok=True)
        write_atomically(path, profile_to_bytes(profile))
        return path

    @contextmanager
    def locked(self, name: str) -> Iterator[None]:
        """The set `name` held against other writers (processes too) for a load-change-save: an exclusive
        lock on its lock file, released when the block ends (or its process does)."""
        lock = self.dir / f".{check_name(name)}.lock"
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(lock, "a+b") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def add(self, profile: TilesetProfile) -> TilesetProfile:
        """`profile`'s examples added to the set of its name (the set is made when there is none), under
        the set's lock: two adds at once both count. Returns the set as saved."""
        with self.locked(profile.name):
            if self.path(profile.name).exists():
                profile = self.load(profile.name).merged(profile)
            self.save(profile)
        return profile

    def replace(self, profile: TilesetProfile) -> TilesetProfile:
        """`profile` saved in place of the set of its name, under the set's lock (not between an add's
        load and save)."""
        with self.locked(profile.name):
            self.save(profile)
        return profile

    def forget(self, name: str) -> bool:
        """Removes the profile `name`; False when there was none."""
        with self.locked(name):
            try:
                self.path(name).unlink()
            except FileNotFoundError:
                return False
        return True
