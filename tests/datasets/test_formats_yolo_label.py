"""One reader of YOLO label lines (datasets.formats.read_yolo_label), used by read_yolo and by the
finder's one-class dataset (training.data)."""
from __future__ import annotations

import pytest
from PIL import Image

from datasets import formats
from training.data import FinderDataError, tile_label_lines
from vision.classes import CLASSES


def test_boxes_keep_the_numbers_as_written(tmp_path):
    label = tmp_path / "a.txt"
    label.write_text("3 0.5 0.25 0.100000 0.2\n\n  41  1e-1 .5 0.3 0.4 \n")
    assert formats.read_yolo_label(label, 43) == [(3, ("0.5", "0.25", "0.100000", "0.2")),
                                                  (41, ("1e-1", ".5", "0.3", "0.4"))]
    assert formats.read_yolo_label(tmp_path / "none.txt", 43) == []  # no file: an image without tiles


@pytest.mark.parametrize("line", ["43 0.5 0.5 0.1 0.1", "-1 0.5 0.5 0.1 0.1", "1.0 0.5 0.5 0.1 0.1",
                                  "2 0.5 0.5 0.1", "2 0.5 x 0.1 0.1", "B5 0.5 0.5 0.1 0.1",
                                  "2 nan 0.5 0.1 0.1", "2 0.5 inf 0.1 0.1", "2 0.5 0.5 1e400 0.1"])  # nan, inf: a traceback once
def test_a_bad_line_names_its_file_and_line(tmp_path, line):
    label = tmp_path / "a.txt"
    label.write_text(f"0 0.5 0.5 0.1 0.1\n{line}\n")
    with pytest.raises(formats.DatasetError, match=r"a\.txt:2: bad YOLO line"):
        formats.read_yolo_label(label, 43)
    with pytest.raises(FinderDataError, match=r"a\.txt:2: bad YOLO line"):
        tile_label_lines(label, 43)


def test_finder_labels_are_the_same_boxes_in_class_zero(tmp_path):
    label = tmp_path / "a.txt"
    label.write_text("7 0.51234567 0.25 0.1 0.2\n42 0.1 0.2 0.03 0.04\n")
    assert tile_label_lines(label, 43) == ["0 0.51234567 0.25 0.1 0.2", "0 0.1 0.2 0.03 0.04"]


def _yolo_folder(root, size, label_text):
    """A YOLO folder of one image x.jpg of `size` (w, h) with `label_text` as its labels."""
    (root / "images").mkdir()
    (root / "labels").mkdir()
    Image.new("RGB", size).save(root / "images" / "x.jpg")
    formats.write_data_yaml(root)
    (root / "labels" / "x.txt").write_text(label_text)


def test_read_yolo_refuses_a_negative_class_id(tmp_path):
    # before one reader served both, read_yolo took -1 as the last class name
    _yolo_folder(tmp_path, (100, 50), "-1 0.5 0.5 0.2 0.2\n")
    with pytest.raises(formats.DatasetError, match="x.txt:1"):
        formats.read_yolo(tmp_path)
    (tmp_path / "labels" / "x.txt").write_text("0 0.5 0.5 0.2 0.2\n")
    [record] = formats.read_yolo(tmp_path)
    assert record["boxes"] == [{"tile": CLASSES[0], "box": [40, 20, 60, 30]}]


def test_a_polygon_line_is_the_box_around_its_points_clipped_to_the_image(tmp_path):
    # YOLO segmentation labels (Roboflow exports polygons so): once refused, or cut to a wrong box
    label = tmp_path / "a.txt"
    label.write_text("2 0.1 0.2 0.3 0.1 0.35 0.5 0.05 0.4\n7 -0.1 0.9 0.2 0.8 0.1 1.2\n")
    [(c1, box1), (c2, box2)] = formats.read_yolo_label(label, 43)
    assert (c1, c2) == (2, 7)
    assert [float(v) for v in box1] == pytest.approx([0.2, 0.3, 0.3, 0.4])
    assert [float(v) for v in box2] == pytest.approx([0.1, 0.9, 0.2, 0.2])  # x 0..0.2, y 0.8..1
    assert tile_label_lines(label, 43)[0] == "0 0.200000 0.300000 0.300000 0.400000"


def test_a_polygon_in_a_yolo_folder_is_read_as_its_box(tmp_path):
    _yolo_folder(tmp_path, (200, 100), "0 0.1 0.2 0.3 0.2 0.3 0.6 0.1 0.6\n")
    [record] = formats.read_yolo(tmp_path)
    assert record["boxes"] == [{"tile": CLASSES[0], "box": [20, 20, 60, 60]}]


@pytest.mark.parametrize("line", ["2 0.5 0.5 0.1 0.1 0.9", "2 0.1 0.1 0.2 0.1 0.2 0.2 0.1"])
def test_a_score_column_or_an_odd_count_of_points_is_refused_not_cut_to_a_box(tmp_path, line):
    # a score column, or a polygon with a coordinate missing, were cut to the first four numbers once
    label = tmp_path / "a.txt"
    label.write_text(line + "\n")
    with pytest.raises(formats.DatasetError, match=r"a\.txt:1: bad YOLO line"):
        formats.read_yolo_label(label, 43)
