"""Label Studio ML backend endpoints, so a Label Studio project can use Fanshot as its pre-labeller.

Mounted under /labelstudio: in Label Studio, Settings -> Model -> Connect model,
URL `http://HOST:PORT/labelstudio`. The shapes follow label-studio-ml-backend:

- GET  /health (and /)  -> `{"status": "UP", "model_class": ...}`
- POST /setup   `{"project": "ID.TIMESTAMP", "schema": LABEL_CONFIG, ...}` -> `{"model_version"}`
- POST /predict `{"tasks": [{"id", "data": {"image": URL}}], "label_config": XML, ...}`
  -> `{"results": [{"result": [rectanglelabels ...], "score", "model_version"}]}`
  with box x/y/width/height in percent of the image, as Label Studio expects.

Task images are read from a `data:` URI, from the labelling folder (Label Studio
local files `/data/local-files/?d=...`, or a path inside the folder), or fetched
from Label Studio itself (`/data/upload/...`) at LABEL_STUDIO_URL with the token
LABEL_STUDIO_API_KEY (the same variables as Label Studio's own ML backends). Absolute
URLs on other hosts are fetched only from hosts named in FANSHOT_IMAGE_HOSTS, and redirects
followed only to those hosts or to public addresses.
"""
from __future__ import annotations

import base64
import ipaddress
import os
import socket
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from api.label_errors import LabelError, openapi_errors
from api.label_store import MAX_IMAGE_BYTES, LabelStore
from vision.classes import CLASS_ID

MODEL_CLASS = "FanshotTileDetector"
FETCH_TIMEOUT_S = 20
IMAGE_HOSTS_VARIABLE = "FANSHOT_IMAGE_HOSTS"

router = APIRouter(prefix="/labelstudio", tags=["label studio"])


def _error(exc: LabelError) -> JSONResponse:
    return JSONResponse(exc.to_json(), status_code=exc.status)


async def _json_body(request: Request) -> dict:
    try:
        body = await request.json()
    except ValueError as exc:
        raise LabelError("bad_json", "the body must be a JSON object", 400) from exc
    if not isinstance(body, dict):
        raise LabelError("bad_json", "the body must be a JSON object", 400)
    return body


def app_detector(app):
    """The detector of the labelling tool: the one given to configure_labelling, else the shipped model."""
    detector = getattr(app.state, "label_detector", None)
    if detector is not None:
        return detector
    from vision.detector import get_detector

    settings = getattr(app.state, "settings", None)
    return get_detector(getattr(settings, "model_dir", None))


def _detector(request: Request):
    try:
        return app_detector(request.app)
    except Exception as exc:  # no model in models/ yet, a broken model file ...
        raise LabelError("no_detector", f"the detector is not available: {exc}", 503) from exc


def _model_version(detector) -> str:
    """A name for the model: its `model_version`, else the version or format in models/model.json."""
    spec = getattr(detector, "spec", None) or {}
    version = getattr(detector, "model_version", None) or spec.get("version") or spec.get("format")
    return str(version or "fanshot-detector")


# --- label config -------------------------------------------------------------------


def parse_label_config(xml: str) -> dict:
    """`{"from_name", "to_name", "value_key", "labels"}` of the first RectangleLabels tag."""
    if not isinstance(xml, str) or not xml.strip():
        raise LabelError("bad_label_config", "label_config is missing", 422)
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise LabelError("bad_label_config", f"label_config is not XML: {exc}", 422) from exc
    rect = next(root.iter("RectangleLabels"), None)
    if rect is None or not rect.get("name") or not rect.get("toName"):
        raise LabelError("bad_label_config", "label_config has no RectangleLabels with name and toName", 422)
    to_name = rect.get("toName").split(",")[0]
    image = next((el for el in root.iter("Image") if el.get("name") == to_name), None)
    if image is None or not (image.get("value") or "").startswith("$"):
        raise LabelError("bad_label_config", f"label_config has no <Image name={to_name!r} value='$...'>", 422)
    labels = [el.get("value") for el in rect.iter("Label") if el.get("value")]
    return {"from_name": rect.get("name"), "to_name": to_name, "value_key": image.get("value")[1:],
            "labels": labels}


def label_for(code: str, labels: list[str]) -> str | None:
    """The project's label for our class `code`: the code itself, or a name datasets.classmap maps to it."""
    from datasets.classmap import try_code

    if not labels or code in labels:
        return code
    return next((label for label in labels if try_code(label) == code), None)


# --- task images --------------------------------------------------------------------


