"""One small test per 20-幡 hand of the seed, over a hand and one of its readings.

Each returns (holds, groups): holds is True, False, or a string saying why the seed's
words do not settle it (then the hand is "not covered"); groups are the tiles it is
counted on, as lists of tile codes.
"""
from __future__ import annotations

from collections import Counter

from .readings import TERMINALS_AND_HONOURS


def hand_tiles(hand: dict) -> list[str]:
    return list(hand["concealed"]) + [hand["win_tile"]] + [t for m in hand["melds"] for t in m["tiles"]]


def _groups(reading: dict) -> list[list[str]]:
    return [list(g["tiles"]) for g in reading["groups"]]


def pure_suit(hand, reading):
    tiles = hand_tiles(hand)
    return len({t[0] for t in tiles}) == 1 and tiles[0][0] in "WTB", _groups(reading)


def all_honours(hand, reading):
    return all(t[0] in "FJ" for t in hand_tiles(hand)), _groups(reading)


def triplet_chows(hand, reading):
    chows = Counter(tuple(g["tiles"]) for g in reading["groups"] if g["kind"] == "chow")
    same = [list(c) for c, n in chows.items() if n >= 3]
    return bool(same), [same[0]] * 3 if same else []


def seven_pairs(hand, reading):
    return reading["form"] == "seven_pairs", _groups(reading)


def three_concealed_pungs(hand, reading):
    """A 卡 is 暗 when all its tiles were drawn: not one completed by another player's discard."""
    self_drawn = hand["context"]["self_drawn"]
    pungs = [g["tiles"] for g in reading["groups"]
             if g["kind"] == "pung" and not g["meld"] and (self_drawn or not g["win"])]
    kongs = [g["tiles"] for g in reading["groups"] if g["kind"] == "kong" and g["concealed"]]
    if len(pungs) >= 3:
        return True, pungs
    if len(pungs) + len(kongs) >= 3:
        return ("三暗卡 counting a concealed kong (暗杠) as a 暗卡: the seed says “三扑自己摸到的立着的“卡””, "
                "and a 杠 is not a 卡"), pungs + kongs
    return False, []


def thirteen_terminals(hand, reading):
    """Only 1, 9 and 风, with some 1 or 9 (a hand of 风 alone is the seed's 风满楼)."""
    tiles = hand_tiles(hand)
    holds = set(tiles) <= set(TERMINALS_AND_HONOURS) and any(t[0] in "WTB" for t in tiles)
    return holds, _groups(reading)


def thirteen_unrelated(hand, reading):
    return reading["form"] == "unrelated", _groups(reading)


def big_dragons(hand, reading):
    counts = Counter(hand_tiles(hand))
    dragons = ("J1", "J2", "J3")
    return all(counts[d] >= 3 for d in dragons), [[d] * counts[d] for d in dragons]


TESTS = {"pure_suit": pure_suit, "all_honours": all_honours, "triplet_chows": triplet_chows,
         "seven_pairs": seven_pairs, "three_concealed_pungs": three_concealed_pungs,
         "thirteen_terminals": thirteen_terminals, "thirteen_unrelated": thirteen_unrelated,
         "big_dragons": big_dragons}
