"""Validation of the hand JSON of DESIGN.md into a normalised plain dict.

Each problem has its own error code (scoring.errors.ERROR_CODES) and a message
a player understands.  Validation does not decide whether the hand wins: the
calculator does.
"""
from __future__ import annotations

from collections import Counter
from itertools import permutations
from operator import itemgetter
from typing import cast

from .errors import HandError
from .notation import CONTEXT_DEFAULTS, wind_letter
from .tiles import CODE_TO_INT, FLOWER_TILES, GLYPHS, SUIT_TILES, glyphs, name_en

BOOL_CONTEXT_KEYS = ("self_drawn", "last_tile", "kong_replacement", "robbing_kong", "fourth_tile")
WIND_CONTEXT_KEYS = ("seat_wind", "prevalent_wind")
BASE_CONTEXT_KEYS = frozenset(CONTEXT_DEFAULTS)
MELD_KINDS = {"chow": 3, "pung": 3, "kong": 4}
SOURCES = ("left", "across", "right")


def _tile_list(value, field: str) -> list[str]:
    if not isinstance(value, (list, tuple)):
        raise HandError("invalid_hand", f"'{field}' must be a list of tile codes like [\"W1\", \"B5\"]")
    for code in value:
        if not isinstance(code, str):
            raise HandError("invalid_hand", f"'{field}' must hold tile codes (strings), found {code!r}")
    return list(value)


def _check_codes(codes, where: str) -> None:
    unknown = [c for c in codes if c not in GLYPHS]
    if unknown:
        raise HandError("unknown_tile", f"unknown tile code{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(repr(c) for c in unknown)} in {where}: "
                        "use W1-W9, T1-T9, B1-B9, F1-F4, J1-J3 (flowers H1-H8)")


def _validate_meld(i: int, raw) -> dict:
    where = f"meld {i + 1}"
    if not isinstance(raw, dict):
        raise HandError("invalid_hand", f"{where} must be an object with 'kind' and 'tiles'")
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in MELD_KINDS:
        raise HandError("impossible_meld", f"{where}: kind {kind!r} is not chow, pung or kong")
    tiles = _tile_list(raw.get("tiles"), f"{where} tiles")
    _check_codes(tiles, where)
    flowers = [t for t in tiles if t in FLOWER_TILES]
    if flowers:
        raise HandError("misplaced_flower", f"{where}: a flower ({glyphs(flowers)}) cannot be part of a {kind}")
    if len(tiles) != MELD_KINDS[kind]:
        raise HandError("impossible_meld", f"{where}: a {kind} has {MELD_KINDS[kind]} tiles, not {len(tiles)}")
    exposed = raw.get("exposed", True)
    if not isinstance(exposed, bool):
        raise HandError("invalid_hand", f"{where}: 'exposed' must be true or false")
    if kind == "chow":
        tiles = sorted(tiles, key=lambda c: (c[0], c[1]))
        ok = tiles[0] in SUIT_TILES and tiles[0][0] == tiles[1][0] == tiles[2][0] and \
            int(tiles[1][1]) == int(tiles[0][1]) + 1 and int(tiles[2][1]) == int(tiles[0][1]) + 2
        if not ok:
            raise HandError("impossible_meld", f"{where}: {glyphs(tiles)} is not a chow "
                            "(three consecutive tiles of one suit)")
    elif len(set(tiles)) != 1:
        raise HandError("impossible_meld", f"{where}: a {kind} is {MELD_KINDS[kind]} identical tiles, "
                        f"not {glyphs(tiles)}")
    if not exposed and kind != "kong":
        raise HandError("impossible_meld", f"{where}: only a kong can be declared concealed; "
                        f"a concealed {kind} belongs with the concealed tiles")
    meld = {"kind": kind, "tiles": tiles, "exposed": exposed}
    claimed = raw.get("claimed")
    if claimed is not None:
        if not isinstance(claimed, str) or claimed not in tiles:
            raise HandError("impossible_meld", f"{where}: the claimed tile {claimed!r} is not one of its tiles")
        if not exposed:
            raise HandError("impossible_meld", f"{where}: a concealed kong has no claimed tile")
        meld["claimed"] = claimed
    source = raw.get("from")
    if source is not None:
        if not isinstance(source, str) or source not in SOURCES:
            raise HandError("impossible_meld", f"{where}: 'from' must be left, across or right, not {source!r}")
        if not exposed:
            raise HandError("impossible_meld", f"{where}: a concealed kong is not taken from anyone")
        if kind == "chow" and source != "left":
            raise HandError("impossible_meld", f"{where}: a chow can only be claimed from the player on the left")
        meld["from"] = source
    return meld


