"""Hand-written scenes of tile boxes for the layout, analyze and annotate tests."""
from __future__ import annotations

import math

W, H = 30.0, 40.0  # an upright tile's box


def scene(rows, *, gap=12.0, row_gap=30.0, angle_deg=0.0, origin=(100.0, 100.0), score=0.95):
    """Detections for rows of groups: a group is "W1 W2 W3"; "B5*" lies sideways.

    Tiles in a group touch; groups are `gap` apart; the whole scene is rotated
    by `angle_deg` about `origin` (boxes are the axis-aligned boxes of the
    rotated tiles, as a detector returns them).
    """
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    dets = []
    y = 0.0
    for row in rows:
        x = 0.0
        for group in row:
            for code in group.split():
                turned = code.endswith("*")
                code = code.rstrip("*")
                w, h = (H, W) if turned else (W, H)
                cx, cy = x + w / 2, y + H - h / 2  # tiles stand on one line
                rx = origin[0] + cx * c - cy * s
                ry = origin[1] + cx * s + cy * c
                bw, bh = w * abs(c) + h * abs(s), w * abs(s) + h * abs(c)
                dets.append({"tile": code, "box": [rx - bw / 2, ry - bh / 2, rx + bw / 2, ry + bh / 2], "score": score})
                x += w
            x += gap
        y += H + row_gap
    return dets


def test_scene_boxes_follow_the_rotation():
    flat = scene([["W1 W2 W3", "B5*"]])
    assert [round(d["box"][2] - d["box"][0]) for d in flat] == [30, 30, 30, 40]
    turned = scene([["W1 W2 W3", "B5*"]], angle_deg=90.0)
    assert [round(d["box"][3] - d["box"][1]) for d in turned] == [30, 30, 30, 40]
    xs = [(d["box"][0] + d["box"][2]) / 2 for d in turned[:3]]
    assert max(xs) - min(xs) < 1e-6  # a row turned upright
