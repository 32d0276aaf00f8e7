"""Label Studio ML backend endpoints, against the request/response shapes of Label Studio's docs.

Shapes: label-studio-ml-backend `label_studio_ml/api.py` (POST /predict with tasks, project,
label_config, params; POST /setup with project, schema, extra_params; GET /health) and
Label Studio's prediction result example (rectanglelabels with x/y/width/height in percent,
original_width/original_height, image_rotation, from_name/to_name).
"""
from __future__ import annotations

import base64
import http.server
import io
import threading

import pytest
from fastapi.testclient import TestClient
from label_app import labelling_app
from PIL import Image

from api.label.state import configure_labelling
from vision.detections import Detections

WIDTH, HEIGHT = 400, 200
DETECTIONS = [
    {"tile": "B5", "box": [40, 20, 80, 100], "score": 0.9},
    {"tile": "J1", "box": [100, 50, 140, 130], "score": 0.6},
    {"tile": "H3", "box": [200, 50, 240, 130], "score": 0.8},
]
LABEL_CONFIG = """<View>
  <Image name="image" value="$image"/>
  <RectangleLabels name="label" toName="image">
    <Label value="B5" background="red"/><Label value="J1" background="blue"/>
  </RectangleLabels>
</View>"""
# What Label Studio sends to /predict (label_studio/ml/api_connector.py and the SDK's docstring).
PREDICT_REQUEST = {
    "tasks": [{"id": 7, "data": {"image": None}, "meta": {}, "created_at": "2024-06-18T23:45:46Z",
               "updated_at": "2024-06-18T23:45:46Z", "is_labeled": False, "overlap": 1,
               "inner_id": 1, "total_annotations": 0, "cancelled_annotations": 0,
               "total_predictions": 0, "project": 1, "file_upload": "42d46c4c-a.jpg",
               "annotations": [], "predictions": []}],
    "model_version": "INITIAL",
    "project": "1.1718754746",
    "label_config": LABEL_CONFIG,
    "params": {"login": None, "password": None, "context": None},
}


class FakeDetector:
    model_version = "fake-1"

    def __init__(self):
        self.sizes = []

    def detect(self, rgb, **_):
        self.sizes.append(rgb.shape[:2])
        return Detections([dict(d) for d in DETECTIONS])


def jpeg_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (WIDTH, HEIGHT), (30, 140, 90)).save(buffer, format="JPEG")
    return buffer.getvalue()


@pytest.fixture
def folder(tmp_path):
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "a.jpg").write_bytes(jpeg_bytes())
    (tmp_path / "secret.jpg").write_bytes(jpeg_bytes())
    return photos


@pytest.fixture
def detector():
    return FakeDetector()


@pytest.fixture
def client(folder, detector):
    app = labelling_app()
    configure_labelling(app, folder, detector=detector)
    with TestClient(app) as test_client:
        yield test_client


def predict_request(image_url, label_config=LABEL_CONFIG):
    request = {**PREDICT_REQUEST, "label_config": label_config}
    request["tasks"] = [{**PREDICT_REQUEST["tasks"][0], "data": {"image": image_url}}]
    return request


def data_uri() -> str:
    return "data:image/jpeg;base64," + base64.b64encode(jpeg_bytes()).decode()


def test_health_answers_up(client):
    for path in ("/labelstudio/health", "/labelstudio/"):
        body = client.get(path).json()
        assert body["status"] == "UP" and body["model_class"]


def test_setup_returns_the_model_version(client):
    response = client.post("/labelstudio/setup", json={
        "project": "1.1718754746", "schema": LABEL_CONFIG, "hostname": "http://localhost:8080",
        "access_token": "abc123", "model_version": "INITIAL", "extra_params": {}})
    assert response.status_code == 200 and response.json()["model_version"] == "fake-1"


def test_predict_returns_rectanglelabels_in_percent(client, detector):
    response = client.post("/labelstudio/predict", json=predict_request(data_uri()))
    assert response.status_code == 200
    body = response.json()
    assert len(body["results"]) == 1
    prediction = body["results"][0]
    assert prediction["model_version"] == "fake-1"
    assert prediction["score"] == pytest.approx(0.6)  # the least confident box
    result = prediction["result"]
    # H3 is not a label of this project, so it is left out.
    assert [r["value"]["rectanglelabels"] for r in result] == [["B5"], ["J1"]]
    first = result[0]
    assert {"id", "from_name", "to_name", "type", "original_width", "original_height",
            "image_rotation", "value", "score"} <= set(first)
    assert (first["from_name"], first["to_name"], first["type"]) == ("label", "image", "rectanglelabels")
    assert (first["original_width"], first["original_height"]) == (WIDTH, HEIGHT)
    assert first["value"] == {"x": 10.0, "y": 10.0, "width": 10.0, "height": 40.0, "rotation": 0,
                              "rectanglelabels": ["B5"]}
    assert detector.sizes == [(HEIGHT, WIDTH)]


