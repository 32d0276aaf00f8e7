"""Fixtures for the API tests: an app built with explicit settings, and a TestClient on it."""
from __future__ import annotations

import dataclasses
import io
import warnings

import pytest
from PIL import Image

from api.app import create_app
from api.settings import Settings

with warnings.catch_warnings():  # starlette's httpx deprecation notice, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def png_bytes(width: int = 32, height: int = 24, colour=(200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def png():
    """png(width, height) -> the bytes of a plain PNG image."""
    return png_bytes


@pytest.fixture(scope="session", autouse=True)
def pipeline_in_threads():
    """Apps built here run the photo pipeline in threads of the test's process, where a test can
    stand in for its parts (`app.state.inference`); tests/api/test_pool_processes.py runs it in
    worker processes, as the service does by default."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("FANSHOT_INFERENCE_PROCESSES", "0")
        yield


@pytest.fixture
def make_client(tmp_path):
    """make_client(**settings) -> a TestClient on a fresh app (its own data directory); closed after the test."""
    clients = []

    def make(raise_server_exceptions: bool = True, **overrides) -> TestClient:
        data_dir = tmp_path / f"data-{len(clients)}"
        settings = dataclasses.replace(Settings(), **{"inference_processes": False, "data_dir": data_dir, **overrides})
        client = TestClient(create_app(settings), raise_server_exceptions=raise_server_exceptions)
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def client(make_client):
    return make_client()


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium under Playwright, one per test module (tests/api/browser.py)."""
    from browser import chromium, require_chromium

    require_chromium()
    with chromium() as browser:
        yield browser
