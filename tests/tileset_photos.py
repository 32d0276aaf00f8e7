"""A labelling folder with a layout photo of the altered set 7 and the set learnt from it, for the
tests of the commands that read with a tile set (labelling, batch)."""
from __future__ import annotations

from pathlib import Path

import cv2


def learnt_layout_folder(tmp_path: Path, monkeypatch, names: tuple[str, ...] = ("mine",)) -> tuple[Path, bytes]:
    """tmp_path/photos holding layout.jpg (the altered set 7 laid out, 43 tiles), and the set learnt
    from it under each of `names` in tmp_path/data (FANSHOT_DATA_DIR). (the folder, the photo's bytes)."""
    from datasets.synth import generate as synth
    from vision.detector import get_detector
    from vision.tileset.learn import learn_layout
    from vision.tileset.store import ProfileStore

    monkeypatch.setenv("FANSHOT_DATA_DIR", str(tmp_path / "data"))
    example = synth.make_example(910000, 0, [1280], None, synth.OneSet(7, True, 43))
    ok, encoded = cv2.imencode(".jpg", cv2.cvtColor(example["image"], cv2.COLOR_RGB2BGR))
    assert ok
    jpeg = encoded.tobytes()
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "layout.jpg").write_bytes(jpeg)
    store = ProfileStore(tmp_path / "data")
    for name in names:
        store.save(learn_layout(get_detector(), jpeg, name)[0])
    return folder, jpeg
