"""Fanshot as a Label Studio ML backend: the project's label config read, and a task's
prediction made by the detector.

In Label Studio, Settings -> Model -> Connect model, URL `http://HOST:PORT/labelstudio` (the
routes are api/routes/labelstudio.py). The shapes follow label-studio-ml-backend:

- GET  /health (and /)  -> `{"status": "UP", "model_class": ...}`
- POST /setup   `{"project": "ID.TIMESTAMP", "schema": LABEL_CONFIG, ...}` -> `{"model_version"}`
- POST /predict `{"tasks": [{"id", "data": {"image": URL}}], "label_config": XML, ...}`
  -> `{"results": [{"result": [rectanglelabels ...], "score", "model_version"}]}`
  with box x/y/width/height in percent of the image, as Label Studio expects.

Where task images come from: api/label/task_images.py.
"""
from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from typing import Any

from api.label.errors import LabelError
from api.label.store import LabelStore
from api.label.task_images import task_image
from vision.classes import CLASS_ID

MODEL_CLASS = "FanshotTileDetector"


def model_version(spec: dict[str, Any] | None, name: str | None = None) -> str:
    """A name for the model: `name` if given, else the version or format in its model.json `spec`."""
    spec = spec or {}
    version = name or spec.get("version") or spec.get("format")
    return str(version or "fanshot-detector")


def parse_label_config(xml: object) -> dict[str, Any]:
    """`{"from_name", "to_name", "value_key", "labels"}` of the first RectangleLabels tag."""
    if not isinstance(xml, str) or not xml.strip():
        raise LabelError("bad_label_config", "label_config is missing", 422)
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise LabelError("bad_label_config", f"label_config is not XML: {exc}", 422) from exc
    rect = next(root.iter("RectangleLabels"), None)
    from_name = rect.get("name") if rect is not None else None
    to_names = rect.get("toName") if rect is not None else None
    if rect is None or not from_name or not to_names:
        raise LabelError("bad_label_config", "label_config has no RectangleLabels with name and toName", 422)
    to_name = to_names.split(",")[0]
    image = next((el for el in root.iter("Image") if el.get("name") == to_name), None)
    value = (image.get("value") or "") if image is not None else ""
    if image is None or not value.startswith("$"):
        raise LabelError("bad_label_config", f"label_config has no <Image name={to_name!r} value='$...'>", 422)
    labels = [el.get("value") for el in rect.iter("Label") if el.get("value")]
    return {"from_name": from_name, "to_name": to_name, "value_key": value[1:], "labels": labels}


def label_for(code: str, labels: list[str]) -> str | None:
    """The project's label for our class `code`: the code itself, or a name datasets.classmap maps to it."""
    from datasets.classmap import try_code

    if not labels or code in labels:
        return code
    return next((label for label in labels if try_code(label) == code), None)


def missing_classes(labels: list[str]) -> list[str]:
    """Our classes that none of a project's labels stands for (their tiles are left out)."""
    return [code for code in CLASS_ID if label_for(code, labels) is None]


def task_photo(task: object, config: dict[str, Any], store: LabelStore | None,
               connection: dict[str, str]) -> tuple[str, bytes]:
    """A task's name for messages and its image's bytes (api/label/task_images.py)."""
    if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
        raise LabelError("bad_task", "each task must be an object with 'data'", 422)
    where = f"task {task.get('id', '?')}"
    try:
        return where, task_image(task["data"].get(config["value_key"]), store, connection)
    except LabelError as exc:
        raise LabelError(exc.code, f"{where}: {exc.message}", exc.status) from exc


def prediction(found: dict[str, Any], config: dict[str, Any], version: str) -> dict[str, Any]:
    """One Label Studio prediction from the detector's answer for the task's photo
    (vision.detector.detect_photo: `{"width", "height", "detections"}`, boxes in its pixels)."""
    width, height = found["width"], found["height"]
    result, scores = [], []
    for index, tile in enumerate(found["detections"]):
        label = label_for(tile.get("tile", ""), config["labels"])
        if label is None or tile.get("tile") not in CLASS_ID:
            continue
        x1, y1, x2, y2 = (float(v) for v in tile["box"])
        score = float(tile["score"])
        scores.append(score)
        value = {"x": 100 * x1 / width, "y": 100 * y1 / height, "width": 100 * (x2 - x1) / width,
                 "height": 100 * (y2 - y1) / height, "rotation": 0, "rectanglelabels": [label]}
        result.append({"id": f"fanshot-{index}", "from_name": config["from_name"],
                       "to_name": config["to_name"], "type": "rectanglelabels",
                       "original_width": width, "original_height": height, "image_rotation": 0,
                       "value": value, "score": score})
    # The task's score is its least confident box, so Label Studio can sort the doubtful first.
    return {"result": result, "score": min(scores) if scores else 0.0, "model_version": version}
