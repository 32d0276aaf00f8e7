"""Tile crops for the classifier (stage 2): cut, render and augment (numpy + OpenCV only).

A *context crop* is a tile box grown by CONTEXT of its size on every side, turned
upright when it is wider than tall (as `vision.detector.crop_tiles` does), and
resized to CONTEXT_WH (the size for the m64 classifier; `context_wh_for` gives it for
another input size). Training cuts a jittered box out of it on the fly
(`augment`), so the classifier sees the loose and shifted boxes the finder gives.

Sources: labelled datasets (records of `datasets.formats`: real photos, synthetic
scenes) and the CC0 FluffyStuff tile art composed on random backgrounds.
"""
from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_ID, NOT_A_TILE

CONTEXT = 0.25
NEGATIVE_IOU = 0.2  # a finder box overlapping every labelled box less than this holds no tile ...
NEGATIVE_COVER = 0.25  # ... when labelled boxes cover less than this share of it (not a box over a wall's backs)
FINDER_MATCH_IOU = 0.5  # a finder box this near a labelled tile is the box the classifier gets for it
CONTEXT_WH = (72, 96)
FLUFFY_DIR = Path("/work/shared/tile-art/fluffystuff")


def context_wh_for(input_wh: tuple[int, int]) -> tuple[int, int]:
    """The context crop size that holds a classifier input of `input_wh` (the box) at full resolution."""
    return round(input_wh[0] * (1 + 2 * CONTEXT)), round(input_wh[1] * (1 + 2 * CONTEXT))


def context_crop(rgb: np.ndarray, box, context_wh: tuple[int, int] = CONTEXT_WH) -> np.ndarray:
    """The context crop (`context_wh`, RGB uint8) around one xyxy box of `rgb`."""
    x1, y1, x2, y2 = (float(v) for v in box)
    bw, bh = max(1.0, x2 - x1), max(1.0, y2 - y1)
    sideways = bw > bh
    cw, ch = context_wh
    out_w, out_h = (ch, cw) if sideways else (cw, ch)
    # affine map: the grown box -> the whole output (pixels outside the image are replicated)
    gx1, gy1 = x1 - bw * CONTEXT, y1 - bh * CONTEXT
    sx, sy = out_w / (bw * (1 + 2 * CONTEXT)), out_h / (bh * (1 + 2 * CONTEXT))
    matrix = np.array([[sx, 0, -gx1 * sx], [0, sy, -gy1 * sy]], np.float32)
    interpolation = cv2.INTER_AREA if min(sx, sy) < 1 else cv2.INTER_LINEAR
    if min(sx, sy) < 0.5:  # shrink in two steps so that fine strokes do not alias
        small = cv2.resize(rgb, None, fx=max(sx, sy) * 1.5, fy=max(sx, sy) * 1.5, interpolation=cv2.INTER_AREA)
        factor = small.shape[1] / rgb.shape[1]
        matrix = np.array([[sx / factor, 0, -gx1 * sx], [0, sy / factor, -gy1 * sy]], np.float32)
        rgb = small
    crop = cv2.warpAffine(rgb, matrix, (out_w, out_h), flags=interpolation, borderMode=cv2.BORDER_REPLICATE)
    if sideways:
        crop = cv2.rotate(crop, cv2.ROTATE_90_CLOCKWISE)
    return crop


