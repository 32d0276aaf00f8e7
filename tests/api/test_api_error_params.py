"""An ApiError's params reach the client next to its code; without params the error JSON is
{"code", "message"} as before."""
import warnings

from fastapi import FastAPI

from api.errors import ApiError, install_handlers

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient


def client_raising(error: ApiError) -> TestClient:
    app = FastAPI()
    install_handlers(app)

    @app.get("/fail")
    def fail():
        raise error

    return TestClient(app)


def test_params_are_answered_next_to_the_code():
    response = client_raising(ApiError(422, "wrong_tile_count", "13 tiles found", params={"found": 13})).get("/fail")
    assert response.status_code == 422
    assert response.json() == {"error": {"code": "wrong_tile_count", "message": "13 tiles found", "params": {"found": 13}}}


def test_without_params_there_is_no_params_field():
    response = client_raising(ApiError(415, "not_an_image", "not an image")).get("/fail")
    assert response.json() == {"error": {"code": "not_an_image", "message": "not an image"}}
