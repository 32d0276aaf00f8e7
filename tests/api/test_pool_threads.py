"""Each inference worker gets its share of the cores: pool workers x threads never exceed them."""
from types import SimpleNamespace

import pytest

import vision.detector
from api.inference import Inference, threads_per_worker
from api.settings import Settings, available_cores


@pytest.fixture(autouse=True)
def _keep_opencv_threads():
    """Inference sets OpenCV's process-wide thread count; put it back for the other tests."""
    import cv2

    before = cv2.getNumThreads()
    yield
    cv2.setNumThreads(before)


@pytest.mark.parametrize("workers, cores, threads", [(1, 2, 2), (2, 2, 1), (3, 2, 1), (2, 8, 4), (3, 8, 2), (1, 1, 1)])
def test_threads_share_out_the_cores_one_at_least(workers, cores, threads):
    assert threads_per_worker(workers, cores) == threads
    assert workers * threads <= max(cores, workers)


def test_the_detector_is_loaded_with_the_workers_share_of_the_cores(monkeypatch, tmp_path):
    asked = []
    loaded = SimpleNamespace(spec={"provenance": {"name": "stand-in"}})
    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None, threads=2: asked.append(
        (model_dir, threads)) or loaded)
    inference = Inference(Settings(inference_workers=available_cores(), model_dir=tmp_path))
    assert not inference.model_loaded() and inference.model_name() is None
    assert inference.detector() is loaded and inference.model_loaded()
    assert inference.model_name() == "stand-in"
    assert asked == [(tmp_path, 1)]
    import cv2

    assert cv2.getNumThreads() == 1


def test_a_layout_is_learnt_on_every_core_a_photo_read_on_the_workers_share(monkeypatch, tmp_path):
    import cv2
    import numpy as np

    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None, threads=2: SimpleNamespace(
        spec={}, threads=threads))
    inference = Inference(Settings(inference_workers=available_cores(), model_dir=tmp_path, data_dir=tmp_path))
    monkeypatch.setattr(inference.tilesets, "learn_layout", lambda detector, *args: {"threads": detector.threads})
    photo = cv2.imencode(".jpg", np.full((64, 48, 3), 200, np.uint8))[1].tobytes()
    assert inference.learn_layout("mine", photo, False, "layout.jpg") == {"threads": available_cores()}
    assert inference.detector().threads == 1  # the analyses keep the worker's share


def test_a_missing_model_is_a_503_whatever_the_threads(tmp_path):
    from api.errors import ApiError

    with pytest.raises(ApiError) as info:
        Inference(Settings(inference_workers=1, model_dir=tmp_path)).detector()
    assert info.value.status == 503


def test_the_server_checks_the_model_without_loading_it(monkeypatch, tmp_path):
    from api.errors import ApiError

    monkeypatch.setattr(vision.detector, "get_detector", lambda *a, **k: pytest.fail("loaded"))
    inference = Inference(Settings(inference_workers=1))
    inference.check_model()  # the shipped model is there
    assert not inference.model_loaded()
    with pytest.raises(ApiError) as info:
        Inference(Settings(inference_workers=1, model_dir=tmp_path)).check_model()
    assert info.value.status == 503 and "model.json is missing" in info.value.message
