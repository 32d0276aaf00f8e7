"""Label boxes: YOLO text <-> boxes in pixels, and the checks of the boxes a client sends.

A box is `{"tile", "box": [x1, y1, x2, y2], "score"}` in pixels of the image as shown;
the YOLO text is `class cx cy w h` per line, normalised.
"""
from __future__ import annotations

import math

from api.label.errors import LabelError
from vision.classes import CLASS_ID, CLASSES


def boxes_to_yolo(boxes: list[dict], width: int, height: int) -> str:
    """Boxes `{"tile", "box": [x1, y1, x2, y2]}` in pixels -> YOLO txt (normalised, clipped)."""
    lines = []
    for item in boxes:
        x1, y1, x2, y2 = item["box"]
        x1, x2 = sorted((min(max(x1, 0.0), width), min(max(x2, 0.0), width)))
        y1, y2 = sorted((min(max(y1, 0.0), height), min(max(y2, 0.0), height)))
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        w, h = (x2 - x1) / width, (y2 - y1) / height
        lines.append(f"{CLASS_ID[item['tile']]} {cx:.6f} {cy:.6f} {w:.6f} {h:.6f}")
    return "".join(line + "\n" for line in lines)


def yolo_to_boxes(text: str, width: int, height: int, *, source: str = "label file") -> list[dict]:
    """YOLO txt -> boxes in pixels; raises LabelError (422) on a malformed line
    (datasets.formats.parse_yolo_lines, the one reader of YOLO lines)."""
    from datasets.formats import DatasetError, parse_yolo_lines

    try:
        lines = parse_yolo_lines(text, len(CLASSES), source)
    except DatasetError as exc:
        raise LabelError("malformed_label_file", str(exc), 422) from exc
    boxes = []
    for class_id, fields in lines:
        cx, cy, w, h = (float(value) for value in fields)
        boxes.append({
            "tile": CLASSES[class_id],
            "box": [
                round((cx - w / 2) * width, 2), round((cy - h / 2) * height, 2),
                round((cx + w / 2) * width, 2), round((cy + h / 2) * height, 2),
            ],
        })
    return boxes


def readable_boxes(text: str | None, width: int, height: int, source: str) -> tuple[list[dict], list[str]]:
    """The boxes of the lines of a label file that can be read, and warnings: one for each line
    that cannot (another tool's format, a class we do not have; the image still opens, and the
    person sees what saving would drop, undo brings the file back as it was), and one when
    polygons were read as their boxes (saving writes boxes)."""
    boxes, warnings, polygons = [], [], 0
    for n, line in enumerate((text or "").splitlines(), 1):
        if not line.strip():
            continue
        try:
            boxes += yolo_to_boxes(line, width, height, source=source)
        except LabelError:
            warnings.append(f"{source}:{n}: {line.strip()[:80]!r} is not a box of our 43 classes and is left out; "
                            "saving drops it (undo brings it back)")
            continue
        polygons += len(line.split()) > 5
    if polygons:
        warnings.append(f"{source}: {polygons} polygon label(s) shown as the boxes around them; saving writes boxes")
    return boxes, warnings


def is_finite_number(value: object) -> bool:
    """Whether `value` is an int or float (not a bool) that is neither NaN nor infinite nor too
    large for a float: what a score may be."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond any float
        return False


def validate_boxes(boxes: object) -> list[dict]:
    """Client boxes -> clean `{"tile", "box", "score"}` dicts; raises LabelError (422)."""
    if not isinstance(boxes, list):
        raise LabelError("bad_boxes", "'boxes' must be a list", 422)
    clean = []
    for index, item in enumerate(boxes):
        where = f"box {index}"
        if not isinstance(item, dict):
            raise LabelError("bad_boxes", f"{where} is not an object", 422)
        tile = item.get("tile")
        if not isinstance(tile, str) or tile not in CLASS_ID:
            raise LabelError("bad_boxes", f"{where}: unknown tile {tile!r} (one of {', '.join(CLASSES)})", 422)
        box = item.get("box")
        if (
            not isinstance(box, list) or len(box) != 4
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)
            or not all(abs(v) < 1e6 for v in box)  # NaN compares False: refused too
        ):
            raise LabelError("bad_boxes", f"{where}: 'box' must be [x1, y1, x2, y2] in pixels", 422)
        score = item.get("score")
        if score is not None and not is_finite_number(score):
            raise LabelError("bad_boxes", f"{where}: 'score' must be a finite number or null", 422)
        clean.append({"tile": tile, "box": [float(v) for v in box], "score": score})
    return clean


def check_inside(boxes: list[dict], width: int, height: int) -> None:
    """LabelError (422) for a box that keeps no area once clipped to the width x height image (it lies
    outside it, or is a line): its label would be a box of zero width or height."""
    for index, item in enumerate(boxes):
        x1, y1, x2, y2 = item["box"]
        if min(max(x1, x2), width) - max(min(x1, x2), 0) <= 0 or min(max(y1, y2), height) - max(min(y1, y2), 0) <= 0:
            raise LabelError("bad_boxes", f"box {index}: {item['box']} has no area inside the {width}x{height} image",
                             422)


def least_confident_first(boxes: list[dict]) -> list[dict]:
    """Detector boxes by rising score; boxes a person made or checked (score None) last."""
    return sorted(boxes, key=lambda b: (b.get("score") is None, b.get("score") or 0.0))
