"""The outputs of a batch, assembled by the driver from the photos' records, sorted by the photos'
names (the same bytes whichever engine wrote the records), each file replaced whole:

- jsonl: DST/results.jsonl, one line per photo read: `{"image": NAME, ...the reader's answer}`;
- yolo: DST/data.yaml, DST/labels/NAME.txt, the photos linked (or copied) as DST/images/NAME;
- coco: DST/coco.json; labelstudio: DST/labelstudio.json, tasks with `predictions`;
- always DST/errors.jsonl: `{"path", "code", "message"}` per photo that could not be read.

NAME is the photo's path below the batch's root (fanshot.batch.photos)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from datasets.formats import write_coco, write_labelstudio, write_yolo
from fanshot.batch.photos import photo_name
from fanshot.batch.records import read_record
from vision.atomic_file import write_atomically

OUTPUT_FILES = {"jsonl": "results.jsonl", "coco": "coco.json", "labelstudio": "labelstudio.json", "yolo": "data.yaml"}
ERRORS_FILE = "errors.jsonl"


@dataclass
class Outputs:
    """What a batch wrote: the photos read and failed, those with no record yet, the files."""

    read: int = 0
    failed: int = 0
    missing: int = 0
    files: list[Path] = field(default_factory=list)


def assemble(dst: Path, root: Path, photos: list[Path], fmt: str, *, model_version: str,
             document_root: Path | None = None) -> Outputs:
    """Write the outputs of `photos` (sorted, as photos.list_photos gives them) in `fmt` and the
    errors file; `document_root`: the folder Label Studio task paths are relative to (default:
    the root's parent, as `fanshot label --export labelstudio`)."""
    outputs = Outputs()
    answers: list[tuple[str, dict]] = []
    errors: list[str] = []
    for photo in photos:
        record = read_record(dst, photo)
        if record is None:
            outputs.missing += 1
        elif record.get("ok") is True:
            answers.append((photo_name(photo, root), record))
        else:
            error = record.get("error") or {}
            errors.append(json.dumps({"path": str(photo), "code": error.get("code"), "message": error.get("message")},
                                     ensure_ascii=False))
    outputs.read, outputs.failed = len(answers), len(errors)
    write_atomically(dst / ERRORS_FILE, "".join(line + "\n" for line in errors))
    outputs.files.append(dst / ERRORS_FILE)
    if fmt == "jsonl":
        lines = [json.dumps({"image": name, **record["result"]}, ensure_ascii=False) for name, record in answers]
        write_atomically(dst / OUTPUT_FILES[fmt], "".join(line + "\n" for line in lines))
        outputs.files.insert(0, dst / OUTPUT_FILES[fmt])
        return outputs
    dataset = [_dataset_record(record) for _, record in answers]
    if fmt == "yolo":
        write_yolo(dataset, dst, copy_images=True, image_root=root)
    else:
        tmp = dst / f".{OUTPUT_FILES[fmt]}.tmp"
        if fmt == "coco":
            write_coco(dataset, tmp, image_root=root)
        else:
            write_labelstudio(dataset, tmp, image_root=document_root or root.parent, as_predictions=True,
                              model_version=model_version)
        os.replace(tmp, dst / OUTPUT_FILES[fmt])
    outputs.files.insert(0, dst / OUTPUT_FILES[fmt])
    return outputs


def _dataset_record(record: dict) -> dict:
    """A detection record as a datasets.formats record (pixels of the photo as shown, scores kept)."""
    result = record["result"]
    return {"file": record["file"], "width": result["width"], "height": result["height"],
            "boxes": [{"tile": d["tile"], "box": d["box"], "score": d["score"]} for d in result["detections"]]}
