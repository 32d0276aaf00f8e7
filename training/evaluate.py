"""Detector metrics on a labelled dataset: precision, recall, mAP, per-class recall,
confusions and the share of images whose whole multiset of tiles is right.

Pure numpy over plain data: `evaluate(pairs)` takes (ground truth, predictions) per
image, as lists of {"tile", "box"[, "score"]}, so it can be tested without a model.
A truth box with "ignore": true is an ignore region (a dataset's ignore/ folder: tiles cut by
the frame): it is not asked for, and a prediction lying on it that matches no other truth box is
left out of every figure (as KITTI's DontCare and COCO's crowd regions).

mAP ranks every hypothesis the detector offers, as COCO and ultralytics' val do: a prediction
marked "weak": true (a box the finder scored under its threshold, `detect_photo(weak_floor=...)`)
and each prediction's other `candidates` ([tile, score], the classifier's next classes) count
for AP only. Precision, recall, confusions and the images exactly right are the detector's
answer at its threshold: the predictions that are not weak, each with its own tile.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Callable

import numpy as np

from vision.boxes import boxes_of, intersections, iou_matrix, match_boxes
from vision.classes import CLASSES

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
# mAP30: boxes matched at IoU 0.3. Beside mAP50 it tells box fit from finding and naming: labels
# looser than the tiles (real-chinese-v4's rotated copies: boxes around the turned polygon) fail
# IoU 0.5 on tiles read right
LOOSE_IOU = 0.3
IGNORE_OVERLAP = 0.5  # a prediction lies on an ignore region when this share of its box is inside it
# the finder score from which boxes are ranked for mAP (ultralytics' val ranks from conf 0.001)
RANK_FLOOR = 0.001


def without_ignored(truth: list[dict], predicted: list[dict]) -> tuple[list[dict], list[dict], int]:
    """The truth boxes to score, the predictions to score and how many were left out: those
    matching no scored truth box (IoU 0.5, any class) with IGNORE_OVERLAP of their box inside an
    ignore region."""
    scored = [t for t in truth if not t.get("ignore")]
    regions = boxes_of([t for t in truth if t.get("ignore")])
    if not len(regions):
        return scored, predicted, 0
    matched = {j for _, j in match_boxes(scored, predicted, 0.5, same_class=False)}
    kept = []
    for j, p in enumerate(predicted):
        box = np.asarray(p["box"], np.float64)
        area = max(float((box[2] - box[0]) * (box[3] - box[1])), 1e-9)
        if j in matched or intersections(regions, box).max() / area < IGNORE_OVERLAP:
            kept.append(p)
    return scored, kept, len(predicted) - len(kept)


def answer(predicted: list[dict]) -> list[dict]:
    """The detector's answer among `predicted`: the predictions that are not weak."""
    return [p for p in predicted if not p.get("weak")]


def hypotheses(predicted: list[dict]) -> list[dict]:
    """Every (box, tile, score) `predicted` offers for AP: each prediction, weak or not, as it is,
    then its other candidates on the same box."""
    ranked = []
    for p in predicted:
        ranked.append(p)
        ranked += [{"tile": t, "box": p["box"], "score": float(v)} for t, v in p.get("candidates", []) if t != p["tile"]]
    return ranked


def _average_precision(scores: list[float], hits: list[bool], n_truth: int) -> float:
    """COCO-style AP (101-point interpolated precision/recall curve)."""
    if n_truth == 0:
        return float("nan")
    if not scores:
        return 0.0
    order = np.argsort(-np.asarray(scores), kind="stable")
    tp = np.cumsum(np.asarray(hits, float)[order])
    fp = np.cumsum(1 - np.asarray(hits, float)[order])
    recall = tp / n_truth
    precision = tp / np.maximum(tp + fp, 1e-9)
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    points = np.linspace(0, 1, 101)
    index = np.searchsorted(recall, points, side="left")
    return float(np.mean([precision[k] if k < len(precision) else 0.0 for k in index]))


def _tally(per_class: dict, truth: list[dict], predicted: list[dict], iou: float) -> None:
    """Each prediction's score and whether it matches a truth box at `iou`, under its tile."""
    matched = {j for _, j in match_boxes(truth, predicted, iou, same_class=True)}
    for j, p in enumerate(predicted):
        scores, hits = per_class[p["tile"]]
        scores.append(p.get("score", 1.0))
        hits.append(j in matched)


