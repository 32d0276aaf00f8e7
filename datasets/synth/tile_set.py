"""One tile set for every scene (`fanshot synth --one-set SEED [--altered]`) and photos of it
laid out in the tile-set layout order (`--layout`): the "unseen set" protocol of docs/tilesets.md.

`--altered` redraws some faces as no art family the classifier was trained on draws them (a set
it never saw): a blank white dragon, a 發 in another hand and ink, dots and winds in other inks
(ALTERED).
"""
from __future__ import annotations

import functools
import random
from dataclasses import replace

import cv2
import numpy as np

from datasets.synth import backgrounds, effects
from datasets.synth.procedural import ProceduralFaces, random_params
from datasets.synth.tiles import TileStyle, make_sprite, random_style

# code -> how the altered set draws it
ALTERED = {
    "J3": "blank (no frame)",
    "J2": "another 發: the procedural hand of another style, in blue",
    "B4": "inks turned (red -> blue -> green)", "B9": "inks turned", "B5": "inks turned",
    "F1": "in red", "F2": "in red", "F3": "in red", "F4": "in red",
}


class AlteredFaces:
    """A style's faces with ALTERED's codes redrawn (deterministic for the set's seed)."""

    def __init__(self, style: TileStyle, seed: int):
        self.style = style
        self.other_hand = ProceduralFaces({**random_params(random.Random(f"altered:{seed}")), "fa": "发"})

    def glyph(self, code: str, red_five: bool = False) -> np.ndarray | None:
        if code == "J3":
            return np.zeros((4, 3, 4), np.uint8)  # nothing drawn: a blank face
        if code == "J2":
            g = self.other_hand.glyph("J2").copy()
            g[..., :3] = np.where(g[..., 3:] > 0, np.array([30, 60, 170], np.uint8), g[..., :3])
            return g
        g = self.style.glyph(code, red_five).copy()
        if code in ("B4", "B9", "B5"):
            g[..., :3] = g[..., [2, 0, 1]]  # red -> blue, green -> red, blue -> green
        elif code[0] == "F":
            ink = g[..., :3].astype(np.int32).sum(axis=2) < 300  # the dark strokes
            g[..., :3][ink] = (200, 30, 30)
        return g


@functools.lru_cache(maxsize=8)
def set_style(seed: int, altered: bool, families: tuple[str, ...] | None) -> TileStyle:
    """The tile set of `seed`: a style drawn as scenes draw theirs, the same for every scene."""
    style = random_style(random.Random(f"set:{seed}"), list(families) if families else None)
    if altered:
        style = replace(style, faces=AlteredFaces(style, seed), name=f"{style.name}+altered", _glyphs={}, _plates={})
    return style


def render_layout(style: TileStyle, tiles: list[str], seed, size: tuple[int, int], per_row: int = 9) -> dict:
    """A photo of `tiles` laid out in rows of `per_row` (face up; BACK face down), taken from
    above at a slight slant: {"image", "tiles": [{"tile", "box", "role": "layout"}]}."""
    rng = random.Random(f"layout:{seed}")
    nrng = np.random.default_rng(rng.getrandbits(64))
    w_img, h_img = size
    rows = -(-len(tiles) // per_row)
    tw = int(min(w_img * 0.8 / (per_row * 1.12), h_img * 0.8 / (rows * 1.65)))
    th, ts = int(round(tw * rng.uniform(1.28, 1.4))), int(round(tw * rng.uniform(0.15, 0.35)))
    image = backgrounds.table(nrng, w_img, h_img)
    gap_x, gap_y = int(tw * rng.uniform(0.08, 0.2)), int(th * rng.uniform(0.2, 0.4))
    block_w = per_row * tw + (per_row - 1) * gap_x
    block_h = rows * (th + ts) + (rows - 1) * gap_y
    fit = min(w_img / block_w, h_img / block_h)
    if fit < 1:  # tall tiles, thick bodies and wide gaps drawn together: the block shrunk to 90% of the photo
        tw, th, ts, gap_x, gap_y = (max(1, int(v * 0.9 * fit)) for v in (tw, th, ts, gap_x, gap_y))
        block_w = per_row * tw + (per_row - 1) * gap_x
        block_h = rows * (th + ts) + (rows - 1) * gap_y
    x0, y0 = (w_img - block_w) // 2, (h_img - block_h) // 2
    corners = []
    for k, code in enumerate(tiles):
        r, c = divmod(k, per_row)
        rgb, alpha = make_sprite(style, code, "down" if code == "BACK" else "up", tw, th, ts, rng)
        x, y = x0 + c * (tw + gap_x), y0 + r * (th + ts + gap_y)
        a = alpha[..., None].astype(np.float32) / 255
        region = image[y:y + rgb.shape[0], x:x + rgb.shape[1]]
        region[:] = (region * (1 - a) + rgb * a).astype(np.uint8)
        corners.append([(x, y), (x + rgb.shape[1], y), (x + rgb.shape[1], y + rgb.shape[0]), (x, y + rgb.shape[0])])
    # a slight slant and turn of the camera
    src = np.array([[0, 0], [w_img, 0], [w_img, h_img], [0, h_img]], np.float32)
    j = 0.04 * min(w_img, h_img)
    dst = src + np.array([[rng.uniform(-j, j), rng.uniform(-j, j)] for _ in range(4)], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    image = cv2.warpPerspective(image, m, (w_img, h_img), borderMode=cv2.BORDER_REPLICATE)
    pts = cv2.perspectiveTransform(np.array(corners, np.float32).reshape(-1, 1, 2), m).reshape(len(tiles), 4, 2)
    boxes = [[round(float(p[:, 0].min()), 1), round(float(p[:, 1].min()), 1),
              round(float(p[:, 0].max()), 1), round(float(p[:, 1].max()), 1)] for p in pts]
    image = effects.photo(image, nrng)
    return {"image": image, "tiles": [{"tile": t, "box": b, "role": "layout"} for t, b in zip(tiles, boxes)]}
