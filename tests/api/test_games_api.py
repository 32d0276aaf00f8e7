"""/api/v1/games: a game started, hands recorded (typed, and from an analysis with its photo),
the conflict between two phones, undo, edit, export, and the errors, on SQLite in tmp_path."""
from __future__ import annotations

import csv
import io

import pytest

import scoring

HAND = {"concealed": ["F4", "F4", "F4", "W1", "W2", "W3", "B4", "B5", "B6", "T7", "T8", "T9", "J3"],
        "melds": [], "win_tile": "J3"}


@pytest.fixture
def games(make_client, tmp_path):
    return make_client(data_dir=tmp_path)


def new_game(client, **body) -> dict:
    answer = client.post("/api/v1/games", json={"players": ["Ann", "Bo", "Cy", "Di"], **body})
    assert answer.status_code == 201, answer.text
    return answer.json()


def record(client, code, **body):
    return client.post(f"/api/v1/games/{code}/hands", json=body)


def test_a_game_is_started_and_read_by_its_code(games):
    sheet = new_game(games, first_dealer=1)
    assert sheet["version"] == 0 and sheet["next"]["dealer"] == 1 and sheet["next"]["seat_winds"] == ["N", "E", "S", "W"]
    assert games.get(f"/api/v1/games/{sheet['code']}").json() == sheet


def test_a_typed_hand_is_scored_with_the_games_winds_and_paid(games):
    code = new_game(games)["code"]
    answer = record(games, code, version=0, outcome="win", winner=3, discarder=0, hand=HAND)  # seat 3 is North
    assert answer.status_code == 200, answer.text
    hand = answer.json()["hands"][0]
    context = {"self_drawn": False, "seat_wind": "N", "prevalent_wind": "E"}
    assert hand["hand"]["context"].items() >= context.items() and not hand["self_drawn"]
    total = scoring.score_hand({**HAND, "context": context})["total"]
    assert hand["total"] == total and "Seat Wind" in [f["name_en"] for f in hand["score"]["fans"]]
    assert hand["payments"] == [-8 - total, -8, -8, 24 + total] and answer.json()["version"] == 1


def test_a_hand_from_an_analysis_keeps_its_annotated_photo(games):
    code = new_game(games)["code"]
    image_id = games.app.state.images.put(b"\xff\xd8annotated\xff\xd9")  # as POST /analyze keeps it
    sheet = record(games, code, version=0, outcome="win", winner=0, hand=HAND, image_id=image_id).json()
    url = sheet["hands"][0]["photo_url"]
    assert url == f"/api/v1/games/{code}/hands/1/photo.jpg"
    photo = games.get(url)
    assert photo.status_code == 200 and photo.headers["content-type"] == "image/jpeg"
    assert photo.content == b"\xff\xd8annotated\xff\xd9"
    gone = record(games, code, version=1, outcome="draw", image_id="nosuchimage")
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "image_not_found")


def test_the_second_phone_gets_a_conflict_and_the_fresh_sheet(games):
    code = new_game(games)["code"]
    first = record(games, code, version=0, outcome="win", winner=1, total=8)
    second = record(games, code, version=0, outcome="win", winner=2, total=8)
    assert first.status_code == 200 and second.status_code == 409
    error = second.json()["error"]
    assert error["code"] == "stale_version" and error["params"]["sheet"] == first.json()
    again = record(games, code, version=error["params"]["sheet"]["version"], outcome="win", winner=2, total=8)
    assert [h["winner"] for h in again.json()["hands"]] == [1, 2]


def test_undo_and_edit_recompute_the_sheet(games):
    code = new_game(games)["code"]
    record(games, code, version=0, outcome="win", winner=0, total=8)
    record(games, code, version=1, outcome="false_win", offender=2)
    undone = games.post(f"/api/v1/games/{code}/undo", json={"version": 2}).json()
    assert len(undone["hands"]) == 1 and undone["totals"] == [48, -16, -16, -16]
    edited = games.put(f"/api/v1/games/{code}/hands/1", json={"version": 3, "outcome": "draw"}).json()
    assert edited["totals"] == [0, 0, 0, 0] and edited["hands"][0]["outcome"] == "draw"


def test_export_as_csv_and_json(games):
    code = new_game(games)["code"]
    record(games, code, version=0, outcome="win", winner=1, discarder=2, total=10)
    exported = games.get(f"/api/v1/games/{code}/export?format=csv")
    assert exported.headers["content-type"].startswith("text/csv")
    assert f"fanshot-game-{code}.csv" in exported.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(exported.text)))
    assert rows[0]["winner"] == "Bo" and rows[0]["discarder"] == "Cy" and rows[0]["Cy this hand"] == "-18"
    assert games.get(f"/api/v1/games/{code}/export?format=json").json() == games.get(f"/api/v1/games/{code}").json()


@pytest.mark.parametrize("body, status, code", [
    ({"version": 0, "outcome": "win", "winner": 5, "total": 8}, 422, "invalid_request"),  # seats are 0-3 by the schema
    ({"version": 0, "outcome": "win", "winner": 0, "total": 6}, 422, "below_minimum"),
    ({"version": 0, "outcome": "win", "winner": 0}, 422, "hand_or_total"),
    ({"version": 0, "outcome": "win", "winner": 0, "hand": {**HAND, "win_tile": "J2"}}, 422, "not_a_winning_hand"),
    ({"version": 0, "outcome": "lost", "winner": 0, "total": 8}, 422, "invalid_request"),
    ({"outcome": "draw"}, 422, "invalid_request"),  # no version
])
def test_bad_records_are_clear_errors(games, body, status, code):
    game = new_game(games)["code"]
    answer = record(games, game, **body)
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert games.get(f"/api/v1/games/{game}").json()["version"] == 0


def test_unknown_games_over_games_and_bad_games(games):
    assert games.get("/api/v1/games/NOSUCH").json()["error"]["code"] == "game_not_found"
    code = new_game(games)["code"]
    assert games.post(f"/api/v1/games/{code}/end", json={"version": 0}).json()["ended_early"]
    over = record(games, code, version=1, outcome="draw")
    assert (over.status_code, over.json()["error"]["code"]) == (409, "game_over")
    bad = games.post("/api/v1/games", json={"rules": "gongdi-1990"})
    assert (bad.status_code, bad.json()["error"]["code"]) == (422, "ruleset_not_for_games")


def test_the_games_routes_are_in_the_openapi_schema(games):
    paths = games.get("/openapi.json").json()["paths"]
    assert {"/api/v1/games", "/api/v1/games/{code}", "/api/v1/games/{code}/hands", "/api/v1/games/{code}/undo",
            "/api/v1/games/{code}/hands/{number}", "/api/v1/games/{code}/export"} <= set(paths)
    assert "409" in paths["/api/v1/games/{code}/hands"]["post"]["responses"]