def _local_image(store: LabelStore | None, rel: str) -> bytes:
    """An image of the labelling folder named by a Label Studio local-files path."""
    if store is None:
        raise LabelError("no_label_folder", f"{rel!r} is a local file but no labelling folder is set", 422)
    parts = [p for p in rel.replace("\\", "/").split("/") if p]
    # Label Studio names local files from its document root; the folder may be below it.
    for start in range(len(parts)):
        candidate = "/".join(parts[start:])
        try:
            return store.read_image(candidate)
        except LabelError as exc:
            if exc.status != 404:
                raise
    raise LabelError("not_found", f"{rel!r} is not in the labelling folder", 404)


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, parts.netloc.lower()


def public_address(host: str) -> bool:
    """Whether every address `host` resolves to is a public one (not loopback, private,
    link-local such as cloud metadata, or reserved)."""
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0].split("%")[0]).is_global for info in infos)


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects (Label Studio may send uploads on to cloud storage) without the token, and
    only to a host Fanshot may fetch from (image_host_allowed) or a public address: a host named
    in FANSHOT_IMAGE_HOSTS must not become a way into the server's own network."""

    def __init__(self, trusted: str):
        super().__init__()
        self.trusted = trusted

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(req.full_url):
            parts = urllib.parse.urlsplit(newurl)
            if parts.scheme not in ("http", "https") or not (
                    image_host_allowed(newurl, self.trusted) or public_address(parts.hostname or "")):
                raise LabelError("image_host_not_allowed",
                                 f"{req.host} redirected the image to {parts.scheme}://{parts.netloc}, which is not a "
                                 f"public http(s) address: Fanshot follows it only when {IMAGE_HOSTS_VARIABLE} "
                                 "names the host", 403)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            new.remove_header("Authorization")
        return new


def image_host_allowed(url: str, base: str) -> bool:
    """Whether Fanshot may fetch `url`: from Label Studio's own origin (`base`), or from a host
    named in FANSHOT_IMAGE_HOSTS (comma-separated `host` or `host:port`; `*` for any host).
    Anything else would let whoever can reach /labelstudio/predict make the server fetch URLs
    of their choosing (internal services, cloud metadata)."""
    if base and _origin(url) == _origin(base):
        return True
    allowed = {h.strip().lower() for h in os.environ.get(IMAGE_HOSTS_VARIABLE, "").split(",") if h.strip()}
    parts = urllib.parse.urlsplit(url)
    return "*" in allowed or parts.netloc.lower() in allowed or (parts.hostname or "") in allowed


def _fetch(url: str, base: str, token: str, trusted: str) -> bytes:
    """GET an image; the token goes only to Label Studio's own host (`base`). `trusted` is
    LABEL_STUDIO_URL: a `hostname` sent to /setup by anyone who reaches the service is not."""
    full = urllib.parse.urljoin(base.rstrip("/") + "/", url) if base else url
    if urllib.parse.urlsplit(full).scheme not in ("http", "https"):
        raise LabelError("bad_image_url", f"cannot fetch {url!r}: set LABEL_STUDIO_URL for relative URLs", 422)
    if not image_host_allowed(full, trusted):
        host = urllib.parse.urlsplit(full).netloc
        raise LabelError("image_host_not_allowed",
                         f"{host} is not Label Studio's host (LABEL_STUDIO_URL): Fanshot fetches task images "
                         f"from elsewhere only when {IMAGE_HOSTS_VARIABLE} names the host", 403)
    send_token = bool(token) and bool(base) and _origin(full) == _origin(base)
    request = urllib.request.Request(full, headers={"Authorization": f"Token {token}"} if send_token else {})
    opener = urllib.request.build_opener(_Redirects(trusted))
    try:
        with opener.open(request, timeout=FETCH_TIMEOUT_S) as response:
            data = response.read(MAX_IMAGE_BYTES + 1)
    except OSError as exc:
        raise LabelError("image_fetch_failed", f"cannot fetch {full}: {exc}", 502) from exc
    if len(data) > MAX_IMAGE_BYTES:
        raise LabelError("too_large", f"{full} is larger than {MAX_IMAGE_BYTES // 2**20} MiB", 413)
    return data


