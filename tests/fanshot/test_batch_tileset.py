"""`fanshot batch ... --tileset NAME`: photos read as the player's set draws its tiles (the profile's
bytes go to the workers with the job); a set that cannot be read is a message; a re-run into the same
output with another set is refused, not mixed."""
from __future__ import annotations

import pytest
from batch_photos import batch
from tileset_photos import learnt_layout_folder

from datasets import formats
from vision.model_spec import DEFAULT_MODEL_DIR

synth = pytest.importorskip("datasets.synth.generate")
pytestmark = pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.json").is_file(), reason="no trained model")


@pytest.fixture
def layout_folder(tmp_path, monkeypatch):
    """A folder with a layout photo of the altered set 7, and the set learnt from it as "mine" and "other"."""
    return learnt_layout_folder(tmp_path, monkeypatch, ("mine", "other"))[0]


def _tiles(dst) -> list[str]:
    return sorted(b["tile"] for b in formats.read_yolo(dst)[0]["boxes"])


def test_a_batch_reads_with_the_tile_set(layout_folder, tmp_path, capsys):
    from vision.tileset.learn import LAYOUT_ORDER

    code, _, err = batch(capsys, "prelabel", str(layout_folder), "--out", str(tmp_path / "nosuch"), "--tileset", "nosuch")
    assert code == 2 and "--tileset: no tile set named 'nosuch'" in err
    with_set, without = tmp_path / "with", tmp_path / "without"
    assert batch(capsys, "prelabel", str(layout_folder), "--out", str(with_set), "--tileset", "mine", "--workers", "1")[0] == 0
    assert batch(capsys, "prelabel", str(layout_folder), "--out", str(without), "--workers", "1")[0] == 0
    assert _tiles(with_set) == sorted(LAYOUT_ORDER) != _tiles(without)
    # the records of one set are not mixed with another's, nor with none
    for other in (["--tileset", "other"], []):
        code, _, err = batch(capsys, "prelabel", str(layout_folder), "--out", str(with_set), *other)
        assert code == 2 and "holds the records of another job" in err and "tileset" in err
    assert batch(capsys, "prelabel", str(layout_folder), "--out", str(with_set), "--tileset", "mine")[0] == 0
