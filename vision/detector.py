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
from typing import Callable

import numpy as np

from vision.blas_threads import one_blas_thread
from vision.boxes import long_sides, suppress_duplicates, tile_size
from vision.classes import NOT_A_TILE
from vision.classifier import Plain, SetLook, SetMatch, TileClassifier, crop_blob, crop_tiles
from vision.detections import Detection, Detections, TileDetector
from vision.finder import TileFinder
from vision.model_spec import DEFAULT_MODEL_DIR, DEFAULT_THREADS, MODEL_JSON, read_model_spec
from vision.photo import DETECT_MAX_SIDE, Photo, read_photo
from vision.set_rescue import (
    FIRM_FIND,
    FIRM_NOT_TILE,
    FIRM_SIMILAR,
    RESCUE_FLOOR,
    RESCUE_SIMILAR,
    rescued,
    shows_the_set,
)
from vision.set_search import SEARCH_SCORE, SEARCH_SIMILAR, gap_boxes, search_gaps, worth_naming

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
        the tiles as that tile set draws them (vision.tileset; None: the shipped classifier alone), and,
        in a photo that shows the set, keep as tiles the weak boxes it vouches for (vision.set_rescue)
        and the places beside the rows it recognises where the finder gave no box (vision.set_search):
        those are cut out only then, in one batch (`_reach`)."""
        if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
            raise ValueError("detect() expects an RGB uint8 array of shape (H, W, 3)")
        # with a tile set the finder's weak boxes are looked at from RESCUE_FLOOR up (vision.set_rescue)
        floor = weak_floor if tileset is None else min(RESCUE_FLOOR, weak_floor if weak_floor is not None else 1.0)
        found = self.finder.find(rgb, floor, closer, upside_down)
        boxes, find_scores = found.tiles
        weak_boxes, weak_find = found.weak if found.weak is not None else (np.zeros((0, 4), np.float32),
                                                                          np.zeros(0, np.float32))
        # the weak boxes under `weak_floor` are the rescue's alone: named later, when the photo shows the set
        later = np.zeros(len(weak_find), bool)
        if tileset is not None:
            later = np.ones(len(weak_find), bool) if weak_floor is None else weak_find < weak_floor
        all_boxes = np.concatenate([boxes.reshape(-1, 4), weak_boxes[~later].reshape(-1, 4)])
        all_find = np.concatenate([find_scores, weak_find[~later]])
        classifier = self.classifier
        image, scale = self._crop_image(rgb, boxes, photo)
        match = None
        if tileset is None:
            raw = classifier.classify(image, all_boxes * scale)
        else:
            raw, match = self._named_as_set(image, all_boxes * scale, tileset, photo_boxes=len(boxes))
        kept, weak_kept = _chosen(all_boxes, all_find, raw, len(boxes), classifier.not_a_tile_above)
        if tileset is not None and match is not None and shows_the_set(match.similarity[kept]):
            set_look: SetLook = tileset

            def name(places: np.ndarray, plain: Plain | None = None) -> tuple[np.ndarray, SetMatch]:
                return self._named_as_set(image, places * scale, set_look, plain=plain)

            def likeness(places: np.ndarray) -> tuple[np.ndarray, Plain]:
                return self._set_likeness(image, places * scale, set_look)

            all_boxes, all_find, raw, match, kept, weak_kept = _reach(
                all_boxes, all_find, raw, match, len(boxes), kept, weak_boxes[later], weak_find[later],
                weak_floor, rgb.shape, classifier.not_a_tile_above, name, likeness, set_look.searched)
        _, probs, class_ids, scores = _named(raw, all_find, classifier.not_a_tile_above)

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
        """The image the classifier cuts its crops from, and `boxes` in its pixels (`_crop_image`)."""
        image, scale = self._crop_image(rgb, tiles, photo)
        return image, boxes if image is rgb else boxes * scale

    def _crop_image(self, rgb: np.ndarray, tiles: np.ndarray, photo: Photo | None) -> tuple[np.ndarray, np.ndarray]:
        """The image the classifier cuts its crops from, and the scale (4,) that maps boxes of `rgb`
        to its pixels: `rgb`, unless `rgb` is a `photo` whose tiles (`tiles`, the finder's kept
        boxes) are smaller than the classifier's input (median long side under SHARPER_BELOW x
        `crop_h`): then the same photo decoded again at the next direct JPEG scale
        (`Photo.sharper`). The finder's boxes stay those found in `rgb`."""
        same = np.ones(4, np.float32)
        if photo is None or len(tiles) == 0:
            return rgb, same
        if tile_size(tiles) >= SHARPER_BELOW * self.classifier.crop_h:
            return rgb, same
        sharper = photo.sharper()
        if sharper is None:
            return rgb, same
        sx, sy = sharper.shape[1] / rgb.shape[1], sharper.shape[0] / rgb.shape[0]
        return sharper, np.array([sx, sy, sx, sy], np.float32)

    def _set_likeness(self, image: np.ndarray, boxes: np.ndarray, tileset: SetLook) -> tuple[np.ndarray, Plain]:
        """Each box's (pixels of `image`) best similarity to `tileset`'s examples from its plain crop
        and, for a box about as wide as tall (`both_turns`), its crop turned the other way: one
        classifier run without the extra views, and at least the similarity `_named_as_set` gives
        the box (it compares a subset of these crops), so a box under a rule's least similarity
        here is under it there too. (N,), and the plain crops so read (for `_named_as_set`)."""
        classifier = self.classifier
        crops = [crop_tiles(image, boxes, classifier.crop_w, classifier.crop_h, classifier.crop_pad)]
        rows = [np.arange(len(boxes))]
        if classifier.both_turns is not None:
            aspect = (boxes[:, 2] - boxes[:, 0]) / np.maximum(boxes[:, 3] - boxes[:, 1], 1e-6)
            either = np.flatnonzero((aspect >= classifier.both_turns[0]) & (aspect <= classifier.both_turns[1]))
            crops.append(crop_tiles(image, boxes[either], classifier.crop_w, classifier.crop_h, classifier.crop_pad,
                                    other_way=True))
            rows.append(either)
        blob = crop_blob(np.concatenate(crops))
        read = classifier.read(blob)
        with one_blas_thread():
            alike = tileset.likeness(read.features, np.concatenate(rows), len(boxes))
        return alike, read[np.arange(len(boxes))]

    def _named_as_set(self, image: np.ndarray, boxes: np.ndarray, tileset: SetLook, photo_boxes: int | None = None,
                      plain: Plain | None = None) -> tuple[np.ndarray, SetMatch]:
        """The classifier's probabilities of `boxes` (pixels of `image`) blended with `tileset`, and
        how alike each is to the set (numpy's BLAS on one thread for the set's similarity;
        `photo_boxes`: the first boxes, the finder's tiles, tell whether the photo shows the set;
        `plain`: their crops read already)."""
        with one_blas_thread():
            return self.classifier.classify_as_set(image, boxes, profile=tileset, photo_boxes=photo_boxes, plain=plain)


