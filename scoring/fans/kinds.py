"""Sets of tile kinds (the reference's integers, scoring.tiles) that several fan families test."""
from __future__ import annotations

from ..decompose import TC, TE, TF, TN, TP, TS, TW

TERMINALS = frozenset((0x11, 0x19, 0x21, 0x29, 0x31, 0x39))
WINDS = frozenset((TE, TS, TW, TN))
DRAGONS = frozenset((TC, TF, TP))
HONORS = WINDS | DRAGONS
TERMINALS_OR_HONORS = TERMINALS | HONORS


def shifted_by_one(r0: int, r1: int, r2: int) -> bool:
    """Three ranks, in any order, that step by one (三步高 of chows, 三节高 of pungs)."""
    lo = min(r0, r1, r2)
    return sorted((r0, r1, r2)) == [lo, lo + 1, lo + 2]
