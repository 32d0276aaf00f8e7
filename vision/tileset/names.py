"""A tile set's name: the rule the store, the commands and the API's schema share (no NumPy here:
the API's routes import it at start)."""
from __future__ import annotations

import re

# ASCII letters, digits, _ and -, up to 40, a letter or digit first: no dots or slashes, one spelling on
# every file system, and a regex every engine reads alike (the API's schema has it)
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$"
_NAME = re.compile(NAME_PATTERN)


def check_name(name: str) -> str:
    """`name` when it is a valid tile-set name; vision.tileset.profile.ProfileError otherwise."""
    from vision.tileset.profile import ProfileError

    if not _NAME.match(name):
        raise ProfileError(f"tile-set name {name!r}: use up to 40 letters, digits, '_' or '-' (ASCII), "
                           "starting with a letter or digit")
    return name
