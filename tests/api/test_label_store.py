"""The labelling store: YOLO txt beside the image, pre-label once, save, undo, keys."""
from __future__ import annotations

import json

import pytest
from PIL import Image

from api.label.boxes import boxes_to_yolo, yolo_to_boxes
from api.label.errors import LabelError
from api.label.keys import class_table, parse_key
from api.label.store import LabelStore
from vision.detections import Detections


class FakeDetector:
    """Stands in for vision.detector: fixed boxes, counts its calls."""

    model_version = "fake-1"

    def __init__(self, detections):
        self.detections = detections
        self.calls = 0

    def detect(self, rgb, **_):
        self.calls += 1
        return Detections([dict(d) for d in self.detections])


DETECTIONS = [
    {"tile": "W1", "box": [10, 10, 50, 70], "score": 0.95},
    {"tile": "B4", "box": [60, 10, 100, 70], "score": 0.41},
    {"tile": "J2", "box": [110, 10, 150, 70], "score": 0.77},
]


def make_image(path, size=(200, 100), color=(200, 180, 150)):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path)
    return path


@pytest.fixture
def folder(tmp_path):
    make_image(tmp_path / "a.jpg")
    make_image(tmp_path / "sub" / "b.png")
    return tmp_path


@pytest.fixture
def detector():
    return FakeDetector(DETECTIONS)


@pytest.fixture
def store(folder, detector):
    return LabelStore(folder, detector_factory=lambda: detector)


def yolo_classes(path):
    return [int(line.split()[0]) for line in path.read_text().splitlines()]


def test_yolo_round_trip_in_pixels():
    boxes = [{"tile": "B5", "box": [20.0, 10.0, 60.0, 90.0]}, {"tile": "BACK", "box": [0.0, 0.0, 200.0, 100.0]}]
    text = boxes_to_yolo(boxes, 200, 100)
    assert text.splitlines()[0] == "22 0.200000 0.500000 0.200000 0.800000"
    assert text.splitlines()[1].startswith("42 ")
    assert yolo_to_boxes(text, 200, 100) == boxes


def test_boxes_are_clipped_to_the_image():
    text = boxes_to_yolo([{"tile": "W1", "box": [-10, -5, 250, 50]}], 200, 100)
    assert yolo_to_boxes(text, 200, 100)[0]["box"] == [0.0, 0.0, 200.0, 50.0]


@pytest.mark.parametrize("line", ["43 0.5 0.5 0.1 0.1", "x 0.5 0.5 0.1 0.1", "1 0.5 0.5 0.1", "1 0.5 0.5 0.1 0.1 0.3",
                                  "1 nan 0.5 0.1 0.1", "1 0.5 0.5 inf 0.1"])  # nan: a box of nan pixels once
def test_malformed_yolo_line_is_a_clear_error(line):
    with pytest.raises(LabelError) as info:
        yolo_to_boxes(line, 100, 100)
    assert info.value.status == 422 and "label file:1: bad YOLO line" in info.value.message


def test_first_load_prelabels_and_saves_least_confident_first(store, folder, detector):
    doc = store.load("a.jpg")
    assert (doc["width"], doc["height"]) == (200, 100)
    assert [b["tile"] for b in doc["boxes"]] == ["B4", "J2", "W1"]
    assert [b["score"] for b in doc["boxes"]] == [0.41, 0.77, 0.95]
    assert doc["labelled"] and not doc["reviewed"] and doc["undo"] == 0
    label = folder / "a.txt"
    assert sorted(yolo_classes(label)) == sorted([0, 21, 32])
    assert (folder / ".fanshot" / "a.jpg.json").is_file()
    assert detector.calls == 1


def test_an_image_with_labels_is_never_prelabelled_again(store, folder, detector):
    (folder / "a.txt").write_text("22 0.5 0.5 0.2 0.4\n")
    doc = store.load("a.jpg")
    assert detector.calls == 0
    assert [(b["tile"], b["score"]) for b in doc["boxes"]] == [("B5", None)]
    store.load("a.jpg")
    LabelStore(folder, detector_factory=lambda: detector).load("a.jpg")  # a restarted server
    assert detector.calls == 0
    assert (folder / "a.txt").read_text() == "22 0.5 0.5 0.2 0.4\n"