def evaluate(pairs: list[tuple[list[dict], list[dict]]], top_confusions: int = 10,
             sources: list[str] | None = None) -> dict:
    """Metrics over images given as (ground truth, predictions) pairs. `sources`: the source photo
    of each image (copies of one photo share it): the share of images exactly right then has a 95%
    interval from resampling the source photos (`exact_interval`, `exact_interval_over`).
    mAP ranks `hypotheses(predictions)`; `map50_answer` is mAP50 over the answer alone (one tile
    per box, none weak)."""
    n_truth: Counter = Counter()
    thresholds = (LOOSE_IOU, *IOU_THRESHOLDS)
    per_threshold: dict[float | str, dict[str, tuple[list, list]]] = {
        t: {c: ([], []) for c in CLASSES} for t in (*thresholds, "answer")}
    found: Counter = Counter()
    tp50 = n_pred = n_weak = n_ranked = located = 0
    confusions: Counter = Counter()
    regions = left_out = 0
    right: list[bool] = []
    for truth_and_ignored, offered in pairs:
        regions += sum(1 for t in truth_and_ignored if t.get("ignore"))
        truth, predicted, dropped = without_ignored(truth_and_ignored, answer(offered))
        _, ranked, _ = without_ignored(truth_and_ignored, hypotheses(offered))
        left_out += dropped
        n_truth.update(d["tile"] for d in truth)
        n_pred += len(predicted)
        n_weak += sum(1 for p in offered if p.get("weak"))
        n_ranked += len(ranked)
        for threshold in thresholds:
            _tally(per_threshold[threshold], truth, ranked, threshold)
        _tally(per_threshold["answer"], truth, predicted, IOU_THRESHOLDS[0])
        for i, _ in match_boxes(truth, predicted, 0.5, same_class=True):
            found[truth[i]["tile"]] += 1
            tp50 += 1
        for i, j in match_boxes(truth, predicted, 0.5, same_class=False):
            located += 1
            if truth[i]["tile"] != predicted[j]["tile"]:
                confusions[(truth[i]["tile"], predicted[j]["tile"])] += 1
        right.append(Counter(d["tile"] for d in truth) == Counter(d["tile"] for d in predicted))
    present = [c for c in CLASSES if n_truth[c]]
    ap = {
        t: {c: _average_precision(*per_threshold[t][c], n_truth[c]) for c in present} for t in per_threshold
    }
    map50 = float(np.mean(list(ap[IOU_THRESHOLDS[0]].values()))) if present else float("nan")
    map50_95 = float(np.mean([np.mean(list(ap[t].values())) for t in IOU_THRESHOLDS])) if present else float("nan")
    total_truth = sum(n_truth.values())
    return {
        "images": len(pairs),
        "boxes": total_truth,
        "predictions": n_pred,
        "weak_boxes": n_weak,
        "ranked_hypotheses": n_ranked,
        "precision": tp50 / n_pred if n_pred else 0.0,
        "recall": tp50 / total_truth if total_truth else 0.0,
        "map50": map50,
        "map50_95": map50_95,
        "map30": float(np.mean(list(ap[LOOSE_IOU].values()))) if present else float("nan"),
        "map50_answer": float(np.mean(list(ap["answer"].values()))) if present else float("nan"),
        "exact_images": sum(right) / len(pairs) if pairs else 0.0,
        "exact_count": sum(right),
        **(exact_interval(right, sources) if sources is not None else {}),
        "ignore_regions": regions,
        "ignored_predictions": left_out,
        # the two stages apart: boxes found whatever their class, and the share of those named right
        "located_precision": located / n_pred if n_pred else 0.0,
        "located_recall": located / total_truth if total_truth else 0.0,
        "named_right": (located - sum(confusions.values())) / located if located else 0.0,
        "per_class_recall": {c: found[c] / n_truth[c] for c in present},
        "confusions": [
            {"truth": t, "predicted": p, "count": n} for (t, p), n in confusions.most_common(top_confusions)
        ],
    }


INTERVAL_RESAMPLES = 2000


def exact_interval(right: list[bool], sources: list[str], resamples: int = INTERVAL_RESAMPLES) -> dict:
    """A 95% interval for the share of images exactly right when the images are copies of fewer
    source photos: the sources are drawn again with replacement (`resamples` times, seeded), each
    bringing all its images, and the 2.5th and 97.5th percentiles of the share are the interval
    (a photo's copies move together, so a few images either way between two models is no difference)."""
    if len(right) != len(sources):
        raise ValueError(f"{len(sources)} sources for {len(right)} images")
    names = sorted(set(sources))
    if not names:
        return {}
    index = {name: i for i, name in enumerate(names)}
    hits, counts = np.zeros(len(names)), np.zeros(len(names))
    for ok, source in zip(right, sources):
        hits[index[source]] += ok
        counts[index[source]] += 1
    draws = np.random.default_rng(0).integers(0, len(names), size=(resamples, len(names)))
    shares = hits[draws].sum(axis=1) / counts[draws].sum(axis=1)
    low, high = np.percentile(shares, [2.5, 97.5])
    return {"exact_interval": [float(low), float(high)], "exact_interval_over": len(names)}


def disagreements(truth: list[dict], predicted: list[dict], iou: float = LOOSE_IOU) -> dict:
    """Where a labelled image and the detector disagree on where tiles are, for a person to look
    at: the predictions that overlap no labelled box at `iou` or more (`unlabelled`: a tile the
    labels forgot, or the detector's false find) and the labelled boxes no prediction overlaps so
    (`unfound`: a tile missed, or a label off its tile). Ignore regions and the predictions lying on
    them (`without_ignored`) are neither."""
    scored, kept, _ = without_ignored(truth, answer(predicted))
    overlaps = iou_matrix(boxes_of(scored), boxes_of(kept))
    return {
        "unlabelled": [p for j, p in enumerate(kept) if not (overlaps[:, j] >= iou).any()],
        "unfound": [t for i, t in enumerate(scored) if not (overlaps[i] >= iou).any()],
    }


