"""Fanshot as the pre-labeller of a REAL Label Studio (from PyPI, installed by
scripts/label-studio-venv.sh into a virtual environment cached between runs).

The walk of docs/labelling.md: Label Studio started on a loopback port with a temporary data
folder, a user and its Personal Access Token, a project with `fanshot dataset labelstudio-config`,
two photos uploaded, `fanshot serve` connected as the ML backend with the token, predictions
retrieved, one accepted, the project exported as JSON, JSON_MIN, YOLO and COCO and each converted
with `fanshot dataset convert`; and `fanshot label DIR --export labelstudio` imported through a
Local Files storage, its images served by Label Studio. Skips, saying why, where Label Studio
cannot be installed or started (no network for the first install, say) or no model is in models/.
"""
from __future__ import annotations

import contextlib
import http.cookiejar
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PHOTOS = sorted((REPO / "tests" / "data" / "detector").glob("*.jpg"))[:2]
USER, PASSWORD = "fanshot@example.com", "fanshot-test-1"
START_TIMEOUT_S = 300


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str, process: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.skip(f"{url} exited with {process.returncode}: {log.read_text()[-1500:]}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except (OSError, urllib.error.HTTPError):
            time.sleep(1)
    pytest.skip(f"{url} did not answer within {timeout:.0f} s: {log.read_text()[-1500:]}")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def label_studio_bin() -> Path:
    if not (REPO / "models" / "model.json").is_file():
        pytest.skip("no detector model in models/")
    started = time.monotonic()
    run = subprocess.run(["sh", str(REPO / "scripts" / "label-studio-venv.sh")], capture_output=True, text=True,
                         timeout=1800)
    if run.returncode != 0:
        pytest.skip(f"cannot install Label Studio: {run.stderr.strip()[-800:]}")
    print(f"Label Studio venv ready in {time.monotonic() - started:.1f} s: {run.stdout.strip()}")
    return Path(run.stdout.strip().splitlines()[-1]) / "bin" / "label-studio"


class LabelStudio:
    """A Label Studio on a loopback port, and its API with a user's Personal Access Token."""

    def __init__(self, url: str, data: Path, root: Path):
        self.url, self.data, self.root = url, data, root
        self.pat = self._personal_access_token()
        self.access = self._exchange()

    def _personal_access_token(self) -> str:
        """Logged in as the user, as in the browser; then Account & Settings -> Personal Access Token."""
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        opener.open(self.url + "/user/login/", timeout=30).read()

        def csrf() -> str:
            return next(c.value for c in jar if c.name == "csrftoken")
        form = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf(), "email": USER, "password": PASSWORD}).encode()
        opener.open(urllib.request.Request(self.url + "/user/login/", data=form,
                                           headers={"Referer": self.url + "/user/login/"}), timeout=30).read()
        request = urllib.request.Request(self.url + "/api/token/", data=b"", method="POST",
                                         headers={"X-CSRFToken": csrf(), "Referer": self.url + "/"})
        return str(json.loads(opener.open(request, timeout=30).read())["token"])

    def _exchange(self) -> str:
        request = urllib.request.Request(self.url + "/api/token/refresh", data=json.dumps({"refresh": self.pat}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return str(json.loads(response.read())["access"])

    def call(self, method: str, path: str, body: object = None, content_type: str = "application/json") -> bytes:
        data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.access}"}
        if data is not None:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: {exc.code} {exc.read()[:800]!r}") from exc

    def json(self, method: str, path: str, body: object = None) -> object:
        return json.loads(self.call(method, path, body) or b"null")

    def upload(self, project: int, photo: Path) -> None:
        boundary = uuid.uuid4().hex
        body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{photo.name}"\r\n'
                "Content-Type: image/jpeg\r\n\r\n").encode() + photo.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
        self.call("POST", f"/api/projects/{project}/import", body, f"multipart/form-data; boundary={boundary}")


