"""Tile faces drawn from scratch (Pillow + a CJK font), in randomised styles.

A face is an RGBA glyph on a transparent 120x160 canvas (the tile body is drawn
elsewhere). `ProceduralFaces(params).glyph(code)` draws every one of the 42 face
classes: numbers + 萬/万, dots, bamboo sticks, winds, dragons (中, 發/发, a framed or
blank 白), seasons 春夏秋冬 and flowers 梅蘭竹菊 with their corner numbers.
`random_params(rng)` picks a style: font, ink colours, corner indices, and so on.
"""
from __future__ import annotations

import functools
import glob
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFont

W, H = 120, 160
NUMERALS = "一二三四五六七八九"
HONOUR_CHARS = {"F1": "東", "F2": "南", "F3": "西", "F4": "北", "J1": "中"}
FLOWER_CHARS = "春夏秋冬梅蘭竹菊"
FONT_GLOBS = ["/usr/share/fonts/opentype/noto/Noto*CJK*.ttc", "/usr/share/fonts/**/*CJK*.tt[cf]",
              "/usr/share/fonts/**/wqy*.tt[cf]"]

INKS = {
    "red": [(200, 30, 30), (180, 20, 40), (220, 50, 30)],
    "green": [(20, 130, 60), (10, 110, 40), (40, 150, 70)],
    "blue": [(20, 50, 150), (30, 40, 110), (10, 80, 160)],
    "dark": [(20, 20, 30), (30, 30, 60), (10, 40, 90)],
}


# Inks of sets with dark plates (FluffyStuff's black set: white and orange on black): the
# procedural faces that such a set lacks (its flowers) are drawn in these, not in INKS, which
# vanish on a dark plate.
LIGHT_INKS = {
    "red": [(240, 160, 40), (235, 90, 60), (250, 130, 30)],
    "green": [(110, 210, 120), (150, 220, 90), (90, 200, 160)],
    "blue": [(120, 180, 250), (150, 160, 255), (100, 200, 240)],
    "dark": [(245, 245, 240), (235, 235, 225), (250, 250, 250)],
}


def font_files() -> list[str]:
    found: list[str] = []
    for pattern in FONT_GLOBS:
        found += sorted(glob.glob(pattern, recursive=True))
    return list(dict.fromkeys(found))


@functools.lru_cache(maxsize=32)
def _font(path: str, size: int, index: int) -> ImageFont.FreeTypeFont:
    try:
        return ImageFont.truetype(path, size, index=index)
    except OSError:
        return ImageFont.truetype(path, size)


def random_params(rng: random.Random) -> dict:
    fonts = font_files()
    return {
        "font": rng.choice(fonts) if fonts else None,
        "font_index": rng.choice([0, 0, 1, 2]),  # ttc faces: JP, KR, SC, TC ...
        "red": rng.choice(INKS["red"]), "green": rng.choice(INKS["green"]),
        "blue": rng.choice(INKS["blue"]), "dark": rng.choice(INKS["dark"]),
        "wan": rng.choice("萬萬万"),
        "fa": rng.choice("發發发"),
        "corner": rng.random() < 0.45,          # small index in the top-left corner (HK sets)
        "white": rng.choice(["frame", "frame", "double", "blank"]),
        "dot_rings": rng.choice([1, 2, 3]),
        "wind_colour": rng.choice(["dark", "blue", "dark"]),
        "stroke": rng.choice([0, 0, 1, 2]),
    }


def on_dark_plate(params: dict, rng: random.Random) -> dict:
    """`params` with its inks drawn from LIGHT_INKS instead (the same font and shapes), for
    faces drawn on a dark plate."""
    return {**params, **{ink: rng.choice(colours) for ink, colours in LIGHT_INKS.items()}}


