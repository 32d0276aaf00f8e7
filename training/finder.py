"""Stage 1 training: the tile finder, a YOLO that only finds tiles (needs the `train` extra).

ultralytics is AGPL and heavy: it is imported here only, never at serve time.
Everything runs offline (no weights can be downloaded here): models are built from
yaml and trained from scratch, or fine-tuned from one of our own checkpoints.

A run lives in RUNS/NAME (outside the repository). Calling `train_finder` again
with the same name resumes from RUNS/NAME/weights/last.pt, so a long run can span
several sessions, also on another machine: the checkpoint is first pointed at the
DATA and RUNS/NAME given now (ultralytics would otherwise reuse the dataset path and
run folder stored in it; see training/README.md). Once a run has finished, a new NAME can start from its best.pt
(`init`) on other data, e.g. the real photos plus synthetic scenes.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

DEFAULT_RUNS = Path(os.environ.get("FANSHOT_RUNS", "/work/runs"))


def offline_environment(runs: Path) -> None:
    """Keep ultralytics off the network and out of the home folder; give it a local font."""
    config = runs / "yolo-config"
    (config / "Ultralytics").mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config))
    os.environ.setdefault("MPLCONFIGDIR", str(runs / "mpl-config"))
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "0"
    for font in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = config / "Ultralytics" / font
        if not target.exists():
            source = _any_ttf()
            if source:
                shutil.copy(source, target)


def _any_ttf() -> Path | None:
    candidates = [
        Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
        *Path("/usr/share/fonts").rglob("*.ttf"),
    ]
    try:
        import matplotlib

        candidates.insert(0, Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf")
    except ImportError:
        pass
    return next((p for p in candidates if p.is_file()), None)


def _thread_callback(threads: int):
    def set_threads(trainer) -> None:  # ultralytics resets torch threads to cores - 1
        import torch

        torch.set_num_threads(threads)

    return set_threads


def run_finished(run_dir: Path) -> bool:
    """True when RUN_DIR's last.pt has trained all its epochs (nothing left to resume)."""
    import torch

    last = run_dir / "weights" / "last.pt"
    if not last.is_file():
        return False
    checkpoint = torch.load(last, map_location="cpu", weights_only=False)
    epochs = (checkpoint.get("train_args") or {}).get("epochs", 0)
    return checkpoint.get("epoch", -1) == -1 or checkpoint.get("epoch", -1) + 1 >= epochs


def retarget_checkpoint(last: Path, data: str | Path, run_dir: Path) -> bool:
    """Point LAST's stored train args at DATA and RUN_DIR (for resuming elsewhere); True if it changed."""
    import torch

    checkpoint = torch.load(last, map_location="cpu", weights_only=False)
    args = checkpoint.get("train_args") or {}
    wanted = {"data": str(data), "save_dir": str(run_dir), "project": str(run_dir.parent), "name": run_dir.name}
    if all(args.get(k) == v for k, v in wanted.items()):
        return False
    checkpoint["train_args"] = {**args, **wanted}
    torch.save(checkpoint, last)
    return True


def train_finder(
    data: str | Path,
    *,
    name: str = "finder",
    runs: Path = DEFAULT_RUNS,
    model: str = "yolo11n.yaml",
    init: str | Path | None = None,
    imgsz: int = 320,
    epochs: int = 40,
    batch: int = 16,
    threads: int = 2,
    patience: int = 30,
    close_mosaic: int = 5,
    lr: float | None = None,
    freeze: int | None = None,
) -> Path:
    """Train (or resume) the tile finder; returns the run folder. `lr`: AdamW at this fixed
    learning rate (decaying to a tenth), no warm-up: a fine-tune that keeps what the start
    checkpoint knows (ultralytics' default starts with a warm-up at a bias rate of 0.1).
    `freeze`: the first N layers keep their weights (11: YOLO11's backbone)."""
    runs = Path(runs)
    offline_environment(runs)
    from ultralytics import YOLO

    run_dir = runs / name
    last = run_dir / "weights" / "last.pt"
    if last.is_file() and not run_finished(run_dir):
        if retarget_checkpoint(last, Path(data).absolute(), run_dir.absolute()):
            print(f"{last}: now trains on {data} into {run_dir}")
        print(f"resuming {last}")
        yolo = YOLO(str(last))
        yolo.add_callback("on_pretrain_routine_start", _thread_callback(threads))
        yolo.train(resume=True)
        return run_dir
    if last.is_file():
        print(f"{run_dir} has finished; start a new --name to train further (e.g. --init {run_dir}/weights/best.pt)")
        return run_dir
    fine_tune = {} if lr is None else {"optimizer": "AdamW", "lr0": lr, "lrf": 0.1, "warmup_epochs": 0}
    if freeze:
        fine_tune["freeze"] = freeze
    yolo = YOLO(str(init)) if init else YOLO(model)
    yolo.add_callback("on_pretrain_routine_start", _thread_callback(threads))
    yolo.train(
        data=str(data),
        imgsz=imgsz,
        epochs=epochs,
        batch=batch,
        workers=0,
        device="cpu",
        project=str(runs),
        name=name,
        exist_ok=True,
        pretrained=init is not None,  # False would drop the --init weights (ultralytics 8.4)
        patience=patience,
        close_mosaic=close_mosaic,
        fliplr=0.5,  # the finder does not read glyphs: mirroring is harmless here
        degrees=5.0,
        plots=False,
        amp=False,
        seed=0,
        deterministic=False,
        **fine_tune,
    )
    return run_dir


def export_finder(weights: str | Path, out: str | Path, imgsz: int) -> Path:
    """Export a finder checkpoint to ONNX (input 1x3xHxW, raw head output). Height and width are
    free: the detector fits the canvas to the photo's shape in multiples of 32, a 4:3
    photo at IMGSZ x 0.8 IMGSZ instead of a square, as ultralytics validates (`rect`)."""
    offline_environment(DEFAULT_RUNS)
    from ultralytics import YOLO

    exported = Path(YOLO(str(weights)).export(format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=True))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(exported, out)
    return out
