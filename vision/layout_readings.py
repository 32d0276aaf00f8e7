"""Layout, readings: the groups of the hand -> every reading of them (vision.layout's stages 5-6).

5. `group_meld`: the meld a group shows (sideways and face-down tiles say it was declared).
6. `selection_readings`: every reading consistent with the groups of a selection (which groups
   are declared melds, which tile is the winning tile), with its doubt as a penalty; `hand_of`:
   a reading's hand JSON. vision.layout scores them and picks the answer.
"""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from vision import layout_geometry as geometry
from vision.classes import BACK
from vision.layout_geometry import Group, Selection, Tile

MAX_CUT_COMBOS = 64  # ways of cutting groups into melds tried per selection
CUT_COST = 2  # doubt added by each meld cut off a group whose tiles touch (none when a tile lies sideways)
MAX_HIDDEN_CHOICES = 120  # tiles tried for kongs shown as four backs (an even sample beyond)


# --------------------------------------------------------------------------- 5. melds

HIDDEN = "?"  # the tile of a concealed kong shown as four backs


def group_meld(group: Group) -> dict | None:
    """The meld a group shows, or None when its tiles make no meld."""
    codes = group.codes
    backs = codes.count(BACK)
    faces = [c for c in codes if c != BACK]
    if backs:
        if len(codes) == 4 and backs == 4:
            return {"kind": "kong", "tiles": [HIDDEN] * 4, "exposed": False}
        if len(codes) == 4 and len(set(faces)) == 1:
            return {"kind": "kong", "tiles": [faces[0]] * 4, "exposed": False}
        return None
    if len(codes) == 4 and len(set(codes)) == 1:
        meld = {"kind": "kong", "tiles": codes[:], "exposed": True}
    elif len(codes) == 3 and len(set(codes)) == 1:
        meld = {"kind": "pung", "tiles": codes[:], "exposed": True}
    elif len(codes) == 3 and _is_chow(codes):
        meld = {"kind": "chow", "tiles": sorted(codes), "exposed": True}
    else:
        return None
    turned = [i for i, t in enumerate(group.tiles) if t.sideways]
    if len(turned) == 1:
        i = turned[0]
        meld["claimed"] = group.tiles[i].code
        if meld["kind"] == "chow" or i == 0:
            meld["from"] = "left"
        elif i == len(codes) - 1:
            meld["from"] = "right"
        else:
            meld["from"] = "across"
    return meld


def known_meld(group: Group) -> dict:
    """The meld of a group known to show one (a reading's meld)."""
    meld = group_meld(group)
    assert meld is not None, "a reading's meld makes a meld"
    return meld


def _is_chow(codes: list[str]) -> bool:
    suits = {c[0] for c in codes}
    if len(suits) != 1 or suits.pop() not in "WTB":
        return False
    ranks = sorted(int(c[1]) for c in codes)
    return ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1


def _marked(group: Group) -> bool:
    """A group the player has shown as declared: a tile turned sideways or face down."""
    return any(t.sideways or t.is_back for t in group.tiles)


# --------------------------------------------------------------------------- 6. readings

PLAYING = [f"{s}{r}" for s in "WTB" for r in range(1, 10)] + [f"F{i}" for i in range(1, 5)] + [
    f"J{i}" for i in range(1, 4)
]


@dataclass
class Reading:
    selection: Selection
    melds: list[Group]
    concealed: list[Group]
    win: Tile
    win_apart: bool
    penalty: int  # how many guesses against the photo's own grouping it takes
    hidden: tuple[str, ...] = ()  # the tiles given to kongs shown as four backs
    hand: dict = field(default_factory=dict)
    score: dict | None = None
    error: dict | None = None

    def summary(self) -> dict:
        """The reading's params (vision.layout_warnings): winning tile, declared melds, tiles left out."""
        left_out = [t.code for g in self.selection.strays for t in g.tiles] if self.selection.penalty else None
        return {"win_tile": self.win.code, "win_apart": self.win_apart,
                "melds": [list(m["tiles"]) for m in self.hand.get("melds", [])], "left_out": left_out}


