"""Read and write tile datasets as YOLO, COCO JSON and Label Studio JSON.

Every format goes through one plain in-memory dataset: a list of records

    {"file": "path/to/img.jpg", "width": 1280, "height": 960,
     "boxes": [{"tile": "B5", "box": [x1, y1, x2, y2]}, ...]}

with boxes in pixels of the image and tiles as our codes (datasets.classmap maps
other tools' class names on reading). Readers set "file" to the image's path on
disk when it can be found, else to the name the format gives. Writers store the
image's name relative to `image_root` when given, else its base name.

    read_yolo(dir) / write_yolo(dataset, dir, copy_images=True)
    read_coco(path, image_dir=None) / write_coco(dataset, path, image_root=None)
    read_labelstudio(path, image_dir=None) / write_labelstudio(dataset, path, ...)
    read_dataset(path, fmt=None) / write_dataset(dataset, path, fmt)

Box coordinates are rounded to 1/100 pixel on reading, so a round trip through
any format gives back the same boxes.
"""
from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import yaml
from PIL import Image

from datasets.classmap import CLASS_ID, CLASSES, ClassMapError, remap_names, to_code

FORMATS = ("yolo", "coco", "labelstudio")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
LABEL_STUDIO_PREFIX = "/data/local-files/?d="


class DatasetError(ValueError):
    """A dataset that cannot be read or written (missing files, bad JSON, unknown classes)."""


def _round(v: float) -> float:
    r = round(float(v), 2)
    return float(int(r)) if r == int(r) else r


def _clean_box(box) -> list[float]:
    return [_round(v) for v in box]


def _numbers(values, count: int, where: str) -> list[float]:
    """`values` as `count` floats; DatasetError naming `where` unless they are that many finite
    numbers (a JSON source's box or size: a string, null, nan or a missing value is refused)."""
    if (isinstance(values, (list, tuple)) and len(values) == count
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)):
        return [float(v) for v in values]
    raise DatasetError(f"{where}: expected {count} numbers, got {values!r:.80}")


_TRANSPOSING_ORIENTATIONS = frozenset((5, 6, 7, 8))  # EXIF orientations that swap width and height
_PNG_LATE_METADATA = frozenset((b"eXIf", b"iTXt", b"tEXt", b"zTXt"))


def image_size(path: str | Path) -> tuple[int, int]:
    """(width, height) of an image file as shown, its EXIF orientation applied the way
    PIL.ImageOps.exif_transpose applies it (the EXIF tag, else an XMP tiff:Orientation). Read from
    the file's header: the pixels are decoded only for a PNG that stores metadata after them."""
    try:
        with Image.open(path) as im:
            width, height = im.size
            orientation = _orientation(im, Path(path))
    except (OSError, ValueError) as exc:
        raise DatasetError(f"cannot read image {path}: {exc}") from exc
    return (height, width) if orientation in _TRANSPOSING_ORIENTATIONS else (width, height)


def _orientation(im: Image.Image, path: Path) -> int:
    try:
        if im.format == "PNG" and "exif" not in im.info and not _png_metadata_after_pixels(path):
            exif = Image.Image.getexif(im)  # what PngImageFile.getexif finds, without its load()
        else:
            exif = im.getexif()
        return int(exif.get(0x0112, 1) or 1)
    except Exception:  # a broken EXIF block: shown as stored (vision.decode does the same)
        return 1


def _png_metadata_after_pixels(path: Path) -> bool:
    """Whether a PNG has an eXIf or text chunk after its first IDAT (PIL reads those only on load)."""
    with open(path, "rb") as f:
        f.seek(8)
        after_pixels = False
        while len(head := f.read(8)) == 8:
            kind = head[4:]
            if kind == b"IEND":
                break
            if kind == b"IDAT":
                after_pixels = True
            elif after_pixels and kind in _PNG_LATE_METADATA:
                return True
            f.seek(int.from_bytes(head[:4], "big") + 4, os.SEEK_CUR)
    return False


