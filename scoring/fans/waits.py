"""Wait fans: 边张, 嵌张, 单钓将, counted when the hand waited on the winning tile alone (独听)."""
from __future__ import annotations

from typing import Callable, Sequence

from ..decompose import CHOW, PAIR
from .explain import win_group
from .fan import Explainer, FanId, FanTable, Group, row

ROWS = (
    row(FanId.EDGE_WAIT, "边张", "Edge Wait", 1),
    row(FanId.CLOSED_WAIT, "嵌张", "Closed Wait", 1),
    row(FanId.SINGLE_WAIT, "单钓将", "Single Wait", 1),
)


def waiting_form(concealed_packs: Sequence[int], win_tile: int) -> int:
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
        return FanId.EDGE_WAIT
    if pos & 2:
        return FanId.CLOSED_WAIT
    if pos & 4:
        return FanId.SINGLE_WAIT
    return 0


def wait_fan(concealed_packs: Sequence[int], win_tile: int, table: FanTable) -> None:
    """The wait, unless 全求人 or 四杠 (whose one wait is the pair) were counted."""
    if table[FanId.MELDED_HAND] or table[FanId.FOUR_KONGS]:
        return
    fan = waiting_form(concealed_packs, win_tile)
    if fan:
        table[fan] = 1


def regular_wait_fan(concealed_packs: Sequence[int], win_tile: int, unique_waiting: Callable[[], bool],
                     table: FanTable) -> None:
    """The wait of a regular hand: unique_waiting answers (once, lazily) whether it waited on one tile."""
    if not table[FanId.MELDED_HAND] and not table[FanId.FOUR_KONGS]:
        fan = waiting_form(concealed_packs, win_tile)
        if fan and unique_waiting():
            table[fan] = 1


def wait_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    win_index = win_group(groups, hand["win_tile"])
    return [groups[win_index][1]] if win_index >= 0 else [(hand["win_tile"],)]


EXPLAINERS: dict[int, Explainer] = dict.fromkeys((FanId.EDGE_WAIT, FanId.CLOSED_WAIT, FanId.SINGLE_WAIT), wait_tiles)
