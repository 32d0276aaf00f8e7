"""The games' storage under test on both databases: SQLite in a temporary data directory, and a
real PostgreSQL server started for the session (skipped, with the reason, when it cannot start)."""
from __future__ import annotations

import pytest
from pg_server import PostgresUnavailable, fresh_database, postgres_server

from api.storage.store import GameStore


@pytest.fixture(scope="session")
def postgres_url():
    """The URL of a PostgreSQL server this session started; a skip when it could not."""
    try:
        with postgres_server() as url:
            yield url
    except PostgresUnavailable as exc:
        pytest.skip(f"no PostgreSQL for the storage tests: {exc}")


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """(data_dir, url) of an empty games database: SQLite in tmp_path, or a new PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path, ""
    return tmp_path, fresh_database(request.getfixturevalue("postgres_url"))


@pytest.fixture
def store(database):
    store = GameStore.open(*database)
    yield store
    store.close()
