"""Leave real tile sets out (issue 32): train the classifier without some physical sets of a real
dataset, learn each back from a few of its photos (a tile-set profile) and read its val photos
with the whole pipeline. A control run trains the same way with every set, so the two differ only
in whether the sets were seen. Each step is skipped when its output is in WORK (a stopped run
resumes; `--runs held` and `--runs all` can run side by side, one thread each):

    python -m training.real_holdout --work DIR [--steps 2160] [--threads 1] [--runs held,all]

1. lists: the dataset's train and val split without the left-out sources (`GROUPS`: file-name
   patterns of one physical set each), each group's val photos and the photos its profile is
   learnt from, in WORK/ds (the dataset's images and labels linked, as `tileset eval` reads lists);
2. render SCENES synthetic scenes (seed 61) and cut crops: real label-box and finder-box crops of
   each train list, the synthetic scenes', and "not a tile" (the finder's boxes on no tile);
3. train `held` (without the groups) and `all` (every set): the compact CNN (m64) from scratch,
   the same steps, data shares and seed;
4. export each to WORK/model-RUN: the shipped finder and model.json with the run's classifier
   (float ONNX, outputs `logits` and `features`);
5. read: `fanshot tileset eval` of each group with each model (without and with the group's
   profile; the val photos of the sets kept as the other set), WORK/results-RUN.json.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from training.classifier import train_classifier

DATASET = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "real-chinese-v4"
SHIPPED = Path(__file__).resolve().parents[1] / "models"
# group -> (source-name pattern of one physical set, the profile's photos: sources or "top N")
GROUPS: dict[str, tuple[str, list[str | list[str]]]] = {
    "hand": (r"^hand_", ["top 1", "top 3", "top 5"]),
    # the white set laid out suit by suit: its five layout photos, one of each tile
    "family": (r"_family_|^one_bamboo_flowers_|^discards_",
               [["character_family_001_jpg", "bamboo_family_001_jpg", "circle_family_001_jpg", "honor_family_002_jpg",
                 "flower_family_002_jpg"]]),
}
SCENES, SCENES_SEED = 3000, 61
NEGATIVE_SCENES = 800
# crop file -> share of draws: as cls-20's real label-box / finder-box halves, synthetic, not a tile
SHARES = {"real": 0.22, "real-fb": 0.22, "synth": 0.48, "none": 0.08}
STEPS_PER_EPOCH, LR, MIRROR = 120, 3e-3, 0.15
RUNS = ("held", "all")


def fanshot(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "fanshot", *args], check=True)


def _sources(dataset: Path) -> dict[str, tuple[str, str, int]]:
    """file -> (source photo, suggested split, boxes), from the dataset's manifest."""
    rows = (line.split(",") for line in (dataset / "manifest.csv").read_text().splitlines()[1:] if line)
    return {r[0]: (r[1], r[2], int(r[3])) for r in rows}


def _write(path: Path, files: list[str]) -> None:
    path.write_text("".join(f"./images/{f}\n" for f in files))


def make_lists(work: Path, dataset: Path) -> None:
    ds = work / "ds"
    if (ds / "done").is_file():
        return
    ds.mkdir(parents=True, exist_ok=True)
    for name in ("images", "labels"):
        if not (ds / name).exists():
            (ds / name).symlink_to(dataset / name)
    shutil.copy(dataset / "data.yaml", ds / "data.yaml")
    split = {s: [Path(line).name for line in (dataset / f"{s}.txt").read_text().split()] for s in ("train", "val")}
    sources = _sources(dataset)
    left_out = re.compile("|".join(f"(?:{pattern})" for pattern, _ in GROUPS.values()))
    _write(ds / "train_all.txt", split["train"])
    _write(ds / "train_held.txt", [f for f in split["train"] if not left_out.search(sources[f][0])])
    _write(ds / "val_kept.txt", [f for f in split["val"] if not left_out.search(sources[f][0])])
    for group, (pattern, profiles) in GROUPS.items():
        own = re.compile(pattern)
        _write(ds / f"{group}_val.txt", [f for f in split["val"] if own.search(sources[f][0])])
        # one copy of each source, the ones with the most boxes first
        train = sorted((f for f in split["train"] if own.search(sources[f][0])), key=lambda f: -sources[f][2])
        first: dict[str, str] = {}
        for f in train:
            first.setdefault(sources[f][0], f)
        for i, spec in enumerate(profiles):
            if isinstance(spec, str):
                files = list(first.values())[:int(spec.split()[1])]
            else:
                files = [first[s] for s in spec]
            _write(ds / f"{group}_learn{i}.txt", files)
    (ds / "done").write_text("")


