"""The labelling tool's detector calls (Label Studio predictions, pre-labels) run through the
service's one inference pool with its admission limit (issue 36, item 3): a full pool answers
503 busy, and in worker processes the server's own process never loads the model."""
from __future__ import annotations

import base64
import dataclasses
import io
import threading
import warnings

import pytest
from PIL import Image

from api.app import create_app
from api.label.state import configure_labelling
from api.settings import Settings
from vision.detections import Detections
from vision.model_spec import DEFAULT_MODEL_DIR

with warnings.catch_warnings():  # starlette's httpx deprecation notice, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

LABEL_CONFIG = """<View><Image name="image" value="$image"/>
  <RectangleLabels name="label" toName="image"><Label value="B5"/></RectangleLabels></View>"""


def jpeg(width: int = 160, height: int = 120) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (30, 140, 90)).save(buffer, format="JPEG")
    return buffer.getvalue()


def predict_body(photo: bytes) -> dict:
    uri = "data:image/jpeg;base64," + base64.b64encode(photo).decode()
    return {"tasks": [{"id": 1, "data": {"image": uri}}], "label_config": LABEL_CONFIG}


class BlockingDetector:
    """Holds each call until released; records the thread each ran in."""
    model_version = "blocking-1"

    def __init__(self):
        self.started, self.release, self.threads = threading.Event(), threading.Event(), []

    def detect(self, rgb, **_):
        self.threads.append(threading.current_thread().name)
        self.started.set()
        assert self.release.wait(10)
        return Detections([{"tile": "B5", "box": [10, 10, 40, 60], "score": 0.9}])


@pytest.fixture
def one_place(tmp_path):
    """An app whose pool has one worker and no waiting line, labelling tmp_path with a BlockingDetector."""
    (tmp_path / "a.jpg").write_bytes(jpeg())
    (tmp_path / "b.jpg").write_bytes(jpeg())
    app = create_app(Settings(inference_workers=1, inference_queue=0, inference_processes=False))
    detector = BlockingDetector()
    configure_labelling(app, tmp_path, detector=detector)
    with TestClient(app) as client:
        yield client, detector
        detector.release.set()


def while_one_runs(client, detector, first: tuple[str, str, dict], second: tuple[str, str, dict]):
    """`first` held in the detector; then `second` and the health; then `first`'s answer."""
    answers = {}

    def send():
        method, url, kwargs = first
        answers["first"] = client.request(method, url, **kwargs)

    runner = threading.Thread(target=send)
    runner.start()
    try:
        assert detector.started.wait(10)
        method, url, kwargs = second
        second_answer = client.request(method, url, **kwargs)
        admitted = client.get("/api/v1/health").json()["inference"]["admitted"]
    finally:
        detector.release.set()
        runner.join(10)
    return answers["first"], second_answer, admitted


def test_label_studio_predictions_take_a_place_in_the_pool_and_a_full_pool_refuses(one_place):
    # before: predictions ran beside the pool: nothing admitted, nothing refused
    client, detector = one_place
    predict = ("POST", "/labelstudio/predict", {"json": predict_body(jpeg())})
    first, second, admitted = while_one_runs(client, detector, predict, predict)
    assert admitted == 1
    assert second.status_code == 503 and second.json()["error"]["code"] == "busy"
    assert second.headers["retry-after"] == "1"
    assert first.status_code == 200 and first.json()["results"][0]["result"][0]["value"]["rectanglelabels"] == ["B5"]
    assert detector.threads == ["fanshot-infer_0"]  # a worker of the pool
    assert client.get("/api/v1/health").json()["inference"]["admitted"] == 0


def test_pre_labelling_takes_a_place_in_the_pool_and_a_full_pool_refuses(one_place):
    client, detector = one_place
    first, second, admitted = while_one_runs(
        client, detector, ("GET", "/api/v1/label/labels", {"params": {"path": "a.jpg"}}),
        ("POST", "/labelstudio/predict", {"json": predict_body(jpeg())}))
    assert admitted == 1 and second.status_code == 503 and second.json()["error"]["code"] == "busy"
    assert first.status_code == 200 and [b["tile"] for b in first.json()["boxes"]] == ["B5"]
    assert detector.threads == ["fanshot-infer_0"]


def test_with_worker_processes_the_server_never_loads_the_model_for_labelling(tmp_path, monkeypatch):
    # before: /labelstudio/predict and pre-labels loaded and ran the detector in the server's process
    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    import vision.detector

    monkeypatch.setattr(vision.detector, "get_detector",
                        lambda *a, **k: pytest.fail("the detector was loaded in the server's process"))
    (tmp_path / "a.jpg").write_bytes(jpeg())
    settings = dataclasses.replace(Settings(), inference_workers=1, inference_processes=True)
    app = create_app(settings)
    configure_labelling(app, tmp_path)
    with TestClient(app) as client:
        predicted = client.post("/labelstudio/predict", json=predict_body(jpeg()))
        labels = client.get("/api/v1/label/labels", params={"path": "a.jpg"})
        setup = client.post("/labelstudio/setup", json={})
    assert predicted.status_code == 200, predicted.text
    assert predicted.json()["results"][0]["model_version"] == setup.json()["model_version"]
    assert labels.status_code == 200 and labels.json()["labelled"] is True
