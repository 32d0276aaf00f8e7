"""The tables of the games package (SQLAlchemy 2 declarative); migrations/ creates them."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    pass


class Game(Base):
    """One table's game. `version` grows by one with every change to the game or its hands: a
    client records against the version it saw (optimistic concurrency)."""
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True, index=True)
    rules: Mapped[str] = mapped_column(String(40))
    first_dealer: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer, default=0)
    ended: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
    players: Mapped[list[Player]] = relationship(order_by="Player.seat", cascade="all, delete-orphan",
                                                 lazy="selectin")
    hands: Mapped[list[Hand]] = relationship(order_by="Hand.number", cascade="all, delete-orphan",
                                             lazy="selectin")


class Player(Base):
    __tablename__ = "players"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)  # 0-3, the first dealer's seat counted from 0
    name: Mapped[str] = mapped_column(String(40))


class Hand(Base):
    """A recorded hand: how it ended (win / draw / false_win, by seat), the total and, when the
    hand was read or typed, its hand JSON and score JSON. Payments are computed from these by
    `rules.payments`, never stored, so an edit recomputes the sheet."""
    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("game_id", "number", name="uq_hands_game_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)  # 1-16
    outcome: Mapped[str] = mapped_column(String(12))
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    discarder: Mapped[int | None] = mapped_column(Integer, nullable=True)
    offender: Mapped[int | None] = mapped_column(Integer, nullable=True)
    total: Mapped[int] = mapped_column(Integer, default=0)
    hand: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    score: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    has_photo: Mapped[bool] = mapped_column(default=False)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class HandPhoto(Base):
    """The annotated photo of a recorded hand (JPEG bytes), apart so that sheets load without it.
    In the database, it is written in the same transaction as its hand: both or neither."""
    __tablename__ = "hand_photos"

    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True)
    jpeg: Mapped[bytes] = mapped_column(LargeBinary)


class CachedImage(Base):
    """An annotated photo of a recent analysis, served at /api/v1/images/{id}.jpg by any worker."""
    __tablename__ = "images"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    jpeg: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now, index=True)


class WrongTokenTries(Base):
    """Wrong access tokens one client address offered in its current window (api/access.py),
    counted here so that every replica counts them together."""
    __tablename__ = "wrong_token_tries"

    address: Mapped[str] = mapped_column(String(64), primary_key=True)
    window_start: Mapped[float] = mapped_column(Float, index=True)  # seconds since the epoch
    count: Mapped[int] = mapped_column(Integer)


class ServiceValue(Base):
    """A small JSON value the service keeps for later requests on any replica, by name (what Label
    Studio sent to /labelstudio/setup)."""
    __tablename__ = "service_values"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
