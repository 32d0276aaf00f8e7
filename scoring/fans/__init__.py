"""The MCR fans, one family a module: each declares its fans' rows (names, points, 不计) beside the
code that decides them and the explainer that names the tiles they are counted on.

    chows, pungs, kongs, honours      sets and their combinations
    suits, traits, ranks              which tiles the hand holds
    waits, win                        how it won (waits, win flags, concealment, flowers, 无番和)
    seven_pairs, knitted,             the special forms
    thirteen_orphans, nine_gates

scoring.calculator applies them in the reference calculator's order; exclusions applies 不计.
"""
from .catalog import BY_ID, BY_KEY, EXPLAINERS, FANS, MCR_FAN_IDS, REFERENCE_NAMES, TABLE_SIZE, reference_name
from .fan import Explainer, Fan, FanId, FanTable, Group

__all__ = ["BY_ID", "BY_KEY", "EXPLAINERS", "FANS", "MCR_FAN_IDS", "REFERENCE_NAMES", "TABLE_SIZE", "reference_name",
           "Explainer", "Fan", "FanId", "FanTable", "Group"]
