"""The Authorization header for Label Studio, from either kind of key a user has.

- a legacy token (Account & Settings -> Legacy Token): sent as `Token KEY`;
- a Personal Access Token (Label Studio 1.15 and later; the default from 1.23): a JWT refresh
  token, exchanged at `POST /api/token/refresh` `{"refresh": KEY}` for a short-lived access
  token sent as `Bearer ACCESS`; exchanged again when that expires or Label Studio answers 401.

Access tokens are kept per (Label Studio origin, key) in this process.
"""
from __future__ import annotations

import base64
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from api.label.errors import LabelError

REFRESH_PATH = "/api/token/refresh"
TIMEOUT_S = 20
EXPIRY_MARGIN_S = 30  # exchange again this long before the access token expires

_lock = threading.Lock()
_access: dict[tuple[str, str], tuple[str, float]] = {}  # (origin, key) -> (access token, expiry)


def _claims(token: str) -> dict | None:
    """The payload of a JWT, or None when `token` is not one."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    try:
        payload = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    return payload if isinstance(payload, dict) else None


def is_personal_access_token(key: str) -> bool:
    """Whether `key` is a Personal Access Token (a JWT refresh token), not a legacy token."""
    claims = _claims(key)
    return claims is not None and claims.get("token_type", "refresh") == "refresh"


def _exchange(origin: str, key: str) -> tuple[str, float]:
    request = urllib.request.Request(
        origin.rstrip("/") + REFRESH_PATH, data=json.dumps({"refresh": key}).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            body = json.loads(response.read(1 << 20))
    except urllib.error.HTTPError as exc:
        raise LabelError("image_fetch_failed",
                         f"Label Studio refused the Personal Access Token at {REFRESH_PATH} (HTTP {exc.code}): "
                         "check LABEL_STUDIO_API_KEY (Account & Settings -> Personal Access Token)", 502) from exc
    except (OSError, ValueError) as exc:
        raise LabelError("image_fetch_failed", f"cannot exchange the Personal Access Token at "
                         f"{origin}{REFRESH_PATH}: {exc}", 502) from exc
    access = body.get("access") if isinstance(body, dict) else None
    if not isinstance(access, str) or not access:
        raise LabelError("image_fetch_failed", f"{origin}{REFRESH_PATH} answered no access token", 502)
    claims = _claims(access) or {}
    expiry = float(claims.get("exp", time.time() + 300))
    return access, expiry


def authorization(origin: str, key: str, renew: bool = False) -> str:
    """The Authorization header value for Label Studio at `origin` with `key`; `renew` exchanges
    a Personal Access Token again (after a 401)."""
    if not is_personal_access_token(key):
        return f"Token {key}"
    with _lock:
        cached = _access.get((origin, key))
        if renew or cached is None or cached[1] - EXPIRY_MARGIN_S <= time.time():
            cached = _exchange(origin, key)
            _access[(origin, key)] = cached
    return f"Bearer {cached[0]}"
