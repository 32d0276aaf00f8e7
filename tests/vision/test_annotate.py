"""The annotated image: boxes and names, melds, the winning tile, the fan panel, sizes."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from vision import annotate as A
from vision.classes import CLASSES


def analysis(width, unit=1.0, score=True):
    """A hand-made analysis: a pung (meld), three concealed tiles, the winning tile, one unsure tile."""
    w, h, y = 30 * unit, 40 * unit, 60 * unit
    boxes = [[(10 + i * 30) * unit, y, (10 + i * 30) * unit + w, y + h] for i in range(8)]
    boxes[7] = [boxes[7][0] + 20 * unit, y, boxes[7][2] + 20 * unit, y + h]  # set apart
    roles = ["meld"] * 3 + ["concealed"] * 4 + ["win"]
    codes = ["B5", "B5", "B5", "W1", "W2", "W3", "F1", "F1"]
    tiles = [
        {"tile": c, "box": b, "score": 0.9, "role": r, "sideways": False, "low_confidence": False}
        for c, b, r in zip(codes, boxes, roles)
    ]
    tiles[4]["low_confidence"] = True
    tiles[4]["score"] = 0.3
    result = {
        "tiles": tiles,
        "groups": [
            {"role": "meld", "tiles": [0, 1, 2], "box": [boxes[0][0], y, boxes[2][2], y + h]},
            {"role": "concealed", "tiles": [3, 4, 5, 6], "box": [boxes[3][0], y, boxes[6][2], y + h]},
            {"role": "win", "tiles": [7], "box": boxes[7]},
        ],
        "warnings": ["read with low confidence (below 0.5), check: W2 (0.30)"],
        "alternatives": [],
        "hand": None,
        "score": None,
        "error": {"code": "not_a_winning_hand", "message": "not a winning hand"},
    }
    if score:
        result["error"] = None
        result["score"] = {
            "total": 10,
            "meets_minimum": True,
            "fans": [
                {"name_zh": "箭刻", "name_en": "Dragon Pung", "points": 2, "count": 1, "tiles": []},
                {"name_zh": "幺九刻", "name_en": "Pung of Terminals or Honors", "points": 1, "count": 2, "tiles": []},
            ],
        }
    return result


def photo(width, height):
    rng = np.random.default_rng(0)
    return rng.integers(60, 90, size=(height, width, 3), dtype=np.uint8)


def test_the_photo_keeps_its_width_and_gets_a_panel_below():
    rgb = photo(640, 200)
    out = A.annotate(rgb, analysis(640))
    assert out.shape[1] == 640 and out.shape[0] > 200 and out.dtype == np.uint8
    # Far from every tile the photo is untouched; the input array is not modified.
    assert np.array_equal(out[180:200, 500:640], rgb[180:200, 500:640])
    assert rgb.max() < 90


def test_winning_tile_meld_and_unsure_tile_have_their_colours():
    out = A.annotate(photo(640, 200), analysis(640))
    a = analysis(640)
    win = a["tiles"][7]["box"]
    assert tuple(out[int((win[1] + win[3]) / 2), int(win[0]) + 1]) == A.ROLE_COLOURS["win"]
    unsure = a["tiles"][4]["box"]
    assert tuple(out[int((unsure[1] + unsure[3]) / 2), int(unsure[0])]) == A.LOW_CONFIDENCE_COLOUR
    meld = a["groups"][0]["box"]
    outline = out[int((meld[1] + meld[3]) / 2), int(meld[0]) - 8 : int(meld[0])]
    assert any(tuple(p) == A.ROLE_COLOURS["meld"] for p in outline)


def test_panel_text_scales_with_the_image_so_phones_read_both():
    small = A.annotate(photo(640, 300), analysis(640))
    big = A.annotate(photo(4000, 3000), analysis(4000, unit=6.25))
    small_panel = (small.shape[0] - 300) / 640
    big_panel = (big.shape[0] - 3000) / 4000
    assert abs(small_panel - big_panel) / small_panel < 0.35  # the same share of the width
    assert A.font(int(4000 * A.TEXT_SHARE)).size >= 100  # ~28 px on a 1080 px wide screen


def test_a_panel_without_a_score_shows_the_error():
    a = analysis(640, score=False)
    out = A.annotate(photo(640, 200), a)
    panel = out[200:]
    assert (panel == A.ERROR_COLOUR).all(axis=2).any()


def test_font_has_every_glyph_drawn():
    from fontTools.ttLib import TTFont

    cmap = TTFont(A.FONT_PATH).getBestCmap()
    texts = [A.tile_label(c) for c in CLASSES] + ["合计 Total 番", "未能计分 No score", "×2 ?", "(不计花 no flowers 7 < 8)"]
    scoring = pytest.importorskip("scoring")
    if hasattr(scoring, "list_rulesets"):
        for ruleset in scoring.list_rulesets():
            texts += [f["name_zh"] + f["name_en"] for f in ruleset["fans"]]
    missing = sorted({c for t in texts for c in t if c != " " and ord(c) not in cmap})
    assert not missing, "regenerate the subset: python vision/fonts/make_subset.py; missing " + "".join(missing)


def test_tile_labels_are_chinese_names():
    assert A.tile_label("B5") == "五饼"
    assert A.tile_label("J1") == "中"
    assert A.tile_label("H5") == "梅"
    assert A.tile_label("BACK") == "背"


def test_annotated_jpeg_is_the_annotated_picture():
    rgb, drawn_on = photo(320, 120), analysis(320)
    picture = A.annotate(rgb, drawn_on)
    data = A.annotated_jpeg(rgb, drawn_on, quality=95)
    assert data[:2] == b"\xff\xd8"
    assert Image.open(io.BytesIO(data)).size == (picture.shape[1], picture.shape[0])
    # byte for byte the JPEG of `annotate`'s array, encoded at the same quality
    encoded = io.BytesIO()
    Image.fromarray(picture).save(encoded, format="JPEG", quality=95)
    assert data == encoded.getvalue()


def test_annotate_refuses_a_non_rgb_array():
    with pytest.raises(ValueError):
        A.annotate(np.zeros((10, 10), np.uint8), analysis(10))


@pytest.mark.parametrize("anchor", ["la", "ra"])
@pytest.mark.parametrize("text", ["合计 Total 10 番", "五万?", "Two Dragon Pungs", "1×3=3"])
def test_drawn_text_is_what_pillow_draws(text, anchor):
    """Text comes from a cache of drawn masks (`_stamp`): pasted, it is ImageDraw.text's drawing."""
    from PIL import ImageDraw

    size, xy, colour = 23, (150, 17), (255, 210, 60)
    expected = Image.new("RGB", (300, 60), A.PANEL_BACKGROUND)
    ImageDraw.Draw(expected).text(xy, text, font=A.font(size), fill=colour, anchor=anchor)
    got = Image.new("RGB", (300, 60), A.PANEL_BACKGROUND)
    A._text(got, xy, text, size, colour, anchor=anchor)
    A._text(got, xy, "", size, colour, anchor=anchor)  # nothing to draw
    diff = np.abs(np.asarray(expected, int) - np.asarray(got, int))
    assert np.asarray(expected).std() > 0  # the text is there to compare
    assert diff.max() <= 2, f"{(diff > 2).any(axis=2).sum()} pixels differ"
    assert A._stamp(text, size, anchor) is A._stamp(text, size, anchor)  # drawn once


