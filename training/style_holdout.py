"""Leave one tile style out (issue 32): train classifiers without one art family of `fanshot
synth`, learn that family back from one layout photo (a tile-set profile), and measure on its
crops. Runs end to end, each step skipped when its output is in WORK (a stopped run resumes):

    python -m training.style_holdout --work DIR [--holdout kde-jade] [--minutes 12]

1. render: TRAIN scenes of every other family (seed 41), TEST scenes of the held-out family only
   (seed 931000) and one layout photo of it (43 tiles, `fanshot synth --one-set 932000 --layout 43`);
2. crops: context crops of every labelled box (as `fanshot train crops --arch m64`);
3. train, each for the same wall-clock budget (steps fixed from a timed probe): the compact CNN
   (`m64`) from scratch and EfficientNet-Lite0 (`lite0`) from ImageNet weights;
4. measure (training.holdout_measure) on the held-out family's crops, per network: the classifier
   alone, the profile's nearest example, the blend; and EfficientNet-Lite0 with its ImageNet
   weights only (no tile training) as the embedding, blended with the compact CNN's probabilities;
   then each network's ONNX export timed with onnxruntime (2 threads). WORK/results.json.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from training.holdout_measure import (
    OnnxEmbedder,
    TorchEmbedder,
    exact_box_blob,
    export_onnx,
    measure,
    onnx_ms,
    profile_examples,
    steps_for_budget,
    upscaled,
)

TRAIN_SEED, TEST_SEED, LAYOUT_SEED = 41, 931000, 932000
STEPS_PER_EPOCH = 50
BATCH = 128
# arch -> peak learning rate: the compact CNN's default from scratch, a gentler one for ImageNet weights
NETWORKS = {"m64": 3e-3, "lite0": 1e-3}


def render(work: Path, holdout: str, train_scenes: int, test_scenes: int, long_side: int, workers: int) -> None:
    from datasets.synth.generate import OneSet, generate
    from datasets.synth.tiles import style_families

    families = style_families()
    if holdout not in families:
        raise SystemExit(f"--holdout {holdout}: not an art family here ({', '.join(families)})")
    others = [f for f in families if f != holdout]
    jobs = [("train-scenes", train_scenes, TRAIN_SEED, others, None),
            ("test-scenes", test_scenes, TEST_SEED, [holdout], None),
            ("layout", 1, LAYOUT_SEED, [holdout], OneSet(LAYOUT_SEED, layout=43))]
    for name, n, seed, fams, one_set in jobs:
        if (work / name / "data.yaml").is_file():
            continue
        began = time.time()
        sides = [1280] if one_set else [long_side]
        done = generate(work / name, n, seed, workers=workers, long_sides=sides, families=fams,
                        progress=False, one_set=one_set)
        print(f"render {name}: {done['images']} images, {done['boxes']} boxes, {time.time() - began:.0f} s", flush=True)


def cut_crops(work: Path) -> None:
    from datasets.formats import read_yolo
    from training.classifier import input_wh
    from training.crops import context_wh_for, save_crops

    for name in ("train-scenes", "test-scenes"):
        out = work / "crops" / f"{name}.npz"
        if not out.is_file():
            save_crops(read_yolo(work / name), out, context_wh=context_wh_for(input_wh("m64")))


def _seconds_per_step(arch: str, contexts: np.ndarray, threads: int, steps: int = 4) -> float:
    """Wall seconds of one training step (batch BATCH, augmentation included) of a fresh `arch`."""
    import torch

    from training.classifier import PAD, _to_tensor, build_model, input_wh
    from training.crops import augment

    torch.set_num_threads(threads)
    model = build_model(arch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    rng = np.random.default_rng(0)
    times = []
    for _ in range(steps + 1):
        began = time.perf_counter()
        crops = np.stack([augment(contexts[i], input_wh(arch), PAD, rng) for i in rng.integers(len(contexts), size=BATCH)])
        loss = model(_to_tensor(crops)).logsumexp(1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        times.append(time.perf_counter() - began)
    return float(np.median(times[1:]))


def train(work: Path, minutes: float, threads: int, networks: list[str], steps: int = 0) -> None:
    """Train each network for `minutes` (steps from a timed probe) or, given, `steps` steps."""
    from training.classifier import train_classifier

    train_npz = work / "crops" / "train-scenes.npz"
    for arch in networks:
        lr = NETWORKS[arch]
        run = work / "runs" / arch
        plan = run / "plan.json"
        if not plan.is_file():
            per_step = None if steps else _seconds_per_step(arch, np.load(train_npz)["crops"][:2000], threads)
            epochs = -(-steps // STEPS_PER_EPOCH) if steps else steps_for_budget(minutes * 60, per_step or 1.0, STEPS_PER_EPOCH)
            run.mkdir(parents=True, exist_ok=True)
            plan.write_text(json.dumps({"arch": arch, "lr": lr, "seconds_per_step": per_step and round(per_step, 3),
                                        "epochs": epochs, "steps_per_epoch": STEPS_PER_EPOCH}))
        settings = json.loads(plan.read_text())
        if (run / "history.json").is_file():
            continue
        print(f"train {arch}: {settings}", flush=True)
        began = time.time()
        train_classifier([train_npz], None, run, epochs=settings["epochs"], steps_per_epoch=STEPS_PER_EPOCH,
                         batch=BATCH, lr=lr, threads=threads, arch=arch, mirror=0.0)
        print(f"train {arch}: {time.time() - began:.0f} s", flush=True)


def _trained(work: Path, arch: str):
    from training.classifier import load_classifier

    return load_classifier(work / "runs" / arch / "last.pt")[0]


def evaluate(work: Path, threads: int) -> dict:
    import cv2
    import torch

    from datasets.formats import read_yolo
    from training.classifier import input_wh
    from training.effnet_lite import build_lite0

    torch.set_num_threads(threads)
    test = np.load(work / "crops" / "test-scenes.npz")
    labels = test["labels"]
    layout = read_yolo(work / "layout")[0]
    layout_bgr = cv2.imread(str(layout["file"]))
    if layout_bgr is None:
        raise SystemExit(f"{layout['file']}: cannot read the layout photo")
    layout_rgb = cv2.cvtColor(layout_bgr, cv2.COLOR_BGR2RGB)
    wh = input_wh("m64")
    blob = exact_box_blob(test["crops"], wh)
    trained = [arch for arch in NETWORKS if (work / "runs" / arch / "last.pt").is_file()]
    if "m64" not in trained:
        raise SystemExit(f"{work}: the compact CNN is not trained yet (its probabilities are every blend's)")
    networks = {arch: _trained(work, arch) for arch in trained}
    networks["lite0-imagenet"] = build_lite0(1000).eval()  # ImageNet weights, no tile training
    networks["lite0-imagenet-x2"] = upscaled(networks["lite0-imagenet"])  # the same on crops blown up 2x
    results: dict = {"test_crops": int(len(labels)), "layout_tiles": len(layout["boxes"]), "networks": {}}
    compact_probs = TorchEmbedder(networks["m64"], wh).probabilities(blob)
    onnx = {}
    for name, model in networks.items():
        embedder = TorchEmbedder(model, wh)
        # the ImageNet network names no tile: its embedding is blended with the compact CNN's reading
        probs = embedder.probabilities(blob) if name in NETWORKS else compact_probs
        examples, example_labels = profile_examples(embedder, layout_rgb, layout)
        scores = measure(probs, embedder.embed(blob), examples, example_labels, labels)
        onnx[name] = export_onnx(model, wh, work / "onnx" / f"{name}.onnx")
        results["networks"][name] = {**scores.__dict__, "examples": int(len(examples)),
                                     "parameters": int(sum(p.numel() for p in model.parameters()))}
        print(name, json.dumps(results["networks"][name]), flush=True)
    # for reference, the shipped classifier (quantized): trained on every family, the held-out one included
    shipped = Path(__file__).resolve().parents[1] / "models" / "classifier.onnx"
    if shipped.is_file():
        reference = OnnxEmbedder(shipped, wh)
        examples, example_labels = profile_examples(reference, layout_rgb, layout)
        scores = measure(reference.probabilities(blob), reference.embed(blob), examples, example_labels, labels)
        results["networks"]["shipped"] = {**scores.__dict__, "note": "trained on every family, the held-out one too"}
        onnx["shipped"] = shipped
    results["timing"] = time_networks(onnx, wh)
    (work / "results.json").write_text(json.dumps(results, indent=1))
    return results


def time_networks(onnx: dict[str, Path], wh: tuple[int, int], rounds: int = 40, threads: int = 2) -> dict:
    """onnxruntime (`threads` threads) milliseconds per crop and per photo of each exported network, with
    the load average: timings on a busy machine are not comparable to a quiet one's."""
    timing = {"load_average": round(os.getloadavg()[0], 1), "threads": threads,
              **onnx_ms(onnx, wh, threads=threads, rounds=rounds)}
    for name, cost in timing.items():
        print(name, json.dumps(cost), flush=True)
    return timing


