"""Layout: tile detections -> the hand JSON of DESIGN.md.

The stages, each over plain data:

1. `_clean`: drop duplicate boxes (two classes on one tile), note low confidence.
2. `_frame`: the dominant row direction from the box centres (the whole photo
   may be rotated), each tile's extent along and across the row, and whether it
   lies sideways (a claimed tile turned 90 degrees in a meld).
3. `_rows` and `_groups`: rows from the across-row positions, groups from the
   gaps along each row.
4. `_hand_groups`: the groups that make the hand; groups far from it are strays.
5. `_readings`: every reading consistent with the groups (which groups are
   declared melds, which tile is the winning tile), scored; the best reading
   wins and the others come back as alternatives with a warning.

Flowers (H1-H8) count wherever they lie. Tiles are never invented: when the
count cannot make a winning hand the answer says what is off.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from vision.classes import BACK
from vision.layout_warnings import describe_reading, warning

LOW_CONFIDENCE = 0.5  # a tile read with less than this comes back with a warning
DUPLICATE_OVERLAP = 0.7  # two boxes covering this much of the smaller one are one tile
NEAR_DUPLICATE_OVERLAP = 0.45  # and so are two covering this much with centres close:
NEAR_DUPLICATE_CENTRES = 0.45  # less than this x the smaller box's short side apart
ROW_LINK_ALONG = 2.0  # tiles of one row lie at most this many tile widths apart along it
ROW_LINK_ACROSS = 0.3  # and their centres at most this share of a tile's height apart across it
GAP_SPLIT = 0.13  # centres this much further apart than the usual spacing nearby: a new group
SPACING_WINDOW = 4  # pairs on each side that make the usual spacing
SIDEWAYS_EXTRA = 0.3  # a tile lying sideways is this much longer along the row (tile widths)
BOX_GAP_SPLIT = 0.16  # rows too short for spacing: a gap between boxes this wide x tile width
ALONG_LINK = 1.7  # groups of the hand lie at most this many tile widths apart along a row
ACROSS_LINK = 1.0  # and rows of the hand at most this many tile widths apart
REACH = 4.0  # a cluster this near the hand may join it when the count needs it
FLOWER_REACH = 3.0  # flowers this near the hand (tile widths) are the hand's
SIDEWAYS_RATIO = 1.35  # along/across this much above the row's usual: the tile lies sideways
MAX_ALTERNATIVES = 6
MAX_SCORED = 200  # readings scored for alternatives beyond the chosen level
MAX_CUT_COMBOS = 64  # ways of cutting groups into melds tried per selection
CUT_COST = 2  # doubt added by each meld cut off a group whose tiles touch (none when a tile lies sideways)
MAX_HIDDEN_CHOICES = 120  # tiles tried for kongs shown as four backs (an even sample beyond)
MAX_SCORED_PER_LEVEL = 2000  # readings scored at one level of doubt, at most
EDGE = 2.0  # px: a box this near the photo's edge may be a tile cut off by the frame
MAX_UNSURE_DROPS = 3  # low-confidence tiles tried as no tile at all when the count is off

ScoreFn = Callable[[dict], dict]


@dataclass
class _Tile:
    index: int  # position in the cleaned tile list
    code: str
    score: float
    box: tuple[float, float, float, float]
    u: float = 0.0  # centre along the row direction
    v: float = 0.0  # centre across it
    along: float = 0.0  # extent along the row
    across: float = 0.0
    sideways: bool = False
    cut: bool = False  # the box touches the photo's edge: the tile may be cut off

    @property
    def is_flower(self) -> bool:
        return self.code.startswith("H")

    @property
    def is_back(self) -> bool:
        return self.code == BACK


@dataclass
class _Group:
    tiles: list[_Tile]  # in order along the row, flowers excluded
    row: int
    flowers: list[_Tile] = field(default_factory=list)

    @property
    def codes(self) -> list[str]:
        return [t.code for t in self.tiles]

    @property
    def members(self) -> list[_Tile]:
        return self.tiles + self.flowers

    @property
    def start(self) -> float:
        return min(t.u - t.along / 2 for t in self.members)

    @property
    def end(self) -> float:
        return max(t.u + t.along / 2 for t in self.members)

    @property
    def v(self) -> float:
        return sum(t.v for t in self.members) / len(self.members)

    @property
    def across(self) -> float:
        return max(t.across for t in self.members)


class LayoutError(ValueError):
    """No winning hand can be read from the tiles; `code` says why."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict:
        return {"code": self.code, "message": self.message}


