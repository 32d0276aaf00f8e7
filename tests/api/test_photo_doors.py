"""One photo, one reading: `fanshot detect`, `fanshot analyze`, POST /api/v1/detect and POST
/api/v1/analyze all read a photo's bytes at the same resolution (vision.photo.read_photo), so
the shipped model sees the same pixels and finds the same tiles whichever door the photo came in by."""
from __future__ import annotations

import hashlib
import json

import pytest

from fanshot.cli import main
from training.bench import DEFAULT_PHOTO, phone_jpeg
from vision.detector import get_detector


class Recording:
    """The shipped detector, noting what each call was given (size, pixels) and what it found."""

    def __init__(self, real):
        self.real = real
        self.calls: list[tuple] = []

    def _note(self, rgb, found):
        tiles = [(d["tile"], tuple(d["box"])) for d in found]
        self.calls.append((rgb.shape, hashlib.sha1(rgb.tobytes()).hexdigest(), tiles))

    def detect(self, rgb, **options):
        found = self.real.detect(rgb, **options)
        self._note(rgb, found.tiles)
        return found


@pytest.fixture
def photo(tmp_path):
    """A 12 MP phone JPEG of a committed test scene."""
    path = tmp_path / "hand.jpg"
    path.write_bytes(phone_jpeg(sorted(DEFAULT_PHOTO.glob("*.jpg"))[0]))
    return path


def _through_every_door(photo, monkeypatch, make_client, capsys) -> dict[str, list[tuple]]:
    real = get_detector()
    seen = {}

    def door(name):
        recording = Recording(real)
        seen[name] = recording.calls
        return recording

    for command in ("detect", "analyze"):
        recording = door(command)
        monkeypatch.setattr("vision.detector.get_detector", lambda *a, _r=recording, **k: _r)
        assert main([command, "--json", str(photo)]) in (0, 1)  # 1: analyze read no winning hand
        json.loads(capsys.readouterr().out)
    client = make_client()
    for route in ("detect", "analyze"):
        recording = door(f"api/{route}")
        monkeypatch.setattr(client.app.state.inference, "detector", lambda _r=recording: _r)
        response = client.post(f"/api/v1/{route}", files={"image": ("hand.jpg", photo.read_bytes(), "image/jpeg")})
        assert response.status_code == 200, response.text
    return seen


def test_every_door_gives_the_model_the_same_pixels_and_gets_the_same_tiles(photo, monkeypatch, make_client, capsys):
    seen = _through_every_door(photo, monkeypatch, make_client, capsys)
    first = seen["detect"]
    assert len(first) == 1  # one look
    assert first[0][0][:2] in ((750, 1000), (1000, 750))  # 4000 x 3000 at 1/4, decoded by the codec
    assert len(first[0][2]) >= 10  # the model found the hand
    for door, calls in seen.items():
        assert calls == first, door
