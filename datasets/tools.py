"""Dataset tools over the plain dataset of datasets.formats: merge, split by source photo,
statistics, and contact sheets (crops per class, or whole images with their boxes)."""
from __future__ import annotations

import collections
import csv
import random
import re
from pathlib import Path

import numpy as np
import yaml
from PIL import Image, ImageDraw, ImageFont, ImageOps

from datasets import formats
from datasets.classmap import CLASSES
from datasets.formats.records import place_image

ROBOFLOW_NAME = re.compile(r"^(?P<source>.+?)_(?:jpe?g|png|bmp|webp|heic)\.rf\.[0-9a-f]{8,}$", re.IGNORECASE)
AUGMENTED_SUFFIX = re.compile(r"^(?P<source>.+?)(?:[_-](?:aug|copy|flip|rot)\d*)+$", re.IGNORECASE)


def source_photo(file: str) -> str:
    """The source photo an image was made from: Roboflow `<SOURCE>_jpg.rf.<hash>.jpg` -> SOURCE,
    `name_aug3.jpg` -> name, anything else -> its own stem."""
    stem = Path(file).stem
    for pattern in (ROBOFLOW_NAME, AUGMENTED_SUFFIX):
        match = pattern.match(stem)
        if match:
            return match["source"]
    return stem


def records_in_list(records: list[dict], list_file: str | Path) -> list[dict]:
    """The records whose image is named (by base name) in a YOLO split list such as train.txt."""
    names = {Path(line.strip()).name for line in Path(list_file).read_text().splitlines() if line.strip()}
    return [r for r in records if Path(r["file"]).name in names]


# ---------------------------------------------------------------- merge

def _parse_source(spec: str) -> tuple[str, str]:
    if "=" in spec and not Path(spec).exists():
        name, path = spec.split("=", 1)
        return name, path
    p = Path(spec)
    return (p.stem if p.is_file() else p.name), spec


