"""POST /api/v1/analyze and /detect, composed from vision and scoring.

Most tests put a stand-in detector in place of the model, one that answers the true boxes of
the committed synthetic photo, so they check the API's own work (decoding, context, rules,
annotated image by URL or inline, errors) whatever the model reads. The last tests use the
shipped model, when there is one.
"""
import base64
import io
import json
from collections import Counter

import numpy as np
import pytest
from PIL import Image
from synth_hand import SYNTH_PHOTO, SYNTH_RECORD, TrueBoxes

import scoring
from vision.detections import Detections
from vision.model_spec import DEFAULT_MODEL_DIR

PHOTO = SYNTH_PHOTO.read_bytes()
RECORD = SYNTH_RECORD


@pytest.fixture
def stand_in(make_client, monkeypatch):
    def make(**settings):
        client = make_client(**settings)
        detector = TrueBoxes()
        monkeypatch.setattr(client.app.state.inference, "detector", lambda: detector)
        return client, detector
    return make


def _tiles(hand):
    return Counter(hand["concealed"] + [t for m in hand["melds"] for t in m["tiles"]] + [hand["win_tile"]])


def _post(client, data=None, photo=PHOTO):
    return client.post("/api/v1/analyze", files={"image": ("hand.jpg", photo, "image/jpeg")}, data=data or {})


def test_the_photo_is_read_scored_and_annotated(stand_in):
    client, _ = stand_in()
    context = RECORD["hand"]["context"]
    response = _post(client, {k: json.dumps(v) if isinstance(v, bool) else v for k, v in context.items()})
    assert response.status_code == 200, response.text
    body = response.json()
    assert len(body["tiles"]) == len(RECORD["boxes"])
    assert _tiles(body["hand"]) == _tiles(RECORD["hand"])
    assert body["hand"]["context"] == context
    assert body["score"] == scoring.score_hand(body["hand"], "mcr")
    assert body["image_base64"] is None

    image = client.get(body["image_url"])
    assert image.status_code == 200 and image.headers["content-type"] == "image/jpeg"
    annotated = Image.open(io.BytesIO(image.content))
    assert annotated.format == "JPEG"
    # at most annotated_max_side (1280) long, with the fan panel below the photo
    assert annotated.width == 1280 and annotated.height > RECORD["height"] * 1280 / RECORD["width"]


def test_inline_image_comes_back_as_base64_and_is_not_stored(stand_in):
    client, _ = stand_in()
    body = _post(client, {"inline_image": "true"}).json()
    assert body["image_url"] is None
    assert Image.open(io.BytesIO(base64.b64decode(body["image_base64"]))).format == "JPEG"
    assert len(client.app.state.images) == 0


def test_the_win_conditions_and_rules_reach_the_scorer(stand_in):
    client, _ = stand_in()
    plain = _post(client, {"self_drawn": "false"}).json()
    drawn = _post(client, {"self_drawn": "true", "rules": "mcr-reference"}).json()
    assert drawn["hand"]["context"]["self_drawn"] is True
    assert drawn["score"]["ruleset"] == "mcr-reference"
    assert drawn["score"] == scoring.score_hand(drawn["hand"], "mcr-reference")
    assert plain["score"] == scoring.score_hand(plain["hand"], "mcr")
    assert plain["score"]["fans"] != drawn["score"]["fans"]


def test_a_rule_sets_own_context_fields_reach_the_scorer(stand_in):
    client, _ = stand_in()
    body = _post(client, {"rules": "lianzhong", "dealer": "true", "wild_tile": "J1"}).json()
    assert body["hand"]["context"]["dealer"] is True and body["hand"]["context"]["wild_tile"] == "J1"
    assert body["score"] == scoring.score_hand(body["hand"], "lianzhong")
    # 天和 with the photo's exposed melds: the scorer's own refusal comes back, not a guess
    body = _post(client, {"rules": "lianzhong", "self_drawn": "true", "dealer": "true",
                          "first_turn": "initial_deal"}).json()
    assert body["hand"]["context"]["first_turn"] == "initial_deal"
    assert body["score"] is None and "claimed" in body["error"]["message"]
    refused = _post(client, {"dealer": "true"})  # mcr reads no dealer field
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "unknown_context_key"


def test_a_12_mp_photo_is_analysed_at_a_quarter_of_its_size(stand_in):
    client, detector = stand_in()
    body = _post(client, photo=_scaled_jpeg(4000, 3000)).json()
    assert detector.sizes == [(1000, 750)]  # what the JPEG decoder gives directly (vision.photo.read_photo)
    assert body["image_size"] == [1000, 750]
    assert _tiles(body["hand"]) == _tiles(RECORD["hand"])


