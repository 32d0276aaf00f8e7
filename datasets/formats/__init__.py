"""Read and write tile datasets as YOLO, COCO JSON and Label Studio JSON.

Every format goes through one plain in-memory dataset: a list of records

    {"file": "path/to/img.jpg", "width": 1280, "height": 960,
     "boxes": [{"tile": "B5", "box": [x1, y1, x2, y2]}, ...]}

with boxes in pixels of the image and tiles as our codes (datasets.classmap maps
other tools' class names on reading). Readers set "file" to the image's path on
disk when it can be found, else to the name the format gives. Writers store the
image's name relative to `image_root` when given, else its base name.

    read_yolo(dir, image_dir=None) / write_yolo(dataset, dir, copy_images=True)   (names: data.yaml or classes.txt)
    read_coco(path, image_dir=None) / write_coco(dataset, path, image_root=None)
    read_labelstudio(path, image_dir=None) / write_labelstudio(dataset, path, ...)
    read_dataset(path, fmt=None) / write_dataset(dataset, path, fmt)

Box coordinates are rounded to 1/100 pixel on reading, so a round trip through
any format gives back the same boxes.
"""
from __future__ import annotations

from pathlib import Path

from datasets.formats.coco import read_coco, to_coco, write_coco
from datasets.formats.labelstudio import label_config, read_labelstudio, to_labelstudio, write_labelstudio
from datasets.formats.records import (
    FORMATS,
    IMAGE_SUFFIXES,
    LABEL_STUDIO_PREFIX,
    DatasetError,
    ImageNotFoundError,
    image_size,
    load_json,
)
from datasets.formats.yolo import (
    parse_yolo_lines,
    polygon_box,
    read_yolo,
    read_yolo_label,
    write_data_yaml,
    write_yolo,
    yolo_class_names,
    yolo_label_lines,
    yolo_names_file,
)

__all__ = [
    "DatasetError",
    "FORMATS",
    "IMAGE_SUFFIXES",
    "ImageNotFoundError",
    "LABEL_STUDIO_PREFIX",
    "detect_format",
    "image_size",
    "parse_yolo_lines",
    "polygon_box",
    "read_coco",
    "read_dataset",
    "read_labelstudio",
    "read_yolo",
    "read_yolo_label",
    "to_coco",
    "to_labelstudio",
    "write_coco",
    "write_data_yaml",
    "write_dataset",
    "write_labelstudio",
    "write_yolo",
    "yolo_class_names",
    "yolo_label_lines",
    "yolo_names_file",
    "label_config",
]


def detect_format(path: str | Path) -> str:
    """'yolo' for a folder with data.yaml or classes.txt, 'coco' for a JSON object, 'labelstudio' for a JSON list."""
    path = Path(path)
    if path.is_dir():
        if yolo_names_file(path) is not None:
            return "yolo"
        raise DatasetError(f"{path}: a folder but not a YOLO dataset (no data.yaml or classes.txt)")
    if not path.is_file():
        raise DatasetError(f"{path}: no such file or folder")
    data = load_json(path)
    return "labelstudio" if isinstance(data, list) else "coco"


def read_dataset(path: str | Path, fmt: str | None = None, image_dir: str | Path | None = None) -> list[dict]:
    fmt = fmt or detect_format(path)
    if fmt == "yolo":
        return read_yolo(path, image_dir)
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
