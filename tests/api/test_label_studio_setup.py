"""What /labelstudio/setup and the smaller routes answer Label Studio, and what the log says:
the project's labels checked against our classes, Label Studio's own host trusted when /setup
comes from it (the documented start without LABEL_STUDIO_URL), the reason of every refusal in
the log, /versions, and the START_TRAINING webhook answered."""
from __future__ import annotations

import json
import logging

import pytest
from fastapi.testclient import TestClient
from label_app import labelling_app
from test_label_studio import LABEL_CONFIG, FakeDetector, _Uploads, label_studio_server, predict_request  # noqa: F401

from api.label.state import configure_labelling
from datasets.formats import label_config

UPLOAD = "/data/upload/1/42d46c4c-a.jpg"


def _client(folder, address: str = "testclient") -> TestClient:
    app = labelling_app()
    configure_labelling(app, folder, detector=FakeDetector())
    return TestClient(app, client=(address, 50000))


@pytest.fixture(autouse=True)
def no_label_studio_environment(monkeypatch):
    for name in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY", "FANSHOT_IMAGE_HOSTS"):
        monkeypatch.delenv(name, raising=False)


def test_setup_warns_when_the_project_labels_miss_classes(tmp_path, caplog):
    client = _client(tmp_path)
    three = "<View><Image name='image' value='$image'/><RectangleLabels name='label' toName='image'>" \
            "<Label value='W1'/><Label value='W2'/><Label value='...'/></RectangleLabels></View>"
    with caplog.at_level(logging.WARNING, "fanshot.label"):
        body = client.post("/labelstudio/setup", json={"project": "1.1", "schema": three}).json()
    assert "2 of Fanshot's 43 classes" in body["warning"] and "BACK" in body["warning"]
    assert "labelstudio-config" in body["warning"] and "2 of Fanshot's 43 classes" in caplog.text
    full = client.post("/labelstudio/setup", json={"project": "1.1", "schema": label_config()}).json()
    assert "warning" not in full and full["model_version"] == "fake-1"


def test_setup_from_label_studio_host_lets_its_images_be_fetched(tmp_path, label_studio_server):  # noqa: F811
    # Label Studio on this machine names itself http://127.0.0.1:PORT and /setup comes from 127.0.0.1
    client = _client(tmp_path, "127.0.0.1")
    client.post("/labelstudio/setup", json={"project": "1.1", "schema": LABEL_CONFIG,
                                             "hostname": label_studio_server, "access_token": "from-setup"})
    response = client.post("/labelstudio/predict", json=predict_request(UPLOAD))
    assert response.status_code == 200, response.text
    assert _Uploads.seen_auth == ["Token from-setup"]


@pytest.mark.parametrize("address", ["10.9.8.7", "testclient"])
def test_setup_from_another_address_opens_no_host(tmp_path, label_studio_server, caplog, address):  # noqa: F811
    # one who reaches the service from elsewhere cannot point its fetches into the server's network
    client = _client(tmp_path, address)
    client.post("/labelstudio/setup", json={"project": "1.1", "hostname": label_studio_server, "access_token": "x"})
    with caplog.at_level(logging.WARNING, "fanshot.label"):
        refused = client.post("/labelstudio/predict", json=predict_request(UPLOAD))
    assert refused.status_code == 403 and _Uploads.seen_auth == []
    # the log says why, not only "403"
    assert "image_host_not_allowed" in caplog.text and "LABEL_STUDIO_URL" in caplog.text


def test_sent_from_host_compares_addresses():
    from api.label.task_images import sent_from_host

    assert sent_from_host("http://localhost:8080", "127.0.0.1")
    assert sent_from_host("http://127.0.0.1:8080", "::ffff:127.0.0.1")
    assert not sent_from_host("http://127.0.0.1:8080", "10.0.0.2")
    assert not sent_from_host("file:///etc/passwd", "127.0.0.1")
    assert not sent_from_host("", "127.0.0.1") and not sent_from_host("http://localhost", "testclient")