def _stored_name(file: str, image_root: str | Path | None) -> str:
    if image_root is not None:
        try:
            return Path(os.path.relpath(Path(file).resolve(), Path(image_root).resolve())).as_posix()
        except ValueError:
            pass
    return Path(file).name


def _check(dataset: list[dict]) -> None:
    for rec in dataset:
        for key in ("file", "width", "height", "boxes"):
            if key not in rec:
                raise DatasetError(f"record without {key!r}: {rec!r:.200}")
        for b in rec["boxes"]:
            if b["tile"] not in CLASS_ID:
                raise DatasetError(f"{rec['file']}: unknown tile code {b['tile']!r}")


# ---------------------------------------------------------------- YOLO

def yolo_class_names(data_yaml: Path) -> list[str]:
    """The class names of a YOLO data.yaml (a list or an {id: name} map), in id order."""
    try:
        data = yaml.safe_load(data_yaml.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise DatasetError(f"cannot read {data_yaml}: {exc}") from exc
    names = data.get("names") if isinstance(data, dict) else None
    if isinstance(names, dict):
        names = [names[k] for k in sorted(names)]
    if not names:
        raise DatasetError(f"{data_yaml} has no class names")
    return [str(n) for n in names]


def read_yolo_label(label: Path, n_classes: int) -> list[tuple[int, tuple[str, str, str, str]]]:
    """The boxes of one YOLO label file (`parse_yolo_lines`, its lines named by the file); no file
    means no boxes."""
    if not label.is_file():
        return []
    return parse_yolo_lines(label.read_text(), n_classes, str(label))


def parse_yolo_lines(text: str, n_classes: int, source: str) -> list[tuple[int, tuple[str, str, str, str]]]:
    """The boxes of YOLO label text, as (class id, the four numbers `cx cy w h`). A box line
    `cls cx cy w h` keeps its numbers as written; a polygon line `cls x1 y1 x2 y2 x3 y3 ...`
    (YOLO segmentation, as Roboflow exports polygon labels) becomes the box around its points,
    clipped to the image. Any other line (a score column would be dropped unsaid; nan and inf
    are not numbers here), or a class id outside 0..n_classes-1, raises DatasetError naming
    `source` and the line."""
    boxes = []
    for n, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls = int(parts[0])
            fields = tuple(parts[1:])
            if not all(math.isfinite(float(v)) for v in fields):  # numbers, or ValueError
                raise ValueError(line)
        except ValueError:
            cls, fields = -1, ()
        polygon = len(fields) >= 6 and len(fields) % 2 == 0
        if not (len(fields) == 4 or polygon) or not 0 <= cls < n_classes:
            raise DatasetError(f"{source}:{n}: bad YOLO line {line!r} (expected 'class cx cy w h' or a "
                               f"polygon 'class x1 y1 x2 y2 x3 y3 ...', class 0-{n_classes - 1})")
        boxes.append((cls, polygon_box(fields) if polygon else (fields[0], fields[1], fields[2], fields[3])))
    return boxes


def polygon_box(fields: tuple[str, ...]) -> tuple[str, str, str, str]:
    """`cx cy w h` (normalised, as text) of the box around a YOLO polygon's points, clipped to 0..1."""
    xs = [min(1.0, max(0.0, float(v))) for v in fields[0::2]]
    ys = [min(1.0, max(0.0, float(v))) for v in fields[1::2]]
    x1, x2, y1, y2 = min(xs), max(xs), min(ys), max(ys)
    cx, cy, w, h = (f"{v:.6f}" for v in ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1))
    return cx, cy, w, h


