"""A reading in doubt (no winning hand, an unusual layout) gets a second, closer look
(vision.analyze.read_hand; the detector's `closer` look, vision.detector.Detector._find_tiles)."""
from __future__ import annotations

import numpy as np
import pytest

from vision.analyze import analyze_image, doubts, read_hand
from test_analyze import png_bytes
from test_reading_repair import SIZE, W7, detections, misread, true_total

scoring = pytest.importorskip("scoring")

PHOTO = np.zeros((SIZE[1], SIZE[0], 3), np.uint8)


class TwoLooks:
    """A detector whose closer look finds `closer` where its first look found `first`."""

    def __init__(self, first, closer):
        self.first, self.closer, self.looks = first, closer, []

    def detect_with_weak(self, rgb, floor, closer=False):
        self.looks.append(closer)
        return [dict(d) for d in (self.closer if closer else self.first)], []


def no_hand():
    """The plain hand with its 七万 read as 东 and no other choice: no winning hand, no repair."""
    return misread(detections(), W7, [("F1", 0.8)])


def test_a_reading_that_makes_no_hand_is_read_again_closer_and_the_winning_reading_kept():
    detector = TwoLooks(no_hand(), detections())
    found, analysis = read_hand(detector, PHOTO)
    assert detector.looks == [False, True]
    assert analysis["score"]["total"] == true_total()
    assert [d["tile"] for d in found] == [d["tile"] for d in detections()]


def test_a_reading_in_no_doubt_is_read_once():
    detector = TwoLooks(detections(), no_hand())
    _, analysis = read_hand(detector, PHOTO)
    assert detector.looks == [False]
    assert analysis["score"]["total"] == true_total()


def test_the_first_reading_stays_when_the_closer_look_is_no_better():
    detector = TwoLooks(no_hand(), no_hand())
    found, analysis = read_hand(detector, PHOTO)
    assert detector.looks == [False, True]
    assert analysis["score"] is None and analysis["error"] is not None
    assert doubts(analysis)[0]


def test_a_doubtful_reading_is_not_read_again_when_a_closer_look_would_be_the_same():
    detector = TwoLooks(no_hand(), detections())
    detector.looks_closer = lambda rgb: False  # the first look already saw the tiles as close as it can
    _, analysis = read_hand(detector, PHOTO)
    assert detector.looks == [False]
    assert analysis["score"] is None


def test_analyze_image_looks_again_at_a_doubtful_photo():
    detector = TwoLooks(no_hand(), detections())
    assert analyze_image(png_bytes(), detector=detector)["score"]["total"] == true_total()
    assert detector.looks == [False, True]


def test_the_shipped_model_reads_a_meld_right_on_the_second_look():
    """Scene 53 of seed 960000: the first look's box on the kong's sideways 一筒 is nearly square
    (66 x 71 px; the tile as drawn is 68 x 58), so the layout takes the kong into the concealed
    row (an unusual layout, total 72); the closer look's boxes read the kong (the true 73)."""
    from datasets.synth.generate import make_example
    from vision.analyze import analyze_detections, detect_hand
    from vision.detector import get_detector

    example = make_example(960000, 53, [1280])
    image, record = example["image"], example["record"]
    context, size = record["hand"]["context"], (image.shape[1], image.shape[0])
    detector = get_detector()
    first = analyze_detections(detect_hand(detector, image), size, context)
    assert first["score"]["total"] != record["score"]["total"] and doubts(first)[1]
    _, analysis = read_hand(detector, image, context)
    assert analysis["score"]["total"] == record["score"]["total"] == 73
