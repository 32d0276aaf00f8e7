"""training.layout_eval: the warps move the true boxes with the photo, and a layout counts as named
right only when each learnt box's name is that of the true tile under it."""
from __future__ import annotations

import numpy as np

from training.layout_eval import _boxes_after, named_right, warp


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
