"""The annotated photos of recent analyses, in the database: every worker (and every replica on
PostgreSQL) serves the same ids, and they survive a restart. A bounded, expiring cache: at most
`size` photos, each for `ttl_seconds`; a recorded hand keeps its own copy (hand_photos)."""
from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session

from .models import CachedImage, utc_now

PHOTO_PREFIX = "photo-"


class DatabaseImageStore:
    """put(jpeg) -> an unguessable id; get(id) -> the bytes, or None once evicted or expired. An analysed
    photo kept for a tile set's corrections (api/routes/tilesets.py) is stored the same way, its id
    starting with PHOTO_PREFIX (never served as an annotated image)."""

    def __init__(self, engine: Callable[[], Engine], size: int, ttl_seconds: int):
        self._engine = engine  # opened on first use (api/storage/store.py LazyGameStore)
        self.size = size
        self.ttl = timedelta(seconds=ttl_seconds)

    def put(self, jpeg: bytes, prefix: str = "") -> str:
        image_id = prefix + secrets.token_urlsafe(16)
        now = utc_now()
        with Session(self._engine()) as session, session.begin():
            session.add(CachedImage(id=image_id, jpeg=jpeg, created_at=now))
            session.execute(delete(CachedImage).where(CachedImage.created_at < now - self.ttl))
            newest = select(CachedImage.id).order_by(CachedImage.created_at.desc(), CachedImage.id).limit(self.size)
            session.flush()
            session.execute(delete(CachedImage).where(CachedImage.id.not_in(newest.scalar_subquery())))
        return image_id

    def get(self, image_id: str) -> bytes | None:
        with Session(self._engine()) as session:
            return session.execute(select(CachedImage.jpeg).where(
                CachedImage.id == image_id, CachedImage.created_at >= utc_now() - self.ttl)).scalar_one_or_none()

    def __len__(self) -> int:
        with Session(self._engine()) as session:
            return int(session.execute(select(func.count()).select_from(CachedImage)).scalar_one())
