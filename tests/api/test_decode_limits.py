"""The byte limit of decoding (vision.decode) as the routes answer it: 413 with the reason, on the
service's /detect and on Label Studio's /predict with a `data:` URI, before anything is decoded."""
from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from label_app import labelling_app

from api.label.state import configure_labelling

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from test_decode_memory import png_header  # noqa: E402

RGBA_36MP = png_header(6000, 6000, colour_type=6)  # under both pixel limits (40 and 50 MP)
LABEL_CONFIG = ('<View><Image name="image" value="$image"/><RectangleLabels name="label" toName="image">'
                '<Label value="B5"/></RectangleLabels></View>')


def test_detect_refuses_an_image_too_large_in_memory_with_413(client):
    answer = client.post("/api/v1/detect", files={"image": ("a.png", RGBA_36MP, "image/png")})
    assert answer.status_code == 413
    error = answer.json()["error"]
    assert error["code"] == "too_many_bytes"
    assert "6000x6000, RGBA" in error["message"] and "50,000,000 pixels" in error["message"]


class NoTiles:
    def detect(self, rgb, **_):
        from vision.detections import Detections

        return Detections([])


@pytest.mark.parametrize("image, status, code", [
    (RGBA_36MP, 413, "too_many_bytes"),
    (png_header(20_000, 20_000, colour_type=0), 413, "too_many_pixels"),
])
def test_label_studio_refuses_a_data_uri_too_large_in_memory(tmp_path, image, status, code):
    app = labelling_app()
    configure_labelling(app, tmp_path, detector=NoTiles())
    uri = "data:image/png;base64," + base64.b64encode(image).decode()
    with TestClient(app) as client:
        answer = client.post("/labelstudio/predict", json={"tasks": [{"id": 3, "data": {"image": uri}}],
                                                           "label_config": LABEL_CONFIG})
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code
    assert answer.json()["error"]["message"].startswith("task 3: the image ")
