"""Export the labelled images of a folder with the converters of datasets.formats.

- `yolo`: a YOLO dataset (data.yaml with our 43 names, images/, labels/);
- `coco`: one COCO JSON, image names relative to the labelling folder;
- `labelstudio`: Label Studio tasks (JSON), images as local files
  `/data/local-files/?d=<path in the folder>`.

`export_dataset(store, fmt, out)` writes to disk (the CLI); `export_file(store, fmt)`
builds the download for the HTTP route (a zip for YOLO, the JSON otherwise). Label files
that link out of the folder are skipped and named: logged by `export_dataset`, and
returned by `export_file` for the answer's X-Fanshot-Warnings header.
"""
from __future__ import annotations

import logging
import shutil
import tempfile
import zipfile
from pathlib import Path

from api.label.errors import LabelError
from api.label.store import LabelStore

EXPORT_FORMATS = ("yolo", "coco", "labelstudio")
log = logging.getLogger("fanshot.label")


def dataset_records(store: LabelStore, reviewed_only: bool = False) -> tuple[list[dict], list[str]]:
    """The labelled images as datasets.formats records (pixels, our codes, the score kept), and
    warnings naming the label files skipped."""
    records = []
    items, warnings = store.labelled_items()
    for item in items:
        if reviewed_only and not item["reviewed"]:
            continue
        records.append({"file": str(item["file"]), "width": item["width"], "height": item["height"],
                        "boxes": [{"tile": b["tile"], "box": b["box"]} for b in item["boxes"]]})
    if not records:
        skipped = f" ({'; '.join(warnings)})" if warnings else ""
        raise LabelError("nothing_to_export", f"no labelled images in the folder yet{skipped}", 409)
    return records, warnings


def export_dataset(store: LabelStore, fmt: str, out: str | Path, reviewed_only: bool = False,
                   image_root: Path | None = None) -> Path:
    """Write the labelled set to `out` (a folder for YOLO, a JSON file otherwise), image names
    relative to `image_root` (default: the folder); logs a warning for each label file skipped."""
    path, warnings = _export(store, fmt, out, reviewed_only, image_root)
    for warning in warnings:
        log.warning("fanshot label: %s", warning)
    return path


def _export(store: LabelStore, fmt: str, out: str | Path, reviewed_only: bool,
            image_root: Path | None = None) -> tuple[Path, list[str]]:
    from datasets.formats import DatasetError, write_dataset

    if fmt not in EXPORT_FORMATS:
        raise LabelError("bad_format", f"format must be one of {', '.join(EXPORT_FORMATS)}", 422)
    records, warnings = dataset_records(store, reviewed_only)
    try:
        return write_dataset(records, out, fmt, image_root=image_root or store.root), warnings
    except DatasetError as exc:
        raise LabelError("export_failed", str(exc), 409) from exc


def export_file(store: LabelStore, fmt: str, reviewed_only: bool = False) -> tuple[Path, str, str, list[str]]:
    """(temporary file, media type, download name, warnings: label files skipped); the caller
    deletes the file's folder."""
    workdir = Path(tempfile.mkdtemp(prefix="fanshot-export-"))
    try:
        if fmt == "yolo":
            folder, warnings = _export(store, fmt, workdir / "yolo", reviewed_only)
            archive = workdir / "fanshot-yolo.zip"
            with zipfile.ZipFile(archive, "w") as zf:
                for path in sorted(folder.rglob("*")):
                    if path.is_file():
                        method = zipfile.ZIP_DEFLATED if path.suffix in (".txt", ".yaml") else zipfile.ZIP_STORED
                        zf.write(path, path.relative_to(folder).as_posix(), compress_type=method)
            return archive, "application/zip", archive.name, warnings
        name = f"fanshot-{fmt}.json"
        path, warnings = _export(store, fmt, workdir / name, reviewed_only)
        return path, "application/json", name, warnings
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
