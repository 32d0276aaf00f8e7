"""Chow fans: two, three and four chows together, the terminal-chow hands and 平和 (All Chows).

A chow is given by its middle tile (the reference's integers).  The counting of the small
two-chow fans follows the reference's 套算一次 rule (_account_once)."""
from __future__ import annotations

from itertools import combinations

from ..decompose import is_numbered
from .explain import mid, pick
from .fan import Explainer, FanId, FanTable, Group, row
from .kinds import shifted_by_one

ROWS = (
    row(FanId.PURE_TERMINAL_CHOWS, "一色双龙会", "Pure Terminal Chows", 64,
        FanId.FULL_FLUSH, FanId.ALL_CHOWS, FanId.NO_HONORS, FanId.SEVEN_PAIRS),
    row(FanId.QUADRUPLE_CHOW, "一色四同顺", "Quadruple Chow", 48,
        FanId.PURE_TRIPLE_CHOW, FanId.PURE_DOUBLE_CHOW, FanId.TILE_HOG),
    row(FanId.FOUR_PURE_SHIFTED_CHOWS, "一色四步高", "Four Pure Shifted Chows", 32, FanId.PURE_SHIFTED_CHOWS),
    row(FanId.PURE_TRIPLE_CHOW, "一色三同顺", "Pure Triple Chow", 24, FanId.PURE_SHIFTED_PUNGS, FanId.PURE_DOUBLE_CHOW),
    row(FanId.PURE_STRAIGHT, "清龙", "Pure Straight", 16),
    row(FanId.THREE_SUITED_TERMINAL_CHOWS, "三色双龙会", "Three-Suited Terminal Chows", 16,
        FanId.MIXED_DOUBLE_CHOW, FanId.TWO_TERMINAL_CHOWS, FanId.NO_HONORS, FanId.ALL_CHOWS),
    row(FanId.PURE_SHIFTED_CHOWS, "一色三步高", "Pure Shifted Chows", 16),
    row(FanId.MIXED_STRAIGHT, "花龙", "Mixed Straight", 8),
    row(FanId.MIXED_TRIPLE_CHOW, "三色三同顺", "Mixed Triple Chow", 8),
    row(FanId.MIXED_SHIFTED_CHOWS, "三色三步高", "Mixed Shifted Chows", 6),
    row(FanId.ALL_CHOWS, "平和", "All Chows", 2, FanId.NO_HONORS),
    row(FanId.PURE_DOUBLE_CHOW, "一般高", "Pure Double Chow", 1),
    row(FanId.MIXED_DOUBLE_CHOW, "喜相逢", "Mixed Double Chow", 1),
    row(FanId.SHORT_STRAIGHT, "连六", "Short Straight", 1),
    row(FanId.TWO_TERMINAL_CHOWS, "老少副", "Two Terminal Chows", 1),
)


def four_chows_fan(t0: int, t1: int, t2: int, t3: int) -> int:
    if t0 + 2 == t1 and t1 + 2 == t2 and t2 + 2 == t3:
        return FanId.FOUR_PURE_SHIFTED_CHOWS
    if t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3:
        return FanId.FOUR_PURE_SHIFTED_CHOWS
    if t0 == t1 == t2 == t3:
        return FanId.QUADRUPLE_CHOW
    return 0


def three_chows_fan(t0: int, t1: int, t2: int) -> int:
    s0, s1, s2 = t0 >> 4, t1 >> 4, t2 >> 4
    r0, r1, r2 = t0 & 0xF, t1 & 0xF, t2 & 0xF
    if s0 != s1 and s0 != s2 and s1 != s2:
        if shifted_by_one(r0, r1, r2):
            return FanId.MIXED_SHIFTED_CHOWS
        if r0 == r1 == r2:
            return FanId.MIXED_TRIPLE_CHOW
        if sorted((r0, r1, r2)) == [2, 5, 8]:
            return FanId.MIXED_STRAIGHT
    else:
        if t0 + 3 == t1 and t1 + 3 == t2:
            return FanId.PURE_STRAIGHT
        if t0 + 2 == t1 and t1 + 2 == t2:
            return FanId.PURE_SHIFTED_CHOWS
        if t0 + 1 == t1 and t1 + 1 == t2:
            return FanId.PURE_SHIFTED_CHOWS
        if t0 == t1 == t2:
            return FanId.PURE_TRIPLE_CHOW
    return 0


