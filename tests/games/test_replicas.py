"""Two replicas of the service, as behind a load balancer: two real `fanshot serve` processes on two
loopback ports with one database (SQLite in the shared data directory, or PostgreSQL), one data
directory, one labelling folder and one access token, running the shipped model. What a user does
on one is there on the other: an analysis's annotated photo, a game and the hand recorded with that
analysis, a labelling edit and its undo, and the wrong tokens an address offered (docs/replicas.md)."""
from __future__ import annotations

import io
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from pg_server import fresh_database
from PIL import Image

from api.access import MAX_WRONG

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "tests" / "api" / "data" / "synth_hand.jpg"  # the shipped model reads it as a 15-fan hand
TOKEN = "one-token-for-every-replica-0123456789"
START_S = 180  # a loaded two-core machine starts a server and its model worker in well under this


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Replica:
    process: subprocess.Popen
    url: str
    log: Path

    def client(self, address: str = "127.0.0.1", token: str | None = TOKEN) -> httpx.Client:
        """A client calling from `address` (any 127.x.y.z reaches loopback) with `token`."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60,
                            transport=httpx.HTTPTransport(local_address=address))

    def ready(self) -> bool:
        try:
            body = httpx.get(f"{self.url}/api/v1/health", timeout=5).json()
        except httpx.HTTPError:
            return False
        return bool(body.get("model_loaded")) and body["inference"]["ready"] >= 1


def _start(tmp: Path, name: str, env: dict[str, str]) -> Replica:
    port = _free_port()
    log = tmp / f"{name}.log"
    process = subprocess.Popen([sys.executable, "-m", "fanshot", "serve", "--host", "127.0.0.1", "--port", str(port),
                                "--log-level", "warning"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=log.open("wb"))
    return Replica(process, f"http://127.0.0.1:{port}", log)


def _stop(replica: Replica) -> None:
    replica.process.send_signal(signal.SIGINT)
    try:
        replica.process.wait(20)
    except subprocess.TimeoutExpired:
        replica.process.kill()
        replica.process.wait(10)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def replicas(request, tmp_path_factory) -> Iterator[tuple[Replica, Replica, Path]]:
    """(A, B, the labelling folder): two replicas started on one database and one data directory."""
    if not (ROOT / "models" / "model.json").is_file():
        pytest.skip("no shipped model in models/")
    tmp = tmp_path_factory.mktemp(f"replicas-{request.param}")
    url = fresh_database(request.getfixturevalue("postgres_url")) if request.param == "postgresql" else ""
    folder = tmp / "labelling"
    folder.mkdir()
    buffer = io.BytesIO()
    Image.new("RGB", (200, 150), (90, 120, 160)).save(buffer, format="JPEG")
    (folder / "a.jpg").write_bytes(buffer.getvalue())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FANSHOT_DATA_DIR": str(tmp / "data"), "FANSHOT_DATABASE_URL": url,
           "FANSHOT_TOKEN": TOKEN, "FANSHOT_LABEL_DIR": str(folder), "FANSHOT_INFERENCE_WORKERS": "1"}
    for name in ("FANSHOT_INFERENCE_PROCESSES", "FANSHOT_TRUSTED_PROXIES"):
        env.pop(name, None)  # the service's defaults: worker processes, no proxy trusted
    started = [_start(tmp, name, env) for name in ("a", "b")]
    try:
        deadline = time.monotonic() + START_S
        while not all(replica.ready() for replica in started):
            for replica in started:
                if replica.process.poll() is not None:
                    pytest.fail(f"a replica ended: {replica.log.read_text(errors='replace')[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail(f"the replicas did not load the model in {START_S} s")
            time.sleep(0.3)
        yield started[0], started[1], folder
    finally:
        for replica in started:
            _stop(replica)


def _analyse(client: httpx.Client) -> dict:
    answer = client.post("/api/v1/analyze", files={"image": ("hand.jpg", PHOTO.read_bytes(), "image/jpeg")})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_analysis_made_on_one_replica_has_its_photo_on_the_other(replicas):
    a, b, _ = replicas
    with a.client() as on_a, b.client() as on_b:
        analysis = _analyse(on_a)
        photo = on_b.get(analysis["image_url"])
        assert photo.status_code == 200 and photo.headers["content-type"] == "image/jpeg"
        assert photo.content[:2] == b"\xff\xd8" and photo.content == on_a.get(analysis["image_url"]).content


def test_a_game_started_on_one_is_recorded_through_the_other_and_read_on_the_first(replicas):
    a, b, _ = replicas
    with a.client() as on_a, b.client() as on_b:
        analysis = _analyse(on_a)
        assert analysis["score"]["total"] > 0, analysis
        image_id = analysis["image_url"].rsplit("/", 1)[1].removesuffix(".jpg")
        game = on_a.post("/api/v1/games", json={"players": ["Ann", "Bo", "Cy", "Di"]}).json()
        recorded = on_b.post(f"/api/v1/games/{game['code']}/hands", json={
            "version": game["version"], "outcome": "win", "winner": 0, "discarder": 1,
            "hand": analysis["hand"], "image_id": image_id})
        assert recorded.status_code == 200, recorded.text
        sheet = on_a.get(f"/api/v1/games/{game['code']}").json()
        assert sheet == recorded.json() and sheet["version"] == game["version"] + 1
        hand = sheet["hands"][0]
        assert hand["total"] == analysis["score"]["total"] and hand["hand"]["concealed"] == analysis["hand"]["concealed"]
        assert on_a.get(hand["photo_url"]).content == on_b.get(analysis["image_url"]).content


def test_a_labelling_edit_on_one_is_seen_and_undone_on_the_other(replicas):
    a, b, _ = replicas
    boxes = [{"tile": "W5", "box": [20, 30, 60, 90], "score": None}]
    with a.client() as on_a, b.client() as on_b:
        saved = on_a.put("/api/v1/label/labels", params={"path": "a.jpg"}, json={"boxes": boxes})
        assert saved.status_code == 200, saved.text
        moved = [{"tile": "W6", "box": [100, 30, 140, 90], "score": None}]
        assert on_a.put("/api/v1/label/labels", params={"path": "a.jpg"}, json={"boxes": moved}).status_code == 200
        seen = on_b.get("/api/v1/label/labels", params={"path": "a.jpg"}).json()
        assert [box["tile"] for box in seen["boxes"]] == ["W6"] and seen["undo"] == 1 and seen["reviewed"]
        undone = on_b.post("/api/v1/label/undo", params={"path": "a.jpg"}).json()
        assert [box["tile"] for box in undone["boxes"]] == ["W5"]
        assert on_a.get("/api/v1/label/labels", params={"path": "a.jpg"}).json() == undone


def test_wrong_tokens_offered_to_both_replicas_are_counted_together(replicas):
    a, b, _ = replicas
    guesser = "127.0.0.9"  # an address of its own: the other tests' 127.0.0.1 goes on
    with a.client(guesser, "guess") as guess_a, b.client(guesser, "guess") as guess_b:
        for number in range(MAX_WRONG):  # half on each: fewer than the limit on either
            assert (guess_a, guess_b)[number % 2].get("/api/v1/rules").status_code == 401
    for replica in (a, b):
        with replica.client(guesser) as right_token:  # the right token, too late
            refused = right_token.get("/api/v1/rules")
            assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_tries"
        with replica.client() as someone_else:
            assert someone_else.get("/api/v1/rules").status_code == 200
