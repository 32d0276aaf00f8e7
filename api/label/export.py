"""Export the labelled images of a folder with the converters of datasets.formats.

- `yolo`: a YOLO dataset (data.yaml with our 43 names, images/, labels/);
- `coco`: one COCO JSON, image names relative to the labelling folder;
- `labelstudio`: Label Studio tasks (JSON), images as local files
  `/data/local-files/?d=<path in the folder>`.

`export_dataset(store, fmt, out)` writes to disk (the CLI); `export_file(store, fmt)`
builds the download for the HTTP route (a zip for YOLO, the JSON otherwise).
"""
from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from api.label.errors import LabelError
from api.label.store import LabelStore

EXPORT_FORMATS = ("yolo", "coco", "labelstudio")


def dataset_records(store: LabelStore, reviewed_only: bool = False) -> list[dict]:
    """The labelled images as datasets.formats records (pixels, our codes, the score kept)."""
    records = []
    for item in store.labelled_items():
        if reviewed_only and not item["reviewed"]:
            continue
        records.append({"file": str(item["file"]), "width": item["width"], "height": item["height"],
                        "boxes": [{"tile": b["tile"], "box": b["box"]} for b in item["boxes"]]})
    if not records:
        raise LabelError("nothing_to_export", "no labelled images in the folder yet", 409)
    return records


def export_dataset(store: LabelStore, fmt: str, out: str | Path, reviewed_only: bool = False) -> Path:
    """Write the labelled set to `out` (a folder for YOLO, a JSON file otherwise)."""
    from datasets.formats import DatasetError, write_dataset

    if fmt not in EXPORT_FORMATS:
        raise LabelError("bad_format", f"format must be one of {', '.join(EXPORT_FORMATS)}", 422)
    records = dataset_records(store, reviewed_only)
    try:
        return write_dataset(records, out, fmt, image_root=store.root)
    except DatasetError as exc:
        raise LabelError("export_failed", str(exc), 409) from exc


def export_file(store: LabelStore, fmt: str, reviewed_only: bool = False) -> tuple[Path, str, str]:
    """(temporary file, media type, download name); the caller deletes the file's folder."""
    workdir = Path(tempfile.mkdtemp(prefix="fanshot-export-"))
    try:
        if fmt == "yolo":
            folder = export_dataset(store, fmt, workdir / "yolo", reviewed_only)
            archive = workdir / "fanshot-yolo.zip"
            with zipfile.ZipFile(archive, "w") as zf:
                for path in sorted(folder.rglob("*")):
                    if path.is_file():
                        method = zipfile.ZIP_DEFLATED if path.suffix in (".txt", ".yaml") else zipfile.ZIP_STORED
                        zf.write(path, path.relative_to(folder).as_posix(), compress_type=method)
            return archive, "application/zip", archive.name
        name = f"fanshot-{fmt}.json"
        path = export_dataset(store, fmt, workdir / name, reviewed_only)
        return path, "application/json", name
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise
