"""The labelling tool against a hostile or unlucky client (issue 36): non-finite numbers, deep
nesting, long names, file modes, a kill between two writes, the size of the undo history,
label files linked out of the folder, and one spelling per image name."""
from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from label_app import labelling_app
from PIL import Image

import api.label.sidecar as sidecar_module
import api.label.store as store_module
from api.label.boxes import validate_boxes
from api.label.errors import LabelError
from api.label.state import configure_labelling
from api.label.store import LabelStore
from vision.detections import Detections

REPO = Path(__file__).resolve().parents[2]
DETECTIONS = [
    {"tile": "W1", "box": [10, 10, 50, 70], "score": 0.95},
    {"tile": "B4", "box": [60, 10, 100, 70], "score": 0.41},
]


class FakeDetector:
    model_version = "fake-1"

    def detect(self, rgb, **_):
        return Detections([dict(d) for d in DETECTIONS])


def jpeg_bytes(size=(200, 100)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, (90, 120, 160)).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.fixture
def folder(tmp_path):
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "a.jpg").write_bytes(jpeg_bytes())
    (data / "sub" / "b.jpg").write_bytes(jpeg_bytes((100, 200)))
    (tmp_path / "outside").mkdir()
    return data


@pytest.fixture
def client(folder):
    app = labelling_app()
    configure_labelling(app, folder, detector=FakeDetector())
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def store_of(folder) -> LabelStore:
    return LabelStore(folder, detector_factory=FakeDetector)


def sidecar(folder, rel="a.jpg") -> Path:
    return folder / ".fanshot" / (rel + ".json")


def put_raw(client, body: bytes, path="a.jpg"):
    return client.put("/api/v1/label/labels", params={"path": path}, content=body,
                      headers={"content-type": "application/json"})


def error_code(response) -> str:
    return response.json()["error"]["code"]


# 1. non-finite numbers ------------------------------------------------------------------------

