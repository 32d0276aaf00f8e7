"""The labelling routes over HTTP: load, save, undo, upload, export, and path traversal."""
from __future__ import annotations

import io
import json
import os
import re
import zipfile

import pytest
import yaml
from fastapi.testclient import TestClient
from label_app import labelling_app
from PIL import Image

from api.label.state import configure_labelling
from fanshot.cli import main as fanshot_main
from vision.classes import CLASSES
from vision.detections import Detections

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
    (data / "notes.txt").write_text("not an image")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.jpg").write_bytes(b"SECRET" + jpeg_bytes())
    return data


@pytest.fixture
def client(folder):
    app = labelling_app()
    configure_labelling(app, folder, detector=FakeDetector())
    with TestClient(app) as test_client:
        yield test_client


def classes_in(path) -> list[int]:
    return [int(line.split()[0]) for line in path.read_text().splitlines()]


def test_page_and_its_files_are_served(client):
    page = client.get("/label")
    assert page.status_code == 200 and "label.js" in page.text
    assert client.get("/label/static/label.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/label/static/label.css").status_code == 200
    assert client.get("/label/static/..%2Fapp.py").status_code == 404


def test_every_script_and_stylesheet_the_page_names_is_served(client):
    page = client.get("/label").text
    assets = re.findall(r'(?:src|href)="(/label/static/[^"]+)"', page)
    assert "/label/static/label_tiles.js" in assets  # the palette's tile pictures, before label.js
    assert assets.index("/label/static/label_tiles.js") < assets.index("/label/static/label.js")
    for asset in assets:
        answer = client.get(asset)
        assert answer.status_code == 200, asset
        assert answer.headers["cache-control"] == "no-cache", asset
    assert client.get("/label/static/label_tiles.js").headers["content-type"].startswith("text/javascript")


def test_classes_lists_43_with_keys(client):
    classes = client.get("/api/v1/label/classes").json()["classes"]
    assert [c["code"] for c in classes] == CLASSES
    assert "5P" in classes[22]["keys"]


def test_load_save_undo_round_trip(client, folder):
    images = client.get("/api/v1/label/images").json()["images"]
    assert [i["path"] for i in images] == ["a.jpg", "sub/b.jpg"]
    assert not images[0]["labelled"]

    doc = client.get("/api/v1/label/labels", params={"path": "a.jpg"}).json()
    assert [b["tile"] for b in doc["boxes"]] == ["B4", "W1"]
    assert (doc["width"], doc["height"]) == (200, 100)
    assert sorted(classes_in(folder / "a.txt")) == [0, 21]

    image = client.get("/api/v1/label/image", params={"path": "a.jpg"})
    assert image.headers["content-type"] == "image/jpeg" and image.content == (folder / "a.jpg").read_bytes()

    boxes = doc["boxes"]
    boxes[0].update(tile="B5", score=None)
    boxes.append({"tile": "J1", "box": [150, 20, 190, 80], "score": None})
    saved = client.put("/api/v1/label/labels", params={"path": "a.jpg"}, json={"boxes": boxes}).json()
    assert sorted(classes_in(folder / "a.txt")) == [0, 22, 31]
    assert saved["undo"] == 1 and saved["reviewed"]

    undone = client.post("/api/v1/label/undo", params={"path": "a.jpg"})
    assert undone.status_code == 200
    assert sorted(classes_in(folder / "a.txt")) == [0, 21]
    nothing = client.post("/api/v1/label/undo", params={"path": "a.jpg"})
    assert nothing.status_code == 409 and nothing.json()["error"]["code"] == "nothing_to_undo"

    assert client.post("/api/v1/label/reviewed", params={"path": "a.jpg"}).json()["reviewed"] is True
    assert client.get("/api/v1/label/images").json()["images"][0]["reviewed"] is True


