"""What the analysis of a photo's detections gives (`Analysis`), and its JSON (`Analysis.to_json`).

The JSON is the API's answer and `fanshot analyze --json`'s (vision.analyze describes its keys).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Analysis:
    """The layout and score of one photo's detections: the tiles with their role, the hand JSON and
    its score (None when no winning hand is read, and then `error` says why), the warnings in
    English and as {"code", "params", "message"}, the other readings, the tile groups, and the size
    of the image the boxes are in pixels of."""

    tiles: list[dict]
    hand: dict | None
    score: dict | None
    warnings: list[str]
    warning_details: list[dict]
    alternatives: list[dict]
    error: dict | None
    groups: list[dict]
    image_size: tuple[int, int]

    @classmethod
    def of_layout(cls, layout: dict, image_size: tuple[int, int]) -> Analysis:
        """The analysis of a vision.layout.build_hand answer for an image of `image_size` (w, h)."""
        return cls(
            tiles=layout["tiles"],
            hand=layout["hand"],
            score=layout["score"],
            warnings=layout["warnings"],
            warning_details=layout["warning_details"],
            alternatives=layout["alternatives"],
            error=layout["error"],
            groups=layout["groups"],
            image_size=(int(image_size[0]), int(image_size[1])),
        )

    def to_json(self) -> dict:
        """The analysis as plain JSON data (`image_size` as [width, height])."""
        return {
            "tiles": self.tiles,
            "hand": self.hand,
            "score": self.score,
            "warnings": self.warnings,
            "warning_details": self.warning_details,
            "alternatives": self.alternatives,
            "error": self.error,
            "groups": self.groups,
            "image_size": [self.image_size[0], self.image_size[1]],
        }
