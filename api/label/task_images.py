"""The image of a Label Studio task, from wherever its URL points.

A `data:` URI, a file of the labelling folder (Label Studio local files
`/data/local-files/?d=...`, or a path inside the folder), or a fetch from Label Studio itself
(`/data/upload/...`) at LABEL_STUDIO_URL (else at the `hostname` Label Studio sent to /setup, when
/setup came from that host's address) with the key LABEL_STUDIO_API_KEY (a Personal Access
Token or a legacy token: api/label/studio_auth.py). Absolute URLs on
other hosts are fetched only from hosts named in FANSHOT_IMAGE_HOSTS, and redirects followed only
to those hosts or to public addresses (api.settings.LabelStudioSettings).
"""
from __future__ import annotations

import base64
import ipaddress
import socket
import urllib.error
import urllib.parse
import urllib.request

from api.label.errors import LabelError
from api.label.store import MAX_IMAGE_BYTES, LabelStore
from api.label.studio_auth import authorization, is_personal_access_token
from api.settings import IMAGE_HOSTS_ENV, LabelStudioSettings

FETCH_TIMEOUT_S = 20


def _local_image(store: LabelStore | None, rel: str) -> bytes:
    """An image of the labelling folder named by a Label Studio local-files path."""
    if store is None:
        raise LabelError("no_label_folder", f"{rel!r} is a local file but no labelling folder is set", 422)
    parts = [p for p in rel.replace("\\", "/").split("/") if p]
    # Label Studio names local files from its document root; the folder may be below it.
    for start in range(len(parts)):
        candidate = "/".join(parts[start:])
        try:
            return store.read_image(candidate)
        except LabelError as exc:
            if exc.status != 404:
                raise
    raise LabelError("not_found", f"{rel!r} is not in the labelling folder", 404)


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, parts.netloc.lower()


def public_address(host: str) -> bool:
    """Whether every address `host` resolves to is a public one (not loopback, private,
    link-local such as cloud metadata, or reserved)."""
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    return bool(infos) and all(ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_global for info in infos)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped or address


def sent_from_host(url: str, peer: str) -> bool:
    """Whether `url`'s host resolves to `peer`, the address a request came from: Label Studio's
    /setup names its own address (`hostname`), and one who names an address other than their
    own could make Fanshot fetch from inside its network, so only the sender's own is trusted."""
    host = urllib.parse.urlsplit(url).hostname if url else None
    sender = _address(peer)
    if not host or sender is None or urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        return False
    try:
        infos = socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    return any(_address(str(info[4][0])) == sender for info in infos)


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects (Label Studio may send uploads on to cloud storage) without the token, and
    only to a host Fanshot may fetch from (image_host_allowed) or a public address: a host named
    in FANSHOT_IMAGE_HOSTS must not become a way into the server's own network."""

    def __init__(self, trusted: str):
        super().__init__()
        self.trusted = trusted

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if _origin(newurl) != _origin(req.full_url):
            parts = urllib.parse.urlsplit(newurl)
            if parts.scheme not in ("http", "https") or not (
                    image_host_allowed(newurl, self.trusted) or public_address(parts.hostname or "")):
                raise LabelError("image_host_not_allowed",
                                 f"{req.host} redirected the image to {parts.scheme}://{parts.netloc}, which is not a "
                                 f"public http(s) address: Fanshot follows it only when {IMAGE_HOSTS_ENV} "
                                 "names the host", 403)
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and _origin(newurl) != _origin(req.full_url):
            new.remove_header("Authorization")
        return new


def image_host_allowed(url: str, base: str) -> bool:
    """Whether Fanshot may fetch `url`: from Label Studio's own origin (`base`), or from a host
    named in FANSHOT_IMAGE_HOSTS (comma-separated `host` or `host:port`; `*` for any host).
    Anything else would let whoever can reach /labelstudio/predict make the server fetch URLs
    of their choosing (internal services, cloud metadata)."""
    if base and _origin(url) == _origin(base):
        return True
    allowed = LabelStudioSettings.from_env().image_hosts
    parts = urllib.parse.urlsplit(url)
    return "*" in allowed or parts.netloc.lower() in allowed or (parts.hostname or "") in allowed


