"""FANSHOT_TOKEN in a real headless Chromium: the phone page asks for the token once, then
its photo upload and the annotated image (an <img>, which sends no headers of its own) work."""
from __future__ import annotations

import pytest
from browser import PHONE, chromium, require_chromium, serving
from synth_hand import SYNTH_PHOTO, TrueBoxes

require_chromium()

TOKEN = "phone-on-the-home-network"


@pytest.fixture(scope="module")
def guarded_server():
    import dataclasses

    from api.app import create_app
    from api.settings import Settings

    app = create_app(dataclasses.replace(Settings(), inference_processes=False, token=TOKEN))
    app.state.inference.detector = lambda: TrueBoxes()
    with serving(app) as url:
        yield url


def test_the_page_asks_for_the_token_once_then_reads_a_photo(guarded_server):
    with chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(guarded_server + "/")
        page.fill("input[name=token]", "a guess")
        page.click("button[type=submit]")
        assert "not this server" in page.content()
        page.fill("input[name=token]", TOKEN)
        page.click("button[type=submit]")
        page.wait_for_selector("#photo-gallery", state="attached")
        with page.expect_response("**/api/v1/analyze") as answer:
            page.set_input_files("#photo-gallery", str(SYNTH_PHOTO))
        assert answer.value.status == 200, answer.value.text()
        page.wait_for_function("() => { const img = document.getElementById('annotated');"
                               " return img.complete && img.naturalWidth > 0; }")
        # a new visit in the same browser goes straight to the page
        page.goto(guarded_server + "/")
        assert page.locator("input[name=token]").count() == 0
        context.close()
