"""Class names of other tools mapped to our tile codes (the 43 classes of DESIGN.md).

Accepted spellings (case-insensitive):
- our codes: W1..W9, T1..T9, B1..B9, F1..F4, J1..J3, H1..H8, BACK;
- riichi names: 1m..9m, 1s..9s, 1p..9p (0m/0s/0p = red five), 1z..7z in the riichi
  order (1-4z = East South West North, 5z = haku 白, 6z = hatsu 发, 7z = chun 中),
  ton/nan/sha/pei, chun/hatsu/haku, and FluffyStuff's Man1/Sou1/Pin1/Ton/Shaa/...;
- the source names of ../shared/datasets/real-chinese-v4: sc1 (characters), sb1
  (bamboo), sd1 (dots), hwe/hws/hww/hwn, hdr/hdg/hdw, bs1-bs4, bf1-bf4 (bf3 = 菊 = H8,
  bf4 = 竹 = H7);
- English names: east, red dragon, white, plum, back, face-down, ...
"""
from __future__ import annotations

import re
from typing import Callable

from vision.classes import CLASS_ID, CLASSES

__all__ = ["CLASSES", "CLASS_ID", "ClassMapError", "to_code", "remap_names", "try_code"]


class ClassMapError(ValueError):
    """A class name that no known naming scheme maps to one of our tile codes."""


_SUIT_LETTERS = {"m": "W", "s": "T", "p": "B"}
_RIICHI_HONOURS = {1: "F1", 2: "F2", 3: "F3", 4: "F4", 5: "J3", 6: "J2", 7: "J1"}

_ALIASES: dict[str, str] = {
    # riichi honour names
    "ton": "F1", "nan": "F2", "sha": "F3", "shaa": "F3", "xia": "F3", "pei": "F4",
    "chun": "J1", "hatsu": "J2", "haku": "J3",
    # English
    "east": "F1", "south": "F2", "west": "F3", "north": "F4",
    "red": "J1", "green": "J2", "white": "J3",
    "red dragon": "J1", "green dragon": "J2", "white dragon": "J3",
    "spring": "H1", "summer": "H2", "autumn": "H3", "fall": "H3", "winter": "H4",
    "plum": "H5", "orchid": "H6", "bamboo flower": "H7", "chrysanthemum": "H8",
    "back": "BACK", "face-down": "BACK", "facedown": "BACK", "face down": "BACK",
    "hidden": "BACK", "unknown back": "BACK",
    # real-chinese-v4 source names
    "hwe": "F1", "hws": "F2", "hww": "F3", "hwn": "F4",
    "hdr": "J1", "hdg": "J2", "hdw": "J3",
    "bf1": "H5", "bf2": "H6", "bf3": "H8", "bf4": "H7",
    # Chinese characters
    "东": "F1", "東": "F1", "南": "F2", "西": "F3", "北": "F4",
    "中": "J1", "发": "J2", "發": "J2", "白": "J3",
    "春": "H1", "夏": "H2", "秋": "H3", "冬": "H4",
    "梅": "H5", "兰": "H6", "蘭": "H6", "竹": "H7", "菊": "H8",
}

_PATTERNS: list[tuple[re.Pattern, Callable[[re.Match], str]]] = [
    # riichi: 1m, 0p (red five), 5z
    (re.compile(r"^([0-9])([msp])$"), lambda m: f"{_SUIT_LETTERS[m[2]]}{int(m[1]) or 5}"),
    (re.compile(r"^([1-7])z$"), lambda m: _RIICHI_HONOURS[int(m[1])]),
    # real-chinese-v4: sc1 sb1 sd1, bs1..bs4
    (re.compile(r"^s([cbd])([1-9])$"), lambda m: f"{dict(c='W', b='T', d='B')[m[1]]}{m[2]}"),
    (re.compile(r"^bs([1-4])$"), lambda m: f"H{m[1]}"),
    # FluffyStuff / tenhou style: man1 sou1 pin1, with an optional -dora / -red suffix
    (re.compile(r"^(man|sou|pin)([1-9])(?:[-_ ]?(?:dora|red))?$"),
     lambda m: f"{dict(man='W', sou='T', pin='B')[m[1]]}{m[2]}"),
    # our own red-five file names: W5-red
    (re.compile(r"^([wtb])([1-9])[-_ ]?red$"), lambda m: f"{m[1].upper()}{m[2]}"),
]


def try_code(name: str) -> str | None:
    """Our tile code for a class name of any known scheme, or None."""
    key = str(name).strip()
    if key.upper() in CLASS_ID:
        return key.upper()
    low = key.lower().replace("_", " ").strip()
    if low in _ALIASES:
        return _ALIASES[low]
    compact = low.replace(" ", "")
    if compact in _ALIASES:
        return _ALIASES[compact]
    for pattern, build in _PATTERNS:
        match = pattern.match(compact)
        if match:
            return build(match)
    return None


def to_code(name: str) -> str:
    """Our tile code for `name`; raises ClassMapError when no scheme knows it."""
    code = try_code(name)
    if code is None:
        raise ClassMapError(f"unknown tile class name {name!r}: expected one of our codes "
                            f"(W1..H8, BACK), a riichi name (1m, 5z, chun) or a source name (sc1, hwe, bf1)")
    return code


def remap_names(names: list[str]) -> list[str]:
    """Map a class list (index -> name) to our codes; raises ClassMapError listing every unknown name."""
    unknown = [n for n in names if try_code(n) is None]
    if unknown:
        raise ClassMapError(f"unknown tile class names: {', '.join(map(repr, unknown))}")
    return [to_code(n) for n in names]