def test_a_change_made_on_an_old_version_is_refused_and_changes_nothing(client, folder):
    # two pages (or two replicas' pages) on one image: the second to save had not seen the first's change
    first = client.get("/api/v1/label/labels", params={"path": "a.jpg"}).json()
    second = dict(first)
    mine = [{"tile": "J1", "box": [150, 20, 190, 80], "score": None}]
    saved = client.put("/api/v1/label/labels", params={"path": "a.jpg"},
                       json={"boxes": mine, "version": first["version"]})
    assert saved.status_code == 200 and saved.json()["version"] != first["version"]
    label = (folder / "a.txt").read_text()
    stale = client.put("/api/v1/label/labels", params={"path": "a.jpg"},
                       json={"boxes": second["boxes"], "version": second["version"]})
    assert stale.status_code == 409 and stale.json()["error"]["code"] == "stale_labels"
    assert (folder / "a.txt").read_text() == label
    assert client.get("/api/v1/label/labels", params={"path": "a.jpg"}).json()["undo"] == 1
    again = client.put("/api/v1/label/labels", params={"path": "a.jpg"},
                       json={"boxes": second["boxes"], "version": saved.json()["version"]})
    assert again.status_code == 200 and again.json()["undo"] == 2
    unchecked = client.put("/api/v1/label/labels", params={"path": "a.jpg"}, json={"boxes": mine})  # no version
    assert unchecked.status_code == 200
    bad = client.put("/api/v1/label/labels", params={"path": "a.jpg"}, json={"boxes": mine, "version": 3})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad_version"


def test_bad_bodies_are_json_errors(client):
    client.get("/api/v1/label/labels", params={"path": "a.jpg"})
    not_json = client.put("/api/v1/label/labels", params={"path": "a.jpg"}, content=b"{boxes",
                          headers={"content-type": "application/json"})
    assert not_json.status_code == 400 and not_json.json()["error"]["code"] == "bad_json"
    bad = client.put("/api/v1/label/labels", params={"path": "a.jpg"}, json={"boxes": [{"tile": "Q1", "box": [0, 0, 1, 1]}]})
    assert bad.status_code == 422 and "unknown tile" in bad.json()["error"]["message"]
    missing = client.put("/api/v1/label/labels", params={"path": "a.jpg"}, json={"tiles": []})
    assert missing.status_code == 422


