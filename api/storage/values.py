"""Small named JSON values the service keeps for later requests on any replica (what Label Studio
sent to /labelstudio/setup): one row each, replaced whole."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from .models import ServiceValue, utc_now


class DatabaseValues:
    """get(name) -> the value last put, or None; put(name, value) replaces it."""

    def __init__(self, engine: Callable[[], Engine]):
        self._engine = engine  # opened on first use (api/storage/store.py LazyGameStore)

    def get(self, name: str) -> dict[str, Any] | None:
        with Session(self._engine()) as session:
            value = session.execute(select(ServiceValue.value).where(ServiceValue.name == name)).scalar_one_or_none()
        return dict(value) if isinstance(value, dict) else None

    def put(self, name: str, value: dict[str, Any]) -> None:
        with Session(self._engine()) as session, session.begin():
            session.merge(ServiceValue(name=name, value=value, updated_at=utc_now()))
