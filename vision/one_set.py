"""Readings of a photo that one physical tile set can give.

One MCR set holds four copies of each of the 34 suit and honour tiles and one of each
flower and season (H1..H8); face-down tiles (BACK) can show any number of times. A photo of
one player's hand comes from one set, so a reading with two H2 or five W2 is impossible,
and the classifier's next choice for the weakest of them is usually the right one.

`assign_one_set(detections)` picks, for each detection that carries `candidates`
(`[[tile, score], ...]`, best first, as vision.detections describes them), the
candidate that keeps every tile within its count, greedily: all (detection, candidate)
pairs by score, best first; a pair is taken when its detection has no tile yet and its tile
has room left. A detection whose every candidate is full keeps its first one: a tile is
never dropped. Detections without candidates keep their tile and count against the limits.
"""
from __future__ import annotations

from collections import Counter

from vision.classes import BACK, CLASSES
from vision.detections import Detection

COPIES_PER_TILE = 4  # each of the 34 suit and honour tiles
COPIES_PER_FLOWER = 1  # each flower and season, H1..H8
FLOWER_PREFIX = "H"


def copies_in_one_set(tile: str) -> int | None:
    """How many copies of `tile` one set holds; None for no limit (BACK, or a code we do not know)."""
    if tile == BACK or tile not in CLASSES:
        return None
    return COPIES_PER_FLOWER if tile.startswith(FLOWER_PREFIX) else COPIES_PER_TILE


def assign_one_set(detections: list[Detection]) -> list[Detection]:
    """New detection dicts (same order; the input is not changed) whose tiles one set can hold.

    A detection that changes takes its chosen candidate's tile and score; the rest of it
    (box, candidates, ...) stays as it was."""
    used: Counter = Counter()
    chosen: dict[int, tuple[str, float]] = {}
    pairs = []
    for i, det in enumerate(detections):
        candidates = det.get("candidates")
        if not candidates:
            used[det["tile"]] += 1
            continue
        for rank, (tile, score) in enumerate(candidates):
            pairs.append((-float(score), i, rank, tile))
    for negative_score, i, _, tile in sorted(pairs):
        if i in chosen:
            continue
        limit = copies_in_one_set(tile)
        if limit is not None and used[tile] >= limit:
            continue
        chosen[i] = (tile, -negative_score)
        used[tile] += 1

    result = []
    for i, det in enumerate(detections):
        det = det.copy()
        if det.get("candidates"):
            tile, score = chosen.get(i, tuple(det["candidates"][0]))
            if tile != det["tile"]:
                det["tile"], det["score"] = tile, score
        result.append(det)
    return result