def task_image(url: object, store: LabelStore | None, settings: dict) -> bytes:
    """The bytes of a task's image URL (data URI, local file, or Label Studio upload)."""
    if not isinstance(url, str) or not url:
        raise LabelError("bad_task", "the task has no image URL", 422)
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        if not header.endswith(";base64"):
            raise LabelError("bad_image_url", "a data: URI image must be base64", 422)
        try:
            return base64.b64decode(payload, validate=True)
        except ValueError as exc:
            raise LabelError("bad_image_url", "the data: URI is not valid base64", 422) from exc
    parsed = urllib.parse.urlsplit(url)
    if parsed.path.endswith("/data/local-files/") or parsed.path == "/data/local-files":
        local = urllib.parse.parse_qs(parsed.query).get("d", [""])[0]
        return _local_image(store, local)
    if not parsed.scheme and not url.startswith("/data/") and store is not None:
        return _local_image(store, url)
    trusted = os.environ.get("LABEL_STUDIO_URL", "")
    base = trusted or settings.get("hostname", "")
    token = os.environ.get("LABEL_STUDIO_API_KEY") or settings.get("access_token", "")
    return _fetch(url, base, token, trusted)


def predict_task(task: dict, config: dict, detector, store: LabelStore | None, settings: dict) -> dict:
    """One Label Studio prediction for one task."""
    from vision.decode import ImageError, probe_image
    from vision.photo import read_photo

    if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
        raise LabelError("bad_task", "each task must be an object with 'data'", 422)
    where = f"task {task.get('id', '?')}"
    url = task["data"].get(config["value_key"])
    try:
        data = task_image(url, store, settings)
        original_width, original_height = probe_image(data)
        photo = read_photo(data)  # percentages do not depend on the scale
        rgb, found_tiles = photo.image, detector.detect(photo.image, photo=photo).tiles
    except ImageError as exc:
        raise LabelError(exc.code, f"{where}: {exc.message}", exc.status) from exc
    except LabelError as exc:
        raise LabelError(exc.code, f"{where}: {exc.message}", exc.status) from exc
    height, width = rgb.shape[:2]
    result, scores = [], []
    for index, found in enumerate(found_tiles):
        label = label_for(found.get("tile", ""), config["labels"])
        if label is None or found.get("tile") not in CLASS_ID:
            continue
        x1, y1, x2, y2 = (float(v) for v in found["box"])
        score = float(found["score"])
        scores.append(score)
        value = {"x": 100 * x1 / width, "y": 100 * y1 / height, "width": 100 * (x2 - x1) / width,
                 "height": 100 * (y2 - y1) / height, "rotation": 0, "rectanglelabels": [label]}
        result.append({"id": f"fanshot-{index}", "from_name": config["from_name"],
                       "to_name": config["to_name"], "type": "rectanglelabels",
                       "original_width": original_width, "original_height": original_height, "image_rotation": 0,
                       "value": value, "score": score})
    # The task's score is its least confident box, so Label Studio can sort the doubtful first.
    return {"result": result, "score": min(scores) if scores else 0.0,
            "model_version": _model_version(detector)}


# --- endpoints ----------------------------------------------------------------------


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
    "properties": {"tasks": {"type": "array", "items": {"type": "object"}}, "label_config": {"type": "string"}},
}}}}}


@router.post("/setup", openapi_extra=SETUP_BODY, responses=openapi_errors(400, 422, 503))
async def setup(request: Request):
    try:
        body = await _json_body(request)
        detector = _detector(request)
    except LabelError as exc:
        return _error(exc)
    settings = getattr(request.app.state, "label_studio_settings", {})
    for key in ("hostname", "access_token"):
        if key in body and not isinstance(body[key], str):
            return _error(LabelError("bad_setup", f"'{key}' must be a string", 422))
        if body.get(key):
            settings[key] = body[key]
    request.app.state.label_studio_settings = settings
    return {"model_version": _model_version(detector)}


@router.post("/predict", openapi_extra=PREDICT_BODY,
             responses=openapi_errors(400, 403, 404, 413, 415, 422, 502, 503))
async def predict(request: Request):
    try:
        body = await _json_body(request)
        tasks = body.get("tasks")
        if not isinstance(tasks, list):
            raise LabelError("bad_request", "'tasks' must be a list of Label Studio tasks", 422)
        config = parse_label_config(body.get("label_config"))
        detector = _detector(request)
        store = getattr(request.app.state, "label_store", None)
        settings = getattr(request.app.state, "label_studio_settings", {})
        results = await run_in_threadpool(
            lambda: [predict_task(task, config, detector, store, settings) for task in tasks])
    except LabelError as exc:
        return _error(exc)
    return {"results": results, "model_version": _model_version(detector)}


@router.post("/webhook")
def webhook() -> dict:
    """Label Studio sends annotation events here; Fanshot does not train from them."""
    return {"status": "Unknown event"}


@router.get("/metrics")
def metrics() -> dict:
    return {}