def test_project_labels_in_another_naming_are_used(client):
    config = LABEL_CONFIG.replace('value="B5"', 'value="5p"').replace('value="J1"', 'value="chun"')
    result = client.post("/labelstudio/predict", json=predict_request(data_uri(), config)).json()["results"][0]["result"]
    assert [r["value"]["rectanglelabels"] for r in result] == [["5p"], ["chun"]]


def test_local_files_are_read_from_the_label_folder(client):
    # Label Studio's document root may be above the folder: 'photos/a.jpg' is found as 'a.jpg'.
    response = client.post("/labelstudio/predict", json=predict_request("/data/local-files/?d=photos/a.jpg"))
    assert response.status_code == 200 and len(response.json()["results"][0]["result"]) == 2


def test_local_files_outside_the_folder_are_refused(client):
    for url in ("/data/local-files/?d=../secret.jpg", "/data/local-files/?d=/etc/passwd.jpg", "../secret.jpg"):
        response = client.post("/labelstudio/predict", json=predict_request(url))
        assert 400 <= response.status_code < 500 and "error" in response.json(), url


class _Uploads(http.server.BaseHTTPRequestHandler):
    seen_auth: list[str | None] = []

    def do_GET(self):  # noqa: N802
        type(self).seen_auth.append(self.headers.get("Authorization"))
        if self.path.startswith("/data/redirect-to/"):  # like Label Studio sending an upload on to S3
            self.send_response(302)
            self.send_header("Location", "http://" + self.path[len("/data/redirect-to/"):])
            self.end_headers()
            return
        if self.path != "/data/upload/1/42d46c4c-a.jpg":
            self.send_error(404)
            return
        data = jpeg_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def label_studio_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Uploads)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Uploads.seen_auth = []
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_uploads_are_fetched_from_label_studio_with_the_token(client, label_studio_server, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio_server)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "secret-token")
    response = client.post("/labelstudio/predict", json=predict_request("/data/upload/1/42d46c4c-a.jpg"))
    assert response.status_code == 200 and len(response.json()["results"][0]["result"]) == 2
    assert _Uploads.seen_auth == ["Token secret-token"]
    missing = client.post("/labelstudio/predict", json=predict_request("/data/upload/1/nope.jpg"))
    assert missing.status_code == 502 and "task 7" in missing.json()["error"]["message"]


def test_setup_hostname_and_token_are_used_without_environment_once_the_host_is_named(
        client, label_studio_server, monkeypatch):
    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("LABEL_STUDIO_API_KEY", raising=False)
    monkeypatch.delenv("FANSHOT_IMAGE_HOSTS", raising=False)
    client.post("/labelstudio/setup", json={"project": "1.1", "schema": LABEL_CONFIG,
                                             "hostname": label_studio_server, "access_token": "from-setup"})
    # anyone who reaches the service may post /setup: its hostname alone opens no host
    refused = client.post("/labelstudio/predict", json=predict_request("/data/upload/1/42d46c4c-a.jpg"))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "image_host_not_allowed"
    assert _Uploads.seen_auth == []
    monkeypatch.setenv("FANSHOT_IMAGE_HOSTS", label_studio_server.removeprefix("http://"))
    response = client.post("/labelstudio/predict", json=predict_request("/data/upload/1/42d46c4c-a.jpg"))
    assert response.status_code == 200
    assert _Uploads.seen_auth == ["Token from-setup"]


@pytest.mark.parametrize("body, code", [
    ({"tasks": "x", "label_config": LABEL_CONFIG}, "bad_request"),
    ({"tasks": [], "label_config": "<View><Image name='image' value='$image'/></View>"}, "bad_label_config"),
    ({"tasks": [], "label_config": "<View"}, "bad_label_config"),
    ({"tasks": [{"id": 1}], "label_config": LABEL_CONFIG}, "bad_task"),
    (predict_request("data:image/jpeg;base64,!!!"), "bad_image_url"),
    (predict_request("data:image/jpeg;base64," + base64.b64encode(b"not an image").decode()), "not_an_image"),
])
def test_bad_predict_requests_are_clear_errors(client, body, code):
    response = client.post("/labelstudio/predict", json=body)
    assert 400 <= response.status_code < 500
    assert response.json()["error"]["code"] == code


def test_predict_without_a_model_is_503(folder):
    app = labelling_app()
    configure_labelling(app, folder)

    class NoModelSettings:
        model_dir = folder / "no-model-here"

    app.state.settings = NoModelSettings()
    response = TestClient(app).post("/labelstudio/predict", json=predict_request(data_uri()))
    assert response.status_code == 503 and response.json()["error"]["code"] == "no_detector"


