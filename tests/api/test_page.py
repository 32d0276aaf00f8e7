"""The phone page: served at /, self-contained (nothing from outside the server), bilingual."""
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[2] / "api" / "static"
PAGE_FILES = ["index.html", "app.js", "style.css", "games.js", "games.css"]


def test_the_page_is_served_at_the_root_with_its_assets(client):
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    for asset in re.findall(r'(?:src|href)="(/[^"]+)"', page.text):
        assert client.get(asset).status_code == 200, asset


def test_the_page_offers_the_rear_camera_and_the_gallery(client):
    page = client.get("/").text
    assert re.search(r'<input id="photo-camera"[^>]*accept="image/\*"[^>]*capture="environment"', page)
    assert re.search(r'<input id="photo-gallery"[^>]*accept="image/\*"', page)
    assert 'name="viewport"' in page and "width=device-width" in page


def test_nothing_is_loaded_from_outside_the_server():
    for name in PAGE_FILES:
        text = (STATIC / name).read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), name
        assert "@import" not in text and "url(" not in text, name


def test_every_text_key_of_the_page_has_chinese_and_english():
    script = (STATIC / "app.js").read_text(encoding="utf-8")
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    zh_block = script[script.index("  zh: {") + 7:script.index("  en: {")]
    en_block = script[script.index("  en: {") + 7:script.index("const NUM_ZH")]
    key = re.compile(r"\b([a-z_]+):")
    zh, en = set(key.findall(zh_block)), set(key.findall(en_block))
    assert zh == en
    used = set(re.findall(r'data-i18n="([a-z_]+)"', page)) | set(re.findall(r'\bt\("([a-z_]+)"\)', script))
    assert used <= zh, used - zh