def _cuts(group: Group) -> list[tuple[list[Group], int]]:
    """Ways to read a group as it lies, or with melds cut off its ends (two melds laid
    too close look like one group), each with how many cuts it takes."""
    out: list[tuple[list[Group], int]] = [([group], 0)]
    tiles, n = group.tiles, len(group.tiles)
    # Six tiles or more may be melds laid close together; four or five only when a tile marks
    # them as declared (turned or face down): a meld touching a concealed or the winning tile.
    marked = n >= 4 and any(t.sideways or t.is_back for t in tiles)
    if n < 6 and not marked:
        return out
    meld = group_meld(group)
    if meld is not None and not (meld["kind"] == "kong" and meld["exposed"]):
        return out
    # A kong as it lies is the plain reading; its pung and the tile beside it (the winning
    # tile laid close) costs at least one guess.
    least = 1 if meld is not None else 0
    sizes = [()] + [c for k in (1, 2, 3) for c in itertools.product((3, 4), repeat=k)]
    cheapest: dict[tuple, int] = {}
    ways: dict[tuple, list[Group]] = {}
    for left in sizes:
        for right in sizes:
            if not left and not right or len(left) + len(right) > 4 or sum(left) + sum(right) > n:
                continue
            cuts, i = [], 0
            for size in left:
                cuts.append((i, i + size))
                i += size
            middle_start, j = i, n
            tail = []
            for size in right:
                tail.append((j - size, j))
                j -= size
            pieces = [Group(tiles[a:b], group.row) for a, b in cuts + sorted(tail)]
            if any(group_meld(p) is None for p in pieces):
                continue
            if j > middle_start:
                pieces.append(Group(tiles[middle_start:j], group.row))
            if len(pieces) < 2:
                continue
            key = tuple(tuple(t.index for t in p.tiles) for p in sorted(pieces, key=lambda p: p.start))
            chunks = pieces[: len(left) + len(right)]
            cost = max(least, sum(0 if _marked(p) else CUT_COST for p in chunks))
            if cost < cheapest.get(key, cost + 1):  # one cut found two ways (from either end): the cheaper
                cheapest[key], ways[key] = cost, pieces
    return out + [(ways[key], cost) for key, cost in cheapest.items()]


def _merges(groups: list[Group], width: float) -> list[tuple[list[Group], int]]:
    """The groups as they lie, and with neighbouring small groups of a row joined where
    together they make a meld (tiles of one meld laid a little apart), or a single tile
    joined with the nearest tiles of the next group, one change a reading."""
    out: list[tuple[list[Group], int]] = [(groups, 0)]
    by_row: dict[int, list[Group]] = {}
    for g in groups:
        if g.tiles:
            by_row.setdefault(g.row, []).append(g)
    for row in by_row.values():
        row.sort(key=lambda g: g.start)
        for i in range(len(row)):
            for j in range(i + 2, min(len(row), i + 4) + 1):
                run = row[i:j]
                if any(len(g.tiles) > 2 for g in run):
                    break
                if any(geometry.gaps(a, b, width)[0] > 1.0 for a, b in zip(run, run[1:])):
                    break
                joined = Group([t for g in run for t in g.tiles], run[0].row)
                if group_meld(joined) is not None:
                    out.append(([g for g in groups if g not in run] + [joined], 1))
        # A single tile beside a longer group may be the first or last tile of its meld
        # (of a pung or chow with the two nearest tiles, of a kong with the three nearest).
        # A single tile lying sideways beside a pung of its tile is the kong's claimed tile
        # (a turned tile takes more room, so it often lies a little apart): joining it is no
        # guess. (Beside two tiles it might be a winning tile laid turned: a guess.)
        for a, b in zip(row, row[1:]):
            if geometry.gaps(a, b, width)[0] > 1.0:
                continue
            for take in (2, 3):
                if len(a.tiles) == 1 and len(b.tiles) >= 3:
                    single, joined, rest = a.tiles[0], Group(a.tiles + b.tiles[:take], a.row), Group(b.tiles[take:], b.row)
                elif len(b.tiles) == 1 and len(a.tiles) >= 3:
                    single, joined, rest = b.tiles[0], Group(a.tiles[-take:] + b.tiles, a.row), Group(a.tiles[:-take], a.row)
                else:
                    continue
                if group_meld(joined) is not None:
                    pieces = [joined, rest] if rest.tiles else [joined]
                    claimed_of_kong = single.sideways and take == 3
                    out.append(([g for g in groups if g is not a and g is not b] + pieces, 0 if claimed_of_kong else 1))
    return out


def _reading_order(tiles: list[Tile], melds: Sequence[Group] = ()) -> list[Tile]:
    """The concealed tiles in the order the player laid them: players sort their hand
    up from 1 (winds East to North, dragons red, green, white) and lay a chow in order
    (the claimed tile, turned, may stand out of it); when the photo shows them going down,
    it is upside down (or turned the other way)."""
    inner = tiles[1:-1]  # either end may be the winning tile, out of order
    pairs = list(zip(inner, inner[1:]))
    for g in melds:
        if known_meld(g)["kind"] == "chow":
            upright = [t for t in g.tiles if not t.sideways]
            pairs += list(zip(upright, upright[1:]))
    up = down = 0
    for a, b in pairs:
        if a.code[0] == b.code[0] and a.code[0] in "WTBFJ":
            up += int(b.code[1]) > int(a.code[1])
            down += int(b.code[1]) < int(a.code[1])
    return tiles[::-1] if down > up else tiles


