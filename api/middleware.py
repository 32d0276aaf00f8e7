"""ASGI middleware: a cap on request bodies, and request logs without bodies."""
from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .errors import error_body
from .logs import escape_controls

log = logging.getLogger("fanshot.api.access")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _BodyTooLarge(Exception):
    pass


def response_messages(status: int, body: bytes, content_type: bytes = b"application/json",
                      headers: list[tuple[bytes, bytes]] | None = None) -> tuple[Message, Message]:
    """The two ASGI messages of a whole response a middleware answers itself."""
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                         *(headers or [])]}
    return start, {"type": "http.response.body", "body": body}


def _too_large_messages(code: str, message: str) -> tuple[Message, Message]:
    return response_messages(413, error_body(code, message), headers=[(b"connection", b"close")])


class BodyLimitMiddleware:
    """Answer 413 as soon as a request body exceeds its limit: `upload_limit` for a
    multipart upload, `limit` for anything else (JSON).

    A declared Content-Length over the limit is refused before anything is
    read; a body without one (chunked) is counted as it arrives and the read is
    stopped at the limit, whatever the route would have answered.
    """

    def __init__(self, app: ASGIApp, upload_limit: int, limit: int, upload_message: str | None = None):
        self.app = app
        self.upload_limit = upload_limit
        self.limit = limit
        self.upload_message = upload_message or f"the upload is larger than {upload_limit} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        if headers.get(b"content-type", b"").lower().startswith(b"multipart/"):
            limit, code, text = self.upload_limit, "upload_too_large", self.upload_message
        else:
            limit, code, text = self.limit, "body_too_large", f"the request body is larger than {self.limit} bytes"
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            for message in _too_large_messages(code, text):
                await send(message)
            return

        received = 0
        exceeded = False
        started = False

        async def limited_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    exceeded = True
                    raise _BodyTooLarge()
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if exceeded and not started:
                return  # the 413 below replaces whatever the app answers
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _BodyTooLarge:
            pass
        if exceeded and not started:
            for message in _too_large_messages(code, text):
                await send(message)


class AccessLogMiddleware:
    """One log line per request: method, path, status, bytes in, milliseconds. Never bodies."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = 500
        size_in = dict(scope.get("headers") or []).get(b"content-length", b"-").decode("latin-1")

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            client = scope.get("client") or ("-", 0)
            log.info("%s %s %s %d in=%s %.1fms", escape_controls(str(client[0])), escape_controls(scope["method"]),
                     escape_controls(scope["path"]), status, escape_controls(size_in), (time.perf_counter() - began) * 1000)
