"""The classifier's flipped views (model.json classifier `views`, `views_below`): a crop whose best
class is under `views_below` gets the mean of its own probabilities and those of its flips; a sure
crop keeps its own; a tile set reads upside down only the crops no view did."""
import numpy as np
import pytest

from vision.detector import Detector


@pytest.fixture(scope="module")
def detector():
    det = Detector().classifier
    if not det.view_flips:
        pytest.skip("the shipped classifier averages no views")
    return det


def _crops(det, n=8):
    rng = np.random.default_rng(0)
    crops = rng.random((n, 3, det.crop_h, det.crop_w), dtype=np.float32)
    crops[:, :, : det.crop_h // 3] *= 0.2  # not symmetric: a dark top third
    crops[: n // 2] *= np.linspace(0.3, 1.0, det.crop_w, dtype=np.float32)  # and some darker to one side
    return crops


def _views(det, crops):
    own = det._class_probabilities(crops)
    flips = [det._class_probabilities(np.ascontiguousarray(np.flip(crops, dims))) for dims in det.view_flips]
    return own, (own + sum(flips)) / (len(flips) + 1)


def _read(det, crops):
    """The classifier's probabilities of `crops` with its views of the unsure ones."""
    return det._views(crops, det._class_probabilities(crops))


def _with_views(det, crops, below):
    det.views_below, kept = below, det.views_below
    try:
        return _read(det, crops)
    finally:
        det.views_below = kept


def test_only_the_unsure_crops_are_averaged(detector):
    crops = _crops(detector)
    own, mean = _views(detector, crops)
    best = np.sort(own.max(1))
    below = float(best[len(best) // 2 - 1] + best[len(best) // 2]) / 2  # half the crops under it
    probs = _with_views(detector, crops, below)
    unsure = own.max(1) < below
    assert unsure.sum() == len(crops) // 2
    np.testing.assert_allclose(probs[unsure], mean[unsure], atol=1e-6)
    np.testing.assert_allclose(probs[~unsure], own[~unsure], atol=1e-6)


def test_averaged_over_every_view_a_crop_and_its_flips_read_the_same(detector):
    crops = _crops(detector)
    plain = _with_views(detector, crops, 1.01)
    for dims in detector.view_flips:
        flipped = _with_views(detector, np.ascontiguousarray(np.flip(crops, dims)), 1.01)
        np.testing.assert_allclose(flipped, plain, atol=1e-5)
    np.testing.assert_allclose(plain.sum(1), 1.0, atol=1e-4)
    assert plain.shape == (len(crops), len(detector.classes) + (detector.not_a_tile_above is not None))


def test_an_unsure_box_about_as_wide_as_tall_is_read_both_ways_and_the_readings_averaged(detector):
    from vision.classifier import crop_blob as _blob
    from vision.classifier import crop_tiles

    if detector.both_turns is None:
        pytest.skip("the shipped classifier reads every box one way")
    rng = np.random.default_rng(1)
    rgb = (rng.random((240, 400, 3)) * 255).astype(np.uint8)
    rgb[:, :, 0] = np.linspace(0, 255, 400, dtype=np.uint8)  # not symmetric under a quarter turn
    low, high = detector.both_turns
    side = 60.0
    boxes = np.array(
        [
            [10, 10, 10 + side * (low + high) / 2, 10 + side],  # within both_turns
            [120, 10, 120 + side * low * 0.9, 10 + side],  # taller than the range
            [220, 10, 220 + side * high * 1.1, 10 + side],  # wider than the range
        ],
        np.float32,
    )
    kept = detector.views_below
    try:
        detector.views_below = 1.01  # every reading unsure
        args = (rgb, boxes, detector.crop_w, detector.crop_h, detector.crop_pad)
        usual = _read(detector, _blob(crop_tiles(*args)))
        other = _read(detector, _blob(crop_tiles(*args, other_way=True)))
        assert np.abs(usual[0] - other[0]).max() > 1e-3  # the two readings differ, so the test can tell
        probs = detector.classify(rgb, boxes)
        np.testing.assert_allclose(probs[0], (usual[0] + other[0]) / 2, atol=1e-5)
        np.testing.assert_allclose(probs[1:], usual[1:], atol=1e-5)
        own = detector._class_probabilities(_blob(crop_tiles(*args)))[0]  # one view, one turn
        detector.views_below = float(own.max()) - 1e-4  # box 0's reading now sure: read one way only
        np.testing.assert_allclose(detector.classify(rgb, boxes)[0], own, atol=1e-5)
    finally:
        detector.views_below = kept


@pytest.mark.parametrize("turns", [[0.8], "wide", [0.8, None]])
def test_a_model_json_with_a_malformed_both_turns_is_a_clear_error(tmp_path, turns):
    import json
    import shutil

    from vision.model_spec import DEFAULT_MODEL_DIR, MODEL_JSON, ModelNotFoundError

    spec = json.loads((DEFAULT_MODEL_DIR / MODEL_JSON).read_text(encoding="utf-8"))
    for part in ("finder", "classifier"):
        shutil.copy(DEFAULT_MODEL_DIR / spec[part]["file"], tmp_path / spec[part]["file"])
    spec["classifier"]["both_turns"] = turns
    (tmp_path / MODEL_JSON).write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(ModelNotFoundError, match="both_turns"):
        Detector(tmp_path)


class _Look:
    """A tile set that asks for every crop's other views (vision.classifier.SetLook) and keeps them."""

    def __init__(self, det):
        self.name, self.classifier, self.asked = "look", det.model_id, []

    def settled(self, probs, features, photo_boxes=None):
        return np.zeros(len(probs), bool), None

    def blend(self, probs, features, rows, other_views=None, photo_boxes=None, known=None):
        from vision.classifier import SetMatch

        self.asked.append(other_views(np.arange(len(rows)), True))
        return probs, SetMatch(np.zeros(len(probs), np.float32), np.zeros(len(probs), np.int64))


def test_a_set_reads_upside_down_only_the_crops_the_views_did_not(detector, monkeypatch):
    from vision.classifier import crop_blob, crop_tiles, ink_view

    rng = np.random.default_rng(2)
    rgb = (rng.random((200, 400, 3)) * 255).astype(np.uint8)
    boxes = np.array([[10 + 90 * i, 20, 70 + 90 * i, 110] for i in range(4)], np.float32)  # upright tiles
    crops = crop_blob(crop_tiles(rgb, boxes, detector.crop_w, detector.crop_h, detector.crop_pad))
    upside_down = detector.embed(np.ascontiguousarray(np.flip(crops, (2, 3))))
    inked = detector.embed(ink_view(crops))
    run = detector._class_probabilities
    read: list[int] = []
    monkeypatch.setattr(detector, "_class_probabilities", lambda blob, features=None: read.append(len(blob)) or run(blob, features))
    # the crops, their views, then the set's run: their ink views and upside down those no view read
    flips = len(detector.view_flips)
    for below, runs in ((1.01, [4, 4 * flips, 4]), (0.0, [4, 8])):  # every crop unsure; every crop sure
        monkeypatch.setattr(detector, "views_below", below)
        look, read[:] = _Look(detector), []
        detector.classify_as_set(rgb, boxes, look)
        turned, ink = look.asked[0]
        np.testing.assert_allclose(turned, upside_down, atol=1e-4)
        np.testing.assert_allclose(ink, inked, atol=1e-4)
        assert read == runs
