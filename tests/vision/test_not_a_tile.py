"""The classifier's "not a tile" output: boxes the finder puts on dice, scoring sticks, coins
and chips go (vision.detector), and the crops that teach it (training.crops)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from training.crops import CONTEXT_WH, negative_crops
from vision.classes import CLASSES, NOT_A_TILE
from vision.classifier import TileClassifier
from vision.detector import Detector, get_detector
from vision.finder import FoundTiles


def _detector(boxes, weak_boxes, readings):
    """A Detector whose finder answers fixed boxes (kept, then weak) and whose classifier reads
    box i as readings[i]: a tile code, or None for "not a tile" (44 outputs)."""
    detector = object.__new__(Detector)
    detector.classifier = object.__new__(TileClassifier)
    detector.classifier.classes = list(CLASSES)
    detector.classifier.not_a_tile_above = 0.5
    kept = (np.asarray(boxes, np.float32).reshape(-1, 4), np.full(len(boxes), 0.9, np.float32))
    faint = (np.asarray(weak_boxes, np.float32).reshape(-1, 4), np.full(len(weak_boxes), 0.3, np.float32))
    detector.finder = SimpleNamespace(conf=0.35, find=lambda rgb, floor, *look: FoundTiles(kept, faint if floor is not None else None))

    def classify(rgb, all_boxes):
        probs = np.full((len(all_boxes), NOT_A_TILE + 1), 0.02 / NOT_A_TILE, np.float32)
        for i, tile in enumerate(readings[: len(all_boxes)]):  # the kept boxes come first
            probs[i, NOT_A_TILE if tile is None else CLASSES.index(tile)] = 0.98
        return probs

    detector.classifier.classify = classify
    return detector


def test_boxes_read_as_no_tile_go_kept_and_weak_alike():
    boxes = [[0, 0, 50, 70], [60, 0, 110, 70], [200, 0, 250, 50]]  # two tiles and a die
    weak_boxes = [[120, 0, 170, 70], [300, 0, 340, 40]]  # a faint tile and a faint coin
    detector = _detector(boxes, weak_boxes, ["W1", "W2", None, "W3", None])
    rgb = np.zeros((100, 400, 3), np.uint8)
    found = detector.detect(rgb, weak_floor=0.2)
    tiles, faint = found.tiles, found.weak
    assert [d["tile"] for d in tiles] == ["W1", "W2"] and detector.detect(rgb).tiles == tiles
    assert [(d["tile"], d["box"]) for d in faint] == [("W3", [120.0, 0.0, 170.0, 70.0])]
    for d in tiles + faint:  # "not a tile" is never a candidate: the 43 classes only
        assert len(d["candidates"]) == 4 and all(c in CLASSES for c, _ in d["candidates"])


def test_a_no_tile_box_does_not_suppress_the_tile_it_overlaps():
    # the finder's box half on a tile and half on the table, read as no tile, scores higher
    boxes = [[0, 0, 50, 70], [5, 0, 55, 70]]
    detector = _detector(boxes, [], [None, "B5"])
    assert [d["tile"] for d in detector.detect(np.zeros((80, 80, 3), np.uint8)).tiles] == ["B5"]


def test_negative_crops_are_the_finders_boxes_on_no_labelled_tile():
    rgb = np.full((200, 300, 3), 90, np.uint8)
    rgb[20:90, 10:60] = 250  # a tile, labelled
    rgb[120:160, 200:240] = 30  # a die, not labelled
    record = {"boxes": [{"tile": "W1", "box": [10, 20, 60, 90]}]}
    found = [[12, 22, 61, 88], [198, 118, 242, 162], [40, 20, 90, 90]]  # on the tile, the die, half on the tile

    crops, labels = negative_crops([record], lambda r: rgb, lambda image: np.asarray(found))
    assert labels.tolist() == [NOT_A_TILE]  # the box on the tile and the one half on it are no negatives
    cw, ch = CONTEXT_WH
    assert crops.shape == (1, ch, cw, 3) and crops[0, ch // 2, cw // 2].tolist() == [30, 30, 30]
    empty, none = negative_crops([record], lambda r: rgb, lambda image: np.zeros((0, 4)))
    assert empty.shape == (0, ch, cw, 3) and none.shape == (0,)


def test_a_box_on_a_stray_cut_by_the_frame_is_no_negative_crop():
    # the stray is an ignore region (too little of it shows to name it), still a tile
    rgb = np.full((200, 300, 3), 90, np.uint8)
    rgb[60:130, 270:300] = 250
    record = {"boxes": [], "ignore": [{"tile": "W3", "box": [270, 60, 300, 130]}]}
    crops, labels = negative_crops([record], lambda r: rgb, lambda image: np.asarray([[268, 58, 300, 131]]))
    assert len(labels) == 0
    crops, labels = negative_crops([{"boxes": []}], lambda r: rgb, lambda image: np.asarray([[268, 58, 300, 131]]))
    assert labels.tolist() == [NOT_A_TILE]


def test_a_box_across_a_walls_backs_is_no_negative_crop():
    # four backs side by side, each labelled; one finder box spans them all: its IoU with each is
    # under 0.2, but it is all tiles (taught as "not a tile", backs would go)
    rgb = np.full((120, 260, 3), 90, np.uint8)
    wall = [{"tile": "BACK", "box": [10 + 50 * k, 20, 60 + 50 * k, 90]} for k in range(4)]
    record = {"boxes": wall}
    crops, labels = negative_crops([record], lambda r: rgb, lambda image: np.asarray([[0, 10, 220, 100]]))
    assert len(labels) == 0


def test_the_shipped_classifier_answers_the_43_classes_and_not_a_tile():
    detector = get_detector().classifier
    if detector.not_a_tile_above is None:
        pytest.skip("the shipped classifier has no 'not a tile' output")
    rgb = np.full((240, 320, 3), 120, np.uint8)
    probs = detector.classify(rgb, np.asarray([[10, 10, 58, 74]], np.float32))
    assert probs.shape == (1, len(CLASSES) + 1) and probs.sum() == pytest.approx(1.0, abs=1e-4)



def test_a_box_under_the_threshold_stays_named_among_the_43_renormalised():
    detector = _detector([[0, 0, 50, 70]], [], [])
    probs = np.zeros((1, NOT_A_TILE + 1), np.float32)
    probs[0, NOT_A_TILE], probs[0, CLASSES.index("W5")], probs[0, CLASSES.index("W3")] = 0.4, 0.5, 0.1
    detector.classifier.classify = lambda rgb, boxes: probs.copy()
    [tile] = detector.detect(np.zeros((80, 80, 3), np.uint8)).tiles
    assert tile["tile"] == "W5" and tile["score"] == pytest.approx(0.9 * 0.5 / 0.6, abs=1e-4)
    assert tile["candidates"][:2] == [["W5", tile["score"]], ["W3", pytest.approx(0.9 * 0.1 / 0.6, abs=1e-4)]]
    detector.classifier.not_a_tile_above = 0.35  # a stricter model: the same box goes
    assert detector.detect(np.zeros((80, 80, 3), np.uint8)).tiles == []


def test_a_model_json_that_does_not_match_the_classifiers_outputs_is_a_clear_error(tmp_path):
    import json
    import shutil

    from vision.model_spec import DEFAULT_MODEL_DIR, MODEL_JSON, ModelNotFoundError

    spec = json.loads((DEFAULT_MODEL_DIR / MODEL_JSON).read_text(encoding="utf-8"))
    if spec["classifier"].get("not_a_tile_above") is None:
        pytest.skip("the shipped classifier has no 'not a tile' output")
    for part in ("finder", "classifier"):
        shutil.copy(DEFAULT_MODEL_DIR / spec[part]["file"], tmp_path / spec[part]["file"])
    del spec["classifier"]["not_a_tile_above"]  # the 44th output would go unread
    (tmp_path / MODEL_JSON).write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ModelNotFoundError, match="44 outputs"):
        Detector(tmp_path)
