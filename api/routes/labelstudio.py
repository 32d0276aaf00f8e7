"""The Label Studio ML backend under /labelstudio (api/label/studio.py). Routes without a
return annotation have no response model: they answer Label Studio's shapes as built."""
from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from api.errors import ApiError
from api.json_body import JsonBodyError, read_json_body
from api.label.errors import LabelError, openapi_errors
from api.label.state import (
    detect_photo,
    detector_version,
    keep_label_studio_connection,
    label_studio_connection,
    no_detector,
    optional_store,
)
from api.label.store import DetectorUnavailable
from api.label.studio import MODEL_CLASS, missing_classes, parse_label_config, prediction, task_photo
from api.label.task_images import sent_from_host
from vision.classes import CLASSES

router = APIRouter(prefix="/labelstudio", tags=["label studio"])
log = logging.getLogger("fanshot.label")


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = await read_json_body(request)
    except JsonBodyError as exc:
        raise LabelError("bad_json", f"the body must be a JSON object; {exc}", 400) from None
    if not isinstance(body, dict):
        raise LabelError("bad_json", "the body must be a JSON object", 400)
    return body


@router.get("/health")
@router.get("/")
def health(request: Request):
    return {"status": "UP", "model_class": MODEL_CLASS}


# Label Studio sends more keys (project, schema, model_version, extra_params); only these are read.
SETUP_BODY = {"requestBody": {"required": True, "content": {"application/json": {"schema": {
    "type": "object",
    "properties": {"hostname": {"type": "string"}, "access_token": {"type": "string"}},
}}}}}
PREDICT_BODY = {"requestBody": {"required": True, "content": {"application/json": {"schema": {
    "type": "object",
    "required": ["tasks", "label_config"],
    "properties": {"tasks": {"type": "array", "items": {"type": "object"}},
                   "label_config": {"type": "string", "minLength": 1}},
}}}}}


@router.post("/setup", openapi_extra=SETUP_BODY, responses=openapi_errors(400, 422, 503))
async def setup(request: Request):
    with _logged(request):
        body = await _json_body(request)
        version = detector_version(request)
        connection = await run_in_threadpool(label_studio_connection, request)
        for key in ("hostname", "access_token"):
            if key in body and not isinstance(body[key], str):
                raise LabelError("bad_setup", f"'{key}' must be a string", 422)
            if body.get(key):
                connection[key] = body[key]
        peer = request.client.host if request.client else ""
        # Label Studio's own address, as it names itself: fetched from without FANSHOT_IMAGE_HOSTS
        connection["trusted_hostname"] = await run_in_threadpool(
            lambda: connection.get("hostname", "") if sent_from_host(connection.get("hostname", ""), peer) else "")
        await run_in_threadpool(keep_label_studio_connection, request, connection)
        answer: dict[str, Any] = {"model_version": version}
        warning = _label_warning(body.get("schema"))
        if warning:
            log.warning("labelstudio /setup: %s", warning)
            answer["warning"] = warning
        return answer


@router.post("/predict", openapi_extra=PREDICT_BODY,
             responses=openapi_errors(400, 403, 404, 413, 415, 422, 502, 503))
async def predict(request: Request):
    with _logged(request):
        body = await _json_body(request)
        tasks = body.get("tasks")
        if not isinstance(tasks, list):
            raise LabelError("bad_request", "'tasks' must be a list of Label Studio tasks", 422)
        config = parse_label_config(body.get("label_config"))
        version = detector_version(request)
        store = optional_store(request)
        connection = await run_in_threadpool(label_studio_connection, request)
        results = []
        for task in tasks:  # one at a time, each in the inference pool as a photo of /api/v1/detect
            where, data = await run_in_threadpool(task_photo, task, config, store, connection)
            try:
                found = await detect_photo(request.app, data)
            except DetectorUnavailable as exc:
                raise no_detector(exc) from exc
            except ApiError as exc:
                if exc.status not in (413, 415, 422):  # a full pool's 503 goes on as it is
                    raise
                raise LabelError(exc.code, f"{where}: {exc.message}", exc.status) from exc
            results.append(prediction(found, config, version))
        return {"results": results, "model_version": version}


@contextmanager
def _logged(request: Request) -> Iterator[None]:
    """Say in the log why a request of Label Studio was refused: Label Studio shows only the status."""
    try:
        yield
    except LabelError as exc:
        log.warning("labelstudio %s %s: %s %s", request.url.path, exc.status, exc.code, exc.message)
        raise


def _label_warning(schema: object) -> str | None:
    """A warning when the project's labelling interface leaves classes out (their tiles are not
    predicted); None when it names them all or cannot be read (/predict says why then)."""
    try:
        labels = parse_label_config(schema)["labels"]
    except LabelError:
        return None
    missing = missing_classes(labels)
    if not missing:
        return None
    return (f"the project's labels name {len(CLASSES) - len(missing)} of Fanshot's {len(CLASSES)} classes: tiles "
            f"of {', '.join(missing)} will not be predicted; use the interface `fanshot dataset labelstudio-config` "
            "prints")


@router.get("/versions")
def versions(request: Request) -> dict:
    """The model versions Label Studio may choose from: the one model Fanshot serves."""
    return {"versions": [detector_version(request)]}


@router.post("/webhook")
async def webhook(request: Request) -> dict:
    """Label Studio sends annotation events here, and START_TRAINING when a user asks to train;
    Fanshot does not train from Label Studio (training/ trains from an exported dataset)."""
    try:
        action = (await request.json()).get("action")
    except (ValueError, AttributeError):
        action = None
    if action == "START_TRAINING":
        return {"status": "not trained", "message": "Fanshot does not train from Label Studio: export the project "
                "(YOLO or JSON), convert it with `fanshot dataset convert`, and train with `fanshot train`"}
    return {"status": "Unknown event"}


@router.get("/metrics")
def metrics() -> dict:
    return {}
