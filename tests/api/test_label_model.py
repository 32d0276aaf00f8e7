"""The labelling tool with the real detector of models/ (skipped until a model is shipped).

Checks the wiring only (pre-labels written as YOLO, scores from the model, Label Studio
results), not the model's accuracy.
"""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from PIL import Image

from api.label_routes import configure_labelling, router
from vision.classes import CLASSES

MODEL_DIR = Path(__file__).resolve().parents[2] / "models"
pytestmark = pytest.mark.skipif(not (MODEL_DIR / "model.json").is_file(), reason="no detector model in models/ yet")


def table_photo() -> bytes:
    """A green table with a row of light tile-sized blocks (something for the finder to look at)."""
    rgb = np.zeros((480, 640, 3), np.uint8)
    rgb[:] = (40, 110, 60)
    for i in range(8):
        x = 60 + i * 64
        rgb[180:270, x:x + 56] = (235, 232, 220)
        rgb[200:250, x + 14:x + 42] = (180, 40, 40) if i % 2 else (40, 80, 170)
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="JPEG", quality=92)
    return buffer.getvalue()


def test_real_detector_prelabels_and_answers_label_studio(tmp_path):
    (tmp_path / "table.jpg").write_bytes(table_photo())
    app = FastAPI()
    app.include_router(router)
    configure_labelling(app, tmp_path)
    client = TestClient(app)

    doc = client.get("/api/v1/label/labels", params={"path": "table.jpg"}).json()
    assert doc["labelled"] and doc["warnings"] == []
    assert (tmp_path / "table.txt").is_file()
    for box in doc["boxes"]:
        assert box["tile"] in CLASSES and 0 < box["score"] <= 1
    scores = [b["score"] for b in doc["boxes"]]
    assert scores == sorted(scores)

    config = ('<View><Image name="image" value="$image"/><RectangleLabels name="label" toName="image">'
              + "".join(f'<Label value="{c}"/>' for c in CLASSES) + "</RectangleLabels></View>")
    response = client.post("/labelstudio/predict", json={
        "tasks": [{"id": 1, "data": {"image": "/data/local-files/?d=table.jpg"}}], "label_config": config})
    assert response.status_code == 200
    assert len(response.json()["results"][0]["result"]) == len(doc["boxes"])
