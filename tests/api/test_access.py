"""FANSHOT_TOKEN: with a token set, only requests that show it reach the service (api/access.py)."""
import base64

import pytest

from api.access import COOKIE, MAX_WRONG, access_note

TOKEN = "correct-horse-battery"


@pytest.fixture
def guarded(make_client):
    return make_client(token=TOKEN)


def bearer(token=TOKEN):
    return {"Authorization": f"Bearer {token}"}


def test_without_a_token_setting_nothing_is_asked(client):
    assert client.get("/api/v1/rules").status_code == 200
    assert client.get("/").status_code == 200


@pytest.mark.parametrize("path", ["/api/v1/rules", "/api/v1/images/abc.jpg", "/api/v1/label/images",
                                  "/openapi.json", "/labelstudio/setup"])
def test_a_request_without_the_token_is_a_json_401(guarded, path):
    response = guarded.get(path)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"
    assert "Authorization: Bearer" in response.json()["error"]["message"]
    assert response.headers["www-authenticate"].startswith("Bearer")


def test_a_post_without_the_token_never_reaches_the_route(guarded):
    response = guarded.post("/api/v1/score", json={"hand": "not even a hand"})
    assert response.status_code == 401


def test_the_bearer_token_lets_a_program_in(guarded):
    assert guarded.get("/api/v1/rules", headers=bearer()).status_code == 200
    assert guarded.get("/api/v1/rules", headers=bearer("correct-horse")).status_code == 401
    assert guarded.get("/api/v1/rules", headers=bearer(TOKEN + "x")).status_code == 401


def test_basic_authentication_with_the_token_as_password_lets_label_studio_in(guarded):
    def basic(user_password: bytes):
        return {"Authorization": "Basic " + base64.b64encode(user_password).decode()}

    assert guarded.get("/api/v1/rules", headers=basic(b"labelstudio:" + TOKEN.encode())).status_code == 200
    assert guarded.get("/api/v1/rules", headers=basic(TOKEN.encode() + b":")).status_code == 401
    assert guarded.get("/api/v1/rules", headers={"Authorization": "Basic ***"}).status_code == 401


@pytest.mark.parametrize("path", ["/api/v1/health", "/labelstudio/health", "/static/app.js", "/label/static/label.js"])
def test_health_and_the_pages_assets_stay_open(guarded, path):
    assert guarded.get(path).status_code == 200


@pytest.mark.parametrize("path", ["/", "/label", "/docs"])
def test_a_page_without_the_token_asks_for_it(guarded, path):
    response = guarded.get(path)
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("text/html")
    assert '<form method="post"' in response.text and 'name="token"' in response.text
    assert "not this server" not in response.text


