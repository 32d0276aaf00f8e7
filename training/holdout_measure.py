"""Measurements of the leave-one-style-out protocol (training.style_holdout): how a network trained
without an art family reads that family's crops, alone and with a profile of one layout photo.

Per network: the classifier alone (argmax over the 43 classes), the nearest example of the
profile (each crop's best cosine against the examples `vision.tileset.learn.example_embeddings`
cuts from the layout photo, 22 per tile) and the two blended as a tile-set profile blends them
(`vision.tileset.apply.apply_profile`, its shipped settings). And the cost: the network exported
to ONNX (logits and features) and timed with onnxruntime per crop and per photo of 34 crops.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from training.crops import centre_crop
from vision.classes import CLASSES, NOT_A_TILE
from vision.classifier import crop_blob
from vision.tileset.apply import apply_profile
from vision.tileset.learn import example_embeddings

PAD = 0.08  # the box grown by this share, as the shipped classifier's crops (model.json classifier.pad)
PHOTO_CROPS = 34  # the crops of one photo of a hand (bench-detect's photos: 133 boxes in 4 photos)


@dataclass(frozen=True)
class Readings:
    """Shares of crops named right: the classifier alone, the profile's nearest example, the blend."""

    alone: float
    nearest: float
    blended: float
    crops: int


def readings(probs: np.ndarray, blended: np.ndarray, nearest: np.ndarray, labels: np.ndarray) -> Readings:
    """`probs`/`blended` (N, 43 or 44) probabilities before/after the profile, `nearest` (N,) each
    crop's nearest example's class id, `labels` (N,) the truth; "not a tile" is never an answer
    (every crop here is a tile)."""
    n = len(labels)
    if n == 0:
        raise ValueError("no crops to measure")
    return Readings(
        alone=float((probs[:, :NOT_A_TILE].argmax(1) == labels).mean()),
        nearest=float((nearest == labels).mean()),
        blended=float((blended[:, :NOT_A_TILE].argmax(1) == labels).mean()),
        crops=n,
    )


def steps_for_budget(seconds: float, seconds_per_step: float, steps_per_epoch: int) -> int:
    """Whole epochs of `steps_per_epoch` steps that fit in `seconds` at `seconds_per_step` (at least one)."""
    if seconds_per_step <= 0 or steps_per_epoch <= 0:
        raise ValueError("seconds per step and steps per epoch must be positive")
    return max(1, int(seconds / seconds_per_step) // steps_per_epoch)


def penultimate(model, x):
    """The penultimate layer of a classifier: `features` of a network that has one (EfficientNet:
    its pooled head), else the compact CNN's flattened last map (everything before dropout and
    the last linear layer)."""
    return model.features(x) if hasattr(model, "features") else model[:-2](x)


class TorchEmbedder:
    """What `vision.tileset.learn.example_embeddings` uses of a TileClassifier, for a torch model:
    the crop size and pad, and `embed(blob) -> features`."""

    def __init__(self, model, input_wh: tuple[int, int], pad: float = PAD):
        self.model, (self.crop_w, self.crop_h), self.crop_pad = model, input_wh, pad

    def embed(self, blob: np.ndarray) -> np.ndarray:
        import torch

        self.model.eval()
        with torch.no_grad():
            return np.concatenate([penultimate(self.model, torch.from_numpy(blob[i:i + 512])).numpy()
                                   for i in range(0, len(blob), 512)])

    def probabilities(self, blob: np.ndarray) -> np.ndarray:
        import torch

        self.model.eval()
        with torch.no_grad():
            return np.concatenate([torch.softmax(self.model(torch.from_numpy(blob[i:i + 512])), 1).numpy()
                                   for i in range(0, len(blob), 512)])


class OnnxEmbedder:
    """The same for a classifier in ONNX with `logits` and `features` outputs (the shipped one)."""

    def __init__(self, path: Path, input_wh: tuple[int, int], pad: float = PAD):
        import onnxruntime as ort

        self.session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        (self.crop_w, self.crop_h), self.crop_pad = input_wh, pad

    def _run(self, blob: np.ndarray, output: str) -> np.ndarray:
        return np.concatenate([self.session.run([output], {"crops": blob[i:i + 512]})[0]
                               for i in range(0, len(blob), 512)])

    def embed(self, blob: np.ndarray) -> np.ndarray:
        return self._run(blob, "features")

    def probabilities(self, blob: np.ndarray) -> np.ndarray:
        logits = self._run(blob, "logits")
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)


