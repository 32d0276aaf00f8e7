"""Layout: tile detections -> the hand JSON of DESIGN.md (`build_hand`).

The stages, each over plain data:

1-4. vision.layout_geometry: clean the boxes, find the row direction, rows and groups,
   and the groups that make the hand (the rest are strays), each choice with its doubt.
5. `_meld`: the meld a group shows (sideways and face-down tiles say it was declared).
6. `_readings`: every reading consistent with the groups (which groups are
   declared melds, which tile is the winning tile), scored; the best reading
   wins and the others come back as alternatives with a warning
   (vision.layout_warnings: a code, its params and the English text).

Flowers (H1-H8) near the hand count wherever they lie, except a neighbour's (turned across
the hand's rows, outside them) and those lying among tiles left out. Tiles are never
invented: when the count cannot make a winning hand the answer says what is off.
"""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from vision import layout_geometry as geometry
from vision.classes import BACK
from vision.detections import Detection
from vision.layout_geometry import LOW_CONFIDENCE, Group, Selection, Tile
from vision.layout_warnings import describe_reading, layout_error, warning

MAX_ALTERNATIVES = 6
MAX_SCORED = 200  # readings scored for alternatives beyond the chosen level
MAX_CUT_COMBOS = 64  # ways of cutting groups into melds tried per selection
CUT_COST = 2  # doubt added by each meld cut off a group whose tiles touch (none when a tile lies sideways)
MAX_HIDDEN_CHOICES = 120  # tiles tried for kongs shown as four backs (an even sample beyond)
MAX_SCORED_PER_LEVEL = 2000  # readings scored at one level of doubt, at most
EDGE = 2.0  # px: a box this near the photo's edge may be a tile cut off by the frame

ScoreFn = Callable[[dict], dict]


# --------------------------------------------------------------------------- 5. melds

HIDDEN = "?"  # the tile of a concealed kong shown as four backs


def _meld(group: Group) -> dict | None:
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


def _meld_of(group: Group) -> dict:
    """The meld of a group known to show one (a reading's meld)."""
    meld = _meld(group)
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
class _Reading:
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
    meld = _meld(group)
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
            if any(_meld(p) is None for p in pieces):
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
                if _meld(joined) is not None:
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
                if _meld(joined) is not None:
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
        if _meld_of(g)["kind"] == "chow":
            upright = [t for t in g.tiles if not t.sideways]
            pairs += list(zip(upright, upright[1:]))
    up = down = 0
    for a, b in pairs:
        if a.code[0] == b.code[0] and a.code[0] in "WTBFJ":
            up += int(b.code[1]) > int(a.code[1])
            down += int(b.code[1]) < int(a.code[1])
    return tiles[::-1] if down > up else tiles


def _readings(selection: Selection, width: float) -> list[_Reading]:
    """Every reading of a selection of groups whose tile count can make a winning hand."""
    readings: list[_Reading] = []
    for merged, merge_penalty in _merges([g for g in selection.hand if g.tiles], width):
        variants = [_cuts(g) for g in merged]
        for combo in itertools.islice(itertools.product(*variants), MAX_CUT_COMBOS):
            groups = [p for pieces, _ in combo for p in pieces]
            penalty = selection.penalty + merge_penalty + sum(c for _, c in combo)
            readings.extend(_readings_of(selection, groups, penalty))
    return readings


def _readings_of(selection: Selection, groups: list[Group], base_penalty: int) -> list[_Reading]:
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
            hidden_count = sum(1 for g in melds if _meld_of(g)["tiles"][0] == HIDDEN)
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
                    readings.append(_Reading(selection, melds, rest, win, apart, penalty, hidden))
    return readings


def _hand_of(reading: _Reading, context: dict) -> dict:
    concealed = [t.code for g in reading.concealed for t in g.tiles if t is not reading.win]
    melds = []
    hidden = list(reading.hidden)
    for g in sorted(reading.melds, key=lambda g: (g.row, g.start)):
        meld = _meld_of(g)
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
            reading.error = {"code": exc.code, "message": getattr(exc, "message", str(exc)),
                             "params": getattr(exc, "params", None)}
            continue
        valid.append(reading)
    return valid


