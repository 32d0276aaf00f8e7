"""The scorer's tile-count errors reach the client with their params next to the code: from
POST /api/v1/score (a typed hand) and from POST /api/v1/analyze (a photo read by the layout)."""
from __future__ import annotations

from synth_hand import SYNTH_PHOTO

import scoring
from vision.detections import Detections


def test_a_hand_of_13_tiles_is_a_422_with_the_counts(client):
    hand = scoring.parse_hand("123m 456m 789m 123p 5p")
    response = client.post("/api/v1/score", json={"hand": hand})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "wrong_tile_count"
    assert error["params"] == {"found": 13, "needed": 14, "kongs": 0}
    assert error["message"].startswith("13 tiles with 0 kongs")


def test_a_kong_counts_in_the_tiles_needed(client):
    hand = scoring.parse_hand("{5555p} [WWWW] 123s 789s 1m 1m 1m")
    error = client.post("/api/v1/score", json={"hand": hand, "rules": "mcr-reference"}).json()["error"]
    assert error["params"] == {"found": 17, "needed": 16, "kongs": 2}


def test_five_copies_name_the_tile_and_the_count(client):
    hand = scoring.parse_hand("11111m 456m 789m 55p")
    response = client.post("/api/v1/score", json={"hand": hand})
    assert response.status_code == 422
    assert response.json()["error"]["params"] == {"tile": "W1", "count": 5}


class FiveOfOneTile:
    """A stand-in detector: 13 tiles in a row (five of them 5-characters) and one set apart."""

    def detect(self, rgb, **_):
        codes = "W5 W5 W5 W5 W5 W6 W7 B1 B2 B3 T1 T2 T3 T4".split()
        return Detections([{"tile": c, "box": [100 + 62 * i + 40 * (i == 13), 400, 160 + 62 * i + 40 * (i == 13), 480],
                            "score": 0.95} for i, c in enumerate(codes)])


def test_a_photo_the_scorer_rejects_answers_its_code_and_params(client, monkeypatch):
    detector = FiveOfOneTile()
    monkeypatch.setattr(client.app.state.inference, "detector", lambda: detector)
    response = client.post("/api/v1/analyze", files={"image": ("hand.jpg", SYNTH_PHOTO.read_bytes(), "image/jpeg")})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["score"] is None
    assert body["error"]["code"] == "too_many_copies"
    assert body["error"]["params"] == {"tile": "W5", "count": 5}
