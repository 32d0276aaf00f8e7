"""Tile styles and tile sprites: a face plate with its glyph, bevelled, on a body whose
side shows the ivory front layer and the coloured back layer.

A sprite is (rgb uint8 HxWx3, alpha uint8 HxW) in plane pixels. Poses:
- "up": lying face up, the near side of the body below the face;
- "stand": standing, face to the camera, the top edge of the body above the face;
- "down": lying face down (class BACK), the back on top, the near side below;
- "side": lying face up turned 90 degrees (a claimed tile), the near side below.
"""
from __future__ import annotations

import functools
import random
import subprocess
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import cv2
import numpy as np

from datasets.synth import art
from datasets.synth.procedural import ProceduralFaces, on_dark_plate, random_params

BACK_COLOURS = [(30, 120, 70), (25, 90, 160), (215, 175, 40), (220, 110, 30), (190, 40, 40),
                (225, 120, 150), (20, 140, 140), (110, 60, 150), (20, 70, 40), (30, 30, 35),
                (60, 160, 210), (240, 200, 120)]
IVORY = [(246, 243, 232), (250, 250, 246), (240, 232, 210), (236, 238, 230), (248, 240, 222)]
KDE_EXCLUDED = {"alphabet", "egypt"}  # letters and Egyptian pictures, not mahjong faces
# A set's back contrasts with its faces (it is how a face-down tile differs from a blank white
# dragon): a back colour this near the face plate's (RGB distance) is replaced by one further off.
BACK_CONTRAST = 130


class Faces(Protocol):
    """A tile art: the RGBA glyph of a code, or None where the art has none."""

    def glyph(self, code: str, red_five: bool = False) -> np.ndarray | None: ...


@dataclass
class TileStyle:
    name: str
    faces: Faces
    fallback: ProceduralFaces         # draws what `faces` lacks (flowers for FluffyStuff, ...)
    plate: tuple                      # face colour
    back: tuple                       # back layer colour
    front_share: float = 0.55         # share of the body thickness that is the front (plate) layer
    radius: float = 0.12              # corner radius / face width
    margin: float = 0.08              # glyph margin / face width
    stretch: float = 1.0              # glyph width / height, relative to the art's
    sheen: float = 0.0                # glossy highlight on the faces (0: matte)
    red_fives: float = 0.0            # chance of a red five (FluffyStuff art)
    _glyphs: dict = field(default_factory=dict)

    _plates: dict = field(default_factory=dict)

    def red_five(self, code: str, rng: random.Random) -> bool:
        """Draw this five as a red five? (FluffyStuff art has them; the label stays W5/T5/B5.)"""
        return self.red_fives > 0 and code[1:] == "5" and code[0] in "WTB" and rng.random() < self.red_fives

    def glyph(self, code: str, red: bool = False) -> np.ndarray:
        key = (code, red)
        if key not in self._glyphs:
            g = self.faces.glyph(code, red_five=red)
            if g is None:
                g = art.trim(self.fallback.glyph(code))
            self._glyphs[key] = g
        return self._glyphs[key]


@functools.lru_cache(maxsize=64)
def _kde(name: str):
    return art.KdeFaces(name)


@functools.lru_cache(maxsize=4)
def _fluffy(variant: str):
    return art.FluffyFaces(variant)


def style_families() -> list[str]:
    """The face art families available here: fluffy-regular, fluffy-black, kde-<set>, procedural."""
    fams = ["procedural"]
    if (art.ART_DIR / "fluffystuff").is_dir():
        fams += ["fluffy-regular", "fluffy-black"]
    fams += [f"kde-{n}" for n in art.kde_sets() if n not in KDE_EXCLUDED]
    return fams


class NoFaces:
    """A face source with nothing: the procedural fallback draws every face."""

    def glyph(self, code, red_five=False):
        return None


def random_style(rng: random.Random, families: list[str] | None = None, cache: dict | None = None) -> TileStyle:
    """A tile style: the art family by weight, body colours and procedural fallback at random;
    its back contrasts with its faces (`_contrasting`)."""
    style = _drawn_style(rng, families, cache)
    return replace(style, back=_contrasting(style))


