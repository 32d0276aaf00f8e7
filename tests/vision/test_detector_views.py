"""Merging the finder's two views (the photo and its mirror image): vision.detector.fuse_views."""
import numpy as np
import pytest

from vision.detector import fuse_views


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
