"""The MCR fan calculator: fan detection over decompositions (scoring.decompose), exclusions.

The algorithm follows the reference calculator (pymahjonggb 1.4.0, C++ by Jeff
Wang, MIT licence) step for step, so that the `mcr-reference` rule set agrees
with it hand for hand; the places where the `mcr` rule set follows the seed list
instead are options of `Options` (see docs/rules.md).

Tiles are the reference's integers (suit << 4 | rank, scoring.tiles); a pack is
offer << 12 | type << 8 | tile, where offer 0 means concealed.  A fan table is
a FanTable (fan id -> how many times the fan counts; ids from scoring.fans).

Flow (as in the reference): special forms first (七对, 十三幺, 全不靠/七星不靠,
组合龙 with the rest of the hand, 九莲宝灯), then every decomposition into four
sets and a pair; each is scored and the highest total wins (不拆移: a
decomposition is scored as a whole, tiles are never re-split between fans).
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import add

from . import fans as F
from .decompose import (ALL_TILES, CHOW, KONG, PAIR, PUNG, TC, TE, TF, TN, TP, TS, TW, _divide, clear_memos,
                        divisions_of, is_numbered, is_unique_waiting)

THIRTEEN_ORPHANS = (0x11, 0x19, 0x21, 0x29, 0x31, 0x39, TE, TS, TW, TN, TC, TF, TP)
KNITTED_STRAIGHTS = tuple(
    tuple(sorted(base + r for base, ranks in zip((0x10, 0x20, 0x30), perm) for r in ranks))
    for perm in (((1, 4, 7), (2, 5, 8), (3, 6, 9)), ((1, 4, 7), (3, 6, 9), (2, 5, 8)),
                 ((2, 5, 8), (1, 4, 7), (3, 6, 9)), ((2, 5, 8), (3, 6, 9), (1, 4, 7)),
                 ((3, 6, 9), (1, 4, 7), (2, 5, 8)), ((3, 6, 9), (2, 5, 8), (1, 4, 7))))
GREEN = frozenset((0x22, 0x23, 0x24, 0x26, 0x28, TF))
REVERSIBLE = frozenset((0x22, 0x24, 0x25, 0x26, 0x28, 0x29, 0x31, 0x32, 0x33, 0x34, 0x35, 0x38, 0x39, TP))
TERMINALS = frozenset((0x11, 0x19, 0x21, 0x29, 0x31, 0x39))
WINDS = frozenset((TE, TS, TW, TN))
DRAGONS = frozenset((TC, TF, TP))
HONORS = WINDS | DRAGONS
TERMINALS_OR_HONORS = TERMINALS | HONORS

WIN_SELF_DRAWN, WIN_LAST_TILE, WIN_KONG, WIN_WALL_LAST = 1, 2, 4, 8


@dataclass(frozen=True)
class Options:
    """The knobs where rule sets differ (each documented in docs/rules.md)."""
    concealed_and_melded_kong: bool = True   # 明暗杠 5 (reference) instead of 明杠 1 + 暗杠 2
    seven_pairs_set_fans: bool = True        # 七对 combines with 绿一色, 字一色, 清幺九, 混幺九, 全大 ...
    knitted_straight_body_waits: bool = True  # MIL: 边张/嵌张/单钓 may be read inside the 组合龙 body


REFERENCE = Options()


class NotWinning(Exception):
    pass


class FanTable(dict):
    """fan id -> count; a missing fan counts 0 (the reference's zero-filled array, sparse)."""
    __slots__ = ()

    def __missing__(self, key):
        return 0


# ---------------------------------------------------------------- set fans

def _shifted_1_unordered(r0, r1, r2) -> bool:
    lo = min(r0, r1, r2)
    return sorted((r0, r1, r2)) == [lo, lo + 1, lo + 2]


def _four_chows_fan(t0, t1, t2, t3) -> int:
    if t0 + 2 == t1 and t1 + 2 == t2 and t2 + 2 == t3:
        return F.FOUR_PURE_SHIFTED_CHOWS
    if t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3:
        return F.FOUR_PURE_SHIFTED_CHOWS
    if t0 == t1 == t2 == t3:
        return F.QUADRUPLE_CHOW
    return 0


def three_chows_fan(t0, t1, t2) -> int:
    s0, s1, s2 = t0 >> 4, t1 >> 4, t2 >> 4
    r0, r1, r2 = t0 & 0xF, t1 & 0xF, t2 & 0xF
    if s0 != s1 and s0 != s2 and s1 != s2:
        if _shifted_1_unordered(r0, r1, r2):
            return F.MIXED_SHIFTED_CHOWS
        if r0 == r1 == r2:
            return F.MIXED_TRIPLE_CHOW
        if sorted((r0, r1, r2)) == [2, 5, 8]:
            return F.MIXED_STRAIGHT
    else:
        if t0 + 3 == t1 and t1 + 3 == t2:
            return F.PURE_STRAIGHT
        if t0 + 2 == t1 and t1 + 2 == t2:
            return F.PURE_SHIFTED_CHOWS
        if t0 + 1 == t1 and t1 + 1 == t2:
            return F.PURE_SHIFTED_CHOWS
        if t0 == t1 == t2:
            return F.PURE_TRIPLE_CHOW
    return 0


def two_chows_fan(t0, t1) -> int:
    if (t0 & 0xF0) != (t1 & 0xF0):
        if (t0 & 0xCF) == (t1 & 0xCF):
            return F.MIXED_DOUBLE_CHOW
    else:
        if t0 + 3 == t1 or t1 + 3 == t0:
            return F.SHORT_STRAIGHT
        r0, r1 = t0 & 0xF, t1 & 0xF
        if (r0 == 2 and r1 == 8) or (r0 == 8 and r1 == 2):
            return F.TWO_TERMINAL_CHOWS
        if t0 == t1:
            return F.PURE_DOUBLE_CHOW
    return 0


def _four_pungs_fan(t0, t1, t2, t3) -> int:
    if is_numbered(t0) and t0 + 1 == t1 and t1 + 1 == t2 and t2 + 1 == t3:
        return F.FOUR_PURE_SHIFTED_PUNGS
    if (t0, t1, t2, t3) == (TE, TS, TW, TN):
        return F.BIG_FOUR_WINDS
    return 0


def three_pungs_fan(t0, t1, t2) -> int:
    if is_numbered(t0) and is_numbered(t1) and is_numbered(t2):
        s0, s1, s2 = t0 >> 4, t1 >> 4, t2 >> 4
        r0, r1, r2 = t0 & 0xF, t1 & 0xF, t2 & 0xF
        if s0 != s1 and s0 != s2 and s1 != s2:
            if _shifted_1_unordered(r0, r1, r2):
                return F.MIXED_SHIFTED_PUNGS
            if r0 == r1 == r2:
                return F.TRIPLE_PUNG
        elif t0 + 1 == t1 and t1 + 1 == t2:
            return F.PURE_SHIFTED_PUNGS
    else:
        if (t0, t1, t2) in ((TE, TS, TW), (TE, TS, TN), (TE, TW, TN), (TS, TW, TN)):
            return F.BIG_THREE_WINDS
        if (t0, t1, t2) == (TC, TF, TP):
            return F.BIG_THREE_DRAGONS
    return 0


def two_pungs_fan(t0, t1) -> int:
    if is_numbered(t0) and is_numbered(t1):
        if (t0 & 0xCF) == (t1 & 0xCF):
            return F.DOUBLE_PUNG
    elif t0 in DRAGONS and t1 in DRAGONS:
        return F.TWO_DRAGONS_PUNGS
    return 0


def _one_chow_extra_fan(t0, t1, t2, extra) -> int:
    found = (two_chows_fan(t0, extra), two_chows_fan(t1, extra), two_chows_fan(t2, extra))
    for fan in (F.PURE_DOUBLE_CHOW, F.MIXED_DOUBLE_CHOW, F.SHORT_STRAIGHT, F.TWO_TERMINAL_CHOWS):
        if fan in found:
            return fan
    return 0


def _exclusionary_rule(all_fans, max_cnt, table) -> None:
    """套算一次 (account once): each chow combines into at most one small chow-pair fan
    with any other chow; keep at most max_cnt of them, dropping the cheapest kinds first."""
    counts = [0, 0, 0, 0]
    cnt = 0
    for fan in all_fans:
        if fan:
            cnt += 1
            counts[fan - F.PURE_DOUBLE_CHOW] += 1
    limit = 1
    while cnt > max_cnt and limit >= 0:
        idx = 4
        while cnt > max_cnt and idx > 0:
            idx -= 1
            while counts[idx] > limit and cnt > max_cnt:
                counts[idx] -= 1
                cnt -= 1
        limit -= 1
    table[F.PURE_DOUBLE_CHOW] = counts[0]
    table[F.MIXED_DOUBLE_CHOW] = counts[1]
    table[F.SHORT_STRAIGHT] = counts[2]
    table[F.TWO_TERMINAL_CHOWS] = counts[3]


def _three_of_four_chows(t0, t1, t2, extra, table) -> bool:
    fan = three_chows_fan(t0, t1, t2)
    if fan:
        table[fan] = 1
        fan = _one_chow_extra_fan(t0, t1, t2, extra)
        if fan:
            table[fan] = 1
        return True
    return False


def _four_chows(m, table) -> None:
    fan = _four_chows_fan(*m)
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
        _exclusionary_rule(a, max_cnt, table)


def _three_chows(m, table) -> None:
    fan = three_chows_fan(*m)
    if fan:
        table[fan] = 1
        return
    _exclusionary_rule([two_chows_fan(m[0], m[1]), two_chows_fan(m[0], m[2]), two_chows_fan(m[1], m[2])], 2, table)


def _kongs(concealed_pungs, melded_kongs, concealed_kongs, table, opts: Options) -> None:
    kongs = melded_kongs + concealed_kongs
    if kongs == 0:
        if concealed_pungs == 2:
            table[F.TWO_CONCEALED_PUNGS] = 1
        elif concealed_pungs == 3:
            table[F.THREE_CONCEALED_PUNGS] = 1
        elif concealed_pungs == 4:
            table[F.FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 1:
        if melded_kongs == 1:
            table[F.MELDED_KONG] = 1
            if concealed_pungs == 2:
                table[F.TWO_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 3:
                table[F.THREE_CONCEALED_PUNGS] = 1
        else:
            table[F.CONCEALED_KONG] = 1
            if concealed_pungs == 1:
                table[F.TWO_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 2:
                table[F.THREE_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 3:
                table[F.FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 2:
        if concealed_kongs == 0:
            table[F.TWO_MELDED_KONGS] = 1
            if concealed_pungs == 2:
                table[F.TWO_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 1:
            if opts.concealed_and_melded_kong:
                table[F.CONCEALED_KONG_AND_MELDED_KONG] = 1
            else:
                table[F.MELDED_KONG] = 1
                table[F.CONCEALED_KONG] = 1
            if concealed_pungs == 1:
                table[F.TWO_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 2:
                table[F.THREE_CONCEALED_PUNGS] = 1
        else:
            table[F.TWO_CONCEALED_KONGS] = 1
            if concealed_pungs == 1:
                table[F.THREE_CONCEALED_PUNGS] = 1
            elif concealed_pungs == 2:
                table[F.FOUR_CONCEALED_PUNGS] = 1
    elif kongs == 3:
        table[F.THREE_KONGS] = 1
        if concealed_kongs == 1:
            if concealed_pungs > 0:
                table[F.TWO_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 2:
            table[F.TWO_CONCEALED_PUNGS if concealed_pungs == 0 else F.THREE_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 3:
            table[F.THREE_CONCEALED_PUNGS if concealed_pungs == 0 else F.FOUR_CONCEALED_PUNGS] = 1
    else:
        table[F.FOUR_KONGS] = 1
        if concealed_kongs == 2:
            table[F.TWO_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 3:
            table[F.THREE_CONCEALED_PUNGS] = 1
        elif concealed_kongs == 4:
            table[F.FOUR_CONCEALED_PUNGS] = 1


def _four_pungs(m, table) -> None:
    fan = _four_pungs_fan(*m)
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


def _three_pungs(m, table) -> None:
    fan = three_pungs_fan(*m)
    if fan:
        table[fan] = 1
        return
    for i, j in ((0, 1), (0, 2), (1, 2)):
        fan = two_pungs_fan(m[i], m[j])
        if fan:
            table[fan] += 1


def _pure_terminal_chows(chows, pair_tile) -> bool:
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


def _three_suited_terminal_chows(chows, pair_tile) -> bool:
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


# ---------------------------------------------------------------- whole-hand traits

def _adjust_by_win_flag(win_flag, table) -> None:
    if win_flag & WIN_LAST_TILE:
        table[F.LAST_TILE] = 1
    if win_flag & WIN_SELF_DRAWN:
        table[F.SELF_DRAWN] = 1
        if win_flag & WIN_WALL_LAST:
            table[F.LAST_TILE_DRAW] = 1
            table[F.SELF_DRAWN] = 0
        if win_flag & WIN_KONG:
            table[F.OUT_WITH_REPLACEMENT_TILE] = 1
            table[F.SELF_DRAWN] = 0
    else:
        if win_flag & WIN_WALL_LAST:
            table[F.LAST_TILE_CLAIM] = 1
        if win_flag & WIN_KONG:
            table[F.ROBBING_THE_KONG] = 1
            table[F.LAST_TILE] = 0


def _adjust_by_self_drawn(packs, fixed_cnt, self_drawn, table) -> None:
    melded = sum(1 for p in packs[:fixed_cnt] if p & 0x3000)
    if melded == 0:
        table[F.FULLY_CONCEALED_HAND if self_drawn else F.CONCEALED_HAND] = 1
    elif melded == 4:
        table[F.SELF_DRAWN if self_drawn else F.MELDED_HAND] = 1
    elif self_drawn:
        table[F.SELF_DRAWN] = 1


def _adjust_by_pair_tile(pair_tile, chow_cnt, table) -> None:
    if chow_cnt == 4:
        if is_numbered(pair_tile):
            table[F.ALL_CHOWS] = 1
        return
    if table[F.TWO_DRAGONS_PUNGS]:
        if pair_tile in DRAGONS:
            table[F.LITTLE_THREE_DRAGONS] = 1
            table[F.TWO_DRAGONS_PUNGS] = 0
        return
    if table[F.BIG_THREE_WINDS]:
        if pair_tile in WINDS:
            table[F.LITTLE_FOUR_WINDS] = 1
            table[F.BIG_THREE_WINDS] = 0


def _adjust_by_suits(unique, table) -> None:
    flag = 0
    for t in unique:
        flag |= 1 << (t >> 4)
    if not flag & 0xF1:
        table[F.NO_HONORS] = 1
    voided = (not flag & 0xE3) + (not flag & 0xE5) + (not flag & 0xE9)
    table[F.ONE_VOIDED_SUIT] += voided
    if table[F.ONE_VOIDED_SUIT] == 2:
        table[F.ONE_VOIDED_SUIT] = 0
        if table[F.NO_HONORS] == 0:
            table[F.HALF_FLUSH] = 1
        else:
            table[F.FULL_FLUSH] = 1
            table[F.NO_HONORS] = 0
    if flag == 0x1E:
        if not WINDS.isdisjoint(unique) and not DRAGONS.isdisjoint(unique):
            table[F.ALL_TYPES] = 1


def _adjust_by_rank_range(unique, table) -> None:
    flag = 0
    for t in unique:
        if t & 0xC0:
            return
        flag |= 1 << (t & 0xF)
    if not flag & 0xFFE1:
        table[F.LOWER_FOUR if flag & 0x10 else F.LOWER_TILES] = 1
    elif not flag & 0xFC3F:
        table[F.UPPER_FOUR if flag & 0x40 else F.UPPER_TILES] = 1
    elif not flag & 0xFF8F:
        table[F.MIDDLE_TILES] = 1


def _pack_trait(pack: int) -> int:
    """The one of 全带幺 / 全带五 / 全双刻 that a pack (a set or the pair) is fit for, or 0."""
    t = pack & 0xFF
    if t & 0xC0:
        return F.OUTSIDE_HAND
    r = t & 0xF
    if (pack >> 8) & 0xF == CHOW:
        return F.OUTSIDE_HAND if r == 2 or r == 8 else F.ALL_FIVE if 4 <= r <= 6 else 0
    return (F.OUTSIDE_HAND if r == 1 or r == 9 else F.ALL_FIVE if r == 5
            else F.ALL_EVEN_PUNGS if r in (2, 4, 6, 8) else 0)


_PACK_TRAITS = {offer << 12 | kind << 8 | t: _pack_trait(kind << 8 | t)
                for offer in range(4) for kind in (CHOW, PUNG, KONG, PAIR) for t in ALL_TILES}


def _adjust_by_packs_traits(packs, table) -> None:
    """全带幺, 全带五 or 全双刻 when all five packs share the trait."""
    traits = set(map(_PACK_TRAITS.__getitem__, packs))
    if len(traits) == 1:
        fan = traits.pop()
        if fan:
            table[fan] = 1


def _adjust_by_tiles_traits(unique, table, set_fans: bool = True) -> None:
    if TERMINALS_OR_HONORS.isdisjoint(unique):
        table[F.ALL_SIMPLES] = 1
    if REVERSIBLE.issuperset(unique):
        table[F.REVERSIBLE_TILES] = 1
    if not set_fans:
        return
    if GREEN.issuperset(unique):
        table[F.ALL_GREEN] = 1
    if table[F.ALL_SIMPLES]:
        return
    if HONORS.issuperset(unique):
        table[F.ALL_HONORS] = 1
        return
    if TERMINALS.issuperset(unique):
        table[F.ALL_TERMINALS] = 1
        return
    if TERMINALS_OR_HONORS.issuperset(unique):
        table[F.ALL_TERMINALS_AND_HONORS] = 1


def _waiting_form(concealed_packs, win_tile) -> int:
    """边张 / 嵌张 / 单钓将 as the concealed packs place the winning tile (before the 独听 check)."""
    pos = 0
    for p in concealed_packs:
        kind = (p >> 8) & 0xF
        t = p & 0xFF
        if kind == CHOW:
            if t == win_tile:
                pos |= 2
            elif t + 1 == win_tile or t - 1 == win_tile:
                pos |= 1
        elif kind == PAIR and t == win_tile:
            pos |= 4
    if pos & 1:
        return F.EDGE_WAIT
    if pos & 2:
        return F.CLOSED_WAIT
    if pos & 4:
        return F.SINGLE_WAIT
    return 0


def _adjust_by_waiting_form(concealed_packs, win_tile, table) -> None:
    if table[F.MELDED_HAND] or table[F.FOUR_KONGS]:
        return
    fan = _waiting_form(concealed_packs, win_tile)
    if fan:
        table[fan] = 1


_EXCLUDES = {f.id: tuple(F.BY_KEY[k].id for k in f.excludes) for f in F.FANS}
# the fans that change others: those with a 不计 list, and the two special cases below
_EXCLUDING = frozenset(f for f, excluded in _EXCLUDES.items() if excluded) | {F.FOUR_CONCEALED_PUNGS,
                                                                                F.BIG_THREE_WINDS}


def apply_exclusions(table) -> None:
    """不重复 / 不计: drop every fan a present fan excludes, in fan-id order (data: scoring.fans)."""
    for fan_id in sorted(table.keys() & _EXCLUDING):
        if not table[fan_id]:
            continue
        if fan_id == F.FOUR_CONCEALED_PUNGS and table[F.FULLY_CONCEALED_HAND]:
            # 四暗刻 implies 门前清 but not the self-draw: 不求人 falls back to 自摸
            table[F.SELF_DRAWN] = 1
        for other in _EXCLUDES[fan_id]:
            if other in table:
                table[other] = 0
        if fan_id == F.BIG_THREE_WINDS and not table[F.ALL_HONORS] and not table[F.ALL_TERMINALS_AND_HONORS]:
            # 套算一次: the three wind pungs of 三风刻 do not also count as 幺九刻
            table[F.PUNG_OF_TERMINALS_OR_HONORS] -= 3


def _adjust_by_winds(tile, prevalent, seat, table) -> None:
    deducted = (table[F.BIG_THREE_WINDS] or table[F.ALL_TERMINALS_AND_HONORS] or table[F.ALL_HONORS]
                or table[F.LITTLE_FOUR_WINDS])
    delta = tile - TE
    if delta == prevalent:
        table[F.PREVALENT_WIND] = 1
        if not deducted:
            table[F.PUNG_OF_TERMINALS_OR_HONORS] -= 1
    if delta == seat:
        table[F.SEAT_WIND] = 1
        if seat != prevalent and not deducted:
            table[F.PUNG_OF_TERMINALS_OR_HONORS] -= 1


# ---------------------------------------------------------------- regular hands

_CHOW_MEMO: dict = {}     # a few thousand chow combinations at most
_PUNG_MEMO: dict = {}
_TRAITS_MEMO: dict = {}


def _chow_fans(chow_mids: tuple, pair_tile: int) -> tuple:
    """Fans of the chows among themselves (memoised); the pair only matters with four chows."""
    key = (chow_mids, pair_tile)
    found = _CHOW_MEMO.get(key)
    if found is not None:
        return found
    table = FanTable()
    chow_cnt = len(chow_mids)
    if chow_cnt == 4:
        if _three_suited_terminal_chows(chow_mids, pair_tile):
            table[F.THREE_SUITED_TERMINAL_CHOWS] = 1
        elif _pure_terminal_chows(chow_mids, pair_tile):
            table[F.PURE_TERMINAL_CHOWS] = 1
        else:
            _four_chows(chow_mids, table)
    elif chow_cnt == 3:
        _three_chows(chow_mids, table)
    elif chow_cnt == 2:
        fan = two_chows_fan(chow_mids[0], chow_mids[1])
        if fan:
            table[fan] += 1
    found = _CHOW_MEMO[key] = tuple((f, n) for f, n in table.items() if n)
    return found


def _pung_fans(pung_tiles: tuple) -> tuple:
    """Fans of the pungs and kongs, alone and among themselves (memoised)."""
    found = _PUNG_MEMO.get(pung_tiles)
    if found is not None:
        return found
    table = FanTable()
    for t in pung_tiles:
        if t in DRAGONS:
            table[F.DRAGON_PUNG] += 1
        elif t in TERMINALS or t in WINDS:
            table[F.PUNG_OF_TERMINALS_OR_HONORS] += 1
    n = len(pung_tiles)
    if n == 4:
        _four_pungs(pung_tiles, table)
    elif n == 3:
        _three_pungs(pung_tiles, table)
    elif n == 2:
        fan = two_pungs_fan(pung_tiles[0], pung_tiles[1])
        if fan:
            table[fan] += 1
    found = _PUNG_MEMO[pung_tiles] = tuple((f, n) for f, n in table.items() if n)
    return found


def _traits_fans(unique: tuple, seven_pairs_set_fans: bool = True) -> tuple:
    """The fans that depend only on which tile kinds the hand holds (memoised)."""
    key = (unique, seven_pairs_set_fans)
    found = _TRAITS_MEMO.get(key)
    if found is not None:
        return found
    table = FanTable()
    _adjust_by_suits(unique, table)
    _adjust_by_tiles_traits(unique, table)
    _adjust_by_rank_range(unique, table)
    if len(_TRAITS_MEMO) > 200_000:
        _TRAITS_MEMO.clear()
    found = _TRAITS_MEMO[key] = tuple((f, n) for f, n in table.items() if n)
    return found


def _regular_fan(packs, fixed_cnt, hog, unique, win_tile, win_flag, prevalent, seat,
                 unique_waiting, opts: Options, table) -> None:
    """Score one decomposition (4 sets + pair, fixed packs first) into `table`.
    hog: tile kinds held four times outside kongs (四归一 candidates); unique: tuple of tile kinds;
    unique_waiting: a function answering whether the hand waited on one tile only (独听)."""
    pair_tile = 0
    chows: list = []
    pungs: list = []
    concealed_pungs = melded_kongs = concealed_kongs = 0
    for p in packs:
        kind = (p >> 8) & 0xF
        if kind == CHOW:
            chows.append(p)
        elif kind == PUNG:
            pungs.append(p)
            if not p & 0x3000:
                concealed_pungs += 1
        elif kind == KONG:
            pungs.append(p)
            if p & 0x3000:
                melded_kongs += 1
            else:
                concealed_kongs += 1
        else:
            pair_tile = p & 0xFF
    _adjust_by_win_flag(win_flag, table)
    if not win_flag & WIN_SELF_DRAWN and concealed_pungs:
        # a pung completed by a discard is not concealed, unless a concealed chow could take the tile
        if not any(not c & 0x3000 and (c & 0xFF) - 1 <= win_tile <= (c & 0xFF) + 1 for c in chows):
            for p in pungs:
                if p & 0xFF == win_tile and not p & 0x3000:
                    concealed_pungs -= 1
    if pungs:
        _kongs(concealed_pungs, melded_kongs, concealed_kongs, table, opts)
        if len(pungs) == 4 and not table[F.FOUR_KONGS] and not table[F.FOUR_CONCEALED_PUNGS]:
            table[F.ALL_PUNGS] = 1
    chow_mids = tuple(sorted([c & 0xFF for c in chows]))
    for fan, n in _chow_fans(chow_mids, pair_tile if len(chow_mids) == 4 else 0):
        table[fan] = n
    if pungs:
        for fan, n in _pung_fans(tuple(sorted([p & 0xFF for p in pungs]))):
            table[fan] = n
    _adjust_by_self_drawn(packs, fixed_cnt, bool(win_flag & WIN_SELF_DRAWN), table)
    _adjust_by_pair_tile(pair_tile, len(chows), table)
    _adjust_by_packs_traits(packs, table)
    for fan, n in _traits_fans(unique):
        table[fan] = n
    if hog and not table[F.QUADRUPLE_CHOW]:
        table[F.TILE_HOG] = hog
    if not table[F.MELDED_HAND] and not table[F.FOUR_KONGS]:
        fan = _waiting_form(packs[fixed_cnt:], win_tile)
        if fan and unique_waiting():
            table[fan] = 1
    apply_exclusions(table)
    if not table[F.BIG_FOUR_WINDS]:
        for p in pungs:
            t = p & 0xFF
            if t in WINDS:
                _adjust_by_winds(t, prevalent, seat, table)
    if not any(table.values()):
        table[F.CHICKEN_HAND] = 1


# ---------------------------------------------------------------- special forms

def _knitted_straight_fan(fixed_packs, fixed_table, standing, win_tile, win_flag, prevalent, seat,
                          opts: Options, table):
    """组合龙 with one more set and a pair (门清 or with one meld); returns the packs or None."""
    if not (standing[0x11] and standing[0x14] and standing[0x17] or standing[0x12] and standing[0x15]
            and standing[0x18] or standing[0x13] and standing[0x16] and standing[0x19]):
        return None     # no 147, 258 or 369 of characters: no 组合龙
    if not any(n > 1 for n in standing):
        return None
    seq = next((s for s in KNITTED_STRAIGHTS if all(standing[t] for t in s)), None)
    if seq is None:
        return None
    rest = list(standing)
    for t in seq:
        rest[t] -= 1
    fixed_cnt = len(fixed_packs)
    work = [0, 0, 0, 0, 0]
    if fixed_cnt == 1:
        work[3] = fixed_packs[0]
    result: list = []
    _divide(rest, fixed_cnt + 3, 0, 0, work, result)
    if len(result) != 1:
        return None
    packs = result[0]
    other = packs[3]
    pair_tile = packs[4] & 0xFF
    table[F.KNITTED_STRAIGHT] = 1
    other_type = (other >> 8) & 0xF
    if other_type == CHOW:
        if is_numbered(pair_tile):
            table[F.ALL_CHOWS] = 1
        if fixed_table[pair_tile] + standing[pair_tile] == 4:
            table[F.TILE_HOG] = 1
    else:
        t = other & 0xFF
        if t in HONORS:
            if t in WINDS:
                table[F.PUNG_OF_TERMINALS_OR_HONORS] = 1
                _adjust_by_winds(t, prevalent, seat, table)
                if pair_tile in DRAGONS:
                    table[F.ALL_TYPES] = 1
            else:
                table[F.DRAGON_PUNG] = 1
                if pair_tile in WINDS:
                    table[F.ALL_TYPES] = 1
        else:
            if t in TERMINALS:
                table[F.PUNG_OF_TERMINALS_OR_HONORS] = 1
            if pair_tile not in HONORS:
                table[F.NO_HONORS] = 1
            if other_type != KONG and fixed_table[t] + standing[t] == 4:
                table[F.TILE_HOG] = 1
    _adjust_by_win_flag(win_flag, table)
    if other & 0x3000:
        if other_type == KONG:
            table[F.MELDED_KONG] = 1
    else:
        if other_type == KONG:
            table[F.CONCEALED_KONG] = 1
        if win_flag & WIN_SELF_DRAWN:
            table[F.FULLY_CONCEALED_HAND] = 1
            table[F.SELF_DRAWN] = 0
        else:
            table[F.CONCEALED_HAND] = 1
    in_body = win_tile in seq
    if fixed_cnt == 0:
        if (opts.knitted_straight_body_waits or not in_body) and rest[win_tile]:
            if is_unique_waiting(rest, 4, win_tile):
                _adjust_by_waiting_form(packs[3:5], win_tile, table)
    elif not in_body:
        table[F.SINGLE_WAIT] = 1
    elif opts.knitted_straight_body_waits and standing[win_tile] == 3:
        table[F.SINGLE_WAIT] = 1
    apply_exclusions(table)
    return {"form": "knitted_straight", "knitted": seq, "packs": packs[3:5]}


def _seven_shifted_pairs(standing, suit) -> bool:
    if suit == 4:
        return False
    t3 = (suit << 4) | 3
    if all(standing[t3 + i] == 2 for i in range(5)):
        if standing[t3 - 1] == 2:
            return standing[t3 - 2] == 2 or standing[t3 + 5] == 2
        return standing[t3 + 5] == 2 and standing[t3 + 6] == 2
    return False


def _special_form_fan(standing, win_tile, unique, win_flag, opts: Options, table):
    if not any(standing[t] & 1 for t in unique):
        suit = win_tile >> 4
        if _seven_shifted_pairs(standing, suit):
            table[F.SEVEN_SHIFTED_PAIRS] = 1
            if standing[(suit << 4) | 1] == 0 and standing[(suit << 4) | 9] == 0:
                table[F.ALL_SIMPLES] = 1
            _adjust_by_win_flag(win_flag, table)
            return {"form": "seven_shifted_pairs"}
        table[F.SEVEN_PAIRS] = 1
        _adjust_by_suits(unique, table)
        if not opts.seven_pairs_set_fans and table[F.ONE_VOIDED_SUIT] == 3:
            table[F.ONE_VOIDED_SUIT] = 0   # seven pairs of honours: no suit at all is not 缺一门
        _adjust_by_tiles_traits(unique, table, opts.seven_pairs_set_fans)
        if opts.seven_pairs_set_fans:
            _adjust_by_rank_range(unique, table)
        table[F.TILE_HOG] = sum(1 for t in unique if standing[t] == 4)
        _adjust_by_win_flag(win_flag, table)
        apply_exclusions(table)
        return {"form": "seven_pairs"}
    n = len(unique)
    if n == 14:
        numbered = [t for t in unique if not t & 0xC0]
        if 7 <= len(numbered) <= 9 and any(set(numbered) <= set(s) for s in KNITTED_STRAIGHTS):
            if len(numbered) == 7:   # all seven honours present
                table[F.GREATER_HONORS_AND_KNITTED_TILES] = 1
            else:
                table[F.LESSER_HONORS_AND_KNITTED_TILES] = 1
                if len(numbered) == 9:
                    table[F.KNITTED_STRAIGHT] = 1
            _adjust_by_win_flag(win_flag, table)
            return {"form": "honors_and_knitted"}
    if n == 13 and tuple(unique) == THIRTEEN_ORPHANS_SORTED:
        table[F.THIRTEEN_ORPHANS] = 1
        _adjust_by_win_flag(win_flag, table)
        return {"form": "thirteen_orphans"}
    return None


THIRTEEN_ORPHANS_SORTED = tuple(sorted(THIRTEEN_ORPHANS))


def _nine_gates_fan(standing, win_tile, win_flag, table):
    s = win_tile >> 4
    if s > 3:
        return None
    r = win_tile & 0xF
    base = s << 4
    one, nine = base | 1, base | 9
    if r == 1 or r == 9:
        if standing[win_tile] != 4 or standing[nine if r == 1 else one] != 3 or \
                any(standing[base | k] != 1 for k in range(2, 9)):
            return None
    else:
        if standing[win_tile] != 2 or standing[one] != 3 or standing[nine] != 3 or \
                any(standing[base | k] != 1 for k in range(2, 9) if k != r):
            return None
    table[F.NINE_GATES] = 1
    if r in (1, 9):
        table[F.PURE_STRAIGHT] = 1
        table[F.TILE_HOG] = 1
    elif r in (2, 8):
        table[F.TWO_CONCEALED_PUNGS] = 1
        table[F.SHORT_STRAIGHT] = 1
        table[F.PUNG_OF_TERMINALS_OR_HONORS] = 1
    elif r == 5:
        table[F.TWO_CONCEALED_PUNGS] = 1
        table[F.PUNG_OF_TERMINALS_OR_HONORS] = 1
    else:
        table[F.SHORT_STRAIGHT] = 1
    _adjust_by_win_flag(win_flag, table)
    return {"form": "nine_gates"}


# ---------------------------------------------------------------- entry point

def calculate(fixed_packs: list, standing_tiles: list, win_tile: int, win_flag: int,
              prevalent: int, seat: int, opts: Options = REFERENCE, values=None):
    """Score a hand. Returns (fan table, explanation dict with 'form' and 'packs').

    fixed_packs: packs of the melds (concealed kongs with offer 0); standing_tiles: the
    concealed tiles without the winning tile; values: points per fan id (default: the table).
    Raises NotWinning.
    """
    fixed_cnt = len(fixed_packs)
    fixed_table = [0] * 0x48
    held = set(standing_tiles)               # the tile kinds of the hand
    held.add(win_tile)
    kongs = 0
    for p in fixed_packs:
        t = p & 0xFF
        kind = (p >> 8) & 0xF
        if kind == CHOW:
            fixed_table[t - 1] += 1
            fixed_table[t] += 1
            fixed_table[t + 1] += 1
            held.update((t - 1, t + 1))
        else:
            fixed_table[t] += 4 if kind == KONG else 3
            kongs += kind == KONG
        held.add(t)
    standing = [0] * 0x48
    for t in standing_tiles:
        standing[t] += 1
    standing[win_tile] += 1
    unique = tuple(sorted(held))
    if standing[win_tile] != 1:
        win_flag &= ~WIN_LAST_TILE
    if fixed_table[win_tile] == 3:
        win_flag |= WIN_LAST_TILE
    if win_flag & WIN_KONG:
        if win_flag & WIN_SELF_DRAWN:
            if not kongs:
                win_flag &= ~WIN_KONG
        elif fixed_table[win_tile] or standing[win_tile] != 1:
            win_flag &= ~WIN_KONG
    if values is None:
        values = POINTS
    best = 0
    best_table = FanTable()
    explanation = None
    if fixed_cnt == 0:
        explanation = (_special_form_fan(standing, win_tile, unique, win_flag, opts, best_table)
                       or _knitted_straight_fan(fixed_packs, fixed_table, standing, win_tile, win_flag,
                                                prevalent, seat, opts, best_table)
                       or _nine_gates_fan(standing, win_tile, win_flag, best_table))
    elif fixed_cnt == 1:
        explanation = _knitted_straight_fan(fixed_packs, fixed_table, standing, win_tile, win_flag,
                                            prevalent, seat, opts, best_table)
    if explanation is not None:
        best = sum(values[f] * n for f, n in best_table.items())
    seven_pairs = bool(best_table[F.SEVEN_PAIRS])
    if best == 0 or seven_pairs:
        waits: list = []

        def unique_waiting() -> bool:
            if not waits:
                waits.append(is_unique_waiting(standing, len(standing_tiles), win_tile))
            return waits[0]

        # 四归一 candidates: kinds held four times, less the kongs
        hog = list(map(add, map(standing.__getitem__, unique), map(fixed_table.__getitem__, unique))).count(4) - kongs
        for packs in divisions_of(standing, fixed_packs):
            table = FanTable()
            _regular_fan(packs, fixed_cnt, hog, unique, win_tile, win_flag, prevalent, seat,
                         unique_waiting, opts, table)
            total = sum(values[f] * n for f, n in table.items())
            if total > best or (total == best and (table[F.PURE_TRIPLE_CHOW] == 1 or seven_pairs
                                                   or table[F.TRIPLE_PUNG])):
                best = total
                best_table = table
                explanation = {"form": "regular", "packs": packs}
    if best == 0:
        raise NotWinning()
    return best_table, explanation


POINTS = [0] + [f.points for f in F.FANS]


def clear_caches() -> None:
    """Forget every memoised pattern (benchmarks time a cold start with it)."""
    clear_memos()
    _CHOW_MEMO.clear()
    _PUNG_MEMO.clear()
    _TRAITS_MEMO.clear()
