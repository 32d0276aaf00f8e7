"""A body that is not strict JSON is one kind of error: 400 `bad_json`, on every route that reads
JSON (the scorer's, the labelling tool's, Label Studio's backend), never a 422 or a 500."""
from __future__ import annotations

import pytest
from label_app import labelling_app

from api.label.state import configure_labelling

JSON = {"Content-Type": "application/json"}
NOT_JSON = [
    pytest.param(b'{"hand": ', id="cut short"),
    pytest.param(b"[" * 100_000, id="deep nesting"),
    pytest.param(b"\xff\xfe{}", id="not utf-8"),
]
NOT_STRICT = [
    pytest.param(b'{"tasks": [], "label_config": "<View/>", "x": NaN}', id="NaN"),
    pytest.param(b'{"tasks": [], "label_config": "<View/>", "x": -Infinity}', id="Infinity"),
    pytest.param(b'{"tasks": [], "label_config": "<View/>", "x": 1e400}', id="overflow"),
    pytest.param(b'{"tasks": ' + b"[" * 40 + b"]" * 40 + b', "label_config": "<View/>"}', id="40 levels"),
]


@pytest.mark.parametrize("body", NOT_JSON)
def test_the_scorer_answers_a_body_that_is_not_json_with_400_bad_json(make_client, body):
    answer = make_client(raise_server_exceptions=False).post("/api/v1/score", content=body, headers=JSON)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "bad_json"
    assert error["message"].startswith("the body is not JSON")


def test_a_broken_multipart_body_is_still_bad_request(client):
    answer = client.post("/api/v1/detect", content=b"--x\r\nbroken",
                         headers={"Content-Type": "multipart/form-data; boundary=x"})
    assert answer.status_code in (400, 422)
    assert answer.json()["error"]["code"] != "bad_json"


@pytest.fixture
def studio(tmp_path):
    from fastapi.testclient import TestClient

    app = labelling_app()
    configure_labelling(app, tmp_path, detector=object())
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.mark.parametrize("route", ["/labelstudio/predict", "/labelstudio/setup"])
@pytest.mark.parametrize("body", NOT_JSON + NOT_STRICT)
def test_label_studio_routes_read_strict_json(studio, route, body):
    answer = studio.post(route, content=body, headers=JSON)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"]["code"] == "bad_json"