def _fetch(url: str, base: str, token: str, trusted: str) -> bytes:
    """GET an image; the token goes only to Label Studio's own host (`base`). `trusted` is
    LABEL_STUDIO_URL, or the hostname /setup named from that host's own address: a `hostname`
    sent to /setup by anyone who reaches the service is not."""
    full = urllib.parse.urljoin(base.rstrip("/") + "/", url) if base else url
    if urllib.parse.urlsplit(full).scheme not in ("http", "https"):
        raise LabelError("bad_image_url", f"cannot fetch {url!r}: set LABEL_STUDIO_URL for relative URLs", 422)
    if not image_host_allowed(full, trusted):
        host = urllib.parse.urlsplit(full).netloc
        raise LabelError("image_host_not_allowed",
                         f"{host} is not Label Studio's host (LABEL_STUDIO_URL): Fanshot fetches task images "
                         f"from elsewhere only when {IMAGE_HOSTS_ENV} names the host", 403)
    send_token = bool(token) and bool(base) and _origin(full) == _origin(base)
    try:
        data = _get(full, base, token if send_token else "", trusted, renew=False)
    except urllib.error.HTTPError as exc:
        if exc.code != 401 or not send_token or not is_personal_access_token(token):
            raise LabelError("image_fetch_failed", f"cannot fetch {full}: {exc}{_hint(exc, send_token)}", 502) from exc
        try:  # the access token expired early (or Label Studio restarted): exchange the key again
            data = _get(full, base, token, trusted, renew=True)
        except OSError as again:
            raise LabelError("image_fetch_failed", f"cannot fetch {full}: {again}", 502) from again
    except OSError as exc:
        raise LabelError("image_fetch_failed", f"cannot fetch {full}: {exc}", 502) from exc
    if len(data) > MAX_IMAGE_BYTES:
        raise LabelError("too_large", f"{full} is larger than {MAX_IMAGE_BYTES // 2**20} MiB", 413)
    return data


def _get(url: str, base: str, token: str, trusted: str, renew: bool) -> bytes:
    """The body of `url` (at most MAX_IMAGE_BYTES + 1 bytes), with Label Studio's Authorization
    when `token` is given."""
    headers = {"Authorization": authorization(base, token, renew)} if token else {}
    opener = urllib.request.build_opener(_Redirects(trusted))
    with opener.open(urllib.request.Request(url, headers=headers), timeout=FETCH_TIMEOUT_S) as response:
        data: bytes = response.read(MAX_IMAGE_BYTES + 1)
    return data


def _hint(exc: urllib.error.HTTPError, sent_token: bool) -> str:
    if exc.code not in (401, 403):
        return ""
    if not sent_token:
        return " (no Label Studio key: set LABEL_STUDIO_API_KEY to a Personal Access Token or legacy token)"
    return (" (Label Studio refused the key, LABEL_STUDIO_API_KEY or else the legacy token /setup sent: a legacy "
            "token works only where the organization enables legacy tokens; set LABEL_STUDIO_API_KEY to a "
            "Personal Access Token)")


def task_image(url: object, store: LabelStore | None, connection: dict[str, str]) -> bytes:
    """The bytes of a task's image URL (data URI, local file, or Label Studio upload);
    `connection` is what Label Studio sent to /setup (`hostname`, `access_token`)."""
    if not isinstance(url, str) or not url:
        raise LabelError("bad_task", "the task has no image URL", 422)
    if url.startswith("data:"):
        header, _, payload = url.partition(",")
        if not header.endswith(";base64"):
            raise LabelError("bad_image_url", "a data: URI image must be base64", 422)
        try:
            return base64.b64decode(payload, validate=True)
        except ValueError as exc:
            raise LabelError("bad_image_url", "the data: URI is not valid base64", 422) from exc
    parsed = urllib.parse.urlsplit(url)
    if parsed.path.endswith("/data/local-files/") or parsed.path == "/data/local-files":
        local = urllib.parse.parse_qs(parsed.query).get("d", [""])[0]
        return _local_image(store, local)
    if not parsed.scheme and not url.startswith("/data/") and store is not None:
        return _local_image(store, url)
    label_studio = LabelStudioSettings.from_env()
    # LABEL_STUDIO_URL, else the hostname /setup named when /setup came from that host
    trusted = label_studio.url or connection.get("trusted_hostname", "")
    base = trusted or connection.get("hostname", "")
    token = label_studio.api_key or connection.get("access_token", "")
    return _fetch(url, base, token, trusted)
