"""What a fan is: its id (FanId), its row of data (Fan), a fan table (FanTable) and an explainer."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


class FanId:
    """The fan ids by name: 1-81 follow the seed list (and the 2006 rulebook for 69-81); 82 is 明暗杠,
    which only the `mcr-reference` rule set counts.  Plain ints, not an IntEnum: the calculator keys
    its tables by them on every decomposition, and enum members would slow it down."""
    BIG_FOUR_WINDS = 1
    BIG_THREE_DRAGONS = 2
    ALL_GREEN = 3
    NINE_GATES = 4
    FOUR_KONGS = 5
    SEVEN_SHIFTED_PAIRS = 6
    THIRTEEN_ORPHANS = 7
    ALL_TERMINALS = 8
    LITTLE_FOUR_WINDS = 9
    LITTLE_THREE_DRAGONS = 10
    ALL_HONORS = 11
    FOUR_CONCEALED_PUNGS = 12
    PURE_TERMINAL_CHOWS = 13
    QUADRUPLE_CHOW = 14
    FOUR_PURE_SHIFTED_PUNGS = 15
    FOUR_PURE_SHIFTED_CHOWS = 16
    THREE_KONGS = 17
    ALL_TERMINALS_AND_HONORS = 18
    SEVEN_PAIRS = 19
    GREATER_HONORS_AND_KNITTED_TILES = 20
    ALL_EVEN_PUNGS = 21
    FULL_FLUSH = 22
    PURE_TRIPLE_CHOW = 23
    PURE_SHIFTED_PUNGS = 24
    UPPER_TILES = 25
    MIDDLE_TILES = 26
    LOWER_TILES = 27
    PURE_STRAIGHT = 28
    THREE_SUITED_TERMINAL_CHOWS = 29
    PURE_SHIFTED_CHOWS = 30
    ALL_FIVE = 31
    TRIPLE_PUNG = 32
    THREE_CONCEALED_PUNGS = 33
    LESSER_HONORS_AND_KNITTED_TILES = 34
    KNITTED_STRAIGHT = 35
    UPPER_FOUR = 36
    LOWER_FOUR = 37
    BIG_THREE_WINDS = 38
    MIXED_STRAIGHT = 39
    REVERSIBLE_TILES = 40
    MIXED_TRIPLE_CHOW = 41
    MIXED_SHIFTED_PUNGS = 42
    CHICKEN_HAND = 43
    LAST_TILE_DRAW = 44
    LAST_TILE_CLAIM = 45
    OUT_WITH_REPLACEMENT_TILE = 46
    ROBBING_THE_KONG = 47
    ALL_PUNGS = 48
    HALF_FLUSH = 49
    MIXED_SHIFTED_CHOWS = 50
    ALL_TYPES = 51
    MELDED_HAND = 52
    TWO_CONCEALED_KONGS = 53
    TWO_DRAGONS_PUNGS = 54
    OUTSIDE_HAND = 55
    FULLY_CONCEALED_HAND = 56
    TWO_MELDED_KONGS = 57
    LAST_TILE = 58
    DRAGON_PUNG = 59
    PREVALENT_WIND = 60
    SEAT_WIND = 61
    CONCEALED_HAND = 62
    ALL_CHOWS = 63
    TILE_HOG = 64
    DOUBLE_PUNG = 65
    TWO_CONCEALED_PUNGS = 66
    CONCEALED_KONG = 67
    ALL_SIMPLES = 68
    PURE_DOUBLE_CHOW = 69
    MIXED_DOUBLE_CHOW = 70
    SHORT_STRAIGHT = 71
    TWO_TERMINAL_CHOWS = 72
    PUNG_OF_TERMINALS_OR_HONORS = 73
    MELDED_KONG = 74
    ONE_VOIDED_SUIT = 75
    NO_HONORS = 76
    EDGE_WAIT = 77
    CLOSED_WAIT = 78
    SINGLE_WAIT = 79
    SELF_DRAWN = 80
    FLOWER_TILES = 81
    CONCEALED_KONG_AND_MELDED_KONG = 82


KEY_OF: dict[int, str] = {fan_id: key for key, fan_id in vars(FanId).items() if key.isupper()}


@dataclass(frozen=True)
class Fan:
    """One row of a fan table: its names, its value and the keys of the fans not counted with it (不计)."""
    id: int
    key: str
    name_zh: str
    name_en: str
    points: int
    excludes: tuple[str, ...] = field(default_factory=tuple)

    def as_row(self) -> dict:
        return {"id": self.id, "key": self.key, "name_zh": self.name_zh, "name_en": self.name_en,
                "points": self.points, "excludes": list(self.excludes)}


def row(fan_id: int, name_zh: str, name_en: str, points: int, *excludes: int) -> Fan:
    """The row of an MCR fan, its key from FanId and its 不计 list given as fan ids."""
    return Fan(fan_id, KEY_OF[fan_id], name_zh, name_en, points, tuple(KEY_OF[e] for e in excludes))


class FanTable(dict[int, int]):
    """fan id -> count; a missing fan counts 0 (the reference's zero-filled array, sparse)."""
    __slots__ = ()

    def __missing__(self, key: int) -> int:
        return 0


# A group is one set of the decomposition a score was counted on: (kind, tile codes, exposed).
Group = tuple[str, tuple[str, ...], bool]
# An explainer names the tiles a fan is counted on: (fan id, count, groups, hand) -> tuples of codes;
# an empty answer means the whole hand.
Explainer = Callable[[int, int, list[Group], dict], list[tuple[str, ...]]]
