"""The rules of the score sheet, as MCR competition play keeps it; pure functions over plain data.

- The dealer passes every hand; the prevalent wind changes every four hands; 16 hands a game.
- Self-drawn win: each of the other three pays 8 + total.
- Win on a discard: the discarder pays 8 + total, the two others 8 each.
- Drawn hand (荒庄): nobody pays.
- False win (错和): the offender pays 10 to each other player.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .errors import GameError

WINDS = ("E", "S", "W", "N")
SEATS = 4
HANDS_PER_GAME = 16
HANDS_PER_WIND = 4
BASE = 8               # what every other player pays a winner on top of (or instead of) the total
FALSE_WIN_PENALTY = 10  # what a false win costs its offender, to each other player
MIN_TOTAL = 8          # the smallest total that wins in MCR (起和番)
# Rule sets whose hands a game may score: MCR and its variants, paid as MCR competition play.
GAME_RULESETS = ("mcr", "mcr-reference", "lianzhong")

OutcomeKind = Literal["win", "draw", "false_win"]


@dataclass(frozen=True)
class Outcome:
    """How a hand ended: who won (seat 0-3), who discarded the winning tile (None: self-drawn),
    the total fan; or a drawn hand; or a false win by `offender`."""
    kind: OutcomeKind
    winner: int | None = None
    discarder: int | None = None
    offender: int | None = None
    total: int = 0

    @property
    def self_drawn(self) -> bool:
        return self.kind == "win" and self.discarder is None


@dataclass(frozen=True)
class HandSeats:
    """Who sits where in hand `number` (1-based): the prevalent wind, the dealer's seat and each
    seat's wind (seat 0 first)."""
    number: int
    prevalent_wind: str
    dealer: int
    seat_winds: tuple[str, str, str, str]


def hand_seats(number: int, first_dealer: int = 0) -> HandSeats:
    """The winds of hand `number` of a game whose first dealer sits at seat `first_dealer`."""
    if not 1 <= number <= HANDS_PER_GAME:
        raise GameError(409, "game_over", f"a game has {HANDS_PER_GAME} hands; there is no hand {number}")
    dealer = (first_dealer + number - 1) % SEATS
    winds = tuple(WINDS[(seat - dealer) % SEATS] for seat in range(SEATS))
    return HandSeats(number, WINDS[(number - 1) // HANDS_PER_WIND], dealer, winds)  # type: ignore[arg-type]


def _seat(value: int | None, role: str) -> int:
    if value is None:
        raise GameError(422, "seat_missing", f"say who the {role} is (a seat 0-3)")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < SEATS:
        raise GameError(422, "wrong_seat", f"the {role} must be a seat 0-3, got {value!r}", {"role": role})
    return value


def check_outcome(outcome: Outcome) -> Outcome:
    """The outcome if it fits the rules; else a GameError (wrong_seat, below_minimum, ...)."""
    if outcome.kind == "draw":
        if outcome.winner is not None or outcome.discarder is not None or outcome.offender is not None:
            raise GameError(422, "draw_has_no_players", "a drawn hand has no winner, discarder or offender")
        return Outcome("draw")
    if outcome.kind == "false_win":
        if outcome.winner is not None or outcome.discarder is not None:
            raise GameError(422, "false_win_has_no_winner", "a false win has an offender, not a winner")
        return Outcome("false_win", offender=_seat(outcome.offender, "offender"))
    if outcome.kind != "win":
        raise GameError(422, "unknown_outcome", f"a hand ends in a win, a draw or a false win, not {outcome.kind!r}")
    winner = _seat(outcome.winner, "winner")
    if outcome.offender is not None:
        raise GameError(422, "win_has_no_offender", "a win has a winner and maybe a discarder, no offender")
    if outcome.discarder is not None and _seat(outcome.discarder, "discarder") == winner:
        raise GameError(422, "winner_discarded", "the winner cannot have discarded the winning tile; "
                        "a self-drawn win has no discarder")
    if isinstance(outcome.total, bool) or not isinstance(outcome.total, int) or outcome.total < MIN_TOTAL:
        raise GameError(422, "below_minimum", f"a winning hand needs at least {MIN_TOTAL} fan, "
                        f"got {outcome.total!r}", {"total": outcome.total, "minimum": MIN_TOTAL})
    return outcome


def payments(outcome: Outcome) -> tuple[int, int, int, int]:
    """What each seat wins (+) or pays (-) for one hand; the four always sum to zero."""
    outcome = check_outcome(outcome)
    delta = [0] * SEATS
    if outcome.kind == "false_win":
        assert outcome.offender is not None
        for seat in range(SEATS):
            if seat != outcome.offender:
                delta[seat] += FALSE_WIN_PENALTY
                delta[outcome.offender] -= FALSE_WIN_PENALTY
    elif outcome.kind == "win":
        assert outcome.winner is not None
        for seat in range(SEATS):
            if seat == outcome.winner:
                continue
            pays = BASE + outcome.total if outcome.self_drawn or seat == outcome.discarder else BASE
            delta[seat] -= pays
            delta[outcome.winner] += pays
    return delta[0], delta[1], delta[2], delta[3]


def running_totals(deltas: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Each seat's score after each hand."""
    score = [0] * SEATS
    out = []
    for delta in deltas:
        score = [s + d for s, d in zip(score, delta)]
        out.append((score[0], score[1], score[2], score[3]))
    return out
