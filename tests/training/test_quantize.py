"""`fanshot train quantize` (training.quantize): the classifier of a model folder in 8-bit
integers, calibrated on the crops the folder's own detector cuts. A small float classifier stands
in for a trained one (the shipped one is quantized already)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from training.quantize import QuantizeError, calibration_images, quantize_classifier, record_classifier_inputs  # noqa: E402
from vision.detector import Detector  # noqa: E402
from vision.model_spec import DEFAULT_MODEL_DIR  # noqa: E402

PHOTOS = Path(__file__).resolve().parent.parent / "data" / "detector"


def _float_classifier(path: Path, outputs: int) -> None:
    """conv 3x3 (8) - relu - conv 3x3 stride 2 (16) - relu - global average - linear: random weights."""
    rng = np.random.default_rng(0)
    weights = {
        "w1": rng.normal(0, 0.3, (8, 3, 3, 3)), "b1": rng.normal(0, 0.1, 8),
        "w2": rng.normal(0, 0.2, (16, 8, 3, 3)), "b2": rng.normal(0, 0.1, 16),
        "w3": rng.normal(0, 0.5, (outputs, 16)), "b3": rng.normal(0, 0.1, outputs),
    }
    nodes = [
        helper.make_node("Conv", ["images", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"]),
        helper.make_node("Flatten", ["g"], ["f"]),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "classifier",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["n", 3, 64, 48])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", outputs])],
        [numpy_helper.from_array(v.astype(np.float32), k) for k, v in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))


@pytest.fixture
def model_dir(tmp_path):
    if not (DEFAULT_MODEL_DIR / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(DEFAULT_MODEL_DIR / "finder.onnx", folder)
    spec = json.loads((DEFAULT_MODEL_DIR / "model.json").read_text(encoding="utf-8"))
    spec["classifier"].pop("quantized", None)
    (folder / "model.json").write_text(json.dumps(spec), encoding="utf-8")
    _float_classifier(folder / spec["classifier"]["file"], 44 if "not_a_tile_above" in spec["classifier"] else 43)
    return folder


def test_calibration_images_come_from_a_folder_or_a_split_list(tmp_path):
    folder = tmp_path / "photos"
    (folder / "deeper").mkdir(parents=True)
    for name in ("a.jpg", "b.png", "deeper/c.JPG", "notes.txt"):
        (folder / name).write_bytes(b"x")
    assert [p.name for p in calibration_images(folder, 10)] == ["a.jpg", "b.png", "c.JPG"]
    assert len(calibration_images(folder, 2)) == 2
    assert calibration_images(folder, 2, seed=1) == calibration_images(folder, 2, seed=1)
    listing = tmp_path / "train.txt"
    listing.write_text("./photos/a.jpg\n\nphotos/deeper/c.JPG\n")
    assert calibration_images(listing, 10) == [(folder / "a.jpg").resolve(), (folder / "deeper" / "c.JPG").resolve()]
    with pytest.raises(QuantizeError, match="no such folder"):
        calibration_images(tmp_path / "missing", 5)
    (tmp_path / "empty").mkdir()
    listing.write_text("photos/a.jpg\n")  # not a photo: said, with its path
    with pytest.raises(QuantizeError, match="a.jpg"):
        record_classifier_inputs(Detector(DEFAULT_MODEL_DIR, threads=1), calibration_images(listing, 5))
    listing.write_text("photos/gone.jpg\n")
    with pytest.raises(QuantizeError, match="gone.jpg"):
        record_classifier_inputs(Detector(DEFAULT_MODEL_DIR, threads=1), calibration_images(listing, 5))
    with pytest.raises(QuantizeError, match="no images"):
        calibration_images(tmp_path / "empty", 5)


def test_the_quantized_classifier_names_the_crops_as_the_float_one(model_dir):
    float_detector = Detector(model_dir, threads=1)
    photos = sorted(PHOTOS.glob("*.jpg"))
    crops = record_classifier_inputs(float_detector, photos[:2])
    assert crops.ndim == 4 and crops.shape[1:] == (3, 64, 48) and len(crops) >= 20
    before = float_detector.classifier._class_probabilities(crops)
    size = (model_dir / "classifier.onnx").stat().st_size

    record = quantize_classifier(model_dir, [PHOTOS], per_source=3)
    assert record["calibration"]["images"] == 3 and record["calibration"]["crops_used"] > 0
    assert json.loads((model_dir / "model.json").read_text())["classifier"]["quantized"] == record
    quantized = onnx.load(str(model_dir / "classifier.onnx"))
    assert {"QLinearConv", "QuantizeLinear"} <= {n.op_type for n in quantized.graph.node}
    assert (model_dir / "classifier.onnx").stat().st_size < size
    assert sorted(p.name for p in model_dir.iterdir()) == ["classifier.onnx", "finder.onnx", "model.json"]

    after = Detector(model_dir, threads=1).classifier._class_probabilities(crops)
    assert after.shape == before.shape
    assert np.abs(after - before).max() < 0.1  # probabilities, not just the best class (measured 0.04)
    assert (after.argmax(axis=1) == before.argmax(axis=1)).mean() >= 0.9
    with pytest.raises(QuantizeError, match="at least one photo"):
        quantize_classifier(model_dir, [PHOTOS], per_source=0)
    with pytest.raises(QuantizeError, match="quantized already"):
        quantize_classifier(model_dir, [PHOTOS], per_source=3)