@pytest.fixture(scope="module")
def label_studio(label_studio_bin, tmp_path_factory) -> Iterator[LabelStudio]:
    base = tmp_path_factory.mktemp("label-studio")
    data, root = base / "data", base / "files"
    root.mkdir()
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    # As docs/labelling.md starts it: a backend on this machine allowed (ML_BLOCK_LOCAL_IP, and
    # USE_DEFAULT_BANNED_SUBNETS, whose list has 127.0.0.0/8), local files served from a document
    # root; no calls out (version check, analytics).
    env = {**os.environ, "LABEL_STUDIO_BASE_DATA_DIR": str(data), "ML_BLOCK_LOCAL_IP": "false",
           "USE_DEFAULT_BANNED_SUBNETS": "false",
           "LABEL_STUDIO_LOCAL_FILES_SERVING_ENABLED": "true", "LABEL_STUDIO_LOCAL_FILES_DOCUMENT_ROOT": str(root),
           "LATEST_VERSION_CHECK": "false", "COLLECT_ANALYTICS": "false"}
    env.pop("HOST", None)  # Label Studio reads HOST as its own public URL
    log = base / "label-studio.log"
    started = time.monotonic()
    with open(log, "w") as out:
        process = subprocess.Popen(
            [str(label_studio_bin), "start", "--no-browser", "--host", url, "--port", str(port),
             "--internal-host", "127.0.0.1", "--data-dir", str(data), "--username", USER, "--password", PASSWORD],
            env=env, cwd=base, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait(url + "/health", process, log, START_TIMEOUT_S)
        print(f"Label Studio answered in {time.monotonic() - started:.1f} s")
        yield LabelStudio(url, data, root)
    finally:
        _stop(process)


@contextlib.contextmanager
def _serve(env_extra: dict[str, str], log: Path) -> Iterator[str]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "FANSHOT_INFERENCE_WORKERS": "1", **env_extra}
    for name in ("LABEL_STUDIO_URL", "LABEL_STUDIO_API_KEY", "FANSHOT_IMAGE_HOSTS", "FANSHOT_TOKEN"):
        if name not in env_extra:
            env.pop(name, None)
    with open(log, "w") as out:
        process = subprocess.Popen([sys.executable, "-m", "fanshot", "serve", "--host", "127.0.0.1", "--port", str(port)],
                                   env=env, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait(f"http://127.0.0.1:{port}/labelstudio/health", process, log, 120)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(process)


@pytest.fixture(scope="module")
def fanshot(label_studio, tmp_path_factory) -> Iterator[str]:
    """`fanshot serve` told where Label Studio is and given the Personal Access Token."""
    folder = label_studio.root / "photos"
    folder.mkdir()
    log = tmp_path_factory.mktemp("fanshot") / "serve.log"
    with _serve({"LABEL_STUDIO_URL": label_studio.url, "LABEL_STUDIO_API_KEY": label_studio.pat,
                 "FANSHOT_LABEL_DIR": str(folder)}, log) as url:
        yield url
    print(log.read_text()[-3000:])


def _fanshot(*args: str) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "fanshot", *args], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO)
    assert run.returncode == 0, f"fanshot {' '.join(args)}: {run.stderr}"
    return run


def _project(label_studio: LabelStudio, title: str) -> int:
    config = _fanshot("dataset", "labelstudio-config").stdout
    project = label_studio.json("POST", "/api/projects", {"title": title, "label_config": config})
    assert isinstance(project, dict)
    return int(project["id"])


def test_predictions_and_the_four_exports(label_studio, fanshot, tmp_path):
    ls = label_studio
    project = _project(ls, "fanshot")
    for photo in PHOTOS:
        ls.upload(project, photo)
    backend = ls.json("POST", "/api/ml", {"url": fanshot + "/labelstudio", "project": project, "title": "Fanshot"})
    assert isinstance(backend, dict) and backend["readable_state"] == "Connected", backend
    retrieved = ls.json("POST", f"/api/dm/actions?id=retrieve_tasks_predictions&project={project}",
                        {"project": str(project), "selectedItems": {"all": True, "excluded": []}})
    assert isinstance(retrieved, dict) and retrieved["processed_items"] == len(PHOTOS), retrieved
    predictions = ls.json("GET", f"/api/predictions?project={project}")
    assert isinstance(predictions, list) and len(predictions) == len(PHOTOS)  # Label Studio saved them all
    assert all(len(p["result"]) > 0 and p["model_version"] for p in predictions), predictions
    # a person accepts the first prediction as it is
    accepted = predictions[0]
    ls.json("POST", f"/api/tasks/{accepted['task']}/annotations",
            {"result": accepted["result"], "parent_prediction": accepted["id"]})

    media = ls.data / "media"
    counts = {}
    for kind in ("JSON", "JSON_MIN", "YOLO", "COCO"):
        raw = ls.call("GET", f"/api/projects/{project}/export?exportType={kind}&download_all_tasks=true")
        if raw[:2] == b"PK":
            src = tmp_path / kind.lower()
            zipfile.ZipFile(io.BytesIO(raw)).extractall(src)
            if kind == "COCO":
                src = src / "result.json"
        else:
            src = tmp_path / f"{kind.lower()}.json"
            src.write_bytes(raw)
        run = _fanshot("dataset", "convert", str(src), str(tmp_path / f"{kind.lower()}-yolo"), "--to", "yolo",
                       "--images", str(media))
        counts[kind] = run.stdout.split(" -> ")[0]
    # every export reads back to the same images and boxes: the accepted prediction's
    expected = f"{len(PHOTOS)} images, {len(accepted['result'])} boxes"
    assert counts == dict.fromkeys(counts, expected), counts


