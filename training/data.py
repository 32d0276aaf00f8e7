"""Build the finder's training set: YOLO datasets merged into one class, `tile`.

The finder (stage 1) only finds tiles, face-down ones (BACK) included, so every class of
every source becomes class 0 `tile`; the class names come from each source's data.yaml
(any naming datasets.classmap knows). Images are symlinked, never copied; the labels are
rewritten. The result is an ultralytics dataset:

    OUT/data.yaml   path: OUT, train: train.txt, val: val.txt, names: {0: tile}
    OUT/images/     symlinks to the sources' images (names kept, so they must not clash)
    OUT/labels/     one `0 cx cy w h` line per box (a source's ignore/ boxes too: tiles cut by
                    the frame are tiles to find, though too little may show to name them)
    OUT/train.txt, OUT/val.txt   absolute paths under OUT/images (a repeated image is listed again)

Sources:
- the real set: its own train.txt goes to train (listed `real_repeat` times), its val.txt to val;
- synthetic sets: DIR or DIR:RANGES, RANGES being inclusive index ranges over the sorted
  images, e.g. `synth-v1:0-1499,1560-2999`, for train or for val.
An image is never both in train and in val.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import yaml

from datasets.classmap import ClassMapError, remap_names
from datasets.formats import IMAGE_SUFFIXES, DatasetError, read_yolo_label, yolo_class_names

FINDER_NAMES = {0: "tile"}


class FinderDataError(ValueError):
    """A source that cannot be used (missing files, unknown classes, bad ranges, clashes)."""


@dataclass(frozen=True)
class Source:
    """A YOLO folder and which of its images to take (None: all)."""

    root: Path
    ranges: tuple[tuple[int, int], ...] | None = None


def parse_source(spec: str) -> Source:
    """`DIR` or `DIR:A-B[,C-D...]` (inclusive image indices) -> Source."""
    path, sep, ranges = spec.rpartition(":") if ":" in spec else (spec, "", "")
    if not sep:
        return Source(Path(spec))
    parsed = []
    for part in ranges.split(","):
        first, dash, last = part.partition("-")
        try:
            a, b = int(first), int(last if dash else first)
        except ValueError:
            raise FinderDataError(f"{spec}: bad range {part!r} (want A-B, e.g. 0-1499)") from None
        if a < 0 or b < a:
            raise FinderDataError(f"{spec}: bad range {part!r} (want 0 <= A <= B)")
        parsed.append((a, b))
    return Source(Path(path), tuple(parsed))


def class_names(root: Path) -> list[str]:
    data_yaml = root / "data.yaml"
    try:
        names = yolo_class_names(data_yaml)
        remap_names(names)
    except (DatasetError, ClassMapError) as exc:
        raise FinderDataError(f"{root} is not a YOLO dataset we can read: {exc}") from exc
    return names


def _sorted_images(root: Path) -> list[Path]:
    images = root / "images"
    if not images.is_dir():
        raise FinderDataError(f"{root} has no images/ folder")
    return sorted(p for p in images.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)


def select_images(source: Source) -> list[Path]:
    """The source's images in sorted order, cut to its ranges."""
    images = _sorted_images(source.root)
    if source.ranges is None:
        return images
    chosen = []
    for a, b in source.ranges:
        if b >= len(images):
            raise FinderDataError(f"{source.root}: range {a}-{b} but only {len(images)} images")
        chosen.extend(images[a:b + 1])
    return chosen


def listed_images(root: Path, list_name: str) -> list[Path]:
    """Images named in ROOT/LIST_NAME (paths relative to ROOT, as ./images/x.jpg, or absolute)."""
    list_file = root / list_name
    if not list_file.is_file():
        raise FinderDataError(f"{root}: no {list_name}")
    images = []
    for line in list_file.read_text().splitlines():
        if line.strip():
            path = Path(line.strip())
            path = path if path.is_absolute() else root / path
            if not path.is_file():
                raise FinderDataError(f"{list_file}: {line.strip()} does not exist")
            images.append(path)
    return images


def tile_label_lines(label: Path, n_classes: int) -> list[str]:
    """A YOLO label file's boxes with every class made 0 (`tile`), the numbers kept as written;
    no file means no boxes."""
    try:
        boxes = read_yolo_label(label, n_classes)
    except DatasetError as exc:
        raise FinderDataError(str(exc)) from exc
    return ["0 " + " ".join(fields) for _, fields in boxes]


def _label_path(root: Path, image: Path, folder: str = "labels") -> Path:
    return (root / folder / image.relative_to(root / "images")).with_suffix(".txt")


class _Builder:
    def __init__(self, out: Path):
        self.out = out
        self.placed: dict[str, Path] = {}  # name under OUT/images -> source image
        (out / "images").mkdir(parents=True, exist_ok=True)
        (out / "labels").mkdir(parents=True, exist_ok=True)

    def place(self, root: Path, image: Path, n_classes: int) -> str:
        """Link IMAGE into OUT/images, write its tile labels; returns its path there."""
        name = image.name
        source = image.resolve()
        if name in self.placed:
            if self.placed[name] != source:
                raise FinderDataError(f"two sources have an image named {name}: {self.placed[name]} and {source}")
            return str(self.out / "images" / name)
        lines = [line for folder in ("labels", "ignore")
                 for line in tile_label_lines(_label_path(root, image, folder), n_classes)]
        link = self.out / "images" / name
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(source, link)
        (self.out / "labels" / name).with_suffix(".txt").write_text("".join(f"{line}\n" for line in lines))
        self.placed[name] = source
        return str(link)


def build_finder_data(
    real: str | Path,
    out: str | Path,
    *,
    synth_train: Sequence[Source] = (),
    synth_val: Sequence[Source] = (),
    real_repeat: int = 1,
) -> dict:
    """Write the merged one-class dataset to OUT; returns counts (train/val images, real/synthetic)."""
    if real_repeat < 1:
        raise FinderDataError("the real train list must be repeated at least once")
    real = Path(real)
    out = Path(out).absolute()
    real_classes = len(class_names(real))
    builder = _Builder(out)
    train: list[str] = []
    val: list[str] = []
    real_train = [builder.place(real, img, real_classes) for img in listed_images(real, "train.txt")]
    train += real_train * real_repeat
    val += [builder.place(real, img, real_classes) for img in listed_images(real, "val.txt")]
    counts = {"real_train": len(real_train) * real_repeat, "real_val": len(val), "synth_train": 0, "synth_val": 0}
    for key, sources, split in (("synth_train", synth_train, train), ("synth_val", synth_val, val)):
        for source in sources:
            n_classes = len(class_names(source.root))
            placed = [builder.place(source.root, img, n_classes) for img in select_images(source)]
            split += placed
            counts[key] += len(placed)
    both = set(train) & set(val)
    if both:
        raise FinderDataError(f"{len(both)} images are in both train and val, e.g. {sorted(both)[0]}")
    (out / "train.txt").write_text("".join(f"{p}\n" for p in train))
    (out / "val.txt").write_text("".join(f"{p}\n" for p in val))
    (out / "data.yaml").write_text(yaml.safe_dump(
        {"path": str(out), "train": "train.txt", "val": "val.txt", "names": FINDER_NAMES}, sort_keys=False))
    return {"train": len(train), "val": len(val), **counts}