@pytest.mark.parametrize("score", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_non_finite_score_is_refused_and_nothing_is_written(client, folder, score):
    client.get("/api/v1/label/labels", params={"path": "a.jpg"})
    label, side = (folder / "a.txt").read_bytes(), sidecar(folder).read_bytes()
    body = '{"boxes":[{"tile":"W1","box":[1,1,20,20],"score":%s}]}' % score
    response = put_raw(client, body.encode())
    assert 400 <= response.status_code < 500 and "error" in response.json()
    assert (folder / "a.txt").read_bytes() == label and sidecar(folder).read_bytes() == side
    assert client.get("/api/v1/label/labels", params={"path": "a.jpg"}).status_code == 200
    assert client.get("/api/v1/label/images").status_code == 200


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_validate_boxes_refuses_non_finite_numbers(value):
    for box in ({"tile": "W1", "box": [1, 1, 20, 20], "score": value},
                {"tile": "W1", "box": [1, 1, value, 20], "score": None}):
        with pytest.raises(LabelError) as refused:
            validate_boxes([box])
        assert refused.value.status == 422 and refused.value.code == "bad_boxes"


def test_a_sidecar_that_already_holds_nan_is_read_with_a_warning(client, folder):
    client.get("/api/v1/label/labels", params={"path": "a.jpg"})
    client.put("/api/v1/label/labels", params={"path": "a.jpg"},
               json={"boxes": [{"tile": "B5", "box": [60, 10, 100, 70], "score": 0.5}]})
    data = json.loads(sidecar(folder).read_text())
    data["scores"] = [float("nan")]
    data["history"][0]["scores"] = [float("inf"), 0.41]
    sidecar(folder).write_text(json.dumps(data))  # json.dumps writes NaN / Infinity, as the defect did

    doc = client.get("/api/v1/label/labels", params={"path": "a.jpg"})
    assert doc.status_code == 200
    assert [b["score"] for b in doc.json()["boxes"]] == [None]
    assert any("a.jpg" in w and "not a number" in w for w in doc.json()["warnings"])
    listing = client.get("/api/v1/label/images")
    assert listing.status_code == 200
    assert any("a.jpg" in w and "not a number" in w for w in listing.json()["warnings"])
    undone = client.post("/api/v1/label/undo", params={"path": "a.jpg"})
    assert undone.status_code == 200
    assert sorted(b["score"] for b in undone.json()["boxes"] if b["score"] is not None) == [0.41]
    assert client.get("/api/v1/label/images").status_code == 200


# 2. deep nesting -------------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [100_000, 200])
def test_a_deeply_nested_body_is_a_400_json_error(client, folder, depth):
    client.get("/api/v1/label/labels", params={"path": "a.jpg"})
    label = (folder / "a.txt").read_bytes()
    response = put_raw(client, b"[" * depth + b"]" * depth)
    assert response.status_code == 400 and error_code(response) == "bad_json"
    nested = put_raw(client, b'{"boxes": ' + b"[" * depth + b"]" * depth + b"}")
    assert nested.status_code == 400 and error_code(nested) == "bad_json"
    assert (folder / "a.txt").read_bytes() == label


# 8. long names ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["x" * 300 + ".jpg", "é" * 130 + ".jpg", "x" * 247 + ".jpg"])
def test_an_upload_whose_name_is_too_long_is_a_clear_4xx(client, folder, name):
    def images() -> list[str]:  # the tool's own .fanshot (its lock) aside
        return sorted(p.name for p in folder.iterdir() if p.name != ".fanshot")

    before = images()
    response = client.post("/api/v1/label/images", files={"file": (name, jpeg_bytes(), "image/jpeg")})
    assert response.status_code == 400 and error_code(response) == "name_too_long"
    assert "255" in response.json()["error"]["message"] or "bytes" in response.json()["error"]["message"]
    assert images() == before


def test_the_longest_accepted_name_can_be_labelled(client, folder):
    name = "x" * 246 + ".jpg"  # its sidecar name, NAME.json, is 255 bytes
    response = client.post("/api/v1/label/images", files={"file": (name, jpeg_bytes(), "image/jpeg")})
    assert response.status_code == 201 and response.json()["path"] == name
    assert client.get("/api/v1/label/labels", params={"path": name}).status_code == 200
    saved = client.put("/api/v1/label/labels", params={"path": name},
                       json={"boxes": [{"tile": "B5", "box": [60, 10, 100, 70]}]})
    assert saved.status_code == 200 and saved.json()["undo"] == 1
    again = client.post("/api/v1/label/images", files={"file": (name, jpeg_bytes(), "image/jpeg")})
    assert again.status_code == 400 and error_code(again) == "name_too_long"  # NAME-1.jpg would be too long


# 10. file modes --------------------------------------------------------------------------------

def test_a_rewritten_label_file_keeps_its_mode(client, folder):
    client.get("/api/v1/label/labels", params={"path": "a.jpg"})
    for mode in (0o644, 0o664, 0o640):
        os.chmod(folder / "a.txt", mode)
        response = client.put("/api/v1/label/labels", params={"path": "a.jpg"},
                              json={"boxes": [{"tile": "B5", "box": [60, 10, 100, 70]}]})
        assert response.status_code == 200
        assert stat.S_IMODE((folder / "a.txt").stat().st_mode) == mode
        client.post("/api/v1/label/undo", params={"path": "a.jpg"})
        assert stat.S_IMODE((folder / "a.txt").stat().st_mode) == mode


def test_a_new_label_file_gets_the_default_mode(client, folder):
    old = os.umask(0o022)
    try:
        client.get("/api/v1/label/labels", params={"path": "a.jpg"})
    finally:
        os.umask(old)
    assert stat.S_IMODE((folder / "a.txt").stat().st_mode) == 0o644
    assert stat.S_IMODE(sidecar(folder).stat().st_mode) == 0o644


# 11. a kill between the label write and the sidecar write --------------------------------------

class Killed(BaseException):
    """Stands in for SIGKILL: nothing after it runs."""


def kill_at_second_write(monkeypatch):
    real = store_module.write_atomically
    calls = []

    def write(path, text):
        calls.append(path)
        if len(calls) == 2:
            raise Killed(path)
        real(path, text)

    monkeypatch.setattr(store_module, "write_atomically", write)
    return calls


def assert_consistent_after_save(doc, before):
    """Either the save happened whole (undo back to `before`) or not at all."""
    if [b["tile"] for b in doc["boxes"]] == ["B5"]:
        assert doc["undo"] == before["undo"] + 1 and doc["reviewed"]
    else:
        assert doc["boxes"] == before["boxes"] and doc["undo"] == before["undo"]
        assert doc["reviewed"] == before["reviewed"]


def test_a_kill_between_the_two_writes_of_a_save_leaves_a_consistent_state(folder, monkeypatch):
    before = store_of(folder).load("a.jpg")
    assert [b["score"] for b in before["boxes"]] == [0.41, 0.95]
    kill_at_second_write(monkeypatch)
    with pytest.raises(Killed):
        store_of(folder).save("a.jpg", [{"tile": "B5", "box": [60, 10, 100, 70]}])
    monkeypatch.undo()
    restarted = store_of(folder)
    doc = restarted.load("a.jpg")
    assert_consistent_after_save(doc, before)
    listed = {e["path"]: e for e in restarted.list_images()[0]}["a.jpg"]
    assert (listed["boxes"], listed["reviewed"]) == (len(doc["boxes"]), doc["reviewed"])
    if doc["undo"]:
        assert restarted.undo("a.jpg")["boxes"] == before["boxes"]  # the detector's scores too


def test_a_kill_between_the_two_writes_of_an_undo_leaves_a_consistent_state(folder, monkeypatch):
    prelabel = store_of(folder).load("a.jpg")
    saved = store_of(folder).save("a.jpg", [{"tile": "B5", "box": [60, 10, 100, 70]}])
    kill_at_second_write(monkeypatch)
    with pytest.raises(Killed):
        store_of(folder).undo("a.jpg")
    monkeypatch.undo()
    doc = store_of(folder).load("a.jpg")
    if doc["undo"] == 0:
        assert doc["boxes"] == prelabel["boxes"] and not doc["reviewed"]
    else:
        assert doc["boxes"] == saved["boxes"] and doc["undo"] == 1
        assert store_of(folder).undo("a.jpg")["boxes"] == prelabel["boxes"]


KILL_SCRIPT = """
import os, signal, sys
from api.label.store import LabelStore
from vision.detections import Detections

class Detector:
    def detect(self, rgb, **_):
        return Detections([{"tile": "W1", "box": [10, 10, 50, 70], "score": 0.95},
                           {"tile": "B4", "box": [60, 10, 100, 70], "score": 0.41}])

store = LabelStore(sys.argv[1], detector_factory=Detector)
store.load("a.jpg")
real, calls = os.replace, []

def replace(src, dst):
    calls.append(dst)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    real(src, dst)

os.replace = replace  # the store's atomic writes: 1 sidecar, 2 label file (or the other way round)
store.save("a.jpg", [{"tile": "B5", "box": [60, 10, 100, 70]}])
"""


def test_a_process_killed_between_the_two_writes_recovers_on_the_next_read(folder):
    run = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(folder)], cwd=REPO, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True)
    assert run.returncode == -signal.SIGKILL, run.stderr
    before = {"boxes": [{"tile": "B4", "box": [60.0, 10.0, 100.0, 70.0], "score": 0.41},
                        {"tile": "W1", "box": [10.0, 10.0, 50.0, 70.0], "score": 0.95}],
              "undo": 0, "reviewed": False}
    assert_consistent_after_save(store_of(folder).load("a.jpg"), before)


