"""Layout: tile detections -> the hand JSON of DESIGN.md (`build_hand`).

The stages, each over plain data:

1-4. vision.layout_geometry: clean the boxes, find the row direction, rows and groups,
   and the groups that make the hand (the rest are strays), each choice with its doubt.
5-6. vision.layout_readings: the meld each group shows, and every reading consistent with
   the groups (which groups are declared melds, which tile is the winning tile).
7. `build_hand` scores the readings; the best reading wins and the others come back as
   alternatives with a warning (vision.layout_warnings: a code, its params and the English text).

Flowers (H1-H8) near the hand count wherever they lie, except a neighbour's (turned across
the hand's rows, outside them) and those lying among tiles left out. Tiles are never
invented: when the count cannot make a winning hand the answer says what is off.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from vision import layout_geometry as geometry
from vision.detections import Detection
from vision.layout_geometry import LOW_CONFIDENCE, Group, Selection, Tile
from vision.layout_readings import Reading, group_meld, hand_of, selection_readings
from vision.layout_warnings import describe_reading, layout_error, warning

MAX_ALTERNATIVES = 6
MAX_SCORED = 200  # readings scored for alternatives beyond the chosen level
MAX_SCORED_PER_LEVEL = 2000  # readings scored at one level of doubt, at most
EDGE = 2.0  # px: a box this near the photo's edge may be a tile cut off by the frame

ScoreFn = Callable[[dict], dict]


def _default_score(rules: str) -> ScoreFn:
    import scoring

    return lambda hand: scoring.score_hand(hand, rules)


def _total(score: dict | None) -> int:
    return int(score.get("total", 0)) if score else 0


def _score_level(readings: list[Reading], context, score: ScoreFn) -> list[Reading]:
    valid = []
    for reading in readings:
        reading.hand = hand_of(reading, context)
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
            if any(t.is_back for t in window) and group_meld(Group(window, g.row)) is not None:
                kept.update(t.index for t in window)
        kept -= {t.index for t in _wall_runs(g.tiles)}
    loose_backs = [t for g in groups for t in g.tiles if t.is_back and t.index not in kept]
    if loose_backs:
        loose = {t.index for t in loose_backs}
        groups = [Group([t for t in g.tiles if t.index not in loose], g.row, g.flowers) for g in groups]
    groups = [g for g in groups if g.members]

    selections = geometry.selections(geometry.components(groups, width), width)
    readings = [r for sel in selections for r in selection_readings(sel, width)]
    best = None
    valid: list[Reading] = []
    first_failure = None
    levels = sorted({r.penalty for r in readings})
    runner_up: list[Reading] = []
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
            first_failure.hand = first_failure.hand or hand_of(first_failure, context)
            result["hand"] = first_failure.hand
        else:
            meldlike = [g for g in selection.hand if len(g.tiles) == 4 and group_meld(g) is not None]
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
    meld = group_meld(group)
    return meld is not None and meld["kind"] == "kong"


def _keeps_kongs(reading: Reading) -> bool:
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


def _warn_about_doubt(best: Reading, others: list[Reading], warnings: list[dict]) -> None:
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


def _group_records(reading: Reading | None, selection: Selection, flowers: list[Tile]) -> list[dict]:
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