def merge(sources: list[str], out: str | Path) -> dict:
    """Merge datasets (any format; class names remapped to our codes) into one YOLO folder.
    Images are renamed `<source name>__<file name>` and listed in manifest.csv."""
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    rows = []
    boxes = 0
    for spec in sources:
        name, path = _parse_source(spec)
        if name in counts:
            raise formats.DatasetError(f"two sources named {name!r}: name them with NAME=PATH")
        data = formats.read_dataset(path)
        counts[name] = len(data)
        for rec in data:
            if not Path(rec["file"]).is_file():
                raise formats.DatasetError(f"{name}: image not found: {rec['file']}")
            new = f"{name}__{Path(rec['file']).name}"
            place_image(rec["file"], out / "images" / new)
            lines = formats.yolo_label_lines(rec)
            (out / "labels" / Path(new).with_suffix(".txt")).write_text("".join(x + "\n" for x in lines))
            rows.append({"file": new, "dataset": name, "source_name": f"{name}__{source_photo(rec['file'])}",
                         "n_boxes": len(rec["boxes"])})
            boxes += len(rec["boxes"])
    with open(out / "manifest.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["file", "dataset", "source_name", "n_boxes"])
        writer.writeheader()
        writer.writerows(rows)
    formats.write_data_yaml(out)
    return {"images": len(rows), "boxes": boxes, "sources": counts}


# ---------------------------------------------------------------- split

def split(src: str | Path, val_share: float = 0.1, seed: int = 0) -> dict:
    """Split a YOLO folder by source photo (all copies of one photo on one side); writes
    train.txt, val.txt and points data.yaml at them."""
    root = Path(src)
    data = formats.read_yolo(root)
    if not data:
        raise formats.DatasetError(f"{root} has no images")
    sources: dict[str, str] = {}
    manifest = root / "manifest.csv"
    if manifest.is_file():
        with open(manifest, newline="") as f:
            sources = {row["file"]: row["source_name"] for row in csv.DictReader(f) if row.get("source_name")}
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for rec in data:
        name = Path(rec["file"]).name
        groups[sources.get(name) or source_photo(name)].append(
            "./" + Path(rec["file"]).relative_to(root).as_posix())
    keys = sorted(groups)
    random.Random(seed).shuffle(keys)
    n_val = max(1, round(val_share * len(keys))) if len(keys) > 1 else 0
    val_keys, train_keys = keys[:n_val], keys[n_val:]
    val = sorted(f for k in val_keys for f in groups[k])
    train = sorted(f for k in train_keys for f in groups[k])
    (root / "train.txt").write_text("".join(x + "\n" for x in train))
    (root / "val.txt").write_text("".join(x + "\n" for x in val))
    data_yaml = root / "data.yaml"
    meta = yaml.safe_load(data_yaml.read_text()) or {}
    meta.update({"train": "train.txt", "val": "val.txt"})
    meta.pop("path", None)
    data_yaml.write_text(yaml.safe_dump(meta, sort_keys=False, default_flow_style=None, allow_unicode=True))
    return {"train": len(train), "val": len(val), "train_sources": len(train_keys), "val_sources": len(val_keys)}


# ---------------------------------------------------------------- stats

def stats(dataset: list[dict]) -> dict:
    per_class = {c: {"boxes": 0, "images": 0} for c in CLASSES}
    sizes: collections.Counter = collections.Counter()
    per_image = []
    widths, heights = [], []
    for rec in dataset:
        sizes[f"{rec['width']}x{rec['height']}"] += 1
        per_image.append(len(rec["boxes"]))
        seen = set()
        for b in rec["boxes"]:
            per_class[b["tile"]]["boxes"] += 1
            seen.add(b["tile"])
            x1, y1, x2, y2 = b["box"]
            widths.append(x2 - x1)
            heights.append(y2 - y1)
        for t in seen:
            per_class[t]["images"] += 1
    med = lambda v: float(np.median(v)) if v else 0.0  # noqa: E731
    return {"images": len(dataset), "boxes": sum(per_image), "per_class": per_class,
            "image_sizes": dict(sizes.most_common()),
            "boxes_per_image": {"min": min(per_image, default=0), "median": med(per_image),
                                "max": max(per_image, default=0)},
            "box_size_median": {"width": med(widths), "height": med(heights)},
            "missing_classes": [c for c in CLASSES if per_class[c]["boxes"] == 0]}


def format_stats(s: dict) -> str:
    lines = [f"{s['images']} images, {s['boxes']} boxes; boxes per image min {s['boxes_per_image']['min']} "
             f"median {s['boxes_per_image']['median']:g} max {s['boxes_per_image']['max']}; median box "
             f"{s['box_size_median']['width']:.0f}x{s['box_size_median']['height']:.0f} px",
             "image sizes: " + ", ".join(f"{k} ({v})" for k, v in list(s["image_sizes"].items())[:8])
             + (" ..." if len(s["image_sizes"]) > 8 else ""),
             f"{'class':6} {'boxes':>7} {'images':>7}"]
    for c, v in s["per_class"].items():
        lines.append(f"{c:6} {v['boxes']:7d} {v['images']:7d}")
    if s["missing_classes"]:
        lines.append("no boxes: " + " ".join(s["missing_classes"]))
    return "\n".join(lines)


# ---------------------------------------------------------------- sheets

def _font(size: int):
    try:
        return ImageFont.load_default(size)
    except TypeError:
        return ImageFont.load_default()


def contact_sheet(dataset: list[dict], out: str | Path, per_class: int = 12, classes: list[str] | None = None,
                  seed: int = 0, cell: tuple[int, int] = (56, 72)) -> int:
    """One row per class: its code, then up to `per_class` random crops of its boxes."""
    classes = classes or list(CLASSES)
    unknown = [c for c in classes if c not in CLASSES]
    if unknown:
        raise ValueError(f"unknown classes: {', '.join(unknown)}")
    by_class: dict[str, list] = {c: [] for c in classes}
    for rec in dataset:
        for b in rec["boxes"]:
            if b["tile"] in by_class:
                by_class[b["tile"]].append((rec["file"], b["box"]))
    rng = random.Random(seed)
    picks = {c: rng.sample(v, min(per_class, len(v))) for c, v in by_class.items()}
    by_file = collections.defaultdict(list)
    for c, items in picks.items():
        for k, (file, box) in enumerate(items):
            by_file[file].append((c, k, box))
    cw, ch = cell
    label_w = 56
    rows = [c for c in classes if picks[c]]
    if not rows:
        raise ValueError("no boxes of the requested classes")
    sheet = Image.new("RGB", (label_w + per_class * (cw + 2), len(rows) * (ch + 2)), (30, 30, 30))
    draw = ImageDraw.Draw(sheet)
    font = _font(16)
    row_of = {c: i for i, c in enumerate(rows)}
    for c in rows:
        draw.text((4, row_of[c] * (ch + 2) + ch // 2 - 8), c, fill=(255, 255, 255), font=font)
    for file, items in by_file.items():
        with Image.open(file) as opened:
            im = opened.convert("RGB")
            for c, k, (x1, y1, x2, y2) in items:
                crop = im.crop((int(x1), int(y1), int(np.ceil(x2)), int(np.ceil(y2))))
                crop = ImageOps.contain(crop, (cw, ch))
                x = label_w + k * (cw + 2) + (cw - crop.width) // 2
                y = row_of[c] * (ch + 2) + (ch - crop.height) // 2
                sheet.paste(crop, (x, y))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out, quality=88)
    return sum(len(v) for v in picks.values())


def image_sheet(dataset: list[dict], out: str | Path, n: int = 16, cols: int = 4, cell: int = 480,
                draw_boxes: bool = True, quality: int = 82) -> int:
    """A grid of the first n images, each fitted in a cell x cell square, boxes outlined."""
    chosen = dataset[:n]
    rows = (len(chosen) + cols - 1) // cols
    sheet = Image.new("RGB", (cols * cell, rows * cell), (20, 20, 20))
    for k, rec in enumerate(chosen):
        with Image.open(rec["file"]) as opened:
            im = opened.convert("RGB")
            scale = min(cell / im.width, cell / im.height)
            small = im.resize((max(1, round(im.width * scale)), max(1, round(im.height * scale))), Image.Resampling.LANCZOS)
        if draw_boxes:
            d = ImageDraw.Draw(small)
            for b in rec["boxes"]:
                x1, y1, x2, y2 = (v * scale for v in b["box"])
                d.rectangle((x1, y1, x2, y2), outline=(255, 220, 0) if b["tile"] != "BACK" else (0, 200, 255))
        x = (k % cols) * cell + (cell - small.width) // 2
        y = (k // cols) * cell + (cell - small.height) // 2
        sheet.paste(small, (x, y))
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    sheet.save(out, quality=quality, optimize=True)
    return len(chosen)