def time_only(work: Path, rounds: int, threads: int) -> None:
    """Time the networks `evaluate` exported (and the shipped classifier) again; WORK/timing-N-threads.json."""
    from training.classifier import input_wh

    onnx = {p.stem: p for p in sorted((work / "onnx").glob("*.onnx"))}
    shipped = Path(__file__).resolve().parents[1] / "models" / "classifier.onnx"
    if shipped.is_file():
        onnx["shipped"] = shipped
    timing = time_networks(onnx, input_wh("m64"), rounds, threads)
    (work / f"timing-{threads}-threads.json").write_text(json.dumps(timing, indent=1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="folder for scenes, crops, runs and results")
    parser.add_argument("--holdout", default="kde-jade", help="the art family left out (fanshot synth --list-styles)")
    parser.add_argument("--train-scenes", type=int, default=1000)
    parser.add_argument("--test-scenes", type=int, default=100)
    parser.add_argument("--long-side", type=int, default=960)
    parser.add_argument("--minutes", type=float, default=12.0, help="training budget of each network")
    parser.add_argument("--steps", type=int, default=0,
                        help="instead of --minutes: this many training steps each (whole epochs of 50)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1, help="processes that render scenes")
    parser.add_argument("--networks", default=",".join(NETWORKS),
                        help="the networks to train (e.g. one per process, each with --threads 1)")
    parser.add_argument("--no-evaluate", action="store_true", help="stop after training")
    parser.add_argument("--evaluate-only", action="store_true", help="measure the networks trained so far")
    parser.add_argument("--time-only", type=int, metavar="ROUNDS", default=0,
                        help="only time the exported networks again, ROUNDS runs each with --threads (WORK/timing-N-threads.json)")
    args = parser.parse_args(argv)
    networks = args.networks.split(",")
    unknown = sorted(set(networks) - set(NETWORKS))
    if unknown:
        parser.error(f"--networks: unknown {', '.join(unknown)} (known: {', '.join(NETWORKS)})")
    args.work.mkdir(parents=True, exist_ok=True)
    if args.time_only:
        time_only(args.work, args.time_only, args.threads)
        return 0
    if not args.evaluate_only:
        render(args.work, args.holdout, args.train_scenes, args.test_scenes, args.long_side, args.workers)
        cut_crops(args.work)
        train(args.work, args.minutes, args.threads, networks, args.steps)
    if not args.no_evaluate:
        evaluate(args.work, args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
