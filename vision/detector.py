"""The tile detector at run time: onnxruntime, numpy and OpenCV only.

Two stages, both ONNX files in models/ (described by models/model.json):
1. the *finder* (vision.finder), a YOLO that only finds tiles (boxes, class agnostic), run on a
   letterboxed copy of the image;
2. the *classifier* (vision.classifier), a compact CNN that names each tile (43 classes) from a
   crop cut out of the image the caller gave (so it sees more pixels than the finder).

`get_detector()` loads the model once per process; `Detector.detect` is safe to call from
several threads at once (onnxruntime sessions are thread-safe and every call's state is in its
arguments and its answer). Each call runs on at most `threads` cores, and onnxruntime's threads
do not spin-wait between calls: a server that runs one detection per core at once gives each
detector one thread.
"""
from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from vision.boxes import long_sides, suppress_duplicates, tile_size
from vision.classes import NOT_A_TILE
from vision.classifier import SetLook, TileClassifier
from vision.detections import Detection, Detections, TileDetector
from vision.finder import TileFinder
from vision.model_spec import DEFAULT_MODEL_DIR, DEFAULT_THREADS, MODEL_JSON, read_model_spec
from vision.photo import DETECT_MAX_SIDE, Photo, read_photo
from vision.set_rescue import RESCUE_FLOOR, rescued

# A box whose longer side is under this share of the median tile's (of 5 or more tiles kept) is no
# tile of that photo: a speck or a corner read as a tile, or a box inside a tile
SMALL_TILE = 0.5
# When the median tile found is shorter than this share of the classifier's input height, the
# classifier's crops come from the photo decoded again at the next direct JPEG scale
# (Detector._crop_source; docs/photo-resolution.md)
SHARPER_BELOW = 1.0


