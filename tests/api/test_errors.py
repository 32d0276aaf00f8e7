"""Every failure is JSON {"error": {"code", "message"}} with the right status, never a traceback."""
from api.errors import ApiError


def test_unknown_path_is_a_json_404(client):
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_wrong_method_is_a_json_405_naming_the_allowed_ones(client):
    response = client.get("/api/v1/score")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert response.headers["allow"] == "POST"


def test_validation_errors_are_reshaped_with_the_field_and_without_the_input(client):
    response = client.post("/api/v1/score", json={"hand": {"concealed": ["Z9"], "win_tile": "W1"}})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["message"].startswith("hand.concealed.0:")
    assert error["details"][0]["loc"] == ["body", "hand", "concealed", "0"]
    assert "Z9" not in response.text  # the rejected value is not echoed back


def test_a_body_that_is_not_json_is_a_400_bad_json(client):
    # one code for one kind of error: the labelling routes answer the same (tests/api/test_bad_bodies.py)
    response = client.post("/api/v1/score", content=b"{not json", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_json"


def test_a_body_that_cannot_be_decoded_is_a_json_400(client):
    response = client.post("/api/v1/score", content=b"\x0f\n\xff\x18", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "bad_json"


def test_an_unexpected_exception_is_a_500_without_the_trace(make_client, caplog):
    client = make_client(raise_server_exceptions=False)

    @client.app.get("/boom")
    def boom():
        raise RuntimeError("secret detail from deep inside")

    response = client.get("/boom")
    assert response.status_code == 500
    assert response.json() == {"error": {"code": "internal_error",
                                         "message": "internal error; the server log has the details"}}
    assert "secret" not in response.text and "Traceback" not in response.text
    assert "secret detail from deep inside" in caplog.text  # it is in the server log instead


def test_api_errors_keep_their_status_code_and_headers(make_client):
    client = make_client()

    @client.app.get("/teapot")
    def teapot():
        raise ApiError(418, "teapot", "short and stout", headers={"X-Why": "tea"})

    response = client.get("/teapot")
    assert response.status_code == 418
    assert response.headers["x-why"] == "tea"
    assert response.json() == {"error": {"code": "teapot", "message": "short and stout"}}


def test_every_api_error_status_is_declared_in_the_openapi_schema(client):
    paths = client.get("/openapi.json").json()["paths"]
    expected = {
        ("/api/v1/analyze", "post"): {"200", "400", "404", "413", "415", "422", "503"},
        ("/api/v1/detect", "post"): {"200", "400", "404", "413", "415", "422", "503"},
        ("/api/v1/tilesets/{name}", "get"): {"200", "404", "422"},
        ("/api/v1/tilesets/{name}", "delete"): {"200", "404", "422"},
        ("/api/v1/tilesets/{name}/layout", "post"): {"200", "400", "413", "415", "422", "503"},
        ("/api/v1/tilesets/{name}/examples", "post"): {"200", "400", "404", "413", "422", "503"},
        ("/api/v1/tilesets", "get"): {"200"},
        ("/api/v1/score", "post"): {"200", "400", "413", "422"},
        ("/api/v1/images/{image_id}.jpg", "get"): {"200", "404", "422"},
        ("/api/v1/rules", "get"): {"200"},
        ("/api/v1/health", "get"): {"200"},
    }
    for (path, method), statuses in expected.items():
        responses = paths[path][method]["responses"]
        assert set(responses) == statuses, path
        for status in statuses - {"200"}:
            schema = responses[status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorResponse"}, (path, status)


def test_a_405_names_every_method_of_every_route_on_that_path(make_client):
    client = make_client()

    @client.app.get("/two-routes")
    def read():
        return {}

    @client.app.post("/two-routes")
    def write():
        return {}

    response = client.delete("/two-routes")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"
