"""`fanshot detect / eval / bench-detect`: clear messages and exit codes, never a traceback."""
from __future__ import annotations

import pytest

from fanshot.cli import main


@pytest.mark.parametrize(
    "argv",
    [
        ["detect", "photo.jpg"],
        ["bench-detect"],
    ],
)
def test_without_a_model_the_commands_say_so(tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv + ["--model-dir", str(tmp_path)])
    assert info.value.code == 2
    assert "no detector model" in capsys.readouterr().err


def test_eval_on_a_folder_that_is_no_dataset(tmp_path, capsys):
    assert main(["eval", "--data", str(tmp_path), "--model-dir", str(tmp_path)]) == 2
    assert "data.yaml" in capsys.readouterr().err
