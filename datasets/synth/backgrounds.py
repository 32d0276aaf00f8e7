"""Table surfaces, drawn procedurally: felt in many colours, wood, woven cloth, printed
table mats and random textures. `table(rng, w, h)` -> RGB uint8 h x w. Patterns are built
at a reduced resolution and scaled up, so a 2000 px surface costs a few milliseconds.
"""
from __future__ import annotations

import cv2
import numpy as np

FELT = [(40, 110, 60), (25, 90, 50), (30, 70, 120), (20, 50, 90), (120, 30, 40), (70, 70, 75),
        (35, 35, 40), (90, 50, 110), (30, 110, 110), (150, 120, 60), (200, 200, 195), (60, 130, 90)]
WOOD = [(150, 100, 60), (110, 70, 40), (190, 150, 100), (90, 55, 35), (200, 170, 130), (60, 40, 30)]
CLOTH = [(230, 225, 215), (200, 60, 60), (60, 80, 140), (240, 240, 240), (90, 140, 90), (220, 200, 160)]


def _noise(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about `cell` pixels wide."""
    small = rng.uniform(-1, 1, (max(2, h // cell + 2), max(2, w // cell + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def _vary(rng: np.random.Generator, colour, amount=18) -> np.ndarray:
    return np.clip(np.array(colour, np.float32) + rng.uniform(-amount, amount, 3), 0, 255)


def felt(rng, h, w):
    base = _vary(rng, FELT[rng.integers(len(FELT))], 25)
    n = 0.6 * _noise(rng, h, w, 60) + 0.4 * _noise(rng, h, w, 6)
    return base[None, None, :] * (1 + rng.uniform(0.04, 0.12) * n[..., None])


def wood(rng, h, w):
    base = _vary(rng, WOOD[rng.integers(len(WOOD))], 20)
    vertical = rng.random() < 0.5
    hh, ww = (w, h) if vertical else (h, w)
    streaks = cv2.resize(rng.uniform(-1, 1, (max(2, hh // 3), 6)).astype(np.float32), (ww, hh),
                         interpolation=cv2.INTER_CUBIC)
    y = np.arange(hh, dtype=np.float32)[:, None]
    rings = np.sin(y / rng.uniform(8, 30) + 4 * _noise(rng, hh, ww, 200))
    grain = 0.10 * streaks + 0.06 * rings
    if rng.random() < 0.5:  # planks
        plank = int(rng.uniform(0.1, 0.3) * hh)
        grain = grain - 0.35 * ((np.arange(hh) % plank) < 2)[:, None]
    if vertical:
        grain = grain.T
    return base[None, None, :] * (1 + grain[..., None])


def cloth(rng, h, w):
    c1 = _vary(rng, CLOTH[rng.integers(len(CLOTH))])
    c2 = _vary(rng, CLOTH[rng.integers(len(CLOTH))])
    period = rng.uniform(6, 60)
    y = np.arange(h, dtype=np.float32)[:, None]
    x = np.arange(w, dtype=np.float32)[None, :]
    if rng.random() < 0.5:  # plaid
        m = 0.5 * ((np.sin(x / period) > 0.3).astype(np.float32) + (np.sin(y / period) > 0.3))
    else:  # fine weave
        m = 0.5 + 0.5 * np.sin(x / 1.6) * np.sin(y / 1.6)
        m = 0.15 * m + 0.2 * (_noise(rng, h, w, 40) > 0)
    m = m[..., None]
    return c1[None, None] * (1 - m) + c2[None, None] * m


def mat(rng, h, w):
    out = felt(rng, h, w)
    border = _vary(rng, (230, 200, 80) if rng.random() < 0.5 else (240, 240, 240), 20)
    for k in range(rng.integers(1, 4)):
        inset = int((0.05 + 0.08 * k) * min(h, w) * rng.uniform(0.5, 1.5))
        cv2.rectangle(out, (inset, inset), (w - inset, h - inset), tuple(float(v) for v in border),
                      int(rng.integers(2, 8)))
    if rng.random() < 0.5:
        cv2.circle(out, (w // 2, h // 2), int(min(h, w) * rng.uniform(0.2, 0.45)),
                   tuple(float(v) for v in border), int(rng.integers(2, 6)))
    return out


def texture(rng, h, w):
    colours = [_vary(rng, rng.uniform(20, 235, 3), 0) for _ in range(3)]
    a = (_noise(rng, h, w, int(rng.integers(10, 200))) + 1) / 2
    b = (_noise(rng, h, w, int(rng.integers(3, 20))) + 1) / 2
    return (colours[0][None, None] * a[..., None] + colours[1][None, None] * (1 - a[..., None])) * \
        (0.85 + 0.3 * b[..., None])


KINDS = {"felt": (felt, 0.38), "wood": (wood, 0.22), "cloth": (cloth, 0.14), "mat": (mat, 0.12),
         "texture": (texture, 0.14)}


def table(rng: np.random.Generator, w: int, h: int, kind: str | None = None) -> np.ndarray:
    """A table surface of w x h pixels, built at a third of the resolution."""
    names = list(KINDS)
    if kind is None:
        p = np.array([KINDS[k][1] for k in names])
        kind = names[rng.choice(len(names), p=p / p.sum())]
    hh, ww = max(8, h // 3), max(8, w // 3)
    small = np.clip(KINDS[kind][0](rng, hh, ww), 0, 255).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