def _named(raw: np.ndarray, find: np.ndarray, not_a_tile_above: float | None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """From the classifier's probabilities `raw` (N, 43 or 44) and finder scores `find` (N,): which
    boxes hold a tile, the probabilities among the 43, the class read and the score (finder score x
    its probability)."""
    if not_a_tile_above is None:
        is_tile = np.ones(len(raw), bool)
    else:
        is_tile = raw[:, NOT_A_TILE] < not_a_tile_above
    probs = raw[:, :NOT_A_TILE] / raw[:, :NOT_A_TILE].sum(axis=1, keepdims=True).clip(1e-9)
    class_ids = probs.argmax(axis=1)
    return is_tile, probs, class_ids, find * probs[np.arange(len(class_ids)), class_ids]


def _chosen(boxes: np.ndarray, find: np.ndarray, raw: np.ndarray, tiles: int, not_a_tile_above: float | None,
            doubted_above: float | None = None, kept: np.ndarray | None = None) -> tuple[np.ndarray, list[int]]:
    """Of `boxes` (the finder's first `tiles` at its threshold, then weak ones), the tiles kept and
    the weak boxes kept (indices): boxes the classifier finds no tile in go; of the tiles, a box that
    is the same tile as a better one goes (suppress_duplicates); the weak boxes rank after every kept
    tile, and one that is the same tile as a kept one or a better weak one goes. `doubted_above`: a
    box whose "not a tile" is under it (the classifier's doubt), a tile or weak, counts as a weak box
    ranked after the others (vision.set_rescue's firm plain faces). `kept`: the tiles kept, chosen
    already from the same first `tiles`."""
    is_tile, _, _, scores = _named(raw, find, not_a_tile_above)
    if kept is None:
        found = np.flatnonzero(is_tile[:tiles])
        kept = _tile_sized(boxes, found[suppress_duplicates(boxes[found], scores[found])])
    weak_tiles = tiles + np.flatnonzero(is_tile[tiles:])
    if doubted_above is not None and not_a_tile_above is not None:
        weak_tiles = np.union1d(weak_tiles, np.flatnonzero(~is_tile & (raw[:, NOT_A_TILE] < doubted_above)))
    weak_tiles = _tile_sized(boxes, weak_tiles, of=kept)
    rank = np.concatenate([np.full(len(kept), 2.0), scores[weak_tiles] - ~is_tile[weak_tiles]])
    order = np.concatenate([kept, weak_tiles]).astype(np.int64)
    return kept, [int(order[j]) for j in suppress_duplicates(boxes[order], rank) if j >= len(kept)]


def _reach(boxes: np.ndarray, find: np.ndarray, raw: np.ndarray, match: SetMatch, tiles: int, kept: np.ndarray,
           later: np.ndarray, later_find: np.ndarray, weak_floor: float | None, shape: tuple, not_a_tile_above: float | None,
           name: Callable[[np.ndarray, Plain | None], tuple[np.ndarray, SetMatch]],
           likeness: Callable[[np.ndarray], tuple[np.ndarray, Plain]], search: bool = True
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, SetMatch, np.ndarray, list[int]]:
    """With a tile set, in a photo that shows it: the finder's weak boxes left for the rescue
    (`later`, scores `later_find`) that their geometry does not rule out, and, with `search` (a set
    whose tiles the finder may give no box: TilesetProfile.searched), the gaps beside the tiles found
    (vision.set_search), named by `name` in one run; the weak boxes the set vouches for
    (vision.set_rescue) and the gaps it recognises become tiles. `boxes`, `find`, `raw`, `match`
    (named already; the first `tiles` the finder's tiles, `kept` those kept) grow by the boxes named
    here. (boxes, find, raw, match, kept, weak kept: the weak boxes from `weak_floor` up)."""
    height, width = shape[:2]
    sound = worth_naming(later, boxes[kept])
    later, later_find = later[sound], later_find[sound]
    tiles_found = kept
    places = np.zeros((0, 4), np.float32)
    if search:  # a weak box there may be turned down by the rescue where the search's gates keep the place
        places = gap_boxes(boxes[kept], boxes[kept], boxes, width, height)
    every_place = places
    named, named_match = raw[:0], SetMatch(match.similarity[:0], match.tile[:0])
    if len(later) + len(places):  # named in full (with the classifier's extra views) only when alike enough
        alike, plain = likeness(np.concatenate([later, places]))
        like = alike[:len(later)] >= np.where(later_find >= FIRM_FIND, FIRM_SIMILAR, RESCUE_SIMILAR)
        alike_place = alike[len(later):] >= SEARCH_SIMILAR
        looked = np.concatenate([np.flatnonzero(like), len(later) + np.flatnonzero(alike_place)])
        later, later_find, places = later[like], later_find[like], places[alike_place]
        if len(looked):  # their plain crops read by the likeness run already
            named, named_match = name(np.concatenate([later, places]), plain[looked])
    n = len(later)
    boxes, find, raw = np.concatenate([boxes, later]), np.concatenate([find, later_find]), np.concatenate([raw, named[:n]])
    match = _joined(match, SetMatch(named_match.similarity[:n], named_match.tile[:n]))
    kept, weak = _chosen(boxes, find, raw, tiles, not_a_tile_above, doubted_above=FIRM_NOT_TILE, kept=kept)
    if weak:  # weak boxes the tile set vouches for are tiles
        chosen = np.array(weak, np.int64)
        vouched = rescued(boxes[chosen], find[chosen], match.similarity[chosen], match.tile[chosen],
                          raw[chosen], boxes[kept], match.similarity[kept], not_a_tile_above)
        kept = np.concatenate([kept, chosen[vouched]]).astype(np.int64)
        is_tile = _named(raw, find, not_a_tile_above)[0]
        weak = [int(i) for i in chosen[~vouched] if weak_floor is not None and find[i] >= weak_floor and is_tile[i]]
    found, found_raw, found_match = search_gaps(
        places, named[n:], SetMatch(named_match.similarity[n:], named_match.tile[n:]), boxes[tiles_found],
        boxes[np.setdiff1d(kept, tiles_found)], np.concatenate([boxes, every_place]), width, height,
        lambda places: name(places, None))
    if len(found):
        kept = np.concatenate([kept, len(boxes) + np.arange(len(found))]).astype(np.int64)
        boxes, raw = np.concatenate([boxes, found]), np.concatenate([raw, found_raw])
        find = np.concatenate([find, np.full(len(found), SEARCH_SCORE, np.float32)])
        match = _joined(match, found_match)
    return boxes, find, raw, match, kept, weak


def _joined(a: SetMatch, b: SetMatch) -> SetMatch:
    return SetMatch(np.concatenate([a.similarity, b.similarity]), np.concatenate([a.tile, b.tile]))


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
