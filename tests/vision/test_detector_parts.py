"""The run-time pieces of the detector that need no trained model."""
from __future__ import annotations

import numpy as np
import pytest

from vision.boxes import zoom_region
from vision.classifier import crop_tiles
from vision.detector import Detector, get_detector
from vision.finder import decode_yolo, letterbox
from vision.model_spec import ModelNotFoundError


def test_letterbox_keeps_aspect_and_centres():
    rgb = np.zeros((100, 200, 3), np.uint8)
    canvas, scale, (pad_x, pad_y) = letterbox(rgb, 320)
    assert canvas.shape == (320, 320, 3)
    assert scale == pytest.approx(1.6)
    assert (pad_x, pad_y) == (0, 80)
    assert canvas[0, 0].tolist() == [114, 114, 114] and canvas[160, 160].tolist() == [0, 0, 0]


def test_letterbox_to_the_photos_shape_in_multiples_of_the_stride():
    rgb = np.zeros((300, 400, 3), np.uint8)  # 4:3: 320 x 240, padded to 320 x 256
    canvas, scale, (pad_x, pad_y) = letterbox(rgb, 320, stride=32)
    assert canvas.shape == (256, 320, 3) and scale == pytest.approx(0.8) and (pad_x, pad_y) == (0, 8)
    assert canvas[7, 160].tolist() == [114] * 3 and canvas[8, 160].tolist() == [0] * 3
    assert canvas[248, 160].tolist() == [114] * 3 and canvas[247, 160].tolist() == [0] * 3
    tall, _, (pad_x, pad_y) = letterbox(np.zeros((1000, 90, 3), np.uint8), 320, stride=32)
    assert tall.shape == (320, 32, 3) and (pad_x, pad_y) == (1, 0)  # 29 px wide, in 32


def test_a_finder_of_free_input_shape_reads_a_canvas_of_the_photos_shape():
    shapes = []

    class Finder:  # records the input it is given; finds nothing
        def run(self, _, feeds):
            shapes.append(next(iter(feeds.values())).shape)
            return [np.zeros((1, 5, 0), np.float32)]

    detector = Detector()
    assert detector.finder.stride == 32  # the shipped finder (m21 on) takes any multiple of 32
    detector.finder.session = Finder()
    detector.finder._find(np.zeros((300, 400, 3), np.uint8), (0.35,), mirror=False)
    detector.finder._find(np.zeros((900, 300, 3), np.uint8), (0.35,), mirror=False)
    assert shapes == [(1, 3, 256, 320), (1, 3, 320, 128)]


def _head(rows):
    """A raw YOLO head (4 + nc, N) from rows of (cx, cy, w, h, score_class0, score_class1)."""
    return np.array(rows, np.float32).T


def test_decode_yolo_thresholds_and_suppresses_overlaps():
    output = _head(
        [
            (50, 50, 20, 30, 0.9, 0.1),
            (51, 50, 20, 30, 0.1, 0.8),  # same tile, other class: suppressed
            (150, 50, 20, 30, 0.6, 0.0),
            (250, 50, 20, 30, 0.1, 0.1),  # below the threshold
        ]
    )
    boxes, scores, class_ids = decode_yolo(output, conf=0.25, iou=0.5)
    order = np.argsort(boxes[:, 0])
    assert boxes[order].tolist() == [[40, 35, 60, 65], [140, 35, 160, 65]]
    assert scores[order].tolist() == pytest.approx([0.9, 0.6])
    assert class_ids[order].tolist() == [0, 0]


def test_decode_yolo_with_nothing_found():
    boxes, scores, class_ids = decode_yolo(_head([(5, 5, 2, 2, 0.01, 0.02)]), conf=0.25, iou=0.5)
    assert boxes.shape == (0, 4) and len(scores) == 0 and len(class_ids) == 0


def test_crop_tiles_turns_sideways_tiles_upright():
    rgb = np.zeros((100, 200, 3), np.uint8)
    rgb[10:50, 10:40] = 255  # a portrait tile
    rgb[60:90, 100:140] = 200  # a tile lying sideways
    crops = crop_tiles(rgb, np.array([[10, 10, 40, 50], [100, 60, 140, 90]], np.float32), 24, 32, 0.0)
    assert crops.shape == (2, 32, 24, 3)
    assert crops[0].min() == 255 and crops[1].min() == 200


def test_crop_tiles_other_way_turns_what_the_rule_leaves_and_leaves_what_it_turns():
    rgb = np.full((100, 200, 3), 255, np.uint8)
    rgb[10:30, 10:40] = 0  # a portrait tile (10..40 x 10..50) with a dark top half
    rgb[60:90, 100:120] = 0  # a sideways tile (100..140 x 60..90) with a dark left half
    boxes = np.array([[10, 10, 40, 50], [100, 60, 140, 90]], np.float32)
    usual = crop_tiles(rgb, boxes, 24, 32, 0.0)
    other = crop_tiles(rgb, boxes, 24, 32, 0.0, other_way=True)
    # usual: the portrait tile as it stands (dark on top); the sideways one turned (dark on top)
    assert usual[0, :12].max() == 0 and usual[0, 20:].min() == 255
    assert usual[1, :12].max() == 0 and usual[1, 20:].min() == 255
    # other way: the portrait tile turned clockwise (its dark top goes right); the sideways one as it
    # lies (its dark left stays left)
    assert other[0, :, 14:].max() == 0 and other[0, :, :10].min() == 255
    assert other[1, :, :10].max() == 0 and other[1, :, 14:].min() == 255


def test_crop_tiles_clips_boxes_at_the_border():
    rgb = np.full((50, 50, 3), 7, np.uint8)
    crops = crop_tiles(rgb, np.array([[-20, -20, 10, 30]], np.float32), 24, 32, 0.1)
    assert crops.shape == (1, 32, 24, 3) and crops.max() == 7


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelNotFoundError, match="model.json"):
        get_detector(tmp_path)


def test_zoom_region_surrounds_the_tiles_inside_the_image():
    boxes = np.array([[100, 50, 120, 80], [130, 52, 150, 82]], np.float32)
    assert zoom_region(boxes, 400, 300, margin=30) == (70, 20, 180, 112)
    assert zoom_region(boxes, 160, 90, margin=30) == (70, 20, 160, 90)


def test_a_box_far_smaller_than_the_photos_tiles_is_no_tile():
    from vision.detector import SMALL_TILE, _tile_sized

    row = [[100 * i, 0, 100 * i + 70, 100] for i in range(6)]  # tiles 100 px long
    speck = [700, 0, 730, 40]  # 40 px: under half a tile
    sideways = [800, 0, 900, 70]  # a tile turned in a meld: 100 px long, kept
    boxes = np.array(row + [speck, sideways], np.float32)
    everything = np.arange(len(boxes))
    assert _tile_sized(boxes, everything).tolist() == [0, 1, 2, 3, 4, 5, 7]
    assert SMALL_TILE * 100 > 40
    # weak boxes are measured against the kept tiles; with under 5 tiles nothing is judged
    assert _tile_sized(boxes, np.array([6, 7]), of=np.arange(6)).tolist() == [7]
    assert _tile_sized(boxes, np.array([0, 1, 6])).tolist() == [0, 1, 6]
