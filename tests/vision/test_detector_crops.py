"""Classifier crops (vision.train_crops): the same geometry at training and at run time."""
from __future__ import annotations

import numpy as np
import pytest

from vision.classes import CLASS_ID
from vision.detector import crop_tiles
from vision.train_crops import CONTEXT_WH, FLUFFY_DIR, augment, centre_crop, context_crop, rendered_crops


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
