"""ASGI middleware: a cap on request bodies, and request logs without bodies."""
from __future__ import annotations

import json
import logging
import time
from typing import Any, Awaitable, Callable

log = logging.getLogger("fanshot.api.access")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _BodyTooLarge(Exception):
    pass


def _too_large_messages(message: str) -> tuple[Message, Message]:
    body = json.dumps({"error": {"code": "upload_too_large", "message": message}}).encode()
    start = {"type": "http.response.start", "status": 413,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                         (b"connection", b"close")]}
    return start, {"type": "http.response.body", "body": body}


class BodyLimitMiddleware:
    """Answer 413 as soon as a request body exceeds `limit` bytes.

    A declared Content-Length over the limit is refused before anything is
    read; a body without one (chunked) is counted as it arrives and the read is
    stopped at the limit, whatever the route would have answered.
    """

    def __init__(self, app: ASGIApp, limit: int, message: str | None = None):
        self.app = app
        self.limit = limit
        self.message = message or f"the request body is larger than {limit} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            for message in _too_large_messages(self.message):
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
                if received > self.limit:
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
            for message in _too_large_messages(self.message):
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
            log.info("%s %s %s %d in=%s %.1fms", client[0], scope["method"], scope["path"], status, size_in,
                     (time.perf_counter() - began) * 1000)
