"""`fanshot train hard-crops`: which crops are hard, and the strays cut by the frame left out
(numpy only; the checkpoint's probabilities are stood in for)."""
from __future__ import annotations

import json

import numpy as np

from fanshot.cli import main
from training import hard as train_hard
from training.hard import cut_strays, hard


def test_a_crop_named_wrong_or_unsure_is_hard():
    probabilities = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.55, 0.45, 0.0], [0.3, 0.3, 0.4]])
    labels = np.array([0, 0, 0, 2])
    # sure and right / wrong / right but unsure / right at 0.4
    assert hard(probabilities, labels).tolist() == [False, True, True, True]
    assert hard(probabilities, labels, unsure_below=0.35).tolist() == [False, True, False, False]


def _records(folder, boxes_per_image):
    (folder / "records").mkdir(parents=True)
    for i, boxes in enumerate(boxes_per_image):
        (folder / "records" / f"s_{i:03d}.json").write_text(json.dumps({"width": 100, "height": 80, "boxes": boxes}))


def test_strays_touching_the_frame_are_found_in_the_crops_order(tmp_path):
    _records(tmp_path, [
        [{"tile": "W1", "box": [0, 10, 20, 40], "role": "concealed"},  # a hand tile at the edge: kept
         {"tile": "W2", "box": [80, 10, 100, 40], "role": "stray"},  # cut by the right edge
         {"tile": "W3", "box": [40, 50, 60, 70], "role": "stray"}],  # clear of the frame
        [{"tile": "B1", "box": [30, 0, 50, 20], "role": "stray"},  # cut by the top
         {"tile": "B2", "box": [90, 40, 100, 60], "role": "stray", "ignore": True}],  # not in labels/: no crop
    ])
    assert cut_strays(tmp_path / "records").tolist() == [False, True, False, True]


def test_the_command_writes_the_hard_crops_but_no_cut_stray(tmp_path, monkeypatch, capsys):
    _records(tmp_path / "set", [[{"tile": "W1", "box": [10, 10, 30, 40], "role": "concealed"},
                                 {"tile": "W2", "box": [80, 10, 100, 40], "role": "stray"},
                                 {"tile": "W3", "box": [40, 10, 60, 40], "role": "stray"}]])
    crops = np.arange(3, dtype=np.uint8)[:, None, None, None] * np.ones((3, 96, 72, 3), np.uint8)
    np.savez(tmp_path / "set.npz", crops=crops, labels=np.array([0, 1, 2]))
    # all three named wrong: the cut stray (crop 1) still stays out
    monkeypatch.setattr(train_hard, "class_probabilities", lambda checkpoint, contexts: np.eye(43)[[5, 5, 5]])
    argv = ["train", "hard-crops", "--crops", str(tmp_path / "set.npz"), "--classifier", "x.pt",
            "--out", str(tmp_path / "hard.npz")]
    assert main(argv + ["--data", str(tmp_path / "set")]) == 0
    assert json.loads(capsys.readouterr().out) == {str(tmp_path / "set.npz"): {"crops": 3, "hard": 2}}
    with np.load(tmp_path / "hard.npz") as out:
        assert out["labels"].tolist() == [0, 2] and out["crops"][:, 0, 0, 0].tolist() == [0, 2]
    # a folder that is not the one the crops came from is a clear error
    _records(tmp_path / "other", [[{"tile": "W1", "box": [10, 10, 30, 40], "role": "concealed"}]])
    assert main(argv + ["--data", str(tmp_path / "other")]) == 2
    assert "not the folder these crops were cut from" in capsys.readouterr().err
