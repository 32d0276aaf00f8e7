"""Box maths in one place: xyxy boxes (x1, y1, x2, y2, pixels) as numpy arrays or lists.

Everything that compares, merges or maps boxes (the detector's duplicate rules and looks, the
layout, evaluation, dataset tools) takes these functions from here.
"""
from __future__ import annotations

import math

import numpy as np

# Two rules for "two boxes on one tile", with different thresholds on the share of the smaller box
# their intersection covers:
# - the detector, on the finder's boxes before the tiles are named (suppress_duplicates), with the
#   size rule below: a box nested in one twice its size is another reading, not a second look;
FINDER_DUPLICATE_OVERLAP = 0.65
DUPLICATE_SIZE_RATIO = 0.5  # ... and the smaller box has more than this share of the larger one's area
# - the layout, on named detections of any source (vision.layout_geometry.clean), with no size
#   rule, but a looser near-duplicate rule for unsure tiles.
LAYOUT_DUPLICATE_OVERLAP = 0.7
# A box that two better ones cover together by more than this share lies across two tiles (a second
# look half a tile along a row); at 0.85 the true tiles of loose, packed rows stay (0.7 drops some)
STRADDLE_COVER = 0.85
# ... and a box half as large again as the larger of the two goes when they cover this share of it:
# one box over two tiles
STRADDLE_BIG = 1.5
STRADDLE_BIG_COVER = 0.6


