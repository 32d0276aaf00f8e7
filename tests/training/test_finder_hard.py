"""`fanshot eval --finder-hard TILE[:FACTOR]` (training.finder_hard): the finder's boxes on one
tile's true boxes score a share of what they would, as a set's face the finder hardly finds."""
from __future__ import annotations

import numpy as np

from fanshot.cli import main
from training.finder_hard import FinderHardOn, true_shares
from vision.finder import FoundTiles


class _Finder:
    conf = 0.35

    def find(self, rgb, floor, closer=False, upside_down=False):
        boxes = np.array([[0, 0, 10, 20], [10, 0, 20, 20], [20, 0, 30, 20]], np.float32)
        weak = (np.array([[30, 0, 40, 20]], np.float32), np.array([0.2], np.float32)) if floor is not None else None
        return FoundTiles((boxes, np.array([0.9, 0.8, 0.7], np.float32)), weak)


def test_boxes_on_the_tile_fall_under_the_threshold_or_out_of_sight():
    finder = _Finder()
    hard = FinderHardOn(finder, 0.1)  # type: ignore[arg-type]
    rgb = np.zeros((20, 40, 3), np.uint8)
    record = {"width": 40, "height": 20, "boxes": [{"tile": "J3", "box": [10, 0, 20, 20]},
                                                   {"tile": "J3", "box": [30, 0, 40, 20]},
                                                   {"tile": "W1", "box": [0, 0, 10, 20]}]}
    hard.look_at(true_shares(record, "J3"))
    found = finder.find(rgb, 0.05)
    assert found.tiles[0][:, 0].tolist() == [0, 20] and np.allclose(found.tiles[1], [0.9, 0.7])
    assert found.weak is not None and found.weak[0][:, 0].tolist() == [10] and np.allclose(found.weak[1], [0.08])
    without_floor = finder.find(rgb, None)
    assert without_floor.weak is None and without_floor.tiles[0][:, 0].tolist() == [0, 20]
    hard.look_at(true_shares(record, "W9"))  # an image without the tile: as the finder found it
    assert np.allclose(finder.find(rgb, 0.05).tiles[1], [0.9, 0.8, 0.7])


def test_a_bad_finder_hard_value_is_refused_before_anything_runs(tmp_path, capsys):
    for value in ("XX", "J3:2", "J3:half"):
        assert main(["eval", "--data", str(tmp_path), "--finder-hard", value]) == 2
        assert "--finder-hard" in capsys.readouterr().err
