"""Every way to read a 工地 hand: its groups (扑 卡 杠 将) and where the winning tile sits.

A reading is a plain dict:
    {"form": "standard" | "seven_pairs" | "thirteen_terminals" | "unrelated",
     "groups": [{"kind": "chow"|"pung"|"kong"|"pair"|"single", "tiles": [...],
                 "meld": bool, "concealed": bool, "win": bool}],
     "doubt": None or why the seed does not settle whether this form wins}

The seed allows only 扑, 卡, 杠 and 将 in a winning hand, besides the special 20-幡
hands (七大对, 十三幺, 十三不靠).  Where its words leave a form open (four identical
tiles as two of the seven pairs, tiles two apart in 十三不靠, ...), the reading
carries a `doubt` and the scorer answers "not covered" instead of deciding.
"""
from __future__ import annotations

from collections import Counter

from ..tiles import HONOR_TILES, PLAYING_TILES, SUIT_TILES

ORDER = {code: i for i, code in enumerate(PLAYING_TILES)}
TERMINALS_AND_HONOURS = tuple(c for c in SUIT_TILES if c[1] in "19") + HONOR_TILES


def _next(code: str, step: int) -> str | None:
    if code[0] not in "WTB":
        return None
    rank = int(code[1]) + step
    return f"{code[0]}{rank}" if 1 <= rank <= 9 else None


def _sets(counts: Counter, needed: int) -> list[list[tuple]]:
    """All ways to split `counts` into `needed` chows/pungs, as sorted lists of (kind, tiles)."""
    tiles = sorted((c for c, n in counts.items() if n), key=ORDER.__getitem__)
    if not tiles:
        return [[]] if needed == 0 else []
    if needed == 0:
        return []
    first = tiles[0]
    found = []
    if counts[first] >= 3:
        counts[first] -= 3
        found += [[("pung", (first,) * 3)] + rest for rest in _sets(counts, needed - 1)]
        counts[first] += 3
    second, third = _next(first, 1), _next(first, 2)
    if second and third and counts[second] and counts[third]:
        for c in (first, second, third):
            counts[c] -= 1
        found += [[("chow", (first, second, third))] + rest for rest in _sets(counts, needed - 1)]
        for c in (first, second, third):
            counts[c] += 1
    return found


def _standard(concealed: Counter, needed: int) -> list[list[tuple]]:
    """Splits of the concealed tiles into `needed` sets and one 将 (pair), without repeats."""
    splits = set()
    for tile in sorted(concealed, key=ORDER.__getitem__):
        if concealed[tile] >= 2:
            concealed[tile] -= 2
            for sets in _sets(concealed, needed):
                splits.add(tuple(sorted(sets + [("pair", (tile, tile))])))
            concealed[tile] += 2
    return [list(s) for s in sorted(splits)]


def _group(kind, tiles, *, meld=False, concealed=True, win=False) -> dict:
    return {"kind": kind, "tiles": list(tiles), "meld": meld, "concealed": concealed, "win": win}


def _meld_groups(melds: list[dict]) -> list[dict]:
    return [_group(m["kind"], m["tiles"], meld=True, concealed=not m.get("exposed", True)) for m in melds]


def _with_win_tile(form: str, groups: list[tuple], win: str, melds: list[dict], doubt=None) -> list[dict]:
    """One reading per distinct group the winning tile can complete (听到的这张牌)."""
    readings = []
    seen = set()
    for i, (kind, tiles) in enumerate(groups):
        if win not in tiles or (kind, tiles) in seen:
            continue
        seen.add((kind, tiles))
        own = [_group(k, t, win=(j == i)) for j, (k, t) in enumerate(groups)]
        readings.append({"form": form, "groups": _meld_groups(melds) + own, "doubt": doubt})
    return readings


def _suit_gaps(tiles: list[str]) -> list[int]:
    """Differences in rank between tiles of the same suit that are next to each other."""
    gaps = []
    for suit in "WTB":
        ranks = sorted(int(t[1]) for t in tiles if t[0] == suit)
        gaps += [b - a for a, b in zip(ranks, ranks[1:])]
    return gaps


def _special_forms(counts: Counter, win: str) -> list[dict]:
    """七大对, 十三幺 and 十三不靠 readings of a hand with no melds (14 tiles)."""
    tiles = sorted(counts.elements(), key=ORDER.__getitem__)
    readings = []
    if all(n % 2 == 0 for n in counts.values()):
        pairs = [(t, t) for t in tiles[::2]]
        doubt = None
        if any(n == 4 for n in counts.values()):
            doubt = "七大对 with four identical tiles as two pairs: the seed only says “胡牌时有7对牌”"
        readings += _with_win_tile("seven_pairs", [("pair", p) for p in pairs], win, [], doubt)
    if set(tiles) <= set(TERMINALS_AND_HONOURS):
        if set(tiles) == set(TERMINALS_AND_HONOURS):
            readings.append({"form": "thirteen_terminals", "doubt": None,
                             "groups": [_group("single", tiles, win=False)]})
    gaps = _suit_gaps(list(counts))
    if all(g >= 2 for g in gaps):
        doubt = None
        if any(n > 1 for n in counts.values()):
            doubt = ("十三不靠 with a tile twice: the seed's example is 14 different tiles "
                     "(“东、南、西、北、中、发、白、1条、2饼、3万、4条、5饼、6万、7条、8饼、9万中的14张”)")
        elif any(g == 2 for g in gaps):
            doubt = ("十三不靠 with two tiles of a suit two apart: the seed says “所有的牌都不相连” and "
                     "its example keeps them three apart")
        readings.append({"form": "unrelated", "doubt": doubt, "groups": [_group("single", tiles)]})
    return readings


def all_readings(hand: dict) -> list[dict]:
    """Every reading of a validated hand (the melds stay as declared)."""
    melds = hand["melds"]
    win = hand["win_tile"]
    counts = Counter(hand["concealed"])
    counts[win] += 1
    readings = []
    for groups in _standard(counts, 4 - len(melds)):
        readings += _with_win_tile("standard", groups, win, melds)
    if not melds:
        readings += _special_forms(counts, win)
    return readings


def loose_terminals(hand: dict) -> bool:
    """All tiles are 1, 9 or 风 (the seed's whole definition of 十三幺)."""
    tiles = list(hand["concealed"]) + [hand["win_tile"]] + [t for m in hand["melds"] for t in m["tiles"]]
    return set(tiles) <= set(TERMINALS_AND_HONOURS)
