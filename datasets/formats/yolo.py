"""YOLO datasets: a folder with data.yaml (or classes.txt), images/ and labels/ (one line per box, normalised xywh)."""
from __future__ import annotations

import math
from pathlib import Path

import yaml

from datasets.classmap import CLASS_ID, CLASSES, ClassMapError, remap_names
from datasets.formats.records import (
    IMAGE_SUFFIXES,
    DatasetError,
    ImageNotFoundError,
    check_records,
    clean_box,
    image_size,
    place_image,
    stored_name,
)


def yolo_names_file(root: Path) -> Path | None:
    """Where a YOLO folder names its classes: data.yaml, else classes.txt (Label Studio's and
    X-AnyLabeling's exports: one name a line, the line number is the class id)."""
    return next((root / name for name in ("data.yaml", "classes.txt") if (root / name).is_file()), None)


def yolo_class_names(data_yaml: Path) -> list[str]:
    """The class names of a YOLO data.yaml (a list or an {id: name} map) or classes.txt, in id order."""
    if data_yaml.suffix == ".txt":
        try:
            lines = [line.strip() for line in data_yaml.read_text().splitlines()]
        except (OSError, UnicodeDecodeError) as exc:
            raise DatasetError(f"cannot read {data_yaml}: {exc}") from exc
        while lines and not lines[-1]:
            lines.pop()
        if not lines or not all(lines):
            raise DatasetError(f"{data_yaml}: expected one class name a line")
        return lines
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


def read_yolo(directory: str | Path, image_dir: str | Path | None = None) -> list[dict]:
    """A YOLO folder (data.yaml or classes.txt with names, images/, labels/ with `cls cx cy w h`
    normalised). A folder whose images/ is empty (Label Studio's YOLO export without images) is
    read with `image_dir`: each label's image is the file of the same name below it.
    A record has `ignore` too when the folder has ignore/NAME.txt (the same lines): regions an
    evaluation does not score, such as `fanshot synth`'s strays cut by the frame."""
    root = Path(directory)
    names_file = yolo_names_file(root)
    if names_file is None:
        raise DatasetError(f"{root} is not a YOLO dataset: no data.yaml or classes.txt")
    try:
        codes = remap_names(yolo_class_names(names_file))
    except ClassMapError as exc:
        raise DatasetError(f"{names_file}: {exc}") from exc
    images = root / "images"
    if not images.is_dir():
        raise DatasetError(f"{root} has no images/ folder")
    pairs = [(img, img.relative_to(images)) for img in sorted(images.rglob("*"))
             if img.suffix.lower() in IMAGE_SUFFIXES]
    if not pairs and (root / "labels").is_dir():
        pairs = _images_of_labels(root / "labels", image_dir)
    dataset = []
    for img, rel in pairs:
        label = (root / "labels" / rel).with_suffix(".txt")
        width, height = image_size(img)
        record = {"file": str(img), "width": width, "height": height,
                  "boxes": _yolo_boxes(label, codes, width, height)}
        ignore = _yolo_boxes((root / "ignore" / rel).with_suffix(".txt"), codes, width, height)
        if ignore:
            record["ignore"] = ignore
        dataset.append(record)
    return dataset


def _images_of_labels(labels: Path, image_dir: str | Path | None) -> list[tuple[Path, Path]]:
    """(image, label path relative to labels/) for each label file, its image found by name below
    `image_dir`; DatasetError naming what is missing."""
    files = sorted(labels.rglob("*.txt"))
    if not files:
        return []
    if image_dir is None:
        raise DatasetError(f"{labels.parent}: labels/ but no images in images/: give the images' folder with "
                           "--images (for Label Studio: its media folder, or export 'YOLO with images')")
    found: dict[str, Path] = {}
    for img in sorted(Path(image_dir).rglob("*")):
        if img.suffix.lower() in IMAGE_SUFFIXES:
            found.setdefault(img.stem, img)
    pairs = []
    for label in files:
        if label.stem not in found:
            raise DatasetError(f"{label}: no image named {label.stem}.* below {image_dir}")
        pairs.append((found[label.stem], label.relative_to(labels)))
    return pairs


def _yolo_boxes(label: Path, codes: list[str], width: int, height: int) -> list[dict]:
    boxes = []
    for cls, fields in read_yolo_label(label, len(codes)):
        cx, cy, w, h = (float(v) for v in fields)
        box = [(cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height]
        boxes.append({"tile": codes[cls], "box": clean_box(box)})
    return boxes


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


def write_yolo(dataset: list[dict], directory: str | Path, copy_images: bool = True,
               image_root: str | Path | None = None) -> Path:
    """Write labels/<name>.txt for each record, data.yaml, and (hard-link or copy) images/<name>.
    <name> is the image's base name, or with `image_root` its path below that folder (subfolders
    kept, as read_yolo reads them back)."""
    check_records(dataset)
    root = Path(directory)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    for rec in dataset:
        name = stored_name(rec["file"], image_root) if image_root is not None else Path(rec["file"]).name
        if name in seen:
            raise DatasetError(f"two images named {name}: YOLO folders need distinct file names")
        if name.startswith("../") or Path(name).is_absolute():
            raise DatasetError(f"{rec['file']} is not below {image_root}")
        seen.add(name)
        label = root / "labels" / Path(name).with_suffix(".txt")
        label.parent.mkdir(parents=True, exist_ok=True)
        if copy_images:
            if not Path(rec["file"]).is_file():
                raise ImageNotFoundError(f"image not found: {rec['file']}")
            (root / "images" / name).parent.mkdir(parents=True, exist_ok=True)
            place_image(rec["file"], root / "images" / name)
        lines = yolo_label_lines(rec)
        label.write_text("".join(line + "\n" for line in lines))
    write_data_yaml(root)
    return root
