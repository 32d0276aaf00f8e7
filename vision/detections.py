"""What a detector answers (`Detection`, `Detections`) and what it must offer (`TileDetector`)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, TypedDict

import numpy as np

from vision.photo import Photo


class _Found(TypedDict):
    tile: str
    box: list[float]
    score: float


class Detection(_Found, total=False):
    """One tile found: its class, its box [x1, y1, x2, y2] (pixels of the image detected), its score
    (finder score x class probability), and the detector's best classes as [tile, score], best
    first, the first being `tile` and `score` (vision.one_set and vision.reading_repair use them;
    detections of other sources, as a scene's true boxes, may have none)."""

    candidates: list[list]


@dataclass(frozen=True)
class Detections:
    """The tiles found in one image, left to right; the *weak* boxes apart (asked for with a
    floor: boxes the finder scored from it up to its threshold, named like the tiles, none the same
    tile as a tile); and whether a closer look (`closer=True`) could read the image otherwise than
    this look did."""

    tiles: list[Detection]
    weak: list[Detection] = field(default_factory=list)
    closer_differs: bool = True


class TileDetector(Protocol):
    """Finds and names mahjong tiles in an RGB image (vision.detector.Detector, and stand-ins)."""

    def detect(
        self, rgb: np.ndarray, *, weak_floor: float | None = None, closer: bool = False, upside_down: bool = False,
        photo: Photo | None = None,
    ) -> Detections:
        """The tiles in `rgb` (H, W, 3 uint8 RGB); with `weak_floor` the weak boxes from it up.
        `closer`: the finder's zoomed look at the tiles even when it shows them hardly larger;
        `upside_down`: the finder looks at the image turned half a turn (vision.analyze.read_hand's
        other looks). `photo`: the photo `rgb` was read from (vision.photo.read_photo), whose bytes
        decode sharper for tiles found small."""
        ...
