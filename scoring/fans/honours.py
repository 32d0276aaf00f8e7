"""Honour fans: the wind and dragon pungs together (大四喜, 大三元, 三风刻, 双箭刻), with the pair
(小四喜, 小三元), and alone (箭刻, 圈风刻, 门风刻)."""
from __future__ import annotations

from itertools import combinations

from ..decompose import TC, TE, TF, TN, TP, TS, TW
from .explain import four_pungs_tiles, mid, pick, pung_indices, wind_code
from .fan import Explainer, FanId, FanTable, Group, row
from .kinds import DRAGONS, WINDS

ROWS = (
    row(FanId.BIG_FOUR_WINDS, "大四喜", "Big Four Winds", 88, FanId.ALL_PUNGS, FanId.PUNG_OF_TERMINALS_OR_HONORS,
        FanId.BIG_THREE_WINDS, FanId.PREVALENT_WIND, FanId.SEAT_WIND),
    row(FanId.BIG_THREE_DRAGONS, "大三元", "Big Three Dragons", 88, FanId.DRAGON_PUNG, FanId.TWO_DRAGONS_PUNGS),
    row(FanId.LITTLE_FOUR_WINDS, "小四喜", "Little Four Winds", 64,
        FanId.PUNG_OF_TERMINALS_OR_HONORS, FanId.BIG_THREE_WINDS),
    row(FanId.LITTLE_THREE_DRAGONS, "小三元", "Little Three Dragons", 64, FanId.DRAGON_PUNG, FanId.TWO_DRAGONS_PUNGS),
    row(FanId.BIG_THREE_WINDS, "三风刻", "Big Three Winds", 12),
    row(FanId.TWO_DRAGONS_PUNGS, "双箭刻", "Two Dragon Pungs", 6, FanId.DRAGON_PUNG),
    row(FanId.DRAGON_PUNG, "箭刻", "Dragon Pung", 2),
    row(FanId.PREVALENT_WIND, "圈风刻", "Prevalent Wind", 2),
    row(FanId.SEAT_WIND, "门风刻", "Seat Wind", 2),
)

_THREE_WINDS = ((TE, TS, TW), (TE, TS, TN), (TE, TW, TN), (TS, TW, TN))


def four_honour_pungs_fan(t0: int, t1: int, t2: int, t3: int) -> int:
    """大四喜 for four pungs in tile order, else 0."""
    if (t0, t1, t2, t3) == (TE, TS, TW, TN):
        return FanId.BIG_FOUR_WINDS
    return 0


def three_honour_pungs_fan(t0: int, t1: int, t2: int) -> int:
    """三风刻 or 大三元 for three pungs in tile order, else 0."""
    if (t0, t1, t2) in _THREE_WINDS:
        return FanId.BIG_THREE_WINDS
    if (t0, t1, t2) == (TC, TF, TP):
        return FanId.BIG_THREE_DRAGONS
    return 0


def two_honour_pungs_fan(t0: int, t1: int) -> int:
    """双箭刻 for two dragon pungs, else 0."""
    if t0 in DRAGONS and t1 in DRAGONS:
        return FanId.TWO_DRAGONS_PUNGS
    return 0


def little_honours(pair_tile: int, table: FanTable) -> None:
    """小三元 / 小四喜: the pair completes 双箭刻 or 三风刻, which it replaces."""
    if table[FanId.TWO_DRAGONS_PUNGS]:
        if pair_tile in DRAGONS:
            table[FanId.LITTLE_THREE_DRAGONS] = 1
            table[FanId.TWO_DRAGONS_PUNGS] = 0
        return
    if table[FanId.BIG_THREE_WINDS]:
        if pair_tile in WINDS:
            table[FanId.LITTLE_FOUR_WINDS] = 1
            table[FanId.BIG_THREE_WINDS] = 0


def wind_pung(tile: int, prevalent: int, seat: int, table: FanTable) -> None:
    """圈风刻 / 门风刻 for a pung of winds; either takes the pung out of 幺九刻, unless the 幺九刻
    were not counted (三风刻, 混幺九, 字一色, 小四喜)."""
    deducted = (table[FanId.BIG_THREE_WINDS] or table[FanId.ALL_TERMINALS_AND_HONORS] or table[FanId.ALL_HONORS]
                or table[FanId.LITTLE_FOUR_WINDS])
    delta = tile - TE
    if delta == prevalent:
        table[FanId.PREVALENT_WIND] = 1
        if not deducted:
            table[FanId.PUNG_OF_TERMINALS_OR_HONORS] -= 1
    if delta == seat:
        table[FanId.SEAT_WIND] = 1
        if seat != prevalent and not deducted:
            table[FanId.PUNG_OF_TERMINALS_OR_HONORS] -= 1


def wind_pungs(pung_tiles: list[int], prevalent: int, seat: int, table: FanTable) -> None:
    """圈风刻 / 门风刻 of a regular hand (after the exclusions; none with 大四喜)."""
    if not table[FanId.BIG_FOUR_WINDS]:
        for t in pung_tiles:
            if t in WINDS:
                wind_pung(t, prevalent, seat, table)


# ---------------------------------------------------------------- the tiles each fan is counted on

def two_dragon_pungs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    cands = [c for c in combinations(pung_indices(groups), 2)
             if two_honour_pungs_fan(mid(groups[c[0]]), mid(groups[c[1]])) == fan_id]
    return [groups[i][1] for i in pick(cands, count)]


def three_honour_pungs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    cands = [c for c in combinations(pung_indices(groups), 3)
             if three_honour_pungs_fan(*sorted(mid(groups[i]) for i in c)) == fan_id]
    return [groups[i][1] for i in pick(cands, count)]


def little_honours_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    honours = DRAGONS if fan_id == FanId.LITTLE_THREE_DRAGONS else WINDS
    return [g[1] for g in groups if g[0] in ("pung", "kong", "pair") and mid(g) in honours]


def dragon_pungs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    return [groups[i][1] for i in pung_indices(groups) if mid(groups[i]) in DRAGONS][:count]


def wind_pung_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    code = wind_code(hand["context"]["prevalent_wind" if fan_id == FanId.PREVALENT_WIND else "seat_wind"])
    return [groups[i][1] for i in pung_indices(groups) if groups[i][1][0] == code]


EXPLAINERS: dict[int, Explainer] = {
    FanId.TWO_DRAGONS_PUNGS: two_dragon_pungs_tiles,
    FanId.BIG_THREE_WINDS: three_honour_pungs_tiles,
    FanId.BIG_THREE_DRAGONS: three_honour_pungs_tiles,
    FanId.BIG_FOUR_WINDS: four_pungs_tiles,
    FanId.LITTLE_THREE_DRAGONS: little_honours_tiles,
    FanId.LITTLE_FOUR_WINDS: little_honours_tiles,
    FanId.DRAGON_PUNG: dragon_pungs_tiles,
    FanId.PREVALENT_WIND: wind_pung_tiles,
    FanId.SEAT_WIND: wind_pung_tiles,
}
