"""`fanshot label` and `fanshot serve` as started from the command line (a real uvicorn on a loopback
port): forwarded addresses are trusted only from the proxies FANSHOT_TRUSTED_PROXIES names, and
every log line, the access log included, is one line whatever a request puts in its path."""
from __future__ import annotations

import http.client
import io
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "a-long-enough-test-token-0123456789"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Served:
    """A `fanshot COMMAND` subprocess listening on 127.0.0.1:port, its stderr in a file."""

    def __init__(self, tmp: Path, command: list[str], env: dict[str, str]):
        self.port = _free_port()
        self.log = tmp / "server.log"
        # its own data directory: the wrong-token counts are in its database, not another server's
        environ = {**os.environ, "PYTHONPATH": str(ROOT), "FANSHOT_TOKEN": TOKEN,
                   "FANSHOT_INFERENCE_WORKERS": "1", "FANSHOT_DATA_DIR": str(tmp / "data"), **env}
        environ.pop("FANSHOT_TRUSTED_PROXIES", None) if "FANSHOT_TRUSTED_PROXIES" not in env else None
        self.process = subprocess.Popen(
            [sys.executable, "-m", "fanshot", *command, "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=self.log.open("wb"))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"the server ended: {self.log.read_text()}")
            try:
                if self.get("/api/v1/health")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        self.close()
        pytest.fail("the server did not start in 60 s")

    def get(self, path: str, headers: dict[str, str] | None = None, source: str = "127.0.0.1") -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10, source_address=(source, 0))
        try:
            conn.request("GET", path, headers=headers or {})
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def log_text(self) -> str:
        time.sleep(0.3)  # the log line is written after the answer
        return self.log.read_text(errors="replace")

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("label-folder")
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 200, 190)).save(buffer, format="JPEG")
    (folder / "a.jpg").write_bytes(buffer.getvalue())
    return folder


@pytest.fixture(scope="module")
def label_server(tmp_path_factory, folder):
    server = Served(tmp_path_factory.mktemp("label-server"), ["label", str(folder)], {})
    yield server
    server.close()


@pytest.fixture(scope="module")
def proxied_server(tmp_path_factory, folder):
    server = Served(tmp_path_factory.mktemp("proxied-server"), ["label", str(folder)],
                    {"FANSHOT_TRUSTED_PROXIES": "127.0.0.1"})
    yield server
    server.close()


def _wrong(forwarded: str | None = None) -> dict[str, str]:
    headers = {"Authorization": "Bearer wrong-token"}
    if forwarded:
        headers["X-Forwarded-For"] = forwarded
    return headers


def test_a_new_forwarded_address_per_guess_does_not_escape_the_wrong_token_limit(label_server):
    statuses = [label_server.get("/api/v1/label/classes", _wrong(f"10.9.{n}.1"))[0]
                for n in range(40)]
    assert statuses[:10] == [401] * 10
    assert set(statuses[10:]) == {429}


def test_a_forwarded_address_claimed_by_guesses_does_not_lock_out_that_address(label_server):
    for _ in range(10):
        label_server.get("/api/v1/label/classes", _wrong("127.0.0.9"))
    right = {"Authorization": f"Bearer {TOKEN}"}
    assert label_server.get("/api/v1/label/classes", right, source="127.0.0.9")[0] == 200


def test_a_named_proxy_forwards_the_callers_address(proxied_server):
    # behind a trusted proxy each caller has its own count: 40 callers, one wrong token each
    statuses = {proxied_server.get("/api/v1/label/classes", _wrong(f"10.8.{n}.1"))[0] for n in range(40)}
    assert statuses == {401}
    assert " 10.8.39.1 GET /api/v1/label/classes 401 " in proxied_server.log_text()


def test_a_path_with_line_breaks_is_one_escaped_access_log_line(label_server):
    right = {"Authorization": f"Bearer {TOKEN}"}
    path = "/api/v1/images/x%0a2026-01-01%2000:00:00%20INFO%20forged:%20GET%20/%20200%0d%0a.jpg"
    status, _ = label_server.get(path, right, source="127.0.0.5")  # 127.0.0.1 guessed above
    assert status == 404
    log = label_server.log_text()
    assert "forged" in log  # the label command writes an access log ...
    assert not any(line.startswith("2026-01-01") for line in log.splitlines())  # ... of one line per request
    assert "x\\n2026-01-01 00:00:00 INFO forged: GET / 200\\r\\n.jpg 404" in log


def test_serve_writes_the_same_escaped_access_log(tmp_path):
    server = Served(tmp_path, ["serve"], {})
    try:
        right = {"Authorization": f"Bearer {TOKEN}"}
        status = server.get("/api/v1/images/x%0aforged%1b[2J.jpg", right)[0]
        assert f"GET /api/v1/images/x\\nforged\\x1b[2J.jpg {status}" in server.log_text()
    finally:
        server.close()