def test_a_labelled_folder_exported_for_label_studio_is_served_by_it(label_studio, fanshot, tmp_path):
    ls = label_studio
    folder = ls.root / "photos"
    shutil.copyfile(PHOTOS[0], folder / "a.jpg")
    (folder / "a.txt").write_text("0 0.5 0.5 0.2 0.1\n")
    out = tmp_path / "tasks.json"
    _fanshot("label", str(folder), "--export", "labelstudio", "--out", str(out))
    tasks = json.loads(out.read_text())
    assert tasks[0]["data"]["image"] == "/data/local-files/?d=photos/a.jpg"
    project = _project(ls, "local files")
    ls.json("POST", "/api/storages/localfiles", {"project": project, "path": str(folder), "title": "photos",
                                                 "use_blob_urls": False})
    ls.call("POST", f"/api/projects/{project}/import", out.read_bytes())
    task = ls.json("GET", f"/api/tasks?project={project}")
    assert isinstance(task, dict)
    image = task["tasks"][0]["data"]["image"]
    assert ls.call("GET", image if image.startswith("/") else urllib.parse.urlsplit(image).path + "?"
                   + urllib.parse.urlsplit(image).query) == PHOTOS[0].read_bytes()
    # and Fanshot reads the same task's image from its folder to predict it
    backend = ls.json("POST", "/api/ml", {"url": fanshot + "/labelstudio", "project": project, "title": "Fanshot"})
    assert isinstance(backend, dict) and backend["readable_state"] == "Connected"
    retrieved = ls.json("POST", f"/api/dm/actions?id=retrieve_tasks_predictions&project={project}",
                        {"project": str(project), "selectedItems": {"all": True, "excluded": []}})
    assert isinstance(retrieved, dict) and retrieved["processed_items"] == 1
    # Label Studio counts a task whose prediction failed as retrieved: what it saved is what counts
    saved = ls.json("GET", f"/api/predictions?project={project}")
    assert isinstance(saved, list) and len(saved) == 1 and saved[0]["result"], saved


def test_the_plain_start_without_label_studio_url(label_studio, tmp_path):
    """`fanshot serve` alone: Label Studio's /setup names its host (from that host's address) and
    sends the user's legacy token. Where legacy tokens are off (Label Studio's default) no
    prediction is saved and the log says why and what to do; with them on, predictions come."""
    ls = label_studio
    project = _project(ls, "plain start")
    for photo in PHOTOS:
        ls.upload(project, photo)
    log = tmp_path / "serve.log"
    with _serve({}, log) as fanshot:
        ls.json("POST", "/api/ml", {"url": fanshot + "/labelstudio", "project": project, "title": "Fanshot"})

        def retrieve() -> list:
            ls.json("POST", f"/api/dm/actions?id=retrieve_tasks_predictions&project={project}",
                    {"project": str(project), "selectedItems": {"all": True, "excluded": []}})
            saved = ls.json("GET", f"/api/predictions?project={project}")
            assert isinstance(saved, list)
            return saved

        assert retrieve() == []
        text = log.read_text()
        assert "image_fetch_failed" in text and "LABEL_STUDIO_API_KEY" in text and "Personal Access Token" in text
        ls.json("POST", "/api/jwt/settings", {"api_tokens_enabled": True, "legacy_api_tokens_enabled": True})
        assert len(retrieve()) == len(PHOTOS)
