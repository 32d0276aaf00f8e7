"""Where tile-set profiles live: `DATA_DIR/tilesets/NAME.tileset` (the data directory is the
caller's: api.settings.data_dir_of). Writes are atomic (a whole file or the old one, across a
kill -9); a file that is not a whole profile is refused (vision.tileset.profile)."""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from vision.tileset.profile import ProfileError, TilesetProfile, profile_from_bytes, profile_to_bytes

SUFFIX = ".tileset"
_NAME = re.compile(r"^[^\W][\w-]{0,39}$")  # letters, digits, _ and -, up to 40; no dots or slashes


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise ProfileError(f"tile-set name {name!r}: use up to 40 letters, digits, '_' or '-', starting with "
                           "a letter or digit")
    return name


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
            known = ", ".join(self.names()) or "none yet"
            raise ProfileError(f"no tile set named {name!r} in {self.dir} (known: {known}); "
                               f"learn it with `fanshot tileset learn {name} --layout PHOTO`") from None
        profile = profile_from_bytes(data, str(path))
        if profile.name != name:
            raise ProfileError(f"{path} holds the tile set {profile.name!r}, not {name!r}: it was renamed by hand")
        return profile

    def save(self, profile: TilesetProfile) -> Path:
        """Writes `profile` atomically (a temporary file synced, then renamed over the old)."""
        path = self.path(profile.name)
        self.dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{profile.name}.", suffix=".tmp", dir=self.dir)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(profile_to_bytes(profile))
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        dir_fd = os.open(self.dir, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
        return path

    def forget(self, name: str) -> bool:
        """Removes the profile `name`; False when there was none."""
        try:
            self.path(name).unlink()
        except FileNotFoundError:
            return False
        return True
