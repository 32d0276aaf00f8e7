"""The labelling tool with the real detector of models/ (skipped until a model is shipped).

Checks the wiring only (pre-labels written as YOLO, scores from the model, Label Studio
results), not the model's accuracy.
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from label_app import labelling_app
from PIL import Image

from api.label.state import configure_labelling
from vision.classes import CLASSES

MODEL_DIR = Path(__file__).resolve().parents[2] / "models"
pytestmark = pytest.mark.skipif(not (MODEL_DIR / "model.json").is_file(), reason="no detector model in models/ yet")


def scene_photo() -> tuple[bytes, int]:
    """A synthetic table photo from datasets.synth (JPEG bytes, number of tiles in it)."""
    from datasets.synth.generate import make_example

    example = make_example(7, 0, [960])
    buffer = io.BytesIO()
    Image.fromarray(example["image"]).save(buffer, format="JPEG", quality=92)
    return buffer.getvalue(), len(example["record"]["boxes"])


def test_real_detector_prelabels_and_answers_label_studio(tmp_path):
    photo, tiles = scene_photo()
    (tmp_path / "table.jpg").write_bytes(photo)
    app = labelling_app()
    configure_labelling(app, tmp_path)
    client = TestClient(app)

    doc = client.get("/api/v1/label/labels", params={"path": "table.jpg"}).json()
    assert doc["labelled"] and doc["warnings"] == []
    assert (tmp_path / "table.txt").is_file()
    assert 0 < len(doc["boxes"]) <= 2 * tiles  # it sees tiles; how well is the detector's own test
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
