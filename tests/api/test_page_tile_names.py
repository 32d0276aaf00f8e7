"""The phone page names every tile as the scorer does (scoring.tiles.name_zh): one spelling, 万
for characters as MCR writes them in mainland China, on the page, in its messages and on the
annotated photo (vision.messages_zh)."""
import json
import re
from pathlib import Path

from scoring.tiles import FLOWER_TILES, PLAYING_TILES, name_zh
from vision import messages_zh

APP_JS = Path(__file__).resolve().parents[2] / "api" / "static" / "app.js"


def js_object(name: str):
    """A constant of app.js written as a JSON-like literal (keys bare or quoted)."""
    script = APP_JS.read_text(encoding="utf-8")
    literal = re.search(rf"^const {name} = (\{{.*?\}}|\[.*?\]);", script, re.M | re.S).group(1)
    return json.loads(re.sub(r"([{,]\s*)([A-Z][A-Z0-9]*):", r'\1"\2":', literal))


def page_tile_name(code: str) -> str:  # tileNameZh of app.js, on its tables
    suits, numbers, honours = js_object("SUIT_ZH"), js_object("NUM_ZH"), js_object("HONOUR_ZH")
    if code[0] in suits:
        return numbers[int(code[1:]) - 1] + suits[code[0]]
    return honours[code]


def test_the_page_names_every_tile_as_the_scorer_does():
    for code in PLAYING_TILES + FLOWER_TILES:
        assert page_tile_name(code) == name_zh(code) == messages_zh.tile_name(code), code
    assert name_zh("W5") == "五万" and "萬" not in APP_JS.read_text(encoding="utf-8")


def test_a_meld_of_characters_is_named_under_one_suit():
    reading = {"win_tile": "W9", "win_apart": True, "melds": [["W1", "W2", "W3"], ["T5", "T5", "T5"]], "left_out": None}
    assert messages_zh.reading_zh(reading) == "和牌九万；副露：一二三万、五五五条"
