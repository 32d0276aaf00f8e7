"""Merging the finder's two views (the photo and its mirror image): vision.boxes.fuse_views."""
import numpy as np
import pytest

from vision.boxes import fuse_views


def test_a_tile_seen_in_both_views_becomes_one_box_with_the_mean_score():
    boxes, scores = fuse_views([[0, 0, 10, 14]], [0.8], [[1, 0, 11, 14]], [0.4], conf=0.25)
    assert len(boxes) == 1
    assert scores[0] == pytest.approx(0.6)
    # the box is the score-weighted mean: x1 = (0 * 0.8 + 1 * 0.4) / 1.2
    np.testing.assert_allclose(boxes[0], [1 / 3, 0, 10 + 1 / 3, 14], atol=1e-5)


def test_a_tile_seen_in_one_view_keeps_half_its_score_and_must_still_pass_the_threshold():
    boxes, scores = fuse_views([[0, 0, 10, 14], [30, 0, 40, 14]], [0.9, 0.4], [[0, 0, 10, 14]], [0.9], conf=0.25)
    assert scores.tolist() == pytest.approx([0.9])  # the lone 0.4 box drops to 0.2 < 0.25
    boxes, scores = fuse_views([[30, 0, 40, 14]], [0.6], [], [], conf=0.25)
    assert scores.tolist() == pytest.approx([0.3]) and boxes.shape == (1, 4)


def test_boxes_of_one_view_are_never_merged_with_each_other():
    # two neighbouring tiles found in the first view only, overlapping a little: both stay
    boxes, scores = fuse_views([[0, 0, 10, 14], [6, 0, 16, 14]], [0.9, 0.9], [], [], conf=0.25)
    assert len(boxes) == 2


def test_each_box_takes_the_best_overlapping_partner():
    a = [[0, 0, 10, 14], [10, 0, 20, 14]]
    b = [[9, 0, 19, 14], [0.5, 0, 10.5, 14]]  # b[1] matches a[0], b[0] matches a[1]
    boxes, scores = fuse_views(a, [0.9, 0.8], b, [0.7, 0.9], conf=0.25)
    assert len(boxes) == 2
    assert sorted(scores.tolist()) == pytest.approx([0.75, 0.9])


def test_no_boxes_at_all():
    boxes, scores = fuse_views([], [], [], [], conf=0.25)
    assert boxes.shape == (0, 4) and scores.shape == (0,)


class _BrightPatchFinder:
    """A stand-in finder session: one box around the bright pixels of whatever it is shown,
    scored `left_score` when the patch lies in the left half of its input, else `right_score`
    (so the photo and its mirror image score differently)."""

    def __init__(self, left_score: float, right_score: float):
        self.scores = left_score, right_score
        self.shown = []

    def run(self, _outputs, feed):
        blob = next(iter(feed.values()))[0]
        self.shown.append(blob)
        ys, xs = np.nonzero(blob.min(axis=0) > 0.9)
        x1, x2, y1, y2 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        score = self.scores[0] if (x1 + x2) / 2 < blob.shape[2] / 2 else self.scores[1]
        head = np.array([[(x1 + x2) / 2], [(y1 + y2) / 2], [x2 - x1], [y2 - y1], [score]], np.float32)
        return [head[None]]


def test_the_mirror_view_maps_its_boxes_back_onto_the_photo(monkeypatch):
    from vision.detector import Detector
    from vision.model_spec import DEFAULT_MODEL_DIR

    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    detector = Detector(DEFAULT_MODEL_DIR, threads=1)
    finder = _BrightPatchFinder(left_score=0.8, right_score=0.6)
    monkeypatch.setattr(detector.finder, "session", finder)
    monkeypatch.setattr(detector.finder, "mirror", True)
    monkeypatch.setattr(detector.finder, "zoom_below", 0)
    photo = np.zeros((600, 1000, 3), np.uint8)
    photo[200:400, 100:300] = 255  # a bright patch in the left part of a wide photo
    boxes, scores = detector.finder.find_tiles(photo)
    assert len(finder.shown) == 2  # the letterboxed photo, then its mirror image
    np.testing.assert_array_equal(finder.shown[1], finder.shown[0][:, :, ::-1])
    assert len(boxes) == 1
    np.testing.assert_allclose(boxes[0], [100, 200, 300, 400], atol=4)  # both views agree on the place
    assert scores[0] == pytest.approx((0.8 + 0.6) / 2)  # one box, the two views' mean score


def test_boxes_at_the_threshold_are_the_same_decoded_alone_or_with_a_floor():
    """One decoding at the floor serves the threshold too (a box's fate in NMS depends only on the
    boxes scoring above it): on the test photos, the boxes at the threshold equal a decoding at it."""
    from pathlib import Path

    from vision.detector import Detector
    from vision.finder import letterbox
    from vision.model_spec import DEFAULT_MODEL_DIR
    from vision.photo import read_photo

    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    finder = Detector(DEFAULT_MODEL_DIR, threads=1).finder
    photos = sorted((Path(__file__).parent.parent / "data" / "detector").glob("*.jpg"))
    weak = 0
    for path in photos:
        canvas, _, _ = letterbox(read_photo(path.read_bytes()).image, finder.size, finder.stride)
        for mirrored in (False, True):
            (alone_boxes, alone_scores), = finder._boxes(canvas, (finder.conf,), mirrored)
            (boxes, scores), (low_boxes, low_scores) = finder._boxes(canvas, (finder.conf, 0.05), mirrored)
            np.testing.assert_array_equal(boxes, alone_boxes)
            np.testing.assert_array_equal(scores, alone_scores)
            weak += int((low_scores < finder.conf).sum())
    assert len(photos) >= 5 and weak > 0  # the floor did find boxes under the threshold