def _drawn_style(rng: random.Random, families: list[str] | None, cache: dict | None) -> TileStyle:
    families = families or style_families()
    weights = [3.0 if f == "procedural" else 1.6 if f.startswith("fluffy-regular") else
               0.7 if f == "fluffy-black" else 0.4 if f == "kde-jade" else 1.0 for f in families]
    family = rng.choices(families, weights)[0]
    proc_seed = rng.randrange(64)  # a pool of procedural styles, their glyphs cached per process
    cache = cache if cache is not None else {}
    if proc_seed not in cache:
        cache[proc_seed] = ProceduralFaces(random_params(random.Random(proc_seed)))
    fallback = cache[proc_seed]
    plate = rng.choice(IVORY)
    back = rng.choice(BACK_COLOURS)
    kw: dict[str, Any] = dict(front_share=rng.uniform(0.35, 0.75), radius=rng.uniform(0.06, 0.16),
              margin=rng.uniform(0.05, 0.12), stretch=rng.uniform(0.88, 1.12),
              sheen=round(rng.choice([0.0, 0.0, rng.uniform(0.04, 0.2)]), 2))
    if family == "procedural":
        return TileStyle(family, NoFaces(), fallback, plate, back, **kw)
    if family.startswith("fluffy"):
        variant = family.split("-", 1)[1]
        if variant == "black":
            plate, back = rng.choice([(34, 34, 38), (20, 22, 26)]), rng.choice([(30, 30, 35), (200, 50, 40)])
            fallback = _light_fallback(proc_seed, cache)
        return TileStyle(family, _fluffy(variant), fallback, plate, back, red_fives=0.2, **kw)
    kde_name = family.split("-", 1)[1]
    try:
        faces = _kde(kde_name)
    except (OSError, subprocess.SubprocessError):  # rsvg-convert failed or the cache is not writable
        return TileStyle("procedural", NoFaces(), fallback, plate, back, **kw)
    if kde_name == "jade":
        plate = rng.choice([(40, 120, 90), (30, 100, 80), (50, 130, 100)])
    return TileStyle(family, faces, fallback, plate, back, **kw)


def _light_fallback(proc_seed: int, cache: dict) -> ProceduralFaces:
    """Procedural style `proc_seed` in light inks (`on_dark_plate`), for the faces a set with dark
    plates lacks; cached beside the others. Its own generator: the scene's draws stay the same."""
    key = ("light", proc_seed)
    if key not in cache:
        rng = random.Random(proc_seed)
        cache[key] = ProceduralFaces(on_dark_plate(random_params(rng), rng))
    return cache[key]


def _contrasting(style: TileStyle) -> tuple:
    """The style's back, or when it lies within BACK_CONTRAST of its plate, another of BACK_COLOURS
    that does not (picked by a generator of its own, seeded by the style's shape, so that the
    scene's draws stay the same)."""
    def far(colour: tuple) -> bool:
        return float(np.linalg.norm(np.subtract(colour, style.plate, dtype=float))) >= BACK_CONTRAST

    if far(style.back):
        return style.back
    shape = sorted({"front_share": style.front_share, "radius": style.radius, "margin": style.margin,
                    "stretch": style.stretch, "sheen": style.sheen}.items())
    return random.Random(repr((style.back, style.plate, shape))).choice([c for c in BACK_COLOURS if far(c)])


# ---------------------------------------------------------------- sprites

@functools.lru_cache(maxsize=256)
def rounded_alpha(h: int, w: int, r: int) -> np.ndarray:
    """Anti-aliased rounded-rectangle mask (uint8) of size h x w."""
    scale = 4
    big = np.zeros((h * scale, w * scale), np.uint8)
    rr = max(1, r * scale)
    cv2.rectangle(big, (rr, 0), (w * scale - 1 - rr, h * scale - 1), 255, -1)
    cv2.rectangle(big, (0, rr), (w * scale - 1, h * scale - 1 - rr), 255, -1)
    for cx, cy in ((rr, rr), (w * scale - 1 - rr, rr), (rr, h * scale - 1 - rr), (w * scale - 1 - rr, h * scale - 1 - rr)):
        cv2.circle(big, (cx, cy), rr, 255, -1)
    return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)


@functools.lru_cache(maxsize=256)
def bevel(h: int, w: int) -> np.ndarray:
    """Shading of a bevelled face: 1 in the middle, darker at the rim, lighter top-left edge."""
    ramp = max(2, int(0.07 * min(h, w)))
    y = np.minimum(np.arange(h), np.arange(h)[::-1])[:, None]
    x = np.minimum(np.arange(w), np.arange(w)[::-1])[None, :]
    d = np.minimum(np.minimum(x, y), ramp).astype(np.float32) / ramp
    shade = 0.80 + 0.20 * d
    hl = np.zeros((h, w), np.float32)
    hl[: ramp, :] += 0.08
    hl[:, : ramp] += 0.05
    return (shade + hl * (1 - d))[..., None].astype(np.float32)


