from __future__ import annotations

from fastapi import APIRouter, File, Form, Request, UploadFile

from vision.tileset.names import NAME_PATTERN

from ..errors import error_responses
from ..schemas import DetectResponse
from ..tileset_schemas import TILESET_NAME
from ..uploads import check_form_fields, form_fields, read_image_upload
from .tilesets import existing

router = APIRouter(tags=["photos"])


@router.post("/detect", response_model=DetectResponse, responses=error_responses(400, 404, 413, 415, 422, 503, descriptions={404: "No tile set of that name"}),
             summary="Detect the tiles in a photo (for pre-labelling tools)")
async def detect(
    request: Request,
    image: UploadFile = File(description="a JPEG, PNG, WebP or HEIC photo"),
    tileset: str | None = Form(None, description="read the tiles as this tile set draws them (" + TILESET_NAME + ")",
                               pattern=NAME_PATTERN, min_length=1, max_length=40),
) -> dict:
    state = request.app.state
    await check_form_fields(request, FIELDS)
    if tileset is not None:
        existing(request, tileset)
    async with state.pool.admission(request.is_disconnected):  # a place before the upload is read into memory
        data = await read_image_upload(image, state.settings.max_upload_bytes)
        return await state.inference.detect_in(state.pool, data, tileset)


FIELDS = form_fields(detect)