def two_chows_fan(t0: int, t1: int) -> int:
    if (t0 & 0xF0) != (t1 & 0xF0):
        if (t0 & 0xCF) == (t1 & 0xCF):
            return FanId.MIXED_DOUBLE_CHOW
    else:
        if t0 + 3 == t1 or t1 + 3 == t0:
            return FanId.SHORT_STRAIGHT
        r0, r1 = t0 & 0xF, t1 & 0xF
        if (r0 == 2 and r1 == 8) or (r0 == 8 and r1 == 2):
            return FanId.TWO_TERMINAL_CHOWS
        if t0 == t1:
            return FanId.PURE_DOUBLE_CHOW
    return 0


def _one_chow_extra_fan(t0: int, t1: int, t2: int, extra: int) -> int:
    found = (two_chows_fan(t0, extra), two_chows_fan(t1, extra), two_chows_fan(t2, extra))
    for fan in (FanId.PURE_DOUBLE_CHOW, FanId.MIXED_DOUBLE_CHOW, FanId.SHORT_STRAIGHT, FanId.TWO_TERMINAL_CHOWS):
        if fan in found:
            return fan
    return 0


def _account_once(all_fans: list[int], max_cnt: int, table: FanTable) -> None:
    """套算一次 (account once): each chow combines into at most one small chow-pair fan
    with any other chow; keep at most max_cnt of them, dropping the cheapest kinds first."""
    counts = [0, 0, 0, 0]
    cnt = 0
    for fan in all_fans:
        if fan:
            cnt += 1
            counts[fan - FanId.PURE_DOUBLE_CHOW] += 1
    limit = 1
    while cnt > max_cnt and limit >= 0:
        idx = 4
        while cnt > max_cnt and idx > 0:
            idx -= 1
            while counts[idx] > limit and cnt > max_cnt:
                counts[idx] -= 1
                cnt -= 1
        limit -= 1
    table[FanId.PURE_DOUBLE_CHOW] = counts[0]
    table[FanId.MIXED_DOUBLE_CHOW] = counts[1]
    table[FanId.SHORT_STRAIGHT] = counts[2]
    table[FanId.TWO_TERMINAL_CHOWS] = counts[3]


def _three_of_four_chows(t0: int, t1: int, t2: int, extra: int, table: FanTable) -> bool:
    fan = three_chows_fan(t0, t1, t2)
    if fan:
        table[fan] = 1
        fan = _one_chow_extra_fan(t0, t1, t2, extra)
        if fan:
            table[fan] = 1
        return True
    return False


def _four_chows(m: tuple[int, ...], table: FanTable) -> None:
    fan = four_chows_fan(*m)
    if fan:
        table[fan] = 1
        return
    if (_three_of_four_chows(m[0], m[1], m[2], m[3], table) or _three_of_four_chows(m[0], m[1], m[3], m[2], table)
            or _three_of_four_chows(m[0], m[2], m[3], m[1], table) or _three_of_four_chows(m[1], m[2], m[3], m[0], table)):
        return
    a = [two_chows_fan(m[0], m[1]), two_chows_fan(m[0], m[2]), two_chows_fan(m[0], m[3]),
         two_chows_fan(m[1], m[2]), two_chows_fan(m[1], m[3]), two_chows_fan(m[2], m[3])]
    max_cnt = 3
    if not (a[0] or a[1] or a[2]):
        max_cnt -= 1
    if not (a[0] or a[3] or a[4]):
        max_cnt -= 1
    if not (a[1] or a[3] or a[5]):
        max_cnt -= 1
    if not (a[2] or a[4] or a[5]):
        max_cnt -= 1
    if max_cnt > 0:
        _account_once(a, max_cnt, table)


def _three_chows(m: tuple[int, ...], table: FanTable) -> None:
    fan = three_chows_fan(*m)
    if fan:
        table[fan] = 1
        return
    _account_once([two_chows_fan(m[0], m[1]), two_chows_fan(m[0], m[2]), two_chows_fan(m[1], m[2])], 2, table)


