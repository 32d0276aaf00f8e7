"""The 43 detector classes of DESIGN.md; a class id is its position."""
from __future__ import annotations

SUITS = {"W": 9, "T": 9, "B": 9}

CLASSES: list[str] = (
    [f"W{i}" for i in range(1, 10)]
    + [f"T{i}" for i in range(1, 10)]
    + [f"B{i}" for i in range(1, 10)]
    + [f"F{i}" for i in range(1, 5)]
    + [f"J{i}" for i in range(1, 4)]
    + [f"H{i}" for i in range(1, 9)]
    + ["BACK"]
)
CLASS_ID: dict[str, int] = {name: i for i, name in enumerate(CLASSES)}
BACK = "BACK"
# The classifier's one output beyond the 43: the finder's box holds no tile (dice, scoring
# sticks, coins, chips). Its id is len(CLASSES); it is never a detection's class.
NOT_A_TILE = len(CLASSES)
assert len(CLASSES) == 43
