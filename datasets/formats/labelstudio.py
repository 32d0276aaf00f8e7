"""Label Studio JSON tasks (rectanglelabels in percent of the image)."""
from __future__ import annotations

import json
from pathlib import Path

from datasets.classmap import ClassMapError, to_code
from datasets.formats.records import (
    LABEL_STUDIO_PREFIX,
    DatasetError,
    check_records,
    clean_box,
    image_size,
    load_json,
    numbers,
    resolve_image,
    stored_name,
)


def _ls_image_name(url: str) -> str:
    """The file a task's image URL names: the path of a local file, or `upload/1/x.jpg` of a
    Label Studio upload (`/data/upload/1/x.jpg`, found under Label Studio's media folder)."""
    from urllib.parse import unquote, urlsplit

    if url.startswith(LABEL_STUDIO_PREFIX):
        return unquote(url[len(LABEL_STUDIO_PREFIX):])
    path = unquote(urlsplit(url).path) if "://" in url else unquote(url)
    return path[len("/data/"):] if path.startswith("/data/") else path


def _min_task(item: dict) -> dict:
    """A JSON_MIN record (`{"image": URL, "id", "<from_name>": [{x, y, ..., "rectanglelabels"}],
    "annotator", ...}`) as a full task with one annotation."""
    result = []
    for key, value in item.items():
        if isinstance(value, list) and any(isinstance(v, dict) and "rectanglelabels" in v for v in value):
            for v in value:
                if isinstance(v, dict) and "rectanglelabels" in v:
                    box = {k: v[k] for k in ("x", "y", "width", "height", "rotation", "rectanglelabels") if k in v}
                    result.append({"type": "rectanglelabels", "from_name": key, "value": box,
                                   **{k: v[k] for k in ("original_width", "original_height") if k in v}})
    data = {k: v for k, v in item.items() if isinstance(v, str)}
    return {"id": item.get("id"), "data": data, "annotations": [{"result": result}]}


def read_labelstudio(path: str | Path, image_dir: str | Path | None = None) -> list[dict]:
    """A Label Studio export: JSON (tasks with rectanglelabels in percent) or JSON_MIN (one flat
    record per task). Uses the task's first non-cancelled annotation, or its first prediction
    when it has no annotation (predictions exported as ids are left aside)."""
    path = Path(path)
    tasks = load_json(path)
    if not isinstance(tasks, list):
        raise DatasetError(f"{path} is not a Label Studio export (expected a list of tasks)")
    dataset = []
    for task in tasks:
        if isinstance(task, dict) and "data" not in task and isinstance(task.get("image"), str):
            task = _min_task(task)
        if not isinstance(task, dict) or not isinstance(task.get("data", {}), dict):
            raise DatasetError(f"{path}: a task is not an object with a data object: {task!r:.80}")
        data = task.get("data", {})
        url = data.get("image")
        if not isinstance(url, str) or not url:
            raise DatasetError(f"{path}: task {task.get('id')} has no data.image")
        name = _ls_image_name(url)
        file = resolve_image(name, Path(image_dir) if image_dir else path.parent)
        where = f"{path}: task {task.get('id')!r:.40}"
        annotations, predictions = task.get("annotations", []), task.get("predictions", [])
        if not isinstance(predictions, list):
            raise DatasetError(f"{where}: predictions must be a list")
        # Label Studio's JSON export lists a task's predictions by id: only objects carry boxes.
        predictions = [p for p in predictions if not isinstance(p, int) or isinstance(p, bool)]
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
            width, height = _result_size(r, width, height, file, where, image_dir)
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
            x, y, w, h = numbers([v.get("x"), v.get("y"), v.get("width"), v.get("height")], 4,
                                  f"{where}: a box's x, y, width, height (percent)")
            x1, y1 = x * width / 100, y * height / 100
            boxes.append({"tile": tile, "box": clean_box([x1, y1, x1 + w * width / 100, y1 + h * height / 100])})
        if width is None or height is None:
            if not Path(file).is_file():
                raise DatasetError(f"{where}: no image size and image {name!r} not found{_images_hint(image_dir)}")
            width, height = image_size(file)
        width, height = numbers([width, height], 2, f"{where}: the image's width and height")
        dataset.append({"file": file, "width": int(width), "height": int(height), "boxes": boxes})
    return dataset


def _images_hint(image_dir: str | Path | None) -> str:
    where = f" in {image_dir}" if image_dir else " next to the JSON"
    return (f"{where}: give the images' folder with --images (for Label Studio uploads: its media folder, "
            "~/.local/share/label-studio/media by default)")


def _result_size(r: dict, width, height, file: str, where: str, image_dir) -> tuple[float, float]:
    """The image size of a result: its original_width/height (JSON_MIN may leave them out), else
    the task's, else the image file's."""
    size = [r.get("original_width", width), r.get("original_height", height)]
    if "original_width" not in r and "original_height" not in r and (width is None or height is None):
        if not Path(file).is_file():
            raise DatasetError(f"{where}: no image size and image {file!r} not found{_images_hint(image_dir)}")
        size = list(image_size(file))
    w, h = numbers(size, 2, f"{where}: original_width and original_height")
    return w, h


def label_config(labels: list[str] | None = None) -> str:
    """The Label Studio labelling interface for our classes: an Image `$image` and one
    RectangleLabels `label` with every class (Fanshot's /labelstudio backend reads both names)."""
    from datasets.classmap import CLASSES

    colours = {"W": "#d62728", "T": "#2ca02c", "B": "#1f77b4", "F": "#9467bd", "J": "#ff7f0e", "H": "#e377c2"}
    lines = [f'    <Label value="{code}" background="{colours.get(code[0], "#7f7f7f")}"/>'
             for code in (labels or CLASSES)]
    return ('<View>\n  <Image name="image" value="$image" zoom="true" zoomControl="true"/>\n'
            '  <RectangleLabels name="label" toName="image" strokeWidth="2" opacity="0.3">\n'
            + "\n".join(lines) + "\n  </RectangleLabels>\n</View>\n")


def to_labelstudio(dataset: list[dict], image_root: str | Path | None = None,
                   url_prefix: str = LABEL_STUDIO_PREFIX, as_predictions: bool = False,
                   model_version: str = "fanshot") -> list[dict]:
    """Label Studio tasks; boxes go in `annotations` (or `predictions` for pre-labels)."""
    check_records(dataset)
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
                "data": {"image": url_prefix + stored_name(rec["file"], image_root),
                         "width": w, "height": h}}
        if as_predictions:
            # the prediction's score is its least sure box's (as /labelstudio's), so Label Studio
            # can sort the doubtful tasks first
            scores = [b["score"] for b in rec["boxes"] if "score" in b]
            task["predictions"] = [{"model_version": model_version, "result": result,
                                    "score": min(scores) if scores else 0.0}]
        else:
            task["annotations"] = [{"id": task_id, "result": result}]
        tasks.append(task)
    return tasks


def write_labelstudio(dataset: list[dict], path: str | Path, image_root: str | Path | None = None,
                      url_prefix: str = LABEL_STUDIO_PREFIX, as_predictions: bool = False,
                      model_version: str = "fanshot") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_labelstudio(dataset, image_root, url_prefix, as_predictions, model_version),
                               ensure_ascii=False))
    return path
