"""The page shows each layout warning in Chinese by its code when the page is in Chinese (the
server's English otherwise, and for a code it does not know), in a real headless Chromium."""
from __future__ import annotations

import re

import pytest

from vision.layout_warnings import WARNING_CODES, warning

from browser import launch_chromium, require_chromium, serving

require_chromium()
from playwright import sync_api  # noqa: E402

READING = {"win_tile": "B4", "win_apart": False, "melds": [["W1", "W2", "W3"], ["J1", "J1", "J1"]], "left_out": ["T9"]}
SAMPLES = {  # params as vision.layout_warnings builds them (warning() checks their names)
    "tile_read_two_ways": {"kept": "B5", "kept_score": 0.8, "other": "B6", "other_score": 0.1},
    "win_tile_not_apart": {"tile": "B4"},
    "hidden_kong_tile_unknown": {"total": 12, "tiles": ["W5"], "min_total": 10, "max_total": 14},
    "unusual_layout": {"reading": READING},
    "grouping_ambiguous": {"reading": dict(READING, win_apart=True, left_out=None)},
    "strays_left_out": {"count": 2, "tiles": ["T1", "BACK"]},
    "low_confidence": {"threshold": 0.5, "tiles": [{"tile": "F4", "score": 0.07}, {"tile": "T3", "score": 0.4}]},
    "reading_repaired": {"changes": [{"from": "W9", "to": "W7", "choice": 2, "box": [10.0, 20.0, 50.0, 80.5]}]},
}
CJK = re.compile(r"[\u4e00-\u9fff]")

RENDER = """([lang, analysis]) => {
  state.lang = lang;
  state.analysis = analysis;
  renderAnalysis();
  return {
    warnings: [...document.querySelectorAll("#warnings li")].map((li) => [li.dataset.code || null, li.textContent]),
    alternatives: [...document.querySelectorAll("#alternatives button")].map((b) => b.textContent),
  };
}"""


@pytest.fixture(scope="module")
def page():
    from api.app import create_app

    with serving(create_app()) as url, sync_api.sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(locale="zh-CN")
        page.goto(url + "/")
        page.wait_for_function("() => window.fanshot && window.fanshot.state")
        yield page
        browser.close()


def analysis_with_every_warning() -> dict:
    assert set(SAMPLES) == set(WARNING_CODES), "a new warning code needs a sample here"
    details = [warning(code, **params) for code, params in SAMPLES.items()]
    details.append({"code": "a_code_the_page_does_not_know", "params": {}, "message": "a newer server's warning"})
    hand = {"concealed": [], "melds": [], "win_tile": "B4", "flowers": []}
    return {"warnings": [d["message"] for d in details], "warning_details": details,
            "alternatives": [{"description": "winning tile B4 (not set apart); declared melds: W1W2W3, J1J1J1; "
                                             "left out: T9", "reading": READING, "hand": hand, "total": 9}]}


def test_chinese_text_for_every_code(page):
    analysis = analysis_with_every_warning()
    shown = page.evaluate(RENDER, ["zh", analysis])
    assert [code for code, _ in shown["warnings"]] == [d["code"] for d in analysis["warning_details"]]
    for (code, text), detail in zip(shown["warnings"][:-1], analysis["warning_details"]):
        assert CJK.search(text) and text != detail["message"], (code, text)
        assert not re.search(r"undefined|NaN|\[object", text), (code, text)
    texts = dict(shown["warnings"])
    assert "五饼（0.80）或六饼（0.10），取五饼" in texts["tile_read_two_ways"]
    assert "一二三万" in texts["unusual_layout"] and "中中中" in texts["unusual_layout"]
    assert "未计入：九条" in texts["unusual_layout"] and "未计入" not in texts["grouping_ambiguous"]
    assert "10 到 14" in texts["hidden_kong_tile_unknown"] and "五万" in texts["hidden_kong_tile_unknown"]
    assert "九条" not in texts["strays_left_out"] and "一条、牌背" in texts["strays_left_out"]
    assert "北（0.07）、三条（0.40）" in texts["low_confidence"]
    assert shown["warnings"][-1][1] == "a newer server's warning"  # an unknown code: the English
    [alternative] = shown["alternatives"]
    assert "和牌四饼（未单独放开）；副露：一二三万、中中中；未计入：九条" in alternative and alternative.endswith("→ 9")


def test_english_page_shows_the_server_text(page):
    analysis = analysis_with_every_warning()
    shown = page.evaluate(RENDER, ["en", analysis])
    assert [text for _, text in shown["warnings"]] == analysis["warnings"]
    assert analysis["alternatives"][0]["description"] in shown["alternatives"][0]


def test_a_server_without_warning_details_still_shows_its_warnings(page):
    shown = page.evaluate(RENDER, ["zh", {"warnings": ["some warning"], "alternatives": []}])
    assert shown["warnings"] == [[None, "some warning"]]
