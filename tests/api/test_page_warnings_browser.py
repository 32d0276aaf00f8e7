"""The page shows each layout warning in Chinese by its code when the page is in Chinese (the
server's English otherwise, and for a code it does not know), in a real headless Chromium."""
from __future__ import annotations

import re

import pytest
from browser import chromium, require_chromium, serving

from vision.layout_warnings import WARNING_CODES, describe_reading, warning

require_chromium()

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

    with serving(create_app()) as url, chromium() as browser:
        page = browser.new_page(locale="zh-CN")
        page.goto(url + "/")
        page.wait_for_function("() => window.fanshot && window.fanshot.state")
        yield page


@pytest.fixture
def analysis_with_every_warning(warning_samples) -> dict:
    assert set(warning_samples) == set(WARNING_CODES), "a new warning code needs a sample in the root conftest.py"
    details = [warning(code, **params) for code, params in warning_samples.items()]
    details.append({"code": "a_code_the_page_does_not_know", "params": {}, "message": "a newer server's warning"})
    hand = {"concealed": [], "melds": [], "win_tile": "B4", "flowers": []}
    reading = warning_samples["unusual_layout"]["reading"]
    return {"warnings": [d["message"] for d in details], "warning_details": details,
            "alternatives": [{"description": describe_reading(reading), "reading": reading, "hand": hand, "total": 9}]}


def test_chinese_text_for_every_code(page, analysis_with_every_warning):
    analysis = analysis_with_every_warning
    shown = page.evaluate(RENDER, ["zh", analysis])
    assert [code for code, _ in shown["warnings"]] == [d["code"] for d in analysis["warning_details"]]
    for (code, text), detail in zip(shown["warnings"][:-1], analysis["warning_details"]):
        assert CJK.search(text) and text != detail["message"], (code, text)
        assert not re.search(r"undefined|NaN|\[object", text), (code, text)
    texts = dict(shown["warnings"])
    assert "五饼（0.80）或牌背（0.10），取五饼" in texts["tile_read_two_ways"]
    assert "一二三万" in texts["unusual_layout"] and "中中中" in texts["unusual_layout"]
    assert "未计入：九条、牌背" in texts["unusual_layout"] and "未计入" not in texts["grouping_ambiguous"]
    assert "10 到 14" in texts["hidden_kong_tile_unknown"] and "五万、中" in texts["hidden_kong_tile_unknown"]
    assert "九条" not in texts["strays_left_out"] and "春、牌背" in texts["strays_left_out"]
    assert "北（0.07）、三条（0.40）" in texts["low_confidence"]
    assert "九万的牌按七万计算（识别的第二选择）；识别为兰的牌按五万计算（识别的第三选择）；一张识别把握很小的牌按三饼计算（识别的第一选择）" in texts["reading_repaired"]
    assert shown["warnings"][-1][1] == "a newer server's warning"  # an unknown code: the English
    [alternative] = shown["alternatives"]
    assert "和牌四饼（未单独放开）；副露：一二三万、中中中；未计入：九条、牌背" in alternative and alternative.endswith("→ 9")


def test_english_page_shows_the_server_text(page, analysis_with_every_warning):
    analysis = analysis_with_every_warning
    shown = page.evaluate(RENDER, ["en", analysis])
    assert [text for _, text in shown["warnings"]] == analysis["warnings"]
    assert analysis["alternatives"][0]["description"] in shown["alternatives"][0]


def test_a_server_without_warning_details_still_shows_its_warnings(page):
    shown = page.evaluate(RENDER, ["zh", {"warnings": ["some warning"], "alternatives": []}])
    assert shown["warnings"] == [[None, "some warning"]]
