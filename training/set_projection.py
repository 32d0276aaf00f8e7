"""A projection of the tile-set embedding (vision.tileset.apply.embedding) learnt for telling one
set's tiles apart, and the measure it is for: how often a crop's nearest example in its own set's
layout profile is its tile (docs/tilesets.md, "A projection learnt for it").

The projection is a within-set linear discriminant fitted on synthetic one-set scenes (`fanshot
synth --one-set SEED`, sets other than the ones measured): the directions along which the mean
crops of one set's tiles differ from each other most, relative to how crops of one tile of one set
vary (blur, slant, light, the finder's box). An experiment: the reader does not use it.

    python -m training.set_projection --sets DIR --test LAYOUT_JPG:SCENES_DIR [--test ...]
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from PIL import Image

from vision.classes import CLASSES
from vision.classifier import TileClassifier, crop_blob, crop_tiles
from vision.tileset.apply import class_similarity, embedding

JITTER = 0.03  # the scenes' true boxes moved by this share of their size (the finder's boxes vary)


def labelled_boxes(image: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A YOLO image's pixels, its true boxes (xyxy pixels) and class ids."""
    rgb = np.asarray(Image.open(image).convert("RGB"))
    height, width = rgb.shape[:2]
    label = image.parent.parent / "labels" / (image.stem + ".txt")
    rows = np.array([[float(v) for v in line.split()] for line in label.read_text().splitlines() if line.strip()])
    rows = rows.reshape(-1, 5)
    x, y, w, h = rows[:, 1] * width, rows[:, 2] * height, rows[:, 3] * width, rows[:, 4] * height
    boxes = np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=1).astype(np.float32)
    return rgb, boxes, rows[:, 0].astype(np.int64)


def crop_embeddings(classifier: TileClassifier, folder: Path, jitter: float, rng: np.random.Generator,
                    limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The embeddings of the true boxes' crops of a YOLO folder's images, each both ways up, and their
    labels (the class id; + 43 for a crop turned upside down, which looks unlike the crop upright)."""
    embeddings, labels = [], []
    for image in sorted((folder / "images").glob("*.jpg"))[:limit]:
        rgb, boxes, classes = labelled_boxes(image)
        if not len(boxes):
            continue
        size = np.concatenate([boxes[:, 2:] - boxes[:, :2]] * 2, axis=1)
        boxes = boxes + rng.normal(0, jitter, boxes.shape).astype(np.float32) * size
        blob = crop_blob(crop_tiles(rgb, boxes, classifier.crop_w, classifier.crop_h, classifier.crop_pad))
        for turned in (False, True):
            view = np.ascontiguousarray(np.flip(blob, (2, 3))) if turned else blob
            embeddings.append(embedding(classifier.embed(view)))
            labels.append(classes + (len(CLASSES) if turned else 0))
    return np.concatenate(embeddings), np.concatenate(labels)


def fit(embeddings: np.ndarray, labels: np.ndarray, sets: np.ndarray, dims: int, shrink: float) -> np.ndarray:
    """(E, dims): the within-set discriminant of unit `embeddings` (N, E) of tiles `labels` of tile
    sets `sets` (N,): whitened by the scatter of crops around their set's tile mean (shrunk towards
    a multiple of the identity by `shrink`), the directions of most scatter of the tile means
    around their set's mean."""
    x = embeddings.astype(np.float64)
    groups, of = np.unique(sets.astype(np.int64) * 1000 + labels, return_inverse=True)
    means = np.zeros((len(groups), x.shape[1]))
    np.add.at(means, of, x)
    means /= np.bincount(of)[:, None]
    within = (x - means[of]).T @ (x - means[of]) / len(x)
    within += shrink * np.trace(within) / len(within) * np.eye(len(within))
    group_set = groups // 1000
    set_means = {s: means[group_set == s].mean(axis=0) for s in np.unique(group_set)}
    centred = means - np.array([set_means[s] for s in group_set])
    between = centred.T @ centred / len(centred)
    values, vectors = np.linalg.eigh(within)
    whiten = vectors / np.sqrt(values)
    _, directions = np.linalg.eigh(whiten.T @ between @ whiten)
    return (whiten @ directions[:, ::-1][:, :dims]).astype(np.float32)


