"""The phone page's score sheet in real Chromium: start a game, analyse a photo, record it with
its annotated photo, see the sheet; a second phone on the same game records against a stale sheet
and is shown the fresh one."""
from __future__ import annotations

import dataclasses

import pytest
from browser import PHONE, require_chromium, serving
from synth_hand import SYNTH_PHOTO, TrueBoxes

import scoring
from api.settings import Settings

require_chromium()

TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from api.app import create_app

    settings = dataclasses.replace(Settings(), data_dir=tmp_path_factory.mktemp("games"), inference_workers=1,
                                   inference_processes=False)
    app = create_app(settings)
    detector = TrueBoxes()
    app.state.inference.detector = lambda: detector  # reads the synthetic photo exactly
    with serving(app) as url:
        yield app, url


def phone(browser, url, query=""):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url + "/" + query)
    return context, page


def test_start_a_game_analyse_a_photo_record_it_and_see_the_sheet(server, browser):
    app, url = server
    context, page = phone(browser, url)
    try:
        for i, name in enumerate(["Ann", "Bo", "Cy", "Di"]):
            page.fill(f"#game-name-{i}", name)
        page.select_option("#game-dealer", "1")  # Bo deals first
        with page.expect_response("**/api/v1/games") as created:
            page.click("#game-start")
        code = created.value.json()["code"]
        page.wait_for_selector("#game-sheet")
        with page.expect_response("**/api/v1/analyze") as analysed:
            page.set_input_files("#photo-gallery", str(SYNTH_PHOTO))
        hand = analysed.value.json()["hand"]
        page.select_option("#game-winner", "2")
        page.select_option("#game-from", "0")
        with page.expect_response(f"**/api/v1/games/{code}/hands") as recorded:
            page.click("#game-record")
        assert recorded.value.status == 200, recorded.value.text()
        page.wait_for_selector("#game-sheet tbody tr.game-hand")
        sheet = app.state.games.get().sheet(code)
        first = sheet["hands"][0]
        context_of_game = {**hand["context"], "self_drawn": False, "seat_wind": "S", "prevalent_wind": "E"}
        assert first["total"] == scoring.score_hand({**hand, "context": context_of_game})["total"]
        assert first["payments"] == [-8 - first["total"], -8, 24 + first["total"], -8]
        row = page.inner_text("#game-sheet tbody tr.game-hand")
        assert "Cy" in row and str(first["total"]) in row and "Ann" in row
        assert page.locator(".game-total").all_inner_texts() == [str(v) for v in sheet["totals"]]
        photo = page.locator("#game-sheet tbody a").get_attribute("href")
        assert photo == f"/api/v1/games/{code}/hands/1/photo.jpg"
        assert page.request.get(url + photo).body()[:2] == b"\xff\xd8"  # the annotated JPEG, kept

        assert page.inner_text("#game-link").endswith(f"/?game={code}")
        other_context, other = phone(browser, url, f"?game={code}")
        try:
            other.wait_for_selector("#game-sheet tbody tr.game-hand")
            page.click("#game-draw")  # the first phone records hand 2 ...
            page.wait_for_function("() => window.fanshot.game().hands.length === 2")
            with other.expect_response(f"**/api/v1/games/{code}/hands") as stale:
                other.click("#game-draw")  # ... the second, still showing hand 1 only, records too
            assert stale.value.status == 409
            other.wait_for_function("() => window.fanshot.game().hands.length === 2")
            assert other.locator("#game-msg").is_visible()
            assert len(app.state.games.get().sheet(code)["hands"]) == 2
        finally:
            other_context.close()
    finally:
        context.close()