def test_save_writes_yolo_beside_the_image_and_undo_restores(store, folder):
    first = store.load("sub/b.png")
    boxes = first["boxes"]
    boxes[0] = {"tile": "B5", "box": boxes[0]["box"], "score": None}  # fix the least confident
    saved = store.save("sub/b.png", boxes)
    assert 22 in yolo_classes(folder / "sub" / "b.txt") and 21 not in yolo_classes(folder / "sub" / "b.txt")
    assert saved["reviewed"] and saved["undo"] == 1
    assert [b["tile"] for b in saved["boxes"]] == ["J2", "W1", "B5"]  # checked boxes go last

    store.save("sub/b.png", saved["boxes"][1:])  # delete J2
    assert sorted(yolo_classes(folder / "sub" / "b.txt")) == [0, 22]

    back = store.undo("sub/b.png")
    assert sorted(yolo_classes(folder / "sub" / "b.txt")) == [0, 22, 32]
    back = store.undo("sub/b.png")
    assert sorted(yolo_classes(folder / "sub" / "b.txt")) == [0, 21, 32]
    assert [b["score"] for b in back["boxes"]] == [0.41, 0.77, 0.95]  # scores come back too
    assert not back["reviewed"] and back["undo"] == 0
    with pytest.raises(LabelError) as info:
        store.undo("sub/b.png")
    assert info.value.status == 409


def test_undo_history_survives_a_restart(store, folder, detector):
    doc = store.load("a.jpg")
    store.save("a.jpg", doc["boxes"][1:])
    restarted = LabelStore(folder, detector_factory=lambda: detector)
    assert restarted.load("a.jpg")["undo"] == 1
    assert len(restarted.undo("a.jpg")["boxes"]) == 3


def test_save_is_atomic_no_temp_files_left(store, folder):
    doc = store.load("a.jpg")
    for _ in range(3):
        store.save("a.jpg", doc["boxes"])
    leftovers = [p.name for p in folder.rglob("*.tmp")]
    assert leftovers == []


def test_label_file_edited_outside_drops_stale_scores(store, folder):
    store.load("a.jpg")
    (folder / "a.txt").write_text("5 0.5 0.5 0.1 0.1\n")
    doc = store.load("a.jpg")
    assert [(b["tile"], b["score"]) for b in doc["boxes"]] == [("W6", None)]
    assert doc["reviewed"]


def test_mark_reviewed_and_listing(store):
    store.load("a.jpg")
    listing = {e["path"]: e for e in store.list_images()[0]}
    assert listing["a.jpg"] == {"path": "a.jpg", "labelled": True, "reviewed": False, "boxes": 3, "min_score": 0.41}
    assert listing["sub/b.png"]["labelled"] is False
    store.mark_reviewed("a.jpg")
    assert {e["path"]: e for e in store.list_images()[0]}["a.jpg"]["reviewed"] is True


def test_without_a_detector_the_image_opens_empty_and_is_prelabelled_later(folder, detector):
    def missing():
        raise RuntimeError("no model in models/")

    doc = LabelStore(folder, detector_factory=missing).load("a.jpg")
    assert doc["boxes"] == [] and "no model" in doc["warnings"][0]
    assert not (folder / "a.txt").exists()
    assert len(LabelStore(folder, detector_factory=lambda: detector).load("a.jpg")["boxes"]) == 3


@pytest.mark.parametrize("boxes, fragment", [
    ("nope", "must be a list"),
    ([{"tile": "Z9", "box": [0, 0, 1, 1]}], "unknown tile"),
    ([{"tile": "B5", "box": [0, 0, 1]}], "[x1, y1, x2, y2]"),
    ([{"tile": "B5", "box": [0, 0, 1, "2"]}], "[x1, y1, x2, y2]"),
    ([{"tile": "B5", "box": [0, 0, 1, 2], "score": "high"}], "score"),
    ([{"tile": ["B5"], "box": [0, 0, 1, 2]}], "unknown tile"),  # a list once crashed the lookup (a 500)
    ([{"tile": {"B": 5}, "box": [0, 0, 1, 2]}], "unknown tile"),
    # boxes that keep no area inside the image: their label had zero width or height
    ([{"tile": "B5", "box": [0, 0, 10, 10]}, {"tile": "B5", "box": [250, 10, 300, 40]}], "box 1: [250.0, 10.0, 300.0, 40.0] has no area"),
    ([{"tile": "B5", "box": [-50, 10, -1, 40]}], "has no area inside the 200x100 image"),
    ([{"tile": "B5", "box": [10, 10, 10, 40]}], "has no area"),
    ([{"tile": "B5", "box": [10, 100, 40, 180]}], "has no area"),
])
def test_save_refuses_bad_boxes(store, boxes, fragment):
    with pytest.raises(LabelError) as info:
        store.save("a.jpg", boxes)
    assert info.value.status == 422 and fragment in info.value.message


def test_sidecar_is_json_with_scores_and_history(store, folder):
    doc = store.load("a.jpg")
    store.save("a.jpg", doc["boxes"][:1])
    sidecar = json.loads((folder / ".fanshot" / "a.jpg.json").read_text())
    assert sidecar["scores"] == [0.41] and len(sidecar["history"]) == 1


