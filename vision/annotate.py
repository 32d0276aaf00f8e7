"""Draw an analysis on its photo: tile boxes with names, melds, the winning tile, the fans.

`annotate(rgb, analysis)` takes the photo (RGB numpy array) and the dict of
`vision.analyze.analyze_image` (or of `vision.layout.build_hand`), and returns
a new RGB array: the photo with each tile's box and Chinese name (low-confidence
tiles and tiles scored as another than the detector read, `read_as`, marked "?"),
each meld outlined, the winning tile highlighted, and a panel below with the fans
(Chinese and English), their points and the total, then the error (when no hand
was scored) and the warnings, each in Chinese then English (vision.messages_zh;
English only for a code it does not know).

Sizes follow the image: text is a fixed share of the image width (so a
12-megapixel photo and a 640 px one both read on a phone screen, which shows
either at the same width) and of the tiles' own size. Text is drawn with
Pillow and the CJK subset font in vision/fonts/ (OFL).
"""
from __future__ import annotations

import functools
import io
import pathlib
import re

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from scoring.tiles import GLYPH_TO_CODE

FONT_PATH = pathlib.Path(__file__).resolve().parent / "fonts" / "FanshotCJK-Bold.otf"

ROLE_COLOURS = {
    "concealed": (30, 144, 255),
    "meld": (0, 190, 90),
    "win": (255, 40, 40),
    "flower": (200, 60, 220),
    "stray": (150, 150, 150),
}
LOW_CONFIDENCE_COLOUR = (255, 150, 0)
PANEL_BACKGROUND = (24, 24, 28)
PANEL_TEXT = (240, 240, 240)
PANEL_DIM = (170, 170, 180)
TOTAL_COLOUR = (255, 210, 60)
ERROR_COLOUR = (255, 110, 90)

TEXT_SHARE = 1 / 34  # panel text height as a share of the image width
MIN_TEXT = 13  # px: the smallest text drawn, for tiny images
MAX_WARNINGS = 4
MAX_NOTE_LINES = 2  # lines one language of one note may wrap to before it is cut with "…"


@functools.lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_PATH), max(MIN_TEXT, int(size)))


def tile_label(code: str) -> str:
    """The tile's Chinese name (五饼, 东, 春), or 背 for a face-down tile."""
    if code == "BACK":
        return "背"
    try:
        from scoring.tiles import name_zh

        return name_zh(code)
    except (ImportError, KeyError, IndexError, ValueError):
        return code


def _median(values) -> float:
    values = sorted(values)
    return float(values[len(values) // 2]) if values else 0.0


@functools.lru_cache(maxsize=4096)
def _stamp(text: str, size: int, anchor: str = "la") -> tuple[Image.Image, int, int]:
    """`text` drawn once at `size` as a mask ("L", its ink's bounding box) and the offset of
    that box from the anchor point: labels and fan names repeat from photo to photo, and
    FreeType rendering was the annotation's largest cost."""
    f = font(size)
    left, top, right, bottom = (int(v) for v in f.getbbox(text, anchor=anchor))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, font=f, fill=255, anchor=anchor)
    return mask, left, top


def _text(image: Image.Image, xy, text: str, size: int, fill, anchor: str = "la") -> None:
    """`text` drawn on `image` as ImageDraw.text would draw it at `xy` (rounded to a pixel)."""
    if not text:
        return
    mask, left, top = _stamp(text, size, anchor)
    image.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)