# --------------------------------------------------------------------------- 1. clean


def _overlap(a, b) -> float:
    """Intersection over the smaller box."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / smaller if smaller > 0 else 0.0


def _same_tile(a, b, weaker_score: float) -> bool:
    """Two boxes on one tile: they cover most of each other, or (when one of them is
    unsure) half of each other with their centres close; the boxes of neighbouring tiles
    in a tilted row overlap too, but their centres lie a tile apart."""
    overlap = _overlap(a, b)
    if overlap > DUPLICATE_OVERLAP:
        return True
    if weaker_score >= LOW_CONFIDENCE:
        return False
    side = min(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    dx = (a[0] + a[2] - b[0] - b[2]) / 2
    dy = (a[1] + a[3] - b[1] - b[3]) / 2
    return overlap > NEAR_DUPLICATE_OVERLAP and math.hypot(dx, dy) < NEAR_DUPLICATE_CENTRES * side


def _clean(detections: list[dict]) -> tuple[list[_Tile], list[dict]]:
    warnings: list[dict] = []
    ordered = sorted(detections, key=lambda d: -float(d.get("score", 1.0)))
    kept: list[dict] = []
    for det in ordered:
        box = [float(x) for x in det["box"]]
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        score = float(det.get("score", 1.0))
        twin = next((k for k in kept if _same_tile(k["box"], box, min(k["score"], score))), None)
        if twin is not None:
            if twin["tile"] != det["tile"]:
                warnings.append(warning("tile_read_two_ways", kept=twin["tile"], kept_score=round(twin["score"], 2),
                                        other=det["tile"], other_score=round(score, 2)))
            continue
        kept.append({"tile": det["tile"], "box": box, "score": float(det.get("score", 1.0))})
    kept.sort(key=lambda d: (d["box"][0], d["box"][1]))
    tiles = [_Tile(i, d["tile"], d["score"], tuple(d["box"])) for i, d in enumerate(kept)]
    return tiles, warnings


# --------------------------------------------------------------------------- 2. frame


def _median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    if not n:
        return 0.0
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _centre(t: _Tile) -> tuple[float, float]:
    x1, y1, x2, y2 = t.box
    return (x1 + x2) / 2, (y1 + y2) / 2


def row_angle(tiles: list[_Tile]) -> float:
    """Dominant row direction (radians, in (-pi/2, pi/2]) from nearest-neighbour vectors."""
    if len(tiles) < 2:
        return 0.0
    size = _median([max(t.box[2] - t.box[0], t.box[3] - t.box[1]) for t in tiles])
    centres = [_centre(t) for t in tiles]
    sx = sy = 0.0
    for i, (x, y) in enumerate(centres):
        best = None
        for j, (x2, y2) in enumerate(centres):
            if i != j:
                d = math.hypot(x2 - x, y2 - y)
                if best is None or d < best[0]:
                    best = (d, x2 - x, y2 - y)
        d, dx, dy = best
        if d == 0 or d > 2.0 * size:
            continue
        a = 2 * math.atan2(dy, dx)  # doubled: a direction and its opposite agree
        sx += math.cos(a)
        sy += math.sin(a)
    if sx == 0 and sy == 0:
        return 0.0
    theta = math.atan2(sy, sx) / 2
    if theta <= -math.pi / 2 + 1e-9:
        theta += math.pi
    return theta


def _frame(tiles: list[_Tile]) -> float:
    theta = row_angle(tiles)
    c, s = math.cos(theta), math.sin(theta)
    ac, as_ = abs(c), abs(s)
    det = ac * ac - as_ * as_  # cos 2theta; near 0 at 45 degrees, where extents cannot be told
    for t in tiles:
        x, y = _centre(t)
        t.u = x * c + y * s
        t.v = -x * s + y * c
        w, h = t.box[2] - t.box[0], t.box[3] - t.box[1]
        if abs(det) > 0.35:
            a = (w * ac - h * as_) / det
            b = (h * ac - w * as_) / det
            a, b = max(a, 0.25 * max(w, h)), max(b, 0.25 * max(w, h))
        else:
            a = b = (w + h) / 2
        t.along, t.across = a, b
    usual = _median([t.along / t.across for t in tiles if not t.is_flower] or [1.0])
    if abs(det) > 0.35:
        for t in tiles:
            t.sideways = t.along / t.across > usual * SIDEWAYS_RATIO
    return theta


# --------------------------------------------------------------------------- 3. rows and groups


def _tile_units(tiles: list[_Tile]) -> tuple[float, float]:
    upright = [t for t in tiles if not t.sideways] or tiles
    return _median([t.along for t in upright]), _median([t.across for t in upright])


def _rows(tiles: list[_Tile], width: float) -> list[list[_Tile]]:
    """Rows: chains of tiles side by side along the row direction at the same height
    across it (two rows seen at a low angle overlap in the photo, so a row is followed
    tile to tile rather than cut at a fixed height)."""
    parent = list(range(len(tiles)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in itertools.combinations(range(len(tiles)), 2):
        a, b = tiles[i], tiles[j]
        along = abs(a.u - b.u) - (a.along + b.along) / 2
        if along <= ROW_LINK_ALONG * width and abs(a.v - b.v) <= ROW_LINK_ACROSS * (a.across + b.across) / 2:
            parent[find(i)] = find(j)
    rows: dict[int, list[_Tile]] = {}
    for i, t in enumerate(tiles):
        rows.setdefault(find(i), []).append(t)
    ordered = sorted(rows.values(), key=lambda r: _median([t.v for t in r]))
    return [sorted(r, key=lambda t: t.u) for r in ordered]


def _splits(row: list[_Tile], width: float) -> list[bool]:
    """For each pair of neighbours in a row, whether a gap between groups lies between them.

    Measured on centre spacing, against the median spacing of the pairs nearby
    (tiles grow and shrink along a row seen in perspective, and the boxes of
    skewed tiles overlap, so box edges mislead); short rows fall back to the
    gap between boxes in tile widths.
    """
    steps = [b.u - a.u for a, b in zip(row, row[1:])]
    out = []
    for i, (a, b) in enumerate(zip(row, row[1:])):
        near = steps[max(0, i - SPACING_WINDOW) : i + SPACING_WINDOW + 1]
        if len(near) >= 3:
            usual = _median(near)
            extra = sum(SIDEWAYS_EXTRA for t in (a, b) if t.sideways) * usual / 2
            out.append(steps[i] > (usual + extra) * (1 + GAP_SPLIT))
        else:
            local = _median([min(t.along, t.across) for t in row]) if len(row) > 1 else width
            gap = (b.u - b.along / 2) - (a.u + a.along / 2)
            out.append(gap > BOX_GAP_SPLIT * local)
    return out


def _mark_sideways(row: list[_Tile]) -> None:
    """A tile lies sideways when it is much longer along the row than its neighbours
    (compared nearby: perspective changes the boxes' shape slowly along a row)."""
    if len(row) < 3:
        return
    ratios = [t.along / t.across for t in row]
    for i, t in enumerate(row):
        near = [r for j, r in enumerate(ratios[max(0, i - SPACING_WINDOW) : i + SPACING_WINDOW + 1], max(0, i - SPACING_WINDOW)) if j != i]
        t.sideways = ratios[i] > _median(near) * SIDEWAYS_RATIO


def _groups(rows: list[list[_Tile]], width: float) -> list[_Group]:
    groups: list[_Group] = []
    for r, row in enumerate(rows):
        _mark_sideways(row)
        run: list[_Tile] = [row[0]]
        for t, split in zip(row[1:], _splits(row, width)):
            if split:
                groups.append(_split_flowers(run, r))
                run = []
            run.append(t)
        groups.append(_split_flowers(run, r))
    return groups


def _split_flowers(run: list[_Tile], row: int) -> _Group:
    return _Group(
        tiles=[t for t in run if not t.is_flower], row=row, flowers=[t for t in run if t.is_flower]
    )


# --------------------------------------------------------------------------- 4. hand vs strays


def _gaps(a: _Group, b: _Group, width: float) -> tuple[float, float]:
    """(along, across) empty space between two groups, in tile widths."""
    along = max(0.0, max(a.start, b.start) - min(a.end, b.end)) / width
    across = max(0.0, abs(a.v - b.v) - (a.across + b.across) / 2) / width
    return along, across


def _linked(a: _Group, b: _Group, width: float) -> bool:
    along, across = _gaps(a, b, width)
    return along <= ALONG_LINK and across <= ACROSS_LINK


def _components(groups: list[_Group], width: float) -> list[list[_Group]]:
    parent = list(range(len(groups)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in itertools.combinations(range(len(groups)), 2):
        if _linked(groups[i], groups[j], width):
            parent[find(i)] = find(j)
    comps: dict[int, list[_Group]] = {}
    for i, g in enumerate(groups):
        comps.setdefault(find(i), []).append(g)
    return sorted(comps.values(), key=lambda c: (-sum(len(g.tiles) for g in c), -len(c)))


@dataclass
class _Selection:
    """Which groups make the hand; the rest are strays."""

    hand: list[_Group]
    strays: list[_Group]
    penalty: int

    @property
    def flowers(self) -> list[_Tile]:
        """The flowers lying with the hand (one of each; a second copy is a stray)."""
        seen: dict[str, _Tile] = {}
        for g in self.hand:
            for t in g.flowers:
                seen.setdefault(t.code, t)
        return sorted(seen.values(), key=lambda t: t.code)


def _selections(comps: list[list[_Group]], width: float) -> list[_Selection]:
    """The biggest cluster of groups is the hand. Readings that add a nearby cluster or
    drop one loose tile cost a penalty: they are tried when the count needs them."""
    if not comps:
        return []
    main, others = list(comps[0]), comps[1:]
    # Flowers set aside near the hand are the hand's (one of each kind).
    for c in list(others):
        if not any(g.tiles for g in c):
            near = min(sum(_gaps(g, h, width)) for g in c for h in main)
            if near <= FLOWER_REACH:
                main += c
                others.remove(c)
    out = [_Selection(list(main), [g for c in others for g in c], 0)]
    for c in others:
        near = min(sum(_gaps(g, h, width)) for g in c for h in main)
        if near <= REACH:
            rest = [g for o in others if o is not c for g in o]
            out.append(_Selection(list(main) + list(c), rest, 2))
    singles = [g for g in main if len(g.tiles) == 1 and not g.flowers]
    if len(main) > 1:
        # A single tile lying askew, outside the hand's rows or cut by the frame is
        # likelier a stray than a tile of the hand; one or two may be left out.
        rows = {h.row for h in main if len(h.tiles) > 1}
        cost = {id(g): 1 if (g.tiles[0].sideways or g.tiles[0].cut or g.row not in rows) else 2 for g in singles}
        for k in (1, 2):
            for dropped in itertools.combinations(singles, k):
                out.append(
                    _Selection(
                        [h for h in main if h not in dropped],
                        list(dropped) + [h for c in others for h in c],
                        sum(cost[id(g)] for g in dropped),
                    )
                )
    # A tile the detector was unsure of may be no tile at all (a shadow, a reflection).
    unsure = sorted((t for g in main for t in g.tiles if t.score < LOW_CONFIDENCE), key=lambda t: t.score)
    for t in unsure[:MAX_UNSURE_DROPS]:
        if any(len(g.tiles) == 1 and g.tiles[0] is t for g in main):
            continue  # a single tile: dropped above already
        kept = [_Group([u for u in g.tiles if u is not t], g.row, g.flowers) for g in main]
        out.append(_Selection([g for g in kept if g.members], [_Group([t], -1)] + [h for c in others for h in c], 2))
    return out


# --------------------------------------------------------------------------- 5. melds

HIDDEN = "?"  # the tile of a concealed kong shown as four backs


def _meld(group: _Group) -> dict | None:
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


def _is_chow(codes: list[str]) -> bool:
    suits = {c[0] for c in codes}
    if len(suits) != 1 or suits.pop() not in "WTB":
        return False
    ranks = sorted(int(c[1]) for c in codes)
    return ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1


def _marked(group: _Group) -> bool:
    """A group the player has shown as declared: a tile turned sideways or face down."""
    return any(t.sideways or t.is_back for t in group.tiles)


# --------------------------------------------------------------------------- 6. readings

PLAYING = [f"{s}{r}" for s in "WTB" for r in range(1, 10)] + [f"F{i}" for i in range(1, 5)] + [
    f"J{i}" for i in range(1, 4)
]


@dataclass
class _Reading:
    selection: _Selection
    melds: list[_Group]
    concealed: list[_Group]
    win: _Tile
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


def _count_message(n: int, kongs: int) -> str:
    need = 14 + kongs
    with_kongs = f" ({need} with {kongs} kong{'s' if kongs > 1 else ''})" if kongs else ""
    if n < need:
        return f"{n} tiles found; a winning hand needs 14, plus one for each kong{with_kongs}"
    return (
        f"{n} tiles found; a winning hand has 14, plus one for each kong{with_kongs}: "
        f"{n - need} too many"
    )


def _cuts(group: _Group) -> list[tuple[list[_Group], int]]:
    """Ways to read a group as it lies, or with melds cut off its ends (two melds laid
    too close look like one group), each with how many cuts it takes."""
    out: list[tuple[list[_Group], int]] = [([group], 0)]
    tiles, n = group.tiles, len(group.tiles)
    if n < 6 and not (n >= 4 and any(t.sideways for t in tiles)):
        return out
    if _meld(group) is not None:
        return out
    sizes = [()] + [c for k in (1, 2, 3) for c in itertools.product((3, 4), repeat=k)]
    seen = set()
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
            pieces = [_Group(tiles[a:b], group.row) for a, b in cuts + sorted(tail)]
            if any(_meld(p) is None for p in pieces):
                continue
            if j > middle_start:
                pieces.append(_Group(tiles[middle_start:j], group.row))
            key = tuple(tuple(t.index for t in p.tiles) for p in sorted(pieces, key=lambda p: p.start))
            if key in seen or len(pieces) < 2:
                continue
            seen.add(key)
            chunks = pieces[: len(left) + len(right)]
            out.append((pieces, sum(0 if _marked(p) else CUT_COST for p in chunks)))
    return out


def _merges(groups: list[_Group], width: float) -> list[tuple[list[_Group], int]]:
    """The groups as they lie, and with neighbouring small groups of a row joined where
    together they make a meld (tiles of one meld laid a little apart), or a single tile
    joined with the two nearest tiles of the next group, one change a reading."""
    out: list[tuple[list[_Group], int]] = [(groups, 0)]
    by_row: dict[int, list[_Group]] = {}
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
                if any(_gaps(a, b, width)[0] > 1.0 for a, b in zip(run, run[1:])):
                    break
                joined = _Group([t for g in run for t in g.tiles], run[0].row)
                if _meld(joined) is not None:
                    out.append(([g for g in groups if g not in run] + [joined], 1))
        # A single tile beside a longer group may be the first or last tile of its meld.
        for a, b in zip(row, row[1:]):
            if _gaps(a, b, width)[0] > 1.0:
                continue
            if len(a.tiles) == 1 and len(b.tiles) >= 3:
                joined, rest = _Group(a.tiles + b.tiles[:2], a.row), _Group(b.tiles[2:], b.row)
            elif len(b.tiles) == 1 and len(a.tiles) >= 3:
                joined, rest = _Group(a.tiles[-2:] + b.tiles, a.row), _Group(a.tiles[:-2], a.row)
            else:
                continue
            if _meld(joined) is not None:
                out.append(([g for g in groups if g is not a and g is not b] + [joined, rest], 1))
    return out


def _reading_order(tiles: list[_Tile]) -> list[_Tile]:
    """The concealed tiles in the order the player laid them: players sort their hand
    up from 1; when the photo shows the runs going down, it is upside down."""
    up = down = 0
    inner = tiles[1:-1]  # either end may be the winning tile, out of order
    for a, b in zip(inner, inner[1:]):
        if a.code[0] == b.code[0] and a.code[0] in "WTB":
            up += int(b.code[1]) > int(a.code[1])
            down += int(b.code[1]) < int(a.code[1])
    return tiles[::-1] if down > up else tiles


def _readings(selection: _Selection, width: float) -> list[_Reading]:
    """Every reading of a selection of groups whose tile count can make a winning hand."""
    readings: list[_Reading] = []
    for merged, merge_penalty in _merges([g for g in selection.hand if g.tiles], width):
        variants = [_cuts(g) for g in merged]
        for combo in itertools.islice(itertools.product(*variants), MAX_CUT_COMBOS):
            groups = [p for pieces, _ in combo for p in pieces]
            penalty = selection.penalty + merge_penalty + sum(c for _, c in combo)
            readings.extend(_readings_of(selection, groups, penalty))
    return readings


def _readings_of(selection: _Selection, groups: list[_Group], base_penalty: int) -> list[_Reading]:
    singles = [g for g in groups if len(g.tiles) == 1]
    meldlike = [g for g in groups if len(g.tiles) > 1 and _meld(g) is not None]
    forced = [g for g in meldlike if _marked(g)]
    optional = [g for g in meldlike if not _marked(g)]
    readings: list[_Reading] = []
    for flip_count in range(len(optional) + 1):
        for flipped in itertools.combinations(optional, flip_count):
            melds = forced + [g for g in optional if g not in flipped]
            rest = [g for g in groups if g not in melds]
            if any(t.is_back for g in rest for t in g.tiles):
                continue  # face-down tiles belong only in a concealed kong
            if sum(len(g.tiles) for g in rest) + 3 * len(melds) != 14:
                continue
            # The concealed tiles lie in one row: each extra piece, and each tile lying
            # sideways among them (a claimed tile's mark), is a guess against the photo.
            odd = sum(1 for g in rest for t in g.tiles if t.sideways)
            pieces = len([g for g in rest if len(g.tiles) > 1]) + len([g for g in rest if len(g.tiles) == 1])
            # A winning tile set apart is a single tile; otherwise the last tile of the
            # concealed row (where a drawn tile goes) is the likeliest, any other a guess.
            win_choices = [(g.tiles[0], True, 0) for g in singles if g in rest]
            if win_choices:
                pieces -= 1
            else:
                seen: set[str] = set()
                ordered = _reading_order([t for g in sorted(rest, key=lambda g: (g.row, g.start)) for t in g.tiles])
                for k, t in enumerate(reversed(ordered)):
                    if t.code not in seen:
                        seen.add(t.code)
                        win_choices.append((t, False, 0 if k == 0 else 1))
            base = base_penalty + odd + max(0, pieces - 1)
            hidden_count = sum(1 for g in melds if _meld(g)["tiles"][0] == HIDDEN)
            shown = {t.code for g in groups for t in g.tiles}
            hidden_choices = list(
                itertools.combinations([c for c in PLAYING if c not in shown], hidden_count)
            )
            if len(hidden_choices) > MAX_HIDDEN_CHOICES:  # two or more such kongs: an even sample
                step = len(hidden_choices) / MAX_HIDDEN_CHOICES
                hidden_choices = [hidden_choices[int(k * step)] for k in range(MAX_HIDDEN_CHOICES)]
            for win, apart, guess in win_choices:
                for hidden in hidden_choices:
                    penalty = base + flip_count + guess
                    readings.append(_Reading(selection, melds, rest, win, apart, penalty, hidden))
    return readings


def _hand_of(reading: _Reading, context: dict) -> dict:
    concealed = [t.code for g in reading.concealed for t in g.tiles if t is not reading.win]
    melds = []
    hidden = list(reading.hidden)
    for g in sorted(reading.melds, key=lambda g: (g.row, g.start)):
        meld = _meld(g)
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


def _default_score(rules: str) -> ScoreFn:
    import scoring

    return lambda hand: scoring.score_hand(hand, rules)


def _total(score: dict | None) -> int:
    return int(score.get("total", 0)) if score else 0


def _score_level(readings: list[_Reading], context, score: ScoreFn) -> list[_Reading]:
    valid = []
    for reading in readings:
        reading.hand = _hand_of(reading, context)
        try:
            reading.score = score(reading.hand)
        except Exception as exc:  # the scorer's HandError: not a winning hand
            if not hasattr(exc, "code"):
                raise
            reading.error = {"code": exc.code, "message": getattr(exc, "message", str(exc))}
            continue
        valid.append(reading)
    return valid


def build_hand(
    detections: list[dict],
    image_size: tuple[int, int] | None = None,
    context: dict | None = None,
    rules: str = "mcr",
    score: ScoreFn | None = None,
) -> dict:
    """Read the hand from detections `[{"tile", "box", "score"}]`.

    Returns `{"hand", "score", "error", "tiles", "groups", "strays", "warnings",
    "warning_details", "alternatives"}`: `hand` and `score` are those of the best reading (None
    when no reading makes a winning hand, and then `error` says why); `tiles`
    are the cleaned detections with their role; `groups` the tile groups as
    laid out (indices into `tiles`); `strays` the indices of tiles left out;
    `warnings` the English texts of `warning_details` ({"code", "params", "message"},
    see vision.layout_warnings); each alternative is {"description", "reading", "hand", "total"}.
    `image_size` is accepted for callers that know it; the layout needs only the boxes.
    """
    score = score or _default_score(rules)
    context = dict(context or {})
    tiles, warnings = _clean(detections)
    result = {
        "hand": None,
        "score": None,
        "error": None,
        "tiles": [],
        "groups": [],
        "strays": [],
        "warnings": [],
        "warning_details": warnings,
        "alternatives": [],
    }
    if not tiles:
        result["error"] = LayoutError("no_tiles", "no tiles found in the photo").to_json()
        result["warnings"] = [w["message"] for w in warnings]
        return result

    _frame(tiles)
    if image_size:
        for t in tiles:
            x1, y1, x2, y2 = t.box
            t.cut = min(x1, y1, image_size[0] - x2, image_size[1] - y2) <= EDGE
    width, height = _tile_units(tiles)
    groups = _groups(_rows(tiles, width), width)

    # Face-down tiles that are not part of four tiles in a row showing a concealed kong
    # (a wall, a stray) are not part of the hand.
    kept: set[int] = set()
    for g in groups:
        for i in range(len(g.tiles) - 3):
            window = g.tiles[i : i + 4]
            if any(t.is_back for t in window) and _meld(_Group(window, g.row)) is not None:
                kept.update(t.index for t in window)
    loose_backs = [t for g in groups for t in g.tiles if t.is_back and t.index not in kept]
    if loose_backs:
        loose = {t.index for t in loose_backs}
        groups = [_Group([t for t in g.tiles if t.index not in loose], g.row, g.flowers) for g in groups]
    groups = [g for g in groups if g.members]

    selections = _selections(_components(groups, width), width)
    readings = [r for sel in selections for r in _readings(sel, width)]
    best = None
    valid: list[_Reading] = []
    first_failure = None
    levels = sorted({r.penalty for r in readings})
    runner_up: list[_Reading] = []
    for k, level in enumerate(levels):
        at_level = [r for r in readings if r.penalty == level][:MAX_SCORED_PER_LEVEL]
        valid = _score_level(at_level, context, score)
        if first_failure is None:
            first_failure = next((r for r in at_level if r.error), None)
        if valid:
            if k + 1 < len(levels):  # the next readings in line, as alternatives
                following = [r for r in readings if r.penalty == levels[k + 1]][:MAX_SCORED]
                runner_up = _score_level(following, context, score)
            break

    roles: dict[int, str] = {t.index: "stray" for t in loose_backs}
    if valid:
        valid.sort(key=lambda r: -_total(r.score))
        best = valid[0]
        if best.hidden:
            # A kong shown as four backs could be any tile not seen elsewhere: score the
            # total most of those tiles give, not the luckiest one.
            counts = Counter(_total(r.score) for r in valid if r.hidden)
            modal = max(counts, key=lambda total: (counts[total], total))
            best = next(r for r in valid if r.hidden and _total(r.score) == modal)
            valid.remove(best)
            valid.insert(0, best)
        result["hand"], result["score"] = best.hand, best.score
        selection = best.selection
        others = valid[1:] + sorted(runner_up, key=lambda r: -_total(r.score))
        seen_hands = {_hand_key(best.hand)}
        for r in others:  # one alternative per distinct hand
            if _hand_key(r.hand) not in seen_hands and len(result["alternatives"]) < MAX_ALTERNATIVES:
                seen_hands.add(_hand_key(r.hand))
                reading = r.summary()
                result["alternatives"].append(
                    {"description": describe_reading(reading), "reading": reading, "hand": r.hand, "total": _total(r.score)}
                )
        _warn_about_doubt(best, others, warnings)
    else:
        selection = selections[0] if selections else _Selection([], [], 0)
        if first_failure is not None:
            result["error"] = first_failure.error
            first_failure.hand = first_failure.hand or _hand_of(first_failure, context)
            result["hand"] = first_failure.hand
        else:
            meldlike = [g for g in selection.hand if len(g.tiles) == 4 and _meld(g) is not None]
            n = sum(len(g.tiles) for g in selection.hand)
            result["error"] = LayoutError("wrong_tile_count", _count_message(n, len(meldlike))).to_json()

    flowers = selection.flowers
    for t in flowers:
        roles[t.index] = "flower"
    for g in selection.hand + selection.strays:
        for t in g.members:
            roles.setdefault(t.index, "stray" if g in selection.strays or t.is_flower else "concealed")
    stray_tiles = [t for t in tiles if roles.get(t.index) == "stray"]
    result["strays"] = [t.index for t in stray_tiles]
    if stray_tiles:
        warnings.append(warning("strays_left_out", count=len(stray_tiles), tiles=[t.code for t in stray_tiles]))
    if best:
        for g in best.melds:
            for t in g.tiles:
                roles[t.index] = "meld"
        roles[best.win.index] = "win"
    result["groups"] = _group_records(best, selection, flowers)

    unsure = [t for t in tiles if t.score < LOW_CONFIDENCE and roles.get(t.index) != "stray"]
    if unsure:
        warnings.append(warning("low_confidence", threshold=LOW_CONFIDENCE,
                                tiles=[{"tile": t.code, "score": round(t.score, 2)} for t in unsure]))
    result["tiles"] = [
        {
            "tile": t.code,
            "box": [round(x, 1) for x in t.box],
            "score": round(t.score, 4),
            "role": roles.get(t.index, "stray"),
            "sideways": t.sideways,
            "low_confidence": t.score < LOW_CONFIDENCE,
        }
        for t in tiles
    ]
    result["warnings"] = [w["message"] for w in warnings]
    return result


def _hand_key(hand: dict) -> tuple:
    """What makes two readings the same hand for the scorer (not tile order nor who discarded)."""
    melds = sorted((m["kind"], tuple(m["tiles"]), m.get("exposed", True)) for m in hand["melds"])
    return tuple(sorted(hand["concealed"])), tuple(melds), hand["win_tile"], tuple(hand["flowers"])


def _warn_about_doubt(best: _Reading, others: list[_Reading], warnings: list[dict]) -> None:
    if not best.win_apart:
        warnings.append(warning("win_tile_not_apart", tile=best.win.code))
    if best.hidden:
        totals = sorted({_total(r.score) for r in others if r.hidden} | {_total(best.score)})
        warnings.append(warning("hidden_kong_tile_unknown", total=_total(best.score), tiles=list(best.hidden),
                                min_total=totals[0], max_total=totals[-1]))
    if best.penalty > best.selection.penalty or best.selection.penalty:
        warnings.append(warning("unusual_layout", reading=best.summary()))
    elif best.win_apart and not best.hidden and any(
        r.win_apart and r.penalty == best.penalty and _total(r.score) != _total(best.score) for r in others
    ):
        warnings.append(warning("grouping_ambiguous", reading=best.summary()))


def _group_records(reading: _Reading | None, selection: _Selection, flowers: list[_Tile]) -> list[dict]:
    records = []
    melds = {id(g) for g in reading.melds} if reading else set()
    laid = reading.melds + reading.concealed if reading else [g for g in selection.hand if g.tiles]
    for g in sorted(laid, key=lambda g: (g.row, g.start)):
        role = "meld" if id(g) in melds else "concealed"
        if reading and reading.win_apart and len(g.tiles) == 1 and g.tiles[0] is reading.win:
            role = "win"
        records.append({"role": role, "tiles": [t.index for t in g.tiles], "box": _box(g.tiles)})
    for g in selection.strays:
        records.append({"role": "stray", "tiles": [t.index for t in g.members], "box": _box(g.members)})
    if flowers:
        records.append({"role": "flowers", "tiles": [t.index for t in flowers], "box": _box(flowers)})
    return records


def _box(tiles: list[_Tile]) -> list[float]:
    return [
        round(min(t.box[0] for t in tiles), 1),
        round(min(t.box[1] for t in tiles), 1),
        round(max(t.box[2] for t in tiles), 1),
        round(max(t.box[3] for t in tiles), 1),
    ]