def build_hand(
    detections: list[Detection],
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
    tiles, warnings = geometry.clean(detections)
    result: dict[str, Any] = {
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
        result["error"] = layout_error("no_tiles")
        result["warnings"] = [w["message"] for w in warnings]
        return result

    geometry.frame(tiles)
    if image_size:
        for t in tiles:
            x1, y1, x2, y2 = t.box
            t.cut = min(x1, y1, image_size[0] - x2, image_size[1] - y2) <= EDGE
    width, height = geometry.tile_units(tiles)
    groups = geometry.groups(geometry.rows(tiles, width), width)

    # Face-down tiles that are not part of four tiles in a row showing a concealed kong
    # (a wall, a stray) are not part of the hand. A kong shows at most four backs side by
    # side: a longer run of backs is the wall.
    kept: set[int] = set()
    for g in groups:
        for i in range(len(g.tiles) - 3):
            window = g.tiles[i : i + 4]
            if any(t.is_back for t in window) and _meld(Group(window, g.row)) is not None:
                kept.update(t.index for t in window)
        kept -= {t.index for t in _wall_runs(g.tiles)}
    loose_backs = [t for g in groups for t in g.tiles if t.is_back and t.index not in kept]
    if loose_backs:
        loose = {t.index for t in loose_backs}
        groups = [Group([t for t in g.tiles if t.index not in loose], g.row, g.flowers) for g in groups]
    groups = [g for g in groups if g.members]

    selections = geometry.selections(geometry.components(groups, width), width)
    readings = [r for sel in selections for r in _readings(sel, width)]
    best = None
    valid: list[_Reading] = []
    first_failure = None
    levels = sorted({r.penalty for r in readings})
    runner_up: list[_Reading] = []
    for k, level in enumerate(levels):
        at_level = [r for r in readings if r.penalty == level][:MAX_SCORED_PER_LEVEL]
        valid = _score_level(at_level, context, score)
        if first_failure is None:  # the error to report: of a reading that keeps the kongs as they lie
            first_failure = next((r for r in at_level if r.error and _keeps_kongs(r)), None)
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
        selection = selections[0] if selections else Selection([], [], 0)
        if first_failure is not None:
            result["error"] = first_failure.error
            first_failure.hand = first_failure.hand or _hand_of(first_failure, context)
            result["hand"] = first_failure.hand
        else:
            meldlike = [g for g in selection.hand if len(g.tiles) == 4 and _meld(g) is not None]
            n = sum(len(g.tiles) for g in selection.hand)
            backs = sum(1 for g in selection.hand if g not in meldlike for t in g.tiles if t.is_back)
            if n == 14 + len(meldlike) and backs:  # the count fits, but backs lie in a row of faces
                result["error"] = layout_error("backs_outside_kong", found=n, backs=backs)
            else:
                result["error"] = layout_error("wrong_tile_count", found=n, needed=14 + len(meldlike), kongs=len(meldlike))

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


def _is_kong(group: Group) -> bool:
    meld = _meld(group)
    return meld is not None and meld["kind"] == "kong"


def _keeps_kongs(reading: _Reading) -> bool:
    """Whether a reading keeps every kong the photo shows (rather than a pung and a tile beside it)."""
    return sum(map(_is_kong, reading.melds)) >= sum(map(_is_kong, reading.selection.hand))


def _wall_runs(tiles: list[Tile]) -> list[Tile]:
    """The face-down tiles of a group that lie in runs of more than four (a wall, not a kong)."""
    wall: list[Tile] = []
    run: list[Tile] = []
    for t in tiles + [None]:
        if t is not None and t.is_back:
            run.append(t)
            continue
        if len(run) > 4:
            wall += run
        run = []
    return wall


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


def _group_records(reading: _Reading | None, selection: Selection, flowers: list[Tile]) -> list[dict]:
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


def _box(tiles: list[Tile]) -> list[float]:
    return [
        round(min(t.box[0] for t in tiles), 1),
        round(min(t.box[1] for t in tiles), 1),
        round(max(t.box[2] for t in tiles), 1),
        round(max(t.box[3] for t in tiles), 1),
    ]
