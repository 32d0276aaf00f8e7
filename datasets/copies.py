"""Label geometry across the augmented copies of one photo (`fanshot dataset copies`).

Roboflow exports several copies of each photo (turned, sheared, mirrored); on some copies the
boxes were carried through the augmentation badly and are far larger than the tiles. The copies
of one photo show the same tiles at the same scale, so each pair is registered (SIFT on one
copy and on its mirror image, affine RANSAC) and the median label area of each copy compared
with its siblings', the registration's own scale taken out. A copy whose labels are no more
than `max_ratio` times the area of any sibling's is *consistent*; `fanshot eval --list` on
those measures box fit where the labels fit the tiles. No detector is involved.

Each registration also carries one copy's labels onto the other (`carried`: each box's corners
mapped, the upright box around them) and matches them to that copy's own labels of the same tile
(`label_agreement`): labels that fit their tiles agree at IoU near 1, and no detector can agree
with a set's labels much better than its own copies do.
"""
from __future__ import annotations

import collections
import itertools
from pathlib import Path

import cv2
import numpy as np

from datasets.tools import source_photo
from vision.boxes import iou_matrix, match_boxes

MAX_AREA_RATIO = 1.3  # a turn of the tiles alone makes an upright box up to ~2x larger at 45 degrees
MIN_INLIERS = 30      # matched points a registration needs to count
RATIO_TEST = 0.75


def _affine(a: tuple, b: tuple) -> tuple[np.ndarray | None, int]:
    (ka, da), (kb, db) = a, b
    if da is None or db is None or len(ka) < 3 or len(kb) < 3:
        return None, 0
    pairs = cv2.BFMatcher().knnMatch(da, db, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO_TEST * p[1].distance]
    if len(good) < 3:
        return None, 0
    src = np.array([ka[m.queryIdx].pt for m in good], np.float32)
    dst = np.array([kb[m.trainIdx].pt for m in good], np.float32)
    matrix, inliers = cv2.estimateAffine2D(src, dst, ransacReprojThreshold=3, maxIters=5000, confidence=0.999)
    return matrix, int(inliers.sum()) if inliers is not None else 0


def register(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray | None, int]:
    """The affine map (2x3) from grey image `a`'s pixels to `b`'s, `a` mirrored or not, and its
    inlier count; (None, 0) when nothing matches."""
    sift = cv2.SIFT_create(4000)  # type: ignore[attr-defined]
    fb = sift.detectAndCompute(b, None)
    matrix, inliers = _affine(sift.detectAndCompute(a, None), fb)
    mirrored, mirrored_inliers = _affine(sift.detectAndCompute(cv2.flip(a, 1), None), fb)
    if mirrored is not None and mirrored_inliers > inliers:
        flip = np.array([[-1, 0, a.shape[1] - 1], [0, 1, 0], [0, 0, 1]], np.float64)
        return mirrored @ flip, mirrored_inliers
    return matrix, inliers


def _median_area(record: dict) -> float:
    return float(np.median([(b["box"][2] - b["box"][0]) * (b["box"][3] - b["box"][1]) for b in record["boxes"]]))


def carried(boxes: list[dict], matrix: np.ndarray) -> list[dict]:
    """`boxes` carried by the affine `matrix` (2x3): the upright box around each box's mapped corners."""
    out = []
    for b in boxes:
        x1, y1, x2, y2 = b["box"]
        corners = np.array([[x1, y1, 1], [x2, y1, 1], [x1, y2, 1], [x2, y2, 1]], np.float64) @ np.asarray(matrix).T
        out.append({**b, "box": [*corners.min(axis=0).tolist(), *corners.max(axis=0).tolist()]})
    return out


def matched_ious(own: list[dict], other: list[dict]) -> list[float]:
    """The IoU of each of `own`'s labels with the box of `other` naming the same tile that
    training.evaluate's matching pairs it with (0 for a label none overlaps)."""
    ious = iou_matrix(np.array([b["box"] for b in own], np.float64).reshape(-1, 4),
                      np.array([b["box"] for b in other], np.float64).reshape(-1, 4))
    best = [0.0] * len(own)
    for i, j in match_boxes(own, other, 1e-9, same_class=True):
        best[i] = float(ious[i, j])
    return best