def why_not_exact(pairs: list[tuple[list[dict], list[dict]]], top: int = 8) -> dict:
    """Why images are not exactly right, from the answer (IoU 0.5, any class, ignore regions left
    out): each such image by what it has, `missed` (a tile with no box), `misread` (a box on a tile,
    another class) or `extra` (a box on no tile), joined by "+"; and the missed and extra boxes by class."""
    images: Counter = Counter()
    missed: Counter = Counter()
    extra: Counter = Counter()
    for truth_and_ignored, offered in pairs:
        truth, predicted, _ = without_ignored(truth_and_ignored, answer(offered))
        if Counter(d["tile"] for d in truth) == Counter(d["tile"] for d in predicted):
            continue
        matched = match_boxes(truth, predicted, 0.5, same_class=False)
        found, used = {i for i, _ in matched}, {j for _, j in matched}
        lost = [t["tile"] for i, t in enumerate(truth) if i not in found]
        added = [p["tile"] for j, p in enumerate(predicted) if j not in used]
        misread = any(truth[i]["tile"] != predicted[j]["tile"] for i, j in matched)
        missed.update(lost)
        extra.update(added)
        images["+".join(k for k, v in (("missed", lost), ("misread", misread), ("extra", added)) if v) or "other"] += 1
    return {"images": dict(images.most_common()), "missed": dict(missed.most_common(top)),
            "extra": dict(extra.most_common(top))}


def detect_dataset(
    records: list[dict], detector, max_side: int, one_set: bool = False, rank_floor: float | None = RANK_FLOOR,
    before_each: Callable[[dict], None] | None = None,
) -> list[tuple[list[dict], list[dict]]]:
    """Run the detector on every record's image as `fanshot detect` does (vision.detector.detect_photo);
    boxes in stored pixels. With `one_set` each image's readings are those one tile set can hold.
    The predictions also hold, for mAP, the finder's boxes from `rank_floor` up to its threshold
    (marked weak) and every box's candidates; `rank_floor` None: the answer alone. `before_each`
    is called with each record before its image is read (training.finder_hard)."""
    from vision.detector import detect_photo

    pairs = []
    for record in records:
        if before_each is not None:
            before_each(record)
        found = detect_photo(detector, Path(record["file"]).read_bytes(), max_side=max_side, one_set=one_set,
                             weak_floor=rank_floor)
        pairs.append((record["boxes"] + [dict(b, ignore=True) for b in record.get("ignore", [])],
                      found["detections"] + [dict(d, weak=True) for d in found.get("weak", [])]))
    return pairs


def format_report(metrics: dict) -> str:
    """The metrics as lines for people."""
    lines = [
        f"images {metrics['images']}  boxes {metrics['boxes']}  predictions {metrics['predictions']}",
        f"precision {metrics['precision']:.3f}  recall {metrics['recall']:.3f}  "
        f"mAP50 {metrics['map50']:.3f}  mAP50-95 {metrics['map50_95']:.3f}  "
        f"mAP30 {metrics['map30']:.3f} (IoU 0.3: loose boxes pass)",
        f"mAP ranks {metrics['ranked_hypotheses']} hypotheses (the answer's {metrics['predictions']} boxes, "
        f"{metrics['weak_boxes']} weak ones and their other candidates); mAP50 of the answer alone "
        f"{metrics['map50_answer']:.3f}",
        f"images exactly right (multiset of tiles): {metrics['exact_images']:.1%}"
        + (f" ({metrics['exact_count']} of {metrics['images']}; 95% interval {metrics['exact_interval'][0]:.1%}-"
           f"{metrics['exact_interval'][1]:.1%}, the {metrics['exact_interval_over']} source photos resampled)"
           if metrics.get("exact_interval") else ""),
        *([f"ignore regions {metrics['ignore_regions']} (tiles cut by the frame: not asked for); "
           f"predictions on them left out {metrics['ignored_predictions']}"] if metrics.get("ignore_regions") else []),
        f"tiles located (any class, IoU 0.5): precision {metrics['located_precision']:.3f}  "
        f"recall {metrics['located_recall']:.3f};  located tiles named right {metrics['named_right']:.3f}",
        "per-class recall: "
        + " ".join(f"{c} {r:.2f}" for c, r in metrics["per_class_recall"].items()),
        "most frequent confusions (truth -> predicted): "
        + (", ".join(f"{c['truth']}->{c['predicted']} x{c['count']}" for c in metrics["confusions"]) or "none"),
        *([f"images not exactly right, by why: {_counts(metrics['why']['images'])}; tiles missed: "
           f"{_counts(metrics['why']['missed'])}; extra boxes: {_counts(metrics['why']['extra'])}"] if "why" in metrics else []),
    ]
    return "\n".join(lines)


def _counts(counts: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"
