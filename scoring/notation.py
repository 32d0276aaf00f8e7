"""The compact text notation of hands, both ways.

    123m456m789m123p5p+5p       concealed tiles, then the winning tile after `+`
    123m 456s 789p [EEE] 5p 5p  the winning tile may also follow the last space
    [123m] [EEE] [5555p]        exposed chow, pung, kong
    {5555p}                     concealed kong

Suit digits come before their letter: m characters, s bamboo, p dots.  Honours
are the capitals E S W N (winds) and C F P (中 发 白).  Unicode tiles (🀇) and
canonical codes (W1, F3, J2) are accepted too.  Tenhou-style `z` is refused:
`567z` means 白发中 in riichi tools but 中发白 in MCR tools.
"""
from __future__ import annotations

import re

from .errors import HandError
from .tiles import GLYPH_TO_CODE, GLYPHS, PLAYING_TILES, WINDS, is_flower, sort_codes

_SUIT_LETTER = {"m": "W", "s": "T", "p": "B"}
_LETTER_OF_SUIT = {v: k for k, v in _SUIT_LETTER.items()}
_HONOR_LETTER = {"E": "F1", "S": "F2", "W": "F3", "N": "F4", "C": "J1", "F": "J2", "P": "J3"}
_LETTER_OF_HONOR = {v: k for k, v in _HONOR_LETTER.items()}
_CODE_RE = re.compile(r"(?:[WTB][1-9]|F[1-4]|J[1-3]|H[1-8])")

# code -> (suit letter or "" for honours and flowers, the character written for it)
_FORMAT = {**{f"{s}{r}": (letter, str(r)) for s, letter in (("W", "m"), ("T", "s"), ("B", "p")) for r in range(1, 10)},
           **{code: ("", letter) for letter, code in _HONOR_LETTER.items()},
           **{f"H{i}": ("", f"H{i}") for i in range(1, 9)}}

CONTEXT_DEFAULTS = {
    "self_drawn": False, "seat_wind": "E", "prevalent_wind": "E", "last_tile": False,
    "kong_replacement": False, "robbing_kong": False, "fourth_tile": False,
}


def parse_tiles(text: str) -> list[str]:
    """Tiles of a run of notation without brackets: '123m5pEE' -> ['W1','W2','W3','B5','F1','F1']."""
    tiles: list[str] = []
    digits = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            if digits:
                raise HandError("bad_notation", f"the digits '{digits}' have no suit letter (m, s or p) after them")
            i += 1
            continue
        code_match = _CODE_RE.match(text, i)
        if code_match and not digits and not (ch in _HONOR_LETTER and _next_is_honor_run(text, i)):
            tiles.append(code_match.group())
            i = code_match.end()
            continue
        if ch.isdigit():
            if ch == "0":
                raise HandError("bad_notation", "'0' is not a tile number (red fives do not exist in MCR): use 5")
            digits += ch
        elif ch in _SUIT_LETTER:
            if not digits:
                raise HandError("bad_notation", f"'{ch}' needs tile numbers before it, as in 123{ch}")
            tiles.extend(_SUIT_LETTER[ch] + d for d in digits)
            digits = ""
        elif ch == "z":
            raise HandError("bad_notation", "'z' is ambiguous (567z is 白发中 in riichi tools, 中发白 in MCR tools): "
                            "write honours as E S W N C F P")
        elif ch in _HONOR_LETTER:
            if digits:
                raise HandError("bad_notation", f"the digits '{digits}' have no suit letter (m, s or p) after them")
            tiles.append(_HONOR_LETTER[ch])
        elif ch in GLYPH_TO_CODE:
            tiles.append(GLYPH_TO_CODE[ch])
        elif ch == "\ufe0e" or ch == "\ufe0f":  # variation selectors after emoji tiles
            pass
        else:
            raise HandError("bad_notation", f"cannot read '{ch}' at position {i + 1} of '{text}'")
        i += 1
    if digits:
        raise HandError("bad_notation", f"the digits '{digits}' have no suit letter (m, s or p) after them")
    return tiles


def _next_is_honor_run(text: str, i: int) -> bool:
    """'W1' is a code, but in 'WW1m'... honours win when a letter follows the letter."""
    # A canonical code is a capital followed by a digit; E S W N C F P followed by a digit
    # only collide for W (West vs characters code) and F (Green dragon vs wind code).
    # Digits then 'm' after it mean the honour letter stands alone: 'W123m' = West + 123m.
    j = i + 1
    while j < len(text) and text[j].isdigit():
        j += 1
    return j < len(text) and text[j] in _SUIT_LETTER and j > i + 1


def _meld_from(tiles: list[str], closer: str, raw: str) -> dict:
    concealed = closer == "}"
    if len(tiles) == 4 and len(set(tiles)) == 1:
        return {"kind": "kong", "tiles": tiles, "exposed": not concealed}
    if concealed:
        raise HandError("impossible_meld", f"{{{raw}}}: braces are for a concealed kong (four identical tiles)")
    if len(tiles) == 3 and len(set(tiles)) == 1:
        return {"kind": "pung", "tiles": tiles, "exposed": True}
    if len(tiles) == 3:
        return {"kind": "chow", "tiles": sort_codes(tiles), "exposed": True}
    raise HandError("impossible_meld", f"[{raw}] is not a chow, pung or kong")


