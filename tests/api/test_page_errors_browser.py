"""In a real headless Chromium: the page says each error in Chinese by its code when it is in
Chinese (the server's English otherwise, and for a code it does not know), with the same words
as the annotated photo (vision.messages_zh) for every warning and error code; a photo with too
few tiles shows the counts, in Chinese, then in English after the language switch."""
from __future__ import annotations

import re

import pytest
from browser import chromium, require_chromium, serving
from synth_hand import SYNTH_PHOTO

import scoring.gongdi  # noqa: F401  (the rule sets' own codes join ERROR_CODES)
from scoring.errors import ERROR_CODES
from vision import messages_zh
from vision.detections import Detections
from vision.layout_warnings import LAYOUT_ERROR_CODES, WARNING_CODES, layout_error, warning

require_chromium()

ERROR_SAMPLES = [layout_error("no_tiles"), layout_error("wrong_tile_count", found=13, needed=14, kongs=0),
                 layout_error("wrong_tile_count", found=17, needed=15, kongs=1),
                 layout_error("wrong_tile_count", found=11, needed=16, kongs=2),
                 layout_error("backs_outside_kong", found=14, backs=2)]
ERROR_SAMPLES += [{"code": code, "message": "the scorer's English"} for code in sorted(ERROR_CODES)]
ERROR_SAMPLES += [  # the scorer's errors with their params (scoring/hand.py)
    {"code": "wrong_tile_count", "params": {"found": 13, "needed": 14, "kongs": 0}, "message": "13 tiles"},
    {"code": "wrong_tile_count", "params": {"found": 17, "needed": 14, "kongs": 0, "melds": 5}, "message": "5 melds"},
    {"code": "too_many_copies", "params": {"tile": "W5", "count": 5}, "message": "5 copies"},
    {"code": "too_many_copies", "params": {"tile": "H3", "count": 2}, "message": "the flower twice"},
]

SAY = """([lang, warnings, errors]) => {
  state.lang = lang;
  return { warnings: warnings.map(warningText), errors: errors.map((e) => errorText({ error: e })) };
}"""


class Thirteen:
    """A stand-in detector: 12 tiles in a row and one set apart, one short of a winning hand."""

    def detect(self, rgb, **_):
        codes = "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B4".split()
        return Detections([{"tile": c, "box": [100 + 62 * i + 40 * (i == 12), 400, 160 + 62 * i + 40 * (i == 12), 480],
                            "score": 0.95} for i, c in enumerate(codes)])


@pytest.fixture(scope="module")
def served():
    from api.app import create_app

    app = create_app()
    with serving(app) as url, chromium() as browser:
        page = browser.new_page(locale="zh-CN")
        page.goto(url + "/")
        page.wait_for_function("() => window.fanshot && window.fanshot.state")
        yield app, page


def test_the_page_and_the_annotated_photo_say_every_code_alike(served, warning_samples):
    _, page = served
    assert set(warning_samples) == set(WARNING_CODES), "a new warning code needs a sample in the root conftest.py"
    assert set(LAYOUT_ERROR_CODES) <= {e["code"] for e in ERROR_SAMPLES}
    warnings = [warning(code, **params) for code, params in warning_samples.items()]
    shown = page.evaluate(SAY, ["zh", warnings, ERROR_SAMPLES])
    assert shown["warnings"] == [messages_zh.warning_zh(w) for w in warnings]
    assert shown["errors"] == [messages_zh.error_zh(e) for e in ERROR_SAMPLES]
    for text in shown["warnings"] + shown["errors"]:
        assert re.search(r"[\u4e00-\u9fff]", text) and not re.search(r"undefined|NaN|\[object", text), text
    assert shown["errors"][1] == "找到 13 张牌；和牌需要 14 张，每个杠多一张"
    assert shown["errors"][-4:] == ["找到 13 张牌；和牌需要 14 张，每个杠多一张", "有 5 个副露：一手牌最多四个",
                                    "五万有 5 张：每种牌只有四张", "花牌秋有 2 张：每张花牌只有一张"]


def test_english_and_unknown_codes_show_the_servers_message(served):
    _, page = served
    unknown = {"code": "a_newer_error", "params": {}, "message": "a newer server's error"}
    shown = page.evaluate(SAY, ["en", [], ERROR_SAMPLES[:2] + [unknown]])
    assert shown["errors"] == [e["message"] for e in ERROR_SAMPLES[:2]] + ["a newer server's error"]
    shown = page.evaluate(SAY, ["zh", [], [unknown, {"code": "wrong_tile_count", "params": {"found": "x"},
                                                     "message": "odd params"}]])
    assert shown["errors"][0] == "a newer server's error"
    assert "undefined" not in shown["errors"][1]


def test_a_photo_with_too_few_tiles_shows_the_counts_in_the_pages_language(served, monkeypatch):
    app, page = served
    detector = Thirteen()
    monkeypatch.setattr(app.state.inference, "detector", lambda: detector)
    page.evaluate("() => { state.lang = 'zh'; applyLanguage(); }")
    with page.expect_response("**/api/v1/analyze") as answer:
        page.set_input_files("#photo-gallery", str(SYNTH_PHOTO))
    assert answer.value.json()["error"]["params"] == {"found": 13, "needed": 14, "kongs": 0}
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "找到 13 张牌；和牌需要 14 张，每个杠多一张"
    page.click("#lang")
    assert page.inner_text("#error") == "13 tiles found; a winning hand needs 14, plus one for each kong"
    page.click("#lang")
    assert page.inner_text("#error").startswith("找到 13 张牌")


def test_a_typed_hand_the_scorer_rejects_shows_its_counts_in_the_pages_language(served):
    _, page = served
    page.evaluate("() => { state.lang = 'zh'; applyLanguage(); }")
    page.evaluate("""() => { loadHand({ concealed: ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "B1", "B1", "B2"],
                                        win_tile: "B4" }); rescore(); }""")
    page.wait_for_function("() => !document.body.dataset.scoring && document.querySelector('#score-error').textContent")
    assert page.inner_text("#score-error") == "找到 13 张牌；和牌需要 14 张，每个杠多一张"
    page.evaluate("""() => { loadHand({ concealed: ["W5", "W5", "W5", "W5", "W5", "W6", "W7", "B1", "B2", "B3", "T1", "T2", "T3"],
                                        win_tile: "T4" }); rescore(); }""")
    page.wait_for_function("() => !document.body.dataset.scoring && "
                           "document.querySelector('#score-error').textContent.startsWith('五万')")
    assert page.inner_text("#score-error") == "五万有 5 张：每种牌只有四张"
    page.click("#lang")
    page.wait_for_function("() => !document.body.dataset.scoring && "
                           "document.querySelector('#score-error').textContent.startsWith('5 copies')")
    assert page.inner_text("#score-error").startswith("5 copies of")
    page.click("#lang")
