"""Shared by the browser tests: Debian's chromium (never a downloaded browser) and the
real app served by uvicorn on a free loopback port, in a thread."""
from __future__ import annotations

import contextlib
import os
import socket
import threading
import time

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def require_chromium() -> None:
    """Skip the calling test module when Debian's chromium or Playwright is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no {CHROMIUM}: install Debian's chromium (scripts/system-deps.sh)", allow_module_level=True)
    pytest.importorskip("playwright.sync_api")


# A narrow phone screen, as the phone page's tests see it (`browser.new_context(**PHONE)`).
PHONE = {"viewport": {"width": 360, "height": 740}, "locale": "zh-CN", "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}


@contextlib.contextmanager
def chromium():
    """Debian's chromium, headless, under Playwright; closed on leaving."""
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def serving(app):
    """Serve `app` on a free loopback port for the duration; yields its base URL."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
