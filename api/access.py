"""An access token for a service others can reach (FANSHOT_TOKEN).

`make serve` listens on every address so that a phone on the same network can open the page;
anyone else who can reach it can use it too. With a token set, every request but the health
check and the pages' assets must show it:

- programs (curl, scripts): `Authorization: Bearer TOKEN`;
- Label Studio's ML backend connection: Basic authentication with TOKEN as the password (any
  user name), which Label Studio sends when its "Basic Authentication" is on;
- browsers: the pages (/, /label, /docs, /redoc) ask for it once with a form, or take it from a
  link (`/?token=TOKEN`), and keep a digest of it in a cookie (HttpOnly, SameSite=Strict, 30 days)
  that the page's own requests and images then carry.

Without the token a page answers 401 with the form, anything else 401 with the JSON error body
of every error (code `unauthorized`). Tokens are compared in constant time.

Guessing is slowed down: an address that offered `MAX_WRONG` wrong tokens within `WRONG_WINDOW`
seconds is answered 429 (`too_many_tries`, with Retry-After) until that window ends, whatever
token it offers then (counted in the database: several replicas count an address together); a browser already holding the cookie is let through all the same (the
cookie is a 256-bit digest, not worth guessing). The address is the connection's: behind a reverse
proxy every caller has the proxy's, unless FANSHOT_TRUSTED_PROXIES names it (api/serving.py; the
log says so, once, when an address forwards for others without being trusted).
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import html
import logging
from http.cookies import CookieError, SimpleCookie
from typing import Protocol
from urllib.parse import parse_qs

from anyio import to_thread

from .errors import error_body
from .middleware import ASGIApp, Receive, Scope, Send, response_messages

COOKIE = "fanshot_token"
COOKIE_DAYS = 30
OPEN_PATHS = {"/api/v1/health", "/labelstudio/health"}
OPEN_PREFIXES = ("/static/", "/label/static/", "/static-offline-docs/")
PAGES = {"/", "/label", "/docs", "/redoc"}
FORM_LIMIT = 4096  # bytes of a posted token form
SHORT_TOKEN = 16  # characters: a shorter token gets a warning at start
MAX_WRONG = 10  # wrong tokens one address may offer ...
WRONG_WINDOW = 300.0  # ... in this many seconds; then it waits until the window ends
MAX_ADDRESSES = 4096  # addresses whose wrong tries are remembered (the longest remembered go first)
MAX_PROXIES_NAMED = 16  # untrusted proxies named in the log (one line each)
log = logging.getLogger("fanshot.api")
JSON_MESSAGE = ("this server needs its access token: send the header `Authorization: Bearer TOKEN` "
                "(a browser: open the page and enter it)")


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {name.lower(): value for name, value in scope.get("headers") or []}


def presented_token(headers: dict[bytes, bytes]) -> bytes | None:
    """The token a request's Authorization header shows (Bearer, or Basic's password), as bytes."""
    scheme, _, value = headers.get(b"authorization", b"").strip().partition(b" ")
    if scheme.lower() == b"bearer":
        return value.strip() or None
    if scheme.lower() == b"basic":
        try:
            return base64.b64decode(value.strip(), validate=True).partition(b":")[2]
        except binascii.Error:
            return None
    return None


def page_cookie(headers: dict[bytes, bytes]) -> str | None:
    """The value of the pages' cookie, if the request carries it."""
    cookies = SimpleCookie()
    try:
        cookies.load(headers.get(b"cookie", b"").decode("latin-1"))
    except CookieError:
        return None
    return cookies[COOKIE].value if COOKIE in cookies else None


def _minutes(seconds: float) -> str:
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes > 1 else ''}"


class WrongTries(Protocol):
    """The wrong tokens each client address offered in its current window: in the database
    (api/storage/tries.py), so that every replica counts an address's guesses together."""

    def wait(self, address: str) -> float:
        """Seconds `address` must wait before its tokens are looked at again; 0 when they are now."""

    def add(self, address: str) -> None:
        """Count one wrong token from `address`."""


def _form_page(path: str, wrong: bool, wait: float = 0.0) -> bytes:
    note = '<p class="wrong">That is not this server\'s token.</p>' if wrong else ""
    if wait:
        note = f'<p class="wrong">Too many wrong tokens from this address: try again in {_minutes(wait)}.</p>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Fanshot: access token</title>
