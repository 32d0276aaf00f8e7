"""A hand as a client records it (typed, or read from a photo) made into an outcome the rules
take: the game supplies the winner's seat wind, the prevalent wind and self-drawn, the scorer
the total."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .errors import GameError
from .rules import Outcome, OutcomeKind, check_outcome, hand_seats


@dataclass(frozen=True)
class HandEntry:
    """What a client sends to record or edit a hand. A win carries either the hand JSON (scored
    here, with the game's winds) or a total typed by hand; `photo` is the annotated JPEG."""
    outcome: OutcomeKind
    winner: int | None = None
    discarder: int | None = None  # None with a win: self-drawn
    offender: int | None = None
    total: int | None = None
    hand: dict[str, Any] | None = None
    photo: bytes | None = None


@dataclass(frozen=True)
class ResolvedHand:
    outcome: Outcome
    hand: dict[str, Any] | None
    score: dict[str, Any] | None


def resolve(entry: HandEntry, rules: str, number: int, first_dealer: int) -> ResolvedHand:
    """The entry checked against the rules; a hand JSON scored as hand `number` of the game."""
    if entry.outcome != "win":
        if entry.hand is not None or entry.total is not None:
            raise GameError(422, "no_hand_without_win", "only a win carries a hand or a total")
        return ResolvedHand(check_outcome(Outcome(entry.outcome, entry.winner, entry.discarder, entry.offender)),
                            None, None)
    if (entry.hand is None) == (entry.total is None):
        raise GameError(422, "hand_or_total", "a win carries the hand JSON or a typed total (one of them)")
    if entry.hand is None:
        outcome = Outcome("win", entry.winner, entry.discarder, entry.offender, entry.total or 0)
        return ResolvedHand(check_outcome(outcome), None, None)
    check_outcome(Outcome("win", entry.winner, entry.discarder, entry.offender, 8))  # the seats first
    assert entry.winner is not None
    seats = hand_seats(number, first_dealer)
    hand = copy.deepcopy(entry.hand)
    context = hand.setdefault("context", {}) if isinstance(hand, dict) else None
    if not isinstance(context, dict):
        raise GameError(422, "invalid_hand", "the hand must be a hand JSON object (docs/contract.md)")
    context.update(self_drawn=entry.discarder is None, seat_wind=seats.seat_winds[entry.winner],
                   prevalent_wind=seats.prevalent_wind)
    score = _score(hand, rules)
    if not score.get("meets_minimum", True):
        raise GameError(422, "below_minimum", f"this hand scores {score['total']} fan, below the rule set's "
                        "minimum to win", {"total": score["total"]})
    outcome = Outcome("win", entry.winner, entry.discarder, None, int(score["total"]))
    return ResolvedHand(check_outcome(outcome), hand, score)


def _score(hand: dict[str, Any], rules: str) -> dict[str, Any]:
    import scoring

    try:
        return scoring.score_hand(hand, rules)
    except scoring.HandError as exc:
        raise GameError(422, exc.code, exc.message, exc.params) from None