def read_yolo(directory: str | Path) -> list[dict]:
    """A YOLO folder (data.yaml with names, images/, labels/ with `cls cx cy w h` normalised).
    A record has `ignore` too when the folder has ignore/NAME.txt (the same lines): regions an
    evaluation does not score, such as `fanshot synth`'s strays cut by the frame."""
    root = Path(directory)
    data_yaml = root / "data.yaml"
    if not data_yaml.is_file():
        raise DatasetError(f"{root} is not a YOLO dataset: no data.yaml")
    try:
        codes = remap_names(yolo_class_names(data_yaml))
    except ClassMapError as exc:
        raise DatasetError(f"{data_yaml}: {exc}") from exc
    image_dir = root / "images"
    if not image_dir.is_dir():
        raise DatasetError(f"{root} has no images/ folder")
    dataset = []
    for img in sorted(p for p in image_dir.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES):
        rel = img.relative_to(image_dir)
        label = (root / "labels" / rel).with_suffix(".txt")
        width, height = image_size(img)
        record = {"file": str(img), "width": width, "height": height,
                  "boxes": _yolo_boxes(label, codes, width, height)}
        ignore = _yolo_boxes((root / "ignore" / rel).with_suffix(".txt"), codes, width, height)
        if ignore:
            record["ignore"] = ignore
        dataset.append(record)
    return dataset