<style>body{{font-family:system-ui,sans-serif;max-width:26em;margin:3em auto;padding:0 1em}}
input{{font-size:1.1em;width:100%;box-sizing:border-box;margin:.4em 0;padding:.4em}}
button{{font-size:1.1em;padding:.4em 1.2em}}.wrong{{color:#b00}}</style></head>
<body><h1>Fanshot</h1><p>This server needs its access token (the one it was started with, FANSHOT_TOKEN).</p>{note}
<form method="post" action="{html.escape(path)}"><label>Access token
<input type="password" name="token" autocomplete="current-password" autofocus required></label>
<button type="submit">Open</button></form></body></html>""".encode()


class TokenMiddleware:
    """Let through only requests that show `token` (module docstring); the rest get 401."""

    def __init__(self, app: ASGIApp, token: str, wrong_tries: WrongTries):
        if not token:
            raise ValueError("the access token is empty")
        self.app = app
        self.wrong_tries = wrong_tries
        self._proxies_named: set[str] = set()
        self.token = token.encode()
        # the cookie holds a digest of the token, not the token: any token fits in a cookie
        self.cookie = hashlib.sha256(b"fanshot page cookie\0" + self.token).hexdigest()

    def _matches(self, offered: bytes | None) -> bool:
        return offered is not None and hmac.compare_digest(offered, self.token)

    def _has_cookie(self, headers: dict[bytes, bytes]) -> bool:
        cookie = page_cookie(headers)
        return cookie is not None and hmac.compare_digest(cookie.encode(), self.cookie.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path in OPEN_PATHS or path.startswith(OPEN_PREFIXES):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        if self._has_cookie(headers):
            await self.app(scope, receive, send)
            return
        address = (scope.get("client") or ("unknown",))[0]
        self._name_untrusted_proxy(headers, address)
        wait = await to_thread.run_sync(self.wrong_tries.wait, address)
        if wait:
            await self._refuse_for(send, path, wait)
            return
        shown = presented_token(headers)
        if self._matches(shown):
            await self.app(scope, receive, send)
            return
        guessed = bool(headers.get(b"authorization"))  # a wrong or unreadable one
        if guessed:
            await to_thread.run_sync(self.wrong_tries.add, address)
        if path not in PAGES:
            await _send(send, 401, error_body("unauthorized", JSON_MESSAGE), b"application/json",
                        [(b"www-authenticate", b'Bearer realm="fanshot"')])
            return
        offered = await _offered_to_page(scope, receive)
        if self._matches(offered):
            cookie = f"{COOKIE}={self.cookie}; Path=/; Max-Age={COOKIE_DAYS * 86400}; HttpOnly; SameSite=Strict"
            if scope.get("scheme") == "https":  # behind a TLS proxy: never sent over plain http
                cookie += "; Secure"
            await _send(send, 303, b"", b"text/plain", [(b"location", path.encode()), (b"set-cookie", cookie.encode())])
            return
        if offered is not None and not guessed:  # one request, one try, whatever it offers
            await to_thread.run_sync(self.wrong_tries.add, address)
        await _send(send, 401, _form_page(path, wrong=offered is not None), b"text/html; charset=utf-8")

    def _name_untrusted_proxy(self, headers: dict[bytes, bytes], address: str) -> None:
        """Say once in the log when an address forwards requests for others (X-Forwarded-For) that
        uvicorn did not trust: the callers behind it then share its address, and one guesser among
        them makes all of them wait (uvicorn, trusting a proxy, gives the caller's address, which
        the header names)."""
        forwarded = headers.get(b"x-forwarded-for")
        if forwarded is None or address in self._proxies_named or len(self._proxies_named) >= MAX_PROXIES_NAMED:
            return
        if address in (part.strip() for part in forwarded.decode("latin-1").split(",")):
            return
        self._proxies_named.add(address)
        log.warning("requests from %s carry X-Forwarded-For, which is not trusted from that address: if it is "
                    "a reverse proxy, the callers behind it share its address for the wrong-token limit (one "
                    "guesser makes all of them wait); name it in FANSHOT_TRUSTED_PROXIES", address)

    async def _refuse_for(self, send: Send, path: str, wait: float) -> None:
        retry = [(b"retry-after", str(int(wait) + 1).encode())]
        if path in PAGES:
            await _send(send, 429, _form_page(path, wrong=False, wait=wait), b"text/html; charset=utf-8", retry)
        else:
            message = f"too many wrong access tokens from this address: try again in {_minutes(wait)}"
            await _send(send, 429, error_body("too_many_tries", message), b"application/json", retry)


async def _offered_to_page(scope: Scope, receive: Receive) -> bytes | None:
    """The token a page request offers: the form's field (POST) or `?token=` (a link)."""
    if scope["method"] == "POST":
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > FORM_LIMIT or not message.get("more_body"):
                break
        if len(body) > FORM_LIMIT:
            return b""
        fields = parse_qs(body.decode("latin-1"))
    else:
        fields = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    values = fields.get("token")
    return values[0].encode() if values else None


async def _send(send: Send, status: int, body: bytes, content_type: bytes,
                headers: list[tuple[bytes, bytes]] | None = None) -> None:
    for message in response_messages(status, body, content_type, [(b"cache-control", b"no-store"), *(headers or [])]):
        await send(message)


def access_note(host: str, token: str) -> str | None:
    """What `fanshot serve` / `fanshot label` say at start about who can use the service."""
    if token:
        note = ("access token required (FANSHOT_TOKEN): a browser asks for it once; programs send "
                "`Authorization: Bearer TOKEN`; Label Studio, Basic authentication with it as the password")
        if len(token) < SHORT_TOKEN:
            note += (f". warning: the token has {len(token)} characters, few enough to guess at "
                     f"{MAX_WRONG} tries per address every {WRONG_WINDOW / 60:g} minutes: use {SHORT_TOKEN} or more")
        return note
    if host == "localhost" or host == "::1" or host.startswith("127."):
        return None
    return (f"warning: listening on {host} without an access token: anyone who can reach this address "
            "can use the service; set FANSHOT_TOKEN to require one")
