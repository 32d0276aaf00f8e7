"""九莲宝灯 (Nine Gates): 1112345678999 of one suit, concealed, and any tile of that suit."""
from __future__ import annotations

from typing import Optional

from .fan import Explainer, FanId, FanTable, row
from .win import win_flag_fans

ROWS = (row(FanId.NINE_GATES, "九莲宝灯", "Nine Gates", 88, FanId.FULL_FLUSH),)


def nine_gates_fan(standing: list[int], win_tile: int, win_flag: int, table: FanTable) -> Optional[dict]:
    """standing: the counts by tile of a concealed hand with the winning tile; with the fans the
    reference counts beside it, by the winning tile's rank."""
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
    table[FanId.NINE_GATES] = 1
    if r in (1, 9):
        table[FanId.PURE_STRAIGHT] = 1
        table[FanId.TILE_HOG] = 1
    elif r in (2, 8):
        table[FanId.TWO_CONCEALED_PUNGS] = 1
        table[FanId.SHORT_STRAIGHT] = 1
        table[FanId.PUNG_OF_TERMINALS_OR_HONORS] = 1
    elif r == 5:
        table[FanId.TWO_CONCEALED_PUNGS] = 1
        table[FanId.PUNG_OF_TERMINALS_OR_HONORS] = 1
    else:
        table[FanId.SHORT_STRAIGHT] = 1
    win_flag_fans(win_flag, table)
    return {"form": "nine_gates"}


EXPLAINERS: dict[int, Explainer] = {}   # counted on the whole hand