def _scaled_jpeg(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.open(io.BytesIO(PHOTO)).resize((width, height)).save(buffer, "JPEG", quality=85)
    return buffer.getvalue()


def test_an_unknown_rule_set_is_the_scorers_422(stand_in):
    client, _ = stand_in()
    response = _post(client, {"rules": "house"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "unknown_ruleset"


def test_a_photo_without_a_winning_hand_is_a_200_with_the_reason(stand_in):
    client, detector = stand_in()
    detector.detect = lambda rgb, **_: Detections([])  # nothing found
    body = _post(client).json()
    assert body["tiles"] == [] and body["hand"] is None and body["score"] is None
    assert body["error"]["code"]


def test_detect_answers_the_detectors_tiles_in_photo_pixels(stand_in):
    client, detector = stand_in()
    response = client.post("/api/v1/detect", files={"image": ("hand.jpg", PHOTO, "image/jpeg")})
    assert response.status_code == 200
    body = response.json()
    assert (body["width"], body["height"]) == (RECORD["width"], RECORD["height"])
    assert detector.sizes[-1] == (1600, 1200)  # no JPEG scale of it is 1000 px or more but the photo itself
    truth = detector.detect(np.zeros((RECORD["height"], RECORD["width"], 3), np.uint8)).tiles
    assert [d["tile"] for d in body["detections"]] == [d["tile"] for d in truth]
    for found, true in zip(body["detections"], truth):
        assert found["box"] == pytest.approx(true["box"], abs=1.5)


@pytest.mark.parametrize("route", ["/api/v1/analyze", "/api/v1/detect"])
def test_without_a_model_the_photo_routes_are_a_503_saying_so(make_client, tmp_path, route):
    client = make_client(model_dir=tmp_path)
    response = client.post(route, files={"image": ("hand.jpg", PHOTO, "image/jpeg")})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "model_not_found"
    assert client.get("/api/v1/health").json()["model_loaded"] is False


# With the shipped model (models/): what it reads is its own business (vision's tests and
# model card); here, that the API answers it whole and consistent.

def test_the_shipped_model_answers_a_consistent_analysis(client):
    body = _post(client).json()
    assert body["tiles"], "the shipped model finds no tile in the synthetic photo"
    width, height = body["image_size"]
    for tile in body["tiles"]:
        x1, y1, x2, y2 = tile["box"]
        assert 0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height
    if body["score"] is not None:
        assert body["score"] == scoring.score_hand(body["hand"], "mcr")
    else:  # no winning hand read: the reason is there (and a hand read, if any, is the scorer's to refuse)
        assert body["error"]["code"]
        if body["hand"] is not None:
            with pytest.raises(scoring.HandError):
                scoring.score_hand(body["hand"], "mcr")
    assert client.get(body["image_url"]).headers["content-type"] == "image/jpeg"
    health = client.get("/api/v1/health").json()
    assert health["model_loaded"] is True
    assert health["model"] == json.loads((DEFAULT_MODEL_DIR / "model.json").read_text())["provenance"]["name"]


def test_the_shipped_model_detects_in_photo_pixels(client):
    body = client.post("/api/v1/detect", files={"image": ("hand.jpg", PHOTO, "image/jpeg")}).json()
    assert (body["width"], body["height"]) == (RECORD["width"], RECORD["height"])
    assert body["detections"]
    for detection in body["detections"]:
        x1, y1, x2, y2 = detection["box"]
        assert 0 <= x1 < x2 <= body["width"] and 0 <= y1 < y2 <= body["height"]
        assert 0 < detection["score"] <= 1


def test_the_annotated_photo_is_drawn_on_a_smaller_copy_with_the_boxes_scaled():
    from api.inference import shrink_for_drawing

    rgb = np.zeros((1000, 2000, 3), np.uint8)
    analysis = {"tiles": [{"tile": "W1", "box": [100, 200, 300, 400]}], "groups": [{"box": [0, 0, 1000, 500]}],
                "hand": None}
    small, drawn = shrink_for_drawing(rgb, analysis, 500)
    assert small.shape == (250, 500, 3)
    assert drawn["tiles"] == [{"tile": "W1", "box": [25, 50, 75, 100]}]
    assert drawn["groups"] == [{"box": [0, 0, 250, 125]}]
    assert analysis["tiles"][0]["box"] == [100, 200, 300, 400]  # the answer keeps photo pixels
    assert shrink_for_drawing(rgb, analysis, 2000) == (rgb, analysis)
