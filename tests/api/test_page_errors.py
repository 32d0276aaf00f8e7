"""The phone page has a Chinese text for every error code the scorer and the layout can answer."""
import re
from pathlib import Path

import scoring.gongdi  # noqa: F401  (the rule sets' own codes join ERROR_CODES)
import scoring.lianzhong  # noqa: F401
from scoring.errors import ERROR_CODES
from vision.layout_warnings import LAYOUT_ERROR_CODES

APP_JS = Path(__file__).resolve().parents[2] / "api" / "static" / "app.js"
CJK = re.compile(r"[\u4e00-\u9fff]")


def error_zh_texts() -> dict[str, str]:
    script = APP_JS.read_text(encoding="utf-8")
    start = script.index("const ERROR_ZH = {")
    block = script[start:script.index("\n};", start)]
    codes = re.findall(r"^  ([a-z_]+): \(p\) =>", block, re.M)
    texts = re.split(r"^  [a-z_]+: \(p\) =>", block, flags=re.M)[1:]
    assert len(codes) == len(set(codes)) == len(texts)
    return dict(zip(codes, texts))


def test_every_scorer_and_layout_error_code_has_a_chinese_text_in_the_page():
    texts = error_zh_texts()
    wanted = set(ERROR_CODES) | set(LAYOUT_ERROR_CODES)
    assert {"not_a_winning_hand", "wrong_tile_count", "no_tiles", "not_covered"} <= wanted
    assert not wanted - set(texts), f"codes without a Chinese text in app.js ERROR_ZH: {sorted(wanted - set(texts))}"
    for code, text in texts.items():
        assert CJK.search(text), f"{code} has no Chinese text"


def test_the_layouts_tile_count_text_uses_the_counts():
    text = error_zh_texts()["wrong_tile_count"]
    assert all(f"p.{name}" in text for name in ("found", "needed", "kongs"))