# 12. the undo history is bounded ---------------------------------------------------------------

def test_the_undo_history_is_bounded_in_steps_and_bytes(folder, monkeypatch):
    monkeypatch.setattr(sidecar_module, "HISTORY_BYTES", 20_000)
    monkeypatch.setattr(sidecar_module, "HISTORY_LIMIT", 5)
    store = store_of(folder)
    store.load("a.jpg")
    many = [{"tile": "B5", "box": [x, 10, x + 2, 70]} for x in range(0, 180, 2)]  # ~3 KB of YOLO text
    for n in range(12):
        doc = store.save("a.jpg", many[: 60 + n])
    history = json.loads(sidecar(folder).read_text())["history"]
    assert doc["undo"] == len(history) <= 5
    assert len(json.dumps(history)) <= 20_000 and len(history) >= 1
    for step in range(doc["undo"]):  # the newest steps are the ones kept
        assert len(store.undo("a.jpg")["boxes"]) == 60 + 10 - step


def test_the_last_step_is_kept_even_when_it_alone_is_over_the_byte_bound(folder, monkeypatch):
    monkeypatch.setattr(sidecar_module, "HISTORY_BYTES", 100)
    store = store_of(folder)
    store.load("a.jpg")
    store.save("a.jpg", [{"tile": "B5", "box": [60, 10, 100, 70]}])
    doc = store.save("a.jpg", [{"tile": "B6", "box": [60, 10, 100, 70]}])
    assert doc["undo"] == 1 and [b["tile"] for b in store.undo("a.jpg")["boxes"]] == ["B5"]


