"""Stage 2 training: the tile classifier, a compact CNN on tile crops (needs the `train` extra).

Plain torch (no ultralytics). Crops come from `training.crops`: real photos
(the train split only), synthetic scenes and rendered CC0 tile art. The crop
cache (NPZ) and checkpoints live in a run folder outside the repository; calling
`train_classifier` again resumes from RUN/last.pt until EPOCHS are done.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from training.crops import augment, centre_crop, context_wh_for
from vision.classes import NOT_A_TILE

PAD = 0.08
OUTPUTS = NOT_A_TILE + 1  # the 43 classes and "not a tile"


ARCHES = {
    # name: (channels of the four blocks, extra 3x3 conv in blocks 3 and 4, input width x height)
    "s": ((24, 48, 96, 128), False, (40, 56)),  # ~0.3 M parameters, ~17 M multiply-adds
    "m": ((32, 64, 96, 128), True, (40, 56)),   # ~0.5 M parameters, ~40 M multiply-adds
    "m64": ((32, 64, 96, 128), True, (48, 64)),  # m on the whole 48x64 box a context crop keeps, ~55 M
    "m96": ((32, 64, 96, 128), True, (72, 96)),  # m64 at 1.5x the resolution (crops cut with --arch m96), ~125 M
}
# archs started from ImageNet weights (training.effnet_lite): name -> input width x height
PRETRAINED = {
    "lite0": (48, 64),  # EfficientNet-Lite0 on m64's crop, ~3.4 M parameters, ~25 M multiply-adds
}


def input_wh(arch: str) -> tuple[int, int]:
    """The crop size (width, height) the arch takes."""
    return PRETRAINED[arch] if arch in PRETRAINED else ARCHES[arch][2]


def build_model(arch: str = "s", num_classes: int = OUTPUTS):
    """Four conv blocks on an RGB crop (input_wh(arch)), then a linear layer over the feature map
    an eighth of its size (where on the tile a stroke or dot sits matters); a PRETRAINED arch is
    that network with ImageNet weights in all but its last layer."""
    from torch import nn

    if arch in PRETRAINED:
        from training.effnet_lite import build_lite0

        return build_lite0(num_classes)

    channels, double, (width, height) = ARCHES[arch]

    def block(cin, cout, pool=True, extra=False):
        layers = [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        if extra:
            layers += [nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        if pool:
            layers.append(nn.MaxPool2d(2))
        return layers

    c1, c2, c3, c4 = channels
    return nn.Sequential(
        *block(3, c1),                               # 28x20
        *block(c1, c2),                              # 14x10
        *block(c2, c3, extra=double),                # 7x5
        *block(c3, c4, pool=False, extra=double),
        nn.Flatten(),
        nn.Dropout(0.3),
        nn.Linear(c4 * (height // 8) * (width // 8), num_classes),
    )


def sampling_weights(labels: np.ndarray, sources: np.ndarray, shares: list[float] | None) -> np.ndarray:
    """Per-crop sampling probabilities: classes balanced within each source (a rare class drawn at
    most 4x as often as the median one), and each source drawn with its share (default: by size)."""
    weights = np.zeros(len(labels))
    n_sources = int(sources.max()) + 1 if len(sources) else 0
    for source in range(n_sources):
        mine = sources == source
        counts = np.bincount(labels[mine], minlength=OUTPUTS)
        w = 1.0 / np.maximum(counts[labels[mine]], 1)
        w = np.minimum(w, 4.0 / max(1, np.median(counts[counts > 0])))
        share = shares[source] if shares else mine.sum() / len(labels)
        weights[mine] = w / w.sum() * share
    return weights / weights.sum()


def _to_tensor(batch: np.ndarray):
    import torch

    return torch.from_numpy(batch.transpose(0, 3, 1, 2).astype(np.float32) / 255.0)


def probabilities(model, contexts: np.ndarray, out_wh: tuple[int, int]) -> np.ndarray:
    """The model's class probabilities for context crops, each read as the crop the detector would
    cut for its exact box (`centre_crop`), as validation reads them."""
    import torch

    model.eval()
    chunks = []
    with torch.no_grad():
        for start in range(0, len(contexts), 512):
            crops = np.stack([centre_crop(c, out_wh, PAD) for c in contexts[start : start + 512]])
            chunks.append(torch.softmax(model(_to_tensor(crops)), dim=1).numpy())
    return np.concatenate(chunks) if chunks else np.zeros((0, 0), np.float32)


def _evaluate(model, contexts: np.ndarray, labels: np.ndarray, out_wh: tuple[int, int]) -> tuple[float, np.ndarray]:
    predicted = probabilities(model, contexts, out_wh).argmax(1) if len(contexts) else np.zeros((0,), np.int64)
    accuracy = float((predicted == labels).mean()) if len(labels) else float("nan")
    return accuracy, predicted


def check_crop_size(shape: tuple[int, ...], arch: str) -> None:
    """ValueError when context crops of `shape` (N x H x W x 3) hold the box at less than the
    arch's input size: it would learn from crops blown up, not cut at its resolution."""
    need_w, need_h = context_wh_for(input_wh(arch))
    have_h, have_w = shape[1:3]
    if have_w < need_w or have_h < need_h:
        raise ValueError(f"crops of {have_w}x{have_h} are too small for arch {arch} (it needs {need_w}x{need_h}): "
                         f"cut them with `train crops --arch {arch}`")


