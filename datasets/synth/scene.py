"""Render one synthetic photo of a revealed hand.

The tiles are laid out on a flat table plane (datasets.synth.layout), drawn there as
sprites over a table surface, and the plane is seen through one perspective transform
(camera tilt, yaw, roll, zoom). An instance map (which tile covers each pixel) is warped
with the image, and each label box is the tight box of its tile's pixels in that map:
the visible tile, face and body, and nothing else.

    render_scene(hand, seed, size=(1280, 960)) -> {"image", "instances", "tiles", "hand", "style"}
"""
from __future__ import annotations

import copy
import math
import random
from collections import Counter

import cv2
import numpy as np

from datasets.synth import backgrounds, effects, props
from datasets.synth.layout import Dims, bounds, lay_out_hand, lay_out_strays
from datasets.synth.tiles import TileStyle, make_sprite, random_style

_PROCEDURAL_CACHE: dict = {}
RACK_COLOURS = [(150, 100, 60), (40, 40, 45), (200, 190, 170), (30, 90, 60), (120, 30, 30)]
CUT_BELOW = 0.9  # a stray with less of it in the photo is cut by the frame: an ignore region, not a label


def _translate(x: float, y: float) -> np.ndarray:
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)


def _project(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ m.T
    return p[:, :2] / p[:, 2:3]


def _camera(size, centre, roll_deg, tilt, yaw, shift) -> np.ndarray:
    """Plane (pixels) -> image: centre the hand, tilt/yaw (projective), roll, move."""
    w, h = size
    py = -((tilt - 1) / (tilt + 1)) / (h / 2)
    qx = yaw / (w / 2)
    persp = np.array([[1, 0, 0], [0, 1, 0], [qx, py, 1]], np.float64)
    a = math.radians(roll_deg)
    rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return _translate(w / 2 + shift[0], h / 2 + shift[1]) @ rot @ persp @ _translate(-centre[0], -centre[1])


def _sprite_for(item, style, px, rng):
    w = px["w"]
    h = px["h"]
    s = px["s_stand"] if item["pose"] == "stand" else px["s_flat"]
    rgb, alpha = make_sprite(style, item["tile"], item["pose"], w, h, s, rng)
    angle = item.get("angle", 0.0)
    if angle:
        sh, sw = alpha.shape
        if abs(angle - 90) < 1e-6:
            return np.ascontiguousarray(np.rot90(rgb)), np.ascontiguousarray(np.rot90(alpha))
        m = cv2.getRotationMatrix2D((sw / 2, sh / 2), angle, 1.0)
        c, s_ = abs(m[0, 0]), abs(m[0, 1])
        nw, nh = int(sh * s_ + sw * c) + 2, int(sh * c + sw * s_) + 2
        m[0, 2] += nw / 2 - sw / 2
        m[1, 2] += nh / 2 - sh / 2
        rgb = cv2.warpAffine(rgb, m, (nw, nh), flags=cv2.INTER_LINEAR)
        alpha = cv2.warpAffine(alpha, m, (nw, nh), flags=cv2.INTER_LINEAR)
    return rgb, alpha


def _premultiplied(rgb, alpha):
    a3 = cv2.merge([alpha, alpha, alpha])
    return cv2.multiply(rgb, a3, scale=1 / 255), alpha


def _place(item, sprite_shape, dims, tw, ox, oy):
    """Canvas position of a sprite: a slightly turned tile stays centred on its upright footprint."""
    x, y = item["x"] * tw - ox, item["y"] * tw - oy
    angle = abs(item.get("angle", 0.0))
    if 0 < angle < 45:
        fw, fh = dims.size(item["pose"])
        x += (fw * tw - sprite_shape[1]) / 2
        y += (fh * tw - sprite_shape[0]) / 2
    return int(round(x)), int(round(y))


def _paste(layer_rgb, layer_a, ids, rgb, alpha, x, y, ident):
    """Put a premultiplied sprite at (x, y) on the tile layer (clipped) and mark its pixels in `ids`.
    Tiles do not overlap, so `max` is the `over` operator here (and close to it for strays)."""
    lh, lw = ids.shape
    sh, sw = alpha.shape
    x0, y0, x1, y1 = max(0, x), max(0, y), min(lw, x + sw), min(lh, y + sh)
    if x0 >= x1 or y0 >= y1:
        return
    a = alpha[y0 - y:y1 - y, x0 - x:x1 - x]
    np.maximum(layer_rgb[y0:y1, x0:x1], rgb[y0 - y:y1 - y, x0 - x:x1 - x], out=layer_rgb[y0:y1, x0:x1])
    np.maximum(layer_a[y0:y1, x0:x1], a, out=layer_a[y0:y1, x0:x1])
    ids[y0:y1, x0:x1][a >= 128] = ident


def _draw_tiles(image, inst, sprites, rects, m_canvas, canvas_size):
    """Paint the sprites on a full-resolution layer covering only the tiles, warp that layer
    into the photo and composite it (premultiplied alpha); fill `inst` with the tile ids."""
    cw, ch = canvas_size
    shown = [r for r in rects if r]
    if not shown:
        return
    px0, py0 = max(0, min(r[0] for r in shown)), max(0, min(r[1] for r in shown))
    px1, py1 = min(cw, max(r[2] for r in shown)), min(ch, max(r[3] for r in shown))
    layer_rgb = np.zeros((py1 - py0, px1 - px0, 3), np.uint8)
    layer_a = np.zeros((py1 - py0, px1 - px0), np.uint8)
    ids = np.zeros((py1 - py0, px1 - px0), np.uint8)
    for k, ((rgb, alpha), rect) in enumerate(zip(sprites, rects)):
        if rect:
            prgb, a = _premultiplied(rgb, alpha)
            _paste(layer_rgb, layer_a, ids, prgb, a, rect[0] - px0, rect[1] - py0, k + 1)
    h_img, w_img = inst.shape
    quad = _project(m_canvas, np.array([[px0, py0], [px1, py0], [px1, py1], [px0, py1]], np.float64))
    ix0, iy0 = np.maximum(0, np.floor(quad.min(axis=0)).astype(int) - 1)
    ix1, iy1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    ix1, iy1 = min(w_img, ix1), min(h_img, iy1)
    if ix0 >= ix1 or iy0 >= iy1:
        return
    m_roi = _translate(-ix0, -iy0) @ m_canvas @ _translate(px0, py0)
    out_size = (int(ix1 - ix0), int(iy1 - iy0))
    warp = lambda src, flags: cv2.warpPerspective(src, m_roi, out_size, flags=flags, borderValue=0)  # noqa: E731
    tiles_rgb = warp(layer_rgb, cv2.INTER_LINEAR)
    keep = cv2.bitwise_not(warp(layer_a, cv2.INTER_LINEAR))
    inst[iy0:iy1, ix0:ix1] = warp(ids, cv2.INTER_NEAREST)
    region = image[iy0:iy1, ix0:ix1]
    region[:] = cv2.add(cv2.multiply(region, cv2.merge([keep, keep, keep]), scale=1 / 255), tiles_rgb)


def _cast_shadows(table, boxes, tw, rng):
    """Darken the table beside and under each tile box (table pixels), offset away from the light."""
    ch, cw = table.shape[:2]
    if not boxes:
        return
    dx, dy = rng.uniform(-0.25, 0.25) * tw, rng.uniform(0.05, 0.3) * tw
    pad = int(tw * 0.6) + 2
    x0 = int(max(0, min(b[0] for b in boxes) - pad))
    y0 = int(max(0, min(b[1] for b in boxes) - pad))
    x1 = int(min(cw, max(b[2] for b in boxes) + pad))
    y1 = int(min(ch, max(b[3] for b in boxes) + pad))
    if x0 >= x1 or y0 >= y1:
        return
    q = 2
    mask = np.zeros(((y1 - y0) // q + 1, (x1 - x0) // q + 1), np.float32)
    for bx1, by1, bx2, by2 in boxes:
        cv2.rectangle(mask, (int((bx1 - x0 + dx) / q), int((by1 - y0 + dy) / q)),
                      (int((bx2 - x0 + dx) / q), int((by2 - y0 + dy) / q)), 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), max(0.8, tw / q / 6))
    factor = 1.0 - rng.uniform(0.2, 0.55) * mask
    factor = cv2.resize(factor, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    region = table[y0:y1, x0:x1]
    region[:] = cv2.multiply(region, cv2.merge([factor, factor, factor]), dtype=cv2.CV_8U)


def _random_roll(rng, size, hand_box) -> float:
    """Camera roll in degrees: mostly small, sometimes from across the table or sideways."""
    w, h = size
    x1, y1, x2, y2 = hand_box
    roll = max(-28.0, min(28.0, rng.gauss(0, 9)))
    turn = rng.random()
    if turn < 0.04:  # shot from across the table
        roll += 180
    elif turn < 0.12 or (h > w and (x2 - x1) > 3 * (y2 - y1) and turn < 0.5):
        roll += rng.choice([-90, 90])  # phone held sideways, or a long row along a portrait photo
    return roll


def _fit_camera(size, hand_box_px, rng, roll):
    """A camera that shows the whole hand inside the frame, with a random pose and zoom."""
    w, h = size
    x1, y1, x2, y2 = hand_box_px
    centre = ((x1 + x2) / 2, (y1 + y2) / 2)
    corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
    tilt, yaw = rng.uniform(1.0, 1.8), rng.uniform(-0.1, 0.1)
    m = _camera(size, centre, roll, tilt, yaw, (0, 0))
    p = _project(m, corners)
    margin = 0.03 * min(w, h)
    span_x, span_y = p[:, 0].max() - p[:, 0].min(), p[:, 1].max() - p[:, 1].min()
    slack_x, slack_y = (w - 2 * margin - span_x), (h - 2 * margin - span_y)
    cx, cy = (p[:, 0].max() + p[:, 0].min()) / 2 - w / 2, (p[:, 1].max() + p[:, 1].min()) / 2 - h / 2
    shift = (rng.triangular(-slack_x / 2, slack_x / 2) - cx, rng.triangular(-slack_y / 2, slack_y / 2) - cy)
    return _camera(size, centre, roll, tilt, yaw, shift), (span_x, span_y, margin)


def _frame_hand(size, hb, rng):
    """Tile width in pixels and the camera (plane -> image): the hand fills a random share of the
    frame, shrinking until the whole hand fits inside it."""
    w_img, h_img = size
    fill = rng.uniform(0.7, 0.98)
    wu, hu = hb[2] - hb[0], hb[3] - hb[1]
    roll = _random_roll(rng, size, hb)
    across, along = (h_img, w_img) if abs((roll % 180) - 90) < 45 else (w_img, h_img)
    tile_w = min(fill * across / wu, 0.8 * along / hu)
    for _ in range(8):
        tw = max(8, int(round(tile_w)))
        m, (span_x, span_y, margin) = _fit_camera(size, [v * tw for v in hb], rng, roll)
        over = max(span_x / (w_img - 2 * margin), span_y / (h_img - 2 * margin))
        if over <= 1.0 or tw == 8:
            break
        tile_w = tile_w / over * 0.97
    return tw, m


def _area_scale(m: np.ndarray, x: float, y: float) -> float:
    """How many photo pixels one canvas pixel at (x, y) covers under the perspective map `m`."""
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    return abs(np.linalg.det(m) / w ** 3)


def _label_boxes(items, rects, areas, inst, m_canvas) -> list[dict]:
    """The tight box of each tile's pixels in the instance map, and the share of the tile that
    shows (`shown`: under 1 for a tile cut by the frame). A stray cut below CUT_BELOW is marked
    `ignore`: too little of it may show to name it (a character's numeral, a row of dots), so an
    evaluation neither asks for it nor counts a box on it against the detector (an ignore region,
    as KITTI's DontCare and COCO's crowd boxes)."""
    h_img, w_img = inst.shape
    tiles = []
    for k, (it, rect, area) in enumerate(zip(items, rects, areas)):
        if rect is None:
            continue
        quad = _project(m_canvas, np.array([[rect[0], rect[1]], [rect[2], rect[1]],
                                            [rect[2], rect[3]], [rect[0], rect[3]]], np.float64))
        rx1, ry1 = np.floor(quad.min(axis=0)).astype(int) - 2
        rx2, ry2 = np.ceil(quad.max(axis=0)).astype(int) + 2
        rx1, ry1, rx2, ry2 = max(0, rx1), max(0, ry1), min(w_img, rx2), min(h_img, ry2)
        if rx1 >= rx2 or ry1 >= ry2:
            continue
        sub = inst[ry1:ry2, rx1:rx2] == k + 1
        visible = int(sub.sum())
        if visible == 0:
            continue
        shown = min(1.0, visible / (area * _area_scale(m_canvas, (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)))
        rows, cols = np.nonzero(sub.any(axis=1))[0], np.nonzero(sub.any(axis=0))[0]
        box = [int(rx1 + cols[0]), int(ry1 + rows[0]), int(rx1 + cols[-1] + 1), int(ry1 + rows[-1] + 1)]
        if box[2] - box[0] < 3 or box[3] - box[1] < 3:
            continue
        tile = {"tile": it["tile"], "role": it["role"], "box": box, "instance": k + 1, "shown": round(shown, 3)}
        if it["role"] == "stray" and shown < CUT_BELOW:
            tile["ignore"] = True
        tiles.append(tile)
    return tiles


def render_scene(hand: dict, seed, size: tuple[int, int] = (1280, 960),
                 families: list[str] | None = None, photo_effects: bool = True, tile_set: TileStyle | None = None) -> dict:
    """Draw `hand` (hand JSON) as a photo of `size` = (width, height), deterministic for `seed`.

    Returns {"image": RGB uint8, "instances": uint8 map (0 = table, k = tiles[k-1]),
    "tiles": [{"tile", "role", "box": [x1, y1, x2, y2], "instance"}], "hand": the hand as drawn
    (a claimed tile turned sideways is recorded in its meld), "style": the art family}.
    `tile_set`: draw it in that style (datasets.synth.tile_set) rather than the seed's.
    """
    rng = random.Random(f"scene:{seed}")
    nrng = np.random.default_rng(rng.getrandbits(64))
    w_img, h_img = size
    hand = copy.deepcopy(hand)
    style = random_style(rng, families, _PROCEDURAL_CACHE)
    style = tile_set or style  # one set for every scene (datasets.synth.tile_set): the draws stay the same
    dims = Dims(h=rng.uniform(1.28, 1.42), s_flat=rng.uniform(0.12, 0.55), s_stand=rng.uniform(0.1, 0.35))
    layout = lay_out_hand(hand, rng, dims, narrow=h_img > w_img)
    items = layout["items"]
    hb = bounds(items, dims)

    tw, m = _frame_hand(size, hb, rng)
    px = {"w": tw, "h": int(round(dims.h * tw)), "s_flat": int(round(dims.s_flat * tw)),
          "s_stand": int(round(dims.s_stand * tw))}
    in_hand = Counter(hand["concealed"] + [hand["win_tile"]] + [t for m in hand["melds"] for t in m["tiles"]])
    strays = lay_out_strays(rng, dims, hb, reach=max(w_img, h_img) / tw * 0.6, in_hand=in_hand)
    all_items = items + strays

    # the canvas: the part of the plane the camera sees
    inv = np.linalg.inv(m)
    seen = _project(inv, np.array([[0, 0], [w_img, 0], [w_img, h_img], [0, h_img]], np.float64))
    ox, oy = np.floor(seen.min(axis=0)).astype(int) - 2
    cw, ch = (np.ceil(seen.max(axis=0)).astype(int) + 2) - (ox, oy)
    m_canvas = m @ _translate(ox, oy)

    # the table at half resolution (surface, racks, shadows), seen through the camera at half size
    bq = 2
    table = backgrounds.table(nrng, int(cw) // bq + 1, int(ch) // bq + 1)
    for rack in layout["racks"]:
        colour = tuple(float(c) for c in rng.choice(RACK_COLOURS))
        p1 = (int((rack["x1"] * tw - ox) / bq), int((rack["y1"] * tw - oy) / bq))
        p2 = (int((rack["x2"] * tw - ox) / bq), int((rack["y2"] * tw - oy) / bq))
        cv2.rectangle(table, p1, p2, colour, -1)
        cv2.line(table, (p1[0], p2[1]), p2, tuple(c * 0.6 for c in colour), max(1, tw // 12 // bq))
    keep_out = [(hb[0] * tw - ox) / bq, (hb[1] * tw - oy) / bq, (hb[2] * tw - ox) / bq, (hb[3] * tw - oy) / bq]
    props.draw_props(table, rng, keep_out, tw / bq)
    sprites = [_sprite_for(it, style, px, rng) for it in all_items]
    places = [_place(it, a.shape, dims, tw, ox, oy) for it, (_, a) in zip(all_items, sprites)]
    whole = [(x, y, x + a.shape[1], y + a.shape[0]) for (_, a), (x, y) in zip(sprites, places)]
    rects = [r if r[2] > 0 and r[3] > 0 and r[0] < cw and r[1] < ch else None for r in whole]
    _cast_shadows(table, [[v / bq for v in r] for r in rects if r], tw / bq, rng)
    half = np.diag([1 / bq, 1 / bq, 1.0]) @ m_canvas @ np.diag([bq, bq, 1.0])
    image = cv2.warpPerspective(table, half, ((w_img + 1) // bq, (h_img + 1) // bq), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    image = cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
    inst = np.zeros((h_img, w_img), np.uint8)
    _draw_tiles(image, inst, sprites, rects, m_canvas, (int(cw), int(ch)))

    areas = [int(np.count_nonzero(a >= 128)) for _, a in sprites]
    tiles = _label_boxes(all_items, rects, areas, inst, m_canvas)
    if photo_effects:
        image = effects.photo(image, nrng)
    return {"image": image, "instances": inst, "tiles": tiles, "hand": hand, "style": style.name,
            "tile_width": tw}
