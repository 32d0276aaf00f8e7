"""The tile detector at run time: onnxruntime, numpy and OpenCV only.

Two stages, both ONNX files in models/ (described by models/model.json):
1. the *finder*, a YOLO that only finds tiles (boxes, class agnostic), run on a
   letterboxed copy of the image;
2. the *classifier*, a compact CNN that names each tile (43 classes) from a crop
   cut out of the image the caller gave (so it sees more pixels than the finder).

`get_detector()` loads the model once per process; `Detector.detect` is safe to
call from several threads at once (onnxruntime sessions are thread-safe and the
detector holds no per-call state). Each call runs on at most `threads` cores, and
onnxruntime's threads do not spin-wait between calls: a server that runs one
detection per core at once gives each detector one thread.
"""
from __future__ import annotations

import json
import threading
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from vision.classes import CLASSES, NOT_A_TILE
from vision.boxes import intersections, iou_matrix

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
MODEL_JSON = "model.json"
FINDER_STRIDE = 32  # the finder's largest stride: a canvas of free shape is a multiple of it
DEFAULT_THREADS = 2  # onnxruntime threads per detection (a command detecting one photo at a time)
# Two boxes whose intersection covers more than this share of the smaller one are one tile ...
# (0.7 before 1 Dec, the layout's threshold still; at 0.65 500-scene seeds 960000 / 970000 / 900000
# read 2 more images each, seed 980000, real val and analyze-eval the same; 0.6 lost one of 980000,
# 0.5 a real val photo)
DUPLICATE_OVERLAP = 0.65
DUPLICATE_SIZE_RATIO = 0.5  # ... and the smaller box has more than this share of the larger one's area
# A box that two better ones cover together by more than this share lies across two tiles (a second
# look half a tile along a row); at 0.85 the true tiles of loose, packed rows stay (0.7 drops some)
STRADDLE_COVER = 0.85
# ... and a box half as large again as the larger of the two goes when they cover this share of it:
# one box over two tiles (the finder's NMS at 0.55 keeps a few more of them than at 0.5; a real val
# photo's box across two F3s was covered 0.68)
STRADDLE_BIG = 1.5
STRADDLE_BIG_COVER = 0.6
# A box whose longer side is under this share of the median tile's (of 5 or more tiles kept) is no
# tile of that photo: a speck or a corner read as a tile, or a box inside a tile (500-scene seeds
# 960000 / 970000: 2 more images each read exactly; real val the same)
SMALL_TILE = 0.5
CANDIDATES = 4  # classes listed per detection (its own first), for vision.one_set
# The classifier's extra views (model.json classifier `views`): flips of the N x C x H x W crops
# whose class probabilities are averaged with the crop's own, for the crops whose best class is
# under `views_below` (a sure crop keeps its own answer: on real val crops, views for the 31% under
# 0.9, or even the 20% under 0.8, name as many right as views for all; 1.9 classifier runs per crop
# instead of 4)
VIEW_FLIPS = {
    "none": [],
    "rot180": [(2, 3)],                      # tiles lie upside down as often as not
    "rot180+mirror": [(2, 3), (3,), (2,)],   # and some photos are mirrored (selfie cameras)
}
# The finder's look over windows (defaults of model.json's finder keys window_below, window_grid,
# window_overlap, window_mirror): when the whole photo shows fewer tiles than this (a hand has 14 or more),
# and small ones (under zoom_below) or fewer than WINDOW_FEW ...
WINDOW_BELOW = 14
WINDOW_FEW = 5
WINDOW_GRID = (3, 2)  # ... it looks at 3 x 2 windows (along the long side, the short side) ...
WINDOW_OVERLAP = 0.25  # ... neighbours sharing this share of a window
WINDOW_MIRROR = True  # ... each with its mirror image too (as the whole photo; False: half the runs)
# A photo whose tiles spread more down it than across it (a hand shot from the side of the table)
# is read turned a quarter turn, its rows across as most training scenes show them, when the
# finder is surer of it so (Detector._find_tiles).
TURN_ROWS = True
ZOOM_AREA = 0.6  # the zoom looks at a region of at most this share of the photo ...
CLUSTER_LINK = 3.0  # ... around all tiles, else around the largest group with gaps under 3 tiles
# The zoomed look's boxes replace the first look's, but a box of the first look with less than this
# share of it inside the zoomed region stays (a stray far from the hand: `fanshot detect` and the
# labelling tool list every tile; 500 synthetic scenes of seed 900000: 4 more read exactly, analyze-eval
# and real val the same)
OUTSIDE_ZOOM = 0.5
# read_photo: when the median tile found is shorter than this share of the classifier's input
# height, the classifier's crops come from the photo decoded again at the next direct JPEG scale
# (Detector._crop_source; 1.5 was no better, docs/photo-resolution.md)
SHARPER_BELOW = 1.0


class ModelNotFoundError(RuntimeError):
    """models/ holds no usable detector (not trained or not committed yet)."""

    code = "model_not_found"


