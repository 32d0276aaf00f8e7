"""Upload cap (413), pixel cap (413), not an image (415), broken image (422) on both photo routes."""
import io

import pytest
from PIL import Image

from api.app import FORM_OVERHEAD

PHOTO_ROUTES = ["/api/v1/analyze", "/api/v1/detect"]


def _error(response, status):
    assert response.status_code == status, response.text
    return response.json()["error"]


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_an_upload_over_the_cap_is_a_413(make_client, route):
    client = make_client(max_upload_bytes=1000)
    response = client.post(route, files={"image": ("big.png", b"\0" * 1001, "image/png")})
    assert _error(response, 413)["code"] == "upload_too_large"


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_a_body_declared_over_the_cap_is_refused_before_it_is_read(make_client, route):
    client = make_client(max_upload_bytes=1000)
    body = b"x" * (1000 + FORM_OVERHEAD + 1)
    response = client.post(route, content=body, headers={"content-type": "multipart/form-data; boundary=x"})
    assert _error(response, 413) == {"code": "upload_too_large", "message": "the upload is larger than 1000 bytes"}
    assert response.headers["connection"] == "close"


def test_a_chunked_body_is_cut_off_at_the_cap(make_client):
    client = make_client(max_upload_bytes=1000)
    def chunks():
        for _ in range(100):
            yield b"y" * 4096

    response = client.post("/api/v1/detect", content=chunks(),
                           headers={"content-type": "multipart/form-data; boundary=x"})
    assert "content-length" not in response.request.headers
    assert _error(response, 413)["code"] == "upload_too_large"


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_an_upload_that_declares_a_non_image_type_is_a_415(client, route):
    response = client.post(route, files={"image": ("notes.txt", b"hello", "text/plain")})
    assert _error(response, 415)["code"] == "not_an_image"


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_bytes_that_are_no_image_are_a_415_even_when_called_image(client, route):
    response = client.post(route, files={"image": ("photo.jpg", b"%PDF-1.7 not really", "image/jpeg")})
    assert _error(response, 415)["code"] == "not_an_image"


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_an_image_over_the_pixel_cap_is_a_413(make_client, png, route):
    client = make_client(max_pixels=100 * 100)
    response = client.post(route, files={"image": ("wide.png", png(101, 100), "image/png")})
    error = _error(response, 413)
    assert error["code"] == "too_many_pixels"
    assert "10,100" in error["message"]


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_a_truncated_image_is_a_422(client, route):
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (10, 200, 10)).save(buffer, format="JPEG")
    truncated = buffer.getvalue()[:300]
    response = client.post(route, files={"image": ("cut.jpg", truncated, "image/jpeg")})
    assert _error(response, 422)["code"] == "truncated"


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_an_empty_upload_is_a_422(client, route):
    response = client.post(route, files={"image": ("empty.jpg", b"", "image/jpeg")})
    assert _error(response, 422)["code"] == "empty"


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_a_request_without_the_image_field_is_a_422(client, route):
    response = client.post(route, data={"rules": "mcr"})
    error = _error(response, 422)
    assert error["code"] == "invalid_request"
    assert error["details"][0]["loc"] == ["body", "image"]


def test_bad_context_fields_are_a_422_naming_the_field(client, png):
    response = client.post("/api/v1/analyze", files={"image": ("a.png", png(), "image/png")},
                           data={"seat_wind": "X"})
    error = _error(response, 422)
    assert error["details"][0]["loc"] == ["body", "seat_wind"]


def test_a_json_body_has_its_own_smaller_cap(client):
    from api.app import JSON_BODY_LIMIT

    padding = " " * (JSON_BODY_LIMIT + 1)
    response = client.post("/api/v1/score", content=b'{"hand": {}}' + padding.encode(),
                           headers={"content-type": "application/json"})
    error = _error(response, 413)
    assert error == {"code": "body_too_large", "message": f"the request body is larger than {JSON_BODY_LIMIT} bytes"}


@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_a_form_field_the_route_does_not_take_is_a_422_not_dropped(client, route):
    # a misspelt context field would otherwise be dropped and the hand scored without it
    response = client.post(route, files={"image": ("hand.png", b"not read", "image/png")},
                           data={"self_drawm": "true", "context": '{"self_drawn": true}'})
    error = _error(response, 422)
    assert error["code"] == "unknown_field"
    assert error["params"] == {"fields": ["context", "self_drawm"]}
    assert "self_drawm" in error["message"] and "image" in error["message"]



@pytest.mark.parametrize("route", PHOTO_ROUTES)
def test_two_photos_in_one_request_are_a_422_not_one_dropped(client, route, png):
    files = [("image", ("a.png", png(), "image/png")), ("image", ("b.png", png(), "image/png"))]
    error = _error(client.post(route, files=files), 422)
    assert error["code"] == "repeated_field"
    assert error["params"] == {"fields": ["image"]}
    assert "one photo per request" in error["message"]


def test_a_context_field_given_twice_is_a_422_not_one_of_them_taken(client, png):
    response = client.post("/api/v1/analyze", files={"image": ("a.png", png(), "image/png")},
                           data={"self_drawn": ["true", "false"], "seat_wind": "S"})
    error = _error(response, 422)
    assert error["code"] == "repeated_field" and error["params"] == {"fields": ["self_drawn"]}

def test_the_analyze_routes_own_fields_are_all_taken(client):
    from api.routes.analyze import FIELDS

    assert {"image", "rules", "self_drawn", "seat_wind", "prevalent_wind", "inline_image", "wild_tile"} <= FIELDS
    assert "request" not in FIELDS
    # every field the route takes passes the check: the photo (not an image here) is what is refused
    data = {"rules": "mcr", "self_drawn": "true", "seat_wind": "S", "prevalent_wind": "E", "last_tile": "false",
            "kong_replacement": "false", "robbing_kong": "false", "fourth_tile": "false", "inline_image": "true"}
    response = client.post("/api/v1/analyze", files={"image": ("hand.png", b"not an image", "image/png")}, data=data)
    assert _error(response, 415)["code"] == "not_an_image"
