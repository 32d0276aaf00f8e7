"""Label Studio's own exports, as Label Studio 1.23.2 wrote them (tests/datasets/data/label-studio-1.23.2,
from the project of tests/api/test_label_studio_real.py: two uploaded photos, Fanshot's predictions,
the first accepted as an annotation): JSON (predictions listed by id), JSON_MIN, YOLO (classes.txt
in alphabetical order, no data.yaml, no images) and COCO (file_name relative to Label Studio's
export folder). Each is read, with Label Studio's media folder as --images, to the same boxes."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from datasets import formats
from datasets.classmap import CLASSES

EXPORTS = Path(__file__).parent / "data" / "label-studio-1.23.2"
PHOTOS = Path(__file__).parents[1] / "data" / "detector"
UPLOADS = {"f932c7db-synth_s990000_000002.jpg": "synth_s990000_000002.jpg",
           "989aa8fd-synth_s990000_000003.jpg": "synth_s990000_000003.jpg"}
SOURCES = {"json": "export.json", "json_min": "export-min.json", "yolo": "yolo", "coco": "coco/result.json"}


@pytest.fixture
def media(tmp_path) -> Path:
    """Label Studio's media folder: uploads of project 1 under upload/1/."""
    folder = tmp_path / "media" / "upload" / "1"
    folder.mkdir(parents=True)
    for name, photo in UPLOADS.items():
        shutil.copyfile(PHOTOS / photo, folder / name)
    return tmp_path / "media"


def _accepted_boxes() -> dict[str, list[tuple[str, list[float]]]]:
    """The annotation of the JSON export in pixels, per upload name: what every format must give."""
    expected = {}
    for task in json.loads((EXPORTS / "export.json").read_text()):
        name = task["data"]["image"].rsplit("/", 1)[1]
        boxes = []
        for ann in task["annotations"][:1]:
            for r in ann["result"]:
                v, w, h = r["value"], r["original_width"], r["original_height"]
                boxes.append((v["rectanglelabels"][0], [v["x"] * w / 100, v["y"] * h / 100,
                                                        (v["x"] + v["width"]) * w / 100, (v["y"] + v["height"]) * h / 100]))
        expected[name] = sorted(boxes)
    return expected


@pytest.mark.parametrize("fmt", SOURCES)
def test_each_label_studio_export_reads_to_the_accepted_boxes(media, fmt):
    data = formats.read_dataset(EXPORTS / SOURCES[fmt], image_dir=media)
    expected = _accepted_boxes()
    assert sum(len(v) for v in expected.values()) == 15 and len(data) == 2
    for record in data:
        name = Path(record["file"]).name
        assert Path(record["file"]).is_file() and name in UPLOADS
        got = sorted((b["tile"], b["box"]) for b in record["boxes"])
        assert [tile for tile, _ in got] == [tile for tile, _ in expected[name]]
        for (_, box), (_, want) in zip(got, expected[name]):
            assert box == pytest.approx(want, abs=0.6)  # COCO and YOLO round to Label Studio's precision


def test_the_formats_are_told_apart():
    assert formats.detect_format(EXPORTS / "yolo") == "yolo"  # classes.txt, no data.yaml
    assert formats.detect_format(EXPORTS / "export-min.json") == "labelstudio"
    assert formats.detect_format(EXPORTS / "coco" / "result.json") == "coco"


def test_label_studio_yolo_classes_are_mapped_by_name():
    names = (EXPORTS / "yolo" / "classes.txt").read_text().split()
    assert names == sorted(CLASSES) != list(CLASSES)  # alphabetical, not our class order
    assert formats.yolo_class_names(EXPORTS / "yolo" / "classes.txt") == names


@pytest.mark.parametrize("fmt, to", [("json", "coco"), ("json_min", "yolo"), ("yolo", "coco"), ("coco", "yolo")])
def test_without_the_images_the_error_says_to_give_them(tmp_path, fmt, to):
    src = EXPORTS / SOURCES[fmt]
    run = subprocess.run([sys.executable, "-m", "fanshot", "dataset", "convert", str(src), str(tmp_path / "out"),
                          "--to", to], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "--images" in run.stderr and "Traceback" not in run.stderr


def test_convert_with_the_media_folder_writes_every_box(tmp_path, media):
    for fmt, src in SOURCES.items():
        out = tmp_path / f"{fmt}-yolo"
        run = subprocess.run([sys.executable, "-m", "fanshot", "dataset", "convert", str(EXPORTS / src), str(out),
                              "--to", "yolo", "--images", str(media)], capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert "2 images, 15 boxes" in run.stdout
        assert len(formats.read_yolo(out)) == 2


def test_the_shipped_label_config_names_every_class():
    from api.label.studio import parse_label_config

    config = parse_label_config(formats.label_config())
    assert config["labels"] == list(CLASSES)
    assert (config["from_name"], config["to_name"], config["value_key"]) == ("label", "image", "image")