def selection_readings(selection: Selection, width: float) -> list[Reading]:
    """Every reading of a selection of groups whose tile count can make a winning hand."""
    readings: list[Reading] = []
    for merged, merge_penalty in _merges([g for g in selection.hand if g.tiles], width):
        variants = [_cuts(g) for g in merged]
        for combo in itertools.islice(itertools.product(*variants), MAX_CUT_COMBOS):
            groups = [p for pieces, _ in combo for p in pieces]
            penalty = selection.penalty + merge_penalty + sum(c for _, c in combo)
            readings.extend(_readings_of(selection, groups, penalty))
    return readings


def _readings_of(selection: Selection, groups: list[Group], base_penalty: int) -> list[Reading]:
    singles = [g for g in groups if len(g.tiles) == 1]
    meldlike = [g for g in groups if len(g.tiles) > 1 and group_meld(g) is not None]
    forced = [g for g in meldlike if _marked(g)]
    optional = [g for g in meldlike if not _marked(g)]
    readings: list[Reading] = []
    for flip_count in range(len(optional) + 1):
        for flipped in itertools.combinations(optional, flip_count):
            melds = forced + [g for g in optional if g not in flipped]
            rest = [g for g in groups if g not in melds]
            if any(t.is_back for g in rest for t in g.tiles):
                continue  # face-down tiles belong only in a concealed kong
            if sum(len(g.tiles) for g in rest) + 3 * len(melds) != 14:
                continue
            # The concealed tiles lie in one row: each extra piece, and each tile lying
            # sideways among them (a claimed tile's mark), is a guess against the photo;
            # a piece of them lying in another row (among the melds) is one more.
            odd = sum(1 for g in rest for t in g.tiles if t.sideways)
            pieces = len([g for g in rest if len(g.tiles) > 1]) + len([g for g in rest if len(g.tiles) == 1])
            by_row: Counter[int] = Counter()
            for g in rest:
                by_row[g.row] += len(g.tiles)
            home = max(by_row, key=lambda row: by_row[row]) if by_row else None
            odd += sum(1 for g in rest if len(g.tiles) > 1 and g.row != home)
            # A winning tile set apart is a single tile; otherwise the last tile of the
            # concealed row (where a drawn tile goes) is the likeliest, any other a guess.
            win_choices = [(g.tiles[0], True, 0) for g in singles if g in rest]
            if win_choices:
                pieces -= 1
            else:
                seen: set[str] = set()
                ordered = _reading_order([t for g in sorted(rest, key=lambda g: (g.row, g.start)) for t in g.tiles], melds)
                for k, t in enumerate(reversed(ordered)):
                    if t.code not in seen:
                        seen.add(t.code)
                        win_choices.append((t, False, 0 if k == 0 else 1))
            base = base_penalty + odd + max(0, pieces - 1)
            hidden_count = sum(1 for g in melds if known_meld(g)["tiles"][0] == HIDDEN)
            # the kong holds all four copies of its tile: not one seen anywhere else, in the hand
            # or beside it (the strays are tiles of the same set)
            shown = {t.code for g in groups + selection.strays for t in g.tiles}
            hidden_choices = list(
                itertools.combinations([c for c in PLAYING if c not in shown], hidden_count)
            )
            if len(hidden_choices) > MAX_HIDDEN_CHOICES:  # two or more such kongs: an even sample
                step = len(hidden_choices) / MAX_HIDDEN_CHOICES
                hidden_choices = [hidden_choices[int(k * step)] for k in range(MAX_HIDDEN_CHOICES)]
            for win, apart, guess in win_choices:
                for hidden in hidden_choices:
                    penalty = base + flip_count + guess
                    readings.append(Reading(selection, melds, rest, win, apart, penalty, hidden))
    return readings


def hand_of(reading: Reading, context: dict) -> dict:
    concealed = [t.code for g in reading.concealed for t in g.tiles if t is not reading.win]
    melds = []
    hidden = list(reading.hidden)
    for g in sorted(reading.melds, key=lambda g: (g.row, g.start)):
        meld = known_meld(g)
        if meld["tiles"][0] == HIDDEN:
            meld["tiles"] = [hidden.pop(0)] * 4
        melds.append(meld)
    return {
        "concealed": concealed,
        "melds": melds,
        "win_tile": reading.win.code,
        "flowers": [t.code for t in reading.selection.flowers],
        "context": dict(context),
    }
