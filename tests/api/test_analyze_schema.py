"""POST /api/v1/analyze as its OpenAPI schema declares it: `warning_details` (one typed model per
warning code), each alternative's `reading`, and the error's `params`; real answers validate
against the published schema, and the response model keeps every param the layout gives."""
from __future__ import annotations

import jsonschema_rs
import pytest
from pydantic import TypeAdapter
from synth_hand import SYNTH_PHOTO, TrueBoxes

from api.app import create_app
from api.schemas import WARNING_MODELS, WarningDetail
from vision.detections import Detections
from vision.layout_warnings import WARNING_CODES, warning


@pytest.fixture(scope="module")
def openapi():
    return create_app().openapi()


def validator(openapi, name: str):
    return jsonschema_rs.Draft202012Validator({"$ref": f"#/components/schemas/{name}",
                                               "components": openapi["components"]})


def test_the_schema_declares_warning_details_readings_and_error_params(openapi):
    schemas = openapi["components"]["schemas"]
    analyze = schemas["AnalyzeResponse"]
    assert "warning_details" in analyze["required"]
    variants = analyze["properties"]["warning_details"]["items"]["oneOf"]
    codes = {schemas[v["$ref"].rsplit("/", 1)[1]]["properties"]["code"]["const"] for v in variants}
    assert codes == set(WARNING_CODES)
    alternative = schemas["Alternative"]
    assert alternative["properties"]["reading"]["$ref"] == "#/components/schemas/Reading" and "reading" in alternative["required"]
    assert set(schemas["Reading"]["required"]) == {"win_tile", "win_apart", "melds", "left_out"}
    assert "params" in schemas["ErrorDetail"]["properties"]


def test_every_warning_code_has_a_model_that_keeps_all_its_params(warning_samples):
    assert {m.model_fields["code"].annotation.__args__[0] for m in WARNING_MODELS} == set(WARNING_CODES)
    adapter = TypeAdapter(WarningDetail)
    assert set(warning_samples) == set(WARNING_CODES), "a new warning code needs a sample in the root conftest.py"
    for code, params in warning_samples.items():
        record = warning(code, **params)
        assert adapter.dump_python(adapter.validate_python(record), mode="json") == record


def test_a_warning_with_a_param_of_the_wrong_type_is_refused(openapi):
    check = validator(openapi, "AnalyzeResponse")
    body = {"tiles": [], "hand": None, "score": None, "warnings": ["x"], "alternatives": [],
            "warning_details": [warning("win_tile_not_apart", tile="B4")]}
    assert check.is_valid(body)
    body["warning_details"][0]["params"]["tile"] = "Z9"
    assert not check.is_valid(body)
    body["warning_details"][0] = dict(warning("win_tile_not_apart", tile="B4"), code="no_such_code")
    assert not check.is_valid(body)


class Unsure(TrueBoxes):
    """The synthetic photo's true boxes, the first read with little confidence (a warning)."""

    def detect(self, rgb, **_):
        found = super().detect(rgb).tiles
        found[0]["score"] = 0.3
        return Detections(found)


class Fixed:
    def __init__(self, detections):
        self.detections = detections

    def detect(self, rgb, **_):
        return Detections([dict(d) for d in self.detections])


def thirteen_in_a_row():
    """12 tiles in a row and a 13th set apart: one short of a winning hand."""
    codes = "W1 W2 W3 W4 W5 W6 W7 W8 W9 B1 B1 B2 B4".split()
    return [{"tile": code, "box": [100 + 62 * i + (40 if i == 12 else 0), 400, 160 + 62 * i + (40 if i == 12 else 0), 480],
             "score": 0.95} for i, code in enumerate(codes)]


def post(make_client, monkeypatch, detector):
    client = make_client()
    monkeypatch.setattr(client.app.state.inference, "detector", lambda: detector)
    response = client.post("/api/v1/analyze", files={"image": ("hand.jpg", SYNTH_PHOTO.read_bytes(), "image/jpeg")})
    assert response.status_code == 200, response.text
    return response.json()


def test_analyze_answers_validate_against_the_published_schema(make_client, monkeypatch, openapi):
    check = validator(openapi, "AnalyzeResponse")
    scored = post(make_client, monkeypatch, Unsure())
    assert scored["score"] and any(w["code"] == "low_confidence" for w in scored["warning_details"])
    assert scored["alternatives"] and all("reading" in alt for alt in scored["alternatives"])
    short = post(make_client, monkeypatch, Fixed(thirteen_in_a_row()))
    assert short["error"]["params"]
    for body in (scored, short):
        errors = [e.message for e in check.iter_errors(body)]
        assert not errors, errors


def test_too_few_tiles_is_answered_with_the_code_and_the_counts(make_client, monkeypatch):
    body = post(make_client, monkeypatch, Fixed(thirteen_in_a_row()))
    assert body["hand"] is None and body["score"] is None
    assert body["error"] == {
        "code": "wrong_tile_count",
        "message": "13 tiles found; a winning hand needs 14, plus one for each kong",
        "params": {"found": 13, "needed": 14, "kongs": 0},
        "details": None,
    }


def test_no_tiles_is_answered_with_its_code_and_empty_params(make_client, monkeypatch):
    body = post(make_client, monkeypatch, Fixed([]))
    assert body["error"]["code"] == "no_tiles" and body["error"]["params"] == {}
