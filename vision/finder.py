"""The finder: stage 1 of the detector, a YOLO that finds tiles (class agnostic boxes).

`TileFinder.find` looks at a photo as the model asks (models/model.json `finder`): the whole
photo letterboxed, with its mirror image; over overlapping windows of a wide shot; zoomed on the
tiles' region when they come out small; turned a quarter turn when the hand runs down the photo;
turned half a turn when asked (the upside-down look). The box maths is vision.boxes'.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from vision.boxes import (
    fuse_views,
    half_turn,
    intersections,
    main_cluster,
    merge_windows,
    photo_windows,
    region_area,
    runs_down,
    tile_size,
    unturn,
    zoom_region,
)
from vision.model_spec import onnx_session

FINDER_STRIDE = 32  # the finder's largest stride: a canvas of free shape is a multiple of it
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
# finder is surer of it so (TileFinder.find).
TURN_ROWS = True
ZOOM_AREA = 0.6  # the zoom looks at a region of at most this share of the photo ...
CLUSTER_LINK = 3.0  # ... around all tiles, else around the largest group with gaps under 3 tiles
# The zoomed look's boxes replace the first look's, but a box of the first look with less than this
# share of it inside the zoomed region stays (a stray far from the hand: `fanshot detect` and the
# labelling tool list every tile)
OUTSIDE_ZOOM = 0.5

Scored = tuple[np.ndarray, np.ndarray]  # boxes (N x 4, xyxy) and their finder scores (N)


@dataclass(frozen=True)
class FoundTiles:
    """The finder's answer for one photo, boxes in its pixels: the tiles at or above the finder's
    threshold; with a floor, the *weak* boxes of the same look scoring from it up to the threshold
    (not yet told apart from the tiles' twins), else None; and whether a closer look (`closer=True`)
    could find otherwise (False when this look left the zoom out for another reason than its gain:
    tiles already large in the finder's input, a region too large, no tiles)."""

    tiles: Scored
    weak: Scored | None = None
    closer_differs: bool = False

    def mapped(self, boxes_back: Callable[[np.ndarray], np.ndarray]) -> FoundTiles:
        """The same answer with every box mapped by `boxes_back` (a turned photo's boxes turned back)."""
        weak = None if self.weak is None else (boxes_back(self.weak[0]), self.weak[1])
        return replace(self, tiles=(boxes_back(self.tiles[0]), self.tiles[1]), weak=weak)


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
    kept = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), conf, iou, top_k=max_det)
    picked = np.asarray(kept, dtype=np.int64).reshape(-1)
    return boxes[picked], scores[picked], class_ids[picked]


@dataclass
class Glance:
    """The finder's plain view of one photo (`TileFinder._plain_view`): its letterboxed canvas,
    scale and padding, and the boxes and scores in canvas pixels at each threshold asked for,
    halved (`halved`) when the mirror view is to be fused with it."""

    canvas: np.ndarray
    scale: float
    pad: tuple[float, float]
    plain: list[Scored]
    halved: bool


