"""The classifier of an exported model folder in 8-bit integers (`fanshot train quantize`; needs
the `train` extra for onnx).

Static quantization with onnxruntime: weights int8 per output channel in 7 bits (`reduce_range`:
this machine's AVX2 has no VNNI, and its u8 x s8 products saturate at 8 bits), activations uint8,
their ranges (min-max) calibrated on the crops the model's own detector cuts from training photos,
so they are the crops it will see. QOperator format (QLinearConv), every layer. Speed and
accuracy of the shipped quantized classifier: models/MODEL_CARD.md.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np

from vision.decode import ImageError
from vision.detector import Detector
from vision.model_spec import MODEL_JSON
from vision.photo import read_photo

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp"}
CALIBRATION_CROPS = 1000  # crops drawn from those recorded (seeded), 100 per calibration batch


class QuantizeError(ValueError):
    """Bad arguments to `fanshot train quantize`."""


def calibration_images(source: str | Path, count: int, seed: int = 0) -> list[Path]:
    """`count` images drawn (seeded) from `source`: a folder (its images, searched below it) or a
    split list such as a YOLO train.txt (lines relative to the list's folder)."""
    source = Path(source)
    if source.is_dir():
        images = sorted(p for p in source.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    elif source.is_file():
        lines = [line.strip() for line in source.read_text().splitlines() if line.strip()]
        images = [(source.parent / line).resolve() for line in lines]
    else:
        raise QuantizeError(f"{source}: no such folder or list")
    if not images:
        raise QuantizeError(f"{source}: no images")
    return sorted(random.Random(seed).sample(images, min(count, len(images))))


class _Recorder:
    """An onnxruntime session that keeps a copy of every input it runs on."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.inputs: list[np.ndarray] = []

    def run(self, outputs, feed):
        self.inputs.append(next(iter(feed.values())).copy())
        return self.session.run(outputs, feed)


def record_classifier_inputs(detector: Detector, images: list[Path]) -> np.ndarray:
    """The classifier's input crops (N x 3 x H x W float32) as `detector` cuts them while it reads
    `images` (views included)."""
    recorder = _Recorder(detector.classifier.session)
    detector.classifier.session = recorder
    try:
        for path in images:
            try:
                photo = read_photo(path.read_bytes())
                detector.detect(photo.image, photo=photo)
            except (OSError, ImageError) as exc:
                raise QuantizeError(f"{path}: {exc}") from None
    finally:
        detector.classifier.session = recorder.session
    if not recorder.inputs:
        raise QuantizeError("the detector found no tiles in the calibration images")
    return np.concatenate(recorder.inputs)


def quantize_classifier(model_dir: str | Path, sources: list[str | Path], per_source: int = 60,
                        seed: int = 0) -> dict:
    """Replace MODEL_DIR's classifier.onnx by its int8 version calibrated on `per_source` images of
    each source; records how in model.json (classifier.quantized). Returns that record."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if per_source < 1:
        raise QuantizeError(f"--per-source {per_source}: at least one photo from each source")
    model_dir = Path(model_dir)
    detector = Detector(model_dir)  # ModelNotFoundError for a folder with no model
    spec = detector.spec  # model.json as the detector read it (this detector is ours alone)
    if spec["classifier"].get("quantized"):
        raise QuantizeError(f"{model_dir}: the classifier is quantized already")
    images = [image for source in sources for image in calibration_images(source, per_source, seed)]
    crops = record_classifier_inputs(detector, images)
    chosen = crops[np.random.default_rng(seed).permutation(len(crops))[:CALIBRATION_CROPS]]
    classifier = model_dir / spec["classifier"]["file"]
    session_input = detector.classifier.input_name

    class Crops(CalibrationDataReader):
        def __init__(self):
            self.batches = iter(chosen[i:i + 100] for i in range(0, len(chosen), 100))

        def get_next(self):
            batch = next(self.batches, None)
            return None if batch is None else {session_input: batch}

    prepared = classifier.with_suffix(".pre.onnx")
    quantized = classifier.with_suffix(".int8.onnx")
    try:
        quant_pre_process(str(classifier), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(quantized), Crops(), quant_format=QuantFormat.QOperator,
                        per_channel=True, reduce_range=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax)
        quantized.replace(classifier)
    finally:
        prepared.unlink(missing_ok=True)
        quantized.unlink(missing_ok=True)
    record = {
        "format": "int8 QOperator: weights int8 per channel (7 bits), activations uint8 (min-max)",
        "calibration": {"images": len(images), "sources": [str(s) for s in sources],
                        "crops_recorded": int(len(crops)), "crops_used": int(len(chosen)), "seed": seed},
    }
    spec["classifier"]["quantized"] = record
    (model_dir / MODEL_JSON).write_text(json.dumps(spec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return record
