"""COCO detection JSON (bbox = [x, y, w, h] in pixels)."""
from __future__ import annotations

import json
from pathlib import Path

from datasets.classmap import CLASS_ID, CLASSES, ClassMapError, to_code
from datasets.formats.records import (
    DatasetError,
    check_records,
    clean_box,
    image_size,
    load_json,
    numbers,
    resolve_image,
    stored_name,
)


def read_coco(path: str | Path, image_dir: str | Path | None = None) -> list[dict]:
    """A COCO detection JSON (bbox = [x, y, w, h] pixels); images resolved against image_dir
    (default: the JSON's folder, then its images/ subfolder)."""
    path = Path(path)
    data = load_json(path)
    if not isinstance(data, dict) or "images" not in data or "categories" not in data:
        raise DatasetError(f"{path} is not a COCO detection file (no images/categories)")
    parts = [data["images"], data["categories"], data.get("annotations", [])]
    if not all(isinstance(part, list) and all(isinstance(item, dict) for item in part) for part in parts):
        raise DatasetError(f"{path}: images, categories and annotations must be lists of objects")
    try:
        cats = {_json_id(c.get("id"), f"{path}: a category's id"): to_code(str(c.get("name")))
                for c in data["categories"]}
    except ClassMapError as exc:
        raise DatasetError(f"{path}: {exc}") from exc
    dirs = [Path(image_dir)] if image_dir else [path.parent, path.parent / "images"]
    records: dict = {}
    order = []
    for im in data["images"]:
        image_id = _json_id(im.get("id"), f"{path}: an image's id")
        file = im.get("file_name")
        if not isinstance(file, str) or not file:
            raise DatasetError(f"{path}: image {image_id!r} has no file_name")
        for d in dirs:
            resolved = resolve_image(file, d)
            if resolved != file:
                file = resolved
                break
        size = [im.get("width"), im.get("height")]
        if size == [None, None] and Path(file).is_file():  # some tools leave the size out: the image has it
            size = list(image_size(file))
        width, height = numbers(size, 2, f"{path}: image {image_id!r} width and height")
        if width < 1 or height < 1:
            raise DatasetError(f"{path}: image {image_id!r} is {width:g}x{height:g} pixels")
        records[image_id] = {"file": file, "width": int(width), "height": int(height), "boxes": []}
        order.append(image_id)
    annotations = data.get("annotations", [])
    for ann in sorted(annotations, key=lambda a: a.get("id") if isinstance(a.get("id"), int) else 0):
        where = f"{path}: annotation {ann.get('id')!r:.40}"
        rec = records.get(_json_id(ann.get("image_id"), f"{where}: its image_id"))
        if rec is None:
            raise DatasetError(f"{where} refers to unknown image {ann.get('image_id')!r:.40}")
        category = _json_id(ann.get("category_id"), f"{where}: its category_id")
        if category not in cats:
            raise DatasetError(f"{where} has unknown category {category!r}")
        x, y, w, h = numbers(ann.get("bbox"), 4, f"{where}: bbox [x, y, w, h]")
        if w < 0 or h < 0:
            raise DatasetError(f"{where}: bbox {ann['bbox']} has a negative width or height")
        rec["boxes"].append({"tile": cats[category], "box": clean_box([x, y, x + w, y + h])})
    return [records[i] for i in order]


def _json_id(value, where: str):
    """A JSON id (a number or a string); DatasetError naming `where` for a list, object or null."""
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return value
    raise DatasetError(f"{where} must be a number or a string, not {value!r:.40}")


def to_coco(dataset: list[dict], image_root: str | Path | None = None) -> dict:
    """The COCO dict of a dataset: category id = class id + 1 (0 stays free, as COCO tools expect)."""
    check_records(dataset)
    images: list[dict] = []
    annotations: list[dict] = []
    for image_id, rec in enumerate(dataset, 1):
        images.append({"id": image_id, "file_name": stored_name(rec["file"], image_root),
                       "width": rec["width"], "height": rec["height"]})
        for b in rec["boxes"]:
            x1, y1, x2, y2 = b["box"]
            annotations.append({"id": len(annotations) + 1, "image_id": image_id,
                                "category_id": CLASS_ID[b["tile"]] + 1,
                                "bbox": [x1, y1, x2 - x1, y2 - y1],
                                "area": (x2 - x1) * (y2 - y1), "iscrowd": 0})
    categories = [{"id": i + 1, "name": name, "supercategory": "tile"} for i, name in enumerate(CLASSES)]
    return {"images": images, "annotations": annotations, "categories": categories}


def write_coco(dataset: list[dict], path: str | Path, image_root: str | Path | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_coco(dataset, image_root)))
    return path
