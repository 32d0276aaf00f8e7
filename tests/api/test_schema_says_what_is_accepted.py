"""The OpenAPI schema says what the routes accept (what schemathesis found valid by the schema but
refused): a file of one byte or more, no null in a form, a non-empty label path, a non-empty Label
Studio config, and the body PUT /label/labels reads."""
import re

import pytest


@pytest.fixture(scope="module")
def schema():
    import warnings

    from api.app import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return create_app().openapi()


def _body(schema, path, method, media="application/json"):
    body = schema["paths"][path][method]["requestBody"]["content"][media]["schema"]
    ref = body.get("$ref")
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else body


@pytest.mark.parametrize("path, field", [("/api/v1/detect", "image"), ("/api/v1/analyze", "image"),
                                         ("/api/v1/label/images", "file")])
def test_an_upload_is_one_byte_or_more_and_a_form_has_only_its_fields(schema, path, field):
    form = _body(schema, path, "post", "multipart/form-data")
    assert form["properties"][field]["minLength"] == 1
    assert form["additionalProperties"] is False


def test_an_optional_form_field_is_a_value_or_absent_never_null(schema):
    dealer = _body(schema, "/api/v1/analyze", "post", "multipart/form-data")["properties"]["dealer"]
    assert dealer["type"] == "boolean" and "anyOf" not in dealer and "default" not in dealer


@pytest.mark.parametrize("path, method", [("/api/v1/label/labels", "get"), ("/api/v1/label/labels", "put"),
                                          ("/api/v1/label/image", "get"), ("/api/v1/label/undo", "post")])
def test_a_label_path_is_a_relative_name(schema, path, method):
    (param,) = [p for p in schema["paths"][path][method]["parameters"] if p["name"] == "path"]
    pattern = re.compile(param["schema"]["pattern"])
    assert param["schema"]["minLength"] == 1
    assert all(pattern.match(name) for name in ("a.jpg", "sub/b c.png"))
    assert not any(pattern.match(name) for name in ("", "./a.jpg", "a.jpg/", "a.jpg/.", "../a.jpg", ".a.jpg",
                                                    "a\\b.jpg", "/a.jpg", "C:a.jpg"))


def test_put_labels_documents_its_body(schema):
    body = _body(schema, "/api/v1/label/labels", "put")
    assert body["required"] == ["boxes"]
    box = body["properties"]["boxes"]["items"]
    assert "W1" in box["properties"]["tile"]["enum"] and box["required"] == ["tile", "box"]


def test_label_studio_needs_a_label_config(schema):
    assert _body(schema, "/labelstudio/predict", "post")["properties"]["label_config"]["minLength"] == 1
