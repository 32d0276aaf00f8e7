"""Where the tiles of a revealed hand lie on the table, the way players lay them out.

`lay_out_hand(hand, rng, dims)` returns items in table-plane units (a tile face is 1 wide):
`{"tile": code or "BACK", "pose": up|stand|down|side, "role": ..., "x", "y"}` (top-left
corner of the tile as seen, its face plus visible body), plus racks to draw under rows.
`lay_out_strays(rng, dims, hand_box)` adds discards, a wall and single tiles around it.
The hand may gain "claimed"/"from" on a meld whose claimed tile is drawn sideways.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from vision.classes import CLASSES
from vision.one_set import COPIES_PER_TILE

SUIT_ORDER = "WTBFJH"


@dataclass
class Dims:
    """Tile proportions in face widths: face height, visible body when lying and standing."""
    h: float = 1.35
    s_flat: float = 0.3
    s_stand: float = 0.25

    def size(self, pose: str) -> tuple[float, float]:
        if pose == "side":
            return self.h, 1 + self.s_flat
        if pose == "stand":
            return 1, self.h + self.s_stand
        return 1, self.h + self.s_flat


def _sort_key(code: str, suit_rank: dict) -> tuple:
    return suit_rank[code[0]], int(code[1:])


def _meld_tiles(meld: dict, index: int, rng: random.Random, sideways: bool, kong_style: str) -> list[dict]:
    role = f"meld {index}"
    tiles = list(meld["tiles"])
    if meld["kind"] == "chow":
        tiles.sort(key=lambda c: int(c[1:]))
    items = [{"tile": t, "pose": "up", "role": role} for t in tiles]
    if meld["kind"] == "kong" and not meld.get("exposed", True):
        down = {"ends": (0, 3), "middle": (1, 2), "all": (0, 1, 2, 3)}[kong_style]
        for k in down:
            items[k].update(tile="BACK", pose="down")
        return items
    if sideways:
        claimed = meld.get("claimed") or rng.choice(tiles)
        source = meld.get("from") or ("left" if meld["kind"] == "chow" else rng.choice(["left", "across", "right"]))
        meld["claimed"], meld["from"] = claimed, source
        k = tiles.index(claimed)
        item = items.pop(k)
        item["pose"] = "side"
        pos = {"left": 0, "across": 1, "right": len(items)}[source]
        items.insert(pos, item)
    return items


def _place_row(groups: list[tuple[list[dict], float]], x0: float, base: float, dims: Dims,
               rng: random.Random, out: list[dict]) -> tuple[float, float, float]:
    """Place groups (items, gap after) left to right on a baseline; returns (x_end, top, bottom)."""
    x, top = x0, base
    for items, gap_after in groups:
        for it in items:
            w, h = dims.size(it["pose"])
            jitter = rng.uniform(-0.02, 0.02) * h
            it["x"], it["y"] = x, base - h + jitter
            if rng.random() < 0.3:  # hands are laid out by hand: a tile slightly askew
                it["angle"] = rng.uniform(-2.0, 2.0)
            top = min(top, it["y"])
            out.append(it)
            x += w + rng.uniform(0.01, 0.06)
        x += gap_after
    return x, top, base + 0.03 * dims.h


def lay_out_hand(hand: dict, rng: random.Random, dims: Dims, narrow: bool = False) -> dict:
    """Items of the hand in plane units, and racks ({"x1","y1","x2","y2"}) to draw under them.
    `narrow` (a portrait photo) makes two rows likelier."""
    suit_rank = {s: i for i, s in enumerate(rng.sample(SUIT_ORDER[:3], 3) + list(SUIT_ORDER[3:]))}
    concealed = sorted(hand["concealed"], key=lambda c: _sort_key(c, suit_rank))
    if rng.random() < 0.15:  # not everyone sorts their hand
        k = rng.randrange(len(concealed)) if concealed else 0
        concealed[k:k + 3] = rng.sample(concealed[k:k + 3], len(concealed[k:k + 3]))
    pose = "stand" if rng.random() < 0.45 else "up"
    row = [{"tile": t, "pose": pose, "role": "concealed"} for t in concealed]
    win_apart = rng.random() < 0.55
    win = [{"tile": hand["win_tile"], "pose": pose if rng.random() < 0.7 else "up", "role": "winning tile"}]
    sideways = rng.random() < 0.5
    kong_style = rng.choice(["ends", "ends", "middle", "all"])
    melds = [_meld_tiles(m, i + 1, rng, sideways, kong_style) for i, m in enumerate(hand.get("melds", []))]
    flowers = [{"tile": f, "pose": "up", "role": "flower"} for f in hand.get("flowers", [])]
    meld_gap = lambda: rng.uniform(0.25, 0.9)  # noqa: E731

    concealed_groups = [(row, rng.uniform(0.3, 1.2) if win_apart else rng.uniform(0.0, 0.06)),
                        (win, meld_gap())]
    meld_groups = [(m, meld_gap()) for m in melds]
    flower_group = [(flowers, rng.uniform(0.6, 1.5))] if flowers else []
    weights = [0.1, 0.85, 0.05] if narrow else [0.35, 0.45, 0.2]
    arrangement = rng.choices(["line", "two rows", "melds first"], weights)[0]
    if not melds:
        arrangement = "line"
    items: list[dict] = []
    racks = []
    rows: list[list] = []
    if arrangement == "line":
        line = concealed_groups + meld_groups
        rows = [flower_group + line if rng.random() < 0.5 else line + flower_group]
    elif arrangement == "melds first":
        rows = [flower_group + meld_groups + concealed_groups]
    else:
        back_row, front_row = concealed_groups, meld_groups + flower_group
        if rng.random() < 0.25:
            back_row, front_row = front_row, back_row
        rows = [back_row, front_row]
    base = 0.0
    for r, groups in enumerate(rows):
        if r:
            tallest = max(dims.size(it["pose"])[1] for g, _ in groups for it in g)
            base += rng.uniform(0.15, 0.9) + tallest
        x0 = rng.uniform(-0.8, 0.8) if r else 0.0
        start = len(items)
        x_end, top, bottom = _place_row(groups, x0, base, dims, rng, items)
        has_standing = any(it["pose"] == "stand" for it in items[start:])
        if has_standing and rng.random() < 0.35:
            racks.append({"x1": x0 - 0.3, "x2": x_end + 0.1, "y1": bottom - 0.25 * dims.h,
                          "y2": bottom + rng.uniform(0.2, 0.45) * dims.h})
    return {"items": items, "racks": racks}


def bounds(items: list[dict], dims: Dims) -> tuple[float, float, float, float]:
    xs1 = [it["x"] for it in items]
    ys1 = [it["y"] for it in items]
    xs2 = [it["x"] + dims.size(it["pose"])[0] for it in items]
    ys2 = [it["y"] + dims.size(it["pose"])[1] for it in items]
    return min(xs1), min(ys1), max(xs2), max(ys2)


def _overlaps(box, boxes, pad=0.15):
    x1, y1, x2, y2 = box
    return any(x1 < b[2] + pad and b[0] - pad < x2 and y1 < b[3] + pad and b[1] - pad < y2 for b in boxes)


def lay_out_strays(rng: random.Random, dims: Dims, hand_box: tuple, reach: float,
                   in_hand: Counter | None = None) -> list[dict]:
    """Discards (a pond of face-up tiles), a wall of face-down tiles and single stray tiles,
    away from the hand (at least `pad` apart), within `reach` face widths of it. The face-up ones
    are tiles of the set the hand leaves (`in_hand`: the hand's tiles, its hidden kongs' too): one
    set holds four of each, so no photo shows a fifth."""
    x1, y1, x2, y2 = hand_box
    taken = [hand_box]
    items: list[dict] = []
    # no flowers: a flower is the hand's wherever it lies (it is never discarded), so a stray one
    # would be a flower of the hand that the scene's true hand leaves out
    faces = CLASSES[:34] * 3
    shown = Counter(in_hand or {})

    def draw_face() -> str:
        code = rng.choice(faces)
        while shown[code] >= COPIES_PER_TILE:  # the set has none left (a redraw only then: the
            code = rng.choice(faces)           # random stream of other scenes stays the same)
        return code

    def try_place(item, x, y, angle=0.0):
        w, h = dims.size(item["pose"])
        box = (x, y, x + w, y + h) if abs(angle) < 45 else (x, y, x + h, y + w)
        grow = 0.45 if 3 < abs(angle) < 87 else 0.0  # a turned tile reaches beyond its upright box
        box = (box[0] - grow, box[1] - grow, box[2] + grow, box[3] + grow)
        if _overlaps(box, taken):
            return False
        shown[item["tile"]] += 1
        item.update(x=x, y=y, angle=angle, role="stray")
        taken.append(box)
        items.append(item)
        return True

    if rng.random() < 0.45:  # discards on the far side
        n = rng.randint(3, 14)
        px = rng.uniform(x1 - 2, (x1 + x2) / 2)
        py = y1 - rng.uniform(1.2, 3.5) - 2 * (dims.h + dims.s_flat)
        for k in range(n):
            col, r = k % 6, k // 6
            try_place({"tile": draw_face(), "pose": "up"}, px + col * 1.05 + rng.uniform(-0.05, 0.05),
                      py + r * (dims.h + dims.s_flat + 0.05), rng.uniform(-4, 4))
    if rng.random() < 0.35:  # a wall, face down, far side or one flank
        n = rng.randint(6, 18)
        if rng.random() < 0.6:
            px, py = rng.uniform(x1 - 3, x1 + 2), y1 - rng.uniform(2.0, 6.0) - dims.h
            for k in range(n):
                try_place({"tile": "BACK", "pose": "down"}, px + k * 1.01, py)
        else:
            side = rng.choice([-1, 1])
            px = (x1 - rng.uniform(1.0, 3.0) - dims.h) if side < 0 else (x2 + rng.uniform(1.0, 3.0))
            py = y1 - rng.uniform(0, 3)
            for k in range(n):
                try_place({"tile": "BACK", "pose": "down"}, px, py + k * 1.01, 90.0)
    for _ in range(rng.choice([0, 0, 1, 2, 3])):  # single strays near the edges
        pose = rng.choice(["up", "up", "down"])
        code = "BACK" if pose == "down" else draw_face()
        for _attempt in range(8):
            x = rng.uniform(x1 - reach, x2 + reach)
            y = rng.uniform(y1 - reach, y2 + reach * 0.6)
            if try_place({"tile": code, "pose": pose}, x, y, rng.uniform(-35, 35)):
                break
    return items
