"""The leave-real-sets-out protocol's lists (no torch needed): which photos each run trains on,
which a group's profile is learnt from and which it is read on."""
from pathlib import Path

import pytest

from training.real_holdout import main, make_lists


def _dataset(root: Path) -> Path:
    # source photo -> (split, boxes); three copies of each, as Roboflow's export has
    sources = {"hand_001_jpg": ("train", 20), "hand_002_jpg": ("train", 30), "hand_003_jpg": ("val", 25),
               "character_family_001_jpg": ("train", 9), "bamboo_family_001_jpg": ("train", 9),
               "circle_family_001_jpg": ("train", 9), "honor_family_002_jpg": ("train", 7),
               "flower_family_002_jpg": ("train", 8), "flower_family_001_jpg": ("val", 8),
               "12345_jpg": ("train", 14), "67890_jpg": ("val", 14)}
    rows, split = ["file,source_name,suggested_split,n_boxes"], {"train": [], "val": []}
    for source, (part, boxes) in sources.items():
        for copy in "abc":
            name = f"{source}.rf.{copy}.jpg"
            rows.append(f"{name},{source},{part},{boxes}")
            split[part].append(f"./images/{name}")
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "manifest.csv").write_text("\n".join(rows) + "\n")
    (root / "data.yaml").write_text("train: train.txt\nval: val.txt\nnc: 43\n")
    for part, files in split.items():
        (root / f"{part}.txt").write_text("\n".join(files) + "\n")
    return root


def _read(path: Path) -> list[str]:
    return [Path(line).name for line in path.read_text().split()]


def test_the_held_run_never_sees_a_left_out_set_and_each_group_is_read_on_its_own_val(tmp_path):
    dataset = _dataset(tmp_path / "data")
    make_lists(tmp_path / "work", dataset)
    ds = tmp_path / "work" / "ds"
    held = _read(ds / "train_held.txt")
    assert held == ["12345_jpg.rf.a.jpg", "12345_jpg.rf.b.jpg", "12345_jpg.rf.c.jpg"]
    assert len(_read(ds / "train_all.txt")) == 24  # 8 train sources, 3 copies each
    assert _read(ds / "val_kept.txt") == ["67890_jpg.rf.a.jpg", "67890_jpg.rf.b.jpg", "67890_jpg.rf.c.jpg"]
    assert _read(ds / "hand_val.txt") == ["hand_003_jpg.rf.a.jpg", "hand_003_jpg.rf.b.jpg", "hand_003_jpg.rf.c.jpg"]
    assert [f.split(".rf.")[0] for f in _read(ds / "family_val.txt")] == ["flower_family_001_jpg"] * 3
    # a profile's photos: one copy of each source, the most boxes first
    assert _read(ds / "hand_learn0.txt") == ["hand_002_jpg.rf.a.jpg"]
    assert _read(ds / "hand_learn1.txt") == ["hand_002_jpg.rf.a.jpg", "hand_001_jpg.rf.a.jpg"]
    assert len(_read(ds / "family_learn0.txt")) == 5
    # the lists name ./images/... of a folder that links the dataset's images and labels
    assert (ds / "images").resolve() == (dataset / "images").resolve()
    assert (ds / "train_held.txt").read_text().startswith("./images/")


def test_a_folder_that_is_not_the_dataset_is_refused_before_anything_is_written(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--work", str(tmp_path / "work"), "--dataset", str(tmp_path / "nothing")])
    assert exit_info.value.code == 2
    assert "no manifest.csv" in capsys.readouterr().err
    assert not (tmp_path / "work").exists()
