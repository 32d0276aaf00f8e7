"""The labelling tool's page (/label) and its API (/api/v1/label/*): api/label/.

The folder and detector come from the app (api/label/state.py). Routes without a return
annotation answer what they build (files, the store's documents) without a response model.
"""
from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from fastapi import APIRouter, File, Query, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, Response
from starlette.background import BackgroundTask

from api.errors import ApiError
from api.json_body import JsonBodyError, read_json_body
from api.label.corrections import remember_corrections
from api.label.errors import LabelError, openapi_errors
from api.label.sidecar import UNSEEN
from api.label.state import get_store
from api.label.store import MAX_IMAGE_BYTES
from api.uploads import check_form_fields
from vision.classes import CLASSES

STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
PAGE_FILES = {"label.js": "text/javascript", "label_tiles.js": "text/javascript", "label.css": "text/css"}
NO_CACHE = {"Cache-Control": "no-cache"}
WARNINGS_HEADER = "X-Fanshot-Warnings"  # of an export: a JSON list of the label files skipped, and why
BROWSER_IMAGE_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}

# What api/label/store.py resolve_image takes (it checks, with its own messages): '/'-separated names,
# none empty, hidden or '..', no backslash, no drive letter.
PATH_PATTERN = r"^[^/\\\x00.\s]([^/\\\x00:][^/\\\x00]*)?(/[^/\\\x00.][^/\\\x00]*)*$"
PATH = Query(description="the image's path relative to the folder, as GET /label/images gives it",
             json_schema_extra={"minLength": 1, "pattern": PATH_PATTERN})
EXPORT_FORMATS = ["yolo", "coco", "labelstudio"]
# The body PUT /labels reads (api/label/boxes.py validate_boxes); a box must also keep some area inside
# the image, which no schema can say.
LABELS_BODY = {"requestBody": {"required": True, "content": {"application/json": {"schema": {
    "type": "object",
    "required": ["boxes"],
    "properties": {"boxes": {"type": "array", "items": {
        "type": "object",
        "required": ["tile", "box"],
        "properties": {
            "tile": {"type": "string", "enum": list(CLASSES)},
            "box": {"type": "array", "minItems": 4, "maxItems": 4, "description": "[x1, y1, x2, y2] in pixels",
                    "items": {"type": "number", "exclusiveMinimum": -1e6, "exclusiveMaximum": 1e6}},
            "score": {"type": ["number", "null"], "description": "the detector's; null: a person's box"},
        },
    }}, "version": {"type": ["string", "null"], "description": "the `version` of the labels the change was made "
                    "on (from GET /labels or the last change's answer); a label file changed since: 409 "
                    "stale_labels. Left out: not checked"}},
}}}}}

page = APIRouter()
router = APIRouter(prefix="/label", tags=["labelling"])


@page.get("/label", include_in_schema=False)
def label_page() -> FileResponse:
    return FileResponse(STATIC_DIR / "label.html", media_type="text/html", headers=NO_CACHE)


@page.get("/label/static/{name}", include_in_schema=False)
def label_static(name: str) -> FileResponse:
    if name not in PAGE_FILES:
        raise LabelError("not_found", f"no file {name!r}", 404)
    return FileResponse(STATIC_DIR / name, media_type=PAGE_FILES[name], headers=NO_CACHE)


@router.get("/classes")
def classes() -> dict:
    """The 43 classes with the keys that select them (see api/label/keys.py)."""
    from api.label.keys import class_table

    return {"classes": class_table()}


@router.get("/images", responses=openapi_errors(503))
def list_images(request: Request):
    """Every image of the folder with its labelling state."""
    store = get_store(request)
    images, warnings = store.list_images()
    listing: dict = {"folder": str(store.root), "images": images}
    tileset = getattr(request.app.state, "label_tileset", None)
    if tileset:  # the set photos are pre-labelled with, and corrected tiles added to (PUT /labels)
        listing["tileset"] = tileset
    if warnings:  # label files skipped (links out of the folder), sidecar values read as no score
        listing["warnings"] = warnings
    return listing


