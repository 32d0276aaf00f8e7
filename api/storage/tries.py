"""Wrong access tokens per client address (api/access.py's limit), counted in the database so that
every replica of the service counts one address's guesses together, and a restart forgets none.

A row is an address's window: when it started (seconds since the epoch, this machine's clock:
replicas on several machines keep their clocks in step, as NTP does) and the wrong tokens in it.
Each wrong token is one atomic upsert; windows that have ended are deleted then, and at most
`max_addresses` rows are kept (the longest remembered go first)."""
from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from sqlalchemy import Engine, case, delete, func, select
from sqlalchemy.dialects import postgresql, sqlite

from .models import WrongTokenTries

MAX_KEY = 64  # characters of an address kept as it is; a longer one is kept as its hash


def _key(address: str) -> str:
    return address if len(address) <= MAX_KEY else hashlib.sha256(address.encode()).hexdigest()


class DatabaseTries:
    """wait(address) -> seconds before its tokens are looked at again; add(address) counts a wrong one."""

    def __init__(self, engine: Callable[[], Engine], limit: int, window: float, max_addresses: int,
                 clock: Callable[[], float] = time.time):
        self._engine = engine  # opened on first use (api/storage/store.py LazyGameStore)
        self.limit, self.window, self.max_addresses, self.clock = limit, window, max_addresses, clock

    def wait(self, address: str) -> float:
        with self._engine().connect() as connection:
            row = connection.execute(select(WrongTokenTries.window_start, WrongTokenTries.count)
                                     .where(WrongTokenTries.address == _key(address))).first()
        if row is None:
            return 0.0
        start, count = row
        left = start + self.window - self.clock()
        return left if count >= self.limit and left > 0 else 0.0

    def add(self, address: str) -> None:
        now, key = self.clock(), _key(address)
        engine = self._engine()
        table = WrongTokenTries.__table__
        ended = WrongTokenTries.window_start <= now - self.window
        dialect = {"sqlite": sqlite, "postgresql": postgresql}.get(engine.dialect.name)
        if dialect is None:
            raise ValueError(f"the wrong-token count needs SQLite or PostgreSQL, not {engine.dialect.name}")
        upsert = dialect.insert(table).values(address=key, window_start=now, count=1)
        # both right-hand sides read the row as it was: a window that has ended starts again at 1
        upsert = upsert.on_conflict_do_update(index_elements=[table.c.address], set_={
            "count": case((ended, 1), else_=WrongTokenTries.count + 1),
            "window_start": case((ended, now), else_=WrongTokenTries.window_start),
        })
        with engine.begin() as connection:
            connection.execute(delete(WrongTokenTries).where(ended, WrongTokenTries.address != key))
            connection.execute(upsert)
            rows = connection.execute(select(func.count()).select_from(WrongTokenTries)).scalar_one()
            if rows > self.max_addresses:
                newest = (select(WrongTokenTries.address).where(WrongTokenTries.address != key)
                          .order_by(WrongTokenTries.window_start.desc(), WrongTokenTries.address)
                          .limit(self.max_addresses - 1))
                connection.execute(delete(WrongTokenTries).where(
                    WrongTokenTries.address != key, WrongTokenTries.address.not_in(newest.scalar_subquery())))
