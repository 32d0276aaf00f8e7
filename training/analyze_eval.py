"""End-to-end check of photo -> score over fresh synthetic scenes.

For each scene of `datasets.synth.generate.make_example(seed, index)` (a seed no
training used: 900000 and up are kept for held-out sets) it compares the total
read from the photo (detector, layout, scorer) with the scene's true total, and
says where a miss comes from:

- "detection": the detector missed, added, doubled or misread a tile of the hand;
- "layout": the detector got the hand's tiles right, the layout read them wrong.

It also runs the layout alone on the scene's true boxes, which measures the
layout without the detector. `fanshot analyze-eval` prints the figures.

A scene whose concealed kong lies as four backs does not show that kong's tile; the layout scores
the likeliest total (vision.layout) and says so (`hidden_kong_tile_unknown`). Such a scene is marked
`tile_hidden` (from its true boxes) and the summary counts them and how many read right: no photo
of it can tell the true total for sure.

A photo whose reading was repaired (vision.reading_repair: a tile changed to the detector's next
choice, a weak box added or a counted box dropped, so that the hand wins) says its changes as
`repaired` ('W9 taken as W7', 'added B8', 'dropped B6'); the summary counts the repairs that
gave the true total and those that did not, and the time an analysis took on a repaired photo.
`repair=False` measures without the repair.

`turn` (90, 180, 270) turns every photo and its true boxes that many degrees clockwise before
reading it: hands photographed from the side of the table (90, 270) or from across it (180),
which the generator draws less often than hands seen from the winner's seat.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from vision.analyze import analyze_detections, read_hand
from vision.boxes import box_iou
from vision.detections import Detection

FRESH_SEEDS = 900000  # datasets.synth.generate.RESERVED_SEEDS: never used for training
MATCH_IOU = 0.5
DUPLICATE_IOU = 0.3  # an unmatched box overlapping no true box this much is an extra one


def detection_errors(detections: Sequence[Mapping[str, Any]], boxes: list[dict]) -> list[str]:
    """What the detector got wrong about the hand's tiles (strays aside), in words: a tile
    missed or misread, an extra box on no tile, and a *duplicate*: a second box on a hand tile
    that another box already matched (overlapping it by DUPLICATE_IOU or more)."""
    errors = []
    used: set[int] = set()
    matched: list[dict] = []  # the hand's true boxes a detection matched
    for truth in boxes:
        if truth["role"] == "stray":
            continue
        best, best_iou = None, 0.0
        for i, det in enumerate(detections):
            iou = box_iou(truth["box"], det["box"])
            if i not in used and iou > best_iou:
                best, best_iou = i, iou
        if best is None or best_iou < MATCH_IOU:
            errors.append(f"missed {truth['tile']}")
            continue
        used.add(best)
        matched.append(truth)
        if detections[best]["tile"] != truth["tile"]:
            errors.append(f"{truth['tile']} read as {detections[best]['tile']}")
    for i, det in enumerate(detections):
        if i in used:
            continue
        if all(box_iou(det["box"], t["box"]) < DUPLICATE_IOU for t in boxes):
            errors.append(f"extra {det['tile']}")
        elif any(box_iou(det["box"], t["box"]) >= DUPLICATE_IOU for t in matched):
            errors.append(f"duplicate {det['tile']}")
    return errors


def _said(change: dict) -> str:
    """A change of the reading repair in words: 'added B8', 'dropped B6', 'W9 taken as W7'."""
    if change.get("added"):
        return f"added {change['to']}"
    if change.get("removed"):
        return f"dropped {change['from']}"
    return f"{change['from']} taken as {change['to']}"


def _total(analysis: dict) -> int | None:
    return analysis["score"]["total"] if analysis.get("score") else None


def turn_scene(image: np.ndarray, boxes: list[dict], degrees: int) -> tuple[np.ndarray, list[dict]]:
    """`image` turned `degrees` (a multiple of 90) clockwise, and `boxes` ({"box": xyxy, ...})
    moved with it."""
    if degrees % 90:
        raise ValueError(f"turn by a multiple of 90 degrees, not {degrees}")
    boxes = [dict(b) for b in boxes]
    for _ in range(degrees // 90 % 4):
        height = image.shape[0]
        image = np.ascontiguousarray(np.rot90(image, k=-1))
        for b in boxes:  # (x, y) -> (height - y, x)
            x1, y1, x2, y2 = b["box"]
            b["box"] = [height - y2, x1, height - y1, x2]
    return image, boxes


def evaluate(
    n: int,
    seed: int = FRESH_SEEDS,
    long_sides: tuple[int, ...] = (1280,),
    detector=None,
    rules: str = "mcr",
    progress: Callable[[int], None] | None = None,
    repair: bool = True,
    turn: int = 0,
    one_set=None,
) -> dict:
    """Score n fresh scenes from the photo (when a detector is given) and from the true boxes;
    `one_set` (datasets.synth.generate.OneSet): every scene drawn in that one tile set."""
    from datasets.synth.generate import make_example

    if seed < FRESH_SEEDS:
        raise ValueError(f"use a seed of {FRESH_SEEDS} or more: lower seeds may have been used for training")
    results = []
    started = time.perf_counter()
    read_seconds = 0.0
    repaired_seconds = 0.0
    for index in range(n):
        example = make_example(seed, index, list(long_sides), None, one_set)
        record = example["record"]
        image, record["boxes"] = turn_scene(example["image"], record["boxes"], turn)
        size = (image.shape[1], image.shape[0])
        context = record["hand"]["context"]
        true_total = record["score"]["total"]
        truth: list[Detection] = [{"tile": b["tile"], "box": b["box"], "score": 1.0} for b in record["boxes"]]
        on_truth = analyze_detections(truth, size, context, rules).to_json()
        row = {
            "index": index,
            "true_total": true_total,
            "layout_total": _total(on_truth),
            "tile_hidden": any(w["code"] == "hidden_kong_tile_unknown" for w in on_truth["warning_details"]),
        }
        if detector is not None:
            t0 = time.perf_counter()
            detections, analyzed = read_hand(detector, image, context, rules, repair_reading=repair)
            analysis = analyzed.to_json()
            seconds = time.perf_counter() - t0
            read_seconds += seconds
            row["photo_total"] = _total(analysis)
            changes = [c for w in analysis["warning_details"] if w["code"] == "reading_repaired"
                       for c in w["params"]["changes"]]
            if changes:
                row["repaired"] = [_said(c) for c in changes]
                repaired_seconds += seconds
            # the detector's reading (its weak boxes, offered only to the repair, are not part of it)
            row["detection_errors"] = detection_errors(detections.tiles, record["boxes"])
            row["hand_tiles"] = sum(1 for b in record["boxes"] if b["role"] != "stray")
            if row["photo_total"] != true_total:
                row["stage"] = "detection" if row["detection_errors"] else "layout"
                row["error"] = analysis.get("error")
        results.append(row)
        if progress:
            progress(index + 1)
    hidden = [r for r in results if r["tile_hidden"]]
    summary = {
        "scenes": n,
        "seed": seed,
        "turn": turn,
        "layout_correct": sum(r["layout_total"] == r["true_total"] for r in results),
        "tile_hidden": {"scenes": len(hidden),
                        "layout_correct": sum(r["layout_total"] == r["true_total"] for r in hidden)},
        "seconds": round(time.perf_counter() - started, 1),
        "results": results,
    }
    if detector is not None:
        summary["photo_correct"] = sum(r.get("photo_total") == r["true_total"] for r in results)
        summary["tile_hidden"]["photo_correct"] = sum(r["photo_total"] == r["true_total"] for r in hidden)
        summary["failures_by_stage"] = {
            stage: sum(r.get("stage") == stage for r in results) for stage in ("detection", "layout")
        }
        summary["read_seconds_per_scene"] = round(read_seconds / max(1, n), 3)
        hand_tiles = sum(r["hand_tiles"] for r in results)
        missed = sum(e.startswith("missed ") for r in results for e in r["detection_errors"])
        misread = sum(" read as " in e for r in results for e in r["detection_errors"])
        duplicates = sum(e.startswith("duplicate ") for r in results for e in r["detection_errors"])
        summary["hand_tiles"] = {"total": hand_tiles, "missed": missed, "misread": misread, "duplicates": duplicates}
        repaired = [r for r in results if r.get("repaired")]
        right = sum(r["photo_total"] == r["true_total"] for r in repaired)
        summary["repairs"] = {"on": repair, "photos": len(repaired), "right": right, "wrong": len(repaired) - right,
                              "seconds_per_repaired": round(repaired_seconds / max(1, len(repaired)), 3)}
    return summary
