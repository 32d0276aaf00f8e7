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
from dataclasses import dataclass, field
from typing import Callable

from vision.classes import BACK

LOW_CONFIDENCE = 0.5  # a tile read with less than this comes back with a warning
DUPLICATE_OVERLAP = 0.7  # two boxes covering this much of the smaller one are one tile
ROW_SPLIT = 0.6  # centres further apart across the row than this x tile height: new row
GAP_SPLIT = 0.3  # a gap wider than this x tile width ends a group
STRAY_GAP = 2.6  # a group further than this x tile width from the hand is not part of it
SIDEWAYS_RATIO = 1.35  # along/across this much above the row's usual: the tile lies sideways
MAX_ALTERNATIVES = 6

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
    def start(self) -> float:
        return min(t.u - t.along / 2 for t in self.tiles)

    @property
    def end(self) -> float:
        return max(t.u + t.along / 2 for t in self.tiles)

    @property
    def v(self) -> float:
        return sum(t.v for t in self.tiles) / len(self.tiles)


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


def _clean(detections: list[dict]) -> tuple[list[_Tile], list[str]]:
    warnings: list[str] = []
    ordered = sorted(detections, key=lambda d: -float(d.get("score", 1.0)))
    kept: list[dict] = []
    for det in ordered:
        box = [float(x) for x in det["box"]]
        if box[2] <= box[0] or box[3] <= box[1]:
            continue
        twin = next((k for k in kept if _overlap(k["box"], box) > DUPLICATE_OVERLAP), None)
        if twin is not None:
            if twin["tile"] != det["tile"]:
                warnings.append(
                    f"one tile read two ways: {twin['tile']} ({twin['score']:.2f}) "
                    f"or {det['tile']} ({float(det.get('score', 1.0)):.2f}); kept {twin['tile']}"
                )
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
            t.sideways = t.along / t.across > usual * SIDEWAYS_RATIO and t.along > t.across
    return theta


# --------------------------------------------------------------------------- 3. rows and groups


def _tile_units(tiles: list[_Tile]) -> tuple[float, float]:
    upright = [t for t in tiles if not t.sideways] or tiles
    return _median([t.along for t in upright]), _median([t.across for t in upright])


def _rows(tiles: list[_Tile], height: float) -> list[list[_Tile]]:
    rows: list[list[_Tile]] = []
    for t in sorted(tiles, key=lambda t: t.v):
        if rows and t.v - rows[-1][-1].v <= ROW_SPLIT * height:
            rows[-1].append(t)
        else:
            rows.append([t])
    return [sorted(r, key=lambda t: t.u) for r in rows]


def _groups(rows: list[list[_Tile]], width: float) -> list[_Group]:
    groups: list[_Group] = []
    for r, row in enumerate(rows):
        run: list[_Tile] = []
        for t in row:
            if run and (t.u - t.along / 2) - (run[-1].u + run[-1].along / 2) > GAP_SPLIT * width:
                groups.append(_split_flowers(run, r))
                run = []
            run.append(t)
        if run:
            groups.append(_split_flowers(run, r))
    return groups


def _split_flowers(run: list[_Tile], row: int) -> _Group:
    return _Group(
        tiles=[t for t in run if not t.is_flower], row=row, flowers=[t for t in run if t.is_flower]
    )


# --------------------------------------------------------------------------- 4. hand vs strays


def _distance(a: _Group, b: _Group, width: float, height: float) -> float:
    """Gap between two groups in tile widths (rows apart count in tile heights)."""
    along_gap = max(0.0, max(a.start, b.start) - min(a.end, b.end)) / width
    across_gap = max(0.0, abs(a.v - b.v) - height) / height
    return math.hypot(along_gap, across_gap)


