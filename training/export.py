"""Export both trained stages to ONNX and describe them in model.json (needs the `train` extra)."""
from __future__ import annotations

import json
from pathlib import Path

from training.classifier import PAD, export_classifier
from training.finder import export_finder
from vision.classes import CLASSES
from vision.classifier import VIEW_FLIPS
from vision.finder import TURN_ROWS, WINDOW_BELOW, WINDOW_GRID, WINDOW_MIRROR, WINDOW_OVERLAP
from vision.model_spec import MODEL_JSON

FINDER_FILE = "finder.onnx"
CLASSIFIER_FILE = "classifier.onnx"


def export_model(
    finder_checkpoint: str | Path,
    classifier_checkpoint: str | Path,
    out: str | Path,
    imgsz: int,
    provenance: dict | None = None,
    conf: float = 0.25,
    iou: float = 0.55,
    zoom_below: float = 28,
    zoom_min_gain: float = 1.15,
    views: str = "none",
    views_below: float = 1.0,
    mirror_view: bool = False,
    not_a_tile_above: float = 0.5,
    both_turns: tuple[float, float] | None = None,
) -> Path:
    """Write OUT/finder.onnx, OUT/classifier.onnx and OUT/model.json; returns model.json's path."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    export_finder(finder_checkpoint, out / FINDER_FILE, imgsz)
    if views not in VIEW_FLIPS:
        raise ValueError(f"views {views!r}: one of {', '.join(VIEW_FLIPS)}")
    crop_wh, not_a_tile = export_classifier(classifier_checkpoint, out / CLASSIFIER_FILE)
    spec = {
        "format": "fanshot-two-stage-1",
        "classes": CLASSES,
        "finder": {
            "file": FINDER_FILE, "imgsz": imgsz, "conf": conf, "iou": iou, "classes": ["tile"],
            "zoom_below": zoom_below,  # tiles smaller than this (finder pixels): look again, zoomed ...
            "zoom_min_gain": zoom_min_gain,  # ... when the zoomed look shows them at least this much larger
            "mirror_view": mirror_view,  # look at the mirror image too and merge (vision.detector.fuse_views)
            # a wide shot: under this many tiles found, look over windows of the photo (Detector._find_tiles)
            "window_below": WINDOW_BELOW, "window_grid": list(WINDOW_GRID), "window_overlap": WINDOW_OVERLAP,
            "window_mirror": WINDOW_MIRROR,
            "turn_rows": TURN_ROWS,  # a hand running down the photo: read turned a quarter turn
        },
        "classifier": {
            "file": CLASSIFIER_FILE, "input_wh": list(crop_wh), "pad": PAD,
            "views": views,  # flips averaged with a crop (vision.detector.VIEW_FLIPS) ...
            "views_below": views_below,  # ... when its best class is under this probability
            # a box whose width / height is within these, read unsure: read turned a quarter turn and not, averaged
            **({"both_turns": list(both_turns)} if both_turns else {}),
            # a 44th output (vision.classes.NOT_A_TILE): a box it gives this probability or more goes
            **({"not_a_tile_above": not_a_tile_above} if not_a_tile else {}),
        },
        **(provenance or {}),
    }
    path = out / MODEL_JSON
    path.write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