class TileFinder:
    """Stage 1 of the detector: tile boxes in an RGB image (model.json's `finder` part)."""

    def __init__(self, model_dir: Path, spec: dict, threads: int):
        self.size = int(spec["imgsz"])
        self.conf = float(spec.get("conf", 0.25))
        self.iou = float(spec.get("iou", 0.5))
        # tiles smaller than this in the finder's input are looked at again, zoomed on their region ...
        self.zoom_below = float(spec.get("zoom_below", 0))
        # ... but only when the region around them is enough smaller than the photo for the zoomed
        # look to see them at least this much larger (a hand across the photo: no gain, two runs saved)
        self.zoom_min_gain = float(spec.get("zoom_min_gain", 1.0))
        self.mirror = bool(spec.get("mirror_view", False))
        # wide shots (a hand small in the photo): when the first look finds fewer tiles than a hand
        # has, the finder looks over overlapping windows of the photo (each with its mirror image
        # too, as the whole photo)
        self.window_below = int(spec.get("window_below", WINDOW_BELOW))
        along_long, along_short = (int(v) for v in spec.get("window_grid", WINDOW_GRID))
        self.window_grid = (along_long, along_short)
        self.window_overlap = float(spec.get("window_overlap", WINDOW_OVERLAP))
        self.window_mirror = bool(spec.get("window_mirror", WINDOW_MIRROR))
        self.turn_rows = bool(spec.get("turn_rows", False))
        self.session = onnx_session(model_dir / spec["file"], threads)
        self.input_name = self.session.get_inputs()[0].name
        # a finder exported with free height and width reads a canvas fitted to the photo's shape
        # (FINDER_STRIDE multiples), a fixed one a square
        fixed = all(isinstance(d, int) for d in self.session.get_inputs()[0].shape[2:])
        self.stride = None if fixed else FINDER_STRIDE

    def _boxes(self, canvas: np.ndarray, confs: tuple[float, ...], mirrored: bool = False) -> list[Scored]:
        """One finder run on the letterboxed `canvas` (or its mirror image): for each threshold of
        `confs`, the boxes (xyxy in canvas pixels, a mirrored view's mapped back) and scores at or
        above it."""
        view = canvas[:, ::-1] if mirrored else canvas
        blob = view.transpose(2, 0, 1)[None].astype(np.float32) / 255.0
        output = self.session.run(None, {self.input_name: blob})[0][0]
        # decoded once at the lowest threshold: greedy NMS keeps or drops a box by the boxes scoring
        # above it only, so the boxes at a higher threshold are those of the lowest above it (strictly,
        # as cv2.dnn.NMSBoxes takes its threshold)
        boxes, scores, _ = decode_yolo(output, min(confs), self.iou)
        if mirrored:
            boxes[:, [0, 2]] = canvas.shape[1] - boxes[:, [2, 0]]
        return [(boxes, scores) if conf == min(confs) else (boxes[scores > conf], scores[scores > conf]) for conf in confs]

    def _plain_view(self, rgb: np.ndarray, confs: tuple[float, ...], mirror: bool) -> Glance:
        """One finder run on `rgb`, letterboxed, without its mirror image: its boxes at each
        threshold of `confs`, or at half of each when the mirror image is to be fused with it."""
        canvas, scale, pad = letterbox(rgb, self.size, self.stride)
        levels = tuple(c / 2 for c in confs) if mirror else confs
        return Glance(canvas, scale, pad, self._boxes(canvas, levels), mirror)

    def _glance(self, rgb: np.ndarray, confs: tuple[float, ...]) -> tuple[list[Scored], float, Glance]:
        """The finder's plain view of `rgb` alone: for each threshold of `confs` the boxes (xyxy
        in pixels of `rgb`) and scores, the letterbox scale, and the `Glance` that lets `_find`
        add the mirror image later without running the plain view again (the turn is decided on
        it: one finder run less for a hand running down the photo)."""
        glance = self._plain_view(rgb, confs, self.mirror)
        seen = [(boxes[scores >= conf], scores[scores >= conf]) for conf, (boxes, scores) in zip(confs, glance.plain)]
        return _in_photo(seen, rgb.shape, glance.scale, glance.pad), glance.scale, glance

    def _find(
        self, rgb: np.ndarray, confs: tuple[float, ...], mirror: bool | None = None, glance: Glance | None = None
    ) -> tuple[list[Scored], float]:
        """The finder on `rgb` at each threshold of `confs`: boxes (xyxy in pixels of `rgb`) and
        scores, and the letterbox scale. When the model asks for it (`finder.mirror_view`; `mirror`
        overrides it) it looks at the mirror image of the letterboxed photo too, and `fuse_views`
        merges the two views (each view kept down to half the threshold). `glance`: `_glance`'s
        answer for `rgb` at `confs`, whose plain view is not run again."""
        mirror = self.mirror if mirror is None else mirror
        if glance is None or glance.halved != mirror:
            glance = self._plain_view(rgb, confs, mirror)
        found = glance.plain
        if mirror:
            halves = tuple(c / 2 for c in confs)
            found = [
                fuse_views(boxes, scores, mirrored, mirrored_scores, conf)
                for conf, (boxes, scores), (mirrored, mirrored_scores) in zip(
                    confs, glance.plain, self._boxes(glance.canvas, halves, mirrored=True)
                )
            ]
        return _in_photo(found, rgb.shape, glance.scale, glance.pad), glance.scale

    def find_tiles(self, rgb: np.ndarray, floor: float | None = None) -> Scored:
        """Tile boxes (xyxy in pixels of `rgb`) and their finder scores: those at the finder's
        threshold or above, and with `floor` the weak ones from it up too."""
        found = self.find(rgb, floor)
        if found.weak is None:
            return found.tiles
        return np.concatenate([found.tiles[0], found.weak[0]]), np.concatenate([found.tiles[1], found.weak[1]])

    def _find_in_windows(self, rgb: np.ndarray, confs: tuple[float, ...]) -> list[Scored]:
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

    def find(self, rgb: np.ndarray, floor: float | None, closer: bool = False, upside_down: bool = False) -> FoundTiles:
        """The tile boxes (xyxy in pixels of `rgb`) and finder scores at or above the threshold,
        and (when `floor` is given) those of the same view scoring from `floor` up to it.

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
            found = self.find(np.ascontiguousarray(rgb[::-1, ::-1]), floor, closer)
            return found.mapped(lambda boxes: half_turn(boxes, width, height))
        confs = (self.conf,) if floor is None else (self.conf, min(floor, self.conf))
        seen, scale, glance = self._glance(rgb, confs)
        if self.turn_rows and runs_down(seen[0][0]):
            turned_rgb = np.ascontiguousarray(np.rot90(rgb, k=-1))
            turned, turned_scale, turned_glance = self._glance(turned_rgb, confs)
            if turned[0][1].sum() >= seen[0][1].sum():  # the finder is surer of the turned photo
                turned, _ = self._find(turned_rgb, confs, glance=turned_glance)
                height = rgb.shape[0]
                found = self._after_first_look(turned_rgb, confs, turned, turned_scale, closer)
                return found.mapped(lambda boxes: unturn(boxes, height))
        first, _ = self._find(rgb, confs, glance=glance)
        return self._after_first_look(rgb, confs, first, scale, closer)

    def _after_first_look(
        self, rgb: np.ndarray, confs: tuple[float, ...], found: list[Scored], scale: float, closer: bool = False,
    ) -> FoundTiles:
        """The rest of `find` once the first look at `rgb` is taken (`found`, `scale`: `_find`'s
        answer): the windows or the zoomed look when they are called for (`closer`: the zoomed
        look whatever it gains). A closer look would differ only when this one left the zoom out
        for its gain alone."""
        if not self.zoom_below:
            return FoundTiles(found[0], _below(found, self.conf))
        first = found[0][0]
        if len(first) < self.window_below and (len(first) < WINDOW_FEW or tile_size(first) * scale < self.zoom_below):
            windowed = self._find_in_windows(rgb, confs)
            if len(windowed[0][0]) > len(found[0][0]) and tile_size(windowed[0][0]) * scale < self.zoom_below:
                found = windowed
        (boxes, scores), weak = found[0], _below(found, self.conf)
        if len(boxes) == 0:
            return FoundTiles((boxes, scores), weak)
        size = tile_size(boxes)
        if size * scale >= self.zoom_below:
            return FoundTiles((boxes, scores), weak)
        height, width = rgb.shape[:2]
        region = zoom_region(boxes, width, height, margin=size)
        around = len(boxes)
        if region_area(region) > ZOOM_AREA * width * height:  # strays far from the hand: the largest group
            group = boxes[main_cluster(boxes, link=CLUSTER_LINK * size)]
            region, around = zoom_region(group, width, height, margin=size), len(group)
            if region_area(region) > ZOOM_AREA * width * height:
                return FoundTiles((boxes, scores), weak)
        x1, y1, x2, y2 = region
        if not closer and max(width, height) < self.zoom_min_gain * max(x2 - x1, y2 - y1):
            return FoundTiles((boxes, scores), weak, closer_differs=True)
        zoomed, _ = self._find(rgb[y1:y2, x1:x2], confs)
        if len(zoomed[0][0]) < around:
            return FoundTiles((boxes, scores), weak)
        offset = np.array([x1, y1, x1, y1], np.float32)
        zoomed = [(b + offset, s) for b, s in zoomed]
        # what the first look found away from the region (strays far from the hand) stays
        zoomed = [_with_outside(z, first_look, region) for z, first_look in zip(zoomed, found)]
        return FoundTiles(zoomed[0], _below(zoomed, self.conf))


def _in_photo(found: list[Scored], shape: tuple, scale: float, pad: tuple[float, float]) -> list[Scored]:
    """Canvas boxes (per threshold) in the photo's pixels, inside it."""
    height, width = shape[:2]
    in_photo = []
    for boxes, scores in found:
        boxes = (boxes - np.array([pad[0], pad[1], pad[0], pad[1]], np.float32)) / scale
        boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, width)
        boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, height)
        in_photo.append((boxes, scores))
    return in_photo


def _with_outside(zoomed: Scored, first: Scored, region: tuple[int, int, int, int]) -> Scored:
    """The zoomed look's (boxes, scores), and those of the first look (`first`) that have less than
    OUTSIDE_ZOOM of their area inside the zoomed `region`."""
    boxes, scores = first
    if len(boxes) == 0:
        return zoomed
    area = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).clip(1e-6)
    out = intersections(boxes, np.asarray(region, np.float32)) / area < OUTSIDE_ZOOM
    return np.concatenate([zoomed[0], boxes[out]]), np.concatenate([zoomed[1], scores[out]])


def _below(found: list[Scored], conf: float) -> Scored | None:
    """Of `_find`'s answers at (threshold, floor), the floor's boxes scoring under the threshold;
    None without a floor."""
    if len(found) < 2:
        return None
    boxes, scores = found[1]
    under = scores < conf
    return boxes[under], scores[under]