def validate_context(raw, extra_keys=frozenset()) -> dict:
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise HandError("invalid_hand", "'context' must be an object")
    unknown = sorted(set(raw) - BASE_CONTEXT_KEYS - set(extra_keys))
    if unknown:
        raise HandError("unknown_context_key", f"unknown context field{'s' if len(unknown) > 1 else ''} "
                        f"{', '.join(unknown)}: known are {', '.join(sorted(BASE_CONTEXT_KEYS | set(extra_keys)))}")
    context = dict(CONTEXT_DEFAULTS)
    for key, value in raw.items():
        if key in BOOL_CONTEXT_KEYS:
            if not isinstance(value, bool):
                raise HandError("invalid_context", f"context '{key}' must be true or false, not {value!r}")
            context[key] = value
        elif key in WIND_CONTEXT_KEYS:
            try:
                context[key] = wind_letter(value)
            except HandError:
                raise HandError("invalid_context", f"context '{key}' must be a wind E, S, W or N, not {value!r}") from None
        else:
            context[key] = value
    return context


_HAND_KEYS = frozenset(("concealed", "melds", "win_tile", "flowers", "context"))
_MELD_KEYS = frozenset(("kind", "tiles", "exposed", "claimed", "from"))
_PLAYING = frozenset(CODE_TO_INT)
_FLOWERS = frozenset(FLOWER_TILES)
_WIND_LETTERS = frozenset("ESWN")
_bool_context_values = itemgetter(*BOOL_CONTEXT_KEYS)
_BOOL_TYPE = frozenset((bool,))
# the three tiles of a chow in any order -> in rank order
_CHOWS = {order: tuple(f"{suit}{rank + i}" for i in range(3))
          for suit in "WTB" for rank in range(1, 8)
          for order in permutations(f"{suit}{rank + i}" for i in range(3))}


def validate_hand(hand, extra_context_keys=frozenset()) -> dict:
    """Check a hand JSON dict and return it normalised (melds sorted inside, context complete)."""
    try:
        valid = _validate_common_case(hand)
    except TypeError:   # an unhashable or odd value somewhere: the thorough path names it
        valid = None
    if valid is None:
        valid = _validate_thoroughly(hand, extra_context_keys)
    _check_context_consistency(valid["context"], valid["concealed"], valid["win_tile"], valid["melds"])
    return valid


def _validate_common_case(hand) -> dict | None:
    """The same result as the thorough path for a well-formed hand, quickly; None when anything is
    unusual (then the thorough path decides, with the error a player understands)."""
    if type(hand) is not dict or not _HAND_KEYS.issuperset(hand):
        return None
    concealed = hand.get("concealed")
    win = hand.get("win_tile")
    raw_melds = hand.get("melds") or []
    if type(concealed) is not list or win not in _PLAYING or type(raw_melds) is not list or len(raw_melds) > 4:
        return None
    if len(concealed) != 13 - 3 * len(raw_melds) or not _PLAYING.issuperset(concealed):
        return None
    flowers = hand.get("flowers") or []
    if flowers and (type(flowers) is not list or not _FLOWERS.issuperset(flowers)
                    or len(set(flowers)) != len(flowers)):
        return None
    everything = concealed + [win]
    melds = []
    for raw in raw_melds:
        if type(raw) is not dict or not _MELD_KEYS.issuperset(raw):
            return None
        kind = raw.get("kind")
        tiles = raw.get("tiles")
        exposed = raw.get("exposed", True)
        size = MELD_KINDS.get(cast(str, kind))
        if size is None or type(tiles) is not list or len(tiles) != size or type(exposed) is not bool \
                or not _PLAYING.issuperset(tiles):
            return None
        if kind == "chow":
            ordered = _CHOWS.get(tuple(tiles))
            if ordered is None or not exposed:
                return None
            tiles = list(ordered)
        elif tiles.count(tiles[0]) != size or (not exposed and kind != "kong"):
            return None
        else:
            tiles = list(tiles)
        meld = {"kind": kind, "tiles": tiles, "exposed": exposed}
        claimed = raw.get("claimed")
        if claimed is not None:
            if claimed not in tiles or not exposed:
                return None
            meld["claimed"] = claimed
        source = raw.get("from")
        if source is not None:
            if source not in SOURCES or not exposed or (kind == "chow" and source != "left"):
                return None
            meld["from"] = source
        everything += tiles
        melds.append(meld)
    if max(map(everything.count, set(everything))) > 4:
        return None
    raw_context = hand.get("context")
    if raw_context:
        if type(raw_context) is not dict or not BASE_CONTEXT_KEYS.issuperset(raw_context):
            return None
        context = {**CONTEXT_DEFAULTS, **raw_context}
        if context["seat_wind"] not in _WIND_LETTERS or context["prevalent_wind"] not in _WIND_LETTERS:
            return None
        if not _BOOL_TYPE.issuperset(map(type, _bool_context_values(context))):
            return None
    elif raw_context is None or raw_context == {}:
        context = dict(CONTEXT_DEFAULTS)
    else:
        return None
    return {"concealed": list(concealed), "melds": melds, "win_tile": win, "flowers": list(flowers),
            "context": context}


