"""HTTP routes of the labelling tool: the /label page and /api/v1/label/*.

The router finds its folder and detector on the app: `configure_labelling(app,
folder, detector=...)` sets them (the `fanshot label DIR` command and the tests
do), otherwise the folder comes from the environment variable
FANSHOT_LABEL_DIR. `router` also carries the Label Studio ML backend endpoints
(/labelstudio/*, see api/label_studio.py), so the app includes one router.
"""
from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

from fastapi import APIRouter, File, Query, Request, UploadFile
from fastapi.responses import FileResponse, JSONResponse, Response
from starlette.background import BackgroundTask

from api.errors import ApiError
from api.label_errors import LabelError, openapi_errors
from api.label_store import MAX_IMAGE_BYTES, LabelStore
from api.label_studio import app_detector
from api.label_studio import router as label_studio_router
from api.uploads import check_form_fields

LABEL_DIR_ENV = "FANSHOT_LABEL_DIR"
STATIC_DIR = Path(__file__).parent / "static"
PAGE_FILES = {"label.js": "text/javascript", "label.css": "text/css"}
NO_CACHE = {"Cache-Control": "no-cache"}
BROWSER_IMAGE_TYPES = {".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".webp": "image/webp"}

router = APIRouter()
api = APIRouter(prefix="/api/v1/label", tags=["labelling"])


def configure_labelling(app, folder: str | os.PathLike, detector=None) -> LabelStore:
    """Point the app's labelling routes at `folder`; `detector` replaces the real one (tests)."""
    app.state.label_detector = detector
    store = LabelStore(folder, detector_factory=lambda: app_detector(app))
    app.state.label_store = store
    return store


def get_store(request: Request) -> LabelStore:
    store = getattr(request.app.state, "label_store", None)
    if store is None:
        folder = os.environ.get(LABEL_DIR_ENV)
        if not folder:
            raise LabelError(
                "no_label_folder",
                f"labelling is off: start the server with `fanshot label DIR` or set {LABEL_DIR_ENV}",
                503,
            )
        store = configure_labelling(request.app, folder)
    return store


def _error(exc: LabelError) -> JSONResponse:
    return JSONResponse(exc.to_json(), status_code=exc.status)


def _handle(call):
    try:
        return call()
    except LabelError as exc:
        return _error(exc)


# --- the page -------------------------------------------------------------------------


@router.get("/label", include_in_schema=False)
def label_page() -> FileResponse:
    return FileResponse(STATIC_DIR / "label.html", media_type="text/html", headers=NO_CACHE)


@router.get("/label/static/{name}", include_in_schema=False)
def label_static(name: str):
    if name not in PAGE_FILES:
        return _error(LabelError("not_found", f"no file {name!r}", 404))
    return FileResponse(STATIC_DIR / name, media_type=PAGE_FILES[name], headers=NO_CACHE)


# --- the API ----------------------------------------------------------------------------


@api.get("/classes")
def classes() -> dict:
    """The 43 classes with the keys that select them (see api/label_keys.py)."""
    from api.label_keys import class_table

    return {"classes": class_table()}


@api.get("/images", responses=openapi_errors(503))
def list_images(request: Request):
    """Every image of the folder with its labelling state."""
    def call():
        store = get_store(request)
        return {"folder": str(store.root), "images": store.list_images()}

    return _handle(call)


@api.post("/images", status_code=201, responses=openapi_errors(400, 413, 415, 422, 503))
async def upload_image(request: Request, file: UploadFile = File(...)):
    """Add an image to the folder (multipart field `file`); refuses non-images with 415, and a form
    with another field or a second file (dropped unsaid before) with 422 (api.uploads.check_form_fields)."""
    try:
        await check_form_fields(request, frozenset({"file"}))
    except ApiError as exc:
        return _error(LabelError(exc.code, exc.message, exc.status))
    data = await file.read(MAX_IMAGE_BYTES + 1)
    return _handle(lambda: {"path": get_store(request).add_image(file.filename or "", data)})


@api.get("/image", responses=openapi_errors(400, 403, 404, 413, 415, 422, 503))
def image(request: Request, path: str = Query(...)):
    """The image bytes; formats a browser cannot show (HEIC) come back as JPEG."""
    def call():
        store = get_store(request)
        data = store.read_image(path)
        media_type = BROWSER_IMAGE_TYPES.get(Path(path).suffix.lower())
        if media_type is None:
            data, media_type = _as_jpeg(data, path), "image/jpeg"
        return Response(data, media_type=media_type, headers=NO_CACHE)

    return _handle(call)


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


@api.get("/labels", responses=openapi_errors(400, 403, 404, 413, 415, 422, 503))
def get_labels(request: Request, path: str = Query(...)):
    """The boxes of an image (pixels, least confident first); pre-labels it the first time."""
    return _handle(lambda: get_store(request).load(path))


@api.put("/labels", responses=openapi_errors(400, 403, 404, 415, 422, 503))
async def put_labels(request: Request, path: str = Query(...)):
    """Replace the boxes of an image: body `{"boxes": [{"tile", "box", "score"}]}`."""
    try:
        body = await request.json()
    except ValueError:
        return _error(LabelError("bad_json", "the body must be JSON: {\"boxes\": [...]}", 400))
    if not isinstance(body, dict) or "boxes" not in body:
        return _error(LabelError("bad_boxes", "the body must be {\"boxes\": [...]}", 422))
    return _handle(lambda: get_store(request).save(path, body["boxes"]))


@api.post("/undo", responses=openapi_errors(400, 403, 404, 409, 415, 503))
def undo(request: Request, path: str = Query(...)):
    """Restore the previous version of an image's labels (409 when there is none)."""
    return _handle(lambda: get_store(request).undo(path))


@api.post("/reviewed", responses=openapi_errors(400, 403, 404, 409, 415, 503))
def reviewed(request: Request, path: str = Query(...)):
    """Mark an image's labels as checked by a person without changing them."""
    return _handle(lambda: get_store(request).mark_reviewed(path))


@api.get("/export", responses=openapi_errors(409, 422, 503))
def export(request: Request, format: str = Query("yolo"), reviewed_only: bool = False):
    """The labelled images: YOLO as a zip (data.yaml, images/, labels/), COCO or Label Studio JSON."""
    from api.label_export import export_file

    def call():
        path, media_type, name = export_file(get_store(request), format, reviewed_only)
        cleanup = BackgroundTask(shutil.rmtree, path.parent, ignore_errors=True)
        return FileResponse(path, media_type=media_type, filename=name, background=cleanup)

    return _handle(call)


router.include_router(api)
router.include_router(label_studio_router)