class ProceduralFaces:
    """Face glyphs of one procedural style; glyphs are cached per code."""

    def __init__(self, params: dict):
        self.p = params
        self._cache: dict[str, np.ndarray] = {}

    def glyph(self, code: str) -> np.ndarray:
        if code not in self._cache:
            self._cache[code] = np.asarray(self._draw(code))
        return self._cache[code]

    # -- drawing helpers
    def _text(self, draw, xy, text, size, fill, anchor="mm"):
        p = self.p
        if p["font"] is None:
            font = ImageFont.load_default(size)
        else:
            font = _font(p["font"], size, p["font_index"])
        draw.text(xy, text, font=font, fill=fill + (255,), anchor=anchor,
                  stroke_width=p["stroke"], stroke_fill=fill + (255,))

    def _corner(self, draw, label, colour):
        if self.p["corner"]:
            self._text(draw, (14, 16), label, 22, colour)

    def _draw(self, code: str) -> Image.Image:
        im = Image.new("RGBA", (W, H), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        p = self.p
        suit, rank = code[0], int(code[1])
        if suit == "W":
            self._text(d, (W / 2, 46), NUMERALS[rank - 1], 62, p["dark"] if rank % 2 else p["blue"])
            self._text(d, (W / 2, 112), p["wan"], 70, p["red"])
            self._corner(d, str(rank), p["dark"])
        elif suit == "B":
            self._dots(d, rank)
            self._corner(d, str(rank), p["dark"])
        elif suit == "T":
            self._sticks(d, rank)
            self._corner(d, str(rank), p["dark"])
        elif suit == "F":
            self._text(d, (W / 2, H / 2 + 4), HONOUR_CHARS[code], 92, p[p["wind_colour"]])
            self._corner(d, "ESWN"[rank - 1], p["red"])
        elif code == "J1":
            self._text(d, (W / 2, H / 2 + 4), "中", 100, p["red"])
        elif code == "J2":
            self._text(d, (W / 2, H / 2 + 4), p["fa"], 96, p["green"])
        elif code == "J3":
            if p["white"] != "blank":
                d.rounded_rectangle((18, 18, W - 18, H - 18), radius=6, outline=p["blue"] + (255,), width=7)
                if p["white"] == "double":
                    d.rectangle((32, 32, W - 32, H - 32), outline=p["blue"] + (255,), width=3)
        elif suit == "H":
            colour = [p["red"], p["green"], p["blue"], p["dark"]][(rank - 1) % 4]
            self._flower_art(d, rank, colour)
            self._text(d, (W / 2, 118), FLOWER_CHARS[rank - 1], 58, colour)
            self._text(d, (16, 18), str((rank - 1) % 4 + 1), 24, p["red"] if rank <= 4 else p["blue"])
        else:
            raise ValueError(f"no procedural face for {code!r}")
        return im

    def _dots(self, d, rank):
        p = self.p
        layouts = {
            1: [(0.5, 0.5)], 2: [(0.5, 0.27), (0.5, 0.73)], 3: [(0.25, 0.2), (0.5, 0.5), (0.75, 0.8)],
            4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
            5: [(0.27, 0.24), (0.73, 0.24), (0.5, 0.5), (0.27, 0.76), (0.73, 0.76)],
            6: [(0.3, 0.17), (0.7, 0.17), (0.3, 0.5), (0.7, 0.5), (0.3, 0.83), (0.7, 0.83)],
            7: [(0.2, 0.13), (0.5, 0.22), (0.8, 0.31), (0.3, 0.6), (0.7, 0.6), (0.3, 0.86), (0.7, 0.86)],
            8: [(x, y) for y in (0.14, 0.38, 0.62, 0.86) for x in (0.3, 0.7)],
            9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.2, 0.5, 0.8)],
        }
        radius = {1: 44, 2: 26, 3: 19, 4: 20, 5: 18, 6: 16, 7: 14, 8: 14, 9: 14}[rank]
        colours = [p["blue"], p["green"], p["red"]]
        for k, (x, y) in enumerate(layouts[rank]):
            cx, cy = 12 + x * (W - 24), 12 + y * (H - 24)
            if rank == 1:
                c = p["green"]
            elif rank in (5, 9) and k == len(layouts[rank]) // 2 or rank in (6, 7) and k >= len(layouts[rank]) - 4:
                c = p["red"]
            else:
                c = colours[(k + rank) % 2]
            d.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=c + (255,))
            for ring in range(1, p["dot_rings"] + 1):
                r = radius * (1 - 0.28 * ring)
                fill = (245, 240, 225, 255) if ring % 2 else c + (255,)
                d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)

    def _stick(self, d, cx, cy, half_h, colour):
        wdt = 8
        d.rounded_rectangle((cx - wdt, cy - half_h, cx + wdt, cy + half_h), radius=wdt, fill=colour + (255,))
        for t in (-0.45, 0, 0.45):
            y = cy + t * half_h
            d.line((cx - wdt, y, cx + wdt, y), fill=(240, 235, 220, 255), width=2)

    def _sticks(self, d, rank):
        p = self.p
        g, r, b = p["green"], p["red"], p["blue"]
        if rank == 1:  # a bird, abstracted: body, wing, tail fan
            d.ellipse((30, 50, 90, 120), fill=g + (255,))
            d.ellipse((48, 30, 78, 60), fill=r + (255,))
            d.polygon([(60, 120), (30, 150), (90, 150)], fill=b + (255,))
            d.ellipse((58, 38, 66, 46), fill=(250, 250, 250, 255))
            return
        cols = {2: [(0.5, 0.27, g), (0.5, 0.73, b)],
                3: [(0.5, 0.27, b), (0.3, 0.73, g), (0.7, 0.73, g)],
                4: [(x, y, g if x == y else b) for y in (0.27, 0.73) for x in (0.27, 0.73)],
                5: [(x, y, g) for y in (0.27, 0.73) for x in (0.22, 0.78)] + [(0.5, 0.5, r)],
                6: [(x, y, g if y > 0.5 else b) for y in (0.27, 0.73) for x in (0.2, 0.5, 0.8)],
                7: [(0.5, 0.17, r)] + [(x, y, g) for y in (0.5, 0.83) for x in (0.2, 0.5, 0.8)],
                8: [(x, y, g if y < 0.5 else b) for y in (0.27, 0.73) for x in (0.14, 0.38, 0.62, 0.86)],
                9: [(x, y, r if x == 0.5 else (g if y != 0.5 else b)) for y in (0.17, 0.5, 0.83)
                    for x in (0.2, 0.5, 0.8)]}[rank]
        half = {2: 28, 3: 28, 4: 28, 5: 26, 6: 28, 7: 20, 8: 30, 9: 19}[rank]
        for x, y, c in cols:
            self._stick(d, 10 + x * (W - 20), 10 + y * (H - 20), half, c)

    def _flower_art(self, d, rank, colour):
        """A small emblem above the flower's character: petals around a centre."""
        cx, cy = W / 2 + 8, 52
        n = 5 + rank % 3
        for k in range(n):
            a = 2 * np.pi * k / n
            x, y = cx + 18 * np.cos(a), cy + 18 * np.sin(a)
            d.ellipse((x - 11, y - 11, x + 11, y + 11), fill=colour + (255,))
        d.ellipse((cx - 8, cy - 8, cx + 8, cy + 8), fill=(230, 180, 30, 255))
