"""`fanshot train finder-data`: merge YOLO sets into the finder's one-class dataset."""
from __future__ import annotations

from pathlib import Path

import yaml
from PIL import Image

from fanshot.cli import main
from training.data import FinderDataError, parse_source

CODES = ["B5", "BACK", "W1"]


def make_yolo(root: Path, prefix: str, n: int, names, *, split: tuple[int, ...] | None = None) -> list[Path]:
    """A tiny YOLO set: image i has i+1 boxes of class i % len(names); split = val indices."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text(yaml.safe_dump({"names": names}))
    images = []
    for i in range(n):
        image = root / "images" / f"{prefix}_{i:03d}.jpg"
        Image.new("RGB", (8, 8)).save(image)
        lines = [f"{i % len(names)} 0.5 0.5 0.{k + 1} 0.2" for k in range(i + 1)]
        (root / "labels" / f"{prefix}_{i:03d}.txt").write_text("\n".join(lines) + "\n")
        images.append(image)
    if split is not None:
        (root / "train.txt").write_text("".join(f"./images/{p.name}\n" for i, p in enumerate(images) if i not in split))
        (root / "val.txt").write_text("".join(f"./images/{p.name}\n" for i, p in enumerate(images) if i in split))
    return images


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_merges_real_and_synthetic_sets_into_one_tile_class(tmp_path, capsys):
    make_yolo(tmp_path / "real", "real", 4, CODES, split=(3,))
    synth = make_yolo(tmp_path / "synth", "syn", 6, {0: "W1", 1: "BACK"})
    out = tmp_path / "out"
    argv = ["train", "finder-data", "--real", str(tmp_path / "real"), "--real-repeat", "2",
            "--synth", f"{tmp_path / 'synth'}:0-1,4-5", "--synth-val", f"{tmp_path / 'synth'}:2-2", "--out", str(out)]
    assert main(argv) == 0
    assert '"train": 10' in capsys.readouterr().out

    data = yaml.safe_load((out / "data.yaml").read_text())
    assert data == {"path": str(out), "train": "train.txt", "val": "val.txt", "names": {0: "tile"}}
    train, val = lines(out / "train.txt"), lines(out / "val.txt")
    real_train = [str(out / "images" / f"real_{i:03d}.jpg") for i in range(3)]
    synth_train = [str(out / "images" / f"syn_{i:03d}.jpg") for i in (0, 1, 4, 5)]
    assert train == real_train * 2 + synth_train
    assert val == [str(out / "images" / "real_003.jpg"), str(out / "images" / "syn_002.jpg")]
    assert not set(train) & set(val)
    assert "syn_003.jpg" not in " ".join(train + val)  # outside every range

    link = out / "images" / "syn_004.jpg"
    assert link.is_symlink() and link.resolve() == synth[4].resolve()
    # every class (BACK and W1 alike) becomes 0; boxes are kept as they were
    assert lines(out / "labels" / "syn_005.txt") == [f"0 0.5 0.5 0.{k + 1} 0.2" for k in range(6)]
    assert lines(out / "labels" / "real_001.txt") == ["0 0.5 0.5 0.1 0.2", "0 0.5 0.5 0.2 0.2"]


def test_a_sources_ignore_regions_are_tiles_to_find(tmp_path):
    """`fanshot synth` writes the strays cut by the frame to ignore/: the finder still learns them."""
    make_yolo(tmp_path / "real", "real", 2, CODES, split=(1,))
    make_yolo(tmp_path / "synth", "syn", 2, CODES)
    (tmp_path / "synth" / "ignore").mkdir()
    (tmp_path / "synth" / "ignore" / "syn_001.txt").write_text("2 0.98 0.5 0.04 0.2\n")
    out = tmp_path / "out"
    assert main(["train", "finder-data", "--real", str(tmp_path / "real"), "--synth", str(tmp_path / "synth"),
                 "--out", str(out)]) == 0
    assert lines(out / "labels" / "syn_001.txt") == ["0 0.5 0.5 0.1 0.2", "0 0.5 0.5 0.2 0.2", "0 0.98 0.5 0.04 0.2"]
    assert lines(out / "labels" / "syn_000.txt") == ["0 0.5 0.5 0.1 0.2"]


def test_an_image_in_both_train_and_val_is_refused(tmp_path, capsys):
    make_yolo(tmp_path / "real", "real", 2, CODES, split=(1,))
    make_yolo(tmp_path / "synth", "syn", 4, CODES)
    argv = ["train", "finder-data", "--real", str(tmp_path / "real"), "--synth", str(tmp_path / "synth"),
            "--synth-val", f"{tmp_path / 'synth'}:3-3", "--out", str(tmp_path / "out")]
    assert main(argv) == 2
    assert "in both train and val" in capsys.readouterr().err


def test_bad_sources_get_a_clear_message(tmp_path, capsys):
    make_yolo(tmp_path / "real", "real", 2, ["B5", "Zebra"], split=(1,))
    assert main(["train", "finder-data", "--real", str(tmp_path / "real"), "--out", str(tmp_path / "o")]) == 2
    assert "unknown tile class names" in capsys.readouterr().err

    make_yolo(tmp_path / "real2", "real", 2, CODES, split=(1,))
    make_yolo(tmp_path / "synth", "syn", 3, CODES)
    argv = ["train", "finder-data", "--real", str(tmp_path / "real2"), "--synth", f"{tmp_path / 'synth'}:1-3",
            "--out", str(tmp_path / "o2")]
    assert main(argv) == 2
    assert "only 3 images" in capsys.readouterr().err


def test_source_ranges_parse():
    assert parse_source("/d/synth-v1").ranges is None
    assert parse_source("/d/synth-v1:0-1499,1560-2999").ranges == ((0, 1499), (1560, 2999))
    for bad in ("/d/s:5-2", "/d/s:a-b"):
        try:
            parse_source(bad)
        except FinderDataError:
            continue
        raise AssertionError(f"{bad} was accepted")