def projected(embeddings: np.ndarray, projection: np.ndarray | None) -> np.ndarray:
    """Unit embeddings in the projection's space (as they are without one)."""
    if projection is None:
        return embeddings
    z = embeddings @ projection
    return z / np.linalg.norm(z, axis=1, keepdims=True).clip(1e-6)


def nearest_right(classifier: TileClassifier, layout: Path, scenes: Path, projection: np.ndarray | None,
                  limit: int = 100) -> tuple[float, Counter]:
    """The share of the true boxes' crops of `scenes` (first `limit` images) whose nearest example in
    the profile learnt from the layout photo `layout` (its labelled boxes, vision.tileset.learn's
    examples) is their tile, and the confusions (truth, nearest) counted."""
    from vision.tileset.learn import example_embeddings

    rgb, boxes, classes = labelled_boxes(layout)
    examples = example_embeddings(classifier, rgb, boxes)
    example_labels = np.repeat(classes, len(examples) // len(boxes))
    order = np.argsort(example_labels, kind="stable")
    examples, example_labels = projected(examples[order], projection), example_labels[order]
    right, total, confusions = 0, 0, Counter[tuple[str, str]]()
    for image in sorted((scenes / "images").glob("*.jpg"))[:limit]:
        rgb, boxes, truth = labelled_boxes(image)
        if not len(boxes):
            continue
        crops = crop_blob(crop_tiles(rgb, boxes, classifier.crop_w, classifier.crop_h, classifier.crop_pad))
        ids, sims = class_similarity(projected(embedding(classifier.embed(crops)), projection), examples, example_labels)
        nearest = ids[sims.argmax(axis=1)]
        right += int((nearest == truth).sum())
        total += len(truth)
        confusions.update((CLASSES[t], CLASSES[n]) for t, n in zip(truth, nearest) if t != n)
    return right / max(total, 1), confusions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.set_projection", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", required=True, type=Path,
                        help="folder of setSEED/ (scenes) and layoutSEED/ (one layout photo) YOLO folders")
    parser.add_argument("--test", action="append", default=[], metavar="LAYOUT_JPG:SCENES_DIR",
                        help="a set left out: its layout photo and scenes, measured without and with the projection")
    parser.add_argument("--dims", type=int, default=128)
    parser.add_argument("--shrink", type=float, default=0.1)
    parser.add_argument("--save", type=Path, default=None, help="write the projection here (.npy)")
    args = parser.parse_args(argv)
    from vision.detector import get_detector

    classifier = get_detector().classifier
    rng = np.random.default_rng(0)
    parts = []
    for scenes in sorted(args.sets.glob("set*")):
        seed = int(scenes.name[3:])
        for folder, jitter in ((args.sets / f"layout{seed}", 0.0), (scenes, JITTER)):
            if (folder / "images").is_dir():
                x, y = crop_embeddings(classifier, folder, jitter, rng)
                parts.append((x, y, np.full(len(y), seed)))
    if not parts:
        print(f"no setSEED folders under {args.sets}", file=sys.stderr)
        return 2
    x, y, s = (np.concatenate(p) for p in zip(*parts))
    projection = fit(x, y, s, args.dims, args.shrink)
    print(f"fitted on {len(np.unique(s))} sets, {len(x)} crops: {x.shape[1]} -> {args.dims} dimensions")
    if args.save:
        np.save(args.save, projection)
    for test in args.test:
        layout, scenes = (Path(p) for p in test.split(":", 1))
        for name, p in (("without", None), ("projected", projection)):
            share, confusions = nearest_right(classifier, layout, scenes, p)
            print(f"{scenes.name} {name}: nearest example right {share:.4f}; {confusions.most_common(4)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
