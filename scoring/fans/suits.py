"""Suit fans: which suits and honours the hand holds (无字, 缺一门, 混一色, 清一色, 五门齐)."""
from __future__ import annotations

from .fan import Explainer, FanId, FanTable, row
from .kinds import DRAGONS, WINDS

ROWS = (
    row(FanId.FULL_FLUSH, "清一色", "Full Flush", 24, FanId.NO_HONORS),
    row(FanId.HALF_FLUSH, "混一色", "Half Flush", 6),
    row(FanId.ALL_TYPES, "五门齐", "All Types", 6),
    row(FanId.ONE_VOIDED_SUIT, "缺一门", "One Voided Suit", 1),
    row(FanId.NO_HONORS, "无字", "No Honors", 1),
)


def suit_fans(unique: tuple[int, ...], table: FanTable) -> None:
    """unique: the tile kinds of the hand, sorted."""
    flag = 0
    for t in unique:
        flag |= 1 << (t >> 4)
    if not flag & 0xF1:
        table[FanId.NO_HONORS] = 1
    voided = (not flag & 0xE3) + (not flag & 0xE5) + (not flag & 0xE9)
    table[FanId.ONE_VOIDED_SUIT] += voided
    if table[FanId.ONE_VOIDED_SUIT] == 2:
        table[FanId.ONE_VOIDED_SUIT] = 0
        if table[FanId.NO_HONORS] == 0:
            table[FanId.HALF_FLUSH] = 1
        else:
            table[FanId.FULL_FLUSH] = 1
            table[FanId.NO_HONORS] = 0
    if flag == 0x1E:
        if not WINDS.isdisjoint(unique) and not DRAGONS.isdisjoint(unique):
            table[FanId.ALL_TYPES] = 1


EXPLAINERS: dict[int, Explainer] = {}   # counted on the whole hand
