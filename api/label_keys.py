"""The keys that pick a tile class in the labelling page.

Each class can be typed as its code (`B5`, `F1`, `J1`, `H3`, `BACK`) or in the
compact notation of people (`5p` dots, `5s` bamboo, `5m` characters, `E S W N`
winds, `C F P` red/green/white dragons, `X` a face-down tile). Letters are case
insensitive. Two keys are prefixes of longer ones (`W` of `W1`..., `F` of `F1`...);
the page waits a moment or for Enter before it takes them.
"""
from __future__ import annotations

from vision.classes import CLASSES

_SUIT_LETTER = {"W": "m", "T": "s", "B": "p"}
_HONOUR_LETTER = {"F1": "E", "F2": "S", "F3": "W", "F4": "N", "J1": "C", "J2": "F", "J3": "P"}
_NAMES = {
    "W": "characters", "T": "bamboo", "B": "dots",
    "F1": "East", "F2": "South", "F3": "West", "F4": "North",
    "J1": "Red dragon 中", "J2": "Green dragon 发", "J3": "White dragon 白",
    "H1": "Spring", "H2": "Summer", "H3": "Autumn", "H4": "Winter",
    "H5": "Plum", "H6": "Orchid", "H7": "Bamboo flower", "H8": "Chrysanthemum",
    "BACK": "Face-down tile",
}
# Unicode Mahjong Tiles block (U+1F000..): winds, dragons, then the suits and flowers.
_GLYPH_START = {"W": 0x1F007, "T": 0x1F010, "B": 0x1F019}
_GLYPHS = {"F1": 0x1F000, "F2": 0x1F001, "F3": 0x1F002, "F4": 0x1F003, "J1": 0x1F004,
           "J2": 0x1F005, "J3": 0x1F006, "H1": 0x1F026, "H2": 0x1F027, "H3": 0x1F028,
           "H4": 0x1F029, "H5": 0x1F022, "H6": 0x1F023, "H7": 0x1F024, "H8": 0x1F025,
           "BACK": 0x1F02B}


def keys_for(code: str) -> list[str]:
    """The typed forms that select class `code` (upper case; the page upper-cases input)."""
    keys = [code]
    if code[0] in _SUIT_LETTER and code[1:].isdigit():
        keys.append(code[1:] + _SUIT_LETTER[code[0]].upper())
    elif code in _HONOUR_LETTER:
        keys.append(_HONOUR_LETTER[code])
    elif code == "BACK":
        keys.append("X")
    return keys


def glyph(code: str) -> str:
    if code[0] in _GLYPH_START and code[1:].isdigit():
        return chr(_GLYPH_START[code[0]] + int(code[1:]) - 1)
    return chr(_GLYPHS[code])


def name(code: str) -> str:
    if code[0] in _GLYPH_START and code[1:].isdigit():
        return f"{code[1:]} {_NAMES[code[0]]}"
    return _NAMES[code]


def class_table() -> list[dict]:
    """`[{"id", "code", "keys", "glyph", "name"}]` for the 43 classes, in id order."""
    return [
        {"id": i, "code": code, "keys": keys_for(code), "glyph": glyph(code), "name": name(code)}
        for i, code in enumerate(CLASSES)
    ]


def parse_key(text: str) -> str | None:
    """The class code a typed text selects, or None (`5p` -> B5, `e` -> F1, `b5` -> B5)."""
    wanted = text.strip().upper()
    for code in CLASSES:
        if wanted in keys_for(code):
            return code
    return None
