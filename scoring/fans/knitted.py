"""Knitted forms: 全不靠 and 七星不靠 (Lesser / Greater Honors and Knitted Tiles), and 组合龙
(Knitted Straight), alone in those or with one more set and a pair."""
from __future__ import annotations

from typing import Optional

from ..decompose import CHOW, KONG, _divide, is_numbered, is_unique_waiting
from .fan import Explainer, FanId, FanTable, Group, row
from .honours import wind_pung
from .kinds import DRAGONS, HONORS, TERMINALS, WINDS
from .waits import wait_fan
from .win import WIN_SELF_DRAWN, win_flag_fans

ROWS = (
    row(FanId.GREATER_HONORS_AND_KNITTED_TILES, "七星不靠", "Greater Honors and Knitted Tiles", 24,
        FanId.ALL_TYPES, FanId.FULLY_CONCEALED_HAND, FanId.SINGLE_WAIT, FanId.LESSER_HONORS_AND_KNITTED_TILES),
    row(FanId.LESSER_HONORS_AND_KNITTED_TILES, "全不靠", "Lesser Honors and Knitted Tiles", 12,
        FanId.ALL_TYPES, FanId.FULLY_CONCEALED_HAND, FanId.SINGLE_WAIT),
    row(FanId.KNITTED_STRAIGHT, "组合龙", "Knitted Straight", 12),
)

# 147, 258 and 369 in the three suits, one suit each: the six 组合龙, sorted
KNITTED_STRAIGHTS = tuple(
    tuple(sorted(base + r for base, ranks in zip((0x10, 0x20, 0x30), perm) for r in ranks))
    for perm in (((1, 4, 7), (2, 5, 8), (3, 6, 9)), ((1, 4, 7), (3, 6, 9), (2, 5, 8)),
                 ((2, 5, 8), (1, 4, 7), (3, 6, 9)), ((2, 5, 8), (3, 6, 9), (1, 4, 7)),
                 ((3, 6, 9), (1, 4, 7), (2, 5, 8)), ((3, 6, 9), (2, 5, 8), (1, 4, 7))))


def honors_and_knitted_fan(unique: tuple[int, ...], win_flag: int, table: FanTable) -> Optional[dict]:
    """全不靠 / 七星不靠 (with 组合龙 when all nine knitted tiles are there) for a concealed hand of
    fourteen different tiles; unique: its tile kinds, sorted."""
    if len(unique) != 14:
        return None
    numbered = [t for t in unique if not t & 0xC0]
    if not (7 <= len(numbered) <= 9 and any(set(numbered) <= set(s) for s in KNITTED_STRAIGHTS)):
        return None
    if len(numbered) == 7:   # all seven honours present
        table[FanId.GREATER_HONORS_AND_KNITTED_TILES] = 1
    else:
        table[FanId.LESSER_HONORS_AND_KNITTED_TILES] = 1
        if len(numbered) == 9:
            table[FanId.KNITTED_STRAIGHT] = 1
    win_flag_fans(win_flag, table)
    return {"form": "honors_and_knitted"}


def knitted_straight_fan(fixed_packs: list[int], fixed_table: list[int], standing: list[int], win_tile: int,
                         win_flag: int, prevalent: int, seat: int, body_waits: bool,
                         table: FanTable) -> Optional[dict]:
    """组合龙 with one more set and a pair (门清 or with one meld); its 不计 are left to the caller.
    fixed_table / standing: counts by tile of the melds and of the concealed tiles with the winning
    tile; body_waits (MIL): 边张/嵌张/单钓 may be read inside the 组合龙."""
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
    table[FanId.KNITTED_STRAIGHT] = 1
    other_type = (other >> 8) & 0xF
    if other_type == CHOW:
        if is_numbered(pair_tile):
            table[FanId.ALL_CHOWS] = 1
        if fixed_table[pair_tile] + standing[pair_tile] == 4:
            table[FanId.TILE_HOG] = 1
    else:
        t = other & 0xFF
        if t in HONORS:
            if t in WINDS:
                table[FanId.PUNG_OF_TERMINALS_OR_HONORS] = 1
                wind_pung(t, prevalent, seat, table)
                if pair_tile in DRAGONS:
                    table[FanId.ALL_TYPES] = 1
            else:
                table[FanId.DRAGON_PUNG] = 1
                if pair_tile in WINDS:
                    table[FanId.ALL_TYPES] = 1
        else:
            if t in TERMINALS:
                table[FanId.PUNG_OF_TERMINALS_OR_HONORS] = 1
            if pair_tile not in HONORS:
                table[FanId.NO_HONORS] = 1
            if other_type != KONG and fixed_table[t] + standing[t] == 4:
                table[FanId.TILE_HOG] = 1
    win_flag_fans(win_flag, table)
    if other & 0x3000:
        if other_type == KONG:
            table[FanId.MELDED_KONG] = 1
    else:
        if other_type == KONG:
            table[FanId.CONCEALED_KONG] = 1
        if win_flag & WIN_SELF_DRAWN:
            table[FanId.FULLY_CONCEALED_HAND] = 1
            table[FanId.SELF_DRAWN] = 0
        else:
            table[FanId.CONCEALED_HAND] = 1
    in_body = win_tile in seq
    if fixed_cnt == 0:
        if (body_waits or not in_body) and rest[win_tile]:
            if is_unique_waiting(rest, 4, win_tile):
                wait_fan(packs[3:5], win_tile, table)
    elif not in_body:
        table[FanId.SINGLE_WAIT] = 1
    elif body_waits and standing[win_tile] == 3:
        table[FanId.SINGLE_WAIT] = 1
    return {"form": "knitted_straight", "knitted": seq, "packs": packs[3:5]}


def knitted_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    return [groups[0][1]] if groups[0][0] == "knitted" else []


EXPLAINERS: dict[int, Explainer] = {FanId.KNITTED_STRAIGHT: knitted_tiles}
