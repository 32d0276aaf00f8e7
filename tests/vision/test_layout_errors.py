"""The layout's errors carry their code, the params a translation needs and the English text;
vision.messages_zh says every warning and error code in Chinese."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from test_layout_scenes import scene

import scoring.gongdi  # noqa: F401  (its error codes join scoring.errors.ERROR_CODES)
import scoring.lianzhong  # noqa: F401
from scoring.errors import ERROR_CODES
from vision import messages_zh
from vision.layout import build_hand
from vision.layout_warnings import LAYOUT_ERROR_CODES, WARNING_CODES, layout_error


def read(dets):
    return build_hand(dets, (2000, 2000))


def test_too_few_tiles_gives_the_counts_as_params():
    error = read(scene([["W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2", "B4"]]))["error"]
    assert error == {"code": "wrong_tile_count", "params": {"found": 13, "needed": 14, "kongs": 0},
                     "message": "13 tiles found; a winning hand needs 14, plus one for each kong"}


def test_a_photo_of_flowers_alone_lying_across_is_a_count_error_not_a_crash():
    # one flower lying sideways (wider than tall), nothing else: no hand rows to lie across
    result = build_hand([{"tile": "H8", "box": [100, 100, 300, 140], "score": 0.5}], (2000, 1500))
    assert result["error"]["code"] == "wrong_tile_count"
    assert result["error"]["params"] == {"found": 0, "needed": 14, "kongs": 0}
    assert [t["role"] for t in result["tiles"]] == ["flower"]


def test_a_kong_raises_the_count_needed():
    error = read(scene([["T9 T9 T9* T9", "W1 W2 W3 W4 W5 W6 W7 B1 B2", "B3"]]))["error"]
    assert error["params"] == {"found": 14, "needed": 15, "kongs": 1}
    assert error["message"] == "14 tiles found; a winning hand needs 14, plus one for each kong (15 with 1 kong)"


def test_backs_in_a_row_of_faces_with_the_count_right_say_so_not_zero_too_many():
    # 14 tiles as a hand has, but two read as backs lie among faces: no concealed kong can hold them
    error = read(scene([["B2 B3 B4 W2 W3 W4 T6 T7 T8 F3 F3 BACK BACK", "F3"]]))["error"]
    assert error["code"] == "backs_outside_kong" and error["params"] == {"found": 14, "backs": 2}
    assert "0 too many" not in error["message"] and "2 of them face down" in error["message"]
    assert messages_zh.error_zh(error).startswith("找到 14 张牌，张数够了，但其中 2 张背面朝上")


def test_too_many_tiles_says_how_many_too_many():
    assert layout_error("wrong_tile_count", found=17, needed=15, kongs=1)["message"] == (
        "17 tiles found; a winning hand has 14, plus one for each kong (15 with 1 kong): 2 too many")
    assert messages_zh.error_zh(layout_error("wrong_tile_count", found=17, needed=15, kongs=1)) == (
        "找到 17 张牌；和牌是 14 张，每个杠多一张（1 个杠共 15 张）：多了 2 张")


def test_the_scorers_error_keeps_its_params():
    error = read(scene([["W5 W5 W5 W5 W5 W6 W7 B1 B2 B3 T1 T2 T3", "T4"]]))["error"]
    assert error["code"] == "too_many_copies" and error["params"] == {"tile": "W5", "count": 5}
    assert error["message"].startswith("5 copies of")
    assert messages_zh.error_zh(error) == "五万有 5 张：每种牌只有四张"


def test_chinese_texts_of_the_scorers_counts():
    say = messages_zh.error_zh
    assert say({"code": "wrong_tile_count", "params": {"found": 13, "needed": 14, "kongs": 0}}) == (
        "找到 13 张牌；和牌需要 14 张，每个杠多一张")
    assert say({"code": "wrong_tile_count", "params": {"found": 17, "needed": 14, "kongs": 0, "melds": 5}}) == (
        "有 5 个副露：一手牌最多四个")
    assert say({"code": "too_many_copies", "params": {"tile": "H3", "count": 2}}) == "花牌秋有 2 张：每张花牌只有一张"
    assert say({"code": "too_many_copies", "params": {"tile": "J2", "count": 6}}) == "发有 6 张：每种牌只有四张"
    assert say({"code": "too_many_copies"}) == "同一张牌超过了四张（或同一张花牌出现了两次）"
    assert say({"code": "too_many_copies", "params": {"tile": 5}}) is None  # params not as expected


def test_no_tiles_is_a_code_with_empty_params():
    assert read([])["error"] == {"code": "no_tiles", "params": {}, "message": "no tiles found in the photo"}


def test_an_unknown_layout_error_code_is_refused():
    with pytest.raises(KeyError):
        layout_error("no_such_error")


def test_every_warning_and_error_code_has_a_chinese_text():
    assert set(messages_zh.WARNING_ZH) == set(WARNING_CODES)
    assert set(LAYOUT_ERROR_CODES) <= set(messages_zh.ERROR_ZH)
    assert set(ERROR_CODES) <= set(messages_zh.ERROR_ZH), set(ERROR_CODES) - set(messages_zh.ERROR_ZH)
    for code in set(ERROR_CODES) | set(LAYOUT_ERROR_CODES):
        assert any("\u4e00" <= c <= "\u9fff" for c in messages_zh.error_zh({"code": code})), code


def test_chinese_texts_use_the_params():
    assert messages_zh.error_zh(layout_error("wrong_tile_count", found=13, needed=14, kongs=0)) == (
        "找到 13 张牌；和牌需要 14 张，每个杠多一张")
    # an error without counts (an older server's): the text says what the code means
    assert messages_zh.error_zh({"code": "wrong_tile_count", "message": "..."}) == "牌数不对：和牌是 14 张，每个杠多一张"
    reading = {"win_tile": "B4", "win_apart": False, "melds": [["W1", "W2", "W3"], ["J1", "J1", "J1"]], "left_out": ["T9"]}
    assert messages_zh.warning_zh({"code": "unusual_layout", "params": {"reading": reading}}) == (
        "牌的摆法不像一般的一手牌，读作：和牌四饼（未单独放开）；副露：一二三万、中中中；未计入：九条")
    assert messages_zh.warning_zh({"code": "low_confidence", "params": {
        "threshold": 0.5, "tiles": [{"tile": "BACK", "score": 0.07}]}}) == "这些牌识别把握不大（低于 0.5），请核对：牌背（0.07）"


def test_an_unknown_code_or_params_not_as_expected_give_none():
    assert messages_zh.warning_zh({"code": "a_newer_warning", "params": {}}) is None
    assert messages_zh.warning_zh({"code": "win_tile_not_apart", "params": {}}) is None
    assert messages_zh.warning_zh(None) is None and messages_zh.error_zh({"code": "nope"}) is None


def test_the_font_subset_has_every_character_of_the_chinese_texts():
    from fontTools.ttLib import TTFont

    from vision.annotate import FONT_PATH

    cmap = TTFont(FONT_PATH).getBestCmap()
    tree = ast.parse(Path(messages_zh.__file__).read_text(encoding="utf-8"))
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    missing = sorted({c for s in strings for c in s if c.isprintable() and c != " " and ord(c) not in cmap})
    assert not missing, "regenerate the subset: python vision/fonts/make_subset.py; missing " + "".join(missing)
