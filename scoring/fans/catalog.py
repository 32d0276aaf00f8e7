"""The whole MCR fan table, gathered from the families' rows, and their explainers."""
from __future__ import annotations

from . import (
    chows,
    honours,
    knitted,
    kongs,
    nine_gates,
    pungs,
    ranks,
    seven_pairs,
    suits,
    thirteen_orphans,
    traits,
    waits,
    win,
)
from .fan import Explainer, Fan, FanId

_FAMILIES = (chows, pungs, kongs, honours, suits, traits, ranks, waits, win, seven_pairs, knitted,
             thirteen_orphans, nine_gates)

FANS: tuple[Fan, ...] = tuple(sorted((fan for family in _FAMILIES for fan in family.ROWS), key=lambda f: f.id))
TABLE_SIZE = len(FANS) + 1          # index 0 unused, as in the reference's table
BY_KEY = {f.key: f for f in FANS}
BY_ID = {f.id: f for f in FANS}
MCR_FAN_IDS = tuple(range(1, 82))   # the 81 fans of the rulebook; 82 is 明暗杠 (mcr-reference)

# fan id -> its explainer; a fan without one is counted on the whole hand
EXPLAINERS: dict[int, Explainer] = {fan_id: explain for family in _FAMILIES
                                    for fan_id, explain in family.EXPLAINERS.items()}

# Names the reference calculator (pymahjonggb) prints, where they differ from ours.
REFERENCE_NAMES = {FanId.EDGE_WAIT: "独听・边张", FanId.CLOSED_WAIT: "独听・嵌张", FanId.SINGLE_WAIT: "独听・单钓"}


def reference_name(fan_id: int) -> str:
    return REFERENCE_NAMES.get(fan_id, BY_ID[fan_id].name_zh)
