"""Conversions between YOLO, COCO and Label Studio keep every box to the pixel, both ways."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from PIL import Image

from datasets import formats
from datasets.classmap import CLASSES, ClassMapError, remap_names, to_code


@pytest.fixture()
def dataset(tmp_path):
    rng = random.Random(7)
    src = tmp_path / "src"
    src.mkdir()
    records = []
    for i, (w, h) in enumerate([(640, 480), (333, 777), (1280, 960)]):
        path = src / f"img{i}.jpg"
        Image.new("RGB", (w, h), (i * 40, 90, 120)).save(path)
        boxes = []
        for _ in range(rng.randint(0 if i == 0 else 1, 12)):
            x1 = rng.randint(0, w - 20) + rng.choice([0, 0.5, 0.25])
            y1 = rng.randint(0, h - 20) + rng.choice([0, 0.5])
            x2 = min(w, x1 + rng.randint(5, 200))
            y2 = min(h, y1 + rng.randint(5, 200))
            boxes.append({"tile": rng.choice(CLASSES), "box": [x1, y1, x2, y2]})
        records.append({"file": str(path), "width": w, "height": h, "boxes": boxes})
    return records


def _comparable(dataset):
    return [({"name": r["file"].rsplit("/", 1)[-1], "width": r["width"], "height": r["height"]},
             [(b["tile"], [float(v) for v in b["box"]]) for b in r["boxes"]]) for r in dataset]


@pytest.mark.parametrize("fmt", formats.FORMATS)
def test_round_trip_is_exact(dataset, tmp_path, fmt):
    out = tmp_path / ("out" if fmt == "yolo" else "out.json")
    formats.write_dataset(dataset, out, fmt, image_root=tmp_path / "src")
    back = formats.read_dataset(out, image_dir=tmp_path / "src")
    assert formats.detect_format(out) == fmt
    assert _comparable(back) == _comparable(dataset)


def test_chain_through_all_formats(dataset, tmp_path):
    d1 = formats.read_yolo(formats.write_yolo(dataset, tmp_path / "y"))
    d2 = formats.read_coco(formats.write_coco(d1, tmp_path / "c.json"), image_dir=tmp_path / "y" / "images")
    d3 = formats.read_labelstudio(formats.write_labelstudio(d2, tmp_path / "ls.json"),
                                  image_dir=tmp_path / "y" / "images")
    d4 = formats.read_yolo(formats.write_yolo(d3, tmp_path / "y2"))
    assert _comparable(d4) == _comparable(dataset)
    assert (tmp_path / "y2" / "images" / "img2.jpg").is_file()


def test_yolo_reader_remaps_foreign_class_names(tmp_path):
    root = tmp_path / "riichi"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    Image.new("RGB", (100, 50)).save(root / "images" / "a.png")
    (root / "data.yaml").write_text("names: ['1m', '5z', chun, sd9, bf3]\nnc: 5\n")
    (root / "labels" / "a.txt").write_text("1 0.5 0.5 0.2 0.4\n4 0.1 0.1 0.2 0.2\n2 0.5 0.5 1 1\n")
    [rec] = formats.read_yolo(root)
    assert [b["tile"] for b in rec["boxes"]] == ["J3", "H8", "J1"]
    assert rec["boxes"][0]["box"] == [40.0, 15.0, 60.0, 35.0]


def test_labelstudio_predictions_and_url_prefix(dataset, tmp_path):
    tasks = formats.to_labelstudio(dataset, as_predictions=True)
    assert tasks[1]["data"]["image"] == "/data/local-files/?d=img1.jpg"
    assert "annotations" not in tasks[1] and tasks[1]["predictions"][0]["result"]
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(tasks))
    back = formats.read_labelstudio(path, image_dir=tmp_path / "src")
    assert _comparable(back) == _comparable(dataset)


def test_class_names_of_other_tools():
    assert remap_names(["1m", "0p", "9s", "1z", "5z", "6z", "7z", "haku", "hatsu", "chun", "pei"]) == \
        ["W1", "B5", "T9", "F1", "J3", "J2", "J1", "J3", "J2", "J1", "F4"]
    assert [to_code(n) for n in ("sc1", "sb1", "sd1", "hwe", "hdr", "hdw", "bs1", "bf1", "bf3", "bf4")] == \
        ["W1", "T1", "B1", "F1", "J1", "J3", "H1", "H5", "H8", "H7"]
    assert to_code("back") == "BACK" and to_code("Man5-Dora") == "W5"
    with pytest.raises(ClassMapError, match="'dora', 'joker'"):
        remap_names(["1m", "dora", "joker"])


def test_bad_inputs_give_clear_errors(tmp_path):
    with pytest.raises(formats.DatasetError, match="no such file"):
        formats.read_dataset(tmp_path / "missing")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(formats.DatasetError, match="cannot read JSON"):
        formats.read_dataset(bad)
    coco = tmp_path / "coco.json"
    coco.write_text(json.dumps({"images": [], "categories": [{"id": 1, "name": "joker"}]}))
    with pytest.raises(formats.DatasetError, match="joker"):
        formats.read_coco(coco)


REAL = __import__("pathlib").Path(__file__).resolve().parents[3] / "shared" / "datasets" / "real-chinese-v4"


@pytest.mark.skipif(not (REAL / "data.yaml").is_file(), reason="../shared/datasets/real-chinese-v4 not here")
def test_real_dataset_round_trips_through_coco_and_labelstudio(tmp_path):
    """A sample of the real photos: YOLO -> COCO -> Label Studio -> YOLO keeps every box."""
    sample = tmp_path / "sample"
    (sample / "images").mkdir(parents=True)
    (sample / "labels").mkdir()
    (sample / "data.yaml").write_text((REAL / "data.yaml").read_text())
    for img in sorted((REAL / "images").glob("*.jpg"))[:12]:
        (sample / "images" / img.name).symlink_to(img)
        (sample / "labels" / (img.stem + ".txt")).symlink_to(REAL / "labels" / (img.stem + ".txt"))
    original = formats.read_yolo(sample)
    assert sum(len(r["boxes"]) for r in original) > 50
    coco = formats.read_coco(formats.write_coco(original, tmp_path / "c.json"), image_dir=sample / "images")
    ls = formats.read_labelstudio(formats.write_labelstudio(coco, tmp_path / "l.json"), image_dir=sample / "images")
    back = formats.read_yolo(formats.write_yolo(ls, tmp_path / "y"))
    assert _comparable(back) == _comparable(original)


def _coco(tmp_path, image=None, annotation=None, category=None) -> str:
    Image.new("RGB", (64, 48)).save(tmp_path / "a.jpg")
    data = {"images": [{"id": 1, "file_name": "a.jpg", "width": 64, "height": 48, **(image or {})}],
            "categories": [{"id": 1, "name": "1m", **(category or {})}],
            "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "bbox": [1, 2, 10, 20], **(annotation or {})}]}
    path = tmp_path / "coco.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("part, fields, message", [
    ("annotation", {"bbox": [1, 2, "a", 20]}, "annotation 1: bbox [x, y, w, h]: expected 4 numbers"),
    ("annotation", {"bbox": None}, "expected 4 numbers, got None"),
    ("annotation", {"bbox": [1, 2, 10]}, "expected 4 numbers"),
    ("annotation", {"bbox": [1, 2, -10, 20]}, "negative width or height"),
    ("annotation", {"image_id": [1]}, "its image_id must be a number or a string"),
    ("annotation", {"category_id": None}, "its category_id must be a number or a string"),
    ("image", {"width": "wide"}, "image 1 width and height: expected 2 numbers"),
    ("image", {"width": 0}, "image 1 is 0x48 pixels"),
    ("image", {"file_name": None}, "image 1 has no file_name"),
    ("category", {"id": {"a": 1}}, "a category's id must be a number or a string"),
])
def test_a_malformed_coco_file_is_a_dataset_error_naming_the_item(tmp_path, part, fields, message):
    # each of these was a KeyError, TypeError or ValueError traceback from fanshot dataset convert
    path = _coco(tmp_path, **{part: fields})
    with pytest.raises(formats.DatasetError, match=re.escape(message)):
        formats.read_dataset(path)


def test_a_coco_image_without_its_size_takes_it_from_the_image(tmp_path):
    [record] = formats.read_dataset(_coco(tmp_path, image={"width": None, "height": None}))
    assert (record["width"], record["height"]) == (64, 48)
    assert record["boxes"] == [{"tile": "W1", "box": [1.0, 2.0, 11.0, 22.0]}]


@pytest.mark.parametrize("tasks, message", [
    ([1, 2], "a task is not an object"),
    ([{"data": {"image": "a.jpg"}, "annotations": 5}], "annotations and predictions must be lists of objects"),
    ([{"data": {"image": "a.jpg"}, "annotations": [{"result": [{"type": "rectanglelabels", "original_width": 64,
       "original_height": 48, "value": {"x": "a", "y": 1, "width": 2, "height": 3, "rectanglelabels": ["1m"]}}]}]}],
     "a box's x, y, width, height (percent): expected 4 numbers"),
    ([{"data": {"image": "a.jpg"}, "annotations": [{"result": [{"type": "rectanglelabels", "original_width": 64,
       "original_height": 48, "value": {"x": 1, "y": 1, "width": 2, "height": 3, "rectanglelabels": []}}]}]}],
     "a box has no rectanglelabels"),
    ([{"data": {"image": "a.jpg"}, "annotations": [{"result": [{"type": "rectanglelabels", "original_width": None,
       "original_height": 48, "value": {"x": 1, "y": 1, "width": 2, "height": 3, "rectanglelabels": ["1m"]}}]}]}],
     "original_width and original_height: expected 2 numbers"),
])
def test_a_malformed_label_studio_export_is_a_dataset_error(tmp_path, tasks, message):
    path = tmp_path / "ls.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(formats.DatasetError, match=re.escape(message)):
        formats.read_dataset(path)


def test_yolo_with_image_root_keeps_subfolders(tmp_path):
    """Two photos of one name in two subfolders: with image_root each keeps its path."""
    for sub in ("left", "right"):
        (tmp_path / "src" / sub).mkdir(parents=True)
        Image.new("RGB", (200, 100)).save(tmp_path / "src" / sub / "a.jpg")
    dataset = [{"file": str(tmp_path / "src" / sub / "a.jpg"), "width": 200, "height": 100,
                "boxes": [{"tile": tile, "box": [10.0, 20.0, 50.0, 80.0]}]} for sub, tile in (("left", "B5"), ("right", "J1"))]
    with pytest.raises(formats.DatasetError, match="two images named a.jpg"):
        formats.write_yolo(dataset, tmp_path / "flat")
    formats.write_yolo(dataset, tmp_path / "yolo", image_root=tmp_path / "src")
    back = formats.read_yolo(tmp_path / "yolo")
    assert [(Path(r["file"]).relative_to(tmp_path / "yolo" / "images").as_posix(), r["boxes"]) for r in back] == [
        ("left/a.jpg", [{"tile": "B5", "box": [10.0, 20.0, 50.0, 80.0]}]),
        ("right/a.jpg", [{"tile": "J1", "box": [10.0, 20.0, 50.0, 80.0]}])]


def test_labelstudio_predictions_carry_the_least_sure_score(dataset):
    scored = [{**rec, "boxes": [{**b, "score": round(0.9 - 0.05 * n, 2)} for n, b in enumerate(rec["boxes"])]}
              for rec in dataset]
    tasks = formats.to_labelstudio(scored, as_predictions=True, model_version="m-1")
    for task, rec in zip(tasks, scored):
        [prediction] = task["predictions"]
        assert prediction["model_version"] == "m-1"
        assert prediction["score"] == min([b["score"] for b in rec["boxes"]], default=0.0)
