"""Repair a photo's reading that is not a winning hand with the detector's next choices.

A player photographs a hand that won, so a reading that makes no winning hand (the layout's
`not_a_winning_hand`, `wrong_tile_count` or `backs_outside_kong`) has a tile misread, and the classifier's second or
third choice for it usually holds the right tile. This is constrained decoding with the
strongest constraint there is: among the readings the detections' `candidates` allow, take the
most likely one that wins.

- A substitution puts one of a detection's other candidates in its place, when that
  candidate's score is at least MIN_SHARE of the detection's own. It costs
  log(own score) - log(candidate score): how much less likely the reading gets.
- Only detections the layout counts (hand tiles and flowers) are changed, and a changed
  reading must still fit one tile set (vision.one_set). A hand short of tiles may also change
  a stray the detector read unsure (under STRAY_UNSURE): a misread tile can break its group
  (a kong read BACK W2 W4 BACK) and the layout then leaves the group out.
- Single substitutions are tried cheapest first (at most MAX_SINGLES); only when none wins,
  pairs of the PAIR_POOL cheapest, cheapest pair first. A trial runs the whole layout and
  wins when it gives a hand and a score. The first winner is the least costly (ties: the
  first found). At most MAX_SINGLES + PAIR_POOL * (PAIR_POOL - 1) / 2 layouts per photo,
  plus MAX_ADDS + ADD_POOL * PAIR_POOL for a hand one tile short (190 in all) or
  MAX_DROPS + DROP_POOL * PAIR_POOL for a hand with a tile too many (162 in all).
- A hand one tile short (`wrong_tile_count` with fewer tiles than needed) may also take one
  *weak* box: one the finder scored under its threshold (vision.detections.Detections.weak),
  as one of its candidates scoring at least MIN_ADDED_SCORE (the finder fairly sure of a tile
  there, the classifier of its kind). It costs -log(candidate score): how unlikely that box is
  a tile of that kind at all. Additions join the singles
  (cheapest first, at most MAX_ADDS) and the ADD_POOL cheapest are paired with each of the
  PAIR_POOL cheapest substitutions; never two additions. The weak box is a real detection
  (its tile keeps its low score, so the layout marks it low_confidence): no tile is invented.
- A hand with a tile too many (`wrong_tile_count` with more tiles than needed) may *drop* one
  of the detections the layout counted. The likeliest false box is the weaker of two counted
  boxes on one tile (covering TWIN_OVERLAP of the smaller one); a lone box is rarely false.
  A drop costs -log(how often such a box is false), DROP_COSTS, measured on synthetic scenes.
  Drops join the singles (cheapest first, at most MAX_DROPS) and the DROP_POOL cheapest are
  paired with each of the PAIR_POOL cheapest substitutions; never two drops. Offered only to a
  hand with more tiles than needed. The dropped detection's record stays in `tiles`, role "stray",
  `dropped` and `low_confidence`: left out, to be checked, never silently lost.
- The winner's result comes back with a `reading_repaired` warning that names each change,
  and each changed tile's record in its `tiles` says `read_as` (the detector's own reading);
  when nothing wins, the caller keeps the original result.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

from vision.boxes import overlap_of_smaller
from vision.detections import Detection
from vision.layout_warnings import warning
from vision.one_set import copies_in_one_set

REPAIRABLE_ERRORS = frozenset({"not_a_winning_hand", "wrong_tile_count", "backs_outside_kong"})
# A candidate scoring less than this share of the detection's own is not tried
MIN_SHARE = 0.1
MAX_SINGLES = 40  # single substitutions tried, cheapest first
PAIR_POOL = 12  # the cheapest substitutions paired when no single one wins (66 pairs)
# A weak box's candidate scoring less is never added
MIN_ADDED_SCORE = 0.2
MAX_ADDS = 12  # weak boxes' candidates tried alone, a hand one tile short
ADD_POOL = 6  # the cheapest additions paired with a substitution (6 x PAIR_POOL pairs)
# Two counted boxes covering this share of the smaller one are likely one tile read twice (the
# layout's own near-duplicate overlap; it keeps both when neither is unsure).
TWIN_OVERLAP = 0.45
# -log(share of such boxes that lie on no tile of their own) among counted boxes of synthetic
# scenes: the weaker and the stronger of twin pairs, lone boxes under LONE_UNSURE and the others
DROP_COSTS = {"weaker_twin": -math.log(36 / 50), "stronger_twin": -math.log(3 / 50),
              "lone_unsure": -math.log(3 / 97), "lone": -math.log(8 / 4709)}
LONE_UNSURE = 0.3
MAX_DROPS = 8  # counted detections tried without, a hand a tile too many
DROP_POOL = 4  # the cheapest drops paired with a substitution (4 x PAIR_POOL pairs)
STRAY_UNSURE = 0.5
REPAIRED_ROLES = frozenset({"concealed", "meld", "win", "flower"})  # the tiles the layout counts

Layout = Callable[[list[Detection]], dict]


@dataclass(frozen=True)
class Substitution:
    index: int  # the detection's position in the list
    tile: str  # the candidate put in its place
    score: float  # the candidate's score
    choice: int  # its place among the detection's candidates, 1 = first
    cost: float  # log(own score) - log(candidate score); an addition: -log(candidate score); a drop: DROP_COSTS
    added: bool = False  # a weak box added to the hand (index: its position among the weak boxes)
    removed: bool = False  # the detection left out of the hand (tile: its own; choice 0)


def needs_repair(result: dict) -> bool:
    """A layout result (or analysis) whose error says the tiles make no winning hand."""
    return bool(result.get("error")) and result["error"].get("code") in REPAIRABLE_ERRORS


def _box_key(box) -> tuple:
    return tuple(round(float(x), 1) for x in box)  # the layout answers boxes rounded so


def counted_detections(detections: list[Detection], tiles: list[dict]) -> set[int]:
    """Positions of the detections the layout counted in the hand (its `tiles` with a hand or
    flower role, matched by box); strays and boxes the layout dropped as twins are not."""
    counted = {_box_key(t["box"]) for t in tiles if t.get("role") in REPAIRED_ROLES}
    return {i for i, det in enumerate(detections) if _box_key(det["box"]) in counted}


def unsure_strays(detections: list[Detection], counted: set[int]) -> set[int]:
    """Positions of the detections left out of the hand that the detector read unsure (under
    STRAY_UNSURE): a misread hand tile can break its group, and the layout then leaves the
    group out (a kong read BACK W2 W4 BACK is no set)."""
    return {i for i, det in enumerate(detections)
            if i not in counted and float(det.get("score", 0.0)) < STRAY_UNSURE}


def substitutions(detections: list[Detection], positions: set[int] | None = None) -> list[Substitution]:
    """Every candidate worth trying in place of a detection's tile (of those at `positions`,
    default all), cheapest first."""
    out = []
    for i, det in enumerate(detections):
        if positions is not None and i not in positions:
            continue
        own = float(det.get("score", 0.0))
        if own <= 0:
            continue
        for choice, (tile, score) in enumerate(det.get("candidates") or [], start=1):
            score = float(score)
            if tile == det["tile"] or score <= 0 or score < MIN_SHARE * own:
                continue
            out.append(Substitution(i, tile, score, choice, math.log(own) - math.log(score)))
    return sorted(out, key=lambda s: s.cost)


def additions(weak: list[Detection]) -> list[Substitution]:
    """Every candidate of the weak boxes worth adding to the hand, cheapest first."""
    out = []
    for i, det in enumerate(weak):
        own = [[det["tile"], det.get("score", 0.0)]]
        for choice, (tile, score) in enumerate(det.get("candidates") or own, start=1):
            score = float(score)
            if score >= MIN_ADDED_SCORE:
                out.append(Substitution(i, tile, score, choice, -math.log(score), added=True))
    return sorted(out, key=lambda s: s.cost)


def drop_cost(detections: list[Detection], i: int, counted: set[int]) -> float:
    """How unlikely detection i lies on no tile of its own (DROP_COSTS): a twin of another counted
    box (the weaker or the stronger of the two), or a lone box (unsure or not)."""
    score = float(detections[i].get("score", 0.0))
    twins = [j for j in counted if j != i
             and overlap_of_smaller(detections[i]["box"], detections[j]["box"]) >= TWIN_OVERLAP]
    if twins:
        weaker = any(score < float(detections[j].get("score", 0.0)) for j in twins)
        return DROP_COSTS["weaker_twin" if weaker else "stronger_twin"]
    return DROP_COSTS["lone_unsure" if score < LONE_UNSURE else "lone"]


def drops(detections: list[Detection], counted: set[int]) -> list[Substitution]:
    """Every counted detection the hand may do without, cheapest first."""
    out = [Substitution(i, detections[i]["tile"], float(detections[i].get("score", 0.0)), 0,
                        drop_cost(detections, i, counted), removed=True) for i in sorted(counted)]
    return sorted(out, key=lambda s: s.cost)


def one_tile_short(result: dict) -> bool:
    """The layout's error says the hand lacks tiles (a missed tile may be among the weak boxes)."""
    error = result.get("error") or {}
    params = error.get("params") or {}
    return error.get("code") == "wrong_tile_count" and params.get("found", 0) < params.get("needed", 0)


