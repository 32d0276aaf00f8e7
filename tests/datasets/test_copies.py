"""`fanshot dataset copies`: the augmented copies of a photo registered to each other, their
label areas compared (datasets.copies)."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets import copies
from datasets.formats import write_yolo
from fanshot.cli import main


def _texture(seed: int = 0) -> np.ndarray:
    noise = np.random.default_rng(seed).integers(0, 255, (240, 320, 3)).astype(np.uint8)
    return cv2.normalize(cv2.GaussianBlur(noise, (0, 0), 2.0), None, 0, 255, cv2.NORM_MINMAX)  # SIFT needs contrast


TILES = [[40, 60, 80, 116], [90, 60, 130, 116], [140, 60, 180, 116], [190, 60, 230, 116]]


def _grown(box, factor):
    cx, cy, w, h = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, box[2] - box[0], box[3] - box[1]
    return [cx - w * factor / 2, cy - h * factor / 2, cx + w * factor / 2, cy + h * factor / 2]


@pytest.fixture
def photo_copies(tmp_path):
    """Three copies of one photo (as is; moved and with boxes twice the tiles' area; mirrored) and a
    photo with no copy, in a YOLO folder with Roboflow's names."""
    image = _texture()
    shift = np.float32([[1, 0, 12], [0, 1, -9]])
    moved = cv2.warpAffine(image, shift, (320, 240), borderMode=cv2.BORDER_REFLECT)
    mirrored = cv2.flip(image, 1)
    records = []
    for name, picture, boxes in (
        ("hand_jpg.rf.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.jpg", image, TILES),
        ("hand_jpg.rf.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.jpg", moved, [_grown([b[0] + 12, b[1] - 9, b[2] + 12, b[3] - 9], 2 ** 0.5) for b in TILES]),
        ("hand_jpg.rf.cccccccccccccccccccccccccccccccc.jpg", mirrored, [[319 - b[2], b[1], 319 - b[0], b[3]] for b in TILES]),
        ("other_jpg.rf.dddddddddddddddddddddddddddddddd.jpg", _texture(1), TILES[:2]),
    ):
        path = tmp_path / "src" / name
        path.parent.mkdir(exist_ok=True)
        cv2.imwrite(str(path), picture)
        records.append({"file": str(path), "width": 320, "height": 240,
                        "boxes": [{"tile": "B5", "box": b} for b in boxes]})
    write_yolo(records, tmp_path / "set")
    return tmp_path / "set"


def test_register_finds_a_mirrored_turned_copy():
    image = cv2.cvtColor(_texture(), cv2.COLOR_RGB2GRAY)
    turn = cv2.getRotationMatrix2D((160, 120), 20, 1.0)
    copy = cv2.warpAffine(cv2.flip(image, 1), turn, (320, 240), borderMode=cv2.BORDER_REFLECT)
    matrix, inliers = copies.register(image, copy)
    assert inliers >= copies.MIN_INLIERS
    flip = np.array([[-1, 0, 319], [0, 1, 0], [0, 0, 1]], np.float64)
    truth = turn @ flip
    points = np.array([[50, 40, 1], [270, 200, 1], [160, 120, 1]], np.float64)
    assert np.abs(points @ matrix.T - points @ truth.T).max() < 2.0
    assert abs(np.linalg.det(matrix[:, :2])) == pytest.approx(1.0, abs=0.03)


def test_the_copy_with_boxes_larger_than_its_siblings_is_not_consistent(photo_copies):
    from datasets.formats import read_yolo

    rows = copies.compare_copies(read_yolo(photo_copies))
    by_name = {row["file"].rsplit("/", 1)[-1]: row for row in rows}
    assert by_name["hand_jpg.rf.bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb.jpg"]["ratios"] == pytest.approx([2.0, 2.0], rel=0.05)
    assert by_name["hand_jpg.rf.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.jpg"]["ratios"] == pytest.approx([0.5, 1.0], rel=0.05)
    assert by_name["other_jpg.rf.dddddddddddddddddddddddddddddddd.jpg"]["ratios"] == []  # no copy to compare with
    kept = sorted(name.rsplit("/", 1)[-1] for name in copies.consistent(rows))
    assert kept == ["hand_jpg.rf.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.jpg", "hand_jpg.rf.cccccccccccccccccccccccccccccccc.jpg"]


def test_labels_carried_onto_a_sibling_agree_where_they_fit_and_not_where_one_copy_is_loose(photo_copies):
    from datasets.formats import read_yolo

    rows = copies.compare_copies(read_yolo(photo_copies))
    by_letter = {row["file"].rsplit(".rf.", 1)[-1][0]: row["agreement"] for row in rows}
    # the tight copies' labels against each other (a, c: mirrored) at IoU near 1; against the copy
    # whose boxes are twice the tiles' area (b) at 1/2, a tight box inside a loose one
    assert by_letter["a"] == pytest.approx([0.5] * 4 + [1.0] * 4, abs=0.05)  # b's labels, then c's
    assert by_letter["b"] == pytest.approx([0.5] * 8, abs=0.05)
    assert by_letter["c"] == pytest.approx([1.0] * 4 + [0.5] * 4, abs=0.05)
    assert by_letter["d"] == []  # a photo with no copy
    agreement = copies.label_agreement(rows)
    assert agreement["labels"] == 24  # 3 copies x 2 siblings x 4 labels
    assert agreement["median_iou"] == pytest.approx(0.5, abs=0.05)  # 16 of the 24 are b's, or onto b
    assert agreement["share_at_iou50"] >= 8 / 24  # at least the tight copies' (b's lie at the edge, 0.5)
    assert copies.label_agreement([r for r in rows if not r["agreement"]]) is None


def test_matched_ious_pair_each_label_once_and_only_with_its_own_tile():
    own = [{"tile": "B5", "box": [0, 0, 10, 10]}, {"tile": "B5", "box": [20, 0, 30, 10]},
           {"tile": "W1", "box": [40, 0, 50, 10]}]
    other = [{"tile": "B5", "box": [0, 0, 10, 10]}, {"tile": "W2", "box": [40, 0, 50, 10]}]
    assert copies.matched_ious(own, other) == [1.0, 0.0, 0.0]  # one B5 box for two; W1 is no W2
    turned = copies.carried([{"tile": "B5", "box": [0, 0, 10, 20]}], np.array([[0, -1, 100], [1, 0, 0]], float))
    assert turned == [{"tile": "B5", "box": [80.0, 0.0, 100.0, 10.0]}]


def test_cli_writes_the_consistent_copies_for_eval_and_refuses_bad_options(photo_copies, tmp_path, capsys):
    out = tmp_path / "consistent.txt"
    assert main(["dataset", "copies", str(photo_copies), "--out", str(out)]) == 0
    report = capsys.readouterr().out
    assert "2 of 4 copies consistent" in report and "1 without a registered sibling" in report
    assert "labels carried onto a registered sibling copy:" in report and "of 24 match" in report
    assert sorted(line.rsplit("/", 1)[-1] for line in out.read_text().splitlines()) == [
        "hand_jpg.rf.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.jpg", "hand_jpg.rf.cccccccccccccccccccccccccccccccc.jpg"]
    assert main(["dataset", "copies", str(photo_copies), "--max-ratio", "0.5"]) == 2
    assert main(["dataset", "copies", str(photo_copies), "--out", str(tmp_path / "missing" / "x.txt")]) == 2
    listed = tmp_path / "one.txt"
    listed.write_text("images/nothing-like-it.jpg\n")
    assert main(["dataset", "copies", str(photo_copies), "--list", str(listed)]) == 2
    assert "named in" in capsys.readouterr().err
