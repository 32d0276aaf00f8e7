"""十三幺 (Thirteen Orphans): one of each terminal and honour, and a pair of one of them."""
from __future__ import annotations

from typing import Optional

from ..decompose import TC, TE, TF, TN, TP, TS, TW
from .fan import Explainer, FanId, FanTable, row
from .win import win_flag_fans

ROWS = (
    row(FanId.THIRTEEN_ORPHANS, "十三幺", "Thirteen Orphans", 88,
        FanId.ALL_TYPES, FanId.FULLY_CONCEALED_HAND, FanId.SINGLE_WAIT),
)

ORPHANS = tuple(sorted((0x11, 0x19, 0x21, 0x29, 0x31, 0x39, TE, TS, TW, TN, TC, TF, TP)))


def thirteen_orphans_fan(unique: tuple[int, ...], win_flag: int, table: FanTable) -> Optional[dict]:
    """unique: the tile kinds of a concealed hand, sorted."""
    if len(unique) == 13 and tuple(unique) == ORPHANS:
        table[FanId.THIRTEEN_ORPHANS] = 1
        win_flag_fans(win_flag, table)
        return {"form": "thirteen_orphans"}
    return None


EXPLAINERS: dict[int, Explainer] = {}   # counted on the whole hand
