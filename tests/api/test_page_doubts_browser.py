"""In a real headless Chromium: the hand on the phone page marks the tiles to check (a tile the
reading repair scored as another than the detector read, a tile read with low confidence);
tapping one says what the detector read, next to the palette; changing or confirming the tile
takes the mark away (and a change re-scores).

The detector is a stand-in that finds the synthetic photo's true boxes but reads one concealed
T4 as T7, with T4 as its second choice: the real layout and reading repair run on it."""
from __future__ import annotations

import copy

import pytest
from browser import PHONE, require_chromium, serving
from synth_hand import SYNTH_PHOTO, TrueBoxes

import scoring
from vision.detections import Detections

require_chromium()

TIMEOUT_MS = 30_000
MISREAD = 3  # the first concealed T4 among the record's boxes
B2 = 5  # a concealed B2


class MisreadsOneTile(TrueBoxes):
    """The photo's true boxes with candidates; the T4 at MISREAD read as T7 first, T4 second;
    with `unsure`, the B2 at B2 read with low confidence too."""

    def __init__(self, unsure: bool = False):
        super().__init__()
        self.unsure = unsure

    def detect(self, rgb, **_):
        found = super().detect(rgb).tiles
        for d in found:
            d["candidates"] = [[d["tile"], d["score"]]]
        assert self.record["boxes"][MISREAD]["tile"] == "T4" and self.record["boxes"][B2]["tile"] == "B2"
        found[MISREAD].update(tile="T7", score=0.9, candidates=[["T7", 0.9], ["T4", 0.6]])
        if self.unsure:
            found[B2].update(score=0.3, candidates=[["B2", 0.3]])
        return Detections(copy.deepcopy(found))


@pytest.fixture(scope="module")
def server():
    from api.app import create_app

    app = create_app()
    with serving(app) as url:
        yield app, url


@pytest.fixture
def page(browser, server):
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server[1] + "/")
    yield page
    context.close()


def upload(page, server, monkeypatch, detector) -> dict:
    monkeypatch.setattr(server[0].state.inference, "detector", lambda: detector)
    with page.expect_response("**/api/v1/analyze") as answer:
        page.set_input_files("#photo-gallery", str(SYNTH_PHOTO))
    assert answer.value.status == 200, answer.value.text()
    page.wait_for_selector("#progress", state="hidden")
    page.wait_for_function("() => !document.body.dataset.scoring")
    return answer.value.json()


def marked(page) -> list[list]:
    """[area, tile, badge text] of each marked tile of the hand."""
    return page.locator("#hand .tile.doubt").evaluate_all(
        "els => els.map(e => [e.parentElement.id || 'meld', e.dataset.tile, e.querySelector('.badge').textContent])")


def page_hand(page) -> dict:
    return page.evaluate("() => JSON.parse(JSON.stringify({hand: state.hand, context: state.context}))")


def total_of(state: dict):
    hand = state["hand"]
    melds = [{"kind": "chow" if len(set(m["tiles"])) == 3 else "pung", "tiles": sorted(m["tiles"]), "exposed": True}
             for m in hand["melds"]]
    return scoring.score_hand({"concealed": hand["concealed"], "melds": melds, "win_tile": hand["win_tile"],
                               "flowers": hand["flowers"], "context": state["context"]})["total"]


def test_a_repaired_tile_is_marked_says_what_was_read_and_a_change_unmarks_it(page, server, monkeypatch):
    analysis = upload(page, server, monkeypatch, MisreadsOneTile())
    [repaired] = [t for t in analysis["tiles"] if t.get("read_as")]
    assert (repaired["read_as"], repaired["tile"], repaired["low_confidence"]) == ("T7", "T4", False)
    assert analysis["warning_details"][0]["code"] == "reading_repaired"
    assert marked(page) == [["concealed", "T4", "?"]]
    assert page.inner_text("#total") == str(analysis["score"]["total"])

    page.locator("#hand .tile.doubt").click()
    assert page.inner_text("#sheet-note") == "识别为七条 T7，按四条计算才能和牌，请核对。"
    assert page.locator("#palette").is_visible() and page.locator("#act-confirm").is_visible()
    page.click("#sheet-close")
    assert marked(page) == [["concealed", "T4", "?"]]  # closing the sheet is not checking the tile

    page.click("#lang")  # the note in English
    page.locator("#hand .tile.doubt").click()
    assert page.inner_text("#sheet-note") == "read as 七条 T7; scored as T4 so that the hand wins; check it."
    # T3 T3 T3 T4 B2 B2 + T4 won as a pair of T4 and a pung of T3; with B2 for the T4 it wins
    # as a pung of B2 instead, for another total
    before = page_hand(page)
    page.click('#palette .tile[data-tile="B2"]')
    page.wait_for_function("() => !document.body.dataset.scoring")
    after = page_hand(page)
    assert after["hand"]["concealed"].count("B2") == before["hand"]["concealed"].count("B2") + 1
    assert marked(page) == []
    expected = total_of(after)
    assert expected != analysis["score"]["total"]
    assert page.inner_text("#total") == str(expected)