def intersections(boxes: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The area each of `boxes` (N x 4, xyxy) shares with `box`."""
    w = (np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0])).clip(0)
    h = (np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1])).clip(0)
    return w * h


def box_iou(a, b) -> float:
    """IoU of two xyxy boxes (sequences of four numbers)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


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


def overlap_of_smaller(a, b) -> float:
    """Intersection over the smaller box, of two boxes (sequences of 4)."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / smaller if smaller > 0 else 0.0


def long_sides(boxes: np.ndarray) -> np.ndarray:
    """The longer side of each box (N x 4)."""
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def tile_size(boxes: np.ndarray) -> float:
    """The median tile's size (its longer side) of `boxes`; 0 for no boxes."""
    if len(boxes) == 0:
        return 0.0
    return float(np.median(long_sides(boxes)))


def row_angle(boxes: np.ndarray) -> float:
    """The rows' direction (radians, in (-pi/2, pi/2]) of tiles `boxes` (N x 4): the mean of the
    doubled angles from each box's centre to its nearest neighbour's (a direction and its opposite
    agree), neighbours further than two tiles apart left out; 0 for fewer than two boxes."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(boxes) < 2:
        return 0.0
    size = float(np.median(long_sides(boxes)))
    centres = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2], axis=1)
    delta = centres[None, :, :] - centres[:, None, :]
    distance = np.hypot(delta[..., 0], delta[..., 1])
    np.fill_diagonal(distance, np.inf)
    sx = sy = 0.0
    for dx, dy in delta[np.arange(len(boxes)), distance.argmin(axis=1)].tolist():
        if 0 < math.hypot(dx, dy) <= 2.0 * size:
            a = 2 * math.atan2(dy, dx)
            sx += math.cos(a)
            sy += math.sin(a)
    if sx == 0 and sy == 0:
        return 0.0
    theta = math.atan2(sy, sx) / 2
    return theta + math.pi if theta <= -math.pi / 2 + 1e-9 else theta


def region_area(region: tuple[int, int, int, int]) -> int:
    """The area of a region (x1, y1, x2, y2)."""
    x1, y1, x2, y2 = region
    return (x2 - x1) * (y2 - y1)


def _straddles(box: np.ndarray, kept: np.ndarray, inter: np.ndarray, area: float, kept_areas: np.ndarray) -> bool:
    """Whether the two kept boxes that share most of `box` cover together more than
    STRADDLE_COVER of it (STRADDLE_BIG_COVER when `box` is STRADDLE_BIG times the larger of
    them): a box lying across two found neighbours (the finder's second look half a tile along
    a row, or one box over two tiles) rather than a tile of its own."""
    if len(kept) < 2:
        return False
    first, second = np.argsort(-inter, kind="stable")[:2]
    if inter[second] <= 0:
        return False
    (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = kept[first].tolist(), kept[second].tolist()
    x1, y1, x2, y2 = box.tolist()
    both = (max(ax1, bx1), max(ay1, by1), min(ax2, bx2), min(ay2, by2))  # the part the two share
    shared = 0.0
    if both[2] > both[0] and both[3] > both[1]:
        shared = max(min(both[2], x2) - max(both[0], x1), 0.0) * max(min(both[3], y2) - max(both[1], y1), 0.0)
    cover = inter[first] + inter[second] - shared
    if area > STRADDLE_BIG * max(kept_areas[first], kept_areas[second]):
        return cover > STRADDLE_BIG_COVER * area
    return cover > STRADDLE_COVER * area


def suppress_duplicates(boxes: np.ndarray, scores: np.ndarray, overlap: float = FINDER_DUPLICATE_OVERLAP,
                        size_ratio: float = DUPLICATE_SIZE_RATIO) -> np.ndarray:
    """Indices of the boxes to keep, best score first. A box is the same tile as a
    better-scored kept box (class agnostic: one tile cannot carry two classes) when their
    intersection covers more than `overlap` of the smaller box and the smaller box has
    more than `size_ratio` of the larger one's area; a box nested in one twice its size
    is another reading (one tile or two), not a second look at the same tile. A box that
    two better-scored kept boxes cover together (`_straddles`) goes too."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    order = np.argsort(-np.asarray(scores, np.float64), kind="stable")
    areas = (boxes[:, 2] - boxes[:, 0]).clip(0) * (boxes[:, 3] - boxes[:, 1]).clip(0)
    # every pair at once (`intersections` of each box with all)
    w = (np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(boxes[:, None, 0], boxes[None, :, 0])).clip(0)
    h = (np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(boxes[:, None, 1], boxes[None, :, 1])).clip(0)
    inter = w * h
    smaller, larger = np.minimum(areas[:, None], areas[None, :]), np.maximum(areas[:, None], areas[None, :])
    same = (inter > overlap * smaller) & (smaller > size_ratio * larger)
    kept: list[int] = []
    for i in order:
        if kept and areas[i] > 0:
            if same[i, kept].any():
                continue
            if _straddles(boxes[i], boxes[kept], inter[i, kept], areas[i], areas[kept]):
                continue
        kept.append(int(i))
    return np.asarray(kept, np.int64)


def fuse_views(
    boxes_a: np.ndarray, scores_a: np.ndarray, boxes_b: np.ndarray, scores_b: np.ndarray,
    conf: float, iou: float = 0.55,
) -> tuple[np.ndarray, np.ndarray]:
    """Merge the finder's boxes from two views of one image (the photo and its mirror image,
    boxes already mapped back). Best score first, a box takes the best-overlapping unclaimed box
    of the other view (IoU >= `iou`); the pair becomes one box (score-weighted mean) whose score
    is the mean of the two views' scores, a box seen in one view only keeps half its score.
    Returns the merged boxes and scores at or above `conf`."""
    boxes = np.concatenate([np.asarray(boxes_a, np.float32).reshape(-1, 4), np.asarray(boxes_b, np.float32).reshape(-1, 4)])
    scores = np.concatenate([np.asarray(scores_a, np.float32), np.asarray(scores_b, np.float32)])
    view = np.r_[np.zeros(len(scores_a), bool), np.ones(len(scores_b), bool)]
    overlap = iou_matrix(boxes, boxes)
    used = np.zeros(len(scores), bool)
    fused_boxes: list[np.ndarray] = []
    fused_scores: list[float] = []
    for i in np.argsort(-scores, kind="stable"):
        if used[i]:
            continue
        used[i] = True
        partners = np.flatnonzero(~used & (view != view[i]) & (overlap[i] >= iou))
        members = [i]
        if len(partners):
            j = partners[np.argmax(overlap[i, partners])]
            used[j] = True
            members.append(j)
        weights = scores[members]
        fused_boxes.append((boxes[members] * weights[:, None]).sum(0) / weights.sum())
        fused_scores.append(weights.sum() / 2)
    merged_boxes = np.asarray(fused_boxes, np.float32).reshape(-1, 4)
    merged_scores = np.asarray(fused_scores, np.float32)
    keep = merged_scores >= conf
    return merged_boxes[keep], merged_scores[keep]


def zoom_region(boxes: np.ndarray, width: int, height: int, margin: float) -> tuple[int, int, int, int]:
    """The region (x1, y1, x2, y2) around all `boxes`, grown by `margin` pixels, inside the image."""
    x1 = int(max(0, np.floor(boxes[:, 0].min() - margin)))
    y1 = int(max(0, np.floor(boxes[:, 1].min() - margin)))
    x2 = int(min(width, np.ceil(boxes[:, 2].max() + margin)))
    y2 = int(min(height, np.ceil(boxes[:, 3].max() + margin)))
    return x1, y1, x2, y2


def runs_down(boxes: np.ndarray) -> bool:
    """Whether the centres of `boxes` (xyxy) spread more down the photo than across it: along
    their principal axis (a hand at a slant counts by its steeper side)."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(boxes) < 2:
        return False
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    values, vectors = np.linalg.eigh(np.cov(centres.T))
    along = vectors[:, int(np.argmax(values))]
    return bool(abs(along[1]) > abs(along[0]))


def unturn(boxes: np.ndarray, height: int) -> np.ndarray:
    """Boxes (xyxy) found in an image turned a quarter turn clockwise (np.rot90(image, k=-1)),
    in pixels of the image as it was, `height` pixels high."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    return np.stack([boxes[:, 1], height - boxes[:, 2], boxes[:, 3], height - boxes[:, 0]], axis=1)


def half_turn(boxes: np.ndarray, width: int, height: int) -> np.ndarray:
    """Boxes (xyxy) found in an image turned half a turn (`image[::-1, ::-1]`), in pixels of the
    image as it was, `width` x `height` (the same map both ways)."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    return np.stack([width - boxes[:, 2], height - boxes[:, 3], width - boxes[:, 0], height - boxes[:, 1]], axis=1)


def photo_windows(width: int, height: int, grid: tuple[int, int], overlap: float) -> list[tuple[int, int, int, int]]:
    """Overlapping windows (x1, y1, x2, y2) covering a width x height photo: `grid` = (windows along
    the long side, along the short side), neighbours sharing `overlap` of a window's size. A photo
    a few pixels across gets fewer windows: none empty, none twice."""
    along_long, along_short = grid
    cols, rows = (along_long, along_short) if width >= height else (along_short, along_long)

    def spans(length: int, count: int) -> list[tuple[int, int]]:
        size = length / (count - (count - 1) * overlap)
        step = size * (1 - overlap)
        cut = [(int(round(i * step)), min(length, int(round(i * step + size)))) for i in range(count)]
        return list(dict.fromkeys(span for span in cut if span[1] > span[0]))

    return [(x1, y1, x2, y2) for y1, y2 in spans(height, rows) for x1, x2 in spans(width, cols)]


def merge_windows(
    boxes: list[np.ndarray], scores: list[np.ndarray], windows: list[tuple[int, int, int, int]],
    width: int, height: int, overlap: float = 0.5,
) -> tuple[np.ndarray, np.ndarray]:
    """One set of boxes from the finder's looks at overlapping `windows` of a width x height photo
    (each window's boxes already in photo pixels). Boxes of two windows covering more than
    `overlap` of the smaller one are one tile; the box kept is the one lying farthest from an
    edge its window cut through the photo (a tile cut by a window's edge is whole in its
    neighbour), the better score on a tie."""
    all_boxes = np.concatenate([np.asarray(b, np.float32).reshape(-1, 4) for b in boxes] + [np.zeros((0, 4), np.float32)])
    all_scores = np.concatenate([np.asarray(s, np.float32).reshape(-1) for s in scores] + [np.zeros(0, np.float32)])
    window_of = np.concatenate([np.full(len(np.asarray(s).reshape(-1)), i) for i, s in enumerate(scores)] + [np.zeros(0, int)])
    clearance = np.empty(len(all_boxes))
    for i, (x1, y1, x2, y2) in enumerate(all_boxes):
        wx1, wy1, wx2, wy2 = windows[int(window_of[i])]
        cuts = [x1 - wx1 if wx1 > 0 else np.inf, y1 - wy1 if wy1 > 0 else np.inf,
                wx2 - x2 if wx2 < width else np.inf, wy2 - y2 if wy2 < height else np.inf]
        clearance[i] = min(cuts)
    order = np.lexsort((-all_scores, -clearance))
    areas = (all_boxes[:, 2] - all_boxes[:, 0]).clip(0) * (all_boxes[:, 3] - all_boxes[:, 1]).clip(0)
    kept: list[int] = []
    for i in order:
        if kept:
            k = np.asarray(kept)
            covered = intersections(all_boxes[k], all_boxes[i]) > overlap * np.minimum(areas[k], areas[i])
            same = covered & (window_of[k] != window_of[i])
            if same.any():
                continue
        kept.append(int(i))
    kept_idx = np.asarray(sorted(kept), np.int64)
    return all_boxes[kept_idx], all_scores[kept_idx]


def main_cluster(boxes: np.ndarray, link: float) -> np.ndarray:
    """Indices of the largest group of `boxes` (xyxy) chained together by gaps of at most `link`
    pixels (the gap between two boxes: the larger of their horizontal and vertical gaps);
    the first such group on a tie."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    gap_x = np.maximum(boxes[:, None, 0] - boxes[None, :, 2], boxes[None, :, 0] - boxes[:, None, 2])
    gap_y = np.maximum(boxes[:, None, 1] - boxes[None, :, 3], boxes[None, :, 1] - boxes[:, None, 3])
    linked = np.maximum(gap_x, gap_y) <= link
    group = np.full(len(boxes), -1)
    for start in range(len(boxes)):
        if group[start] >= 0:
            continue
        group[start], todo = start, [start]
        while todo:
            for j in np.flatnonzero(linked[todo.pop()] & (group < 0)):
                group[j] = start
                todo.append(int(j))
    if not len(boxes):
        return np.zeros(0, np.int64)
    sizes = np.bincount(group, minlength=len(boxes))
    return np.flatnonzero(group == int(np.argmax(sizes)))
