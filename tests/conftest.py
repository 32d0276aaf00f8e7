"""For every test: the service's default data directory in a folder of this run, not the user's
~/.local/share/fanshot (a test that sets FANSHOT_DATA_DIR still uses its own). Set when pytest
starts, before test modules are imported (some build their app then), and inherited by subprocesses."""
from __future__ import annotations

import os
import shutil
import tempfile

_BEFORE = "_FANSHOT_TESTS_XDG_DATA_HOME_BEFORE"


def pytest_configure(config) -> None:
    os.environ[_BEFORE] = os.environ.get("XDG_DATA_HOME", "")
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="fanshot-tests-data-")


def pytest_unconfigure(config) -> None:
    shutil.rmtree(os.environ["XDG_DATA_HOME"], ignore_errors=True)
    before = os.environ.pop(_BEFORE, "")
    if before:
        os.environ["XDG_DATA_HOME"] = before
    else:
        os.environ.pop("XDG_DATA_HOME", None)
