"""The classifier's sampling (numpy only: torch is not needed to test it)."""
import numpy as np
import pytest

from training.classifier import sampling_weights
from training.crops import CONTEXT_WH, augment
from vision.classes import CLASS_ID


def test_each_source_is_drawn_with_its_share_and_classes_balanced_inside_it():
    # source 0: 60 crops of W1 and 40 of W2; source 1: 5 crops of B5
    labels = np.array([CLASS_ID["W1"]] * 60 + [CLASS_ID["W2"]] * 40 + [CLASS_ID["B5"]] * 5)
    sources = np.array([0] * 100 + [1] * 5)
    weights = sampling_weights(labels, sources, [0.7, 0.3])
    assert weights.sum() == pytest.approx(1.0)
    assert weights[sources == 0].sum() == pytest.approx(0.7)
    assert weights[sources == 1].sum() == pytest.approx(0.3)
    w1 = weights[labels == CLASS_ID["W1"]].sum()
    w2 = weights[labels == CLASS_ID["W2"]].sum()
    assert w1 == pytest.approx(w2)  # balanced: 60 and 40 crops drawn equally often


def test_rare_classes_are_drawn_at_most_four_times_the_median():
    labels = np.array([0] * 100 + [1] * 100 + [2] * 100 + [3] * 1)
    weights = sampling_weights(labels, np.zeros(len(labels), int), None)
    per_crop_common, per_crop_rare = weights[0], weights[-1]
    assert per_crop_rare / per_crop_common == pytest.approx(4.0)


def test_without_shares_sources_are_drawn_by_size():
    labels = np.zeros(30, int)
    sources = np.array([0] * 10 + [1] * 20)
    weights = sampling_weights(labels, sources, None)
    assert weights[sources == 1].sum() == pytest.approx(2 / 3)


def test_mirror_flips_the_crop_left_to_right():
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    cw, ch = CONTEXT_WH
    context = np.zeros((ch, cw, 3), np.uint8)
    context[:, : cw // 2] = 255  # left half white
    plain = augment(context, (40, 56), 0.08, rng_a, mirror=0.0)
    flipped = augment(context, (40, 56), 0.08, rng_b, mirror=1.0)
    # same random draws up to the flip: the bright side moves
    left, right = slice(0, 12), slice(28, 40)
    assert plain[:, left].mean() != pytest.approx(flipped[:, left].mean(), abs=20)
    assert (plain[:, left].mean() > plain[:, right].mean()) != (flipped[:, left].mean() > flipped[:, right].mean())


def test_crop_files_of_different_sizes_are_refused_before_training(tmp_path, capsys):
    # crops cut for m64 and for m96 cannot be drawn together (np.concatenate failed deep inside)
    from fanshot.cli import main

    for name, (h, w) in (("a.npz", (96, 72)), ("b.npz", (144, 108))):
        np.savez(tmp_path / name, crops=np.zeros((2, h, w, 3), np.uint8), labels=np.zeros(2, np.int64))
    code = main(["train", "classifier", "--crops", str(tmp_path / "a.npz"), str(tmp_path / "b.npz"),
                 "--run", str(tmp_path / "run"), "--arch", "m64"])
    assert code == 2
    assert "crops of different sizes" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_crops_cut_for_a_smaller_input_are_refused_for_a_larger_arch():
    from training.classifier import check_crop_size

    check_crop_size((5, 96, 72, 3), "m64")
    check_crop_size((5, 144, 108, 3), "m64")  # larger crops are shrunk: fine
    check_crop_size((5, 144, 108, 3), "m96")
    with pytest.raises(ValueError, match="too small for arch m96"):
        check_crop_size((5, 96, 72, 3), "m96")


def test_a_crop_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    from training import crops as crops_module

    out = tmp_path / "crops.npz"
    crops = np.zeros((3, 8, 6, 3), np.uint8)
    labels = np.array([0, 1, 2])
    crops_module._save(out, crops, labels)
    assert np.load(out)["labels"].tolist() == [0, 1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["crops.npz"]

    def dies_while_writing(f, **arrays):
        f.write(b"PK\x03\x04 half")
        raise KeyboardInterrupt

    monkeypatch.setattr(crops_module.np, "savez", dies_while_writing)
    with pytest.raises(KeyboardInterrupt):
        crops_module._save(tmp_path / "next.npz", crops, labels)
    assert not (tmp_path / "next.npz").exists()  # a resumed job cuts it again