def tiles_over(result: dict) -> bool:
    """The layout's error says the hand has more tiles than needed (one may be a false box)."""
    error = result.get("error") or {}
    params = error.get("params") or {}
    return error.get("code") == "wrong_tile_count" and params.get("found", 0) > params.get("needed", 0)


def _fits_one_set(detections: list[Detection], changes: tuple[Substitution, ...]) -> bool:
    """The tiles the changes bring in stay within one set's counts."""
    counts = Counter(det["tile"] for det in detections)
    for s in changes:
        if not s.added:
            counts[detections[s.index]["tile"]] -= 1
        if not s.removed:
            counts[s.tile] += 1
    for s in changes:
        limit = copies_in_one_set(s.tile)
        if limit is not None and counts[s.tile] > limit:
            return False
    return True


def trials(subs: Sequence[Substitution], adds: Sequence[Substitution] = (),
           removals: Sequence[Substitution] = ()) -> list[tuple[Substitution, ...]]:
    """The sets of changes to try, in order: single substitutions, additions and drops by cost,
    then pairs (of two detections, or an addition or a drop and a substitution of another
    detection) by total cost; equal costs keep the order of `subs`, then `adds`, then `removals`."""
    pairs: list[tuple[Substitution, ...]] = [
        p for p in itertools.combinations(subs[:PAIR_POOL], 2) if p[0].index != p[1].index]
    pairs += [(a, s) for a in adds[:ADD_POOL] for s in subs[:PAIR_POOL]]
    pairs += [(d, s) for d in removals[:DROP_POOL] for s in subs[:PAIR_POOL] if d.index != s.index]
    pairs.sort(key=lambda p: p[0].cost + p[1].cost)
    singles: list[tuple[Substitution, ...]] = sorted([(s,) for s in subs[:MAX_SINGLES]] + [(a,) for a in adds[:MAX_ADDS]]
                     + [(d,) for d in removals[:MAX_DROPS]], key=lambda t: t[0].cost)
    return singles + pairs


