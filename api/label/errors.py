"""The errors of the labelling tool: `LabelError` and its OpenAPI description.

Every refusal is `{"error": {"code", "message"}}` with the HTTP status in `LabelError.status`,
answered by the service's one error handler (api/errors.py).
"""
from __future__ import annotations

from typing import Any

from api.errors import ApiError, error_responses


class LabelError(ApiError):
    """A request the labelling tool refuses; `status` is the HTTP status to answer with."""

    def __init__(self, code: str, message: str, status: int):
        super().__init__(status, code, message)


ERROR_DESCRIPTIONS = {
    400: "A bad path (absolute, '..', '.', empty or hidden names, a name too long) or a body that is not "
         "strict JSON (NaN, Infinity, nested too deep)",
    403: "The path leads outside the labelling folder, or the image host is not allowed",
    404: "No such image in the folder",
    409: "Nothing to undo, nothing labelled yet, labels changed since the version a change was made on, "
         "or an export the converters refuse",
    413: "The image is too large",
    415: "Not an image (JPEG, PNG, WebP, HEIC)",
    422: "Boxes, format or image data that cannot be used",
    502: "The task's image could not be fetched from Label Studio",
    503: "No labelling folder (start with `fanshot label DIR` or set FANSHOT_LABEL_DIR), or no detector model",
}


def openapi_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries for the error statuses of a labelling route."""
    return error_responses(*statuses, descriptions=ERROR_DESCRIPTIONS)
