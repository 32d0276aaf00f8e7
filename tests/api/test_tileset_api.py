"""Tile sets through the API (docs/tilesets.md): /api/v1/tilesets learns a set from a layout photo
rendered by `fanshot synth` (a set with faces the shipped classifier misreads), the `tileset` field
of /analyze and /detect reads with it, corrected tiles of an analysed photo are added to it, and
without the field every answer is the pipeline's own. With the shipped model."""
from __future__ import annotations

import dataclasses
import json
import warnings

import cv2
import numpy as np
import pytest
from synth_hand import SYNTH_PHOTO

from api.app import create_app
from api.settings import Settings
from vision.classes import CLASSES
from vision.model_spec import DEFAULT_MODEL_DIR
from vision.tileset.learn import EXAMPLES_PER_TILE, LAYOUT_ORDER

with warnings.catch_warnings():  # starlette's httpx deprecation notice, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

synth = pytest.importorskip("datasets.synth.generate")
pytestmark = pytest.mark.skipif(not (DEFAULT_MODEL_DIR / "model.json").is_file(), reason="no trained model")
SET_SEED = 7  # datasets.synth.tile_set.ALTERED faces: the shipped classifier misreads some


def _jpeg(example: dict) -> bytes:
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(example["image"], cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return buf.tobytes()


@pytest.fixture(scope="module")
def layout() -> tuple[bytes, dict]:
    example = synth.make_example(910000, 0, [1280], None, synth.OneSet(SET_SEED, True, 43))
    return _jpeg(example), example["record"]


@pytest.fixture(scope="module")
def scene() -> tuple[bytes, dict]:
    example = synth.make_example(920000, 1, [1280], None, synth.OneSet(SET_SEED, True))
    return _jpeg(example), example["record"]


def _photo(data: bytes, name: str = "photo.jpg") -> dict:
    return {"image": (name, data, "image/jpeg")}


def _learn(client, name: str, data: bytes, **form):
    return client.post(f"/api/v1/tilesets/{name}/layout", files=_photo(data, "layout.jpg"), data=form)


def _right(detections: list[dict], record: dict) -> int:
    from vision.boxes import iou_matrix

    truth = [b for b in record["boxes"] if not b.get("ignore")]
    iou = iou_matrix(np.array([b["box"] for b in truth]), np.array([d["box"] for d in detections]).reshape(-1, 4))
    return sum(bool(iou.shape[1]) and iou[i].max() >= 0.5 and detections[int(iou[i].argmax())]["tile"] == b["tile"]
               for i, b in enumerate(truth))


def test_a_layout_photo_is_learnt_and_the_field_reads_with_it(client, layout):
    data, record = layout
    learnt = _learn(client, "mine", data)
    assert learnt.status_code == 200, learnt.text
    body = learnt.json()
    assert body["learnt"]["tiles"] == 43 and body["learnt"]["rows"] == [9, 9, 9, 9, 7]
    assert not body["learnt"]["reversed"] and body["learnt"]["missed"] == 0 and set(body["tiles"]) == set(CLASSES)
    assert body["learnt"]["left_out"] == 0
    assert body["examples"] == sum(body["tiles"].values()) == 43 * EXAMPLES_PER_TILE
    assert [(s["kind"], s["times"], s["tiles"]) for s in body["sources"]] == [("layout", 1, 43)]
    assert body["missed"] == [] and body["searched"] is False  # the finder found every tile of the layout
    listed = client.get("/api/v1/tilesets").json()["tilesets"]
    assert [(t["name"], t["summary"]["examples"]) for t in listed] == [("mine", 43 * EXAMPLES_PER_TILE)]
    assert client.get("/api/v1/tilesets/mine").json() == {k: v for k, v in body.items() if k != "learnt"}

    plain = client.post("/api/v1/detect", files=_photo(data)).json()["detections"]
    read = client.post("/api/v1/detect", files=_photo(data), data={"tileset": "mine"}).json()["detections"]
    assert _right(read, record) == 43 > _right(plain, record)  # its own layout, every tile
    assert [b["tile"] for b in record["boxes"]] == LAYOUT_ORDER

    again = _learn(client, "mine", data, add="true").json()  # --add: the examples of both photos
    assert again["examples"] == 2 * 43 * EXAMPLES_PER_TILE and [s["times"] for s in again["sources"]] == [2]
    assert client.delete("/api/v1/tilesets/mine").json() == {"name": "mine", "deleted": True}
    gone = client.delete("/api/v1/tilesets/mine")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "tileset_not_found"
    assert client.get("/api/v1/tilesets").json() == {"tilesets": []}


def test_without_the_field_the_answers_are_the_pipelines_own(client, layout, scene):
    from vision.analyze import analyze_photo
    from vision.detector import detect_photo, get_detector

    assert _learn(client, "mine", layout[0]).status_code == 200  # a set there changes nothing unasked
    data = scene[0]
    detector = get_detector()
    detected = client.post("/api/v1/detect", files=_photo(data))
    assert detected.content == json.dumps(detect_photo(detector, data), separators=(",", ":")).encode()
    analysed = client.post("/api/v1/analyze", files=_photo(data), data={"inline_image": "true"}).json()
    expected = analyze_photo(data, {}, "mcr", detector).analysis.to_json()
    expected = json.loads(json.dumps(expected))
    expected_tiles, tiles = expected.pop("tiles"), analysed.pop("tiles")
    assert len(tiles) == len(expected_tiles) > 10  # each tile as the pipeline read it (the schema adds defaults)
    assert [{k: got[k] for k in want} for got, want in zip(tiles, expected_tiles)] == expected_tiles
    assert {k: analysed[k] for k in expected} == expected
    assert analysed["photo_id"] is None
    with_set = client.post("/api/v1/analyze", files=_photo(data), data={"tileset": "mine", "inline_image": "true"})
    assert with_set.json()["tiles"] != tiles  # the field reaches the reader


def test_an_unknown_corrupt_or_misnamed_set_is_a_clear_error(client, layout, make_client):
    missing = client.post("/api/v1/detect", files=_photo(layout[0]), data={"tileset": "nosuch"})
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "tileset_not_found" and missing.json()["error"]["params"]["known"] == []
    assert _learn(client, "good", layout[0]).status_code == 200
    folder = client.app.state.settings.data_dir / "tilesets"
    (folder / "broken.tileset").write_bytes(b"not a profile")
    for route in ("/api/v1/detect", "/api/v1/analyze"):
        missing = client.post(route, files=_photo(layout[0]), data={"tileset": "nosuch"}).json()["error"]
        assert missing["code"] == "tileset_not_found" and missing["params"]["known"] == ["broken", "good"]
        broken = client.post(route, files=_photo(layout[0]), data={"tileset": "broken"})
        assert broken.status_code == 422 and broken.json()["error"]["code"] == "tileset_unreadable"
        assert "not a fanshot tile-set profile" in broken.json()["error"]["message"]
        bad = client.post(route, files=_photo(layout[0]), data={"tileset": "../etc"})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_request"
    assert client.get("/api/v1/tilesets/broken").json()["error"]["code"] == "tileset_unreadable"
    listed = {t["name"]: t for t in client.get("/api/v1/tilesets").json()["tilesets"]}
    assert listed["broken"]["summary"] is None and "not a fanshot" in listed["broken"]["error"]
    assert listed["good"]["summary"]["examples"] == 43 * EXAMPLES_PER_TILE


def test_a_layout_that_does_not_fit_is_refused_saying_what_was_found_and_nothing_is_saved(client, layout):
    refused = _learn(client, "mine", SYNTH_PHOTO.read_bytes())
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "layout_mismatch" and "nothing saved" in error["message"]
    assert f"found {error['params']['found']} tiles in {len(error['params']['rows'])} rows" in error["message"]
    assert client.get("/api/v1/tilesets").json() == {"tilesets": []}
    assert _learn(client, "mine", layout[0]).status_code == 200
    again = _learn(client, "mine", SYNTH_PHOTO.read_bytes(), add="true")
    assert again.status_code == 422 and client.get("/api/v1/tilesets/mine").json()["examples"] == 43 * EXAMPLES_PER_TILE
    not_image = _learn(client, "mine", b"not an image")
    assert not_image.status_code == 415 and not_image.json()["error"]["code"] == "not_an_image"


def test_corrected_tiles_of_an_analysed_photo_are_added_to_the_set(client, layout, scene):
    assert _learn(client, "mine", layout[0]).status_code == 200
    analysed = client.post("/api/v1/analyze", files=_photo(scene[0]), data={"tileset": "mine"}).json()
    photo_id = analysed["photo_id"]
    assert photo_id.startswith("photo-")
    assert client.get(f"/api/v1/images/{photo_id}.jpg").status_code == 404  # kept, never served
    first, second = analysed["tiles"][:2]
    corrections = [{"tile": "J3", "box": first["box"]}, {"tile": second["tile"], "box": second["box"]}]
    added = client.post("/api/v1/tilesets/mine/examples", json={"photo_id": photo_id, "tiles": corrections})
    assert added.status_code == 200, added.text
    body = added.json()
    assert body["examples"] == 45 * EXAMPLES_PER_TILE and body["tiles"]["J3"] == 2 * EXAMPLES_PER_TILE
    assert [(s["kind"], s["times"], s["tiles"]) for s in body["sources"]] == [("layout", 1, 43), ("correction", 1, 2)]

    def error(name: str, payload: dict) -> tuple[int, str]:
        answer = client.post(f"/api/v1/tilesets/{name}/examples", json=payload)
        return answer.status_code, answer.json()["error"]["code"]

    assert error("mine", {"photo_id": "photo-nosuch", "tiles": corrections}) == (404, "photo_not_found")
    assert error("other", {"photo_id": photo_id, "tiles": corrections}) == (404, "tileset_not_found")
    assert error("mine", {"photo_id": photo_id, "tiles": [{"tile": "W1", "box": [-50, -50, -10, -10]}]}) == (
        422, "bad_boxes")
    assert error("mine", {"photo_id": photo_id, "tiles": [{"tile": "X9", "box": first["box"]}]}) == (
        422, "invalid_request")
    assert error("mine", {"photo_id": photo_id, "tiles": []}) == (422, "invalid_request")
    assert client.get("/api/v1/tilesets/mine").json()["examples"] == 45 * EXAMPLES_PER_TILE  # the refused ones added nothing


def test_the_field_is_read_in_worker_processes(tmp_path, layout):
    settings = dataclasses.replace(Settings(), inference_processes=True, inference_workers=1, data_dir=tmp_path)
    with TestClient(create_app(settings)) as client:
        assert _learn(client, "mine", layout[0]).status_code == 200
        read = client.post("/api/v1/detect", files=_photo(layout[0]), data={"tileset": "mine"})
        assert read.status_code == 200 and _right(read.json()["detections"], layout[1]) == 43
        assert client.post("/api/v1/detect", files=_photo(layout[0]), data={"tileset": "x"}).status_code == 404


def test_the_schema_lists_the_field_and_the_routes(client):
    schema = client.get("/openapi.json").json()
    for route in ("/api/v1/analyze", "/api/v1/detect"):
        form = schema["paths"][route]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]["$ref"]
        field = schema["components"]["schemas"][form.rsplit("/", 1)[1]]["properties"]["tileset"]
        assert field["type"] == "string" and field["pattern"].startswith("^[A-Za-z0-9]")
    assert {"/api/v1/tilesets", "/api/v1/tilesets/{name}", "/api/v1/tilesets/{name}/layout",
            "/api/v1/tilesets/{name}/examples"} <= set(schema["paths"])
