"""The database of the games: its URL, the engine (SQLite tuned for safe concurrent use) and
the migrations, applied when the store opens."""
from __future__ import annotations

import fcntl
from pathlib import Path

from sqlalchemy import Engine, create_engine, event

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
SQLITE_FILE = "fanshot.db"


def database_url(data_dir: Path, url: str = "") -> str:
    """`url` when given (FANSHOT_DATABASE_URL), else SQLite in the data directory (created)."""
    if url:
        if url.startswith(("postgresql://", "postgres://")):  # the psycopg 3 driver, not psycopg2
            url = "postgresql+psycopg://" + url.split("://", 1)[1]
        return url
    data_dir.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{data_dir / SQLITE_FILE}"


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")     # readers never wait for the writer
    cursor.execute("PRAGMA synchronous=FULL")     # a committed hand is on disk before the answer
    cursor.execute("PRAGMA busy_timeout=15000")   # a second writer waits for the first, not fails
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 15})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the tables up to the newest migration (several processes at once: one at a time)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    lock_path = _sqlite_lock_path(engine)
    lock = open(lock_path, "a") if lock_path else None  # noqa: SIM115 - held for the migration
    try:
        if lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        if lock:
            lock.close()


def _sqlite_lock_path(engine: Engine) -> str | None:
    database = engine.url.database
    if engine.url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    return database + ".migrate-lock"
