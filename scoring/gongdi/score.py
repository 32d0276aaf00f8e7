"""Scoring a hand by the 1990 工地 rules: the 20-幡 hands, the cap, and the seed's principles.

算少不算多: every reading of the hand (each grouping, each place the winning tile can
fill) is counted and the smallest count is the one paid.  All the seed tells us is
which hands are worth 20 幡 (满贯, also the cap), so a hand is scored only when every
reading of it is a 20-幡 hand; otherwise the count needs the part of the seed that is
missing and the answer is the error `not_covered`, never a guess.
"""
from __future__ import annotations

from ..errors import HandError
from ..hand import validate_hand
from ..notation import format_hand
from ..tiles import glyphs
from . import rules
from .hands import TESTS
from .readings import all_readings, loose_terminals

NOT_COVERED = "not covered by the rules we have"


def _not_covered(why: str) -> HandError:
    return HandError("not_covered", f"{NOT_COVERED} (工地 1990, partial): {why}")


def _evaluate(hand: dict, reading: dict) -> dict:
    """The 20-幡 hands one reading holds for sure, and the ones the seed leaves open."""
    held, doubts = [], []
    for row in rules.LIMIT_HANDS:
        holds, tiles = TESTS[row["key"]](hand, reading)
        if holds is True:
            shown = ", ".join(glyphs(group) for group in tiles)
            held.append({"key": row["key"].upper(), "name_zh": row["name_zh"], "name_en": row["name_en"],
                         "points": row["points"], "count": 1, "tiles": tiles, "quote": row["quote"],
                         "text": f"{row['name_zh']} {row['points']}{rules.UNIT} ({shown})"})
        elif holds:
            doubts.append(holds)
    return {"reading": reading, "held": held, "doubts": doubts,
            "value": sum(f["points"] for f in held) if held else None}


def _why_not_covered(evaluated: list[dict]) -> str:
    names = {f["name_zh"] for e in evaluated for f in e["held"]}
    doubts = sorted({d for e in evaluated for d in e["doubts"]})
    if not names:
        why = "no 20-幡 hand in any reading of it, and " + rules.MISSING
    else:
        why = (f"{'、'.join(sorted(names))} holds in some readings of the hand and not in others, so it is "
               f"disputed (“{rules.QUOTES['smaller']}”; “{rules.QUOTES['win_tile']}”), and the count "
               f"without it needs what is missing: {rules.MISSING}")
    if doubts:
        why += "; open in the seed: " + "; ".join(doubts)
    return why


def _pair(reading: dict) -> dict | None:
    pairs = [g for g in reading["groups"] if g["kind"] == "pair"]
    if reading["form"] != "standard" or not pairs:
        return None
    return {"tiles": pairs[0]["tiles"], "kind": rules.pair_kind(pairs[0]["tiles"][0])}


def score_gongdi(hand: dict) -> dict:
    """Score JSON for a hand JSON by the 1990 工地 rules; HandError when it cannot be scored."""
    hand = validate_hand(hand)
    if hand["flowers"]:
        raise HandError("flowers_not_allowed", f"{glyphs(hand['flowers'])}: the 工地 rules have no flowers "
                        f"(“{rules.QUOTES['tiles']}”)")
    evaluated = [_evaluate(hand, r) for r in all_readings(hand)]
    settled = [e for e in evaluated if not e["reading"]["doubt"]]
    if not settled:
        doubts = sorted({e["reading"]["doubt"] for e in evaluated})
        if loose_terminals(hand):
            doubts.append("十三幺 of 14 tiles that form no 扑/卡/杠/将: the seed says only "
                          "“胡牌时全是1、9和“风””, not whether such tiles win in any arrangement")
        if doubts:
            raise _not_covered("it could win only as " + "; or as ".join(doubts))
        raise HandError("not_a_winning_hand", f"the tiles do not form a winning hand of the 工地 rules "
                        f"(“{rules.QUOTES['melds']}”, or 七大对, 十三幺, 十三不靠)")
    if any(e["value"] is None for e in settled):
        raise _not_covered(_why_not_covered(settled))
    # 算少不算多: the reading that counts least is the one paid
    least = min(settled, key=lambda e: e["value"])
    paid = rules.settle(least["value"])
    return {
        "total": paid["total"],
        "meets_minimum": paid["meets_minimum"],
        "ruleset": rules.NAME,
        "unit": rules.UNIT,
        "fans": least["held"],
        "counted": least["value"],
        "capped": paid["capped"],
        "minimum": rules.MIN_TO_WIN,
        "cap": rules.CAP,
        "partial": True,
        "form": least["reading"]["form"],
        "melds": [{"kind": g["kind"], "tiles": g["tiles"], "exposed": g["meld"] and not g["concealed"]}
                  for g in least["reading"]["groups"]],
        "pair": _pair(least["reading"]),
        "readings": len(settled),
        "hand": hand,
        "text": format_hand(hand),
    }
