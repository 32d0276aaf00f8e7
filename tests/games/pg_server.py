"""A real PostgreSQL server for the tests and the record benchmark: initdb and pg_ctl from
Debian's postgresql package (scripts/system-deps.sh), run as an unprivileged user (PostgreSQL
refuses root: as root, the user `nobody` in a folder it owns), on a free loopback port."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager


class PostgresUnavailable(Exception):
    """Why no server could be started (the tests skip with this)."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)),
                                       None)
    if not found:
        raise PostgresUnavailable(f"{name} not found: install Debian's postgresql (scripts/system-deps.sh)")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def postgres_server() -> Iterator[str]:
    """A running server; yields the URL of its `postgres` database (user fanshot, trust auth)."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    user: str | None = None
    ids: dict = {}
    if os.geteuid() == 0:
        try:
            user = "nobody"
            entry = pwd.getpwnam(user)
        except KeyError:
            raise PostgresUnavailable("running as root and there is no user `nobody` to run PostgreSQL as") from None
    folder = tempfile.mkdtemp(prefix="fanshot-pg-")
    data = os.path.join(folder, "data")
    if user:
        os.chown(folder, entry.pw_uid, entry.pw_gid)
        ids = {"user": user, "group": entry.pw_gid, "extra_groups": []}  # none of root's groups
    port = _free_port()

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(args, **ids, capture_output=True, text=True, timeout=120, cwd=folder)

    try:
        done = run(initdb, "-D", data, "-U", "fanshot", "--auth=trust", "-E", "UTF8", "--no-sync")
        if done.returncode:
            raise PostgresUnavailable(f"initdb failed: {done.stderr.strip()[-400:]}")
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=on"
        done = run(pg_ctl, "-D", data, "-o", options, "-l", os.path.join(folder, "log"), "-w", "-t", "60", "start")
        if done.returncode:
            log = open(os.path.join(folder, "log")).read()[-600:] if os.path.exists(os.path.join(folder, "log")) else ""
            raise PostgresUnavailable(f"pg_ctl start failed: {done.stderr.strip()[-300:]} {log}")
        try:
            yield f"postgresql+psycopg://fanshot@127.0.0.1:{port}/postgres"
        finally:
            run(pg_ctl, "-D", data, "-m", "immediate", "-w", "stop")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fresh_database(server_url: str) -> str:
    """A new empty database on the server; its URL."""
    import sqlalchemy

    name = "t_" + uuid.uuid4().hex[:12]
    engine = sqlalchemy.create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    engine.dispose()
    return server_url.rsplit("/", 1)[0] + "/" + name
