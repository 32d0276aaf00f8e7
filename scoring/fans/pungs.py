"""Pung fans: two, three and four pungs (or kongs) together, 幺九刻 and 碰碰和 (All Pungs).

A pung is given by its tile (the reference's integers).  Pungs of honours together make the
honour fans (scoring.fans.honours), which the combination functions here hand over to."""
from __future__ import annotations

from itertools import combinations

from ..decompose import is_numbered
from . import honours
from .explain import four_pungs_tiles, mid, pick, pung_indices, wind_code
from .fan import Explainer, FanId, FanTable, Group, row
from .kinds import DRAGONS, TERMINALS, WINDS, shifted_by_one

ROWS = (
    row(FanId.FOUR_PURE_SHIFTED_PUNGS, "一色四节高", "Four Pure Shifted Pungs", 48,
        FanId.ALL_PUNGS, FanId.PURE_SHIFTED_PUNGS),
    row(FanId.PURE_SHIFTED_PUNGS, "一色三节高", "Pure Shifted Pungs", 24, FanId.PURE_TRIPLE_CHOW),
    row(FanId.TRIPLE_PUNG, "三同刻", "Triple Pung", 16),
    row(FanId.MIXED_SHIFTED_PUNGS, "三色三节高", "Mixed Shifted Pungs", 8),
    row(FanId.ALL_PUNGS, "碰碰和", "All Pungs", 6),
    row(FanId.DOUBLE_PUNG, "双同刻", "Double Pung", 2),
    row(FanId.PUNG_OF_TERMINALS_OR_HONORS, "幺九刻", "Pung of Terminals or Honors", 1),
)


def four_pungs_fan(t0: int, t1: int, t2: int, t3: int) -> int:
    if is_numbered(t0) and t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3:
        return FanId.FOUR_PURE_SHIFTED_PUNGS
    return honours.four_honour_pungs_fan(t0, t1, t2, t3)


def three_pungs_fan(t0: int, t1: int, t2: int) -> int:
    if is_numbered(t0) and is_numbered(t1) and is_numbered(t2):
        s0, s1, s2 = t0 >> 4, t1 >> 4, t2 >> 4
        r0, r1, r2 = t0 & 0xF, t1 & 0xF, t2 & 0xF
        if s0 != s1 and s0 != s2 and s1 != s2:
            if shifted_by_one(r0, r1, r2):
                return FanId.MIXED_SHIFTED_PUNGS
            if r0 == r1 == r2:
                return FanId.TRIPLE_PUNG
        elif t0 + 1 == t1 and t1 + 1 == t2:
            return FanId.PURE_SHIFTED_PUNGS
        return 0
    return honours.three_honour_pungs_fan(t0, t1, t2)


def two_pungs_fan(t0: int, t1: int) -> int:
    if is_numbered(t0) and is_numbered(t1):
        if (t0 & 0xCF) == (t1 & 0xCF):
            return FanId.DOUBLE_PUNG
        return 0
    return honours.two_honour_pungs_fan(t0, t1)


def _four_pungs(m: tuple[int, ...], table: FanTable) -> None:
    fan = four_pungs_fan(*m)
    if fan:
        table[fan] = 1
        return
    free = -1
    for a, b, c, rest in ((0, 1, 2, 3), (0, 1, 3, 2), (0, 2, 3, 1), (1, 2, 3, 0)):
        fan = three_pungs_fan(m[a], m[b], m[c])
        if fan:
            table[fan] = 1
            free = rest
            break
    if free >= 0:
        for i in range(4):
            if i == free:
                continue
            fan = two_pungs_fan(m[i], m[free])
            if fan:
                table[fan] += 1
                break
        return
    for i, j in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
        fan = two_pungs_fan(m[i], m[j])
        if fan:
            table[fan] += 1


def _three_pungs(m: tuple[int, ...], table: FanTable) -> None:
    fan = three_pungs_fan(*m)
    if fan:
        table[fan] = 1
        return
    for i, j in ((0, 1), (0, 2), (1, 2)):
        fan = two_pungs_fan(m[i], m[j])
        if fan:
            table[fan] += 1


_MEMO: dict[tuple[int, ...], tuple[tuple[int, int], ...]] = {}


def pung_fans(pung_tiles: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """(fan, count) of the pungs and kongs, alone (箭刻, 幺九刻) and among themselves (memoised)."""
    found = _MEMO.get(pung_tiles)
    if found is not None:
        return found
    table = FanTable()
    for t in pung_tiles:
        if t in DRAGONS:
            table[FanId.DRAGON_PUNG] += 1
        elif t in TERMINALS or t in WINDS:
            table[FanId.PUNG_OF_TERMINALS_OR_HONORS] += 1
    n = len(pung_tiles)
    if n == 4:
        _four_pungs(pung_tiles, table)
    elif n == 3:
        _three_pungs(pung_tiles, table)
    elif n == 2:
        fan = two_pungs_fan(pung_tiles[0], pung_tiles[1])
        if fan:
            table[fan] += 1
    found = _MEMO[pung_tiles] = tuple((f, n) for f, n in table.items() if n)
    return found


def clear_memo() -> None:
    _MEMO.clear()


def all_pungs(pung_cnt: int, table: FanTable) -> None:
    """碰碰和: four pungs or kongs, unless 四杠 or 四暗刻 (decided before) already say so."""
    if pung_cnt == 4 and not table[FanId.FOUR_KONGS] and not table[FanId.FOUR_CONCEALED_PUNGS]:
        table[FanId.ALL_PUNGS] = 1


# ---------------------------------------------------------------- the tiles each fan is counted on

def two_pungs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    cands = [c for c in combinations(pung_indices(groups), 2)
             if two_pungs_fan(mid(groups[c[0]]), mid(groups[c[1]])) == fan_id]
    return [groups[i][1] for i in pick(cands, count)]


def three_pungs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    cands = [c for c in combinations(pung_indices(groups), 3)
             if three_pungs_fan(*sorted(mid(groups[i]) for i in c)) == fan_id]
    return [groups[i][1] for i in pick(cands, count)]


def terminal_or_honour_pungs_tiles(fan_id: int, count: int, groups: list[Group],
                                   hand: dict) -> list[tuple[str, ...]]:
    """幺九刻: the pungs of terminals and winds, those of the prevalent and seat wind last."""
    ctx = hand["context"]
    special = {wind_code(ctx["prevalent_wind"]), wind_code(ctx["seat_wind"])}
    found = [groups[i][1] for i in pung_indices(groups) if mid(groups[i]) in TERMINALS or mid(groups[i]) in WINDS]
    plain = [t for t in found if t[0] not in special]
    return (plain + [t for t in found if t[0] in special])[:count]


EXPLAINERS: dict[int, Explainer] = {
    FanId.DOUBLE_PUNG: two_pungs_tiles,
    **dict.fromkeys((FanId.TRIPLE_PUNG, FanId.PURE_SHIFTED_PUNGS, FanId.MIXED_SHIFTED_PUNGS), three_pungs_tiles),
    FanId.FOUR_PURE_SHIFTED_PUNGS: four_pungs_tiles,
    FanId.PUNG_OF_TERMINALS_OR_HONORS: terminal_or_honour_pungs_tiles,
}