# 13. a label file linked out of the folder -----------------------------------------------------

def test_a_label_file_linked_outside_is_skipped_and_reported(client, folder):
    secret = folder.parent / "outside" / "secret.txt"
    secret.write_text("0 0.5 0.5 0.1 0.1\n" * 7)
    client.get("/api/v1/label/labels", params={"path": "sub/b.jpg"})
    os.symlink(secret, folder / "a.txt")

    listing = client.get("/api/v1/label/images")
    assert listing.status_code == 200
    entry = next(e for e in listing.json()["images"] if e["path"] == "a.jpg")
    assert entry["boxes"] != 7 and not entry["labelled"]
    assert [w for w in listing.json()["warnings"] if "a.txt" in w and "outside" in w]

    for fmt in ("yolo", "coco", "labelstudio"):
        response = client.get("/api/v1/label/export", params={"format": fmt})
        assert response.status_code == 200, (fmt, response.content[:200])
        warnings = json.loads(response.headers["x-fanshot-warnings"])
        assert [w for w in warnings if "a.txt" in w and "outside" in w]
    coco = client.get("/api/v1/label/export", params={"format": "coco"}).json()
    assert [im["file_name"] for im in coco["images"]] == ["sub/b.jpg"]
    assert secret.read_text() == "0 0.5 0.5 0.1 0.1\n" * 7


# 14. one spelling per image name --------------------------------------------------------------

@pytest.mark.parametrize("path", ["./a.jpg", "a.jpg/", "a.jpg/.", "sub//b.jpg", "sub/./b.jpg", "./sub/b.jpg"])
def test_an_image_name_has_one_spelling(client, folder, path):
    for method, route in [("GET", "image"), ("GET", "labels"), ("PUT", "labels"), ("POST", "undo"),
                          ("POST", "reviewed")]:
        response = client.request(method, f"/api/v1/label/{route}", params={"path": path},
                                  json={"boxes": []} if method == "PUT" else None)
        assert response.status_code == 400 and error_code(response) == "bad_path", (method, route)
    assert not (folder / "a.txt").exists() and not (folder / "sub" / "b.txt").exists()


def test_the_documented_undo_bounds_are_the_code_s():
    text = (REPO / "docs" / "labelling.md").read_text(encoding="utf-8")
    assert f"newest {sidecar_module.HISTORY_LIMIT} steps" in text
    assert f"at most {sidecar_module.HISTORY_BYTES // 2**20} MiB" in text


@pytest.mark.parametrize("path", ["x" * 300 + ".jpg", ("d" * 200 + "/") * 30 + "a.jpg"])
def test_a_path_too_long_for_the_file_system_is_a_400(client, path):
    for method, route in [("GET", "image"), ("GET", "labels"), ("PUT", "labels"), ("POST", "undo"),
                          ("POST", "reviewed")]:
        response = client.request(method, f"/api/v1/label/{route}", params={"path": path},
                                  json={"boxes": []} if method == "PUT" else None)
        assert response.status_code == 400 and error_code(response) == "name_too_long", (method, route)
