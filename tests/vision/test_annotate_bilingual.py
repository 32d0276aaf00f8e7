"""The annotated photo's panel says the error and each warning in Chinese, then in English,
wrapped to the image width (two lines at most for each language), at 640 px and at 12 MP."""
from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from vision import annotate as A
from vision.layout_warnings import layout_error, warning

LOW = warning("low_confidence", threshold=0.5, tiles=[{"tile": "W2", "score": 0.3}])
STRAYS = warning("strays_left_out", count=2, tiles=["T1", "BACK"])
SHORT = layout_error("wrong_tile_count", found=13, needed=14, kongs=0)


def analysis(**extra) -> dict:
    result = {"tiles": [], "groups": [], "hand": None, "score": None, "error": SHORT,
              "warnings": [LOW["message"], STRAYS["message"]], "warning_details": [LOW, STRAYS], "alternatives": []}
    return {**result, **extra}


def test_error_and_warnings_are_drawn_in_chinese_then_english():
    assert A._notes(analysis()) == [
        (["找到 13 张牌；和牌需要 14 张，每个杠多一张", SHORT["message"]], A.ERROR_COLOUR),
        (["! 这些牌识别把握不大（低于 0.5），请核对：二万（0.30）", "! " + LOW["message"]], A.PANEL_DIM),
        (["! 离手牌较远的 2 张牌没有计入：一条、牌背", "! " + STRAYS["message"]], A.PANEL_DIM),
    ]


def test_a_code_without_chinese_and_an_analysis_without_codes_are_drawn_in_english():
    newer = {"code": "a_newer_warning", "params": {}, "message": "something new"}
    notes = A._notes(analysis(error={"code": "a_newer_error", "message": "went wrong"}, warning_details=[newer]))
    assert notes == [(["went wrong"], A.ERROR_COLOUR), (["! something new"], A.PANEL_DIM)]
    old = analysis(error=None, warnings=["an old warning"])
    del old["warning_details"]
    assert A._notes(old) == [(["! an old warning"], A.PANEL_DIM)]


def test_the_scorers_error_is_drawn_in_chinese_by_its_code():
    notes = A._notes(analysis(error={"code": "not_a_winning_hand", "message": "not a winning hand"}, warning_details=[]))
    assert notes == [(["这手牌没有和：牌组不成和牌型", "not a winning hand"], A.ERROR_COLOUR)]


def test_long_notes_wrap_within_the_width_and_are_cut_after_two_lines():
    draw = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    f = A.font(20)
    width = 300
    english = "the tiles do not lie as a hand usually does; read as: winning tile B4; declared melds: none; left out: T9"
    chinese = "暗杠的四张牌背面朝上，看不出是哪张牌：按多数可能的牌计 12（当作五万），可能从 10 到 14；翻开其中两张可以算得准确"
    for text in (english, chinese):
        lines = A._wrap(draw, text, f, width)
        assert len(lines) == 2 and lines[-1].endswith("…")
        assert all(draw.textlength(line, font=f) <= width for line in lines)
        assert text.startswith(lines[0])
    assert A._wrap(draw, "short", f, width) == ["short"]
    first = A._wrap(draw, english, f, width)[0]
    assert english[len(first)] == " "  # English breaks at a space, not inside a word


def test_bilingual_notes_fit_and_stay_readable_at_640_px_and_12_mp():
    for width in (640, 4000):
        rgb = np.full((width * 3 // 4, width, 3), 80, np.uint8)
        english = analysis()
        english["warning_details"] = [dict(w, code="unknown") for w in english["warning_details"]]
        english["error"] = dict(SHORT, code="unknown")
        both = A.annotate(rgb, analysis())
        one = A.annotate(rgb, english)
        assert both.shape[1] == width
        # a Chinese line (at least) more for each of the 3 notes, each line as tall as readable text
        # on a phone that shows the image about 1000 px wide: 13 px at 640, a 50th of the width at 12 MP
        assert both.shape[0] - one.shape[0] >= 3 * max(A.MIN_TEXT, width / 50)
        panel = both[rgb.shape[0]:]
        assert (panel == A.ERROR_COLOUR).all(axis=2).any()


def test_scorer_glyphs_are_written_as_tile_codes_the_font_can_draw():
    from fontTools.ttLib import TTFont

    from scoring.tiles import glyphs
    from vision.annotate import FONT_PATH, plain_tiles

    text = plain_tiles(f"melds: {glyphs(['B1', 'B2', 'B3'])} is not a pung; {glyphs(['J1'])} too")
    assert text == "melds: B1 B2 B3 is not a pung; J1 too"
    cmap = TTFont(str(FONT_PATH))["cmap"].getBestCmap()
    assert all(ord(ch) in cmap or ch == " " for ch in text)
