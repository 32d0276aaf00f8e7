"""The score sheet of a game as plain data (the API's and `fanshot game show`'s), and its CSV."""
from __future__ import annotations

import csv
import io
from datetime import datetime, timezone
from typing import Any

from .models import Game
from .rules import HANDS_PER_GAME, Outcome, hand_seats, payments, running_totals


def _utc(moment: datetime) -> str:
    """A time in ISO 8601, UTC (SQLite hands back the stored time without its zone)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).astimezone(timezone.utc).isoformat()


def _seats(number: int, first_dealer: int) -> dict[str, Any]:
    seats = hand_seats(number, first_dealer)
    return {"number": number, "prevalent_wind": seats.prevalent_wind, "dealer": seats.dealer,
            "seat_winds": list(seats.seat_winds)}


def build_sheet(game: Game) -> dict[str, Any]:
    """Every hand with its payments and everyone's running score; the totals; the next hand."""
    deltas = [payments(Outcome(h.outcome, h.winner, h.discarder, h.offender, h.total))  # type: ignore[arg-type]
              for h in game.hands]
    running = running_totals(deltas)
    hands = []
    for hand, delta, after in zip(game.hands, deltas, running):
        hands.append({
            **_seats(hand.number, game.first_dealer),
            "outcome": hand.outcome, "winner": hand.winner, "discarder": hand.discarder,
            "offender": hand.offender, "self_drawn": hand.outcome == "win" and hand.discarder is None,
            "total": hand.total, "payments": list(delta), "scores": list(after),
            "hand": hand.hand, "score": hand.score, "has_photo": hand.has_photo,
            "recorded_at": _utc(hand.recorded_at),
        })
    played = len(game.hands)
    over = game.ended or played >= HANDS_PER_GAME
    return {
        "code": game.code, "rules": game.rules, "version": game.version,
        "players": [{"seat": p.seat, "name": p.name} for p in game.players],
        "first_dealer": game.first_dealer, "hands_per_game": HANDS_PER_GAME,
        "hands": hands, "totals": list(running[-1]) if running else [0, 0, 0, 0],
        "over": over, "ended_early": game.ended and played < HANDS_PER_GAME,
        "next": None if over else _seats(played + 1, game.first_dealer),
        "created_at": _utc(game.created_at),
    }


def sheet_csv(sheet: dict[str, Any]) -> str:
    """One row per hand: its winds, outcome, total, each player's payment and running score."""
    names = [p["name"] for p in sheet["players"]]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["hand", "prevalent_wind", "dealer", "outcome", "winner", "discarder", "offender",
                     "self_drawn", "total", *(f"{n} this hand" for n in names), *(f"{n} running" for n in names)])

    def name(seat: int | None) -> str:
        return "" if seat is None else names[seat]

    for h in sheet["hands"]:
        writer.writerow([h["number"], h["prevalent_wind"], name(h["dealer"]), h["outcome"], name(h["winner"]),
                         name(h["discarder"]), name(h["offender"]), int(h["self_drawn"]), h["total"],
                         *h["payments"], *h["scores"]])
    return out.getvalue()
