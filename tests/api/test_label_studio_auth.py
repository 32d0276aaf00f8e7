"""Both kinds of Label Studio key, against a small fake Label Studio speaking its token protocol:
a Personal Access Token (a JWT refresh token) is exchanged at /api/token/refresh for an access
token sent as `Bearer`, exchanged again when it expires; a legacy token is sent as `Token KEY`."""
from __future__ import annotations

import base64
import http.server
import json
import threading
import time

import pytest
from fastapi.testclient import TestClient
from label_app import labelling_app
from test_label_studio import FakeDetector, jpeg_bytes, predict_request

from api.label.state import configure_labelling

UPLOAD = "/data/upload/1/42d46c4c-a.jpg"
LEGACY = "0123456789abcdef0123456789abcdef01234567"


def _jwt(claims: dict) -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.c2lnbmF0dXJl"


PAT = _jwt({"token_type": "refresh", "exp": 4102444800, "jti": "pat-1", "user_id": 1})


class FakeLabelStudio(http.server.BaseHTTPRequestHandler):
    """Uploads need `Bearer ACCESS` (an unexpired access token it issued) or, when legacy tokens
    are on, `Token LEGACY`."""
    legacy_enabled = True
    access_ttl_s = 300.0
    issued: dict[str, float] = {}
    refreshes = 0
    seen_auth: list[str | None] = []

    def do_POST(self):  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path != "/api/token/refresh" or body.get("refresh") != PAT:
            return self._answer(401, {"detail": "Token is invalid or expired"})
        cls = type(self)
        cls.refreshes += 1
        access = _jwt({"token_type": "access", "exp": int(time.time() + cls.access_ttl_s), "n": cls.refreshes})
        cls.issued[access] = time.time() + cls.access_ttl_s
        self._answer(200, {"access": access})

    def do_GET(self):  # noqa: N802
        cls = type(self)
        auth = self.headers.get("Authorization")
        cls.seen_auth.append(auth)
        kind, _, key = (auth or "").partition(" ")
        ok = (kind == "Bearer" and cls.issued.get(key, 0) > time.time()) or (
            kind == "Token" and key == LEGACY and cls.legacy_enabled)
        if not ok:
            return self._answer(401, {"detail": "Authentication credentials were not provided."})
        if self.path != UPLOAD:
            return self._answer(404, {"detail": "not found"})
        data = jpeg_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _answer(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def label_studio(monkeypatch):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeLabelStudio)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    FakeLabelStudio.legacy_enabled, FakeLabelStudio.access_ttl_s = True, 300.0
    FakeLabelStudio.issued, FakeLabelStudio.refreshes, FakeLabelStudio.seen_auth = {}, 0, []
    url = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("LABEL_STUDIO_URL", url)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture
def client(tmp_path):
    app = labelling_app()
    configure_labelling(app, tmp_path, detector=FakeDetector())
    with TestClient(app) as test_client:
        yield test_client


def _predict(client):
    return client.post("/labelstudio/predict", json=predict_request(UPLOAD))


def test_a_personal_access_token_is_exchanged_for_a_bearer_access_token(client, label_studio, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", PAT)
    FakeLabelStudio.legacy_enabled = False  # Label Studio 1.23's default
    for _ in range(2):
        response = _predict(client)
        assert response.status_code == 200, response.text
        assert len(response.json()["results"][0]["result"]) == 2
    assert FakeLabelStudio.refreshes == 1  # the access token is kept while it is valid
    assert all(auth and auth.startswith("Bearer ") for auth in FakeLabelStudio.seen_auth)
    assert PAT not in " ".join(FakeLabelStudio.seen_auth)  # the refresh token itself is never sent


def test_an_expired_access_token_is_exchanged_again(client, label_studio, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", PAT)
    FakeLabelStudio.access_ttl_s = 1  # expires within the safety margin: exchanged before each use
    assert _predict(client).status_code == 200
    assert _predict(client).status_code == 200
    assert FakeLabelStudio.refreshes == 2
    # Label Studio forgetting a token it issued (a restart): the 401 leads to one new exchange
    FakeLabelStudio.access_ttl_s = 300
    assert _predict(client).status_code == 200
    FakeLabelStudio.issued.clear()
    assert _predict(client).status_code == 200
    assert FakeLabelStudio.refreshes == 4


def test_a_legacy_token_is_sent_as_token(client, label_studio, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", LEGACY)
    assert _predict(client).status_code == 200
    assert FakeLabelStudio.seen_auth == [f"Token {LEGACY}"] and FakeLabelStudio.refreshes == 0
    FakeLabelStudio.legacy_enabled = False
    refused = _predict(client)
    assert refused.status_code == 502
    assert "Personal Access Token" in refused.json()["error"]["message"]


def test_a_refused_personal_access_token_is_a_clear_error(client, label_studio, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", _jwt({"token_type": "refresh", "exp": 4102444800, "jti": "revoked"}))
    response = _predict(client)
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "image_fetch_failed" and "/api/token/refresh" in error["message"]
