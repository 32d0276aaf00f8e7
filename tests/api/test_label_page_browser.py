"""The labelling page's "Mark checked · next" button and its palette of tile pictures, in a real
headless Chromium (Debian's, driven by Playwright) against the labelling app under uvicorn."""
from __future__ import annotations

import io
import time

import httpx
import pytest
from browser import require_chromium, serving
from label_app import labelling_app
from PIL import Image

from api.label.state import configure_labelling
from vision.classes import CLASS_ID, CLASSES
from vision.detections import Detections

require_chromium()

TIMEOUT_MS = 20_000
NAMES = ["a.jpg", "b.jpg", "c.jpg"]
DETECTIONS = [
    {"tile": "W1", "box": [40, 40, 120, 160], "score": 0.95},
    {"tile": "B4", "box": [160, 40, 240, 160], "score": 0.41},  # the least confident: selected first
]


class FakeDetector:
    model_version = "fake-1"
    classifier = None  # no tile set is learnt with it

    def detect(self, rgb, **_):
        return Detections([dict(d) for d in DETECTIONS])


@pytest.fixture
def folder(tmp_path):
    for name in NAMES:
        buffer = io.BytesIO()
        Image.new("RGB", (400, 200), (236, 228, 200)).save(buffer, format="JPEG")
        (tmp_path / name).write_bytes(buffer.getvalue())
    return tmp_path


@pytest.fixture
def server(folder):
    app = labelling_app()
    configure_labelling(app, folder, detector=FakeDetector())
    with serving(app) as url:
        yield url


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(server + "/label")
    page.wait_for_selector(".box.selected[data-tile='B4']")
    yield page
    context.close()
    outside = [url for url in requests if not url.startswith((server, "data:", "blob:"))]
    assert not outside, f"the page loaded from outside the server: {outside}"


def checked_on_server(server) -> dict[str, bool]:
    images = httpx.get(server + "/api/v1/label/images").json()["images"]
    return {image["path"]: image["reviewed"] for image in images}


def label_classes(path, wanted: list[int], timeout=10.0) -> list[int]:
    """The class ids of a label file once they are `wanted` (or what they are at the deadline)."""
    deadline = time.monotonic() + timeout
    while True:
        found = sorted(int(line.split()[0]) for line in path.read_text().splitlines() if line.strip())
        if found == wanted or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_the_button_marks_the_image_checked_on_the_server_and_opens_the_next(page, server):
    button = page.get_by_role("button", name="Mark checked · next")
    assert button.is_visible()
    assert "Enter" in button.get_attribute("title")
    assert checked_on_server(server) == {"a.jpg": False, "b.jpg": False, "c.jpg": False}

    button.click()
    page.wait_for_selector("#image-name:text-is('b.jpg')")
    page.wait_for_selector("#image-list li.reviewed[data-path='a.jpg']")
    assert checked_on_server(server) == {"a.jpg": True, "b.jpg": False, "c.jpg": False}
    assert page.inner_text("#progress") == "1 / 3 checked"

    # The keys still work after the click: focus went back to the image, so Enter moves on too.
    assert page.evaluate("document.activeElement.id") == "stage"
    page.keyboard.press("Enter")
    page.wait_for_selector("#image-name:text-is('c.jpg')")
    assert checked_on_server(server) == {"a.jpg": True, "b.jpg": True, "c.jpg": False}


def test_a_tile_still_being_typed_is_set_before_the_button_moves_on(page, server, folder):
    # "W" alone waits for a digit (W1..W9) before it means West; the click must not lose it.
    page.keyboard.type("w")
    page.wait_for_selector("#typed:text-is('W')")
    page.get_by_role("button", name="Mark checked · next").click()
    page.wait_for_selector("#image-name:text-is('b.jpg')")
    assert label_classes(folder / "a.txt", [CLASS_ID["W1"], CLASS_ID["F3"]]) == [CLASS_ID["W1"], CLASS_ID["F3"]]
    assert checked_on_server(server)["a.jpg"] is True


def test_a_double_click_moves_on_one_image_only(page, server):
    page.get_by_role("button", name="Mark checked · next").dblclick()
    page.wait_for_selector("#image-name:text-is('b.jpg')")
    page.wait_for_selector(".box.selected[data-tile='B4']")
    page.wait_for_timeout(500)  # a second move, had it started, would have landed by now
    assert page.inner_text("#image-name") == "b.jpg"
    assert checked_on_server(server) == {"a.jpg": True, "b.jpg": False, "c.jpg": False}


