"""Request logs: one line per request with method, path, status and size; never the body."""
import logging


def test_a_request_is_logged_without_its_body(client, caplog, png):
    marker = b"SECRET-PIXELS-1234"
    with caplog.at_level(logging.INFO, logger="fanshot.api.access"):
        client.post("/api/v1/detect", files={"image": ("a.txt", marker, "text/plain")})
        client.post("/api/v1/score", json={"hand": {"concealed": [], "win_tile": "W1", "note": "SECRET-NOTE"}})
    lines = [r.getMessage() for r in caplog.records if r.name == "fanshot.api.access"]
    assert len(lines) == 2
    assert " POST /api/v1/detect 415 in=" in lines[0]
    assert " POST /api/v1/score 422 in=" in lines[1]
    assert "SECRET" not in caplog.text