def _label_size(text: str, size: int) -> tuple[int, int]:
    """A label's width and height: the text and its padding."""
    w, h = _stamp(text, size)[0].size
    pad = max(1, size // 6)
    return w + 2 * pad, h + 2 * pad


def _draw_label(image, draw, top_left, text, size, fill) -> None:
    """A label with a filled background, its top-left corner at `top_left`."""
    mask = _stamp(text, size)[0]
    w, h = _label_size(text, size)
    x, y = round(top_left[0]), round(top_left[1])
    pad = max(1, size // 6)
    draw.rectangle([x, y, x + w, y + h], fill=fill)
    image.paste((255, 255, 255), (x + pad, y + pad), mask)


def _draw_tiles(image: Image.Image, analysis: dict) -> None:
    draw = ImageDraw.Draw(image)
    tiles = analysis.get("tiles") or []
    if not tiles:
        return
    width = image.width
    tile_w = _median([min(t["box"][2] - t["box"][0], t["box"][3] - t["box"][1]) for t in tiles])
    line = max(2, round(tile_w / 14), round(width / 500))
    label_size = int(min(max(tile_w * 0.42, width / 80), width / 40))

    for group in analysis.get("groups") or []:
        if group.get("role") != "meld":
            continue
        x1, y1, x2, y2 = group["box"]
        pad = line * 2
        draw.rounded_rectangle(
            [x1 - pad, y1 - pad, x2 + pad, y2 + pad],
            radius=pad * 2,
            outline=ROLE_COLOURS["meld"],
            width=line * 2,
        )

    from vision.boxes import runs_down

    # a hand running down the photo (shot from the side) is labelled beside its tiles: a column of
    # tiles leaves no room above each one; tiles left of the hand's middle on the left, the others
    # on the right
    hand = np.array([t["box"] for t in tiles if t.get("role") != "stray"] or [t["box"] for t in tiles], float)
    down = runs_down(hand)
    middle = float(np.median((hand[:, 0] + hand[:, 2]) / 2))
    order = sorted(range(len(tiles)), key=lambda i: (tiles[i]["box"][0], tiles[i]["box"][1]))
    last_label_end: dict[int, float] = {}
    for i in order:
        t = tiles[i]
        x1, y1, x2, y2 = t["box"]
        role = t.get("role", "concealed")
        colour = ROLE_COLOURS.get(role, ROLE_COLOURS["concealed"])
        # read with low confidence, or read as another tile (vision.reading_repair): check this tile
        low = bool(t.get("low_confidence") or t.get("read_as"))
        thick = line * (3 if role == "win" else 1)
        draw.rectangle([x1, y1, x2, y2], outline=LOW_CONFIDENCE_COLOUR if low else colour, width=thick)
        text = tile_label(t["tile"]) + ("?" if low else "")
        if role == "win":
            text = "和 " + text
        fill = LOW_CONFIDENCE_COLOUR if low else colour
        w, h = _label_size(text, label_size)
        if down:
            left = (x1 + x2) / 2 < middle - tile_w / 2
            x = x1 - 3 * line - w if left else x2 + 3 * line  # clear of a meld's outline
            _draw_label(image, draw, (min(max(0, x), width - w), (y1 + y2) / 2 - h / 2), text, label_size, fill)
            continue
        # Labels go above the tile; when the previous label in this band would
        # be overlapped, this one goes below instead.
        band = round(y1 / max(1.0, tile_w))
        if last_label_end.get(band, -1e9) > x1:
            _draw_label(image, draw, (x1, y2 + line), text, label_size, fill)
        else:
            _draw_label(image, draw, (x1, y1 - line - h), text, label_size, fill)
            last_label_end[band] = x1 + w


_GLYPH_RUN = re.compile("[" + "".join(GLYPH_TO_CODE) + "]+")


def plain_tiles(text: str) -> str:
    """`text` with the Unicode mahjong glyphs the scorer's messages use (🀙🀚🀛) written as tile
    codes (B1 B2 B3): the annotation font has no glyphs for them."""
    return _GLYPH_RUN.sub(lambda run: " ".join(GLYPH_TO_CODE[g] for g in run.group()), text)


def _notes(analysis: dict) -> list[tuple[list[str], tuple]]:
    """The error and the warnings to draw: ([Chinese, English] or [English], colour) each."""
    from vision.messages_zh import error_zh, warning_zh

    notes = []
    error = analysis.get("error")
    if error:
        zh = error_zh(error)
        english = plain_tiles(error.get("message", ""))
        notes.append(([zh, english] if zh else [english], ERROR_COLOUR))
    details = analysis.get("warning_details")
    if details is None:  # an analysis from before the codes: the English texts only
        details = [{"message": text} for text in analysis.get("warnings") or []]
    for detail in details[:MAX_WARNINGS]:
        zh = warning_zh(detail)
        english = "! " + plain_tiles(detail.get("message", ""))
        notes.append((["! " + zh, english] if zh else [english], PANEL_DIM))
    return notes


def _wrap(draw, text: str, f, width: float, max_lines: int = MAX_NOTE_LINES) -> list[str]:
    """`text` broken into lines at most `width` wide (at spaces where there are any, anywhere
    in Chinese), at most `max_lines`; the last one cut with "…" if the text goes on."""
    lines: list[str] = []
    rest = text
    while rest and len(lines) < max_lines:
        if draw.textlength(rest, font=f) <= width:
            lines.append(rest)
            rest = ""
            break
        cut = 1
        while cut < len(rest) and draw.textlength(rest[: cut + 1], font=f) <= width:
            cut += 1
        space = rest.rfind(" ", 0, cut + 1)
        latin = not any(ord(c) >= 0x2E80 for c in rest[:cut])  # Chinese breaks between any two characters
        if latin and space > cut // 2 and rest[cut:cut + 1] != " ":
            cut = space
        lines.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    if rest:
        lines[-1] = _fit(draw, lines[-1] + " " + rest, f, width)
    return lines


def _fan_lines(analysis: dict) -> list[tuple[str, str, str, tuple]]:
    """(chinese, english, points, colour) rows for the panel."""
    score = analysis.get("score")
    rows = []
    if score:
        for fan in score.get("fans", []):
            count = int(fan.get("count", 1) or 1)
            points = int(fan.get("points", 0))
            zh = fan.get("name_zh", "") + (f" ×{count}" if count > 1 else "")
            pts = f"{points}×{count}={points * count}" if count > 1 else str(points)
            rows.append((zh, fan.get("name_en", ""), pts, PANEL_TEXT))
    return rows


def _panel(width: int, analysis: dict) -> Image.Image:
    size = max(MIN_TEXT, int(width * TEXT_SHARE))
    rows = _fan_lines(analysis)
    score = analysis.get("score")
    notes = _notes(analysis)

    # Fit the three columns to the width: shrink the text until they do.
    margin = size
    while True:
        f = font(size)
        gap = size
        zh_w = max([f.getlength(r[0]) for r in rows] + [0])
        en_w = max([f.getlength(r[1]) for r in rows] + [0])
        pt_w = max([f.getlength(r[2]) for r in rows] + [0])
        if zh_w + en_w + pt_w + 2 * gap + 2 * margin <= width or size <= MIN_TEXT:
            break
        size = max(MIN_TEXT, int(size * 0.9))
        margin = size
    line_h = int(size * 1.45)
    small = max(MIN_TEXT, int(size * 0.7))
    small_h = int(small * 1.45)
    title_size = int(size * 1.4)

    # Each note in Chinese then English, wrapped; a little space between notes.
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    note_lines = [[line for text in texts for line in _wrap(measure, text, font(small), width - 2 * margin)]
                  for texts, _ in notes]
    note_gap = small_h // 3
    height = (margin + int(title_size * 1.5) + line_h * len(rows) + (note_gap if rows and notes else 0)
              + sum(small_h * len(lines) + note_gap for lines in note_lines) + margin)
    panel = Image.new("RGB", (width, height), PANEL_BACKGROUND)
    y = margin
    if score:
        total = int(score.get("total", 0))
        title = f"合计 Total {total} 番"
        if score.get("meets_minimum") is False:
            title += _below_minimum(score)
        _text(panel, (margin, y), _fit(measure, title, font(title_size), width - 2 * margin), title_size, TOTAL_COLOUR)
    else:
        _text(panel, (margin, y), "未能计分 No score", title_size, ERROR_COLOUR)
    y += int(title_size * 1.5)
    for zh, en, pts, colour in rows:
        _text(panel, (margin, y), zh, size, colour)
        _text(panel, (margin + zh_w + gap, y), en, size, PANEL_DIM)
        _text(panel, (width - margin, y), pts, size, colour, anchor="ra")
        y += line_h
    if rows and notes:
        y += note_gap  # the notes apart from the fan table
    for (_, colour), lines in zip(notes, note_lines):
        for line in lines:
            _text(panel, (margin, y), line, small, colour)
            y += small_h
        y += note_gap
    return panel


def flower_points(score: dict) -> int:
    """The points of the score's flowers (MCR's Flower Tiles), which do not count towards the
    minimum a hand needs to win."""
    return sum(int(f.get("points", 0)) * int(f.get("count", 1) or 1)
               for f in score.get("fans", []) if f.get("key") == "FLOWER_TILES")


def _below_minimum(score: dict) -> str:
    """The title's note for a total under the rule set's minimum: "  (< 8)", or with flowers,
    which do not count, "  (不计花 7 < 8)" (a total of 10 with 3 flowers)."""
    minimum = score.get("minimum", 8)
    flowers = flower_points(score)
    if flowers:
        return f"  (不计花 no flowers {int(score.get('total', 0)) - flowers} < {minimum})"
    return f"  (< {minimum})"


def _fit(draw, text: str, f, width: float) -> str:
    if draw.textlength(text, font=f) <= width:
        return text
    while text and draw.textlength(text + "…", font=f) > width:
        text = text[:-1]
    return text + "…"


def annotate(rgb: np.ndarray, analysis: dict) -> np.ndarray:
    """The photo with the analysis drawn on it and the fan panel below (a new RGB array)."""
    return np.asarray(_annotated(rgb, analysis))


def annotated_jpeg(rgb: np.ndarray, analysis: dict, quality: int = 85) -> bytes:
    """`annotate`'s picture as JPEG bytes, encoded from the drawing itself (no array between:
    half the time of `annotate` then encoding, the same bytes)."""
    buffer = io.BytesIO()
    _annotated(rgb, analysis).save(buffer, format="JPEG", quality=int(quality))
    return buffer.getvalue()


def _annotated(rgb: np.ndarray, analysis: dict) -> Image.Image:
    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError("annotate needs an RGB image (height x width x 3)")
    height, width = rgb.shape[:2]
    panel = _panel(width, analysis)
    # one picture from the start, the photo on top (no blank picture filled, then the photo pasted
    # in); what the tiles' labels draw below the photo, the panel covers, as a photo's edge cut it
    canvas = np.empty((height + panel.height, width, 3), np.uint8)
    canvas[:height] = rgb
    out = Image.fromarray(canvas, "RGB")
    _draw_tiles(out, analysis)
    out.paste(panel, (0, height))
    return out