def letterbox(rgb: np.ndarray, size: int, stride: int | None = None) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Fit `rgb` into a size x size square (grey padding), or with `stride` into the smallest
    canvas of multiples of it that holds the photo at that scale (its long side `size`: a 4:3
    photo at 320 x 256, as ultralytics validates); returns (image, scale, (pad_x, pad_y))."""
    height, width = rgb.shape[:2]
    scale = min(size / width, size / height)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(rgb, (new_w, new_h), interpolation=interpolation)
    canvas_w, canvas_h = (size, size) if stride is None else (-(-new_w // stride) * stride, -(-new_h // stride) * stride)
    pad_x, pad_y = (canvas_w - new_w) / 2, (canvas_h - new_h) / 2
    top, left = int(round(pad_y - 0.1)), int(round(pad_x - 0.1))
    canvas = np.full((canvas_h, canvas_w, 3), 114, np.uint8)
    canvas[top : top + new_h, left : left + new_w] = resized
    return canvas, scale, (left, top)


def decode_yolo(
    output: np.ndarray, conf: float, iou: float, max_det: int = 300
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Raw YOLO head (4 + nc, N) -> boxes (xyxy, input pixels), scores, class ids after NMS.

    NMS is class agnostic: two classes on one tile are one tile.
    """
    predictions = output.T  # (N, 4 + nc)
    class_scores = predictions[:, 4:]
    class_ids = class_scores.argmax(axis=1)
    scores = class_scores[np.arange(len(class_ids)), class_ids]
    keep = scores >= conf
    if not keep.any():
        empty = np.zeros((0,), np.float32)
        return np.zeros((0, 4), np.float32), empty, empty.astype(np.int64)
    cx, cy, w, h = predictions[keep, :4].T
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    scores, class_ids = scores[keep], class_ids[keep]
    xywh = np.stack([boxes[:, 0], boxes[:, 1], w, h], axis=1)
    picked = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), conf, iou, top_k=max_det)
    picked = np.asarray(picked, dtype=np.int64).reshape(-1)
    return boxes[picked], scores[picked], class_ids[picked]


def crop_tiles(
    rgb: np.ndarray, boxes: np.ndarray, width: int, height: int, pad: float, other_way: bool = False
) -> np.ndarray:
    """Cut each box (grown by `pad` of its size) out of `rgb` as a portrait crop of width x height.

    A box wider than tall (a tile lying sideways, as a claimed tile in a meld) is turned
    a quarter turn first, so every crop shows the tile upright or upside down. `other_way`:
    each crop turned where that rule leaves it and left where it turns it (the second reading
    of a box about as wide as tall, whose shape does not tell which way its tile lies:
    `Detector.classify`).
    """
    image_h, image_w = rgb.shape[:2]
    crops = np.empty((len(boxes), height, width, 3), np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        bw, bh = x2 - x1, y2 - y1
        x1, x2 = x1 - bw * pad, x2 + bw * pad
        y1, y2 = y1 - bh * pad, y2 + bh * pad
        ix1, iy1 = int(max(0, np.floor(x1))), int(max(0, np.floor(y1)))
        ix2, iy2 = int(min(image_w, np.ceil(x2))), int(min(image_h, np.ceil(y2)))
        patch = rgb[iy1:max(iy2, iy1 + 1), ix1:max(ix2, ix1 + 1)]
        if patch.size == 0:
            patch = np.zeros((2, 2, 3), np.uint8)
        if (patch.shape[1] > patch.shape[0]) != other_way:
            patch = cv2.rotate(patch, cv2.ROTATE_90_CLOCKWISE)
        crops[i] = cv2.resize(patch, (width, height), interpolation=cv2.INTER_AREA)
    return crops


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
    a, b = kept[first], kept[second]
    both = np.array([max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])])
    shared = intersections(both[None], box)[0] if both[2] > both[0] and both[3] > both[1] else 0.0
    cover = inter[first] + inter[second] - shared
    if area > STRADDLE_BIG * max(kept_areas[first], kept_areas[second]):
        return cover > STRADDLE_BIG_COVER * area
    return cover > STRADDLE_COVER * area


