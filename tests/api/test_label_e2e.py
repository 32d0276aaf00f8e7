"""End to end in a real headless Chromium: open a folder, fix one class, find it in the label file.

Runs `fanshot label`'s app (create_app + configure_labelling) under uvicorn in a thread,
with a fake detector, and drives /label with Playwright against Debian's chromium.
"""
from __future__ import annotations

import io
import time

import pytest
from browser import chromium, require_chromium, serving
from PIL import Image

from vision.detections import Detections

require_chromium()

DETECTIONS = [
    {"tile": "W1", "box": [40, 40, 120, 160], "score": 0.95},
    {"tile": "B4", "box": [160, 40, 240, 160], "score": 0.41},  # wrong: it is a B5
]


class FakeDetector:
    model_version = "fake-1"

    def detect(self, rgb, **_):
        return Detections([dict(d) for d in DETECTIONS])


def jpeg(path, size=(400, 200)):
    buffer = io.BytesIO()
    Image.new("RGB", size, (236, 228, 200)).save(buffer, format="JPEG")
    path.write_bytes(buffer.getvalue())


@pytest.fixture
def folder(tmp_path):
    jpeg(tmp_path / "a.jpg")
    jpeg(tmp_path / "b.jpg")
    return tmp_path


@pytest.fixture
def server(folder):
    from api.app import create_app
    from api.label.state import configure_labelling

    app = create_app()
    configure_labelling(app, folder, detector=FakeDetector())
    with serving(app) as url:
        yield url


@pytest.fixture
def page():
    with chromium() as browser:
        yield browser.new_page(viewport={"width": 1280, "height": 800})


def classes_in(path) -> list[int]:
    return sorted(int(line.split()[0]) for line in path.read_text().splitlines() if line.strip())


def wait_for_file(path, predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and predicate(path.read_text()):
            return path.read_text()
        time.sleep(0.05)
    pytest.fail(f"{path} never reached the expected content; it holds {path.read_text() if path.exists() else None!r}")


def test_fix_a_class_from_the_keyboard_and_find_it_in_the_label_file(server, folder, page):
    label = folder / "a.txt"
    page.goto(server + "/label")
    # The least confident box (B4, 0.41) is selected first.
    page.wait_for_selector(".box.selected[data-tile='B4']")
    assert page.locator(".box").count() == 2
    assert sorted(classes_in(label)) == [0, 21]  # the pre-label is already saved

    page.keyboard.type("5p")
    text = wait_for_file(label, lambda t: "22 " in t)
    assert classes_in(label) == [0, 22]
    b5_line = next(line for line in text.splitlines() if line.startswith("22 "))
    assert [round(float(v), 3) for v in b5_line.split()[1:]] == [0.5, 0.5, 0.2, 0.6]  # box unchanged
    page.wait_for_selector("#save-state:text('saved')")

    # A reload loses nothing.
    page.reload()
    page.wait_for_selector(".box[data-tile='B5']")
    assert page.locator(".box[data-tile='B4']").count() == 0

    # Draw a new box by dragging on the image, then give it a class.
    photo = page.locator("#photo").bounding_box()
    sx, sy = photo["width"] / 400, photo["height"] / 200
    page.mouse.move(photo["x"] + 280 * sx, photo["y"] + 40 * sy)
    page.mouse.down()
    page.mouse.move(photo["x"] + 320 * sx, photo["y"] + 100 * sy, steps=4)
    page.mouse.move(photo["x"] + 360 * sx, photo["y"] + 160 * sy, steps=4)
    page.mouse.up()
    wait_for_file(label, lambda t: len(t.splitlines()) == 3)
    page.keyboard.type("C")
    wait_for_file(label, lambda t: t.count("\n") == 3 and "31 " in t)
    assert classes_in(label) == [0, 22, 31]

    # Ctrl+Z undoes on the server: the class of the new box goes back.
    page.keyboard.press("Control+z")
    wait_for_file(label, lambda t: "31 " not in t and len(t.splitlines()) == 3)

    # Enter: this image is checked, the next one opens (and is pre-labelled).
    page.keyboard.press("Enter")
    page.wait_for_selector("#image-name:text('b.jpg')")
    page.wait_for_selector("#image-list li.reviewed[data-path='a.jpg']")
    assert classes_in(folder / "b.txt") == [0, 21]


def test_a_resize_that_squashes_a_box_to_a_line_is_undone_not_saved(server, folder, page):
    # the page once sent the squashed box and the label file got a box of zero height
    label = folder / "a.txt"
    page.goto(server + "/label")
    page.wait_for_selector(".box.selected[data-tile='B4']")
    before = label.read_text()
    handle = page.locator(".box.selected .handle.se").bounding_box()
    photo = page.locator("#photo").bounding_box()
    top = photo["y"] + 40 * photo["height"] / 200  # the B4 box's top edge, in page pixels
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(handle["x"] + handle["width"] / 2, top, steps=6)
    page.mouse.up()
    page.wait_for_timeout(500)
    assert label.read_text() == before
    box = page.locator(".box.selected[data-tile='B4']").bounding_box()
    assert box["height"] > 100 * photo["height"] / 200  # back to its 120 px (image) height
    assert page.locator("#save-state").inner_text() != "error"


def test_a_change_on_labels_changed_elsewhere_is_refused_and_the_other_change_kept(server, folder, page):
    # another page, or the page of another replica, saved a.jpg after this page opened it
    import httpx

    label = folder / "a.txt"
    page.goto(server + "/label")
    page.wait_for_selector(".box.selected[data-tile='B4']")
    opened = httpx.get(server + "/api/v1/label/labels", params={"path": "a.jpg"}).json()
    elsewhere = [{"tile": "J1", "box": [40, 40, 120, 160], "score": None}]
    assert httpx.put(server + "/api/v1/label/labels", params={"path": "a.jpg"},
                     json={"boxes": elsewhere, "version": opened["version"]}).status_code == 200
    theirs = label.read_text()

    page.keyboard.type("5p")
    page.wait_for_selector("#save-state.error:has-text('changed elsewhere')")
    assert label.read_text() == theirs

    page.locator("#image-list li[data-path='a.jpg']").click()  # opened again: their change shows
    page.wait_for_selector(".box[data-tile='J1']")
    page.keyboard.type("5p")
    wait_for_file(label, lambda t: "22 " in t)
    page.wait_for_selector("#save-state:text('saved')")
