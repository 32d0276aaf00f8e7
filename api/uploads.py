"""Reading an uploaded image: the size cap and the declared type, before any decoding; and the
form's field names, so that none the route does not take is dropped unsaid."""
from __future__ import annotations

import inspect

from fastapi import Request, UploadFile

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


def form_fields(endpoint) -> frozenset[str]:
    """The form fields a route takes: its parameters but `request`."""
    return frozenset(name for name in inspect.signature(endpoint).parameters if name != "request")


async def check_form_fields(request: Request, allowed: frozenset[str]) -> None:
    """422 `unknown_field` when the form has a field the route does not take: a misspelt
    `self_drawn`, or a `context` JSON sent as one field, would otherwise be dropped and the hand
    scored without it. 422 `repeated_field` when it has a field twice: two photos in one request
    (one would be read, the other dropped), or `self_drawn` both true and false."""
    names = [name for name, _ in (await request.form()).multi_items()]
    unknown = sorted(set(names) - allowed)
    if unknown:
        raise ApiError(422, "unknown_field",
                       f"unknown form field{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                       f"this route takes {', '.join(sorted(allowed))}", params={"fields": unknown})
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ApiError(422, "repeated_field",
                       f"form field{'s' if len(repeated) > 1 else ''} {', '.join(repeated)} given more than once; "
                       "send one photo per request and each field once", params={"fields": repeated})