def test_the_token_goes_only_to_label_studio(client, label_studio_server, monkeypatch):
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio_server)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "secret-token")
    elsewhere = label_studio_server.replace("127.0.0.1", "localhost")  # same server, another origin
    monkeypatch.setenv("FANSHOT_IMAGE_HOSTS", "example.org, " + elsewhere.removeprefix("http://"))
    response = client.post("/labelstudio/predict", json=predict_request(elsewhere + "/data/upload/1/42d46c4c-a.jpg"))
    assert response.status_code == 200
    assert _Uploads.seen_auth == [None]
    # Redirected from Label Studio to another host: the token is dropped on the way.
    _Uploads.seen_auth = []
    target = elsewhere.removeprefix("http://") + "/data/upload/1/42d46c4c-a.jpg"
    response = client.post("/labelstudio/predict", json=predict_request("/data/redirect-to/" + target))
    assert response.status_code == 200
    assert _Uploads.seen_auth == ["Token secret-token", None]


@pytest.mark.parametrize("named", [False, True])
def test_a_redirect_into_the_private_network_is_followed_only_to_a_named_host(
        client, label_studio_server, monkeypatch, named):
    # Label Studio, or a host named in FANSHOT_IMAGE_HOSTS, sending the fetch on to an address
    # inside the server's network (here loopback, by another name) is refused, unless named too
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio_server)
    elsewhere = label_studio_server.replace("127.0.0.1", "localhost").removeprefix("http://")
    monkeypatch.setenv("FANSHOT_IMAGE_HOSTS", elsewhere if named else "example.org")
    response = client.post("/labelstudio/predict",
                           json=predict_request(f"/data/redirect-to/{elsewhere}/data/upload/1/42d46c4c-a.jpg"))
    if named:
        assert response.status_code == 200
        assert len(_Uploads.seen_auth) == 2
    else:
        assert response.status_code == 403
        error = response.json()["error"]
        assert error["code"] == "image_host_not_allowed" and "redirected the image to http://localhost" in error["message"]
        assert len(_Uploads.seen_auth) == 1  # the redirect was not followed


def test_public_addresses_are_told_from_private_ones():
    from api.label.task_images import public_address

    assert public_address("93.184.216.34") and public_address("2606:2800:220:1:248:1893:25c8:1946")
    for private in ("127.0.0.1", "10.1.2.3", "192.168.1.20", "169.254.169.254", "::1", "fd00::1", "0.0.0.0", ""):
        assert not public_address(private), private


def test_setup_refuses_a_token_that_is_not_a_string(client):
    response = client.post("/labelstudio/setup", json={"project": "1.1", "access_token": 5})
    assert response.status_code == 422 and response.json()["error"]["code"] == "bad_setup"
    assert client.post("/labelstudio/setup", content=b"[1]", headers={"content-type": "application/json"}).status_code == 400


@pytest.mark.parametrize("hosts", [None, "example.org", "localhost:1"])
def test_images_on_other_hosts_are_not_fetched_unless_named(client, label_studio_server, monkeypatch, hosts):
    # the predict route is on the public service too: any URL fetched was a way to probe the
    # server's network (internal services, cloud metadata) on someone's behalf
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio_server)
    if hosts is None:
        monkeypatch.delenv("FANSHOT_IMAGE_HOSTS", raising=False)
    else:
        monkeypatch.setenv("FANSHOT_IMAGE_HOSTS", hosts)
    elsewhere = label_studio_server.replace("127.0.0.1", "localhost")
    response = client.post("/labelstudio/predict", json=predict_request(elsewhere + "/data/upload/1/42d46c4c-a.jpg"))
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "image_host_not_allowed" and "FANSHOT_IMAGE_HOSTS" in error["message"]
    assert _Uploads.seen_auth == []  # nothing was asked of that host
    monkeypatch.delenv("LABEL_STUDIO_URL")
    without_label_studio = client.post("/labelstudio/predict", json=predict_request(label_studio_server + "/data/upload/1/42d46c4c-a.jpg"))
    assert without_label_studio.status_code == 403 and _Uploads.seen_auth == []


def test_any_host_may_be_allowed_by_name_or_star(monkeypatch):
    from api.label.task_images import image_host_allowed

    monkeypatch.setenv("FANSHOT_IMAGE_HOSTS", "Bucket.S3.example.com,files:8080")
    assert image_host_allowed("https://bucket.s3.example.com/a.jpg?sig=1", "")
    assert image_host_allowed("http://files:8080/a.jpg", "")
    assert not image_host_allowed("http://files:9090/a.jpg", "")
    assert not image_host_allowed("http://169.254.169.254/latest/meta-data", "")
    assert image_host_allowed("http://ls:8080/data/upload/1/a.jpg", "http://LS:8080")
    monkeypatch.setenv("FANSHOT_IMAGE_HOSTS", "*")
    assert image_host_allowed("http://169.254.169.254/latest/meta-data", "")
