"""`fanshot train` without the `train` extra, or on a folder that is no dataset: a message, not a traceback."""
from __future__ import annotations

import pytest

from fanshot.cli import main


def _missing(name):
    def stage(*_args, **_kwargs):
        raise ModuleNotFoundError(f"No module named '{name}'", name=name)

    return stage


def test_a_stage_without_the_train_extra_says_how_to_get_it(monkeypatch, capsys):
    import training.classifier

    monkeypatch.setattr(training.classifier, "train_classifier", _missing("torch"))
    assert main(["train", "classifier", "--crops", "a.npz", "--run", "run"]) == 2
    err = capsys.readouterr().err
    assert "train classifier: needs the `train` extra (torch is not installed here)" in err
    assert "make train-env" in err


def test_another_missing_module_is_not_taken_for_the_train_extra(monkeypatch):
    import training.classifier

    monkeypatch.setattr(training.classifier, "train_classifier", _missing("numpy"))
    with pytest.raises(ModuleNotFoundError):
        main(["train", "classifier", "--crops", "a.npz", "--run", "run"])


def test_crops_of_a_folder_that_is_no_dataset_is_a_message(tmp_path, capsys):
    assert main(["train", "crops", "--data", str(tmp_path), "--out", str(tmp_path / "c.npz")]) == 2
    assert f"train crops: {tmp_path} is not a YOLO dataset: no data.yaml" in capsys.readouterr().err
    assert not (tmp_path / "c.npz").exists()
