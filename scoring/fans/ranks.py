"""Rank fans: the ranks of every tile (全大, 全中, 全小, 大于五, 小于五) and of every set and the pair
(全带幺, 全带五, 全双刻)."""
from __future__ import annotations

from typing import Sequence

from ..decompose import ALL_TILES, CHOW, KONG, PAIR, PUNG
from .fan import Explainer, FanId, FanTable, row

ROWS = (
    row(FanId.ALL_EVEN_PUNGS, "全双刻", "All Even Pungs", 24, FanId.ALL_PUNGS, FanId.ALL_SIMPLES, FanId.NO_HONORS),
    row(FanId.UPPER_TILES, "全大", "Upper Tiles", 24, FanId.NO_HONORS, FanId.UPPER_FOUR),
    row(FanId.MIDDLE_TILES, "全中", "Middle Tiles", 24, FanId.ALL_SIMPLES, FanId.NO_HONORS),
    row(FanId.LOWER_TILES, "全小", "Lower Tiles", 24, FanId.NO_HONORS, FanId.LOWER_FOUR),
    row(FanId.ALL_FIVE, "全带五", "All Five", 16, FanId.ALL_SIMPLES, FanId.NO_HONORS),
    row(FanId.UPPER_FOUR, "大于五", "Upper Four", 12, FanId.NO_HONORS),
    row(FanId.LOWER_FOUR, "小于五", "Lower Four", 12, FanId.NO_HONORS),
    row(FanId.OUTSIDE_HAND, "全带幺", "Outside Hand", 4),
)


def rank_range_fans(unique: tuple[int, ...], table: FanTable) -> None:
    """unique: the tile kinds of the hand, sorted; none with an honour."""
    flag = 0
    for t in unique:
        if t & 0xC0:
            return
        flag |= 1 << (t & 0xF)
    if not flag & 0xFFE1:
        table[FanId.LOWER_FOUR if flag & 0x10 else FanId.LOWER_TILES] = 1
    elif not flag & 0xFC3F:
        table[FanId.UPPER_FOUR if flag & 0x40 else FanId.UPPER_TILES] = 1
    elif not flag & 0xFF8F:
        table[FanId.MIDDLE_TILES] = 1


def _pack_trait(pack: int) -> int:
    """The one of 全带幺 / 全带五 / 全双刻 that a pack (a set or the pair) is fit for, or 0."""
    t = pack & 0xFF
    if t & 0xC0:
        return FanId.OUTSIDE_HAND
    r = t & 0xF
    if (pack >> 8) & 0xF == CHOW:
        return FanId.OUTSIDE_HAND if r == 2 or r == 8 else FanId.ALL_FIVE if 4 <= r <= 6 else 0
    return (FanId.OUTSIDE_HAND if r == 1 or r == 9 else FanId.ALL_FIVE if r == 5
            else FanId.ALL_EVEN_PUNGS if r in (2, 4, 6, 8) else 0)


_PACK_TRAITS = {offer << 12 | kind << 8 | t: _pack_trait(kind << 8 | t)
                for offer in range(4) for kind in (CHOW, PUNG, KONG, PAIR) for t in ALL_TILES}


def pack_rank_fans(packs: Sequence[int], table: FanTable) -> None:
    """全带幺, 全带五 or 全双刻 when all five packs share the trait."""
    traits = set(map(_PACK_TRAITS.__getitem__, packs))
    if len(traits) == 1:
        fan = traits.pop()
        if fan:
            table[fan] = 1


EXPLAINERS: dict[int, Explainer] = {}   # counted on the whole hand
