"""training.layout_eval: the warps move the true boxes with the photo, a stray is a copy of the
tile laid a step before a row or after the last tile, and a layout counts as named right only when
each learnt box's name is that of the true tile under it."""
from __future__ import annotations

import numpy as np

from training.layout_eval import _boxes_after, named_right, warp, with_stray


def _image_with_a_white_square() -> np.ndarray:
    image = np.full((200, 300, 3), 40, np.uint8)
    image[80:120, 130:170] = 255
    return image


def test_a_warp_moves_the_true_boxes_with_the_photo():
    square = np.array([[130, 80, 170, 120]], np.float32)
    for turn, narrower in ((0, 0.0), (16, 0.0), (-16, 0.0), (0, 0.3), (6, 0.3)):
        image, matrix = warp(_image_with_a_white_square(), turn, narrower)
        ys, xs = np.nonzero(image[:, :, 0] > 200)
        moved = _boxes_after(square, matrix)[0]
        assert abs(xs.mean() - (moved[0] + moved[2]) / 2) < 2 and abs(ys.mean() - (moved[1] + moved[3]) / 2) < 2
        assert image.shape[0] >= 200 and image.shape[1] >= 300 * (1 - narrower) - 1  # nothing cut off
    unchanged, identity = warp(_image_with_a_white_square(), 0, 0.0)
    assert np.array_equal(unchanged, _image_with_a_white_square()) and np.allclose(identity, np.eye(3))


def test_named_right_only_when_each_box_has_its_tiles_name():
    truth = np.array([[0, 0, 10, 14], [12, 0, 22, 14], [24, 0, 34, 14]], np.float32)
    tiles = ["W1", "W2", "W3"]
    read_half = truth / 2  # the photo read at half size
    assert named_right(read_half, tiles, truth, tiles, scale=2.0)
    assert named_right(read_half[::-1], tiles[::-1], truth, tiles, scale=2.0)  # any order of boxes
    assert not named_right(read_half, ["W2", "W3", "W1"], truth, tiles, scale=2.0)  # one place off
    assert not named_right(read_half[:2], tiles[:2], truth, tiles, scale=2.0)  # a tile left out
    assert not named_right(read_half[[0, 0, 2]], tiles, truth, tiles, scale=2.0)  # two boxes on one tile


def test_a_stray_is_a_copy_of_the_tile_a_step_before_a_row_or_after_the_last():
    image = np.full((100, 200, 3), 30, np.uint8)
    boxes = np.array([[60, 10, 80, 40], [84, 10, 104, 40], [60, 50, 80, 80]], np.float32)  # rows of 2 and 1
    for k, box in enumerate(boxes.astype(int)):
        image[box[1]:box[3], box[0]:box[2]] = 100 + 50 * k
    before_second = with_stray(image, boxes, 1, True, 1)
    assert (before_second[50:80, 39:59] == 150).all() and (before_second[:, 104:] == 30).all()
    after_last = with_stray(image, boxes, -1, False, 0)
    assert (after_last[50:80, 81:101] == 100).all() and (after_last[:, :60] == 30).all()
    assert with_stray(image, boxes, 0, True, 0) is not None and with_stray(image[:, 50:], boxes - [50, 0, 50, 0], 0, True, 0) is None
