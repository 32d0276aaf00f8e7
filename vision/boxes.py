"""Box maths in one place: xyxy boxes (x1, y1, x2, y2, pixels) as numpy arrays or lists.

Everything that compares boxes (the detector's duplicate rules, the layout, evaluation, dataset
tools) takes these functions from here.
"""
from __future__ import annotations

import numpy as np


def intersections(boxes: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The area each of `boxes` (N x 4, xyxy) shares with `box`."""
    w = (np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0])).clip(0)
    h = (np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1])).clip(0)
    return w * h


def iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every xyxy box in `a` (N, 4) with every box in `b` (M, 4)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def boxes_of(items: list[dict]) -> np.ndarray:
    """The "box" of each item as an N x 4 float array."""
    return np.array([d["box"] for d in items], np.float64).reshape(-1, 4)


def match_boxes(truth: list[dict], predicted: list[dict], iou: float, same_class: bool) -> list[tuple[int, int]]:
    """Greedy matching, highest score first: (truth index, prediction index) pairs."""
    overlaps = iou_matrix(boxes_of(truth), boxes_of(predicted))
    order = sorted(range(len(predicted)), key=lambda j: -predicted[j].get("score", 1.0))
    taken: set[int] = set()
    pairs = []
    for j in order:
        best, best_iou = -1, iou
        for i in range(len(truth)):
            if i in taken or overlaps[i, j] < best_iou:
                continue
            if same_class and truth[i]["tile"] != predicted[j]["tile"]:
                continue
            best, best_iou = i, overlaps[i, j]
        if best >= 0:
            taken.add(best)
            pairs.append((best, j))
    return pairs