def test_the_form_sets_a_cookie_that_opens_the_page_and_its_requests(guarded):
    answer = guarded.post("/", data={"token": TOKEN}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/"
    set_cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie
    assert TOKEN not in set_cookie  # a digest of it
    assert guarded.cookies.get(COOKIE)
    assert guarded.get("/").status_code == 200
    assert guarded.get("/api/v1/rules").status_code == 200
    assert guarded.get("/api/v1/images/abc.jpg").status_code == 404  # past the guard, to the route


def test_the_cookie_is_secure_behind_https(make_client):
    from fastapi.testclient import TestClient

    guarded = make_client(token=TOKEN)
    secure = TestClient(guarded.app, base_url="https://fanshot.example")
    assert "; Secure" in secure.post("/", data={"token": TOKEN}, follow_redirects=False).headers["set-cookie"]
    assert "Secure" not in guarded.post("/", data={"token": TOKEN}, follow_redirects=False).headers["set-cookie"]


def test_a_wrong_token_in_the_form_says_so_and_sets_nothing(guarded):
    answer = guarded.post("/label", data={"token": "guess"}, follow_redirects=False)
    assert answer.status_code == 401 and "not this server" in answer.text
    assert "set-cookie" not in answer.headers
    assert guarded.get("/api/v1/rules").status_code == 401


def test_a_link_with_the_token_opens_the_page(guarded):
    answer = guarded.get(f"/label?token={TOKEN}", follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/label"
    assert guarded.get("/api/v1/rules").status_code == 200


def test_a_forged_cookie_is_refused(guarded):
    guarded.cookies.set(COOKIE, TOKEN)
    assert guarded.get("/api/v1/rules").status_code == 401


def test_a_token_with_characters_outside_ascii_works_in_every_way(make_client):
    token = "麻将-token"
    guarded = make_client(token=token)
    assert guarded.get("/api/v1/rules", headers={"Authorization": b"Bearer " + token.encode()}).status_code == 200
    assert guarded.post("/", data={"token": token}, follow_redirects=False).status_code == 303
    assert guarded.get("/api/v1/rules").status_code == 200


def test_an_address_that_keeps_guessing_is_refused_for_a_while_whatever_it_offers(guarded):
    for _ in range(MAX_WRONG):
        assert guarded.get("/api/v1/rules", headers=bearer("guess")).status_code == 401
    refused = guarded.get("/api/v1/rules", headers=bearer())  # even the right token, until the window ends
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "too_many_tries" and "try again in 5 minutes" in refused.json()["error"]["message"]
    assert 0 < int(refused.headers["retry-after"]) <= 300
    page = guarded.post("/", data={"token": TOKEN}, follow_redirects=False)
    assert page.status_code == 429 and "Too many wrong tokens" in page.text and "set-cookie" not in page.headers
    assert guarded.get("/api/v1/health").status_code == 200


def test_wrong_tokens_in_the_form_and_the_link_count_as_guesses_too(guarded):
    for i in range(MAX_WRONG):
        where = {"data": {"token": f"guess{i}"}} if i % 2 else {"params": {"token": f"guess{i}"}}
        method = guarded.post if i % 2 else guarded.get
        assert method("/", follow_redirects=False, **where).status_code == 401
    assert guarded.get(f"/?token={TOKEN}", follow_redirects=False).status_code == 429


def test_a_page_request_with_a_wrong_header_and_a_wrong_form_is_one_guess(guarded):
    for i in range(MAX_WRONG - 1):
        response = guarded.post("/", data={"token": f"guess{i}"}, headers=bearer(f"other{i}"), follow_redirects=False)
        assert response.status_code == 401 and "not this server's token" in response.text
    assert guarded.get("/api/v1/rules", headers=bearer()).status_code == 200  # 9 tries: still let in
    assert guarded.get("/api/v1/rules", headers=bearer("the tenth")).status_code == 401
    assert guarded.get("/api/v1/rules", headers=bearer()).status_code == 429


def test_asking_without_a_token_is_not_guessing(guarded):
    for _ in range(3 * MAX_WRONG):
        assert guarded.get("/api/v1/rules").status_code == 401
        assert guarded.get("/").status_code == 401
    assert guarded.get("/api/v1/rules", headers=bearer()).status_code == 200


def test_guesses_from_one_address_leave_the_others_and_the_cookie_alone(make_client):
    from fastapi.testclient import TestClient

    guesser = make_client(token=TOKEN)
    player = TestClient(guesser.app, client=("192.0.2.7", 40000))
    assert player.post("/", data={"token": TOKEN}, follow_redirects=False).status_code == 303
    browser_elsewhere = TestClient(guesser.app, client=("192.0.2.8", 40000))
    for _ in range(MAX_WRONG):
        guesser.get("/api/v1/rules", headers=bearer("guess"))
        browser_elsewhere.get("/api/v1/rules", headers={"Authorization": "Basic ***"})
    assert guesser.get("/api/v1/rules", headers=bearer()).status_code == 429
    assert player.get("/api/v1/rules", headers=bearer()).status_code == 200
    assert player.get("/api/v1/rules").status_code == 200  # the cookie
    assert browser_elsewhere.get("/api/v1/rules", headers=bearer()).status_code == 429
    browser_elsewhere.cookies.set(COOKIE, player.cookies.get(COOKIE))
    assert browser_elsewhere.get("/api/v1/rules").status_code == 200  # a page that holds the cookie goes on


def test_the_start_message_names_the_token_or_warns_when_others_can_reach_the_service():
    assert "access token required" in access_note("0.0.0.0", TOKEN) and "warning" not in access_note("0.0.0.0", TOKEN)
    assert "the token has 6 characters" in access_note("0.0.0.0", "123456")
    assert "without an access token" in access_note("0.0.0.0", "")
    assert access_note("127.0.0.1", "") is None and access_note("localhost", "") is None


def test_a_proxy_that_is_not_trusted_is_named_in_the_log_once(make_client, caplog):
    from fastapi.testclient import TestClient

    app = make_client(token=TOKEN).app
    proxy = TestClient(app, client=("192.0.2.20", 40000))
    trusted = TestClient(app, client=("198.51.100.3", 40000))  # as uvicorn leaves a trusted proxy's caller
    with caplog.at_level("WARNING", logger="fanshot.api"):
        trusted.get("/api/v1/rules", headers={"X-Forwarded-For": "198.51.100.3, 10.0.0.2"})
        assert not [r for r in caplog.records if "X-Forwarded-For" in r.getMessage()]
        for caller in ("203.0.113.5", "203.0.113.6"):
            assert proxy.get("/api/v1/rules", headers={"X-Forwarded-For": caller, **bearer()}).status_code == 200
    named = [r.getMessage() for r in caplog.records if "X-Forwarded-For" in r.getMessage()]
    assert len(named) == 1 and "192.0.2.20" in named[0] and "FANSHOT_TRUSTED_PROXIES" in named[0]


def test_two_services_on_one_database_count_an_address_together(make_client, tmp_path):
    # two replicas behind one proxy: half the tries on each still reach the limit on both
    replicas = [make_client(token=TOKEN, data_dir=tmp_path / "shared") for _ in range(2)]
    for number in range(MAX_WRONG):
        assert replicas[number % 2].get("/api/v1/rules", headers=bearer("guess")).status_code == 401
    for replica in replicas:
        refused = replica.get("/api/v1/rules", headers=bearer())
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_tries"