@router.post("/images", status_code=201, responses=openapi_errors(400, 413, 415, 422, 503))
async def upload_image(request: Request, file: UploadFile = File(...)):
    """Add an image to the folder (multipart field `file`); refuses non-images with 415, and a form
    with another field or a second file (one would be dropped unsaid) with 422 (api.uploads.check_form_fields)."""
    try:
        await check_form_fields(request, frozenset({"file"}))
    except ApiError as exc:  # answered without its params, as every labelling error
        raise LabelError(exc.code, exc.message, exc.status) from None
    data = await file.read(MAX_IMAGE_BYTES + 1)
    return {"path": await run_in_threadpool(get_store(request).add_image, file.filename or "", data)}


@router.get("/image", responses=openapi_errors(400, 403, 404, 413, 415, 422, 503))
def image(request: Request, path: str = PATH):
    """The image bytes; formats a browser cannot show (HEIC) come back as JPEG."""
    store = get_store(request)
    data = store.read_image(path)
    media_type = BROWSER_IMAGE_TYPES.get(Path(path).suffix.lower())
    if media_type is None:
        data, media_type = _as_jpeg(data, path), "image/jpeg"
    return Response(data, media_type=media_type, headers=NO_CACHE)


def _as_jpeg(data: bytes, path: str) -> bytes:
    from PIL import Image

    from vision.decode import ImageError, decode_image

    try:
        rgb = decode_image(data)
    except ImageError as exc:
        raise LabelError(exc.code, f"{path}: {exc.message}", exc.status) from exc
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="JPEG", quality=90)
    return buffer.getvalue()


@router.get("/labels", responses=openapi_errors(400, 403, 404, 413, 415, 422, 503))
def get_labels(request: Request, path: str = PATH):
    """The boxes of an image (pixels, least confident first); pre-labels it the first time."""
    return get_store(request).load(path)


@router.put("/labels", openapi_extra=LABELS_BODY, responses=openapi_errors(400, 403, 404, 409, 415, 422, 503))
async def put_labels(request: Request, path: str = PATH, remember: bool = Query(
        True, description="on a server started with a tile set, add the tiles corrected to it")):
    """Replace the boxes of an image: body `{"boxes": [{"tile", "box", "score"}], "version"}`. On a server
    started with a tile set, the tiles corrected are added to it unless `remember=false` (`tileset` in
    the answer: name, added, examples, or error; the labels are saved either way)."""
    try:
        body = await read_json_body(request)
    except JsonBodyError as exc:
        raise LabelError("bad_json", f"the body must be JSON: {{\"boxes\": [...]}}; {exc}", 400) from None
    if not isinstance(body, dict) or "boxes" not in body:
        raise LabelError("bad_boxes", "the body must be {\"boxes\": [...]}", 422)
    store = get_store(request)
    labelled = store.label_path(store.resolve_image(path)).is_file()
    before = store.load(path)["boxes"] if labelled else []  # a label file there: read, not detected
    # in a thread: the save may wait for another process's change to the folder (its lock)
    saved = await run_in_threadpool(store.save, path, body["boxes"], body.get("version", UNSEEN))
    remembered = await remember_corrections(request.app, store, path, before, saved["boxes"]) if remember else None
    return saved if remembered is None else {**saved, "tileset": remembered}


@router.post("/undo", responses=openapi_errors(400, 403, 404, 409, 415, 503))
def undo(request: Request, path: str = PATH):
    """Restore the previous version of an image's labels (409 when there is none)."""
    return get_store(request).undo(path)


@router.post("/reviewed", responses=openapi_errors(400, 403, 404, 409, 415, 503))
def reviewed(request: Request, path: str = PATH):
    """Mark an image's labels as checked by a person without changing them."""
    return get_store(request).mark_reviewed(path)


@router.get("/export", responses=openapi_errors(409, 422, 503))
def export(request: Request, format: str = Query("yolo", json_schema_extra={"enum": EXPORT_FORMATS}),
           reviewed_only: bool = False):
    """The labelled images: YOLO as a zip (data.yaml, images/, labels/), COCO or Label Studio JSON;
    label files skipped (links out of the folder) are named in the X-Fanshot-Warnings header."""
    from api.label.export import export_file

    path, media_type, name, warnings = export_file(get_store(request), format, reviewed_only)
    cleanup = BackgroundTask(shutil.rmtree, path.parent, ignore_errors=True)
    headers = {WARNINGS_HEADER: json.dumps(warnings)} if warnings else None  # ASCII: non-ASCII is escaped
    return FileResponse(path, media_type=media_type, filename=name, background=cleanup, headers=headers)
