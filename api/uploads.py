"""Reading an uploaded image: the size cap and the declared type, before any decoding."""
from __future__ import annotations

from fastapi import UploadFile

from .errors import ApiError

# Declared types that cannot be an image; anything else (image/*, octet-stream, none) goes to the decoder.
_IMAGE_LIKE = ("image/", "application/octet-stream")


async def read_image_upload(upload: UploadFile, max_bytes: int) -> bytes:
    """The upload's bytes; 413 over `max_bytes`, 415 when it declares a non-image type."""
    declared = (upload.content_type or "").lower()
    if declared and not declared.startswith(_IMAGE_LIKE):
        raise ApiError(415, "not_an_image", f"expected an image upload, got {declared}")
    data = await upload.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ApiError(413, "upload_too_large", f"the image is larger than {max_bytes} bytes")
    return data
