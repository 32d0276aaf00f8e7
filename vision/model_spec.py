"""The detector's model folder: models/model.json and its two ONNX networks, and their sessions."""
from __future__ import annotations

import json
from pathlib import Path

from vision.classes import CLASSES

DEFAULT_MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
MODEL_JSON = "model.json"
DEFAULT_THREADS = 2  # onnxruntime threads per detection (a command detecting one photo at a time)


class ModelNotFoundError(RuntimeError):
    """models/ holds no usable detector (not trained or not committed yet)."""

    code = "model_not_found"


def read_model_spec(model_dir: str | Path | None = None) -> tuple[Path, dict]:
    """A model folder (default: the shipped models/) and its model.json, checked without loading
    the networks: the 43 classes of DESIGN.md, both network files there. Raises ModelNotFoundError."""
    model_dir = Path(model_dir) if model_dir else DEFAULT_MODEL_DIR
    spec_path = model_dir / MODEL_JSON
    if not spec_path.is_file():
        raise ModelNotFoundError(
            f"no detector model in {model_dir} ({MODEL_JSON} is missing); "
            "train one with `fanshot train` or restore models/ from git"
        )
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    if list(spec["classes"]) != CLASSES:
        raise ModelNotFoundError(f"{spec_path}: its class list is not the 43 classes of DESIGN.md")
    for part in (spec["finder"], spec["classifier"]):
        if not (model_dir / part["file"]).is_file():
            raise ModelNotFoundError(f"{model_dir / part['file']} is missing")
    return model_dir, spec


def onnx_session(path: Path, threads: int):
    """A CPU onnxruntime session on `threads` threads whose idle threads sleep between calls."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle worker threads sleep instead of spinning: under concurrent requests a spinning
    # thread burns the core another request's detection is waiting for.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
