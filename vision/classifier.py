"""The classifier: stage 2 of the detector, a compact CNN that names each tile the finder found
(43 classes, and with `not_a_tile_above` a 44th: no tile) from a crop of the image the caller
gave, so it sees more pixels than the finder."""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.model_spec import ModelNotFoundError, onnx_session

FEATURES = "features"  # the classifier's second output: its penultimate layer (vision.tileset's embedding)

CANDIDATES = 4  # classes listed per detection (its own first), for vision.one_set
# The classifier's extra views (model.json classifier `views`): flips of the N x C x H x W crops
# whose class probabilities are averaged with the crop's own, for the crops whose best class is
# under `views_below` (a sure crop keeps its own answer)
UPSIDE_DOWN = (2, 3)  # the flip that turns N x C x H x W crops half a turn
VIEW_FLIPS: dict[str, list[tuple[int, ...]]] = {
    "none": [],
    "rot180": [UPSIDE_DOWN],                 # tiles lie upside down as often as not
    "rot180+mirror": [UPSIDE_DOWN, (3,), (2,)],  # and some photos are mirrored (selfie cameras)
}


@dataclass(frozen=True)
class SetMatch:
    """How alike each box's crop is to one tile set's own tiles (vision.tileset): its best cosine
    similarity to the set's examples (-1 for a box not compared) and that example's class id."""

    similarity: np.ndarray
    tile: np.ndarray


@dataclass(frozen=True)
class Plain:
    """Crops read once, without the extra views (`TileClassifier.read`): the classifier's input
    (N x C x H x W), class probabilities (N, 43 or 44) and features (N, D)."""

    blob: np.ndarray
    probs: np.ndarray
    features: np.ndarray

    def __getitem__(self, rows: np.ndarray) -> Plain:
        return Plain(self.blob[rows], self.probs[rows], self.features[rows])


# The features of some crops (indices) turned upside down and, when asked (True), of their ink views
# (`ink_view`), from one classifier run: what a tile set's reading compares again for a crop it is unsure of
OtherViews = Callable[[np.ndarray, bool], tuple[np.ndarray, np.ndarray | None]]


class SetLook(Protocol):
    """How one tile set looks (vision.tileset.profile.TilesetProfile): learnt with the classifier
    `classifier` (TileClassifier.model_id), it blends the classifier's probabilities of crops with
    the set's own reading of their features."""

    @property
    def name(self) -> str: ...

    @property
    def classifier(self) -> str: ...

    @property
    def searched(self) -> bool: ...

    def blend(self, probs: np.ndarray, features: np.ndarray, rows: np.ndarray,
              other_views: OtherViews | None = None, photo_boxes: int | None = None,
              known: np.ndarray | None = None) -> tuple[np.ndarray, SetMatch]: ...

    def settled(self, probs: np.ndarray, features: np.ndarray, photo_boxes: int | None = None
                ) -> tuple[np.ndarray, np.ndarray]: ...

    def likeness(self, features: np.ndarray, rows: np.ndarray, boxes: int) -> np.ndarray: ...


def ink_view(blob: np.ndarray) -> np.ndarray:
    """N x 3 x H x W crops (`crop_blob`) with each pixel's darkest channel in all three: ink of any
    colour drawn dark, as most sets draw it (a set may draw its winds in red, its 發 in blue)."""
    darkest = np.minimum(np.minimum(blob[:, 0], blob[:, 1]), blob[:, 2])  # a min over axis 1 strides slowly
    return np.repeat(darkest[:, None], 3, axis=1)


def crop_tiles(
    rgb: np.ndarray, boxes: np.ndarray, width: int, height: int, pad: float, other_way: bool = False
) -> np.ndarray:
    """Cut each box (grown by `pad` of its size) out of `rgb` as a portrait crop of width x height.

    A box wider than tall (a tile lying sideways, as a claimed tile in a meld) is turned
    a quarter turn first, so every crop shows the tile upright or upside down. `other_way`:
    each crop turned where that rule leaves it and left where it turns it (the second reading
    of a box about as wide as tall, whose shape does not tell which way its tile lies:
    `TileClassifier.classify`).
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


def model_id_of(file: Path) -> str:
    """Which classifier network the ONNX file `file` holds (TileClassifier.model_id): a tile-set
    profile is learnt with one (vision.tileset)."""
    return hashlib.sha256(Path(file).read_bytes()).hexdigest()[:16]


def crop_blob(crops: np.ndarray) -> np.ndarray:
    """N x H x W x 3 uint8 crops as the classifier's N x 3 x H x W float input in [0, 1]."""
    return crops.transpose(0, 3, 1, 2).astype(np.float32) / 255.0


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