def test_versions_and_training_are_answered(tmp_path):
    client = _client(tmp_path)
    assert client.get("/labelstudio/versions").json() == {"versions": ["fake-1"]}
    training = client.post("/labelstudio/webhook", json={"action": "START_TRAINING", "project": {"id": 1}}).json()
    assert training["status"] == "not trained" and "fanshot dataset convert" in training["message"]
    event = client.post("/labelstudio/webhook", json={"action": "ANNOTATION_CREATED"}).json()
    assert event == {"status": "Unknown event"}


def test_the_folder_of_fanshot_label_dir_serves_local_files(tmp_path, monkeypatch):
    # `fanshot serve` with FANSHOT_LABEL_DIR: /labelstudio reads local files before /label is opened
    from test_label_studio import jpeg_bytes

    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.jpg").write_bytes(jpeg_bytes())
    monkeypatch.setenv("FANSHOT_LABEL_DIR", str(folder))
    app = labelling_app()
    app.state.label_detector = FakeDetector()
    response = TestClient(app).post("/labelstudio/predict", json=predict_request("/data/local-files/?d=photos/a.jpg"))
    assert response.status_code == 200, response.text


def test_export_for_label_studio_names_images_from_its_document_root(tmp_path, capsys):
    from test_label_studio import jpeg_bytes

    from fanshot.cli import main as fanshot_main

    folder = tmp_path / "root" / "photos"
    folder.mkdir(parents=True)
    (folder / "a.jpg").write_bytes(jpeg_bytes())
    (folder / "a.txt").write_text("0 0.5 0.5 0.2 0.1\n")
    out = tmp_path / "tasks.json"
    assert fanshot_main(["label", str(folder), "--export", "labelstudio", "--out", str(out)]) == 0
    assert json.loads(out.read_text())[0]["data"]["image"] == "/data/local-files/?d=photos/a.jpg"
    err = capsys.readouterr().err
    assert f"LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT={tmp_path / 'root'}" in err and str(folder) in err
    assert fanshot_main(["label", str(folder), "--export", "labelstudio", "--out", str(out),
                         "--document-root", str(tmp_path)]) == 0
    assert json.loads(out.read_text())[0]["data"]["image"] == "/data/local-files/?d=root/photos/a.jpg"
    assert fanshot_main(["label", str(folder), "--export", "labelstudio", "--out", str(out),
                         "--document-root", str(folder)]) == 2


def test_fanshot_label_logs_requests(tmp_path):
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path / "label.log"
    repo = Path(__file__).resolve().parents[2]
    with open(log, "w") as out:
        process = subprocess.Popen([sys.executable, "-m", "fanshot", "label", str(tmp_path), "--port", str(port)],
                                   cwd=repo, stdout=out, stderr=subprocess.STDOUT)
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/labelstudio/health", timeout=2).read()
                break
            except OSError:
                time.sleep(0.5)
        time.sleep(0.5)
    finally:
        process.terminate()
        process.wait(timeout=20)
    assert "GET /labelstudio/health 200" in log.read_text()


def test_what_setup_sent_one_replica_serves_the_predictions_of_another(tmp_path, label_studio_server):  # noqa: F811
    # two services on one database (two replicas, or one restarted): /setup reaches the first only
    import dataclasses

    from api.app import create_app
    from api.settings import Settings

    settings = dataclasses.replace(Settings(), inference_processes=False, data_dir=tmp_path / "data")
    replicas = []
    for _ in range(2):
        app = create_app(settings)
        configure_labelling(app, tmp_path, detector=FakeDetector())
        replicas.append(TestClient(app, client=("127.0.0.1", 50000)).__enter__())
    try:
        replicas[0].post("/labelstudio/setup", json={"project": "1.1", "schema": LABEL_CONFIG,
                                                       "hostname": label_studio_server, "access_token": "from-setup"})
        response = replicas[1].post("/labelstudio/predict", json=predict_request(UPLOAD))
        assert response.status_code == 200, response.text
        assert _Uploads.seen_auth == ["Token from-setup"]
    finally:
        for client in replicas:
            client.__exit__(None, None, None)
