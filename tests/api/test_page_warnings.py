"""The phone page has a Chinese text for every warning code the layout can emit."""
import re
from pathlib import Path

from vision.detections import Detections
from vision.layout_warnings import WARNING_CODES

APP_JS = Path(__file__).resolve().parents[2] / "api" / "static" / "app.js"


def warning_zh_block() -> str:
    script = APP_JS.read_text(encoding="utf-8")
    start = script.index("const WARNING_ZH = {")
    return script[start:script.index("\n};", start)]


def test_every_layout_warning_code_has_a_chinese_text_in_the_page():
    block = warning_zh_block()
    codes = re.findall(r"^  ([a-z_]+): \(p\) =>", block, re.M)
    assert sorted(codes) == sorted(WARNING_CODES)
    texts = re.split(r"^  [a-z_]+: \(p\) =>", block, flags=re.M)[1:]
    for code, text in zip(codes, texts):
        assert re.search(r"[\u4e00-\u9fff]", text), f"{code} has no Chinese text"



def test_analyze_answers_the_codes_the_page_reads(make_client, monkeypatch):
    from synth_hand import SYNTH_PHOTO, TrueBoxes

    class Unsure(TrueBoxes):  # the first tile read with little confidence
        def detect(self, rgb, **_):
            found = super().detect(rgb).tiles
            found[0]["score"] = 0.3
            return Detections(found)

    client = make_client()
    detector = Unsure()
    monkeypatch.setattr(client.app.state.inference, "detector", lambda: detector)
    answer = client.post("/api/v1/analyze", files={"image": ("hand.jpg", SYNTH_PHOTO.read_bytes(), "image/jpeg")})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["warnings"] == [w["message"] for w in body["warning_details"]]
    [low] = [w for w in body["warning_details"] if w["code"] == "low_confidence"]
    unsure = [{"tile": t["tile"], "score": round(t["score"], 2)} for t in body["tiles"] if t["low_confidence"]]
    assert low["params"]["tiles"] == unsure and [t["score"] for t in unsure] == [0.3]
