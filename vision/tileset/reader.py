"""A detector that reads with one tile set's profile: what the analysis is given when the player
chose a set (the profile goes with each call; nothing is kept between calls)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.detections import Detections
from vision.detector import Detector
from vision.photo import Photo
from vision.tileset.profile import TilesetProfile


@dataclass(frozen=True)
class TilesetReader:
    """A vision.detections.TileDetector: `detector` reading every box with `profile`."""

    detector: Detector
    profile: TilesetProfile

    def detect(
        self, rgb: np.ndarray, *, weak_floor: float | None = None, closer: bool = False, upside_down: bool = False,
        photo: Photo | None = None,
    ) -> Detections:
        return self.detector.detect(rgb, weak_floor=weak_floor, closer=closer, upside_down=upside_down,
                                    photo=photo, tileset=self.profile)


def with_tileset(detector: Detector, profile: TilesetProfile | None) -> Detector | TilesetReader:
    """`detector` reading with `profile`, or `detector` itself without one."""
    return detector if profile is None else TilesetReader(detector, profile)