def _stacked(crops: list[np.ndarray], labels: list[int], context_wh: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A list of context crops and their class ids as arrays (N x H x W x 3, N), empty or not."""
    cw, ch = context_wh
    stacked = np.stack(crops) if crops else np.zeros((0, ch, cw, 3), np.uint8)
    return stacked, np.asarray(labels, np.int64).reshape(-1)


def crops_from_records(records: list[dict], load_rgb, context_wh: tuple[int, int] = CONTEXT_WH) -> tuple[np.ndarray, np.ndarray]:
    """Context crops and class ids for every box of `records` (`load_rgb(record) -> RGB array`)."""
    crops, labels = [], []
    for record in records:
        rgb = load_rgb(record)
        for box in record["boxes"]:
            crops.append(context_crop(rgb, box["box"], context_wh))
            labels.append(CLASS_ID[box["tile"]])
    return _stacked(crops, labels, context_wh)


def finder_box_crops(records: list[dict], load_rgb, find,
                     context_wh: tuple[int, int] = CONTEXT_WH) -> tuple[np.ndarray, np.ndarray]:
    """Context crops and class ids for every box of `records`, each cut around the box that
    `find(rgb) -> N x 4 xyxy` (the finder) puts on that tile (the best by IoU, at least
    FINDER_MATCH_IOU, each found box used once), or around the label where it finds none: the
    classifier learns the boxes it will be given, not the labeller's (real photos' labels are
    looser than the finder's boxes)."""
    from vision.boxes import iou_matrix

    crops, labels = [], []
    for record in records:
        rgb = load_rgb(record)
        found = np.asarray(find(rgb), np.float32).reshape(-1, 4)
        truth = np.asarray([b["box"] for b in record["boxes"]], np.float32).reshape(-1, 4)
        overlap = iou_matrix(truth, found) if len(truth) and len(found) else np.zeros((len(truth), 0))
        boxes = truth.copy()
        while overlap.size and overlap.max() >= FINDER_MATCH_IOU:
            t, f = np.unravel_index(overlap.argmax(), overlap.shape)
            boxes[t] = found[f]
            overlap[t, :], overlap[:, f] = 0, 0
        crops += [context_crop(rgb, box, context_wh) for box in boxes]
        labels += [CLASS_ID[b["tile"]] for b in record["boxes"]]
    return _stacked(crops, labels, context_wh)


def negative_crops(records: list[dict], load_rgb, find,
                   context_wh: tuple[int, int] = CONTEXT_WH) -> tuple[np.ndarray, np.ndarray]:
    """Context crops, labelled NOT_A_TILE, of the boxes `find(rgb) -> N x 4 xyxy` puts where no
    tile of the record lies (IoU under NEGATIVE_IOU with each labelled box, which together cover
    under NEGATIVE_COVER of it): what the finder takes for a tile (dice, scoring sticks, coins).
    A box across several tiles (a wall's backs) is no such crop: it would teach the classifier
    that backs are no tiles. Only for records labelled in full (synthetic scenes): a real photo's
    labels leave out tiles off the hand."""
    from vision.boxes import intersections, iou_matrix

    crops = []
    for record in records:
        rgb = load_rgb(record)
        found = np.asarray(find(rgb), np.float32).reshape(-1, 4)
        tiles = record["boxes"] + record.get("ignore", [])  # a stray cut by the frame is a tile too
        truth = np.asarray([b["box"] for b in tiles], np.float32).reshape(-1, 4)
        overlap = iou_matrix(found, truth).max(axis=1) if len(truth) else np.zeros(len(found))
        area = ((found[:, 2] - found[:, 0]) * (found[:, 3] - found[:, 1])).clip(1e-6)
        # the share of each box that labelled boxes cover (summed: tiles hardly overlap)
        covered = np.asarray([intersections(truth, box).sum() for box in found]) / area
        crops += [context_crop(rgb, box, context_wh) for box, best, share in zip(found, overlap, covered)
                  if best < NEGATIVE_IOU and share < NEGATIVE_COVER]
    return _stacked(crops, [NOT_A_TILE] * len(crops), context_wh)


def _background(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    base = rng.choice(
        [(40, 110, 60), (30, 80, 140), (150, 110, 70), (220, 220, 215), (60, 60, 60), (170, 40, 40)]
    )
    colour = np.clip(np.asarray(base) + rng.normal(0, 20, 3), 0, 255)
    noise = rng.normal(0, 8, (height, width, 1))
    return np.clip(colour[None, None, :] + noise, 0, 255).astype(np.uint8)


def _paste(background: np.ndarray, tile_rgba: np.ndarray, x: int, y: int, w: int, h: int) -> None:
    tile = cv2.resize(tile_rgba, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    alpha = tile[..., 3:4] / 255.0
    region = background[y : y + h, x : x + w].astype(np.float32)
    background[y : y + h, x : x + w] = (tile[..., :3] * alpha + region * (1 - alpha)).astype(np.uint8)


def _read_rgba(path: Path) -> np.ndarray:
    """A PNG with its alpha channel, as RGBA."""
    bgra = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if bgra is None:
        raise OSError(f"{path}: cannot read the image")
    return cv2.cvtColor(bgra, cv2.COLOR_BGRA2RGBA)


def fluffystuff_tiles(art_dir: Path = FLUFFY_DIR) -> list[tuple[str, np.ndarray]]:
    """(code, RGBA tile) for every face of both FluffyStuff styles (face over Front.png), and Back.png."""
    tiles = []
    for style in ("regular", "black"):
        folder = art_dir / style
        if not (folder / "Front.png").is_file():
            continue
        front = _read_rgba(folder / "Front.png")
        for path in sorted(folder.glob("*.png")):
            code = path.stem
            if code in CLASS_ID and code != "BACK":
                face = _read_rgba(path)
                alpha = face[..., 3:4].astype(np.float32) / 255.0
                tile = front.copy()
                tile[..., :3] = (face[..., :3] * alpha + front[..., :3] * (1 - alpha)).astype(np.uint8)
                tiles.append((code, tile))
        back = folder / "Back.png"
        if back.is_file():
            tiles.append(("BACK", _read_rgba(back)))
    return tiles


def rendered_crops(copies: int, seed: int = 0, art_dir: Path = FLUFFY_DIR,
                   context_wh: tuple[int, int] = CONTEXT_WH) -> tuple[np.ndarray, np.ndarray]:
    """`copies` context crops per FluffyStuff tile, on random backgrounds, neighbours at the sides.

    Backs are recoloured (hue shifts) since real tile backs come in many colours.
    """
    rng = np.random.default_rng(seed)
    tiles = fluffystuff_tiles(art_dir)
    crops, labels = [], []
    cw, ch = context_wh
    tw, th = round(cw / (1 + 2 * CONTEXT)), round(ch / (1 + 2 * CONTEXT))
    x0, y0 = (cw - tw) // 2, (ch - th) // 2
    for code, tile in tiles:
        for _ in range(copies):
            canvas = _background(rng, cw, ch)
            art = tile
            if code == "BACK":
                hsv = cv2.cvtColor(tile[..., :3], cv2.COLOR_RGB2HSV)
                hsv[..., 0] = (hsv[..., 0].astype(int) + int(rng.integers(0, 180))) % 180
                art = np.dstack([cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB), tile[..., 3]])
            if rng.random() < 0.6:  # neighbouring tiles of a hand
                _, left = tiles[int(rng.integers(len(tiles)))]
                _, right = tiles[int(rng.integers(len(tiles)))]
                _paste(canvas, left[:, -left.shape[1] // 4 :], 0, y0, x0 - 1, th)
                _paste(canvas, right[:, : right.shape[1] // 4], x0 + tw + 1, y0, cw - x0 - tw - 1, th)
            _paste(canvas, art, x0, y0, tw, th)
            crops.append(canvas)
            labels.append(CLASS_ID[code])
    return np.stack(crops), np.asarray(labels, np.int64)


def augment(
    context: np.ndarray, out_wh: tuple[int, int], pad: float, rng: np.random.Generator, mirror: float = 0.0
) -> np.ndarray:
    """A training crop (out_wh) from a context crop: box jitter, rotation, mirror (with probability
    `mirror`), colour, blur, JPEG. The context crop may be of any size (`context_wh_for`)."""
    ch, cw = context.shape[:2]
    bw, bh = cw / (1 + 2 * CONTEXT), ch / (1 + 2 * CONTEXT)
    # jittered box (the finder's boxes are loose or tight by ~10%)
    w = bw * (1 + pad * 2) * rng.uniform(0.88, 1.12)
    h = bh * (1 + pad * 2) * rng.uniform(0.88, 1.12)
    cx = cw / 2 + bw * rng.uniform(-0.07, 0.07)
    cy = ch / 2 + bh * rng.uniform(-0.07, 0.07)
    # tiles lie at any small angle, often upside down, sometimes well askew (hands photographed
    # at a slant); some real training photos are mirrored copies
    spread = 35 if rng.random() < 0.3 else 10
    angle = rng.uniform(-spread, spread) + (180 if rng.random() < 0.5 else 0)
    out_w, out_h = out_wh
    # output pixel -> context pixel: scale, rotate about the centre
    theta = np.deg2rad(angle)
    cos, sin = np.cos(theta), np.sin(theta)
    sx, sy = w / out_w, h / out_h
    m = np.array([[cos * sx, -sin * sy], [sin * sx, cos * sy]], np.float32)
    offset = np.array([cx, cy], np.float32) - m @ np.array([out_w / 2, out_h / 2], np.float32)
    inverse = np.hstack([m, offset[:, None]])
    crop = cv2.warpAffine(
        context, inverse, (out_w, out_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )
    if rng.random() < mirror:
        crop = crop[:, ::-1]
    crop = crop.astype(np.float32)
    gain = rng.uniform(0.7, 1.3) * rng.uniform(0.9, 1.1, 3)
    crop = (crop - 128) * rng.uniform(0.75, 1.25) + 128
    crop = crop * gain + rng.uniform(-25, 25)
    if rng.random() < 0.2:  # washed-out colours
        grey = crop.mean(axis=2, keepdims=True)
        crop = grey + (crop - grey) * rng.uniform(0.2, 0.8)
    crop = np.clip(crop, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        crop = cv2.GaussianBlur(crop, (3, 3), rng.uniform(0.3, 1.2))
    if rng.random() < 0.3:
        ok, encoded = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 90))])
        decoded = cv2.imdecode(encoded, cv2.IMREAD_UNCHANGED)
        if decoded is not None:
            crop = decoded
    return crop


def centre_crop(context: np.ndarray, out_wh: tuple[int, int], pad: float) -> np.ndarray:
    """The crop the detector would cut for an exact box (no augmentation): for validation."""
    ch, cw = context.shape[:2]
    bw, bh = cw / (1 + 2 * CONTEXT), ch / (1 + 2 * CONTEXT)
    w, h = bw * (1 + 2 * pad), bh * (1 + 2 * pad)
    x1, y1 = (cw - w) / 2, (ch - h) / 2
    patch = context[int(round(y1)) : int(round(y1 + h)), int(round(x1)) : int(round(x1 + w))]
    return cv2.resize(patch, out_wh, interpolation=cv2.INTER_AREA)


def _load_rgb(record: dict) -> np.ndarray:
    bgr = cv2.imread(str(record["file"]), cv2.IMREAD_COLOR)
    if bgr is None:
        raise FileNotFoundError(record["file"])
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


def save_crops(records: list[dict], out: str | Path, find=None, finder_boxes: bool = False,
               context_wh: tuple[int, int] = CONTEXT_WH) -> Path:
    """Context crops of every box of `records` into OUT (NPZ with `crops` and `labels`); with
    `find` (a finder: RGB -> boxes), instead the crops of its boxes on no tile (`negative_crops`),
    or with `finder_boxes` every tile's crop cut around the finder's box on it (`finder_box_crops`)."""
    if find is None:
        crops, labels = crops_from_records(records, _load_rgb, context_wh)
    elif finder_boxes:
        crops, labels = finder_box_crops(records, _load_rgb, find, context_wh)
    else:
        crops, labels = negative_crops(records, _load_rgb, find, context_wh)
    out = _save(out, crops, labels)
    print(f"{out}: {len(labels)} crops from {len(records)} images", flush=True)
    return out


def save_rendered_crops(out: str | Path, copies: int = 60, seed: int = 0,
                        context_wh: tuple[int, int] = CONTEXT_WH) -> Path:
    crops, labels = rendered_crops(copies, seed, context_wh=context_wh)
    out = _save(out, crops, labels)
    print(f"{out}: {len(labels)} rendered crops", flush=True)
    return out


def _save(out: str | Path, crops: np.ndarray, labels: np.ndarray) -> Path:
    """OUT (NPZ) written whole or not at all: a run stopped while writing leaves no file that a
    resumed job takes for done."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    part = out.with_name(out.name + ".part")
    with part.open("wb") as f:
        np.savez(f, crops=crops, labels=labels)
    part.replace(out)
    return out
