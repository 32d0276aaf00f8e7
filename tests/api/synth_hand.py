"""The committed synthetic photo of the API tests, and a stand-in detector that reads it exactly."""
from __future__ import annotations

import json
from pathlib import Path

from vision.detections import Detections

DATA = Path(__file__).resolve().parent / "data"
SYNTH_PHOTO = DATA / "synth_hand.jpg"  # `fanshot synth --seed 4242 --long-side 1600 --n 6`, image 5
SYNTH_RECORD = json.loads((DATA / "synth_hand.json").read_text(encoding="utf-8"))  # what it was drawn with


class TrueBoxes:
    """A stand-in detector that finds exactly the tiles the synthetic photo was drawn with
    (scaled to the image it is given), so a test checks what is around the model."""

    def __init__(self, record: dict = SYNTH_RECORD):
        self.record = record
        self.sizes: list[tuple[int, int]] = []

    def detect(self, rgb, **_):
        height, width = rgb.shape[:2]
        self.sizes.append((width, height))
        scale = width / self.record["width"]
        return Detections([{"tile": b["tile"], "box": [round(v * scale, 1) for v in b["box"]], "score": 0.99}
                           for b in self.record["boxes"]])
