"""The MCR fan calculator: applies the fan families (scoring.fans) to a hand in the reference's order.

The algorithm follows the reference calculator (pymahjonggb 1.4.0, C++ by Jeff
Wang, MIT licence) step for step, so that the `mcr-reference` rule set agrees
with it hand for hand; the places where the `mcr` rule set follows the seed list
instead are options of `Options` (see docs/rules.md).

Tiles are the reference's integers (suit << 4 | rank, scoring.tiles); a pack is
offer << 12 | type << 8 | tile, where offer 0 means concealed.  A fan table is
a FanTable (fan id -> how many times the fan counts; ids: scoring.fans.FanId).

Flow (as in the reference): special forms first (七对, 十三幺, 全不靠/七星不靠,
组合龙 with the rest of the hand, 九莲宝灯), then every decomposition into four
sets and a pair; each is scored and the highest total wins (不拆移: a
decomposition is scored as a whole, tiles are never re-split between fans).
"""
from __future__ import annotations

from dataclasses import dataclass
from operator import add
from typing import Callable, Optional, Sequence

from .decompose import CHOW, KONG, PUNG, clear_memos, divisions_of, is_unique_waiting
from .fans import FANS, FanId, FanTable, chows, honours, kongs, pungs, ranks, suits, traits, waits, win
from .fans.exclusions import apply_exclusions
from .fans.knitted import honors_and_knitted_fan, knitted_straight_fan
from .fans.nine_gates import nine_gates_fan
from .fans.seven_pairs import seven_pairs_fan
from .fans.thirteen_orphans import thirteen_orphans_fan
from .fans.win import WIN_KONG, WIN_LAST_TILE, WIN_SELF_DRAWN


@dataclass(frozen=True)
class Options:
    """The knobs where rule sets differ (each documented in docs/rules.md)."""
    concealed_and_melded_kong: bool = True   # 明暗杠 5 (reference) instead of 明杠 1 + 暗杠 2
    seven_pairs_set_fans: bool = True        # 七对 combines with 绿一色, 字一色, 清幺九, 混幺九, 全大 ...
    knitted_straight_body_waits: bool = True  # MIL: 边张/嵌张/单钓 may be read inside the 组合龙 body


REFERENCE = Options()
POINTS = [0] + [f.points for f in FANS]

# As in the reference, 七对 and 组合龙 apply 不计; 连七对, 十三幺, 全不靠/七星不靠 and 九莲宝灯 list their fans as is.
_FORMS_WITH_EXCLUSIONS = ("seven_pairs", "knitted_straight")


class NotWinning(Exception):
    pass


_TRAITS_MEMO: dict[tuple[tuple[int, ...], bool], tuple[tuple[int, int], ...]] = {}


def _tile_fans(unique: tuple[int, ...], seven_pairs_set_fans: bool = True) -> tuple[tuple[int, int], ...]:
    """(fan, count) of the fans that depend only on which tile kinds the hand holds (memoised)."""
    key = (unique, seven_pairs_set_fans)
    found = _TRAITS_MEMO.get(key)
    if found is not None:
        return found
    table = FanTable()
    suits.suit_fans(unique, table)
    traits.tile_kind_fans(unique, table)
    ranks.rank_range_fans(unique, table)
    if len(_TRAITS_MEMO) > 200_000:
        _TRAITS_MEMO.clear()
    found = _TRAITS_MEMO[key] = tuple((f, n) for f, n in table.items() if n)
    return found


def _regular_fan(packs: Sequence[int], fixed_cnt: int, hog: int, unique: tuple[int, ...], win_tile: int,
                 win_flag: int, prevalent: int, seat: int, unique_waiting: Callable[[], bool], opts: Options,
                 table: FanTable) -> None:
    """Score one decomposition (4 sets + pair, fixed packs first) into `table`.
    hog: tile kinds held four times outside kongs (四归一 candidates); unique: tuple of tile kinds;
    unique_waiting: a function answering whether the hand waited on one tile only (独听)."""
    pair_tile = 0
    chow_packs: list[int] = []
    pung_packs: list[int] = []
    concealed_pungs = melded_kongs = concealed_kongs = 0
    for p in packs:
        kind = (p >> 8) & 0xF
        if kind == CHOW:
            chow_packs.append(p)
        elif kind == PUNG:
            pung_packs.append(p)
            if not p & 0x3000:
                concealed_pungs += 1
        elif kind == KONG:
            pung_packs.append(p)
            if p & 0x3000:
                melded_kongs += 1
            else:
                concealed_kongs += 1
        else:
            pair_tile = p & 0xFF
    win.win_flag_fans(win_flag, table)
    concealed_pungs = kongs.concealed_pungs_after_discard(concealed_pungs, chow_packs, pung_packs, win_tile,
                                                          bool(win_flag & WIN_SELF_DRAWN))
    if pung_packs:
        kongs.kong_fans(concealed_pungs, melded_kongs, concealed_kongs, table, opts.concealed_and_melded_kong)
        pungs.all_pungs(len(pung_packs), table)
    chow_mids = tuple(sorted([c & 0xFF for c in chow_packs]))
    for fan, n in chows.chow_fans(chow_mids, pair_tile if len(chow_mids) == 4 else 0):
        table[fan] = n
    pung_tiles = [p & 0xFF for p in pung_packs]
    if pung_packs:
        for fan, n in pungs.pung_fans(tuple(sorted(pung_tiles))):
            table[fan] = n
    win.concealment_fans(packs, fixed_cnt, bool(win_flag & WIN_SELF_DRAWN), table)
    chows.all_chows(pair_tile, len(chow_packs), table)
    honours.little_honours(pair_tile, table)
    ranks.pack_rank_fans(packs, table)
    for fan, n in _tile_fans(unique):
        table[fan] = n
    traits.tile_hog(hog, table)
    waits.regular_wait_fan(packs[fixed_cnt:], win_tile, unique_waiting, table)
    apply_exclusions(table)
    honours.wind_pungs(pung_tiles, prevalent, seat, table)
    win.chicken_hand(table)


