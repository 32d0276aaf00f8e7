"""GameStore: games and their hands kept in the database, changed only against the version the
client saw (a stale version: 409 stale_version with the fresh sheet), each change one transaction."""
from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from .database import database_url, make_engine, migrate
from .entries import HandEntry, resolve
from .errors import GameError
from .models import Game, Hand, HandPhoto, Player
from .rules import GAME_RULESETS, HANDS_PER_GAME, SEATS, WINDS
from .sheet import build_sheet

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: read aloud across a table
CODE_LENGTH = 6
MAX_NAME = 40


class _Stale(Exception):
    pass


def normal_code(code: str) -> str:
    return code.strip().upper()


class GameStore:
    """The games in one database. Thread-safe; several processes may share the database."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @classmethod
    def open(cls, data_dir: Path, url: str = "") -> GameStore:
        """The store at FANSHOT_DATABASE_URL, else SQLite in `data_dir`; migrated to the newest tables."""
        engine = make_engine(database_url(data_dir, url))
        migrate(engine)
        return cls(engine)

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self._sessions() as session:
            yield session

    # -- reading -------------------------------------------------------------------------------

    def sheet(self, code: str) -> dict[str, Any]:
        with self._session() as session:
            return build_sheet(self._game(session, code))

    def photo(self, code: str, number: int) -> bytes:
        with self._session() as session:
            game = self._game(session, code)
            jpeg = session.execute(select(HandPhoto.jpeg).join(Hand, Hand.id == HandPhoto.hand_id)
                                   .where(Hand.game_id == game.id, Hand.number == number)).scalar_one_or_none()
        if jpeg is None:
            raise GameError(404, "photo_not_found", f"hand {number} of game {game.code} has no photo")
        return jpeg

    # -- changes -------------------------------------------------------------------------------

    def create(self, players: list[str] | None = None, rules: str = "mcr", first_dealer: int = 0) -> dict[str, Any]:
        """A new game: four player names (default: the seats' winds E S W N), the rule set, the
        seat of the first dealer."""
        names = [n.strip() for n in (players or list(WINDS))]
        if len(names) != SEATS or any(not n or len(n) > MAX_NAME for n in names):
            raise GameError(422, "wrong_players", f"a game has {SEATS} players, each named in 1-{MAX_NAME} characters")
        if len({n.casefold() for n in names}) != SEATS:
            raise GameError(422, "wrong_players", "the four players need four different names")
        if rules not in GAME_RULESETS:
            raise GameError(422, "ruleset_not_for_games", f"games are paid as MCR competition play; the rule "
                            f"set must be one of {', '.join(GAME_RULESETS)}", {"rulesets": list(GAME_RULESETS)})
        if isinstance(first_dealer, bool) or first_dealer not in range(SEATS):
            raise GameError(422, "wrong_seat", f"the first dealer must be a seat 0-3, got {first_dealer!r}",
                            {"role": "dealer"})
        for _ in range(8):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            try:
                with self._session() as session, session.begin():
                    game = Game(code=code, rules=rules, first_dealer=first_dealer, version=0, ended=False,
                                players=[Player(seat=i, name=n) for i, n in enumerate(names)], hands=[])
                    session.add(game)
                return self.sheet(code)
            except IntegrityError:  # the code was taken: draw another
                continue
        raise GameError(503, "no_free_code", "could not draw a free game code; retry")

    def record(self, code: str, version: int, entry: HandEntry) -> dict[str, Any]:
        """The next hand of the game, recorded against `version`."""
        def change(session: Session, game: Game) -> None:
            if game.ended or len(game.hands) >= HANDS_PER_GAME:
                raise GameError(409, "game_over", f"game {game.code} is over; no hand can be recorded")
            number = len(game.hands) + 1
            resolved = resolve(entry, game.rules, number, game.first_dealer)
            hand = Hand(game_id=game.id, number=number, outcome=resolved.outcome.kind)
            game.hands.append(hand)
            self._fill(session, hand, resolved, entry.photo)
        return self._change(code, version, change)

    def edit(self, code: str, number: int, version: int, entry: HandEntry) -> dict[str, Any]:
        """Hand `number` recorded anew (its photo kept unless the entry brings one); the sheet follows."""
        def change(session: Session, game: Game) -> None:
            hand = next((h for h in game.hands if h.number == number), None)
            if hand is None:
                raise GameError(404, "hand_not_found", f"game {game.code} has no hand {number}")
            resolved = resolve(entry, game.rules, number, game.first_dealer)
            self._fill(session, hand, resolved, entry.photo)
        return self._change(code, version, change)

    def undo(self, code: str, version: int) -> dict[str, Any]:
        """The last hand removed (with its photo); a game ended early is open again."""
        def change(session: Session, game: Game) -> None:
            if not game.hands:
                raise GameError(409, "nothing_to_undo", f"game {game.code} has no hand to undo")
            last = game.hands[-1]
            session.execute(delete(HandPhoto).where(HandPhoto.hand_id == last.id))
            game.hands.remove(last)
            game.ended = False
        return self._change(code, version, change)

    def end(self, code: str, version: int) -> dict[str, Any]:
        """The game ended before its 16 hands: no more hands are recorded."""
        def change(session: Session, game: Game) -> None:
            if game.ended or len(game.hands) >= HANDS_PER_GAME:
                raise GameError(409, "game_over", f"game {game.code} is over already")
            game.ended = True
        return self._change(code, version, change)

    # -- the parts -----------------------------------------------------------------------------

    @staticmethod
    def _fill(session: Session, hand: Hand, resolved, photo: bytes | None) -> None:
        outcome = resolved.outcome
        hand.outcome, hand.winner, hand.discarder = outcome.kind, outcome.winner, outcome.discarder
        hand.offender, hand.total = outcome.offender, outcome.total
        hand.hand, hand.score = resolved.hand, resolved.score
        hand.has_photo = bool(photo) or bool(hand.has_photo)
        session.add(hand)
        session.flush()  # the hand's id, for its photo
        if photo:
            session.merge(HandPhoto(hand_id=hand.id, jpeg=photo))

    def _change(self, code: str, version: int, change) -> dict[str, Any]:
        """One change as one transaction: the version moves from `version` to the next first (a
        compare-and-set that also takes the game's write lock), then `change(session, game)`."""
        if isinstance(version, bool) or not isinstance(version, int):
            raise GameError(422, "version_missing", "send the sheet's version you saw (an integer)")
        code = normal_code(code)
        try:
            with self._session() as session, session.begin():
                moved = session.execute(update(Game).where(Game.code == code, Game.version == version)
                                        .values(version=Game.version + 1))
                if moved.rowcount != 1:  # type: ignore[attr-defined]
                    raise _Stale()
                game = self._game(session, code)
                change(session, game)
                session.flush()
                sheet = build_sheet(game)
        except _Stale:
            fresh = self.sheet(code)  # 404 when there is no such game
            raise GameError(409, "stale_version", f"the sheet changed (version {fresh['version']}, you sent "
                            f"{version}); here is the fresh sheet", {"sheet": fresh}) from None
        except IntegrityError:  # another writer took this hand's number first (the version guards it too)
            fresh = self.sheet(code)
            raise GameError(409, "stale_version", "another change came first; here is the fresh sheet",
                            {"sheet": fresh}) from None
        return sheet

    @staticmethod
    def _game(session: Session, code: str) -> Game:
        game = session.execute(select(Game).where(Game.code == normal_code(code))).scalar_one_or_none()
        if game is None:
            raise GameError(404, "game_not_found", f"no game {code!r}")
        return game


class LazyGameStore:
    """The service's store, opened (and migrated) on first use, then shared by every request."""

    def __init__(self, data_dir: Path, url: str = ""):
        self.data_dir, self.url = data_dir, url
        self._store: GameStore | None = None
        self._lock = threading.Lock()

    def get(self) -> GameStore:
        with self._lock:
            if self._store is None:
                self._store = GameStore.open(self.data_dir, self.url)
            return self._store

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
