"""What the explainers share: finding groups in the decomposition a score was counted on."""
from __future__ import annotations

from typing import Iterable

from ..tiles import CODE_TO_INT, WINDS
from .fan import Group

_WIN_PRIORITY = {"chow": 0, "pair": 1, "knitted": 2, "pung": 3, "kong": 4}   # a special form's one group: 4


def win_group(groups: list[Group], win: str) -> int:
    """The concealed group the winning tile completed (a chow first, as the waits are read); -1 if none."""
    best, best_rank = -1, 5
    for i, (kind, tiles, exposed) in enumerate(groups):
        if not exposed and win in tiles:
            rank = _WIN_PRIORITY.get(kind, 4)
            if rank < best_rank:
                best, best_rank = i, rank
    return best


def pick(candidates: Iterable[tuple[int, ...]], count: int) -> list[int]:
    """Up to `count` combinations, preferring ones that do not reuse a group."""
    candidates = list(candidates)
    chosen: list[tuple[int, ...]] = []
    used: set[int] = set()
    for combo in candidates:
        if len(chosen) == count:
            break
        if not used.intersection(combo):
            chosen.append(combo)
            used.update(combo)
    for combo in candidates:
        if len(chosen) == count:
            break
        if combo not in chosen:
            chosen.append(combo)
    return [g for combo in chosen for g in combo]


def mid(group: Group) -> int:
    """The middle tile of a set as the calculator's integer (any tile of a pung or kong)."""
    return CODE_TO_INT[group[1][1]]


def pung_indices(groups: list[Group]) -> list[int]:
    return [i for i, g in enumerate(groups) if g[0] == "pung" or g[0] == "kong"]


def wind_code(letter: str) -> str:
    """'E' -> 'F1': a context wind as a tile code."""
    return "F%d" % (WINDS.index(letter) + 1)


def four_pungs_tiles(fan_id: int, count: int, groups: list[Group], hand: dict) -> list[tuple[str, ...]]:
    """The tiles of a fan made of all four pungs (四节高, 大四喜)."""
    return [groups[i][1] for i in pick([tuple(pung_indices(groups))], count)]