def test_the_palette_draws_a_picture_of_each_tile_labelled_with_its_code(page):
    pictures = page.locator("#palette button svg[role='img']")
    assert pictures.count() == len(CLASSES) == 43
    assert [pictures.nth(i).get_attribute("aria-label") for i in range(43)] == CLASSES
    drawn = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#palette svg')].map((svg) => [
        svg.getAttribute('aria-label'),
        {circles: svg.querySelectorAll('circle').length, rects: svg.querySelectorAll('rect').length,
         text: [...svg.querySelectorAll('text')].map((t) => t.textContent).join('')}]))""")
    for n in range(1, 10):
        assert drawn[f"B{n}"]["circles"] == 2 * n  # n dots, each a ring and its centre
        assert drawn[f"T{n}"]["rects"] == 1 + n  # the tile and n sticks
        assert drawn[f"W{n}"]["text"] == "一二三四五六七八九"[n - 1] + "萬"
    assert [drawn[code]["text"] for code in ["F1", "F2", "F3", "F4", "J1", "J2"]] == list("东南西北中发")
    assert drawn["J3"]["text"] == "" and drawn["J3"]["rects"] == 2  # the white dragon's frame
    assert drawn["H1"]["text"] == "春1" and drawn["H8"]["text"] == "菊4"
    assert drawn["BACK"] == {"circles": 0, "rects": 2, "text": ""}
    # Each button is named by its code alone (the code under the picture is hidden from readers).
    assert page.get_by_role("button", name="B5", exact=True).count() == 1
    assert "5 Dots" in page.get_by_role("button", name="B5", exact=True).get_attribute("title")


def test_clicking_a_picture_sets_the_tile_of_the_selected_box(page, server, folder):
    page.locator("#palette svg[aria-label='B5']").click()
    page.wait_for_selector(".box[data-tile='B5']")
    assert label_classes(folder / "a.txt", [CLASS_ID["W1"], CLASS_ID["B5"]]) == [CLASS_ID["W1"], CLASS_ID["B5"]]
    assert page.locator(".box[data-tile='B4']").count() == 0
    # The selection moves on to the box not yet checked (W1), and the palette marks its tile.
    page.wait_for_selector(".box.selected[data-tile='W1']")
    page.wait_for_selector("#palette button.current[data-code='W1']")
    # Focus is back on the image: typing a code sets the next box as before.
    assert page.evaluate("document.activeElement.id") == "stage"
    page.keyboard.type("5s")
    assert label_classes(folder / "a.txt", sorted([CLASS_ID["T5"], CLASS_ID["B5"]])) == sorted([CLASS_ID["T5"], CLASS_ID["B5"]])


def test_corrected_tiles_are_kept_for_the_set_unless_the_person_unticks_remember(browser, folder, tmp_path, monkeypatch):
    # a server started with a tile set (`fanshot label DIR --tileset NAME`): the page names it and
    # sends each correction to be kept for it, or, "remember" unticked, not (remember=false)
    monkeypatch.setenv("FANSHOT_DATA_DIR", str(tmp_path / "data"))  # no set "mine" there: keeping it fails, said
    app = labelling_app()
    configure_labelling(app, folder, detector=FakeDetector(), tileset="mine")
    with serving(app) as url:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        saves: list[str] = []
        page.on("request", lambda request: saves.append(request.url) if request.method == "PUT" else None)
        page.goto(url + "/label")
        page.wait_for_selector(".box.selected[data-tile='B4']")
        assert page.is_visible("#remember-row") and page.inner_text("#tileset-name") == "mine"
        assert page.is_checked("#remember")
        page.keyboard.type("5p")
        page.wait_for_selector("#save-state:has-text('not kept for the set mine')")
        assert "remember=false" not in saves[-1]
        page.uncheck("#remember")
        assert page.evaluate("document.activeElement.id") != "remember"  # the page's keys stay the page's
        page.locator(".box[data-tile='W1']").click()
        page.keyboard.type("6p")
        page.wait_for_selector("#save-state:text-is('saved')")
        assert "remember=false" in saves[-1]
        page.reload()  # unticked stays unticked in this browser
        page.wait_for_selector(".box.selected")
        assert not page.is_checked("#remember")
        context.close()


def test_without_a_set_the_page_offers_no_remembering(page):
    assert not page.is_visible("#remember-row")