def suppress_duplicates(boxes: np.ndarray, scores: np.ndarray, overlap: float = DUPLICATE_OVERLAP,
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
    kept: list[int] = []
    for i in order:
        if kept and areas[i] > 0:
            k = np.asarray(kept)
            smaller, larger = np.minimum(areas[k], areas[i]), np.maximum(areas[k], areas[i])
            inter = intersections(boxes[k], boxes[i])
            same = (inter > overlap * smaller) & (smaller > size_ratio * larger)
            if same.any():
                continue
            if _straddles(boxes[i], boxes[k], inter, areas[i], areas[k]):
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
    merged_boxes, merged_scores = [], []
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
        merged_boxes.append((boxes[members] * weights[:, None]).sum(0) / weights.sum())
        merged_scores.append(weights.sum() / 2)
    merged_boxes = np.asarray(merged_boxes, np.float32).reshape(-1, 4)
    merged_scores = np.asarray(merged_scores, np.float32)
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


def _blob(crops: np.ndarray) -> np.ndarray:
    """N x H x W x 3 uint8 crops as the classifier's N x 3 x H x W float input in [0, 1]."""
    return crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def _session(path: Path, threads: int):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle worker threads sleep instead of spinning: under concurrent requests a spinning
    # thread burns the core another request's detection is waiting for.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def read_model_spec(model_dir: str | Path | None = None) -> tuple[Path, dict]:
    """A model folder (default: the shipped models/) and its model.json, checked without loading
    the networks: the 43 classes of DESIGN.md, both network files there. Raises ModelNotFoundError."""
    model_dir = Path(model_dir) if model_dir else DEFAULT_MODEL_DIR
    spec_path = model_dir / MODEL_JSON
    if not spec_path.is_file():
        raise ModelNotFoundError(
            f"no detector model in {model_dir} ({MODEL_JSON} is missing); "
            "train one with `fanshot train` or restore models/ from git"
        )
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    if list(spec["classes"]) != CLASSES:
        raise ModelNotFoundError(f"{spec_path}: its class list is not the 43 classes of DESIGN.md")
    for part in (spec["finder"], spec["classifier"]):
        if not (model_dir / part["file"]).is_file():
            raise ModelNotFoundError(f"{model_dir / part['file']} is missing")
    return model_dir, spec


class Detector:
    """Finds and names mahjong tiles in an RGB image."""

    def __init__(self, model_dir: str | Path | None = None, threads: int = DEFAULT_THREADS):
        self.model_dir, self.spec = read_model_spec(model_dir)
        spec_path = self.model_dir / MODEL_JSON
        self.classes: list[str] = list(self.spec["classes"])
        finder, classifier = self.spec["finder"], self.spec["classifier"]
        self.finder_size = int(finder["imgsz"])
        self.finder_conf = float(finder.get("conf", 0.25))
        self.finder_iou = float(finder.get("iou", 0.5))
        self.zoom_below = float(finder.get("zoom_below", 0))
        # ... but only when the region around them is enough smaller than the photo for the zoomed
        # look to see them at least this much larger (a hand across the photo: no gain, two runs saved)
        self.zoom_min_gain = float(finder.get("zoom_min_gain", 1.0))
        self.finder_mirror = bool(finder.get("mirror_view", False))
        # wide shots (a hand small in the photo): when the first look finds fewer tiles than a hand
        # has, the finder looks over overlapping windows of the photo (each with its mirror image
        # too, as the whole photo)
        self.window_below = int(finder.get("window_below", WINDOW_BELOW))
        self.window_grid = tuple(int(v) for v in finder.get("window_grid", WINDOW_GRID))
        self.window_overlap = float(finder.get("window_overlap", WINDOW_OVERLAP))
        self.window_mirror = bool(finder.get("window_mirror", WINDOW_MIRROR))
        self.turn_rows = bool(finder.get("turn_rows", False))
        self.crop_w, self.crop_h = (int(v) for v in classifier["input_wh"])
        self.crop_pad = float(classifier.get("pad", 0.0))
        views = classifier.get("views", "none")
        if views not in VIEW_FLIPS:
            raise ModelNotFoundError(f"{spec_path}: classifier views {views!r} is none of {', '.join(VIEW_FLIPS)}")
        self.view_flips = VIEW_FLIPS[views]
        self.views_below = float(classifier.get("views_below", 1.0))
        # a box about as wide as tall (width / height within `both_turns`) does not tell which way
        # its tile lies (a claimed tile laid sideways and seen at a slant, an upright one with its
        # body showing): when its reading is unsure (under `views_below`), it is read both ways,
        # turned a quarter turn and not, the two averaged
        turns = classifier.get("both_turns")
        try:
            self.both_turns = None if turns is None else (float(turns[0]), float(turns[1]))
        except (TypeError, ValueError, IndexError, KeyError):
            raise ModelNotFoundError(f"{spec_path}: classifier both_turns {turns!r} is not [low, high]") from None
        # a classifier with a 44th output (NOT_A_TILE): a box it gives at least this probability of
        # holding no tile goes (dice, scoring sticks, coins, chips); None: no such output
        above = classifier.get("not_a_tile_above")
        self.not_a_tile_above = None if above is None else float(above)
        self.threads = max(1, int(threads))
        self._finder = _session(self.model_dir / finder["file"], self.threads)
        self._classifier = _session(self.model_dir / classifier["file"], self.threads)
        self._finder_input = self._finder.get_inputs()[0].name
        # a finder exported with free height and width (m21 on) reads a canvas fitted to the
        # photo's shape (FINDER_STRIDE multiples), a fixed one a square
        fixed = all(isinstance(d, int) for d in self._finder.get_inputs()[0].shape[2:])
        self._finder_stride = None if fixed else FINDER_STRIDE
        self._classifier_input = self._classifier.get_inputs()[0].name
        outputs = self._classifier.get_outputs()[0].shape[-1]
        if isinstance(outputs, int) and outputs != len(self.classes) + (self.not_a_tile_above is not None):
            raise ModelNotFoundError(
                f"{spec_path}: the classifier has {outputs} outputs; model.json says "
                + ("43 and 'not a tile' (not_a_tile_above)" if self.not_a_tile_above is not None else "43")
            )

    def _finder_boxes(
        self, canvas: np.ndarray, confs: tuple[float, ...], mirrored: bool = False
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """One finder run on the letterboxed `canvas` (or its mirror image): for each threshold of
        `confs`, the boxes (xyxy in canvas pixels, a mirrored view's mapped back) and scores at or
        above it (decoded once per threshold)."""
        view = canvas[:, ::-1] if mirrored else canvas
        blob = view.transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        output = self._finder.run(None, {self._finder_input: blob})[0][0]
        found = []
        for conf in confs:
            boxes, scores, _ = decode_yolo(output, conf, self.finder_iou)
            if mirrored:
                boxes[:, [0, 2]] = canvas.shape[1] - boxes[:, [2, 0]]
            found.append((boxes, scores))
        return found

    def _plain_view(self, rgb: np.ndarray, confs: tuple[float, ...], mirror: bool) -> Glance:
        """One finder run on `rgb`, letterboxed, without its mirror image: its boxes at each
        threshold of `confs`, or at half of each when the mirror image is to be fused with it."""
        canvas, scale, pad = letterbox(rgb, self.finder_size, self._finder_stride)
        levels = tuple(c / 2 for c in confs) if mirror else confs
        return Glance(canvas, scale, pad, self._finder_boxes(canvas, levels), mirror)

    def _glance(self, rgb: np.ndarray, confs: tuple[float, ...]) -> tuple[list[tuple[np.ndarray, np.ndarray]], float, Glance]:
        """The finder's plain view of `rgb` alone: for each threshold of `confs` the boxes (xyxy
        in pixels of `rgb`) and scores, the letterbox scale, and the `Glance` that lets `_find`
        add the mirror image later without running the plain view again (the turn is decided on
        it: one finder run less for a hand running down the photo)."""
        glance = self._plain_view(rgb, confs, self.finder_mirror)
        seen = [(boxes[scores >= conf], scores[scores >= conf]) for conf, (boxes, scores) in zip(confs, glance.plain)]
        return _in_photo(seen, rgb.shape, glance.scale, glance.pad), glance.scale, glance

    def _find(
        self, rgb: np.ndarray, confs: tuple[float, ...], mirror: bool | None = None, glance: Glance | None = None
    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], float]:
        """The finder on `rgb` at each threshold of `confs`: boxes (xyxy in pixels of `rgb`) and
        scores, and the letterbox scale. When the model asks for it (`finder.mirror_view`; `mirror`
        overrides it) it looks at the mirror image of the letterboxed photo too, and `fuse_views`
        merges the two views (each view kept down to half the threshold). `glance`: `_glance`'s
        answer for `rgb` at `confs`, whose plain view is not run again."""
        mirror = self.finder_mirror if mirror is None else mirror
        if glance is None or glance.halved != mirror:
            glance = self._plain_view(rgb, confs, mirror)
        found = glance.plain
        if mirror:
            halves = tuple(c / 2 for c in confs)
            found = [
                fuse_views(boxes, scores, mirrored, mirrored_scores, conf)
                for conf, (boxes, scores), (mirrored, mirrored_scores) in zip(
                    confs, glance.plain, self._finder_boxes(glance.canvas, halves, mirrored=True)
                )
            ]
        return _in_photo(found, rgb.shape, glance.scale, glance.pad), glance.scale

    def find_tiles(self, rgb: np.ndarray, floor: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Stage 1: tile boxes (xyxy in pixels of `rgb`) and their finder scores: those at the
        finder's threshold or above, and with `floor` the weak ones from it up too."""
        found, weak = self._find_tiles(rgb, floor)
        if weak is None:
            return found
        return np.concatenate([found[0], weak[0]]), np.concatenate([found[1], weak[1]])

    def _find_in_windows(self, rgb: np.ndarray, confs: tuple[float, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The finder over overlapping windows of `rgb` (`photo_windows`; with each one's mirror
        image when `window_mirror`): for each threshold of `confs`, the boxes (xyxy in pixels of
        `rgb`) and scores, merged across windows (`merge_windows`)."""
        height, width = rgb.shape[:2]
        windows = photo_windows(width, height, self.window_grid, self.window_overlap)
        per_window = []
        for x1, y1, x2, y2 in windows:
            found, _ = self._find(rgb[y1:y2, x1:x2], confs, mirror=self.window_mirror)
            offset = np.array([x1, y1, x1, y1], np.float32)
            per_window.append([(b + offset, s) for b, s in found])
        return [
            merge_windows([w[level][0] for w in per_window], [w[level][1] for w in per_window], windows, width, height)
            for level in range(len(confs))
        ]

    def _find_tiles(
        self, rgb: np.ndarray, floor: float | None, closer: bool = False, upside_down: bool = False
    ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
        """Stage 1: the tile boxes (xyxy in pixels of `rgb`) and finder scores at or above the
        threshold, and (when `floor` is given) those of the same view scoring from `floor` up to
        the threshold (not yet told apart from the kept ones' twins).

        When the whole photo shows fewer tiles than a hand has, and small ones or very few (a
        wide shot's tiny hand can look like one big tile), the finder looks over overlapping
        windows of it (a wide shot: tiles too small to find at the whole photo's scale), and keeps
        what they find when it is more tiles, and small ones. When the tiles come out small in the
        finder's input (a hand in a corner of a wide photo), the finder looks again at the region
        around them, at a larger scale (around the largest group of tiles when strays lie far
        away; what the first look found away from that region stays), when that region is small
        enough in the photo for the tiles to come out at least `zoom_min_gain` times larger (a
        hand across the photo is not looked at again; with `closer`, any gain will do: the second
        look at a photo whose reading is in doubt, vision.analyze.read_hand). With `turn_rows`,
        when the first look's tiles spread more down the photo than across it (`runs_down`: a hand shot
        from the side of the table, or a long row along a portrait photo), the finder looks at the
        photo turned a quarter turn clockwise, its rows across as in most training scenes, and when
        its scores over that look add up to at least those over the first, the photo is read
        turned (windows, zoom) and the boxes are turned back. The turn is decided on the plain
        views (`_glance`); the mirror image is looked at only for the orientation read. At most
        2 + 1 + 2 x 6 windows + 2 = 17 finder runs with the mirror view; 2 for a photo that shows a
        whole hand across at a size the finder sees, 3 for one running down (5 when the turned
        photo is zoomed on). With `upside_down` all of this is done on the photo turned half a
        turn (a hand photographed from across the table: the finder, trained on hands the right
        way up, misses some of its tiles, backs most), and the boxes are turned back.
        """
        if upside_down:
            height, width = rgb.shape[:2]
            (boxes, scores), weak = self._find_tiles(np.ascontiguousarray(rgb[::-1, ::-1]), floor, closer)
            return (half_turn(boxes, width, height), scores), (
                None if weak is None else (half_turn(weak[0], width, height), weak[1]))
        confs = (self.finder_conf,) if floor is None else (self.finder_conf, min(floor, self.finder_conf))
        seen, scale, glance = self._glance(rgb, confs)
        if self.turn_rows and runs_down(seen[0][0]):
            turned_rgb = np.ascontiguousarray(np.rot90(rgb, k=-1))
            turned, turned_scale, turned_glance = self._glance(turned_rgb, confs)
            if turned[0][1].sum() >= seen[0][1].sum():  # the finder is surer of the turned photo
                turned, _ = self._find(turned_rgb, confs, glance=turned_glance)
                (boxes, scores), weak = self._after_first_look(turned_rgb, confs, turned, turned_scale, closer)
                height = rgb.shape[0]
                return (unturn(boxes, height), scores), None if weak is None else (unturn(weak[0], height), weak[1])
        found, _ = self._find(rgb, confs, glance=glance)
        return self._after_first_look(rgb, confs, found, scale, closer)

    def _after_first_look(
        self, rgb: np.ndarray, confs: tuple[float, ...], found: list[tuple[np.ndarray, np.ndarray]], scale: float,
        closer: bool = False,
    ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
        """The rest of `_find_tiles` once the first look at `rgb` is taken (`found`, `scale`:
        `_find`'s answer): the windows or the zoomed look when they are called for (`closer`:
        the zoomed look whatever it gains). Notes for `looks_closer` whether a closer look than
        this one would differ: only when this one left the zoom out for its gain alone."""
        _note_closer_look(False)
        if not self.zoom_below:
            return found[0], _below(found, self.finder_conf)
        first = found[0][0]
        if len(first) < self.window_below and (len(first) < WINDOW_FEW or _tile_size(first) * scale < self.zoom_below):
            windowed = self._find_in_windows(rgb, confs)
            if len(windowed[0][0]) > len(found[0][0]) and _tile_size(windowed[0][0]) * scale < self.zoom_below:
                found = windowed
        (boxes, scores), weak = found[0], _below(found, self.finder_conf)
        if len(boxes) == 0:
            return (boxes, scores), weak
        tile_size = _tile_size(boxes)
        if tile_size * scale >= self.zoom_below:
            return (boxes, scores), weak
        height, width = rgb.shape[:2]
        region = zoom_region(boxes, width, height, margin=tile_size)
        around = len(boxes)
        if _area(region) > ZOOM_AREA * width * height:  # strays far from the hand: the largest group
            group = boxes[main_cluster(boxes, link=CLUSTER_LINK * tile_size)]
            region, around = zoom_region(group, width, height, margin=tile_size), len(group)
            if _area(region) > ZOOM_AREA * width * height:
                return (boxes, scores), weak
        x1, y1, x2, y2 = region
        if not closer and max(width, height) < self.zoom_min_gain * max(x2 - x1, y2 - y1):
            _note_closer_look(True)
            return (boxes, scores), weak
        zoomed, _ = self._find(rgb[y1:y2, x1:x2], confs)
        if len(zoomed[0][0]) < around:
            return (boxes, scores), weak
        offset = np.array([x1, y1, x1, y1], np.float32)
        zoomed = [(b + offset, s) for b, s in zoomed]
        # what the first look found away from the region (strays far from the hand) stays
        zoomed = [_with_outside(z, first_look, region) for z, first_look in zip(zoomed, found)]
        return zoomed[0], _below(zoomed, self.finder_conf)

    def classify(self, rgb: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Stage 2: class probabilities (len(boxes), 43) for each box, and with `not_a_tile_above`
        a 44th column: the probability that the box holds no tile (NOT_A_TILE)."""
        if len(boxes) == 0:
            return np.zeros((0, len(self.classes) + (self.not_a_tile_above is not None)), np.float32)
        probs = self._with_views(_blob(crop_tiles(rgb, boxes, self.crop_w, self.crop_h, self.crop_pad)))
        if self.both_turns is not None:
            aspect = (boxes[:, 2] - boxes[:, 0]) / np.maximum(boxes[:, 3] - boxes[:, 1], 1e-6)
            unsure = probs.max(axis=1) < self.views_below
            either = np.flatnonzero((aspect >= self.both_turns[0]) & (aspect <= self.both_turns[1]) & unsure)
            if len(either):
                other = crop_tiles(rgb, boxes[either], self.crop_w, self.crop_h, self.crop_pad, other_way=True)
                probs[either] = (probs[either] + self._with_views(_blob(other))) / 2
        return probs

    def _with_views(self, blob: np.ndarray) -> np.ndarray:
        """Class probabilities of N x C x H x W crops, averaged with their flipped views (`view_flips`)
        for the crops whose best class is under `views_below`."""
        probs = self._class_probabilities(blob)
        unsure = np.flatnonzero(probs.max(axis=1) < self.views_below) if self.view_flips else []
        if len(unsure):
            views = np.concatenate([np.flip(blob[unsure], dims) for dims in self.view_flips])
            flipped = self._class_probabilities(np.ascontiguousarray(views)).reshape(len(self.view_flips), len(unsure), -1)
            probs[unsure] = (probs[unsure] + flipped.sum(axis=0)) / (len(self.view_flips) + 1)
        return probs

    def _class_probabilities(self, blob: np.ndarray) -> np.ndarray:
        return _softmax(self._classifier.run(None, {self._classifier_input: blob})[0])

    def _candidates(self, probs: np.ndarray, best: int, find_score: float) -> list[list]:
        """The CANDIDATES best classes of one box as [tile, finder score x probability], best first;
        the first is always the detection's own class (`best`, the argmax)."""
        others = [int(c) for c in np.argsort(-probs, kind="stable") if c != best][: CANDIDATES - 1]
        return [[self.classes[c], round(float(find_score * probs[c]), 4)] for c in [int(best), *others]]

    def detect(self, rgb: np.ndarray) -> list[dict]:
        """Tiles in `rgb` (H, W, 3 uint8 RGB), left to right:
        [{"tile", "box": [x1, y1, x2, y2], "score", "candidates": [[tile, score], ...]}];
        `candidates` are the CANDIDATES best classes by score (finder score x class probability,
        as `score`), best first, the first being `tile` and `score` (vision.one_set uses them)."""
        return self._detect(rgb, None)[0]

    def looks_closer(self, rgb: np.ndarray) -> bool:
        """Whether `detect_with_weak(rgb, ..., closer=True)` can read `rgb` otherwise than the look
        just taken at it: False when `rgb` is the photo `read_photo` is reading and that look left
        the zoom out for another reason than its gain (tiles already large in the finder's input,
        a region too large, no tiles: the closer look would be the same look again); True otherwise."""
        photo = _reading.get()
        if photo is None or photo.image is not rgb or photo.closer_differs is None:
            return True
        return photo.closer_differs

    def detect_with_weak(
        self, rgb: np.ndarray, floor: float, closer: bool = False, upside_down: bool = False
    ) -> tuple[list[dict], list[dict]]:
        """`detect`'s tiles, and the *weak* ones: boxes the finder scored from `floor` up to its
        threshold, named like the others (same dicts), left out of the tiles. A weak box that is
        the same tile as a kept one or a better weak one (suppress_duplicates' rule) is left out.
        One finder and classifier pass for both (vision.reading_repair may add a weak tile to a
        hand one tile short). `closer`: the finder's zoomed look at the tiles' region even when it
        shows them hardly larger; `upside_down`: the finder looks at the photo turned half a turn
        (`_find_tiles`; both are vision.analyze.read_hand's looks at a photo read in doubt)."""
        return self._detect(rgb, floor, closer, upside_down)

    def _crop_source(self, rgb: np.ndarray, tiles: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The image the classifier cuts its crops from, and `boxes` in its pixels: `rgb`, unless
        `rgb` is the photo `read_photo` is reading and its tiles (`tiles`, the finder's kept boxes)
        are smaller than the classifier's input (median long side under SHARPER_BELOW x `crop_h`):
        then the same photo decoded again at the next direct JPEG scale (`_PhotoRead.sharper`), the
        boxes scaled to it. The finder's boxes stay those found in `rgb`."""
        photo = _reading.get()
        if photo is None or photo.image is not rgb or len(tiles) == 0:
            return rgb, boxes
        if _tile_size(tiles) >= SHARPER_BELOW * self.crop_h:
            return rgb, boxes
        sharper = photo.sharper()
        if sharper is None:
            return rgb, boxes
        sx, sy = sharper.shape[1] / rgb.shape[1], sharper.shape[0] / rgb.shape[0]
        return sharper, boxes * np.array([sx, sy, sx, sy], np.float32)

    def _detect(
        self, rgb: np.ndarray, floor: float | None, closer: bool = False, upside_down: bool = False
    ) -> tuple[list[dict], list[dict]]:
        if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
            raise ValueError("detect() expects an RGB uint8 array of shape (H, W, 3)")
        (boxes, find_scores), weak = self._find_tiles(rgb, floor, closer, upside_down)
        weak_boxes, weak_find = weak if weak is not None else (np.zeros((0, 4), np.float32), np.zeros(0, np.float32))
        all_boxes = np.concatenate([boxes.reshape(-1, 4), weak_boxes.reshape(-1, 4)])
        all_find = np.concatenate([find_scores, weak_find])
        probs = self.classify(*self._crop_source(rgb, boxes, all_boxes))
        # boxes the classifier finds no tile in go; the others' classes are read among the 43
        if self.not_a_tile_above is None:
            is_tile = np.ones(len(probs), bool)
        else:
            is_tile = probs[:, NOT_A_TILE] < self.not_a_tile_above
        probs = probs[:, :NOT_A_TILE] / probs[:, :NOT_A_TILE].sum(axis=1, keepdims=True).clip(1e-9)
        class_ids = probs.argmax(axis=1)
        scores = all_find * probs[np.arange(len(class_ids)), class_ids]
        # of the tiles, a box that is the same tile as a better one goes (suppress_duplicates)
        tiles = np.flatnonzero(is_tile[: len(boxes)])
        kept = tiles[suppress_duplicates(boxes[tiles], scores[tiles])]
        weak_tiles = len(boxes) + np.flatnonzero(is_tile[len(boxes):])
        kept = _tile_sized(all_boxes, kept)
        weak_tiles = _tile_sized(all_boxes, weak_tiles, of=kept)
        # the weak boxes rank after every kept tile: one that is the same tile as a kept one goes
        rank = np.concatenate([np.full(len(kept), 2.0), scores[weak_tiles]])
        order = np.concatenate([kept, weak_tiles]).astype(np.int64)
        weak_kept = [int(order[j]) for j in suppress_duplicates(all_boxes[order], rank) if j >= len(kept)]

        def record(i: int) -> dict:
            return {
                "tile": self.classes[int(class_ids[i])],
                "box": [round(float(v), 1) for v in all_boxes[i]],
                "score": round(float(scores[i]), 4),
                "candidates": self._candidates(probs[i], class_ids[i], all_find[i]),
            }

        def left_to_right(found: list[dict]) -> list[dict]:
            return sorted(found, key=lambda d: (d["box"][0], d["box"][1]))

        return left_to_right([record(int(i)) for i in kept]), left_to_right([record(i) for i in weak_kept])


@dataclass
class Glance:
    """The finder's plain view of one photo (`Detector._plain_view`): its letterboxed canvas,
    scale and padding, and the boxes and scores in canvas pixels at each threshold asked for,
    halved (`halved`) when the mirror view is to be fused with it."""

    canvas: np.ndarray
    scale: float
    pad: tuple[float, float]
    plain: list[tuple[np.ndarray, np.ndarray]]
    halved: bool


def _in_photo(found: list[tuple[np.ndarray, np.ndarray]], shape: tuple, scale: float,
              pad: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Canvas boxes (per threshold) in the photo's pixels, inside it."""
    height, width = shape[:2]
    in_photo = []
    for boxes, scores in found:
        boxes = (boxes - np.array([pad[0], pad[1], pad[0], pad[1]], np.float32)) / scale
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
        in_photo.append((boxes, scores))
    return in_photo


def _with_outside(
    zoomed: tuple[np.ndarray, np.ndarray], first: tuple[np.ndarray, np.ndarray], region: tuple[int, int, int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """The zoomed look's (boxes, scores), and those of the first look (`first`) that have less than
    OUTSIDE_ZOOM of their area inside the zoomed `region`."""
    boxes, scores = first
    if len(boxes) == 0:
        return zoomed
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).clip(1e-6)
    out = intersections(boxes, np.asarray(region, np.float32)) / area < OUTSIDE_ZOOM
    return np.concatenate([zoomed[0], boxes[out]]), np.concatenate([zoomed[1], scores[out]])


def _area(region: tuple[int, int, int, int]) -> int:
    x1, y1, x2, y2 = region
    return (x2 - x1) * (y2 - y1)


def _tile_sized(boxes: np.ndarray, indices: np.ndarray, of: np.ndarray | None = None) -> np.ndarray:
    """Of `indices` into `boxes`, those whose longer side is at least SMALL_TILE times the median
    tile's among `of` (default: `indices` themselves), when those are 5 or more; all otherwise."""
    reference = indices if of is None else of
    if len(reference) < 5 or len(indices) == 0:
        return indices
    return indices[_long_sides(boxes[indices]) >= SMALL_TILE * _tile_size(boxes[reference])]


def _long_sides(boxes: np.ndarray) -> np.ndarray:
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def _tile_size(boxes: np.ndarray) -> float:
    """The median tile's size (its longer side) of `boxes`; 0 for no boxes."""
    if len(boxes) == 0:
        return 0.0
    return float(np.median(_long_sides(boxes)))


def _below(found: list[tuple[np.ndarray, np.ndarray]], conf: float) -> tuple[np.ndarray, np.ndarray] | None:
    """Of `_find`'s answers at (threshold, floor), the floor's boxes scoring under the threshold;
    None without a floor."""
    if len(found) < 2:
        return None
    boxes, scores = found[1]
    under = scores < conf
    return boxes[under], scores[under]


_detectors: dict[tuple[Path, int], Detector] = {}
_lock = threading.Lock()


def get_detector(model_dir: str | Path | None = None, threads: int = DEFAULT_THREADS) -> Detector:
    """The process-wide detector for `model_dir` (default: the shipped models/) running on
    `threads` threads per call, loaded once."""
    key = ((Path(model_dir) if model_dir else DEFAULT_MODEL_DIR).resolve(), max(1, int(threads)))
    with _lock:
        if key not in _detectors:
            _detectors[key] = Detector(key[0], threads=key[1])
        return _detectors[key]


# How the pipeline reads a photo's bytes (`read_photo`; `detect_photo`, `fanshot analyze` and the
# API's routes all go through it): decoded at the smallest scale a JPEG decodes to directly (1/1,
# 1/2, 1/4, 1/8) that is at least this long: a 4000 px photo at 1/4, in the codec. Measured with
# `fanshot resolution-eval` on 100 fresh 12 MP scenes (seed 970000) and on the same scenes as wide
# shots (2.5x and 4x smaller in the frame): reading at 2000 px or in full, or a second look at 1/2
# when the tiles come out small, got no more totals right and cost up to twice the CPU time
# (docs/photo-resolution.md). But tiles found under the classifier's input height are named from
# crops of the photo decoded again, larger (wide shots 4x smaller: 56 -> 77/100 totals right).
DETECT_MAX_SIDE = 1000
_JPEG_SCALES = (8, 4, 2, 1)


def photo_scale_side(long_side: int, at_least: int) -> int:
    """The long side of the smallest 1/8, 1/4, 1/2 or full scale of a photo `long_side` px long
    that is at least `at_least` px long (the full photo when none is): the sizes a JPEG decodes
    to directly, without resampling after."""
    for factor in _JPEG_SCALES:
        side = -(-long_side // factor)
        if side >= at_least:
            return side
    return long_side


@dataclass
class _PhotoRead:
    """The photo `read_photo` is reading: the image it decoded (`image`) and how to decode the
    same bytes again, larger (`sharper`), for `Detector._crop_source`."""

    image: np.ndarray
    decode: Callable[[int], np.ndarray]  # the photo decoded at a long side (photo_scale_side's)
    long_side: int  # the photo's own long side
    closer_differs: bool | None = None  # the last look's note for Detector.looks_closer (None: none yet)

    def sharper(self) -> np.ndarray | None:
        """The photo decoded at the next direct JPEG scale above `image` (1/8 -> 1/4 -> 1/2 ->
        full), or None when `image` is the full photo. Measured against the smallest scale where
        the tiles reach the classifier's input (often the full photo): as many totals right or
        more, less CPU time (docs/photo-resolution.md)."""
        side = max(self.image.shape[:2])
        if side >= self.long_side:
            return None
        return self.decode(photo_scale_side(self.long_side, side + 1))


# The photo read_photo is reading, while its detection runs (per thread and task): the detector
# names tiles found small in it from a sharper decode of the same bytes (Detector._crop_source).
_reading: ContextVar[_PhotoRead | None] = ContextVar("fanshot_photo_read", default=None)


def _note_closer_look(differs: bool) -> None:
    """Note on the photo being read whether a closer look at it would differ (Detector.looks_closer)."""
    photo = _reading.get()
    if photo is not None:
        photo.closer_differs = differs


def read_photo(
    detector, data: bytes, detect=None, *, first_side: int = DETECT_MAX_SIDE, max_pixels: int | None = None
) -> tuple[np.ndarray, object]:
    """A photo's bytes decoded and detected at the resolution the pipeline reads photos at:
    (the RGB image detected, EXIF orientation applied; `detect(rgb)`'s answer, boxes in its pixels).
    The image is `photo_scale_side(photo's long side, first_side)` long. `detect`: the detection
    to run (default `detector.detect`; the analysis gives vision.analyze.read_hand, whose answer
    is the detections and their analysis). When the
    tiles the finder finds in it are smaller than the classifier's input (a wide shot's hand),
    the detector cuts the classifier's crops from the same photo decoded again at the next
    direct JPEG scale (`_PhotoRead.sharper`; the finder does not run again, the boxes stay in
    pixels of the returned image). Raises vision.decode.ImageError for bad bytes."""
    from vision.decode import DEFAULT_MAX_PIXELS, decode_image, probe_image

    limit = DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels
    detect = detector.detect if detect is None else detect
    long_side = max(probe_image(data, max_pixels=limit))

    def decode(side: int) -> np.ndarray:
        return decode_image(data, max_pixels=limit, max_side=side)

    rgb = decode(photo_scale_side(long_side, first_side))
    token = _reading.set(_PhotoRead(rgb, decode, long_side))
    try:
        return rgb, detect(rgb)
    finally:
        _reading.reset(token)


def detect_photo(
    detector, data: bytes, *, max_side: int = DETECT_MAX_SIDE, max_pixels: int | None = None, one_set: bool = False,
    weak_floor: float | None = None,
) -> dict:
    """Detections for one photo's bytes, boxes in pixels of the image as stored (EXIF
    orientation applied): `{"width", "height", "detections": [{"tile", "box", "score"}]}`.
    The photo is read as `read_photo` reads it (`max_side`: its `first_side`); with `one_set` the
    readings are those one tile set can hold (vision.one_set). With `weak_floor` the answer also
    holds `"weak"`: the boxes the finder scored from that floor up to its threshold
    (`Detector.detect_with_weak`), and every detection, weak or not, keeps its `candidates`
    (vision.evaluate ranks them all for mAP). Raises vision.decode.ImageError for bad bytes."""
    from vision.decode import DEFAULT_MAX_PIXELS, probe_image

    limit = DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels
    width, height = probe_image(data, max_pixels=limit)
    detect = None if weak_floor is None else (lambda image: detector.detect_with_weak(image, weak_floor))
    rgb, found = read_photo(detector, data, detect, first_side=max_side, max_pixels=limit)
    found, weak = (found, None) if weak_floor is None else found
    sx, sy = width / rgb.shape[1], height / rgb.shape[0]
    if one_set:
        from vision.one_set import assign_one_set

        found = assign_one_set(found)

    def in_stored_pixels(d: dict) -> dict:
        x1, y1, x2, y2 = d["box"]
        box = [round(x1 * sx, 1), round(y1 * sy, 1), round(x2 * sx, 1), round(y2 * sy, 1)]
        kept = {"tile": d["tile"], "box": box, "score": float(d["score"])}
        return kept if weak is None else {**kept, "candidates": d["candidates"]}

    result = {"width": width, "height": height, "detections": [in_stored_pixels(d) for d in found]}
    if weak is not None:
        result["weak"] = [in_stored_pixels(d) for d in weak]
    return result