@pytest.mark.parametrize("fans, total, minimum, note", [
    ([("CONCEALED_HAND", 2, 1), ("ALL_CHOWS", 2, 1), ("SHORT_STRAIGHT", 1, 1), ("FLOWER_TILES", 1, 3)], 8, 8,
     "  (不计花 no flowers 5 < 8)"),  # flowers make the total look enough; they do not count
    ([("ALL_CHOWS", 2, 1), ("SHORT_STRAIGHT", 1, 1)], 3, 8, "  (< 8)"),
    ([("ALL_CHOWS", 2, 1)], 2, 16, "  (< 16)"),  # the rule set's own minimum
])
def test_a_total_under_the_minimum_says_so_in_the_title(fans, total, minimum, note):
    score = {"total": total, "minimum": minimum, "meets_minimum": False,
             "fans": [{"key": k, "points": p, "count": c} for k, p, c in fans]}
    assert A._below_minimum(score) == note


def _column_tiles(x, role, n=5, top=40):
    return [{"tile": "B5", "box": [x, top + 50 * i, x + 40, top + 45 + 50 * i], "score": 0.9, "role": role,
             "sideways": False, "low_confidence": False} for i in range(n)]


def test_a_hand_running_down_the_photo_is_labelled_beside_its_tiles():
    """A column of tiles leaves no room above each tile: the names go beside them, the left
    column's on the left, the right column's on the right."""
    meld, concealed = A.ROLE_COLOURS["meld"], A.ROLE_COLOURS["concealed"]
    tiles = _column_tiles(150, "meld") + _column_tiles(260, "concealed")
    result = {"tiles": tiles, "groups": [], "warnings": [], "alternatives": [], "hand": None, "score": None,
              "error": {"code": "not_a_winning_hand", "message": "not a winning hand"}}
    out = A.annotate(photo(480, 320), result)[:320]
    is_meld, is_concealed = (out == meld).all(axis=2), (out == concealed).all(axis=2)
    assert is_meld[:, :145].sum() > 300 and not is_meld[:, 195:].any()  # green names left of the left column
    assert is_concealed[:, 305:].sum() > 300 and not is_concealed[:, :255].any()  # blue ones right of the right
    assert not is_concealed[:35].any() and not is_meld[:35].any()  # nothing above the first tiles


def test_a_hand_across_the_photo_is_labelled_above_its_tiles():
    tiles = [{**t, "box": [t["box"][1] + 40, 150, t["box"][3] + 40, 190]} for t in _column_tiles(0, "concealed")]
    result = {"tiles": tiles, "groups": [], "warnings": [], "alternatives": [], "hand": None, "score": None,
              "error": {"code": "not_a_winning_hand", "message": "not a winning hand"}}
    out = A.annotate(photo(480, 320), result)[:320]
    is_concealed = (out == A.ROLE_COLOURS["concealed"]).all(axis=2)
    assert is_concealed[:148].sum() > 300 and not is_concealed[192:].any()  # above the row, none below