def _components(groups: list[_Group], width: float, height: float) -> list[list[_Group]]:
    parent = list(range(len(groups)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in itertools.combinations(range(len(groups)), 2):
        if _distance(groups[i], groups[j], width, height) <= STRAY_GAP:
            parent[find(i)] = find(j)
    comps: dict[int, list[_Group]] = {}
    for i, g in enumerate(groups):
        comps.setdefault(find(i), []).append(g)
    return sorted(comps.values(), key=lambda c: -sum(len(g.tiles) for g in c))


# --------------------------------------------------------------------------- 5. melds


def _meld(group: _Group) -> dict | None:
    """The meld a group shows, or None when its tiles make no meld."""
    codes = group.codes
    backs = codes.count(BACK)
    faces = [c for c in codes if c != BACK]
    if backs:
        if len(codes) == 4 and len(set(faces)) == 1 and backs in (2, 3):
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


@dataclass
class _Reading:
    melds: list[_Group]
    concealed: list[_Group]
    win: _Tile
    win_apart: bool
    penalty: int  # how many guesses against the photo's own grouping it takes
    hand: dict = field(default_factory=dict)
    score: dict | None = None
    error: object = None

    def describe(self) -> str:
        parts = [f"winning tile {self.win.code}" + ("" if self.win_apart else " (not set apart)")]
        declared = ", ".join("".join(m["tiles"]) for m in self.hand.get("melds", []))
        parts.append(f"declared melds: {declared or 'none'}")
        return "; ".join(parts)


def _count_message(n: int, kongs: int) -> str:
    need = 14 + kongs
    with_kongs = f" ({need} with {kongs} kong{'s' if kongs > 1 else ''})" if kongs else ""
    if n < need:
        return f"{n} tiles found; a winning hand needs 14, plus one for each kong{with_kongs}"
    return (
        f"{n} tiles found; a winning hand has 14, plus one for each kong{with_kongs}: "
        f"{n - need} too many"
    )


def _candidate_readings(hand_groups: list[_Group]) -> list[_Reading]:
    groups = [g for g in hand_groups if g.tiles]
    singles = [g for g in groups if len(g.tiles) == 1 and not g.tiles[0].is_back]
    meldlike = [g for g in groups if _meld(g) is not None and len(g.tiles) > 1]
    forced = [g for g in meldlike if _marked(g)]
    optional = [g for g in meldlike if not _marked(g)]
    readings: list[_Reading] = []
    for flip_count in range(len(optional) + 1):
        for flipped in itertools.combinations(optional, flip_count):
            melds = forced + [g for g in optional if g not in flipped]
            rest = [g for g in groups if g not in melds]
            if any(t.is_back for g in rest for t in g.tiles):
                continue  # face-down tiles belong only in a concealed kong
            win_choices: list[tuple[_Tile, bool]] = []
            for g in singles:
                if g in rest:
                    win_choices.append((g.tiles[0], True))
            if not win_choices:
                seen: set[str] = set()
                for g in rest:
                    for t in reversed(g.tiles):
                        if t.code not in seen:
                            seen.add(t.code)
                            win_choices.append((t, False))
            for win, apart in win_choices:
                readings.append(
                    _Reading(
                        melds=melds,
                        concealed=rest,
                        win=win,
                        win_apart=apart,
                        penalty=flip_count,
                    )
                )
    return readings


def _hand_of(reading: _Reading, flowers: list[str], context: dict) -> dict:
    concealed = [t.code for g in reading.concealed for t in g.tiles if t is not reading.win]
    melds = []
    for g in sorted(reading.melds, key=lambda g: (g.row, g.start)):
        meld = _meld(g)
        melds.append(meld)
    return {
        "concealed": concealed,
        "melds": melds,
        "win_tile": reading.win.code,
        "flowers": flowers,
        "context": dict(context),
    }


def _default_score(rules: str) -> ScoreFn:
    import scoring

    return lambda hand: scoring.score_hand(hand, rules)


def _score_error(exc: Exception) -> dict:
    return {
        "code": getattr(exc, "code", "not_a_winning_hand"),
        "message": getattr(exc, "message", str(exc)),
    }


def build_hand(
    detections: list[dict],
    image_size: tuple[int, int] | None = None,
    context: dict | None = None,
    rules: str = "mcr",
    score: ScoreFn | None = None,
) -> dict:
    """Read the hand from detections `[{"tile", "box", "score"}]`.

    Returns `{"hand", "score", "error", "tiles", "groups", "strays", "warnings",
    "alternatives"}`: `hand` and `score` are those of the best reading (None
    when no reading makes a winning hand, and then `error` says why); `tiles`
    are the cleaned detections with their role; `groups` the tile groups as
    laid out (indices into `tiles`).
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
        "warnings": warnings,
        "alternatives": [],
    }
    roles: dict[int, str] = {}
    if not tiles:
        result["error"] = LayoutError("no_tiles", "no tiles found in the photo").to_json()
        return result

    _frame(tiles)
    width, height = _tile_units(tiles)
    groups = [g for g in _groups(_rows(tiles, height), width)]
    flowers = [t for g in groups for t in g.flowers]
    flower_codes = sorted(t.code for t in flowers)
    for t in flowers:
        roles[t.index] = "flower"
    if len(set(flower_codes)) < len(flower_codes):
        warnings.append("a flower appears twice: " + ", ".join(flower_codes))

    comps = _components([g for g in groups if g.tiles], width, height)
    hand_groups, stray_groups = _choose_hand(comps)
    for g in stray_groups:
        for t in g.tiles:
            roles[t.index] = "stray"
        result["strays"].extend(t.index for t in g.tiles)
    if stray_groups:
        n = sum(len(g.tiles) for g in stray_groups)
        warnings.append(
            f"{n} tile{'s' if n > 1 else ''} away from the hand left out: "
            + " ".join(t.code for g in stray_groups for t in g.tiles)
        )
    loose_backs = [
        t for g in hand_groups for t in g.tiles if t.is_back and _meld(g) is None
    ]
    if loose_backs:
        warnings.append(
            f"{len(loose_backs)} face-down tile{'s' if len(loose_backs) > 1 else ''} "
            "outside a concealed kong left out"
        )
        for t in loose_backs:
            roles[t.index] = "stray"
        hand_groups = [
            _Group([t for t in g.tiles if t not in loose_backs], g.row, g.flowers)
            for g in hand_groups
        ]
        hand_groups = [g for g in hand_groups if g.tiles]

    readings = _candidate_readings(hand_groups)
    valid: list[_Reading] = []
    count_errors: list[str] = []
    for reading in readings:
        reading.hand = _hand_of(reading, flower_codes, context)
        n_kongs = sum(1 for m in reading.hand["melds"] if m["kind"] == "kong")
        n_tiles = len(reading.hand["concealed"]) + 1 + sum(len(m["tiles"]) for m in reading.hand["melds"])
        if len(reading.hand["concealed"]) + 1 + 3 * len(reading.hand["melds"]) != 14:
            count_errors.append(_count_message(n_tiles, n_kongs))
            continue
        try:
            reading.score = score(reading.hand)
        except Exception as exc:  # the scorer's HandError: not a winning hand
            if not hasattr(exc, "code"):
                raise
            reading.error = _score_error(exc)
            continue
        valid.append(reading)

    for g in hand_groups:
        for t in g.tiles:
            roles.setdefault(t.index, "concealed")

    if valid:
        best_penalty = min(r.penalty for r in valid)
        valid.sort(key=lambda r: (r.penalty, -_total(r.score)))
        best = valid[0]
        result["hand"], result["score"] = best.hand, best.score
        _mark_roles(best, roles)
        result["groups"] = _group_records(best, hand_groups, stray_groups, flowers)
        others = valid[1:]
        result["alternatives"] = [
            {"description": r.describe(), "hand": r.hand, "total": _total(r.score)}
            for r in others[:MAX_ALTERNATIVES]
        ]
        same_level = [r for r in others if r.penalty == best_penalty]
        if not best.win_apart:
            totals = sorted({_total(r.score) for r in same_level if not r.win_apart})
            msg = (
                f"the winning tile is not set apart; scored with {best.win.code} as the winning "
                f"tile, the reading worth most"
            )
            if same_level:
                msg += " (other readings: " + ", ".join(
                    f"{r.win.code} {_total(r.score)}" for r in same_level[:MAX_ALTERNATIVES]
                ) + ")"
            warnings.append(msg)
            del totals
        elif same_level:
            warnings.append(
                "the grouping can be read more than one way; scored the reading worth most: "
                + best.describe()
            )
        if best.penalty:
            warnings.append(
                "read some separated groups as part of the concealed hand: " + best.describe()
            )
    else:
        if readings and len(count_errors) == len(readings):
            # Every reading fails on the count: say so in plain words.
            first = readings[0]
            n_kongs = sum(1 for g in first.melds if _meld(g)["kind"] == "kong")
            n = sum(len(g.tiles) for g in hand_groups)
            result["error"] = LayoutError("wrong_tile_count", _count_message(n, n_kongs)).to_json()
        elif readings:
            scored = [r for r in readings if r.error]
            err = scored[0].error if scored else None
            result["error"] = err or LayoutError(
                "not_a_winning_hand", "the tiles make no winning hand"
            ).to_json()
            best = scored[0] if scored else readings[0]
            result["hand"] = best.hand
        else:
            result["error"] = LayoutError("wrong_tile_count", _count_message(0, 0)).to_json()
        result["groups"] = _group_records(None, hand_groups, stray_groups, flowers)

    for t in tiles:
        if t.score < LOW_CONFIDENCE and roles.get(t.index) != "stray":
            warnings.append(f"{t.code} read with low confidence ({t.score:.2f})")
    result["tiles"] = [
        {
            "tile": t.code,
            "box": [round(x, 1) for x in t.box],
            "score": round(t.score, 4),
            "role": roles.get(t.index, "concealed"),
            "sideways": t.sideways,
            "low_confidence": t.score < LOW_CONFIDENCE,
        }
        for t in tiles
    ]
    return result


def _total(score: dict | None) -> int:
    return int(score.get("total", 0)) if score else 0


def _choose_hand(comps: list[list[_Group]]) -> tuple[list[_Group], list[_Group]]:
    """The biggest cluster of groups is the hand; others join it only when the count needs them."""
    if not comps:
        return [], []
    hand = list(comps[0])
    strays = [g for c in comps[1:] for g in c]
    return hand, strays


def _mark_roles(reading: _Reading, roles: dict[int, str]) -> None:
    for g in reading.melds:
        for t in g.tiles:
            roles[t.index] = "meld"
    for g in reading.concealed:
        for t in g.tiles:
            roles[t.index] = "concealed"
    roles[reading.win.index] = "win"


def _group_records(reading, hand_groups, stray_groups, flowers) -> list[dict]:
    records = []
    melds = set(id(g) for g in reading.melds) if reading else set()
    for g in hand_groups:
        role = "meld" if id(g) in melds else "concealed"
        if reading and len(g.tiles) == 1 and g.tiles[0] is reading.win and reading.win_apart:
            role = "win"
        records.append({"role": role, "tiles": [t.index for t in g.tiles], "box": _box(g.tiles)})
    for g in stray_groups:
        records.append({"role": "stray", "tiles": [t.index for t in g.tiles], "box": _box(g.tiles)})
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
