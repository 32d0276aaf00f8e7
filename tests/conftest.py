"""Fixtures for every test: the service's default data directory in a folder of this run, not the
user's ~/.local/share/fanshot (a test that sets FANSHOT_DATA_DIR still uses its own)."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def data_home(tmp_path_factory):
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("xdg-data"))  # subprocesses inherit it
    yield
    if before is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = before