class Detector:
    """Finds and names mahjong tiles in an RGB image: the finder, then the classifier."""

    def __init__(self, model_dir: str | Path | None = None, threads: int = DEFAULT_THREADS):
        self.model_dir, self.spec = read_model_spec(model_dir)
        self.threads = max(1, int(threads))
        self.finder = TileFinder(self.model_dir, self.spec["finder"], self.threads)
        self.classifier = TileClassifier(self.model_dir, self.spec["classifier"], list(self.spec["classes"]),
                                         self.threads, self.model_dir / MODEL_JSON)

    def detect(
        self, rgb: np.ndarray, *, weak_floor: float | None = None, closer: bool = False, upside_down: bool = False,
        photo: Photo | None = None, tileset: SetLook | None = None,
    ) -> Detections:
        """The tiles in `rgb` (H, W, 3 uint8 RGB), left to right, as vision.detections describes
        them; `score` is the finder score x the class probability, and `candidates` the
        CANDIDATES best classes so scored. With `weak_floor`, the weak boxes too: boxes the finder
        scored from `weak_floor` up to its threshold, named like the others, of which a box that is
        the same tile as a kept one or a better weak one (suppress_duplicates' rule) is left out;
        one finder and classifier pass for both (vision.reading_repair may add a weak tile to a
        hand one tile short). `closer`, `upside_down`: read_hand's other looks (TileFinder.find).
        `photo`: the photo `rgb` is (vision.photo.read_photo), for `_crop_source`. `tileset`: read
        the tiles as that tile set draws them (vision.tileset; None: the shipped classifier alone), and
        keep as tiles the weak boxes the set vouches for (vision.set_rescue)."""
        if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
            raise ValueError("detect() expects an RGB uint8 array of shape (H, W, 3)")
        # with a tile set the finder's weak boxes are looked at from RESCUE_FLOOR up (vision.set_rescue)
        floor = weak_floor if tileset is None else min(RESCUE_FLOOR, weak_floor if weak_floor is not None else 1.0)
        found = self.finder.find(rgb, floor, closer, upside_down)
        boxes, find_scores = found.tiles
        weak_boxes, weak_find = found.weak if found.weak is not None else (np.zeros((0, 4), np.float32),
                                                                          np.zeros(0, np.float32))
        all_boxes = np.concatenate([boxes.reshape(-1, 4), weak_boxes.reshape(-1, 4)])
        all_find = np.concatenate([find_scores, weak_find])
        classifier = self.classifier
        source = self._crop_source(rgb, boxes, all_boxes, photo)
        match = None
        if tileset is None:
            probs = classifier.classify(*source)
        else:
            probs, match = classifier.classify_as_set(*source, profile=tileset)
        # boxes the classifier finds no tile in go; the others' classes are read among the 43
        if classifier.not_a_tile_above is None:
            is_tile = np.ones(len(probs), bool)
        else:
            is_tile = probs[:, NOT_A_TILE] < classifier.not_a_tile_above
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
        if match is not None and weak_kept:  # weak boxes the tile set vouches for are tiles
            weak = np.array(weak_kept, np.int64)
            vouched = rescued(all_boxes[weak], all_find[weak], match.similarity[weak], match.tile[weak],
                              class_ids[weak], all_boxes[kept], match.similarity[kept])
            kept = np.concatenate([kept, weak[vouched]]).astype(np.int64)
            weak_kept = [int(i) for i in weak[~vouched] if weak_floor is not None and all_find[i] >= weak_floor]

        def record(i: int) -> Detection:
            return {
                "tile": classifier.classes[int(class_ids[i])],
                "box": [round(float(v), 1) for v in all_boxes[i]],
                "score": round(float(scores[i]), 4),
                "candidates": classifier.candidates(probs[i], class_ids[i], all_find[i]),
            }

        def left_to_right(found: list[Detection]) -> list[Detection]:
            return sorted(found, key=lambda d: (d["box"][0], d["box"][1]))

        return Detections(left_to_right([record(int(i)) for i in kept]), left_to_right([record(i) for i in weak_kept]),
                          found.closer_differs)

    def classifier_view(self, rgb: np.ndarray, boxes: np.ndarray, photo: Photo | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
        """The image the classifier reads `boxes` (found in `rgb`) from, and the boxes in its
        pixels (`_crop_source`: a sharper decode of `photo` for small tiles); vision.tileset learns
        from the crops the detector would read."""
        return self._crop_source(rgb, boxes, boxes, photo)

    def _crop_source(
        self, rgb: np.ndarray, tiles: np.ndarray, boxes: np.ndarray, photo: Photo | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The image the classifier cuts its crops from, and `boxes` in its pixels: `rgb`, unless
        `rgb` is a `photo` whose tiles (`tiles`, the finder's kept boxes) are smaller than the
        classifier's input (median long side under SHARPER_BELOW x `crop_h`): then the same photo
        decoded again at the next direct JPEG scale (`Photo.sharper`), the boxes scaled to it. The
        finder's boxes stay those found in `rgb`."""
        if photo is None or len(tiles) == 0:
            return rgb, boxes
        if tile_size(tiles) >= SHARPER_BELOW * self.classifier.crop_h:
            return rgb, boxes
        sharper = photo.sharper()
        if sharper is None:
            return rgb, boxes
        sx, sy = sharper.shape[1] / rgb.shape[1], sharper.shape[0] / rgb.shape[0]
        return sharper, boxes * np.array([sx, sy, sx, sy], np.float32)


def _tile_sized(boxes: np.ndarray, indices: np.ndarray, of: np.ndarray | None = None) -> np.ndarray:
    """Of `indices` into `boxes`, those whose longer side is at least SMALL_TILE times the median
    tile's among `of` (default: `indices` themselves), when those are 5 or more; all otherwise."""
    reference = indices if of is None else of
    if len(reference) < 5 or len(indices) == 0:
        return indices
    return indices[long_sides(boxes[indices]) >= SMALL_TILE * tile_size(boxes[reference])]


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


def detect_photo(
    detector: TileDetector, data: bytes, *, max_side: int = DETECT_MAX_SIDE, max_pixels: int | None = None,
    one_set: bool = False, weak_floor: float | None = None,
) -> dict:
    """Detections for one photo's bytes, boxes in pixels of the image as stored (EXIF
    orientation applied): `{"width", "height", "detections": [{"tile", "box", "score"}]}`.
    The photo is read as vision.photo.read_photo reads it (`max_side`: its `first_side`); with
    `one_set` the readings are those one tile set can hold (vision.one_set). With `weak_floor` the
    answer also holds `"weak"`: the boxes the finder scored from that floor up to its threshold,
    and every detection, weak or not, keeps its `candidates` (evaluation ranks them all for mAP).
    Raises vision.decode.ImageError for bad bytes."""
    from vision.decode import DEFAULT_MAX_PIXELS, probe_image

    limit = DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels
    width, height = probe_image(data, max_pixels=limit)
    photo = read_photo(data, first_side=max_side, max_pixels=limit)
    found = detector.detect(photo.image, weak_floor=weak_floor, photo=photo)
    tiles = found.tiles
    sx, sy = width / photo.image.shape[1], height / photo.image.shape[0]
    if one_set:
        from vision.one_set import assign_one_set

        tiles = assign_one_set(tiles)

    def in_stored_pixels(d: Detection) -> dict:
        x1, y1, x2, y2 = d["box"]
        box = [round(x1 * sx, 1), round(y1 * sy, 1), round(x2 * sx, 1), round(y2 * sy, 1)]
        kept = {"tile": d["tile"], "box": box, "score": float(d["score"])}
        return kept if weak_floor is None else {**kept, "candidates": d["candidates"]}

    result = {"width": width, "height": height, "detections": [in_stored_pixels(d) for d in tiles]}
    if weak_floor is not None:
        result["weak"] = [in_stored_pixels(d) for d in found.weak]
    return result
