"""The labelling tool started with a tile set (`fanshot label DIR --tileset NAME`): photos are
pre-labelled reading with the set, and a saved box whose tile a person changed adds its crop to the
set (api/label/corrections.py)."""
from __future__ import annotations

import warnings

import pytest
from label_app import labelling_app
from tileset_photos import learnt_layout_folder

from api.label.corrections import corrected
from api.label.state import configure_labelling
from fanshot.cli import main
from vision.model_spec import DEFAULT_MODEL_DIR
from vision.tileset.learn import EXAMPLES_PER_TILE, LAYOUT_ORDER
from vision.tileset.store import ProfileStore

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

synth = pytest.importorskip("datasets.synth.generate")


@pytest.fixture
def learnt_folder(tmp_path, monkeypatch):
    """A labelling folder holding a layout photo of the altered set 7, and the set learnt from it as
    "mine" in the data directory. (folder, the photo's bytes)."""
    return learnt_layout_folder(tmp_path, monkeypatch)


def test_only_boxes_whose_tile_changed_are_corrections():
    before = [{"tile": "W1", "box": [0, 0, 10, 10]}, {"tile": "W2", "box": [20, 0, 30, 10]}]
    after = [{"tile": "W1", "box": [0, 0, 10, 11]}, {"tile": "W3", "box": [21, 0, 31, 10]},
             {"tile": "W4", "box": [50, 0, 60, 10]}]  # moved a little; changed; a new box (not a correction)
    assert corrected(before, after) == [after[1]]
    assert corrected([], after) == [] and corrected(before, []) == []


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.json").is_file(), reason="no trained model")
def test_a_corrected_tile_is_added_to_the_labelling_tile_set(learnt_folder, tmp_path):
    from vision.detector import detect_photo, get_detector

    folder, jpeg = learnt_folder
    store = ProfileStore(tmp_path / "data")
    assert main(["label", str(folder), "--tileset", "nosuch"]) == 2  # refused before serving

    app = labelling_app()
    configure_labelling(app, folder, tileset="mine")
    with TestClient(app) as client:
        boxes = client.get("/api/v1/label/labels", params={"path": "layout.jpg"}).json()["boxes"]
        # pre-labelled reading with the set: its altered faces the shipped classifier alone misreads
        assert sorted(b["tile"] for b in boxes) == sorted(LAYOUT_ORDER)
        plain = detect_photo(get_detector(), jpeg)["detections"]
        assert sorted(d["tile"] for d in plain) != sorted(LAYOUT_ORDER)
        unchanged = client.put("/api/v1/label/labels", params={"path": "layout.jpg"}, json={"boxes": boxes}).json()
        assert "tileset" not in unchanged  # nothing corrected
        changed = [dict(b) for b in boxes]
        changed[0] = {**changed[0], "tile": "J3" if changed[0]["tile"] != "J3" else "J2", "score": None}
        saved = client.put("/api/v1/label/labels", params={"path": "layout.jpg"}, json={"boxes": changed}).json()
    assert saved["tileset"] == {"name": "mine", "added": 1, "examples": 44 * EXAMPLES_PER_TILE}
    assert [(s["kind"], s["tiles"]) for s in store.load("mine").summary()["sources"]] == [("layout", 43),
                                                                                           ("correction", 1)]


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.json").is_file(), reason="no trained model")
def test_the_service_prelabels_with_the_labelling_tile_set(learnt_folder):
    # `fanshot label DIR --tileset NAME` runs the service's app: its inference pool reads with the set
    from api.app import create_app

    folder, _ = learnt_folder
    app = create_app()
    configure_labelling(app, folder, tileset="mine")
    with TestClient(app) as client:
        boxes = client.get("/api/v1/label/labels", params={"path": "layout.jpg"}).json()["boxes"]
    assert sorted(b["tile"] for b in boxes) == sorted(LAYOUT_ORDER)


@pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.json").is_file(), reason="no trained model")
def test_prelabel_reads_with_the_tile_set(learnt_folder, capsys):
    from api.label.store import LabelStore

    folder, _ = learnt_folder
    assert main(["label", str(folder), "--prelabel", "--tileset", "nosuch"]) == 2
    assert "no tile set named 'nosuch'" in capsys.readouterr().err
    assert main(["label", str(folder), "--prelabel", "--tileset", "mine"]) == 0
    boxes = LabelStore(folder).load("layout.jpg")["boxes"]  # the label file written
    assert sorted(b["tile"] for b in boxes) == sorted(LAYOUT_ORDER)


class _Finder:
    """A detector that finds one W1 (the tiles a person then corrects)."""

    model_version = "fake-1"
    classifier = None  # no set is learnt with it

    def detect(self, rgb, **_):
        from vision.detections import Detections

        return Detections([{"tile": "W1", "box": [10, 10, 60, 80], "score": 0.9}])


def test_the_listing_names_the_set_and_remember_false_keeps_no_correction(tmp_path, monkeypatch):
    import io

    from PIL import Image

    monkeypatch.setenv("FANSHOT_DATA_DIR", str(tmp_path / "data"))  # no set "mine" there: adding fails, said
    buffer = io.BytesIO()
    Image.new("RGB", (200, 100), (236, 228, 200)).save(buffer, format="JPEG")
    (tmp_path / "a.jpg").write_bytes(buffer.getvalue())
    app = labelling_app()
    with TestClient(app) as client:
        configure_labelling(app, tmp_path, detector=_Finder())
        assert "tileset" not in client.get("/api/v1/label/images").json()
        configure_labelling(app, tmp_path, detector=_Finder(), tileset="mine")
        assert client.get("/api/v1/label/images").json()["tileset"] == "mine"
        put = lambda tile, **params: client.put(  # noqa: E731
            "/api/v1/label/labels", params={"path": "a.jpg", **params},
            json={"boxes": [{"tile": tile, "box": [10, 10, 60, 80], "score": None}]})
        first = client.get("/api/v1/label/labels", params={"path": "a.jpg"}).json()["boxes"]
        assert [b["tile"] for b in first] == ["W1"]
        assert put("W1").json().get("tileset") is None  # saved as read: nothing corrected
        unremembered = put("W2", remember="false")
        assert unremembered.status_code == 200 and "tileset" not in unremembered.json()
        remembered = put("W3").json()
        assert remembered["tileset"]["name"] == "mine" and "error" in remembered["tileset"]
        assert [b["tile"] for b in remembered["boxes"]] == ["W3"]  # the labels saved either way
        assert put("W4", remember="maybe").status_code == 422