def test_confirming_a_tile_unmarks_it_and_a_low_confidence_tile_is_marked_too(page, server, monkeypatch):
    analysis = upload(page, server, monkeypatch, MisreadsOneTile(unsure=True))
    [unsure] = [t for t in analysis["tiles"] if t["low_confidence"]]
    assert unsure["tile"] == "B2" and unsure["read_as"] is None  # the API answers null on the others
    assert sorted(marked(page)) == [["concealed", "B2", "?"], ["concealed", "T4", "?"]]
    total = page.inner_text("#total")

    page.locator("#hand .tile.doubt[data-tile=B2]").click()
    assert page.inner_text("#sheet-note") == "这张牌识别把握不大（0.30），请核对。"
    page.click("#act-confirm")
    assert marked(page) == [["concealed", "T4", "?"]]
    assert page.inner_text("#total") == total  # nothing changed

    page.locator("#hand .tile.doubt").click()
    page.click('#palette .tile[data-tile="T4"]')  # chosen as it is: checked too
    assert marked(page) == [] and page.inner_text("#total") == total

    page.click("#manual")  # a hand typed from scratch has nothing to check
    page.click("#concealed .tile.add")
    page.click('#palette .tile[data-tile="T4"]')
    page.click("#sheet-close")
    assert marked(page) == []


ROW = "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B3 B4".split()


class BoxesW7Twice:
    """A winning hand in one row, its W7 boxed a second time (shifted 0.4 of a tile) and read W8:
    a tile too many, which the reading repair drops."""

    def detect(self, rgb, **_):
        found = [{"tile": c, "box": [100.0 + 94 * i, 500.0, 190.0 + 94 * i, 620.0], "score": 0.95,
                  "candidates": [[c, 0.95]]} for i, c in enumerate(ROW)]
        found.append({"tile": "W8", "box": [700.0, 500.0, 790.0, 620.0], "score": 0.6, "candidates": [["W8", 0.6]]})
        return Detections(sorted(found, key=lambda d: d["box"][0]))


def left_out(page) -> list[str]:
    return page.locator("#left-out .tile").evaluate_all("els => els.map(e => e.dataset.tile)")


def test_a_tile_the_repair_left_out_is_shown_apart_and_one_tap_puts_it_back(page, server, monkeypatch):
    analysis = upload(page, server, monkeypatch, BoxesW7Twice())
    assert [t["tile"] for t in analysis["tiles"] if t.get("dropped")] == ["W8"]
    assert page.is_visible("#left-out-group") and left_out(page) == ["W8"]
    assert page.inner_text("#left-out-group .group-head") == "核对时剔除（可能是同一张牌的两个框）：点一下放回手牌"
    assert page.inner_text("#total") == str(analysis["score"]["total"])
    concealed = page_hand(page)["hand"]["concealed"]

    page.click("#left-out .tile")  # the player says it was a tile after all
    page.wait_for_function("() => !document.body.dataset.scoring")
    assert page_hand(page)["hand"]["concealed"] == sorted(concealed + ["W8"], key=ROW.index)
    assert not page.is_visible("#left-out-group") and left_out(page) == []
    assert page.is_visible("#score-error")  # 15 tiles: no winning hand, said so

    page.click("#manual")  # a hand typed from scratch has nothing left out
    assert not page.is_visible("#left-out-group")
