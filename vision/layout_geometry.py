"""Layout, geometry: tile detections -> tiles in rows -> groups -> the groups of the hand.

The first stages of vision.layout.build_hand, each over plain data:

1. `clean`: drop duplicate boxes (two classes on one tile), with a warning when they differ.
2. `frame`: the dominant row direction from the box centres (the whole photo
   may be rotated), each tile's extent along and across the row, and whether it
   lies sideways (a claimed tile turned 90 degrees in a meld).
3. `rows` and `groups`: rows from the across-row positions, groups from the
   gaps along each row.
4. `components` and `selections`: the groups that make the hand; groups far from it
   are strays (each selection a way to choose, with its doubt as a penalty).

What the groups mean (melds, the winning tile) and their score is vision.layout's part.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from vision.boxes import LAYOUT_DUPLICATE_OVERLAP, overlap_of_smaller
from vision.boxes import row_angle as boxes_row_angle
from vision.classes import BACK
from vision.detections import Detection
from vision.layout_warnings import warning

LOW_CONFIDENCE = 0.5  # a tile read with less than this comes back with a warning
# two boxes covering LAYOUT_DUPLICATE_OVERLAP of the smaller one are one tile (vision.boxes), and so
NEAR_DUPLICATE_OVERLAP = 0.45  # are two covering this much with centres close:
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
TREND_NEIGHBOURS = 4  # neighbours enough to follow the trend of the boxes' shape along a row
MAX_UNSURE_DROPS = 3  # low-confidence tiles tried as no tile at all when the count is off


@dataclass
class Tile:
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
    pitch: float = 0.0  # centre to centre of touching tiles in its row (0: not measured)

    @property
    def is_flower(self) -> bool:
        return self.code.startswith("H")

    @property
    def is_back(self) -> bool:
        return self.code == BACK


@dataclass
class Group:
    tiles: list[Tile]  # in order along the row, flowers excluded
    row: int
    flowers: list[Tile] = field(default_factory=list)

    @property
    def codes(self) -> list[str]:
        return [t.code for t in self.tiles]

    @property
    def members(self) -> list[Tile]:
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


# --------------------------------------------------------------------------- 1. clean


def _same_tile(a, b, weaker_score: float) -> bool:
    """Two boxes on one tile: they cover most of each other, or (when one of them is
    unsure) half of each other with their centres close; the boxes of neighbouring tiles
    in a tilted row overlap too, but their centres lie a tile apart."""
    overlap = overlap_of_smaller(a, b)
    if overlap > LAYOUT_DUPLICATE_OVERLAP:
        return True
    if weaker_score >= LOW_CONFIDENCE:
        return False
    side = min(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    dx = (a[0] + a[2] - b[0] - b[2]) / 2
    dy = (a[1] + a[3] - b[1] - b[3]) / 2
    return overlap > NEAR_DUPLICATE_OVERLAP and math.hypot(dx, dy) < NEAR_DUPLICATE_CENTRES * side


def clean(detections: list[Detection]) -> tuple[list[Tile], list[dict]]:
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
    tiles = [Tile(i, d["tile"], d["score"], tuple(d["box"])) for i, d in enumerate(kept)]
    return tiles, warnings


# --------------------------------------------------------------------------- 2. frame


def _median(values: list[float]) -> float:
    s = sorted(values)
    n = len(s)
    if not n:
        return 0.0
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def _centre(t: Tile) -> tuple[float, float]:
    x1, y1, x2, y2 = t.box
    return (x1 + x2) / 2, (y1 + y2) / 2


def row_angle(tiles: list[Tile]) -> float:
    """Dominant row direction (radians, in (-pi/2, pi/2]) from nearest-neighbour vectors (vision.boxes.row_angle)."""
    return boxes_row_angle(np.array([t.box for t in tiles], np.float64).reshape(-1, 4))


def frame(tiles: list[Tile]) -> float:
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


def tile_units(tiles: list[Tile]) -> tuple[float, float]:
    upright = [t for t in tiles if not t.sideways] or tiles
    return _median([t.along for t in upright]), _median([t.across for t in upright])


def _clusters(items: list, linked) -> list[list]:
    """The items joined by `linked(a, b)`, transitively (union-find), each cluster in the items'
    order, clusters in the order of their first item's root."""
    parent = list(range(len(items)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in itertools.combinations(range(len(items)), 2):
        if linked(items[i], items[j]):
            parent[find(i)] = find(j)
    clusters: dict[int, list] = {}
    for i, item in enumerate(items):
        clusters.setdefault(find(i), []).append(item)
    return list(clusters.values())


def rows(tiles: list[Tile], width: float) -> list[list[Tile]]:
    """Rows: chains of tiles side by side along the row direction at the same height
    across it (two rows seen at a low angle overlap in the photo, so a row is followed
    tile to tile rather than cut at a fixed height)."""
    def side_by_side(a: Tile, b: Tile) -> bool:
        along = abs(a.u - b.u) - (a.along + b.along) / 2
        return along <= ROW_LINK_ALONG * width and abs(a.v - b.v) <= ROW_LINK_ACROSS * (a.across + b.across) / 2

    ordered = sorted(_clusters(tiles, side_by_side), key=lambda r: _median([t.v for t in r]))
    return [sorted(r, key=lambda t: t.u) for r in ordered]


def _splits(row: list[Tile], width: float) -> list[bool]:
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


def _mark_sideways(row: list[Tile]) -> None:
    """A tile lies sideways when it is much longer along the row than its neighbours
    (compared nearby: perspective changes the boxes' shape along a row). Seen at a low
    angle the shape changes fast, tile after tile: with enough neighbours, the tile must
    also stand out from the trend they follow."""
    if len(row) < 3:
        return
    logs = [math.log(t.along / t.across) for t in row]
    for i, t in enumerate(row):
        near = [j for j in range(max(0, i - SPACING_WINDOW), min(len(row), i + SPACING_WINDOW + 1)) if j != i]
        excess = logs[i] - _median([logs[j] for j in near])
        if len(near) >= TREND_NEIGHBOURS:
            excess = logs[i] - _trend([(row[j].u, logs[j]) for j in near], t.u)
        t.sideways = excess > math.log(SIDEWAYS_RATIO)


def _trend(points: list[tuple[float, float]], at: float) -> float:
    """The value at `at` of the line through the points (Theil-Sen: the median slope of
    pairs, so a sideways tile among them does not bend it)."""
    slopes = [(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in itertools.combinations(points, 2) if x2 != x1]
    slope = _median(slopes)
    return _median([y - slope * x for x, y in points]) + slope * at


def groups(rows: list[list[Tile]], width: float) -> list[Group]:
    groups: list[Group] = []
    for r, row in enumerate(rows):
        _mark_sideways(row)
        run: list[Tile] = [row[0]]
        splits = _splits(row, width)
        for t, split in zip(row[1:], splits):
            if split:
                groups.append(_split_flowers(run, r))
                run = []
            run.append(t)
        groups.append(_split_flowers(run, r))
        # The spacing of touching tiles measures a tile along the row better than its box
        # (seen at a low angle, a tile's box says little of its width).
        touching = [b.u - a.u for a, b, split in zip(row, row[1:], splits)
                    if not split and not a.sideways and not b.sideways]
        pitch = _median(touching) if len(touching) >= 2 else 0.0
        for t in row:
            t.pitch = pitch
    return groups


def _split_flowers(run: list[Tile], row: int) -> Group:
    return Group(
        tiles=[t for t in run if not t.is_flower], row=row, flowers=[t for t in run if t.is_flower]
    )


# --------------------------------------------------------------------------- 4. hand vs strays


def gaps(a: Group, b: Group, width: float) -> tuple[float, float]:
    """(along, across) empty space between two groups, in tile widths (along a row whose
    spacing is measured, in that spacing: centre to centre of the facing tiles, less theirs)."""
    along = max(0.0, max(a.start, b.start) - min(a.end, b.end)) / width
    across = max(0.0, abs(a.v - b.v) - (a.across + b.across) / 2) / width
    first, second = (a, b) if a.start <= b.start else (b, a)
    if a.row == b.row and first.members and second.members:
        x = max(first.members, key=lambda t: t.u)
        y = min(second.members, key=lambda t: t.u)
        if x.pitch and y.pitch and y.u > x.u:
            pitch = (x.pitch + y.pitch) / 2
            touching = pitch * (1 + SIDEWAYS_EXTRA * (x.sideways + y.sideways) / 2)
            along = max(0.0, y.u - x.u - touching) / pitch
    return along, across


def _linked(a: Group, b: Group, width: float) -> bool:
    along, across = gaps(a, b, width)
    return along <= ALONG_LINK and across <= ACROSS_LINK


def components(groups: list[Group], width: float) -> list[list[Group]]:
    comps = _clusters(groups, lambda a, b: _linked(a, b, width))
    return sorted(comps, key=lambda c: (-sum(len(g.tiles) for g in c), -len(c)))


@dataclass
class Selection:
    """Which groups make the hand; the rest are strays."""

    hand: list[Group]
    strays: list[Group]
    penalty: int

    @property
    def flowers(self) -> list[Tile]:
        """The flowers lying with the hand (one of each; a second copy is a stray)."""
        seen: dict[str, Tile] = {}
        for g in self.hand:
            for t in g.flowers:
                seen.setdefault(t.code, t)
        return sorted(seen.values(), key=lambda t: t.code)


def _turned_flowers(group: Group, hand_rows: set[int]) -> bool:
    """Flowers alone outside the hand's rows, each turned across them."""
    return not group.tiles and group.row not in hand_rows and all(t.sideways for t in group.flowers)


def selections(comps: list[list[Group]], width: float) -> list[Selection]:
    """The biggest cluster of groups is the hand. Readings that add a nearby cluster or
    drop one loose tile cost a penalty: they are tried when the count needs them."""
    if not comps:
        return []
    main, others = list(comps[0]), comps[1:]
    # Flowers set aside near the hand are the hand's (one of each kind), unless they lie
    # turned across the hand's rows, outside them: a neighbour's, set aside in front of them.
    hand_rows = {g.row for g in main if g.tiles}
    neighbours = [g for c in comps for g in c if _turned_flowers(g, hand_rows)]
    if neighbours and any(g not in neighbours for g in main):  # (flowers alone stay the hand's)
        main = [g for g in main if g not in neighbours]
        others = [[g for g in c if g not in neighbours] for c in others]
        others = [c for c in others if c] + [neighbours]
    for c in list(others):
        if c is not neighbours and not any(g.tiles for g in c):
            near = min(sum(gaps(g, h, width)) for g in c for h in main)
            if near <= FLOWER_REACH:
                main += c
                others.remove(c)
    out = [Selection(list(main), [g for c in others for g in c], 0)]
    for c in others:
        near = min(sum(gaps(g, h, width)) for g in c for h in main)
        if near <= REACH and c is not neighbours:
            rest = [g for o in others if o is not c for g in o]
            out.append(Selection(list(main) + list(c), rest, 2))
    singles = [g for g in main if len(g.tiles) == 1 and not g.flowers]
    if len(main) > 1:
        # A single tile lying askew, outside the hand's rows or cut by the frame is
        # likelier a stray than a tile of the hand; one or two may be left out.
        rows = {h.row for h in main if len(h.tiles) > 1}
        cost = {id(g): 1 if (g.tiles[0].sideways or g.tiles[0].cut or g.row not in rows) else 2 for g in singles}
        choices = [dropped for k in (1, 2) for dropped in itertools.combinations(singles, k)]
        # More single tiles than that lying outside the hand's rows are tiles strewn about
        # (the hand's tiles lie in rows of several): all of them may be left out together.
        outside = tuple(g for g in singles if g.row not in rows)
        if len(outside) > 2:
            choices.append(outside)
        for dropped in choices:
            # Flowers lying in a row whose tiles are all left out go with them.
            kept_rows = {h.row for h in main if h.tiles and h not in dropped}
            flowers = [h for h in main if not h.tiles and h.row in {d.row for d in dropped} - kept_rows]
            out.append(
                Selection(
                    [h for h in main if h not in dropped and h not in flowers],
                    list(dropped) + flowers + [h for c in others for h in c],
                    sum(cost[id(g)] for g in dropped),
                )
            )
    # A tile the detector was unsure of may be no tile at all (a shadow, a reflection).
    # The less sure, the likelier: each next tile in order of confidence costs one more.
    unsure = sorted((t for g in main for t in g.tiles if t.score < LOW_CONFIDENCE), key=lambda t: t.score)
    for rank, t in enumerate(unsure[:MAX_UNSURE_DROPS]):
        if any(len(g.tiles) == 1 and g.tiles[0] is t for g in main):
            continue  # a single tile: dropped above already
        kept = [Group([u for u in g.tiles if u is not t], g.row, g.flowers) for g in main]
        out.append(Selection([g for g in kept if g.members], [Group([t], -1)] + [h for c in others for h in c], 2 + rank))
    return out
