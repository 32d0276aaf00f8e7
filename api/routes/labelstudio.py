"""The Label Studio ML backend under /labelstudio (api/label/studio.py). Routes without a
return annotation have no response model: they answer Label Studio's shapes as built."""
from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool

from api.errors import ApiError
from api.json_body import JsonBodyError, read_json_body
from api.label.errors import LabelError, openapi_errors
from api.label.state import detect_photo, detector_version, label_studio_connection, no_detector, optional_store
from api.label.store import DetectorUnavailable
from api.label.studio import MODEL_CLASS, parse_label_config, prediction, task_photo

router = APIRouter(prefix="/labelstudio", tags=["label studio"])


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
    body = await _json_body(request)
    version = detector_version(request)
    connection = label_studio_connection(request)
    for key in ("hostname", "access_token"):
        if key in body and not isinstance(body[key], str):
            raise LabelError("bad_setup", f"'{key}' must be a string", 422)
        if body.get(key):
            connection[key] = body[key]
    request.app.state.label_studio_settings = connection
    return {"model_version": version}


@router.post("/predict", openapi_extra=PREDICT_BODY,
             responses=openapi_errors(400, 403, 404, 413, 415, 422, 502, 503))
async def predict(request: Request):
    body = await _json_body(request)
    tasks = body.get("tasks")
    if not isinstance(tasks, list):
        raise LabelError("bad_request", "'tasks' must be a list of Label Studio tasks", 422)
    config = parse_label_config(body.get("label_config"))
    version = detector_version(request)
    store = optional_store(request)
    connection = label_studio_connection(request)
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


@router.post("/webhook")
def webhook() -> dict:
    """Label Studio sends annotation events here; Fanshot does not train from them."""
    return {"status": "Unknown event"}


@router.get("/metrics")
def metrics() -> dict:
    return {}
