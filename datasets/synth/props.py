"""Things that lie on a mahjong table besides tiles, drawn on the table surface (so they are
never labelled): scoring sticks, dice and coins. They teach the detector what is not a tile.

`draw_props(table, rng, keep_out, unit)`: table pixels, `keep_out` a box (x1, y1, x2, y2)
in table pixels not to draw on (the hand), `unit` a tile width in table pixels.
"""
from __future__ import annotations

import math
import random

import cv2
import numpy as np

STICK_DOTS = [(200, 30, 30), (30, 60, 160), (20, 120, 60), (20, 20, 20)]


def _rotated_rect(centre, length, width, angle):
    c, s = math.cos(angle), math.sin(angle)
    hl, hw = length / 2, width / 2
    pts = [(-hl, -hw), (hl, -hw), (hl, hw), (-hl, hw)]
    return np.array([(centre[0] + x * c - y * s, centre[1] + x * s + y * c) for x, y in pts], np.int32)


def _sticks(table, rng, centre, unit):
    angle = rng.uniform(0, math.pi)
    n = rng.randint(2, 6)
    length, width = unit * rng.uniform(3.0, 4.5), max(2.0, unit * 0.16)
    normal = (-math.sin(angle), math.cos(angle))
    for k in range(n):
        off = (k - n / 2) * width * rng.uniform(1.3, 2.5)
        cx, cy = centre[0] + normal[0] * off, centre[1] + normal[1] * off
        poly = _rotated_rect((cx, cy), length, width, angle + rng.uniform(-0.05, 0.05))
        cv2.fillConvexPoly(table, poly, (236, 232, 220), lineType=cv2.LINE_AA)
        dot = rng.choice(STICK_DOTS)
        for t in (-0.4, -0.3, 0.3, 0.4) if rng.random() < 0.5 else (0.0,):
            px = int(cx + math.cos(angle) * t * length)
            py = int(cy + math.sin(angle) * t * length)
            cv2.circle(table, (px, py), max(1, int(width * 0.3)), dot, -1, cv2.LINE_AA)


def _dice(table, rng, centre, unit):
    for k in range(2):
        size = unit * rng.uniform(0.45, 0.6)
        cx, cy = centre[0] + k * size * 1.4, centre[1] + rng.uniform(-0.5, 0.5) * size
        angle = rng.uniform(0, math.pi / 2)
        cv2.fillConvexPoly(table, _rotated_rect((cx, cy), size, size, angle), (245, 245, 240), cv2.LINE_AA)
        pips = rng.randint(1, 6)
        spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
                 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
                 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[pips]
        c, s = math.cos(angle), math.sin(angle)
        for x, y in spots:
            x, y = x * size * 0.27, y * size * 0.27
            colour = (200, 20, 20) if pips in (1, 4) else (20, 20, 20)
            cv2.circle(table, (int(cx + x * c - y * s), int(cy + x * s + y * c)), max(1, int(size * 0.09)),
                       colour, -1, cv2.LINE_AA)


def _coins(table, rng, centre, unit):
    for _ in range(rng.randint(1, 5)):
        r = unit * rng.uniform(0.3, 0.5)
        cx, cy = centre[0] + rng.uniform(-1.5, 1.5) * unit, centre[1] + rng.uniform(-1.5, 1.5) * unit
        colour = rng.choice([(200, 160, 60), (190, 190, 195), (170, 110, 60)])
        cv2.circle(table, (int(cx), int(cy)), int(r), colour, -1, cv2.LINE_AA)
        cv2.circle(table, (int(cx), int(cy)), int(r * 0.75), tuple(c * 0.8 for c in colour), max(1, int(r * 0.08)),
                   cv2.LINE_AA)


def draw_props(table: np.ndarray, rng: random.Random, keep_out, unit: float) -> int:
    """Draw 0-3 groups of props outside `keep_out`; returns how many were drawn."""
    h, w = table.shape[:2]
    x1, y1, x2, y2 = keep_out
    drawn = 0
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        for _attempt in range(10):
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            margin = 3 * unit
            if not (x1 - margin < cx < x2 + margin and y1 - margin < cy < y2 + margin):
                break
        else:
            continue
        rng.choice([_sticks, _sticks, _dice, _coins])(table, rng, (cx, cy), unit)
        drawn += 1
    return drawn
