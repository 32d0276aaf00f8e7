"""Hard crops for the classifier (`fanshot train hard-crops`, the `train` extra): the crops of
crop files that a trained classifier names wrong, or right with less than UNSURE_BELOW, gathered
into one NPZ that the next run draws more often.

A stray cut by the frame may show too little to name it: with its dataset (`--data`, the folder
the crops were cut from, its records in the crops' order) a crop of a stray whose box touches the
frame is never a hard crop. Sets that keep such strays as ignore regions (ignore/) have no such crops.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

UNSURE_BELOW = 0.6  # a crop named right with less than this probability is a hard crop too
FRAME_MARGIN = 1  # a box within this many pixels of the photo's edge touches the frame


def hard(probabilities: np.ndarray, labels: np.ndarray, unsure_below: float = UNSURE_BELOW) -> np.ndarray:
    """Which crops are hard: named wrong, or right with a probability under `unsure_below`."""
    right = probabilities[np.arange(len(labels)), labels]
    return (probabilities.argmax(axis=1) != labels) | (right < unsure_below)


def cut_strays(records_dir: Path) -> np.ndarray:
    """For each labelled box of a `fanshot synth` folder's records (in file order, as `train crops`
    cut them), whether it is a stray touching the frame."""
    cut = []
    for path in sorted(Path(records_dir).glob("*.json")):
        record = json.loads(path.read_text())
        width, height = record["width"], record["height"]
        for box in record["boxes"]:
            if box.get("ignore"):
                continue  # not in labels/: no crop was cut
            x1, y1, x2, y2 = box["box"]
            cut.append(box["role"] == "stray" and (min(x1, y1) <= FRAME_MARGIN or x2 >= width - FRAME_MARGIN
                                                   or y2 >= height - FRAME_MARGIN))
    return np.asarray(cut, bool)


def class_probabilities(checkpoint: str | Path, contexts: np.ndarray, threads: int = 2) -> np.ndarray:
    """A classifier checkpoint's class probabilities for context crops (the crop the detector
    would cut for the exact box, as validation reads them)."""
    import torch

    from training.classifier import input_wh, load_classifier, probabilities

    torch.set_num_threads(threads)
    model, arch = load_classifier(checkpoint)
    return probabilities(model, contexts, input_wh(arch))


def save_hard_crops(crop_files: list[str], data_dirs: list[str] | None, checkpoint: str | Path, out: str | Path,
                    unsure_below: float = UNSURE_BELOW) -> dict:
    """Write the hard crops of `crop_files` into `out` (NPZ: crops, labels); returns counts."""
    if data_dirs and len(data_dirs) != len(crop_files):
        raise ValueError("give one --data folder for each --crops file, or none")
    kept_crops, kept_labels, counts = [], [], {}
    for k, path in enumerate(crop_files):
        with np.load(path) as npz:
            contexts, labels = npz["crops"], npz["labels"]
        chosen = hard(class_probabilities(checkpoint, contexts), labels, unsure_below)
        if data_dirs:
            cut = cut_strays(Path(data_dirs[k]) / "records")
            if len(cut) != len(labels):
                raise ValueError(f"{data_dirs[k]}: {len(cut)} labelled boxes, {path}: {len(labels)} crops: "
                                 "not the folder these crops were cut from")
            chosen &= ~cut
        kept_crops.append(contexts[chosen])
        kept_labels.append(labels[chosen])
        counts[str(path)] = {"crops": int(len(labels)), "hard": int(chosen.sum())}
    np.savez(out, crops=np.concatenate(kept_crops), labels=np.concatenate(kept_labels))
    return counts
