"""Classifier crops (training.crops): the same geometry at training and at run time."""
from __future__ import annotations

import numpy as np
import pytest

from training.crops import CONTEXT_WH, FLUFFY_DIR, augment, centre_crop, context_crop, rendered_crops
from vision.classes import CLASS_ID
from vision.classifier import crop_tiles


def _scene():
    rgb = np.zeros((200, 300, 3), np.uint8)
    rgb[50:110, 100:140] = (200, 30, 30)  # an upright tile, red
    rgb[150:180, 200:260] = (30, 30, 200)  # a sideways tile, blue
    return rgb


def test_context_crop_centres_the_box_with_a_margin():
    crop = context_crop(_scene(), [100, 50, 140, 110])
    assert crop.shape == (CONTEXT_WH[1], CONTEXT_WH[0], 3)
    h, w = crop.shape[:2]
    assert crop[h // 2, w // 2].tolist() == [200, 30, 30]
    assert crop[2, 2].tolist() == [0, 0, 0]  # the margin shows the background


def test_context_crop_turns_sideways_boxes_upright():
    crop = context_crop(_scene(), [200, 150, 260, 180])
    assert crop.shape == (CONTEXT_WH[1], CONTEXT_WH[0], 3)
    assert crop[crop.shape[0] // 2, crop.shape[1] // 2].tolist() == [30, 30, 200]


def test_centre_crop_matches_what_the_detector_cuts():
    rgb = _scene()
    box = np.array([[100, 50, 140, 110]], np.float32)
    at_run_time = crop_tiles(rgb, box, 40, 56, 0.08)[0].astype(int)
    in_training = centre_crop(context_crop(rgb, box[0]), (40, 56), 0.08).astype(int)
    assert np.abs(at_run_time - in_training).mean() < 12


def test_augment_gives_the_input_size_and_varies():
    context = context_crop(_scene(), [100, 50, 140, 110])
    rng = np.random.default_rng(0)
    crops = [augment(context, (40, 56), 0.08, rng) for _ in range(4)]
    assert all(c.shape == (56, 40, 3) and c.dtype == np.uint8 for c in crops)
    assert len({c.tobytes() for c in crops}) == 4


@pytest.mark.skipif(not (FLUFFY_DIR / "regular" / "Front.png").is_file(), reason="no FluffyStuff art here")
def test_rendered_crops_cover_every_tile_face_and_the_back():
    crops, labels = rendered_crops(1)
    assert crops.shape[1:] == (CONTEXT_WH[1], CONTEXT_WH[0], 3)
    assert CLASS_ID["BACK"] in labels and CLASS_ID["W1"] in labels and CLASS_ID["J3"] in labels
    assert len(set(labels.tolist())) == 35  # 34 faces + BACK; FluffyStuff has no flowers


def test_finder_box_crops_cut_each_tile_around_the_finders_box_on_it():
    from training.crops import finder_box_crops

    rgb = np.zeros((200, 300, 3), np.uint8)
    rgb[20:90, 10:60] = 250  # tile A, labelled loosely
    rgb[20:90, 100:150] = 120  # tile B, which the finder misses
    record = {"boxes": [{"tile": "W1", "box": [0, 10, 70, 100]}, {"tile": "B2", "box": [100, 20, 150, 90]}]}
    # the finder's box on A (IoU 0.56 with its label), a worse twin, and a box on nothing
    found = [[10, 20, 60, 90], [5, 15, 40, 95], [200, 120, 240, 160]]
    crops, labels = finder_box_crops([record], lambda r: rgb, lambda image: np.asarray(found, np.float32))
    assert labels.tolist() == [CLASS_ID["W1"], CLASS_ID["B2"]]
    assert np.array_equal(crops[0], context_crop(rgb, found[0]))  # the finder's box, not the label
    assert np.array_equal(crops[1], context_crop(rgb, [100, 20, 150, 90]))  # none found: the label
    nothing, none = finder_box_crops([record], lambda r: rgb, lambda image: np.zeros((0, 4)))
    assert np.array_equal(nothing[0], context_crop(rgb, [0, 10, 70, 100])) and len(none) == 2


def test_train_crops_finder_boxes_cuts_one_crop_per_labelled_tile(tmp_path, capsys):
    from pathlib import Path

    from datasets.formats import write_yolo
    from fanshot.cli import main
    from vision.detector import get_detector
    from vision.photo import read_photo

    photo = Path(__file__).resolve().parents[1] / "data" / "detector" / "synth_s990000_000002.jpg"
    read = read_photo(photo.read_bytes())
    rgb, found = read.image, get_detector().detect(read.image, photo=read).tiles
    assert max(rgb.shape[:2]) == 1000  # read as stored (the boxes are in its pixels)
    boxes = [{"tile": d["tile"], "box": d["box"]} for d in found]
    write_yolo([{"file": str(photo), "width": rgb.shape[1], "height": rgb.shape[0], "boxes": boxes}], tmp_path / "set")
    out = tmp_path / "crops.npz"
    assert main(["train", "crops", "--data", str(tmp_path / "set"), "--finder-boxes", "--out", str(out)]) == 0
    with np.load(out) as saved:
        assert saved["labels"].tolist() == [CLASS_ID[b["tile"]] for b in boxes]
        assert saved["crops"].shape == (len(boxes), CONTEXT_WH[1], CONTEXT_WH[0], 3)
    capsys.readouterr()
    assert main(["train", "crops", "--data", str(tmp_path / "set"), "--finder-boxes", "--negatives",
                 "--out", str(out)]) == 2
    assert "two kinds of crops" in capsys.readouterr().err


def test_crops_for_a_larger_input_hold_it_at_full_resolution_and_match_the_detector():
    # m96 reads a 72x96 box: its crops are cut larger (108x144) and read by their own size
    from training.classifier import input_wh
    from training.crops import context_wh_for

    assert context_wh_for(input_wh("m64")) == CONTEXT_WH
    wh = input_wh("m96")
    assert context_wh_for(wh) == (108, 144)
    rgb = np.zeros((400, 600, 3), np.uint8)
    rgb[100:220, 200:290] = (200, 30, 30)
    rgb[100:140, 200:290] = (30, 200, 30)  # the tile's top, green: the crop must keep it on top
    box = np.array([[200, 100, 290, 220]], np.float32)
    context = context_crop(rgb, box[0], context_wh_for(wh))
    assert context.shape == (144, 108, 3)
    at_run_time = crop_tiles(rgb, box, *wh, 0.08)[0].astype(int)
    in_training = centre_crop(context, wh, 0.08).astype(int)
    assert np.abs(at_run_time - in_training).mean() < 12
    assert augment(context, wh, 0.08, np.random.default_rng(0)).shape == (96, 72, 3)


def test_train_crops_arch_sets_the_crop_size(tmp_path):
    from datasets.formats import write_yolo
    from fanshot.cli import main

    Image = pytest.importorskip("PIL.Image")
    Image.fromarray(_scene()).save(tmp_path / "scene.png")
    record = {"file": str(tmp_path / "scene.png"), "width": 300, "height": 200,
              "boxes": [{"tile": "W1", "box": [100, 50, 140, 110]}, {"tile": "B5", "box": [200, 150, 260, 180]}]}
    write_yolo([record], tmp_path / "set")
    for arch, shape in (("m64", (96, 72, 3)), ("m96", (144, 108, 3))):
        out = tmp_path / f"{arch}.npz"
        assert main(["train", "crops", "--data", str(tmp_path / "set"), "--arch", arch, "--out", str(out)]) == 0
        with np.load(out) as saved:
            assert saved["crops"].shape == (2,) + shape
            assert saved["labels"].tolist() == [CLASS_ID["W1"], CLASS_ID["B5"]]
