"""The layout's warnings and errors: a stable code, its parameters, and the English text made from them.

A warning is `{"code", "params", "message"}`. `build_hand` answers the messages as `warnings`
(the strings of the JSON contract) and the records as `warning_details`, in the same order, so a
client can show each code in its own language (the phone page's Chinese is in api/static/app.js,
WARNING_ZH). An alternative reading carries its `reading` params next to its English
`description`, and so do the warnings that quote a reading.

    reading params: {"win_tile": "B5", "win_apart": true, "melds": [["B5", "B5", "B5"]],
                     "left_out": ["W2"] or null (null: the reading leaves no group out)}

When the tiles cannot make a winning hand, `build_hand`'s `error` is `layout_error(code, ...)`:
`{"code", "params", "message"}` with a code of LAYOUT_ERROR_CODES (or the scorer's error, as
`{"code", "message"}`, when a reading with the right count is not a winning hand). The Chinese
of every code is in vision/messages_zh.py (the annotated photo) and api/static/app.js (the page).
"""
from __future__ import annotations

from typing import Callable


def describe_reading(reading: dict) -> str:
    """The English description of a reading (its params above)."""
    parts = [f"winning tile {reading['win_tile']}" + ("" if reading["win_apart"] else " (not set apart)")]
    declared = ", ".join("".join(meld) for meld in reading["melds"])
    parts.append(f"declared melds: {declared or 'none'}")
    if reading["left_out"] is not None:
        parts.append("left out: " + (" ".join(reading["left_out"]) or "none"))
    return "; ".join(parts)


def _tile_read_two_ways(kept: str, kept_score: float, other: str, other_score: float) -> str:
    return f"one tile read two ways: {kept} ({kept_score:.2f}) or {other} ({other_score:.2f}); kept {kept}"


def _win_tile_not_apart(tile: str) -> str:
    return (f"the winning tile is not set apart; scored with {tile}, the last tile of the row, "
            "as the winning tile; the alternatives score the other tiles")


def _hidden_kong_tile_unknown(total: float, tiles: list[str], min_total: float, max_total: float) -> str:
    return ("a concealed kong is shown as four backs, so its tile is unknown; scored "
            f"{total} (as {' '.join(tiles)}), the total most of the possible tiles give"
            + (f" (from {min_total} to {max_total})" if min_total != max_total else "")
            + ": turn two of its tiles face up for an exact score")


def _unusual_layout(reading: dict) -> str:
    return "the tiles do not lie as a hand usually does; read as: " + describe_reading(reading)


def _grouping_ambiguous(reading: dict) -> str:
    return "the grouping can be read more than one way; scored the reading worth most: " + describe_reading(reading)


def _strays_left_out(count: int, tiles: list[str]) -> str:
    return f"{count} tile{'s' if count > 1 else ''} away from the hand left out: " + " ".join(tiles)


def _low_confidence(threshold: float, tiles: list[dict]) -> str:
    return (f"read with low confidence (below {threshold}), check: "
            + ", ".join(f"{t['tile']} ({t['score']:.2f})" for t in tiles))


_ORDINALS = ("first", "second", "third", "fourth")


def _repair_change(c: dict) -> str:
    if c.get("removed"):
        return f"tile read as {c['from']} left out (likely a second box on one tile, or no tile)"
    choice = _ORDINALS[c["choice"] - 1] if 0 < c["choice"] <= len(_ORDINALS) else c["choice"]
    said = (f"a faint tile (under the detector's threshold) taken as {c['to']}" if c.get("added") else
            f"tile read as {c['from']} taken as {c['to']}")
    return f"{said} (the detector's {choice} choice)"


def _reading_repaired(changes: list[dict]) -> str:
    said = "; ".join(_repair_change(c) for c in changes)
    return f"{said} so that the hand wins; check {'it' if len(changes) == 1 else 'them'}"


_ENGLISH: dict[str, Callable[..., str]] = {
    "tile_read_two_ways": _tile_read_two_ways,  # two boxes on one tile, different tiles
    "win_tile_not_apart": _win_tile_not_apart,  # the winning tile was taken as the row's last tile
    "hidden_kong_tile_unknown": _hidden_kong_tile_unknown,  # a kong of four backs: its tile is a guess
    "unusual_layout": _unusual_layout,  # the reading needed groups cut or tiles left out
    "grouping_ambiguous": _grouping_ambiguous,  # readings as likely as the best score differently
    "strays_left_out": _strays_left_out,  # tiles away from the hand, not counted
    "low_confidence": _low_confidence,  # tiles of the hand the detector was unsure of
    "reading_repaired": _reading_repaired,  # tiles changed to a next choice so that the hand wins (vision.reading_repair)
}
WARNING_CODES = tuple(_ENGLISH)


def warning(code: str, **params) -> dict:
    """A warning record; an unknown code raises KeyError (every code is in WARNING_CODES)."""
    return {"code": code, "params": params, "message": _ENGLISH[code](**params)}


def _no_tiles() -> str:
    return "no tiles found in the photo"


def _wrong_tile_count(found: int, needed: int, kongs: int) -> str:
    with_kongs = f" ({needed} with {kongs} kong{'s' if kongs > 1 else ''})" if kongs else ""
    if found < needed:
        return f"{found} tiles found; a winning hand needs 14, plus one for each kong{with_kongs}"
    return f"{found} tiles found; a winning hand has 14, plus one for each kong{with_kongs}: {found - needed} too many"


def _backs_outside_kong(found: int, backs: int) -> str:
    return (f"{found} tiles found, as many as the hand needs, but {backs} of them face down outside a "
            "concealed kong: a face-down tile belongs only in one (check the tiles read as backs)")


_ERROR_ENGLISH: dict[str, Callable[..., str]] = {
    "no_tiles": _no_tiles,  # the detector found nothing
    "wrong_tile_count": _wrong_tile_count,  # found: tiles of the hand; needed: 14 + kongs (4-tile groups)
    "backs_outside_kong": _backs_outside_kong,  # the count is right, but backs lie where no kong can be
}
LAYOUT_ERROR_CODES = tuple(_ERROR_ENGLISH)


def layout_error(code: str, **params) -> dict:
    """An error record of the layout (the `error` of build_hand); an unknown code raises KeyError."""
    return {"code": code, "params": params, "message": _ERROR_ENGLISH[code](**params)}