def _pure_terminal_chows(chows: tuple[int, ...], pair_tile: int) -> bool:
    if pair_tile & 0xF != 5:
        return False
    c123 = c789 = 0
    for c in chows:
        if c >> 4 != pair_tile >> 4:
            return False
        r = c & 0xF
        if r == 2:
            c123 += 1
        elif r == 8:
            c789 += 1
        else:
            return False
    return c123 == 2 and c789 == 2


def _three_suited_terminal_chows(chows: tuple[int, ...], pair_tile: int) -> bool:
    if pair_tile & 0xF != 5 or not is_numbered(pair_tile):
        return False
    s123 = [0] * 5
    s789 = [0] * 5
    ps = pair_tile >> 4
    for c in chows:
        s = c >> 4
        if s == ps:
            return False
        r = c & 0xF
        if r == 2:
            s123[s] += 1
        elif r == 8:
            s789[s] += 1
        else:
            return False
    others = [s for s in (1, 2, 3) if s != ps]
    return all(s123[s] and s789[s] for s in others)


_MEMO: dict[tuple[tuple[int, ...], int], tuple[tuple[int, int], ...]] = {}   # a few thousand combinations at most


def chow_fans(chow_mids: tuple[int, ...], pair_tile: int) -> tuple[tuple[int, int], ...]:
    """(fan, count) of the chows among themselves (memoised); the pair only matters with four chows."""
    key = (chow_mids, pair_tile)
    found = _MEMO.get(key)
    if found is not None:
        return found
    table = FanTable()
    chow_cnt = len(chow_mids)
    if chow_cnt == 4:
        if _three_suited_terminal_chows(chow_mids, pair_tile):
            table[FanId.THREE_SUITED_TERMINAL_CHOWS] = 1
        elif _pure_terminal_chows(chow_mids, pair_tile):
            table[FanId.PURE_TERMINAL_CHOWS] = 1
        else:
            _four_chows(chow_mids, table)
    elif chow_cnt == 3:
        _three_chows(chow_mids, table)
    elif chow_cnt == 2:
        fan = two_chows_fan(chow_mids[0], chow_mids[1])
        if fan:
            table[fan] += 1
    found = _MEMO[key] = tuple((f, n) for f, n in table.items() if n)
    return found


def clear_memo() -> None:
    _MEMO.clear()


def all_chows(pair_tile: int, chow_cnt: int, table: FanTable) -> None:
    """平和: four chows and a pair of a suit."""
    if chow_cnt == 4 and is_numbered(pair_tile):
        table[FanId.ALL_CHOWS] = 1


# ---------------------------------------------------------------- the tiles each fan is counted on

def _chow_indices(groups: list[Group]) -> list[int]:
    return [i for i, g in enumerate(groups) if g[0] == "chow"]


def two_chows_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    cands = [c for c in combinations(_chow_indices(groups), 2)
             if two_chows_fan(mid(groups[c[0]]), mid(groups[c[1]])) == fan_id]
    return [groups[i][1] for i in pick(cands, count)]


def three_chows_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    cands = [c for c in combinations(_chow_indices(groups), 3)
             if three_chows_fan(*sorted(mid(groups[i]) for i in c)) == fan_id]
    return [groups[i][1] for i in pick(cands, count)]


def four_chows_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    return [g[1] for g in groups if g[0] in ("chow", "pair")]


EXPLAINERS: dict[int, Explainer] = {
    **dict.fromkeys((FanId.PURE_DOUBLE_CHOW, FanId.MIXED_DOUBLE_CHOW, FanId.SHORT_STRAIGHT,
                     FanId.TWO_TERMINAL_CHOWS), two_chows_tiles),
    **dict.fromkeys((FanId.MIXED_SHIFTED_CHOWS, FanId.MIXED_TRIPLE_CHOW, FanId.MIXED_STRAIGHT, FanId.PURE_STRAIGHT,
                     FanId.PURE_SHIFTED_CHOWS, FanId.PURE_TRIPLE_CHOW), three_chows_tiles),
    **dict.fromkeys((FanId.FOUR_PURE_SHIFTED_CHOWS, FanId.QUADRUPLE_CHOW, FanId.PURE_TERMINAL_CHOWS,
                     FanId.THREE_SUITED_TERMINAL_CHOWS), four_chows_tiles),
}