def _yolo_boxes(label: Path, codes: list[str], width: int, height: int) -> list[dict]:
    boxes = []
    for cls, fields in read_yolo_label(label, len(codes)):
        cx, cy, w, h = (float(v) for v in fields)
        box = [(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height]
        boxes.append({"tile": codes[cls], "box": _clean_box(box)})
    return boxes


def _place_image(src: str, dst: Path) -> None:
    if dst.exists() and dst.samefile(src):
        return
    if dst.exists():
        dst.unlink()
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def yolo_label_lines(record: dict) -> list[str]:
    """The lines of one YOLO label file (our 43 class ids, normalised centre and size)."""
    w, h = record["width"], record["height"]
    lines = []
    for b in record["boxes"]:
        x1, y1, x2, y2 = b["box"]
        lines.append(f"{CLASS_ID[b['tile']]} {(x1 + x2) / 2 / w:.8f} {(y1 + y2) / 2 / h:.8f} "
                     f"{(x2 - x1) / w:.8f} {(y2 - y1) / h:.8f}")
    return lines


def write_data_yaml(directory: str | Path, extra: dict | None = None) -> Path:
    """data.yaml with our 43 class names (no `path:` key: Ultralytics resolves relative to the file)."""
    data = {"train": "images", "val": "images", "nc": len(CLASSES), "names": list(CLASSES)}
    data.update(extra or {})
    path = Path(directory) / "data.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, default_flow_style=None, allow_unicode=True))
    return path


def write_yolo(dataset: list[dict], directory: str | Path, copy_images: bool = True) -> Path:
    """Write labels/<name>.txt for each record, data.yaml, and (hard-link or copy) images/<name>."""
    _check(dataset)
    root = Path(directory)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    for rec in dataset:
        name = Path(rec["file"]).name
        if name in seen:
            raise DatasetError(f"two images named {name}: YOLO folders need distinct file names")
        seen.add(name)
        if copy_images:
            if not Path(rec["file"]).is_file():
                raise DatasetError(f"image not found: {rec['file']}")
            _place_image(rec["file"], root / "images" / name)
        lines = yolo_label_lines(rec)
        (root / "labels" / Path(name).with_suffix(".txt")).write_text("".join(line + "\n" for line in lines))
    write_data_yaml(root)
    return root


# ---------------------------------------------------------------- COCO

def _load_json(path: str | Path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise DatasetError(f"cannot read JSON {path}: {exc}") from exc


def _resolve_image(name: str, image_dir: Path | None) -> str:
    if image_dir is not None:
        for candidate in (image_dir / name, image_dir / Path(name).name):
            if candidate.is_file():
                return str(candidate)
    return name


def read_coco(path: str | Path, image_dir: str | Path | None = None) -> list[dict]:
    """A COCO detection JSON (bbox = [x, y, w, h] pixels); images resolved against image_dir
    (default: the JSON's folder, then its images/ subfolder)."""
    path = Path(path)
    data = _load_json(path)
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
            resolved = _resolve_image(file, d)
            if resolved != file:
                file = resolved
                break
        size = [im.get("width"), im.get("height")]
        if size == [None, None] and Path(file).is_file():  # some tools leave the size out: the image has it
            size = list(image_size(file))
        width, height = _numbers(size, 2, f"{path}: image {image_id!r} width and height")
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
        x, y, w, h = _numbers(ann.get("bbox"), 4, f"{where}: bbox [x, y, w, h]")
        if w < 0 or h < 0:
            raise DatasetError(f"{where}: bbox {ann['bbox']} has a negative width or height")
        rec["boxes"].append({"tile": cats[category], "box": _clean_box([x, y, x + w, y + h])})
    return [records[i] for i in order]


def _json_id(value, where: str):
    """A JSON id (a number or a string); DatasetError naming `where` for a list, object or null."""
    if isinstance(value, (int, float, str)) and not isinstance(value, bool):
        return value
    raise DatasetError(f"{where} must be a number or a string, not {value!r:.40}")


def to_coco(dataset: list[dict], image_root: str | Path | None = None) -> dict:
    """The COCO dict of a dataset: category id = class id + 1 (0 stays free, as COCO tools expect)."""
    _check(dataset)
    images: list[dict] = []
    annotations: list[dict] = []
    for image_id, rec in enumerate(dataset, 1):
        images.append({"id": image_id, "file_name": _stored_name(rec["file"], image_root),
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


# ---------------------------------------------------------------- Label Studio

def _ls_image_name(url: str) -> str:
    if url.startswith(LABEL_STUDIO_PREFIX):
        url = url[len(LABEL_STUDIO_PREFIX):]
    from urllib.parse import unquote
    return unquote(url)


def read_labelstudio(path: str | Path, image_dir: str | Path | None = None) -> list[dict]:
    """A Label Studio JSON export (tasks with rectanglelabels in percent). Uses the task's first
    non-cancelled annotation, or its first prediction when it has no annotation."""
    path = Path(path)
    tasks = _load_json(path)
    if not isinstance(tasks, list):
        raise DatasetError(f"{path} is not a Label Studio export (expected a list of tasks)")
    dataset = []
    for task in tasks:
        if not isinstance(task, dict) or not isinstance(task.get("data", {}), dict):
            raise DatasetError(f"{path}: a task is not an object with a data object: {task!r:.80}")
        data = task.get("data", {})
        url = data.get("image")
        if not isinstance(url, str) or not url:
            raise DatasetError(f"{path}: task {task.get('id')} has no data.image")
        name = _ls_image_name(url)
        file = _resolve_image(name, Path(image_dir) if image_dir else path.parent)
        where = f"{path}: task {task.get('id')!r:.40}"
        annotations, predictions = task.get("annotations", []), task.get("predictions", [])
        if not all(isinstance(part, list) and all(isinstance(item, dict) for item in part)
                   for part in (annotations, predictions)):
            raise DatasetError(f"{where}: annotations and predictions must be lists of objects")
        results = None
        for ann in annotations:
            if not ann.get("was_cancelled"):
                results = ann.get("result", [])
                break
        if results is None:
            results = predictions[0].get("result", []) if predictions else []
        if not isinstance(results, list) or not all(isinstance(r, dict) for r in results):
            raise DatasetError(f"{where}: result must be a list of objects")
        width = data.get("width")
        height = data.get("height")
        boxes = []
        for r in results:
            if r.get("type") != "rectanglelabels":
                continue
            width, height = _numbers([r.get("original_width", width), r.get("original_height", height)], 2,
                                     f"{where}: original_width and original_height")
            v = r.get("value")
            if not isinstance(v, dict):
                raise DatasetError(f"{where}: a result has no value object")
            if v.get("rotation"):
                raise DatasetError(f"{where}: rotated boxes are not supported")
            labels = v.get("rectanglelabels")
            if not isinstance(labels, list) or not labels:
                raise DatasetError(f"{where}: a box has no rectanglelabels")
            try:
                tile = to_code(str(labels[0]))
            except ClassMapError as exc:
                raise DatasetError(f"{where}: {exc}") from exc
            x, y, w, h = _numbers([v.get("x"), v.get("y"), v.get("width"), v.get("height")], 4,
                                  f"{where}: a box's x, y, width, height (percent)")
            x1, y1 = x * width / 100, y * height / 100
            boxes.append({"tile": tile, "box": _clean_box([x1, y1, x1 + w * width / 100, y1 + h * height / 100])})
        if width is None or height is None:
            if not Path(file).is_file():
                raise DatasetError(f"{where}: no image size and image not found")
            width, height = image_size(file)
        width, height = _numbers([width, height], 2, f"{where}: the image's width and height")
        dataset.append({"file": file, "width": int(width), "height": int(height), "boxes": boxes})
    return dataset


def to_labelstudio(dataset: list[dict], image_root: str | Path | None = None,
                   url_prefix: str = LABEL_STUDIO_PREFIX, as_predictions: bool = False,
                   model_version: str = "fanshot") -> list[dict]:
    """Label Studio tasks; boxes go in `annotations` (or `predictions` for pre-labels)."""
    _check(dataset)
    tasks = []
    for task_id, rec in enumerate(dataset, 1):
        w, h = rec["width"], rec["height"]
        result = []
        for n, b in enumerate(rec["boxes"]):
            x1, y1, x2, y2 = b["box"]
            result.append({
                "id": f"{task_id}_{n}", "type": "rectanglelabels",
                "from_name": "label", "to_name": "image",
                "original_width": w, "original_height": h, "image_rotation": 0,
                "value": {"x": x1 * 100 / w, "y": y1 * 100 / h,
                          "width": (x2 - x1) * 100 / w, "height": (y2 - y1) * 100 / h,
                          "rotation": 0, "rectanglelabels": [b["tile"]]},
            })
            if "score" in b:
                result[-1]["score"] = b["score"]
        task = {"id": task_id,
                "data": {"image": url_prefix + _stored_name(rec["file"], image_root),
                         "width": w, "height": h}}
        if as_predictions:
            task["predictions"] = [{"model_version": model_version, "result": result}]
        else:
            task["annotations"] = [{"id": task_id, "result": result}]
        tasks.append(task)
    return tasks


def write_labelstudio(dataset: list[dict], path: str | Path, image_root: str | Path | None = None,
                      url_prefix: str = LABEL_STUDIO_PREFIX, as_predictions: bool = False) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_labelstudio(dataset, image_root, url_prefix, as_predictions),
                               ensure_ascii=False))
    return path


# ---------------------------------------------------------------- any format

def detect_format(path: str | Path) -> str:
    """'yolo' for a folder with data.yaml, 'coco' for a JSON object, 'labelstudio' for a JSON list."""
    path = Path(path)
    if path.is_dir():
        if (path / "data.yaml").is_file():
            return "yolo"
        raise DatasetError(f"{path}: a folder but not a YOLO dataset (no data.yaml)")
    if not path.is_file():
        raise DatasetError(f"{path}: no such file or folder")
    data = _load_json(path)
    return "labelstudio" if isinstance(data, list) else "coco"


def read_dataset(path: str | Path, fmt: str | None = None, image_dir: str | Path | None = None) -> list[dict]:
    fmt = fmt or detect_format(path)
    if fmt == "yolo":
        return read_yolo(path)
    if fmt == "coco":
        return read_coco(path, image_dir)
    if fmt == "labelstudio":
        return read_labelstudio(path, image_dir)
    raise DatasetError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def write_dataset(dataset: list[dict], path: str | Path, fmt: str, image_root: str | Path | None = None,
                  copy_images: bool = True) -> Path:
    if fmt == "yolo":
        return write_yolo(dataset, path, copy_images=copy_images)
    if fmt == "coco":
        return write_coco(dataset, path, image_root)
    if fmt == "labelstudio":
        return write_labelstudio(dataset, path, image_root)
    raise DatasetError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
