from __future__ import annotations

from fastapi import APIRouter, File, Request, UploadFile

from ..errors import error_responses
from ..schemas import DetectResponse
from ..uploads import check_form_fields, form_fields, read_image_upload

router = APIRouter(tags=["photos"])


@router.post("/detect", response_model=DetectResponse, responses=error_responses(400, 413, 415, 422, 503),
             summary="Detect the tiles in a photo (for pre-labelling tools)")
async def detect(request: Request, image: UploadFile = File(description="a JPEG, PNG, WebP or HEIC photo")) -> dict:
    state = request.app.state
    await check_form_fields(request, FIELDS)
    async with state.pool.admission(request.is_disconnected):  # a place before the upload is read into memory
        data = await read_image_upload(image, state.settings.max_upload_bytes)
        return await state.inference.detect_in(state.pool, data)


FIELDS = form_fields(detect)