def _context_crops(train_npz: list[str | Path]) -> tuple[np.ndarray, list]:
    """The context crops of every NPZ in one array, and the NPZs (for their labels); ValueError
    when the files hold crops of different sizes (cut for different archs)."""
    parts = [np.load(p) for p in train_npz]
    crops = [p["crops"] for p in parts]
    sizes = {Path(path).name: tuple(c.shape[1:3]) for path, c in zip(train_npz, crops)}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"the crop files hold crops of different sizes (height, width): {sizes}; "
                         "cut them all with the same `train crops --arch`")
    return np.concatenate(crops), parts


def train_classifier(
    train_npz: list[str | Path],
    val_npz: str | Path | None,
    run_dir: str | Path,
    *,
    epochs: int = 12,
    batch: int = 128,
    lr: float = 3e-3,
    threads: int = 2,
    seed: int = 0,
    max_per_class: int | None = None,
    steps_per_epoch: int | None = None,
    arch: str = "s",
    shares: list[float] | None = None,
    mirror: float = 0.0,
    init: str | Path | None = None,
) -> Path:
    """Train (or resume) the classifier; returns RUN/best.pt. Each NPZ holds `crops` and `labels`;
    `shares` (one per NPZ) sets how often each is drawn. A resumed run keeps its checkpoint's arch.
    A new run may start from `init`, another run's checkpoint: every layer whose shape matches."""
    contexts, parts = _context_crops(train_npz)
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    labels = np.concatenate([p["labels"] for p in parts])
    sources = np.concatenate([np.full(len(p["labels"]), i) for i, p in enumerate(parts)])
    if shares is not None and len(shares) != len(parts):
        raise ValueError(f"{len(shares)} shares for {len(parts)} crop files")
    if max_per_class:
        rng = np.random.default_rng(seed)
        keep = np.concatenate(
            [rng.permutation(np.flatnonzero(labels == c))[:max_per_class] for c in range(OUTPUTS)]
        )
        contexts, labels, sources = contexts[keep], labels[keep], sources[keep]
    counts = np.bincount(labels, minlength=OUTPUTS)
    print(f"training crops: {len(labels)}; per class min {counts[:NOT_A_TILE].min()} max {counts.max()}; "
          f"not a tile {counts[NOT_A_TILE]}", flush=True)
    val_set: tuple[np.ndarray, np.ndarray] | None = None
    if val_npz:
        val = np.load(val_npz)
        val_set = val["crops"], val["labels"]

    weights = sampling_weights(labels, sources, shares)

    last = run_dir / "last.pt"
    state = torch.load(last, map_location="cpu", weights_only=False) if last.is_file() else None
    arch = state.get("arch", "s") if state else arch
    model = build_model(arch, _outputs(state["model"]) if state else OUTPUTS)
    if init and not state:
        _load_matching(model, torch.load(init, map_location="cpu", weights_only=False)["model"])
    check_crop_size(contexts.shape, arch)
    out_wh = input_wh(arch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    steps_per_epoch = steps_per_epoch or max(1, len(labels) // batch)
    total_steps = epochs * steps_per_epoch
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min(1.0, (step + 1) / 200) * 0.5 * (1 + math.cos(math.pi * min(step, total_steps) / total_steps))
    )
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    start_epoch, best_accuracy, history = 0, -1.0, []
    if state:
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        start_epoch, best_accuracy, history = state["epoch"] + 1, state["best_accuracy"], state["history"]
        print(f"resuming {last} at epoch {start_epoch + 1}/{epochs}", flush=True)

    for epoch in range(start_epoch, epochs):
        rng = np.random.default_rng(seed * 1000 + epoch)
        model.train()
        began, seen, loss_sum = time.time(), 0, 0.0
        for _ in range(steps_per_epoch):
            index = rng.choice(len(labels), size=batch, p=weights)
            crops = np.stack([augment(contexts[i], out_wh, PAD, rng, mirror) for i in index])
            target = torch.from_numpy(labels[index])
            loss = loss_fn(model(_to_tensor(crops)), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
            seen += batch
            loss_sum += float(loss.detach()) * batch
        record = {"epoch": epoch + 1, "loss": round(loss_sum / seen, 4), "seconds": round(time.time() - began, 1)}
        if val_set is not None:
            record["val_accuracy"], _ = _evaluate(model, *val_set, out_wh)
        history.append(record)
        print(json.dumps(record), flush=True)
        score = record.get("val_accuracy", -record["loss"])
        if score > best_accuracy:
            best_accuracy = score
            torch.save({"model": model.state_dict(), "arch": arch, "epoch": epoch, "record": record}, run_dir / "best.pt")
        torch.save(
            {
                "model": model.state_dict(), "arch": arch, "optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(),
                "epoch": epoch, "best_accuracy": best_accuracy, "history": history,
            },
            last,
        )
    (run_dir / "history.json").write_text(json.dumps(history, indent=1))
    return run_dir / "best.pt"


def _outputs(weights: dict) -> int:
    """How many classes a checkpoint's model names (43: a checkpoint without "not a tile")."""
    return int(weights[[k for k in weights if k.endswith(".weight")][-1]].shape[0])


def _load_matching(model, weights: dict) -> None:
    """Copy into `model` every tensor of `weights` whose name and shape match (a different input
    size changes only the last linear layer), and the rows of the classes it had into a last
    layer with more classes (43 -> "not a tile" added); print what was left at its fresh start."""
    own = model.state_dict()
    taken = {k: v for k, v in weights.items() if k in own and own[k].shape == v.shape}
    for k, v in weights.items():
        if k in own and k not in taken and own[k].shape[1:] == v.shape[1:] and own[k].shape[0] > v.shape[0]:
            rows = own[k].clone()
            rows[: v.shape[0]] = v
            taken[k] = rows
    own.update(taken)
    model.load_state_dict(own)
    print(f"init: {len(taken)} of {len(own)} tensors taken; fresh: {sorted(set(own) - set(taken))}", flush=True)


def load_classifier(checkpoint: str | Path):
    """A classifier checkpoint (`train_classifier`'s best.pt or last.pt) as a model in eval mode,
    and its arch."""
    import torch

    state = torch.load(str(checkpoint), map_location="cpu", weights_only=False)
    arch = state.get("arch", "s")
    model = build_model(arch, _outputs(state["model"]))
    model.load_state_dict(state["model"])
    return model.eval(), arch


def export_classifier(checkpoint: str | Path, out: str | Path) -> tuple[tuple[int, int], bool]:
    """Export a classifier checkpoint to ONNX (input N x 3 x H x W in [0, 1], the arch's size;
    output logits; the detector averages flipped views at run time, model.json `views`).
    Returns the input (width, height) and whether the model has the "not a tile" output."""
    import torch

    model, arch = load_classifier(checkpoint)
    outputs = _outputs(model.state_dict())
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    width, height = input_wh(arch)
    dummy = torch.zeros(2, 3, height, width)
    torch.onnx.export(
        model, dummy, str(out), input_names=["crops"], output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False,
    )
    return (width, height), outputs == OUTPUTS