class TileClassifier:
    """Stage 2 of the detector: class probabilities of boxes in an RGB image (model.json's
    `classifier` part and `classes`)."""

    def __init__(self, model_dir: Path, spec: dict, classes: list[str], threads: int, spec_path: Path):
        self.classes = list(classes)
        self.crop_w, self.crop_h = (int(v) for v in spec["input_wh"])
        self.crop_pad = float(spec.get("pad", 0.0))
        views = spec.get("views", "none")
        if views not in VIEW_FLIPS:
            raise ModelNotFoundError(f"{spec_path}: classifier views {views!r} is none of {', '.join(VIEW_FLIPS)}")
        self.view_flips = VIEW_FLIPS[views]
        self.views_below = float(spec.get("views_below", 1.0))
        # a box about as wide as tall (width / height within `both_turns`) does not tell which way
        # its tile lies (a claimed tile laid sideways and seen at a slant, an upright one with its
        # body showing): when its reading is unsure (under `views_below`), it is read both ways,
        # turned a quarter turn and not, the two averaged
        turns = spec.get("both_turns")
        try:
            self.both_turns = None if turns is None else (float(turns[0]), float(turns[1]))
        except (TypeError, ValueError, IndexError, KeyError):
            raise ModelNotFoundError(f"{spec_path}: classifier both_turns {turns!r} is not [low, high]") from None
        # a classifier with a 44th output (NOT_A_TILE): a box it gives at least this probability of
        # holding no tile goes (dice, scoring sticks, coins, chips); None: no such output
        above = spec.get("not_a_tile_above")
        self.not_a_tile_above = None if above is None else float(above)
        self.session = onnx_session(model_dir / spec["file"], threads)
        # which network this is: a tile-set profile holds the embeddings of one (vision.tileset)
        self.model_id = model_id_of(model_dir / spec["file"])
        self.input_name = self.session.get_inputs()[0].name
        self.output_name = self.session.get_outputs()[0].name
        # a classifier with a `features` output can read with a tile-set profile (vision.tileset)
        self.has_features = any(o.name == FEATURES for o in self.session.get_outputs()[1:])
        outputs = self.session.get_outputs()[0].shape[-1]
        if isinstance(outputs, int) and outputs != len(self.classes) + (self.not_a_tile_above is not None):
            raise ModelNotFoundError(
                f"{spec_path}: the classifier has {outputs} outputs; model.json says "
                + ("43 and 'not a tile' (not_a_tile_above)" if self.not_a_tile_above is not None else "43")
            )

    def classify(self, rgb: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        """Class probabilities (len(boxes), 43) for each box, and with `not_a_tile_above` a 44th
        column: the probability that the box holds no tile (NOT_A_TILE)."""
        return self._classify(rgb, boxes, None)[0]

    def classify_as_set(self, rgb: np.ndarray, boxes: np.ndarray, profile: SetLook, photo_boxes: int | None = None,
                        plain: Plain | None = None) -> tuple[np.ndarray, SetMatch]:
        """`classify`'s probabilities with the 43 blended with a tile set's own look (`profile`,
        vision.tileset: `SetLook.blend`; `photo_boxes` as there), and how alike each box is to the
        set's tiles. `plain`: the boxes' crops read already (`read`), not read again."""
        self._check_features(profile)
        probs, match = self._classify(rgb, boxes, profile, photo_boxes, plain)
        assert match is not None
        return probs, match

    def read(self, blob: np.ndarray) -> Plain:
        """N x C x H x W crops (`crop_blob`) with their class probabilities and features, from one
        run without the extra views (what `classify_as_set` reads first)."""
        self._check_features()
        features: list[np.ndarray] = []
        probs = self._class_probabilities(blob, features)
        return Plain(blob, probs, features[0])

    def _classify(self, rgb: np.ndarray, boxes: np.ndarray, profile: SetLook | None, photo_boxes: int | None = None,
                  plain: Plain | None = None) -> tuple[np.ndarray, SetMatch | None]:
        if len(boxes) == 0:
            empty = np.zeros(0, np.float32)
            return (np.zeros((0, len(self.classes) + (self.not_a_tile_above is not None)), np.float32),
                    None if profile is None else SetMatch(empty, empty.astype(np.int64)))
        features: list[np.ndarray] | None = [] if profile is not None else None
        if plain is not None and features is not None:
            blob, probs = plain.blob, plain.probs.copy()
            features.append(plain.features)
        else:
            blob = crop_blob(crop_tiles(rgb, boxes, self.crop_w, self.crop_h, self.crop_pad))
            probs = self._class_probabilities(blob, features)
        blobs = [blob]  # the crops whose features are read, as `rows` lists them
        rows = np.arange(len(boxes))
        # crops the set reads surely as the classifier does: no extra view can change their reading
        settled, known = np.zeros(len(boxes), bool), None
        if profile is not None and features is not None:
            settled, known = profile.settled(probs, features[0], photo_boxes)
        turned: dict[int, np.ndarray] = {}  # crops the classifier's views read upside down (a set compares them so)
        probs = self._views(blob, probs, settled, turned)
        if self.both_turns is not None:
            aspect = (boxes[:, 2] - boxes[:, 0]) / np.maximum(boxes[:, 3] - boxes[:, 1], 1e-6)
            unsure = (probs.max(axis=1) < self.views_below) & ~settled
            either = np.flatnonzero((aspect >= self.both_turns[0]) & (aspect <= self.both_turns[1]) & unsure)
            if len(either):
                other = crop_blob(crop_tiles(rgb, boxes[either], self.crop_w, self.crop_h, self.crop_pad, other_way=True))
                other_probs = self._views(other, self._class_probabilities(other, features), None, turned, len(boxes))
                probs[either] = (probs[either] + other_probs) / 2
                rows = np.concatenate([rows, either])  # a profile compares such a box both ways
                blobs.append(other)
        if profile is not None and features is not None:
            crops = np.concatenate(blobs) if len(blobs) > 1 else blob

            def other_views(picked: np.ndarray, ink: bool) -> tuple[np.ndarray, np.ndarray | None]:
                # the crops turned upside down that no view of the classifier read, and their ink views, in one run
                seen = np.array([int(i) in turned for i in picked], bool)
                fresh = [np.flip(crops[picked[~seen]], UPSIDE_DOWN)] + ([ink_view(crops[picked])] if ink else [])
                run = self.embed(np.ascontiguousarray(np.concatenate(fresh))) if sum(map(len, fresh)) else None
                upside_down = np.empty((len(picked), features[0].shape[1]), np.float32)
                if seen.any():
                    upside_down[seen] = np.stack([turned[int(i)] for i in picked[seen]])
                if run is not None:
                    upside_down[~seen] = run[:int((~seen).sum())]
                return upside_down, run[int((~seen).sum()):] if ink and run is not None else None

            return profile.blend(probs, np.concatenate(features), rows, other_views, photo_boxes, known)
        return probs, None

    def embed(self, blob: np.ndarray) -> np.ndarray:
        """The features (N, D) of N x C x H x W crops: the classifier's `features` output (its
        penultimate layer; vision.tileset.apply.embedding makes them the embeddings it compares)."""
        return self.read(blob).features

    def _check_features(self, profile: SetLook | None = None) -> None:
        """Raises ModelNotFoundError when this classifier cannot compare crops with `profile`'s: it
        has no `features` output, or the profile was learnt with another classifier."""
        if not self.has_features:
            raise ModelNotFoundError(f"the classifier has no {FEATURES!r} output: it cannot read with a tile set "
                                     "(training/feature_output.py adds it)")
        if profile is not None and profile.classifier != self.model_id:
            raise ModelNotFoundError(f"tile set {profile.name!r} was learnt with another classifier "
                                     f"({profile.classifier}, this one is {self.model_id}): learn it again")

    def _views(self, blob: np.ndarray, probs: np.ndarray, settled: np.ndarray | None = None,
               turned: dict[int, np.ndarray] | None = None, first: int = 0) -> np.ndarray:
        """`probs` of the crops `blob` averaged with their flipped views (`view_flips`) for the crops
        whose best class is under `views_below` but the `settled` ones. `turned`: the features of
        the crops turned upside down that a view read, kept by crop (its index + `first`)."""
        below = probs.max(axis=1) < self.views_below
        if settled is not None:
            below &= ~settled
        unsure = np.flatnonzero(below) if self.view_flips else np.zeros(0, np.int64)
        if len(unsure):
            views = np.concatenate([np.flip(blob[unsure], dims) for dims in self.view_flips])
            keep = turned is not None and UPSIDE_DOWN in self.view_flips
            features: list[np.ndarray] | None = [] if keep else None
            flipped = self._class_probabilities(np.ascontiguousarray(views), features)
            probs[unsure] = (probs[unsure] + flipped.reshape(len(self.view_flips), len(unsure), -1).sum(axis=0)) / (
                len(self.view_flips) + 1)
            if turned is not None and features:
                upside_down = features[0].reshape(len(self.view_flips), len(unsure), -1)[self.view_flips.index(UPSIDE_DOWN)]
                turned.update({first + int(i): f for i, f in zip(unsure, upside_down)})
        return probs

    def _class_probabilities(self, blob: np.ndarray, features: list[np.ndarray] | None = None) -> np.ndarray:
        """Softmax of the logits; with `features`, the crops' features appended to it from the
        same run."""
        if features is None or not self.has_features:
            return _softmax(self.session.run([self.output_name], {self.input_name: blob})[0])
        logits, embedding = self.session.run([self.output_name, FEATURES], {self.input_name: blob})
        features.append(embedding.reshape(len(blob), -1))
        return _softmax(logits)

    def candidates(self, probs: np.ndarray, best: int, find_score: float) -> list[list]:
        """The CANDIDATES best classes of one box as [tile, finder score x probability], best first;
        the first is always the detection's own class (`best`, the argmax)."""
        others = [int(c) for c in np.argsort(-probs, kind="stable") if c != best][: CANDIDATES - 1]
        return [[self.classes[c], round(float(find_score * probs[c]), 4)] for c in [int(best), *others]]
