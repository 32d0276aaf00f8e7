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


def test_a_path_with_a_line_break_is_logged_as_one_line(client, caplog):
    # the path arrives percent-decoded: %0a would have started a forged log line
    with caplog.at_level(logging.INFO, logger="fanshot.api.access"):
        client.get("/api/v1/images/x%0a2026-01-01 INFO forged%0d%1b.jpg")
    (line,) = [r.getMessage() for r in caplog.records if r.name == "fanshot.api.access"]
    assert "GET /api/v1/images/x\\n2026-01-01 INFO forged\\r\\x1b.jpg " in line
    assert not any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f for c in line)