TRAVERSALS = [
    "../outside/secret.jpg",
    "sub/../../outside/secret.jpg",
    "/etc/passwd.jpg",
    "..\\outside\\secret.jpg",
    "C:/outside/secret.jpg",
    ".fanshot/a.jpg.json",
    "link.jpg",          # a symlink to a file outside the folder
    "linkdir/secret.jpg",  # a symlinked folder outside
    "a.jpg\x00.png",
    "",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_paths_outside_the_folder_are_refused(client, folder, path):
    os.symlink(folder.parent / "outside" / "secret.jpg", folder / "link.jpg")
    os.symlink(folder.parent / "outside", folder / "linkdir")
    before = sorted(p.name for p in (folder.parent / "outside").iterdir())
    for method, route in [("GET", "image"), ("GET", "labels"), ("PUT", "labels"), ("POST", "undo"), ("POST", "reviewed")]:
        response = client.request(method, f"/api/v1/label/{route}", params={"path": path},
                                  json={"boxes": [{"tile": "B5", "box": [0, 0, 5, 5]}]} if method == "PUT" else None)
        assert 400 <= response.status_code < 500, (method, route, response.status_code)
        assert b"SECRET" not in response.content
        assert "error" in response.json()
    assert sorted(p.name for p in (folder.parent / "outside").iterdir()) == before
    assert not (folder.parent / "outside" / "secret.txt").exists()


def test_symlinks_out_are_not_listed(client, folder):
    os.symlink(folder.parent / "outside" / "secret.jpg", folder / "link.jpg")
    paths = [i["path"] for i in client.get("/api/v1/label/images").json()["images"]]
    assert "link.jpg" not in paths


def test_non_images_are_refused_with_415(client):
    response = client.get("/api/v1/label/labels", params={"path": "notes.txt"})
    assert response.status_code == 415 and response.json()["error"]["code"] == "not_an_image"
    upload = client.post("/api/v1/label/images", files={"file": ("notes.txt", b"hello", "text/plain")})
    assert upload.status_code == 415
    fake = client.post("/api/v1/label/images", files={"file": ("photo.jpg", b"<html>not a jpeg</html>", "image/jpeg")})
    assert fake.status_code == 415 and fake.json()["error"]["code"] == "not_an_image"


def test_upload_adds_the_image_inside_the_folder(client, folder):
    response = client.post("/api/v1/label/images", files={"file": ("../../evil name.jpg", jpeg_bytes(), "image/jpeg")})
    assert response.status_code == 201
    name = response.json()["path"]
    assert name == "evil_name.jpg" and (folder / name).is_file()
    again = client.post("/api/v1/label/images", files={"file": ("evil name.jpg", jpeg_bytes(), "image/jpeg")})
    assert again.json()["path"] == "evil_name-1.jpg"
    png = io.BytesIO()
    Image.new("RGB", (8, 8)).save(png, format="PNG")
    other = client.post("/api/v1/label/images", files={"file": ("a.png", png.getvalue(), "image/png")})
    assert other.json()["path"] == "a-1.png"  # a.png would share a.txt with a.jpg
    assert not (folder.parent.parent / "evil name.jpg").exists()


@pytest.mark.parametrize("form, code", [
    ({"files": [("file", ("x.jpg", jpeg_bytes(), "image/jpeg")), ("file", ("y.jpg", jpeg_bytes(), "image/jpeg"))]},
     "repeated_field"),
    ({"files": {"file": ("x.jpg", jpeg_bytes(), "image/jpeg")}, "data": {"folder": "sub"}}, "unknown_field"),
])
def test_an_upload_of_more_than_one_file_is_a_422_and_adds_nothing(client, folder, form, code):
    # the second file (or the field) was dropped unsaid
    response = client.post("/api/v1/label/images", **form)
    assert response.status_code == 422 and response.json()["error"]["code"] == code
    assert not (folder / "x.jpg").exists() and not (folder / "y.jpg").exists()


def _label_two(client):
    for path in ("a.jpg", "sub/b.jpg"):
        client.get("/api/v1/label/labels", params={"path": path})
    client.put("/api/v1/label/labels", params={"path": "a.jpg"},
               json={"boxes": [{"tile": "B5", "box": [60, 10, 100, 70], "score": None}]})


def test_export_yolo_zip_has_data_yaml_with_our_names(client):
    _label_two(client)
    response = client.get("/api/v1/label/export", params={"format": "yolo"})
    assert response.status_code == 200 and response.headers["content-type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = set(archive.namelist())
    assert {"data.yaml", "images/a.jpg", "images/b.jpg", "labels/a.txt", "labels/b.txt"} <= names
    assert yaml.safe_load(archive.read("data.yaml"))["names"] == CLASSES
    assert archive.read("labels/a.txt").decode().split()[0] == "22"


def test_export_coco_and_labelstudio(client):
    _label_two(client)
    coco = client.get("/api/v1/label/export", params={"format": "coco"}).json()
    assert len(coco["categories"]) == 43
    assert sorted(im["file_name"] for im in coco["images"]) == ["a.jpg", "sub/b.jpg"]
    assert len(coco["annotations"]) == 3
    tasks = client.get("/api/v1/label/export", params={"format": "labelstudio"}).json()
    a_task = next(t for t in tasks if t["data"]["image"].endswith("?d=a.jpg"))
    result = a_task["annotations"][0]["result"]
    assert [r["value"]["rectanglelabels"] for r in result] == [["B5"]]
    assert result[0]["value"]["x"] == pytest.approx(30.0)


def test_export_reviewed_only_and_errors(client):
    assert client.get("/api/v1/label/export", params={"format": "coco"}).status_code == 409  # nothing yet
    _label_two(client)
    coco = client.get("/api/v1/label/export", params={"format": "coco", "reviewed_only": "true"}).json()
    assert [im["file_name"] for im in coco["images"]] == ["a.jpg"]
    bad = client.get("/api/v1/label/export", params={"format": "voc"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad_format"


def test_unconfigured_app_says_how_to_start(monkeypatch):
    monkeypatch.delenv("FANSHOT_LABEL_DIR", raising=False)
    app = labelling_app()
    response = TestClient(app).get("/api/v1/label/images")
    assert response.status_code == 503 and "fanshot label" in response.json()["error"]["message"]


def test_folder_from_the_environment(monkeypatch, folder):
    monkeypatch.setenv("FANSHOT_LABEL_DIR", str(folder))
    app = labelling_app()
    assert len(TestClient(app).get("/api/v1/label/images").json()["images"]) == 2


def test_cli_export_and_bad_folder(client, folder, tmp_path, capsys):
    _label_two(client)
    out = tmp_path / "export.json"
    assert fanshot_main(["label", str(folder), "--export", "labelstudio", "--out", str(out)]) == 0
    assert len(json.loads(out.read_text())) == 2
    assert fanshot_main(["label", str(tmp_path / "missing"), "--export", "coco", "--out", str(out)]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert fanshot_main(["label", str(folder), "--export", "yolo"]) == 2


def test_cli_prelabel_labels_only_unlabelled_images(folder, monkeypatch, capsys):
    import vision.detector

    monkeypatch.setattr(vision.detector, "get_detector", lambda model_dir=None: FakeDetector())
    (folder / "sub" / "b.txt").write_text("22 0.5 0.5 0.2 0.2\n")
    assert fanshot_main(["label", str(folder), "--prelabel"]) == 0
    assert sorted(classes_in(folder / "a.txt")) == [0, 21]
    assert (folder / "sub" / "b.txt").read_text() == "22 0.5 0.5 0.2 0.2\n"  # never overwritten
    err = capsys.readouterr().err
    assert "pre-labelled 1 of 1 unlabelled images" in err and "ms per image" in err


def test_cli_prelabel_without_a_model_fails_clearly(folder, monkeypatch, capsys):
    assert fanshot_main(["label", str(folder), "--prelabel", "--model-dir", str(folder / "none")]) == 1
    assert "detector is not available" in capsys.readouterr().err
    assert not (folder / "a.txt").exists()


def test_error_statuses_are_declared_in_the_openapi_schema(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert {"400", "403", "404", "415", "422"} <= set(paths["/api/v1/label/labels"]["put"]["responses"])
    assert {"409", "422"} <= set(paths["/api/v1/label/export"]["get"]["responses"])


def test_heic_is_shown_as_jpeg_and_exif_rotation_sets_the_size(client, folder):
    pillow_heif = pytest.importorskip("pillow_heif")
    buffer = io.BytesIO()
    try:
        pillow_heif.from_pillow(Image.new("RGB", (64, 48), (10, 200, 10))).save(buffer, quality=90)
    except Exception as exc:  # no HEVC encoder in this build
        pytest.skip(f"cannot encode HEIC here: {exc}")
    (folder / "phone.heic").write_bytes(buffer.getvalue())
    shown = client.get("/api/v1/label/image", params={"path": "phone.heic"})
    assert shown.headers["content-type"] == "image/jpeg"
    assert Image.open(io.BytesIO(shown.content)).size == (64, 48)

    exif = Image.Exif()
    exif[0x0112] = 6  # stored 200x100, shown 100x200
    rotated = io.BytesIO()
    Image.new("RGB", (200, 100)).save(rotated, format="JPEG", exif=exif.tobytes())
    (folder / "rotated.jpg").write_bytes(rotated.getvalue())
    doc = client.get("/api/v1/label/labels", params={"path": "rotated.jpg"}).json()
    assert (doc["width"], doc["height"]) == (100, 200)
