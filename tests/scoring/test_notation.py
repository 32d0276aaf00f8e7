"""The compact notation and Unicode tiles, both ways."""
import pytest

from scoring import HandError, format_hand, parse_hand
from scoring.notation import format_tiles, parse_tiles
from scoring.tiles import GLYPHS, PLAYING_TILES, glyph, name_en, name_zh


def test_parse_plain_hand_with_plus():
    h = parse_hand("123m456m789m123p5p+5p")
    assert h["concealed"] == ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "B1", "B2", "B3", "B5"]
    assert h["win_tile"] == "B5" and h["melds"] == [] and h["flowers"] == []
    assert h["context"]["seat_wind"] == "E" and h["context"]["self_drawn"] is False


def test_parse_melds_and_space_before_win():
    h = parse_hand("[123s] [EEE] {5555p} [9999m] 2s 2s")
    kinds = [(m["kind"], m["exposed"], m["tiles"][0]) for m in h["melds"]]
    assert kinds == [("chow", True, "T1"), ("pung", True, "F1"), ("kong", False, "B5"), ("kong", True, "W9")]
    assert h["concealed"] == ["T2"] and h["win_tile"] == "T2"


def test_honours_letters():
    assert parse_tiles("ESWNCFP") == ["F1", "F2", "F3", "F4", "J1", "J2", "J3"]


def test_codes_and_glyphs_are_accepted():
    assert parse_tiles("W1 B9 J2") == ["W1", "B9", "J2"]
    assert parse_tiles("🀇🀏🀄") == ["W1", "W9", "J1"]
    assert parse_tiles("W123m") == ["F3", "W1", "W2", "W3"]   # West then 123m


def test_z_is_refused_with_the_reason():
    with pytest.raises(HandError) as info:
        parse_tiles("567z")
    assert info.value.code == "bad_notation" and "中发白" in info.value.message


def test_context_keywords_and_flowers():
    h = parse_hand("123m456m789m123p5p+5p", flowers=2, self_drawn=True, seat_wind="S")
    assert h["flowers"] == ["H1", "H2"] and h["context"]["self_drawn"] and h["context"]["seat_wind"] == "S"
    assert parse_hand("123m456m789m123p5p+5p", flowers="H3,H8")["flowers"] == ["H3", "H8"]


def test_round_trip():
    for text in ["123456789m1235p+5p", "2s[123s][EEE]{5555p}[9999m]+2s", "19m19s19pESWNCFP+1m"]:
        assert format_hand(parse_hand(text)) == text


def test_format_tiles():
    assert format_tiles(["W1", "W2", "B5", "F1", "J3"]) == "12m5pEP"


def test_glyphs_and_names():
    assert len(set(GLYPHS.values())) == 42
    assert glyph("W1") == "🀇" and glyph("J1") == "🀄" and glyph("F1") == "🀀" and glyph("B9") == "🀡"
    assert name_zh("T5") == "五条" and name_en("J2") == "Green Dragon" and name_zh("H5") == "梅"
    assert len(PLAYING_TILES) == 34