def compare_copies(records: list[dict]) -> list[dict]:
    """For each record with boxes: its source photo and, per sibling copy it registers with, the
    ratio of its median label area to the sibling's (scale of the registration taken out), and
    `agreement`: the IoU of each of its labels with the sibling's labels carried onto it
    (`carried`, `matched_ious`), every sibling's in turn."""
    groups = collections.defaultdict(list)
    for record in records:
        if record["boxes"]:
            groups[source_photo(record["file"])].append(record)
    rows = []
    for source, copies in sorted(groups.items()):
        grey = {r["file"]: cv2.imread(str(r["file"]), cv2.IMREAD_GRAYSCALE) for r in copies}
        ratios: dict[str, list[float]] = {r["file"]: [] for r in copies}
        agreement: dict[str, list[float]] = {r["file"]: [] for r in copies}
        for a, b in itertools.combinations(copies, 2):
            grey_a, grey_b = grey[a["file"]], grey[b["file"]]
            if grey_a is None or grey_b is None or not _median_area(a) or not _median_area(b):
                continue
            matrix, inliers = register(grey_a, grey_b)
            if matrix is None or inliers < MIN_INLIERS:
                continue
            scale = abs(float(np.linalg.det(matrix[:, :2])))
            ratio = _median_area(b) / (_median_area(a) * scale)
            ratios[b["file"]].append(ratio)
            ratios[a["file"]].append(1 / ratio)
            back = cv2.invertAffineTransform(matrix)
            agreement[b["file"]] += matched_ious(b["boxes"], carried(a["boxes"], matrix))
            agreement[a["file"]] += matched_ious(a["boxes"], carried(b["boxes"], back))
        rows += [{"file": r["file"], "source": source, "copies": len(copies), "ratios": ratios[r["file"]],
                  "agreement": agreement[r["file"]]} for r in copies]
    return rows


AGREEMENT_IOU = 0.5  # the IoU a detection needs for mAP50


def label_agreement(rows: list[dict]) -> dict | None:
    """How well the labels of the copies agree with each other, over every label carried onto a
    registered sibling: the share matched at AGREEMENT_IOU and the median IoU (None: no pair)."""
    ious = [iou for row in rows for iou in row.get("agreement", [])]
    if not ious:
        return None
    return {"labels": len(ious), "share_at_iou50": float(np.mean(np.array(ious) >= AGREEMENT_IOU)),
            "median_iou": float(np.median(ious))}


def consistent(rows: list[dict], max_ratio: float = MAX_AREA_RATIO) -> list[str]:
    """The files whose labels are at most `max_ratio` times any registered sibling's in area."""
    return [row["file"] for row in rows if row["ratios"] and max(row["ratios"]) <= max_ratio]


def format_copies(rows: list[dict], max_ratio: float = MAX_AREA_RATIO) -> str:
    keep = set(consistent(rows, max_ratio))
    lines = []
    for row in rows:
        shown = " ".join(f"{r:.2f}" for r in sorted(row["ratios"])) or "no sibling registered"
        mark = "consistent" if row["file"] in keep else ("unchecked" if not row["ratios"] else "larger")
        lines.append(f"{Path(row['file']).name}  {mark:10}  label area against siblings: {shown}")
    alone = sum(1 for row in rows if not row["ratios"])
    lines.append(f"{len(keep)} of {len(rows)} copies consistent (labels at most {max_ratio:g}x a sibling's area); "
                 f"{alone} without a registered sibling")
    agreement = label_agreement(rows)
    if agreement:
        lines.append(f"labels carried onto a registered sibling copy: {agreement['share_at_iou50']:.1%} of "
                     f"{agreement['labels']} match that copy's label of the same tile at IoU {AGREEMENT_IOU:g} or "
                     f"more (median IoU {agreement['median_iou']:.2f}); a detector cannot agree with the labels "
                     f"much better than their copies do")
    return "\n".join(lines)
