"""The phone page's tile set in a real headless Chromium (tests/api/browser.py): "learn my set" from
a layout photo rendered by `fanshot synth`, the set chosen and remembered, a photo analysed with it
(the `tileset` field sent), and a corrected tile added to the set. With the shipped model."""
from __future__ import annotations

import dataclasses
import json

import cv2
import pytest
from browser import PHONE, chromium, require_chromium, serving

from api.settings import Settings
from vision.model_spec import DEFAULT_MODEL_DIR
from vision.tileset.learn import EXAMPLES_PER_TILE

require_chromium()
synth = pytest.importorskip("datasets.synth.generate")
pytestmark = pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.json").is_file(), reason="no trained model")
TIMEOUT_MS = 60_000


def _photo(path, example: dict) -> str:
    cv2.imwrite(str(path), cv2.cvtColor(example["image"], cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 90])
    return str(path)


def test_learn_my_set_then_a_photo_read_with_it_and_a_correction_kept(tmp_path):
    from api.app import create_app

    layout = _photo(tmp_path / "layout.jpg", synth.make_example(910000, 0, [1280], None, synth.OneSet(7, True, 43)))
    scene = _photo(tmp_path / "scene.jpg", synth.make_example(920000, 1, [1280], None, synth.OneSet(7, True)))
    app = create_app(dataclasses.replace(Settings(), inference_processes=False, data_dir=tmp_path / "data"))
    with serving(app) as url, chromium() as browser:
        context = browser.new_context(**PHONE)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(url + "/")
        assert page.input_value("#tileset") == ""  # no set yet: the generic reading

        page.click("#learn-set")  # tap 1: the order to lay the set out in, and the camera
        assert page.locator("#layout-order .tile").count() == 43
        assert page.input_value("#set-name") == "my-set"
        with page.expect_response("**/api/v1/tilesets/my-set/layout") as learnt:
            page.set_input_files("#layout-photo", layout)  # tap 2: the photo
        assert learnt.value.status == 200
        page.wait_for_function("() => document.getElementById('learn-result').textContent.includes('43')")
        assert page.input_value("#tileset") == "my-set"
        assert page.evaluate("() => localStorage.getItem('fanshot.tileset')") == "my-set"

        page.reload()  # remembered
        page.wait_for_function("() => document.getElementById('tileset').value === 'my-set'")
        with page.expect_response("**/api/v1/analyze") as answer:
            page.set_input_files("#photo-gallery", scene)
        analysis = answer.value.json()
        assert analysis["photo_id"].startswith("photo-")  # kept only for a photo sent with a `tileset`
        page.wait_for_selector("#progress", state="hidden")
        assert page.is_visible("#remember-row") and page.is_checked("#remember")

        tile = page.locator("#concealed .tile:not(.add)").first
        code = tile.get_attribute("data-tile")
        tile.click()
        other = "J3" if code != "J3" else "J2"
        with page.expect_response("**/api/v1/tilesets/my-set/examples") as added:
            page.click(f'#palette .tile[data-tile="{other}"]')
        assert added.value.status == 200
        page.wait_for_function("() => !document.getElementById('remember-note').hidden")
        assert str(44 * EXAMPLES_PER_TILE) in page.inner_text("#remember-note")
        held = json.loads(page.evaluate("async () => JSON.stringify(await (await fetch('/api/v1/tilesets/my-set')).json())"))
        assert held["examples"] == 44 * EXAMPLES_PER_TILE and held["tiles"]["J3" if other == "J3" else "J2"] == 2 * EXAMPLES_PER_TILE
        context.close()


def test_the_page_says_which_layout_tiles_the_finder_missed(tmp_path):
    # a set whose blank dragon the finder gives no box (training.finder_hard): learnt from the gap in
    # its row, and the page says so; and that a tile lying beside the layout was left out
    from api.app import create_app
    from api.inference import threads_per_worker
    from training.finder_hard import FinderHardOn, true_shares
    from vision.detector import get_detector

    example = synth.make_example(910000, 0, [1280], None, synth.OneSet(7, True, 43))
    rgb = example["image"].copy()
    x1, y1, x2, y2 = (int(v) for v in example["record"]["boxes"][0]["box"])  # a copy of the 一萬, bottom left
    stray = rgb[y1 - 3:y2 + 3, x1 - 3:x2 + 3].copy()
    rgb[rgb.shape[0] - stray.shape[0] - 10:rgb.shape[0] - 10, 10:10 + stray.shape[1]] = stray
    layout = _photo(tmp_path / "layout.jpg", {"image": rgb})
    settings = dataclasses.replace(Settings(), inference_processes=False, data_dir=tmp_path / "data")
    # the detector the app learns a layout with (inference in threads, every core: api.inference.Inference.learn_layout)
    finder = get_detector(settings.model_dir, threads=threads_per_worker(1)).finder
    hard = FinderHardOn(finder, 0.0)
    hard.look_at(true_shares(example["record"], "J3"))
    try:
        app = create_app(settings)
        with serving(app) as url, chromium() as browser:
            page = browser.new_context(**PHONE).new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(url + "/")
            page.click("#learn-set")
            with page.expect_response("**/api/v1/tilesets/my-set/layout") as learnt:
                page.set_input_files("#layout-photo", layout)
            body = learnt.value.json()
            assert body["learnt"]["tiles"] == 43 and body["learnt"]["missed"] == 1 and body["missed"] == ["J3"]
            assert body["learnt"]["left_out"] == 1
            page.wait_for_function("() => document.getElementById('learn-result').textContent.includes('J3')")
            assert "1 张牌不在排列中" in page.inner_text("#learn-result")
    finally:
        del finder.find  # the finder's own again
