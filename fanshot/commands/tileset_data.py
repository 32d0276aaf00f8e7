"""A tile-set profile learnt from labelled photos (a YOLO folder): `fanshot tileset learn --data` and
`fanshot tileset eval --data`."""
from __future__ import annotations

from pathlib import Path


def learn_labelled(detector, data: str, list_file: str | None, name: str):
    """The profile `name` of the labelled boxes of the YOLO folder `data` (only the images named in
    `list_file`, when given): every labelled box an example of its tile. Raises ProfileError."""
    import numpy as np

    from datasets.formats import DatasetError, read_yolo
    from datasets.tools import records_in_list
    from vision.tileset.learn import photo_boxes_in_view, profile_from_boxes
    from vision.tileset.profile import ProfileError

    try:
        records = read_yolo(data)
    except DatasetError as exc:
        raise ProfileError(str(exc)) from None
    if list_file:
        records = records_in_list(records, list_file)
    profile = None
    for record in records:
        boxes = [b for b in record["boxes"] if b["tile"]]
        if not boxes:
            continue
        view, view_boxes = photo_boxes_in_view(detector, Path(record["file"]).read_bytes(),
                                               np.array([b["box"] for b in boxes], np.float32),
                                               (record["width"], record["height"]))
        learnt = profile_from_boxes(name, detector.classifier, view, view_boxes, [b["tile"] for b in boxes],
                                    {"kind": "labelled", "file": Path(record["file"]).name})
        profile = learnt if profile is None else profile.merged(learnt)
    if profile is None:
        raise ProfileError(f"{data}: no labelled tiles to learn from")
    return profile