@pytest.mark.parametrize("typed, code", [
    ("5p", "B5"), ("B5", "B5"), ("b5", "B5"), ("5s", "T5"), ("9m", "W9"), ("E", "F1"), ("N", "F4"),
    ("W", "F3"), ("C", "J1"), ("F", "J2"), ("P", "J3"), ("H7", "H7"), ("X", "BACK"), ("BACK", "BACK"),
])
def test_keys_pick_classes(typed, code):
    assert parse_key(typed) == code


def test_class_table_has_43_unique_keys():
    table = class_table()
    assert len(table) == 43 and table[22]["code"] == "B5" and table[22]["glyph"] == "\U0001F01D"
    assert (table[22]["zh"], table[31]["zh"], table[42]["zh"]) == ("五饼", "中", "背")
    keys = [k for row in table for k in row["keys"]]
    assert len(keys) == len(set(keys))
    assert parse_key("5z") is None


def test_big_images_are_detected_on_a_smaller_copy_and_boxes_scaled_back(tmp_path):
    make_image(tmp_path / "big.jpg", size=(4096, 2048))
    seen = []

    class Recorder:
        def detect(self, rgb, **_):
            seen.append(rgb.shape[:2])
            h, w = rgb.shape[:2]
            return Detections([{"tile": "T3", "box": [w / 4, h / 4, w / 2, h / 2], "score": 0.5}])

    doc = LabelStore(tmp_path, detector_factory=Recorder).load("big.jpg")
    assert seen == [(512, 1024)]  # read as every photo is: the smallest direct JPEG scale >= 1000 px
    assert (doc["width"], doc["height"]) == (4096, 2048)
    assert doc["boxes"][0]["box"] == [1024.0, 512.0, 2048.0, 1024.0]


def test_images_sharing_a_label_file_are_warned_about(store, folder):
    make_image(folder / "a.png")
    assert "share the label file a.txt" in store.load("a.jpg")["warnings"][0]
    assert store.load("sub/b.png")["warnings"] == []


def test_a_box_partly_outside_the_image_is_clipped_to_it(store, folder):
    store.load("a.jpg")
    doc = store.save("a.jpg", [{"tile": "B5", "box": [-20, 90, 30, 160]}, {"tile": "W1", "box": [190, 10, 170, 40]}])
    assert sorted(b["box"] for b in doc["boxes"]) == [[0.0, 90.0, 30.0, 100.0], [170.0, 10.0, 190.0, 40.0]]


def test_a_polygon_label_file_opens_as_boxes_with_a_warning(store, folder, detector):
    # a YOLO segmentation file (Roboflow's polygons): once a 422, the image could not be opened
    (folder / "a.txt").write_text("21 0.1 0.2 0.3 0.2 0.3 0.6 0.1 0.6\n0 0.5 0.5 0.1 0.2\n")
    doc = store.load("a.jpg")
    assert sorted((b["tile"], b["box"]) for b in doc["boxes"]) == [
        ("B4", [20.0, 20.0, 60.0, 60.0]), ("W1", [90.0, 40.0, 110.0, 60.0])]
    assert [w for w in doc["warnings"] if "polygon" in w] == [
        "a.txt: 1 polygon label(s) shown as the boxes around them; saving writes boxes"]
    assert detector.calls == 0
    saved = store.save("a.jpg", [{"tile": b["tile"], "box": b["box"]} for b in doc["boxes"]])
    assert not [w for w in saved["warnings"] if "polygon" in w]
    assert all(len(line.split()) == 5 for line in (folder / "a.txt").read_text().splitlines())


def test_a_label_file_with_unreadable_lines_opens_with_what_it_can_and_says_what_it_left_out(store, folder):
    # once a 422: the image could not be opened, so the file could not be mended in the tool
    original = "21 0.5 0.5 0.1 0.2\n21 0.5 0.5 0.1 0.2 0.93\nx y\n"
    (folder / "a.txt").write_text(original)
    doc = store.load("a.jpg")
    assert [b["tile"] for b in doc["boxes"]] == ["B4"]
    left_out = [w for w in doc["warnings"] if "left out" in w]
    assert [w.split(":")[:2] for w in left_out] == [["a.txt", "2"], ["a.txt", "3"]]
    assert not [w for w in doc["warnings"] if "polygon" in w]  # a score column is no polygon
    with pytest.raises(LabelError) as refused:  # an export leaves no line out unsaid
        store.labelled_items()
    assert refused.value.code == "malformed_label_file" and "a.txt:2" in refused.value.message
    assert "open a.jpg in the labelling tool" in refused.value.message
    saved = store.save("a.jpg", [{"tile": "B4", "box": doc["boxes"][0]["box"]}])
    assert not [w for w in saved["warnings"] if "left out" in w]
    assert [item["path"] for item in store.labelled_items()[0]] == ["a.jpg"]
    store.undo("a.jpg")
    assert (folder / "a.txt").read_text() == original  # the file as it was, nothing lost
