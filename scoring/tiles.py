"""Tile codes, their Unicode glyphs and names.

Canonical codes (DESIGN.md): W1-W9 characters, T1-T9 bamboo, B1-B9 dots,
F1-F4 winds (East South West North), J1 red 中, J2 green 发, J3 white 白,
H1-H4 seasons, H5-H8 flowers.

Internally the scorer uses the integer tile values of the reference calculator
(suit << 4 | rank): 0x11-0x19 characters, 0x21-0x29 bamboo, 0x31-0x39 dots,
0x41-0x47 E S W N C F P.  Flowers are never part of a hand's tiles.
"""
from __future__ import annotations

SUITS = ("W", "T", "B")
SUIT_TILES = tuple(f"{s}{r}" for s in SUITS for r in range(1, 10))
HONOR_TILES = ("F1", "F2", "F3", "F4", "J1", "J2", "J3")
PLAYING_TILES = SUIT_TILES + HONOR_TILES          # the 34 kinds, 4 copies each
FLOWER_TILES = tuple(f"H{i}" for i in range(1, 9))  # one copy each
ALL_CODES = PLAYING_TILES + FLOWER_TILES

# code <-> internal integer value
_VALUES = [0x11 + i for i in range(9)] + [0x21 + i for i in range(9)] + \
    [0x31 + i for i in range(9)] + [0x41 + i for i in range(7)]
CODE_TO_INT = dict(zip(PLAYING_TILES, _VALUES))
INT_TO_CODE = {v: k for k, v in CODE_TO_INT.items()}
ALL_INTS = tuple(_VALUES)

GLYPHS = dict(zip(
    ALL_CODES,
    [chr(0x1F007 + i) for i in range(9)]      # 🀇..🀏 characters
    + [chr(0x1F010 + i) for i in range(9)]    # 🀐..🀘 bamboo
    + [chr(0x1F019 + i) for i in range(9)]    # 🀙..🀡 dots
    + [chr(0x1F000 + i) for i in range(4)]    # 🀀🀁🀂🀃 winds
    + ["\U0001F004", "\U0001F005", "\U0001F006"]  # 🀄 中, 🀅 发, 🀆 白
    + [chr(0x1F026 + i) for i in range(4)]    # 🀦..🀩 seasons
    + [chr(0x1F022 + i) for i in range(4)]    # 🀢..🀥 flowers
))
GLYPH_TO_CODE = {g: c for c, g in GLYPHS.items()}

_NUM_ZH = "一二三四五六七八九"
_HONOR_ZH = {"F1": "东", "F2": "南", "F3": "西", "F4": "北", "J1": "中", "J2": "发", "J3": "白"}
_HONOR_EN = {"F1": "East", "F2": "South", "F3": "West", "F4": "North",
             "J1": "Red Dragon", "J2": "Green Dragon", "J3": "White Dragon"}
_FLOWER_ZH = "春夏秋冬梅兰竹菊"
_FLOWER_EN = ("Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo", "Chrysanthemum")
_SUIT_ZH = {"W": "万", "T": "条", "B": "饼"}
_SUIT_EN = {"W": "Characters", "T": "Bamboo", "B": "Dots"}

WINDS = ("E", "S", "W", "N")   # seat / prevalent wind letters, index = wind number


def is_code(code: object) -> bool:
    return isinstance(code, str) and code in GLYPHS


def is_flower(code: str) -> bool:
    return code in FLOWER_TILES


def glyph(code: str) -> str:
    return GLYPHS[code]


def glyphs(codes) -> str:
    return "".join(GLYPHS[c] for c in codes)


def name_zh(code: str) -> str:
    if code[0] in _SUIT_ZH:
        return _NUM_ZH[int(code[1]) - 1] + _SUIT_ZH[code[0]]
    if code[0] == "H":
        return _FLOWER_ZH[int(code[1]) - 1]
    return _HONOR_ZH[code]


def name_en(code: str) -> str:
    if code[0] in _SUIT_EN:
        return f"{code[1]} {_SUIT_EN[code[0]]}"
    if code[0] == "H":
        return _FLOWER_EN[int(code[1]) - 1]
    return _HONOR_EN[code]


def sort_key(code: str) -> int:
    return ALL_CODES.index(code)


def sort_codes(codes) -> list[str]:
    return sorted(codes, key=_ORDER.__getitem__)


_ORDER = {c: i for i, c in enumerate(ALL_CODES)}