@functools.lru_cache(maxsize=512)
def _blank(colour: tuple, h: int, w: int, sheen: float = 0.0) -> np.ndarray:
    """A bevelled plate; `sheen` adds a glossy diagonal highlight (0: matte)."""
    plate = np.empty((h, w, 3), np.float32)
    plate[:] = colour
    plate *= bevel(h, w)
    if sheen:
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        band = np.exp(-(((x / w + y / h) - 0.7) ** 2) / 0.05)
        plate += (255 * sheen * band)[..., None]
    return np.clip(plate, 0, 255).astype(np.uint8)


def _draw_glyph(plate: np.ndarray, g: np.ndarray, margin: float, stretch: float = 1.0) -> None:
    """Blend an RGBA glyph into the plate, fitted inside the margin and centred."""
    h, w = plate.shape[:2]
    m = max(1, int(margin * w))
    gh, gw = g.shape[:2]
    scale = min((w - 2 * m) / (gw * stretch), (h - 2 * m) / gh)
    tw, th = max(1, int(round(gw * stretch * scale))), max(1, int(round(gh * scale)))
    small = cv2.resize(g, (tw, th), interpolation=cv2.INTER_AREA)
    x0, y0 = (w - tw) // 2, (h - th) // 2
    a = small[..., 3:4].astype(np.float32) * (1 / 255)
    region = plate[y0:y0 + th, x0:x0 + tw]
    region[:] = region + (small[..., :3] - region.astype(np.float32)) * a


def face_plate(style: TileStyle, code: str, w: int, h: int, rng: random.Random) -> np.ndarray:
    """The tile face (bevelled plate, glyph fitted inside the margin), RGB uint8 h x w.
    Cached per style, so the tiles of a pung cost one drawing."""
    red = style.red_five(code, rng)
    key = (code, red, w, h)
    if key in style._plates:
        return style._plates[key]
    if code == "BACK":
        plate = _blank(tuple(style.back), h, w, style.sheen)
    else:
        plate = _blank(tuple(style.plate), h, w, style.sheen).copy()
        g = style.glyph(code, red)
        if g is not None:  # None: a blank face (a Japanese-style white dragon)
            _draw_glyph(plate, g, style.margin, style.stretch)
    style._plates[key] = plate
    return plate


def _side(style: TileStyle, w: int, s: int, front_first: bool) -> np.ndarray:
    """The visible side of the body, s rows: front layer (plate colour) and back layer, shaded."""
    side = np.empty((s, w, 3), np.float32)
    n_front = int(round(s * style.front_share))
    top, bottom = (style.plate, style.back) if front_first else (style.back, style.plate)
    split = n_front if front_first else s - n_front
    side[:split] = top
    side[split:] = bottom
    shade = np.linspace(0.78, 0.62, s, dtype=np.float32)[:, None, None]
    return np.clip(side * shade, 0, 255).astype(np.uint8)


def make_sprite(style: TileStyle, code: str, pose: str, w: int, h: int, s: int,
                rng: random.Random) -> tuple[np.ndarray, np.ndarray]:
    """One tile as seen: (rgb, alpha). w, h: face size; s: visible body thickness (pixels)."""
    if pose == "down":
        face = face_plate(style, "BACK", w, h, rng)
    else:
        face = face_plate(style, code, w, h, rng)
    if pose == "side":
        face = np.ascontiguousarray(np.rot90(face, k=rng.choice([1, 3])))
    fw = face.shape[1]
    if s <= 0:
        rgb = face
    elif pose == "stand":
        rgb = np.concatenate([_side(style, fw, s, front_first=False), face], axis=0)
    elif pose == "down":
        rgb = np.concatenate([face, _side(style, fw, s, front_first=False)], axis=0)
    else:
        rgb = np.concatenate([face, _side(style, fw, s, front_first=True)], axis=0)
    r = int(style.radius * min(w, h))
    alpha = rounded_alpha(rgb.shape[0], rgb.shape[1], r)
    return rgb, alpha
