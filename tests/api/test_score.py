"""POST /api/v1/score: the scorer's answer for a hand JSON, its error code for a rejected hand."""
import pytest

import scoring

HANDS = [
    ("123m 456m 789m 123p 55p", {}),
    ("123m 456m 789m 123p 55p", {"self_drawn": True, "fourth_tile": False}),
    ("[123m] 456m 789m EEE 5p 5p", {"seat_wind": "E", "prevalent_wind": "S"}),
    ("{5555p} [WWW] 123s 789s 1m 1m", {"self_drawn": True, "seat_wind": "W"}),
]


@pytest.mark.parametrize("text, context", HANDS)
@pytest.mark.parametrize("rules", ["mcr", "mcr-reference"])
def test_the_score_is_the_scorers(client, text, context, rules):
    hand = scoring.parse_hand(text, **context)
    response = client.post("/api/v1/score", json={"hand": hand, "rules": rules})
    assert response.status_code == 200, response.text
    assert response.json() == scoring.score_hand(hand, rules)


def test_the_rules_default_to_mcr_and_meld_fields_pass_through(client):
    hand = scoring.parse_hand("[123m] 456m 789m 123p 5p 5p")
    hand["melds"][0].update(claimed="W2", **{"from": "left"})
    body = client.post("/api/v1/score", json={"hand": hand}).json()
    assert body["ruleset"] == "mcr"
    assert body == scoring.score_hand(hand, "mcr")


@pytest.mark.parametrize("change, code", [
    (lambda h: h["concealed"].__setitem__(0, "J1"), "not_a_winning_hand"),
    (lambda h: h["concealed"].pop(), "wrong_tile_count"),
    (lambda h: h["context"].__setitem__("weather", "rain"), "unknown_context_key"),
    (lambda h: h.update(concealed=["W1"] * 5 + h["concealed"][5:]), "too_many_copies"),
])
def test_a_hand_the_scorer_rejects_is_a_422_with_its_code(client, change, code):
    hand = scoring.parse_hand("123m 456m 789m 123p 55p")
    change(hand)
    with pytest.raises(scoring.HandError) as expected:
        scoring.score_hand(hand, "mcr")
    response = client.post("/api/v1/score", json={"hand": hand})
    assert response.status_code == 422
    assert response.json() == expected.value.to_json()
    assert response.json()["error"]["code"] == code


def test_an_unknown_rule_set_is_a_422_with_the_scorers_code(client):
    hand = scoring.parse_hand("123m 456m 789m 123p 55p")
    response = client.post("/api/v1/score", json={"hand": hand, "rules": "house-rules"})
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "unknown_ruleset"


@pytest.mark.parametrize("body, where", [
    ({"hand": {"concealed": ["W0"], "win_tile": "W1"}}, ["body", "hand", "concealed", "0"]),
    ({"hand": {"concealed": [], "win_tile": "H1"}}, ["body", "hand", "win_tile"]),
    ({"hand": {"concealed": [], "win_tile": "W1", "flowers": ["W1"]}}, ["body", "hand", "flowers", "0"]),
    ({"hand": {"concealed": [], "win_tile": "W1", "context": {"self_drawn": "yes"}}},
     ["body", "hand", "context", "self_drawn"]),
    ({"hand": {"concealed": [], "win_tile": "W1", "melds": [{"kind": "pair", "tiles": ["W1", "W1"]}]}},
     ["body", "hand", "melds", "0", "kind"]),
    ({"hand": {"concealed": [], "win_tile": "W1", "extra": 1}}, ["body", "hand", "extra"]),
    ({"text": "123m"}, ["body", "hand"]),
])
def test_a_malformed_hand_is_a_422_naming_the_field(client, body, where):
    response = client.post("/api/v1/score", json=body)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_request"
    assert where in [d["loc"] for d in error["details"]]
