"""The seven-pairs forms: 七对 (Seven Pairs) and 连七对 (Seven Shifted Pairs)."""
from __future__ import annotations

from typing import Optional

from .fan import Explainer, FanId, FanTable, row
from .ranks import rank_range_fans
from .suits import suit_fans
from .traits import tile_kind_fans
from .win import win_flag_fans

ROWS = (
    row(FanId.SEVEN_SHIFTED_PAIRS, "连七对", "Seven Shifted Pairs", 88,
        FanId.FULL_FLUSH, FanId.FULLY_CONCEALED_HAND, FanId.SINGLE_WAIT, FanId.SEVEN_PAIRS),
    row(FanId.SEVEN_PAIRS, "七对", "Seven Pairs", 24,
        FanId.FULLY_CONCEALED_HAND, FanId.CONCEALED_HAND, FanId.SINGLE_WAIT),
)


def _seven_shifted_pairs(standing: list[int], suit: int) -> bool:
    if suit == 4:
        return False
    t3 = (suit << 4) | 3
    if all(standing[t3 + i] == 2 for i in range(5)):
        if standing[t3 - 1] == 2:
            return standing[t3 - 2] == 2 or standing[t3 + 5] == 2
        return standing[t3 + 5] == 2 and standing[t3 + 6] == 2
    return False


def seven_pairs_fan(standing: list[int], win_tile: int, unique: tuple[int, ...], win_flag: int,
                    set_fans: bool, table: FanTable) -> Optional[dict]:
    """连七对 or 七对 when a concealed hand is all pairs (standing: its counts by tile with the winning
    tile; unique: its tile kinds, sorted); 七对's 不计 are left to the caller.  set_fans: 七对 combines with the fans made of sets (绿一色, 全大 ...)."""
    if any(standing[t] & 1 for t in unique):
        return None
    suit = win_tile >> 4
    if _seven_shifted_pairs(standing, suit):
        table[FanId.SEVEN_SHIFTED_PAIRS] = 1
        if standing[(suit << 4) | 1] == 0 and standing[(suit << 4) | 9] == 0:
            table[FanId.ALL_SIMPLES] = 1
        win_flag_fans(win_flag, table)
        return {"form": "seven_shifted_pairs"}
    table[FanId.SEVEN_PAIRS] = 1
    suit_fans(unique, table)
    if not set_fans and table[FanId.ONE_VOIDED_SUIT] == 3:
        table[FanId.ONE_VOIDED_SUIT] = 0   # seven pairs of honours: no suit at all is not 缺一门
    tile_kind_fans(unique, table, set_fans)
    if set_fans:
        rank_range_fans(unique, table)
    table[FanId.TILE_HOG] = sum(1 for t in unique if standing[t] == 4)
    win_flag_fans(win_flag, table)
    return {"form": "seven_pairs"}


EXPLAINERS: dict[int, Explainer] = {}   # counted on the whole hand
