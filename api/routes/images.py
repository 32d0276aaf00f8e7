from __future__ import annotations

from fastapi import APIRouter, Path, Request, Response

from ..errors import ApiError, error_responses
from ..storage.images import PHOTO_PREFIX

router = APIRouter(tags=["photos"])


@router.get("/images/{image_id}.jpg", response_class=Response, responses={
    200: {"content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}},
          "description": "The annotated photo"},
    **error_responses(404, 422)}, summary="An annotated photo from a recent analysis")
def annotated_image(request: Request, image_id: str = Path(pattern=r"^[A-Za-z0-9_-]{1,64}$")) -> Response:
    jpeg = None if image_id.startswith(PHOTO_PREFIX) else request.app.state.images.get(image_id)
    if jpeg is None:
        raise ApiError(404, "image_not_found", "no such image; annotated photos are kept only for a while")
    return Response(jpeg, media_type="image/jpeg", headers={"Cache-Control": "private, max-age=3600"})
