"""The keys that pick a tile class in the labelling page.

Each class can be typed as its code (`B5`, `F1`, `J1`, `H3`, `BACK`) or in the
compact notation of scoring.notation (`5p` dots, `5s` bamboo, `5m` characters,
`E S W N` winds, `C F P` red/green/white dragons), plus `X` for a face-down tile.
Letters are case insensitive. Two keys are prefixes of longer ones (`W` of
`W1`..., `F` of `F1`...); the page waits a moment or for Enter before it takes them.
"""
from __future__ import annotations

from scoring import tiles
from scoring.notation import format_tiles
from vision.classes import BACK, CLASSES

BACK_KEY = "X"


def keys_for(code: str) -> list[str]:
    """The typed forms that select class `code` (upper case; the page upper-cases input)."""
    if code == BACK:
        return [BACK, BACK_KEY]
    compact = format_tiles([code]).upper()
    return [code] if compact == code else [code, compact]


def class_table() -> list[dict]:
    """`[{"id", "code", "keys", "glyph", "zh", "name"}]` for the 43 classes, in id order."""
    table = []
    for i, code in enumerate(CLASSES):
        if code == BACK:
            row = {"glyph": "\U0001F02B", "zh": "背", "name": "Face-down tile"}
        else:
            row = {"glyph": tiles.glyph(code), "zh": tiles.name_zh(code), "name": tiles.name_en(code)}
        table.append({"id": i, "code": code, "keys": keys_for(code), **row})
    return table


def parse_key(text: str) -> str | None:
    """The class code a typed text selects, or None (`5p` -> B5, `e` -> F1, `b5` -> B5)."""
    wanted = text.strip().upper()
    return next((code for code in CLASSES if wanted in keys_for(code)), None)