def _special_form_fan(fixed_packs: list[int], fixed_table: list[int], standing: list[int], win_tile: int,
                      unique: tuple[int, ...], win_flag: int, prevalent: int, seat: int, opts: Options,
                      table: FanTable) -> Optional[dict]:
    """The special forms in the reference's order, with their 不计; None if the hand has none."""
    if len(fixed_packs) == 0:
        explanation = (seven_pairs_fan(standing, win_tile, unique, win_flag, opts.seven_pairs_set_fans, table)
                       or honors_and_knitted_fan(unique, win_flag, table)
                       or thirteen_orphans_fan(unique, win_flag, table)
                       or knitted_straight_fan(fixed_packs, fixed_table, standing, win_tile, win_flag, prevalent,
                                               seat, opts.knitted_straight_body_waits, table)
                       or nine_gates_fan(standing, win_tile, win_flag, table))
    elif len(fixed_packs) == 1:
        explanation = knitted_straight_fan(fixed_packs, fixed_table, standing, win_tile, win_flag, prevalent,
                                           seat, opts.knitted_straight_body_waits, table)
    else:
        return None
    if explanation is not None and explanation["form"] in _FORMS_WITH_EXCLUSIONS:
        apply_exclusions(table)
    return explanation


def calculate(fixed_packs: list, standing_tiles: list, win_tile: int, win_flag: int,
              prevalent: int, seat: int, opts: Options = REFERENCE, values=None) -> tuple[FanTable, dict]:
    """Score a hand. Returns (fan table, explanation dict with 'form' and 'packs').

    fixed_packs: packs of the melds (concealed kongs with offer 0); standing_tiles: the
    concealed tiles without the winning tile; values: points per fan id (default: the table).
    Raises NotWinning.
    """
    fixed_cnt = len(fixed_packs)
    fixed_table = [0] * 0x48
    held = set(standing_tiles)               # the tile kinds of the hand
    held.add(win_tile)
    kong_cnt = 0
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
            kong_cnt += kind == KONG
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
            if not kong_cnt:
                win_flag &= ~WIN_KONG
        elif fixed_table[win_tile] or standing[win_tile] != 1:
            win_flag &= ~WIN_KONG
    if values is None:
        values = POINTS
    best = 0
    best_table = FanTable()
    explanation = _special_form_fan(fixed_packs, fixed_table, standing, win_tile, unique, win_flag, prevalent, seat,
                                    opts, best_table)
    if explanation is not None:
        best = sum(values[f] * n for f, n in best_table.items())
    seven_pairs = bool(best_table[FanId.SEVEN_PAIRS])
    if best == 0 or seven_pairs:
        waits_found: list[bool] = []

        def unique_waiting() -> bool:
            if not waits_found:
                waits_found.append(is_unique_waiting(standing, len(standing_tiles), win_tile))
            return waits_found[0]

        # 四归一 candidates: kinds held four times, less the kongs
        hog = list(map(add, map(standing.__getitem__, unique), map(fixed_table.__getitem__, unique))).count(4) - kong_cnt
        for packs in divisions_of(standing, fixed_packs):
            table = FanTable()
            _regular_fan(packs, fixed_cnt, hog, unique, win_tile, win_flag, prevalent, seat,
                         unique_waiting, opts, table)
            total = sum(values[f] * n for f, n in table.items())
            if total > best or (total == best and (table[FanId.PURE_TRIPLE_CHOW] == 1 or seven_pairs
                                                   or table[FanId.TRIPLE_PUNG])):
                best = total
                best_table = table
                explanation = {"form": "regular", "packs": packs}
    if best == 0 or explanation is None:
        raise NotWinning()
    return best_table, explanation


def clear_caches() -> None:
    """Forget every memoised pattern (benchmarks time a cold start with it)."""
    clear_memos()
    chows.clear_memo()
    pungs.clear_memo()
    _TRAITS_MEMO.clear()