def cut_crops(work: Path, dataset: Path) -> None:
    crops, ds = work / "crops", work / "ds"
    crops.mkdir(parents=True, exist_ok=True)
    scenes = work / "synth"
    if not (scenes / "data.yaml").is_file():
        fanshot("synth", "--n", str(SCENES), "--seed", str(SCENES_SEED), "--long-side", "960,1280",
                "--workers", "2", "--out", str(scenes), "--quiet")
    negatives = work / "synth_negatives.txt"
    negatives.write_text("".join(f"{p.name}\n" for p in sorted((scenes / "images").iterdir())[:NEGATIVE_SCENES]))
    jobs = [(f"real-{run}.npz", ["--data", str(dataset), "--list", str(ds / f"train_{run}.txt")]) for run in RUNS]
    jobs += [(f"real-{run}-fb.npz", ["--finder-boxes", "--data", str(dataset), "--list", str(ds / f"train_{run}.txt")])
             for run in RUNS]
    jobs += [("val-kept-fb.npz", ["--finder-boxes", "--data", str(dataset), "--list", str(ds / "val_kept.txt")]),
             ("synth.npz", ["--data", str(scenes)]),
             ("none.npz", ["--negatives", "--data", str(scenes), "--list", str(negatives)])]
    for out, args in jobs:
        if not (crops / out).is_file():
            fanshot("train", "crops", *args, "--out", str(crops / out))


def train(work: Path, run: str, steps: int, threads: int) -> None:
    folder = work / "runs" / run
    if (folder / "history.json").is_file():  # written when the last epoch is done
        return
    crops = work / "crops"
    files = {"real": crops / f"real-{run}.npz", "real-fb": crops / f"real-{run}-fb.npz",
             "synth": crops / "synth.npz", "none": crops / "none.npz"}
    began = time.time()
    train_classifier([files[k] for k in SHARES], crops / "val-kept-fb.npz", folder, epochs=-(-steps // STEPS_PER_EPOCH),
                     steps_per_epoch=STEPS_PER_EPOCH, lr=LR, threads=threads, arch="m64", shares=list(SHARES.values()),
                     mirror=MIRROR)
    print(f"train {run}: {time.time() - began:.0f} s", flush=True)


def export(work: Path, run: str) -> Path:
    from training.classifier import input_wh, load_classifier
    from training.holdout_measure import export_onnx

    out = work / f"model-{run}"
    if (out / "model.json").is_file():
        return out
    model, arch = load_classifier(work / "runs" / run / "last.pt")
    tmp = work / f"model-{run}.tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    export_onnx(model, input_wh(arch), tmp / "classifier.onnx")
    shutil.copy(SHIPPED / "finder.onnx", tmp / "finder.onnx")
    spec = json.loads((SHIPPED / "model.json").read_text())
    spec["classifier"].pop("quantized", None)
    spec["provenance"] = {"name": f"real-holdout-{run}", "classifier": f"training.real_holdout run {run!r} (float)"}
    spec.pop("metrics", None)
    (tmp / "model.json").write_text(json.dumps(spec, indent=1))
    tmp.rename(out)
    return out


def read(work: Path, run: str) -> dict:
    """`tileset eval --json` of each group's val photos with each of its profiles, the kept sets'
    val photos as the other set."""
    ds, out = work / "ds", work / f"results-{run}.json"
    results = json.loads(out.read_text()) if out.is_file() else {}
    for group, (_, profiles) in GROUPS.items():
        for i in range(len(profiles)):
            key = f"{group}_learn{i}"
            if key in results:
                continue
            proc = subprocess.run(
                [sys.executable, "-m", "fanshot", "tileset", "eval", "--data", str(ds), "--list", str(ds / f"{key}.txt"),
                 "--scenes", str(ds / f"{group}_val.txt"), "--other", str(ds / "val_kept.txt"),
                 "--model-dir", str(work / f"model-{run}"), "--json"],
                check=True, capture_output=True, text=True)
            results[key] = json.loads(proc.stdout)
            part = out.with_name(out.name + ".part")  # whole or not at all: a resumed run reads it
            part.write_text(json.dumps(results, indent=1))
            part.replace(out)
            print(f"{run} {key}: {summary(results[key])}", flush=True)
    return results


def summary(result: dict) -> str:
    """One line of a `tileset eval --json` report: images exactly right without -> with the profile."""
    p = result["profile"]
    rows = "; ".join(f"{r['kind']} {r['without']['exact_count']} -> {r['with']['exact_count']} of {r['images']}"
                     for r in result["rows"])
    return f"{rows} ({p['tiles']} tiles, {p['examples']} examples, {p['seconds']:.1f} s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--steps", type=int, default=2160, help="training steps of each run (whole epochs of 120)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", default=",".join(RUNS), help="the runs to train and read (held, all)")
    parser.add_argument("--no-read", action="store_true", help="stop after training and export")
    args = parser.parse_args(argv)
    runs = args.runs.split(",")
    if set(runs) - set(RUNS):
        parser.error(f"--runs: known {', '.join(RUNS)}")
    missing = [n for n in ("manifest.csv", "train.txt", "val.txt", "images", "labels") if not (args.dataset / n).exists()]
    if missing:
        parser.error(f"--dataset {args.dataset}: no {', '.join(missing)} (a real-chinese-v4 folder)")
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    make_lists(args.work, args.dataset)
    cut_crops(args.work, args.dataset)
    for run in runs:
        train(args.work, run, args.steps, args.threads)
        export(args.work, run)
        if not args.no_read:
            read(args.work, run)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