def exact_box_blob(contexts: np.ndarray, input_wh: tuple[int, int]) -> np.ndarray:
    """The crops a classifier of `input_wh` gets for exact boxes (context crops cut as validation cuts them)."""
    return crop_blob(np.stack([centre_crop(c, input_wh, PAD) for c in contexts]))


def profile_examples(embedder, layout_rgb: np.ndarray, layout_record: dict) -> tuple[np.ndarray, np.ndarray]:
    """(examples (M, E) unit length, their class ids (M,)) of a layout photo's labelled boxes, cut
    and jittered as `fanshot tileset learn` cuts them."""
    boxes = np.asarray([b["box"] for b in layout_record["boxes"]], np.float32)
    examples = example_embeddings(embedder, layout_rgb, boxes)  # a duck-typed TileClassifier
    per_box = len(examples) // len(boxes)
    labels = np.repeat(np.asarray([CLASSES.index(b["tile"]) for b in layout_record["boxes"]], np.int64), per_box)
    return examples, labels


def measure(probs: np.ndarray, features: np.ndarray, examples: np.ndarray, example_labels: np.ndarray,
            labels: np.ndarray) -> Readings:
    """Readings of crops with classifier probabilities `probs` and embedding `features` (N, D)
    against a profile's examples (computed with the same embedding)."""
    blended, _, nearest = apply_profile(probs, features, np.arange(len(probs)), examples, example_labels)
    return readings(probs, blended, nearest, labels)


def export_onnx(model, input_wh: tuple[int, int], out: Path) -> Path:
    """The model to ONNX with two outputs, `logits` and `features` (its penultimate layer)."""
    import torch

    class Both(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            features = penultimate(self.inner, x)
            head = self.inner._fc if hasattr(self.inner, "features") else self.inner[-1]
            return head(features), features

    model.eval()
    width, height = input_wh
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(Both(model), torch.zeros(2, 3, height, width), str(out), input_names=["crops"],
                      output_names=["logits", "features"], opset_version=17, dynamo=False,
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "features": {0: "n"}})
    return out


def upscaled(model, factor: int = 2):
    """`model` reading its crops blown up `factor` times (bilinear): ImageNet features are learnt on
    objects far larger than a 48 x 64 crop."""
    import torch

    class Upscaled(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner, self._fc = inner, inner._fc

        def features(self, x):
            return self.inner.features(torch.nn.functional.interpolate(x, scale_factor=factor, mode="bilinear"))

        def forward(self, x):
            return self._fc(self.features(x))

    return Upscaled(model).eval()


def onnx_ms(paths: dict[str, Path], input_wh: tuple[int, int], threads: int = 2, rounds: int = 40) -> dict[str, dict]:
    """Median and least milliseconds of one onnxruntime run of each model on 1 crop and on
    PHOTO_CROPS crops; each round runs every model once in turn, so a busy machine slows them alike."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
    sessions = {name: ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
                for name, path in paths.items()}
    width, height = input_wh
    result: dict[str, dict] = {name: {} for name in paths}
    for n, key in ((1, "ms_per_crop"), (PHOTO_CROPS, "ms_per_photo")):
        blob = np.random.default_rng(0).random((n, 3, height, width), dtype=np.float32)
        times: dict[str, list[float]] = {name: [] for name in paths}
        for session in sessions.values():
            session.run(None, {"crops": blob})
        for _ in range(rounds):
            for name, session in sessions.items():
                began = time.perf_counter()
                session.run(None, {"crops": blob})
                times[name].append((time.perf_counter() - began) * 1000)
        for name in paths:  # the median, and the fastest run: what the model costs with the CPU to itself
            result[name][key] = round(float(np.median(times[name])), 2)
            result[name][key + "_min"] = round(float(np.min(times[name])), 2)
    return result