def _apply(detections: list[Detection], changes: tuple[Substitution, ...], weak: list[Detection]) -> list[Detection]:
    changed = [det.copy() for det in detections]
    for s in changes:
        if s.added:
            added = weak[s.index].copy()
            added["tile"], added["score"] = s.tile, s.score
            changed.append(added)
        elif not s.removed:
            changed[s.index]["tile"], changed[s.index]["score"] = s.tile, s.score
    removed = {s.index for s in changes if s.removed}
    return [det for i, det in enumerate(changed) if i not in removed]


def repair(detections: list[Detection], result: dict, layout: Layout,
           weak: list[Detection] | tuple = ()) -> dict | None:
    """The least costly winning reading of `detections` (whose layout gave `result`, an
    error that needs_repair), as `layout(changed detections)` answers it plus a
    `reading_repaired` warning; None when no trial wins. `weak`: boxes the finder scored under
    its threshold (detection dicts), offered only to a hand one tile short. `layout` must answer
    `{"tiles", "score", "error", "warnings", "warning_details", ...}` (vision.layout.build_hand's)."""
    weak = list(weak)
    counted = counted_detections(detections, result.get("tiles") or [])
    short = one_tile_short(result)
    subs = substitutions(detections, counted | (unsure_strays(detections, counted) if short else set()))
    adds = additions(weak) if weak and short else []
    removals = drops(detections, counted) if tiles_over(result) else []
    if not subs and not adds and not removals:
        return None
    for trial in trials(subs, adds, removals):
        if not _fits_one_set(detections, trial):
            continue
        answer = layout(_apply(detections, trial, weak))
        if answer.get("score") and not answer.get("error"):
            return _with_warning(answer, result, detections, trial, weak)
    return None