def _validate_thoroughly(hand, extra_context_keys=frozenset()) -> dict:
    if not isinstance(hand, dict):
        raise HandError("invalid_hand", "a hand is a JSON object with concealed, melds, win_tile, flowers, context")
    unknown_fields = sorted(set(hand) - {"concealed", "melds", "win_tile", "flowers", "context"})
    if unknown_fields:
        raise HandError("invalid_hand", f"unknown hand field{'s' if len(unknown_fields) > 1 else ''}: "
                        f"{', '.join(unknown_fields)}")
    if "concealed" not in hand or "win_tile" not in hand:
        raise HandError("invalid_hand", "a hand needs 'concealed' (tiles in hand) and 'win_tile'")
    concealed = _tile_list(hand["concealed"], "concealed")
    win = hand["win_tile"]
    if not isinstance(win, str):
        raise HandError("invalid_hand", "'win_tile' must be one tile code like \"B5\"")
    flowers = _tile_list(hand.get("flowers") or [], "flowers")
    raw_melds = hand.get("melds") or []
    if not isinstance(raw_melds, (list, tuple)):
        raise HandError("invalid_hand", "'melds' must be a list")
    _check_codes(concealed, "the concealed tiles")
    _check_codes([win], "the winning tile")
    _check_codes(flowers, "the flowers")
    misplaced = [t for t in concealed + [win] if t in FLOWER_TILES]
    if misplaced:
        raise HandError("misplaced_flower", f"{glyphs(misplaced)} {'is a flower' if len(misplaced) == 1 else 'are flowers'}"
                        ": flowers go in 'flowers', not among the hand's tiles")
    not_flowers = [t for t in flowers if t not in FLOWER_TILES]
    if not_flowers:
        raise HandError("misplaced_flower", f"{glyphs(not_flowers)} in 'flowers' "
                        f"{'is not a flower' if len(not_flowers) == 1 else 'are not flowers'} (flowers are H1-H8)")
    melds = [_validate_meld(i, m) for i, m in enumerate(raw_melds)]
    counts = Counter(concealed)
    counts[win] += 1
    for meld in melds:
        counts.update(meld["tiles"])
    over = sorted(c for c, n in counts.items() if n > 4)
    if over:
        c = over[0]
        raise HandError("too_many_copies", f"{counts[c]} copies of {GLYPHS[c]} ({name_en(c)}): "
                        "a set has only four of each tile", {"tile": c, "count": counts[c]})
    flower_counts = Counter(flowers)
    doubled = sorted(c for c, n in flower_counts.items() if n > 1)
    if doubled:
        raise HandError("too_many_copies", f"the flower {GLYPHS[doubled[0]]} appears {flower_counts[doubled[0]]} times: "
                        "each flower exists once",
                        {"tile": doubled[0], "count": flower_counts[doubled[0]]})
    total = len(concealed) + 1 + sum(len(m["tiles"]) for m in melds)
    kongs = sum(m["kind"] == "kong" for m in melds)
    counted = {"found": total, "needed": 14 + kongs, "kongs": kongs}  # the params of wrong_tile_count
    if len(melds) > 4:
        raise HandError("wrong_tile_count", f"{len(melds)} melds: a hand has at most four",
                        dict(counted, melds=len(melds)))
    expected = 13 - 3 * len(melds)
    if len(concealed) != expected:
        raise HandError("wrong_tile_count", f"{total} tiles with {kongs} kong{'s' if kongs != 1 else ''}: "
                        f"a winning hand has {14 + kongs} ({expected} concealed plus the winning tile "
                        f"with {len(melds)} meld{'s' if len(melds) != 1 else ''}), "
                        f"here {len(concealed)} concealed", counted)
    context = validate_context(hand.get("context"), extra_context_keys)
    return {"concealed": concealed, "melds": melds, "win_tile": win, "flowers": flowers, "context": context}


def _check_context_consistency(context: dict, concealed: list, win: str, melds: list) -> None:
    if context["kong_replacement"]:
        if not context["self_drawn"]:
            raise HandError("kong_replacement_on_discard", "a win on a kong's replacement tile (杠上开花) is "
                            "self-drawn: set self_drawn, or robbing_kong if you took another player's kong tile")
        if not any(m["kind"] == "kong" for m in melds):
            raise HandError("kong_replacement_without_kong", "a win on a kong's replacement tile (杠上开花) "
                            "needs a kong among the melds")
    if context["robbing_kong"]:
        if context["self_drawn"]:
            raise HandError("robbing_kong_self_drawn", "robbing a kong (抢杠和) is a win on another player's "
                            "tile: it cannot be self-drawn")
        if win in concealed or any(win in m["tiles"] for m in melds):
            raise HandError("robbing_kong_impossible", f"robbing a kong of {GLYPHS[win]} (抢杠和) is impossible "
                            "while the hand holds another copy of it: the other player's pung plus yours "
                            "would be five")
    if context["fourth_tile"] and win in concealed:
        raise HandError("fourth_tile_impossible", f"{GLYPHS[win]} cannot be the last copy (和绝张): "
                        "another copy is in the concealed hand")
