"""`fanshot batch prelabel` in every format, read back with the project's own readers
(datasets.formats): the same boxes as the jsonl lines, the photos' subfolders kept, Label Studio
tasks as predictions with the model's version and scores. A second format is assembled from the
records the first run wrote, no photo read again."""
from __future__ import annotations

import json

import pytest
from batch_photos import GOOD, batch, make_photos, record_times

from datasets import formats


@pytest.fixture(scope="module")
def prelabelled(tmp_path_factory):
    """The photos pre-labelled (YOLO, the default), and the boxes by photo name from a jsonl run
    into the same folder."""
    from fanshot.cli import main

    base = tmp_path_factory.mktemp("prelabel")
    src, dst = make_photos(base / "photos"), base / "out"
    assert main(["batch", "prelabel", str(src), "--out", str(dst), "--workers", "2", "--quiet"]) == 1
    times = record_times(dst)
    assert main(["batch", "prelabel", str(src), "--out", str(dst), "--format", "jsonl", "--quiet"]) == 1
    assert record_times(dst) != times  # the bad photo, read again
    lines = [json.loads(line) for line in (dst / "results.jsonl").read_text().splitlines()]
    boxes = {line["image"]: [{"tile": d["tile"], "box": d["box"]} for d in line["detections"]] for line in lines}
    assert sorted(boxes) == sorted(GOOD) and all(boxes.values())
    return src, dst, boxes


def _by_name(dataset: list[dict], root) -> dict[str, list[dict]]:
    return {str(rec["file"]).removeprefix(f"{root}/"): [{"tile": b["tile"], "box": b["box"]} for b in rec["boxes"]]
            for rec in dataset}


def _close(read: dict, written: dict) -> None:
    """The boxes read back are those written, to the 1/100 pixel the formats round to."""
    assert read.keys() == written.keys()
    for name, boxes in written.items():
        assert [b["tile"] for b in read[name]] == [b["tile"] for b in boxes]
        for got, want in zip(read[name], boxes):
            assert got["box"] == pytest.approx(want["box"], abs=0.02)


def test_yolo_labels_beside_a_data_yaml(prelabelled):
    src, dst, boxes = prelabelled
    assert (dst / "data.yaml").is_file() and (dst / "labels" / "sub" / "b.txt").is_file()
    assert (dst / "images" / "sub" / "b.png").samefile(src / "sub" / "b.png")  # linked, not copied
    dataset = formats.read_yolo(dst)
    _close(_by_name(dataset, dst / "images"), boxes)


def test_coco(prelabelled, capsys):
    src, dst, boxes = prelabelled
    status, out, err = batch(capsys, "prelabel", str(src), "--out", str(dst), "--format", "coco")
    assert status == 1 and out.strip() == str(dst / "coco.json") and "1 read" in err
    _close(_by_name(formats.read_coco(dst / "coco.json", image_dir=src), src), boxes)


def test_labelstudio_predictions(prelabelled, capsys):
    src, dst, boxes = prelabelled
    status, out, _ = batch(capsys, "prelabel", str(src), "--out", str(dst), "--format", "labelstudio")
    assert status == 1 and out.strip() == str(dst / "labelstudio.json")
    tasks = json.loads((dst / "labelstudio.json").read_text())
    # image paths as Label Studio's local files, relative to the photos' folder's parent
    assert [task["data"]["image"] for task in tasks] == [f"/data/local-files/?d=photos/{name}" for name in sorted(GOOD)]
    model = json.loads((dst.parent / "out" / ".batch" / "job.json").read_text())["model"]
    for task in tasks:
        [prediction] = task["predictions"]
        scores = [result["score"] for result in prediction["result"]]
        assert prediction["model_version"] == model and prediction["score"] == min(scores) > 0
    _close(_by_name(formats.read_labelstudio(dst / "labelstudio.json", image_dir=src.parent), src), boxes)


def test_document_root_must_be_above_the_photos(prelabelled, tmp_path, capsys):
    src, dst, _ = prelabelled
    status, _, err = batch(capsys, "prelabel", str(src), "--out", str(dst), "--format", "labelstudio",
                           "--document-root", str(tmp_path))
    assert status == 2 and "must be a folder above" in err
