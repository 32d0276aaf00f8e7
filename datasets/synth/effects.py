"""Photo effects on a rendered scene (RGB uint8 in, RGB uint8 out): uneven light, colour
cast, glare, defocus, motion blur and sensor noise. JPEG artefacts come from saving.
Each effect only changes pixel values, never geometry, so label boxes stay valid.
"""
from __future__ import annotations

import cv2
import numpy as np


def _light_field(rng: np.random.Generator, gh: int, gw: int) -> tuple[np.ndarray, np.ndarray]:
    """Low-resolution gain (gh x gw x 3: uneven light and colour cast) and glare (gh x gw)."""
    field = rng.uniform(0.62, 1.12, (3, 4)).astype(np.float32)
    level = rng.uniform(0.45, 0.8) if rng.random() < 0.12 else rng.uniform(0.8, 1.15)  # some dim rooms
    gain = cv2.resize(field, (gw, gh), interpolation=cv2.INTER_CUBIC) * level
    cast = rng.uniform(0.9, 1.1, 3).astype(np.float32)
    if rng.random() < 0.3:  # warm indoor light
        cast *= np.array([1.08, 1.0, 0.85], np.float32)
    gain3 = np.ascontiguousarray(gain[..., None] * cast[None, None, :])
    glare = np.zeros((gh, gw), np.float32)
    y, x = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        cx, cy = rng.uniform(0, gw), rng.uniform(0, gh)
        sx, sy = rng.uniform(0.5, 4) * gw / 20, rng.uniform(0.5, 4) * gh / 20
        glare += rng.uniform(40, 150) * np.exp(-(((x - cx) / sx) ** 2 + ((y - cy) / sy) ** 2) / 2)
    return gain3, glare


def blur(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Defocus (Gaussian) sometimes, motion blur (a line kernel) more rarely."""
    if rng.random() < 0.35:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.8))
    if rng.random() < 0.15:
        k = int(rng.integers(3, 10))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (k, k))  # type: ignore[assignment]
        kernel /= max(kernel.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kernel)
    return img


def light_and_noise(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Uneven light, colour cast, glare spots, then sensor noise (drawn at half resolution).
    All in saturating uint8 arithmetic on 3-channel maps: a 1280 px photo costs a few ms."""
    h, w = img.shape[:2]
    gain3, glare = _light_field(rng, max(2, h // 16), max(2, w // 16))
    gain = cv2.resize(np.clip(gain3 * 128, 0, 255).astype(np.uint8), (w, h), interpolation=cv2.INTER_LINEAR)
    out = cv2.multiply(img, gain, scale=1 / 128)
    if glare.any():
        g3 = np.repeat(np.clip(glare, 0, 255).astype(np.uint8)[..., None], 3, axis=2)
        out = cv2.add(out, cv2.resize(g3, (w, h), interpolation=cv2.INTER_LINEAR))
    if rng.random() < 0.75:
        sigma = rng.uniform(1.5, 7) if rng.random() < 0.85 else rng.uniform(7, 12)
        n = rng.standard_normal(((h + 1) // 2, (w + 1) // 2), dtype=np.float32) * sigma
        pos, neg = cv2.convertScaleAbs(cv2.max(n, 0.0)), cv2.convertScaleAbs(cv2.min(n, 0.0))  # type: ignore[call-overload]
        up = cv2.resize(cv2.merge([pos, pos, pos]), (w, h), interpolation=cv2.INTER_NEAREST)
        down = cv2.resize(cv2.merge([neg, neg, neg]), (w, h), interpolation=cv2.INTER_NEAREST)
        out = cv2.subtract(cv2.add(out, up), down)
    return out


def photo(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return light_and_noise(blur(img, rng), rng)
