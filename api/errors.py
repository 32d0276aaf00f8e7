"""One error shape for every failure: `{"error": {"code", "message"}}`, plus `params` where
the error has values a client needs to say it in another language (e.g. found / needed counts).

`ApiError` is raised by routes; the handlers installed by `install_handlers`
turn it, validation errors, HTTP errors and any unexpected exception into that
JSON, so no stack trace ever reaches a client. `error_body` is the same shape for
the ASGI middleware that answer before any route (body limit, access token).
`error_responses(...)` declares the shape in the OpenAPI schema for each route.
"""
from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("fanshot.api")


class ErrorDetail(BaseModel):
    code: str = Field(description="machine-readable error code, e.g. not_a_winning_hand")
    message: str = Field(description="what went wrong, for people")
    details: list[dict[str, Any]] | None = Field(
        default=None, description="for invalid requests: the fields that were rejected")
    params: dict[str, Any] | None = Field(
        default=None, description="the values in the message, for clients that show another language; "
        "wrong_tile_count from the photo layout: {found, needed, kongs}; backs_outside_kong: {found, backs}")


class ErrorResponse(BaseModel):
    error: ErrorDetail


class ApiError(Exception):
    """An error with an HTTP status and a stable code, answered as JSON."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None,
                 params: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        self.params = params

    def __reduce__(self):  # raised in a worker process, it crosses back whole
        return type(self), (self.status, self.code, self.message, self.headers, self.params)


_DESCRIPTIONS = {
    400: "The request body cannot be parsed (not JSON, broken multipart)",
    404: "Not found",
    413: "Upload or request body too large, or an image with too many pixels",
    415: "The upload is not an image we can read",
    422: "Invalid request, or a hand the scorer rejects (with the scorer's code)",
    503: "Too many requests are waiting for inference; retry shortly",
}


def error_responses(*statuses: int, descriptions: dict[int, str] | None = None) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries for these error statuses, all with ErrorResponse."""
    text = {**_DESCRIPTIONS, **(descriptions or {})}
    return {status: {"model": ErrorResponse, "description": text[status]} for status in statuses}


def error_body(code: str, message: str) -> bytes:
    """The JSON body of an error that ASGI middleware answers itself, before any route."""
    return json.dumps({"error": {"code": code, "message": message}}).encode()


def error_json(status: int, code: str, message: str, details: list[dict[str, Any]] | None = None,
               headers: dict[str, str] | None = None, params: dict[str, Any] | None = None) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    if params is not None:
        body["params"] = params
    return JSONResponse({"error": body}, status_code=status, headers=headers)


_HTTP_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

_HTTP_CODES = {
    400: "bad_request", 404: "not_found", 405: "method_not_allowed", 406: "not_acceptable",
    413: "upload_too_large", 415: "unsupported_media_type", 422: "invalid_request",
    429: "too_many_requests", 503: "busy",
}


def _validation_details(exc: RequestValidationError) -> list[dict[str, Any]]:
    # Only where and why: never the rejected input itself (it may be an upload).
    return [{"loc": [str(part) for part in err.get("loc", ())], "msg": str(err.get("msg", "")),
             "type": str(err.get("type", ""))} for err in exc.errors()]


async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
    return error_json(exc.status, exc.code, exc.message, headers=exc.headers, params=exc.params)


BAD_JSON_MESSAGE = "the body is not JSON"


def _is_json(request: Request) -> bool:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return content_type == "application/json" or content_type.endswith("+json")


async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    undecodable = [err for err in exc.errors() if err.get("type") == "json_invalid"]
    if undecodable:  # FastAPI's own JSON reading: the same 400 as api/json_body.py's routes give
        why = (undecodable[0].get("ctx") or {}).get("error", "")
        where = undecodable[0].get("loc", ("body", "?"))[-1]
        return error_json(400, "bad_json", f"{BAD_JSON_MESSAGE} ({why} at character {where})")
    details = _validation_details(exc)
    first = details[0] if details else {"loc": [], "msg": "invalid request"}
    where = ".".join(part for part in first["loc"] if part not in ("body",)) or "request"
    return error_json(422, "invalid_request", f"{where}: {first['msg']}", details)


def _allowed_methods(request: Request) -> str:
    """Every documented method on this path (Starlette names only the first route's)."""
    methods: set[str] = set()
    for template, operations in request.app.openapi().get("paths", {}).items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, request.url.path):
            methods |= {method.upper() for method in operations if method.upper() in _HTTP_METHODS}
    return ", ".join(sorted(methods))


async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
    message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
    headers = dict(getattr(exc, "headers", None) or {})
    if exc.status_code == 400 and _is_json(request):  # FastAPI's body reading: nested too deep, ...
        code, message = "bad_json", f"{BAD_JSON_MESSAGE} (it cannot be parsed: nested too deep?)"
    if exc.status_code == 405:
        headers["Allow"] = _allowed_methods(request) or headers.get("Allow", "")
    return error_json(exc.status_code, code, message, headers=headers or None)


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_json(500, "internal_error", "internal error; the server log has the details")


def install_handlers(app: FastAPI) -> None:
    """Every error answered as JSON, by these handlers only (Starlette picks one by the exception's class)."""
    handlers: dict[type[Exception], Callable[[Request, Any], Awaitable[JSONResponse]]] = {
        ApiError: _api_error,
        RequestValidationError: _validation_error,
        StarletteHTTPException: _http_error,
        Exception: _unexpected_error,
    }
    for exception, handler in handlers.items():
        app.add_exception_handler(exception, handler)
