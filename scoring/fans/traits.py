"""Tile-kind fans: which kinds of tile the hand holds (断幺, 推不倒, 绿一色, 字一色, 清幺九, 混幺九)
and how many of one (四归一)."""
from __future__ import annotations

from ..decompose import TF, TP
from .fan import Explainer, FanId, FanTable, Group, row
from .kinds import HONORS, TERMINALS, TERMINALS_OR_HONORS

ROWS = (
    row(FanId.ALL_GREEN, "绿一色", "All Green", 88, FanId.HALF_FLUSH, FanId.ONE_VOIDED_SUIT),
    row(FanId.ALL_TERMINALS, "清幺九", "All Terminals", 64, FanId.ALL_PUNGS, FanId.OUTSIDE_HAND,
        FanId.PUNG_OF_TERMINALS_OR_HONORS, FanId.NO_HONORS, FanId.DOUBLE_PUNG),
    row(FanId.ALL_HONORS, "字一色", "All Honors", 64, FanId.ALL_PUNGS, FanId.OUTSIDE_HAND,
        FanId.PUNG_OF_TERMINALS_OR_HONORS, FanId.ONE_VOIDED_SUIT),
    row(FanId.ALL_TERMINALS_AND_HONORS, "混幺九", "All Terminals and Honors", 32,
        FanId.ALL_PUNGS, FanId.OUTSIDE_HAND, FanId.PUNG_OF_TERMINALS_OR_HONORS),
    row(FanId.REVERSIBLE_TILES, "推不倒", "Reversible Tiles", 8, FanId.ONE_VOIDED_SUIT),
    row(FanId.ALL_SIMPLES, "断幺", "All Simples", 2, FanId.NO_HONORS),
    row(FanId.TILE_HOG, "四归一", "Tile Hog", 2),
)

GREEN = frozenset((0x22, 0x23, 0x24, 0x26, 0x28, TF))
REVERSIBLE = frozenset((0x22, 0x24, 0x25, 0x26, 0x28, 0x29, 0x31, 0x32, 0x33, 0x34, 0x35, 0x38, 0x39, TP))


def tile_kind_fans(unique: tuple[int, ...], table: FanTable, set_fans: bool = True) -> None:
    """unique: the tile kinds of the hand, sorted; set_fans False: only 断幺 and 推不倒 (the seed list's
    七对, which does not combine with fans made of sets)."""
    if TERMINALS_OR_HONORS.isdisjoint(unique):
        table[FanId.ALL_SIMPLES] = 1
    if REVERSIBLE.issuperset(unique):
        table[FanId.REVERSIBLE_TILES] = 1
    if not set_fans:
        return
    if GREEN.issuperset(unique):
        table[FanId.ALL_GREEN] = 1
    if table[FanId.ALL_SIMPLES]:
        return
    if HONORS.issuperset(unique):
        table[FanId.ALL_HONORS] = 1
        return
    if TERMINALS.issuperset(unique):
        table[FanId.ALL_TERMINALS] = 1
        return
    if TERMINALS_OR_HONORS.issuperset(unique):
        table[FanId.ALL_TERMINALS_AND_HONORS] = 1


def tile_hog(hog: int, table: FanTable) -> None:
    """四归一: hog = the tile kinds held four times outside kongs; none with 一色四同顺."""
    if hog and not table[FanId.QUADRUPLE_CHOW]:
        table[FanId.TILE_HOG] = hog


def tile_hog_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    counts: dict[str, int] = {}
    for g in groups:
        for t in g[1]:
            counts[t] = counts.get(t, 0) + 1
    kong_tiles = {g[1][0] for g in groups if g[0] == "kong"}
    hogs = [tuple([t] * 4) for t, n in counts.items() if n == 4 and t not in kong_tiles][:count]
    return hogs or [tuple([t] * 4) for t, n in counts.items() if n == 4][:count]


EXPLAINERS: dict[int, Explainer] = {FanId.TILE_HOG: tile_hog_tiles}