def _box(box) -> list[float]:
    return [round(float(x), 1) for x in box]


def _with_warning(answer: dict, result: dict, detections: list[Detection], changes: tuple[Substitution, ...],
                  weak: list[Detection]) -> dict:
    def change(s: Substitution) -> dict:
        if s.added:
            return {"from": None, "to": s.tile, "choice": s.choice, "box": _box(weak[s.index]["box"]), "added": True}
        if s.removed:
            return {"from": s.tile, "to": None, "box": _box(detections[s.index]["box"]), "removed": True}
        return {"from": detections[s.index]["tile"], "to": s.tile, "choice": s.choice,
                "box": _box(detections[s.index]["box"])}

    params = [change(s) for s in sorted(changes, key=lambda s: (s.added, s.removed, s.index))]
    record = warning("reading_repaired", changes=params)
    answer = dict(answer)
    tiles = _mark_read_as(answer.get("tiles") or [], detections, changes)
    answer["tiles"] = _with_dropped(tiles, result.get("tiles") or [], detections, changes)
    answer["warning_details"] = [record, *answer.get("warning_details", [])]
    answer["warnings"] = [record["message"], *answer.get("warnings", [])]
    return answer


def _with_dropped(tiles: list[dict], before: list[dict], detections: list[Detection],
                  changes: tuple[Substitution, ...]) -> list[dict]:
    """The layout's tile records with each dropped detection's record (as the layout gave it
    before the repair) put back: role "stray", `dropped` and `low_confidence` (a tile to check)."""
    dropped = {_box_key(detections[s.index]["box"]) for s in changes if s.removed}
    if not dropped:
        return tiles
    records = [dict(t, role="stray", dropped=True, low_confidence=True) for t in before if _box_key(t["box"]) in dropped]
    return sorted([*tiles, *records], key=lambda t: (t["box"][0], t["box"][1]))
def _mark_read_as(tiles: list[dict], detections: list[Detection], changes: tuple[Substitution, ...]) -> list[dict]:
    """The layout's tile records, each changed tile's with `read_as`: the detector's own first
    reading. The layout keeps no link to the detections it was given but their boxes (as
    counted_detections matches them), so a changed detection's record is the one with its box."""
    read_as = {_box_key(detections[s.index]["box"]): detections[s.index]["tile"]
               for s in changes if not s.added and not s.removed}
    return [dict(t, read_as=read_as[_box_key(t["box"])]) if _box_key(t["box"]) in read_as else t for t in tiles]
