def test_health_reports_version_model_and_pool(make_client):
    client = make_client(inference_workers=3, inference_queue=5)
    body = client.get("/api/v1/health").json()
    assert body["status"] == "ok"
    assert body["version"] == client.app.version
    assert body["model_loaded"] is False and body["model"] is None  # nothing has asked for the model yet
    assert body["inference"] == {"workers": 3, "queue": 5, "admitted": 0, "ready": 0, "starting": 0, "stuck": 0,
                                 "replaced": 0}


def test_docs_and_schema_are_served(client):
    assert client.get("/docs").status_code == 200
    schema = client.get("/openapi.json").json()
    assert schema["info"]["title"] == "Fanshot"
    for path in ("/api/v1/analyze", "/api/v1/score", "/api/v1/detect", "/api/v1/rules", "/api/v1/health"):
        assert path in schema["paths"]


def test_the_api_docs_load_nothing_from_outside_the_server(client):
    import re

    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        urls = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", html)
        assert urls, page
        for url in urls:
            assert url.startswith("/"), (page, url)
            assert client.get(url).status_code == 200, (page, url)
