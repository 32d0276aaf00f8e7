"""不计 (not counted with): the exclusion lists of the fan table, applied as data in fan-id order."""
from __future__ import annotations

from .catalog import BY_KEY, FANS
from .fan import FanId, FanTable

_EXCLUDES = {f.id: tuple(BY_KEY[k].id for k in f.excludes) for f in FANS}
# the fans that change others: those with a 不计 list, and the two special cases below
_EXCLUDING = frozenset(f for f, excluded in _EXCLUDES.items() if excluded) | {FanId.FOUR_CONCEALED_PUNGS,
                                                                                FanId.BIG_THREE_WINDS}


def apply_exclusions(table: FanTable) -> None:
    """不重复 / 不计: drop every fan a present fan excludes, in fan-id order."""
    for fan_id in sorted(table.keys() & _EXCLUDING):
        if not table[fan_id]:
            continue
        if fan_id == FanId.FOUR_CONCEALED_PUNGS and table[FanId.FULLY_CONCEALED_HAND]:
            # 四暗刻 implies 门前清 but not the self-draw: 不求人 falls back to 自摸
            table[FanId.SELF_DRAWN] = 1
        for other in _EXCLUDES[fan_id]:
            if other in table:
                table[other] = 0
        if (fan_id == FanId.BIG_THREE_WINDS and not table[FanId.ALL_HONORS]
                and not table[FanId.ALL_TERMINALS_AND_HONORS]):
            # 套算一次: the three wind pungs of 三风刻 do not also count as 幺九刻
            table[FanId.PUNG_OF_TERMINALS_OR_HONORS] -= 3