def parse_hand(text: str, flowers=None, **context) -> dict:
    """Read the compact notation into a hand JSON dict (not yet validated as a winning hand)."""
    if not isinstance(text, str) or not text.strip():
        raise HandError("bad_notation", "the hand text is empty")
    melds: list[dict] = []
    rest: list[str] = []
    pos = 0
    for m in re.finditer(r"[\[{]([^\]}]*)([\]}])", text):
        opener = text[m.start()]
        if (opener == "[") != (m.group(2) == "]"):
            raise HandError("bad_notation", f"'{m.group()}' opens and closes with different brackets")
        rest.append(text[pos:m.start()])
        rest.append(" ")
        melds.append(_meld_from(parse_tiles(m.group(1)), m.group(2), m.group(1)))
        pos = m.end()
    rest.append(text[pos:])
    loose = "".join(rest)
    if any(ch in loose for ch in "[]{}"):
        raise HandError("bad_notation", "a bracket is not closed")
    if "+" in loose:
        head, _, tail = loose.rpartition("+")
        if "+" in head:
            raise HandError("bad_notation", "only one '+' (before the winning tile) is allowed")
        concealed = parse_tiles(head)
        win = parse_tiles(tail)
        if len(win) != 1:
            raise HandError("bad_notation", f"exactly one winning tile must follow '+', got {len(win)}")
    else:
        tokens = loose.split()
        last = parse_tiles(tokens[-1]) if tokens else []
        if len(tokens) > 1 and len(last) == 1:
            concealed = parse_tiles(" ".join(tokens[:-1]))
            win = last
        else:
            concealed = parse_tiles(loose)
            if not concealed:
                raise HandError("bad_notation", "no concealed tiles: the winning tile is missing")
            win = concealed[-1:]
            concealed = concealed[:-1]
    flower_tiles = [t for t in concealed + win if is_flower(t)]
    if flower_tiles:
        raise HandError("misplaced_flower", "flowers are not part of the hand's tiles: pass them with --flowers")
    hand: dict = {"concealed": concealed, "melds": melds, "win_tile": win[0],
            "flowers": _flowers(flowers), "context": dict(CONTEXT_DEFAULTS)}
    for key, value in context.items():
        if value is not None:
            hand["context"][key] = value
    return hand


def _flowers(flowers) -> list[str]:
    if flowers is None:
        return []
    if isinstance(flowers, int) and not isinstance(flowers, bool):
        if not 0 <= flowers <= 8:
            raise HandError("invalid_hand", f"there are 8 flower tiles, not {flowers}")
        return [f"H{i}" for i in range(1, flowers + 1)]
    if isinstance(flowers, str):
        flowers = [f for f in re.split(r"[\s,]+", flowers) if f] if not flowers.isdigit() else _flowers(int(flowers))
    return list(flowers)


def format_tiles(codes) -> str:
    """['W1','W2','W3','F1'] -> '123mE' (in the given order, suit letters after each run)."""
    out: list[str] = []
    run_letter = ""
    for code in codes:
        letter, char = _FORMAT[code]
        if letter != run_letter:
            if run_letter:
                out.append(run_letter)
            run_letter = letter
        out.append(char)
    if run_letter:
        out.append(run_letter)
    return "".join(out)


_MELD_TEXT: dict = {}


def format_hand(hand: dict) -> str:
    """A hand JSON dict -> '123m456m789m123p5p+5p' style text (concealed tiles sorted)."""
    parts = [format_tiles(sort_codes(hand.get("concealed", [])))]
    for meld in hand.get("melds", []):
        key = (tuple(meld["tiles"]), meld.get("exposed", True))
        text = _MELD_TEXT.get(key)
        if text is None:
            body = format_tiles(meld["tiles"])
            text = _MELD_TEXT[key] = f"[{body}]" if key[1] else f"{{{body}}}"
        parts.append(text)
    return "".join(parts) + "+" + _FORMAT[hand["win_tile"]][1] + _FORMAT[hand["win_tile"]][0]


def format_glyphs(codes) -> str:
    return "".join(GLYPHS[c] for c in codes)


def wind_letter(value) -> str:
    """Accept 'E', 'east', 0..3 or 'F1'..'F4' and return 'E'/'S'/'W'/'N'."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 3:
        return WINDS[value]
    if isinstance(value, str):
        v = value.strip()
        if v.upper() in WINDS:
            return v.upper()
        names = {"east": "E", "south": "S", "west": "W", "north": "N", "东": "E", "南": "S", "西": "W", "北": "N",
                 "F1": "E", "F2": "S", "F3": "W", "F4": "N"}
        if v.lower() in names:
            return names[v.lower()]
        if v in names:
            return names[v]
    raise HandError("invalid_context", f"'{value}' is not a wind: use E, S, W or N")


__all__ = ["parse_hand", "parse_tiles", "format_hand", "format_tiles", "format_glyphs", "wind_letter",
           "CONTEXT_DEFAULTS", "PLAYING_TILES"]
