"""Adapter to the reference calculator pymahjonggb (a dev dependency, imported lazily).

`reference_score(hand)` returns {"total", "fans": {reference name: count}} for a
validated hand JSON dict, or raises HandError when the reference refuses it.
"""
from __future__ import annotations

from .errors import HandError
from .tiles import WINDS

_WHO = {"left": 1, "across": 2, "right": 3}


def _calculator():
    try:
        from MahjongGB import MahjongFanCalculator
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("the reference calculator is not installed: pip install 'pymahjonggb==1.4.0' "
                           "(the dev extra)") from exc
    return MahjongFanCalculator


def reference_args(hand: dict) -> dict:
    packs = []
    for meld in hand["melds"]:
        tiles = meld["tiles"]
        if meld["kind"] == "chow":
            claimed = meld.get("claimed")
            packs.append(("CHI", tiles[1], tiles.index(claimed) + 1 if claimed else 1))
        else:
            offer = _WHO.get(meld.get("from"), 1) if meld.get("exposed", True) else 0
            packs.append(("GANG" if meld["kind"] == "kong" else "PENG", tiles[0], offer))
    ctx = hand["context"]
    return dict(pack=tuple(packs), hand=tuple(hand["concealed"]), winTile=hand["win_tile"],
                flowerCount=len(hand.get("flowers") or []), isSelfDrawn=ctx["self_drawn"],
                is4thTile=ctx["fourth_tile"], isAboutKong=ctx["kong_replacement"] or ctx["robbing_kong"],
                isWallLast=ctx["last_tile"], seatWind=WINDS.index(ctx["seat_wind"]),
                prevalentWind=WINDS.index(ctx["prevalent_wind"]))


def reference_score(hand: dict, calculator=None) -> dict:
    calc = calculator or _calculator()
    try:
        result = calc(**reference_args(hand), verbose=True)
    except TypeError as exc:
        code = "not_a_winning_hand" if "NOT_WIN" in str(exc) else "invalid_hand"
        raise HandError(code, f"the reference calculator refused the hand: {exc}") from None
    fans = {}
    total = 0
    for points, count, name_zh, _name_en in result:
        fans[name_zh] = count
        total += points * count
    return {"total": total, "fans": fans}
