"""GET /api/v1/rules describes each rule set's extra context fields (type, allowed values), and
what it offers is what the scorer takes: every allowed value scores, others are refused."""
from __future__ import annotations

import pytest

import scoring

# 1-2-3 of characters, 4-5-6 of characters, 7-8-9 of characters, 1-2-3 of dots, a pair of 5 dots.
HAND = {"concealed": ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "B1", "B2", "B3", "B5"],
        "melds": [], "win_tile": "B5", "flowers": []}


@pytest.fixture
def rulesets(client) -> dict:
    response = client.get("/api/v1/rules")
    assert response.status_code == 200
    return {rs["name"]: rs for rs in response.json()["rulesets"]}


def score(client, rules: str, **context) -> dict:
    return client.post("/api/v1/score", json={"hand": {**HAND, "context": {"self_drawn": True, **context}},
                                              "rules": rules})


def test_every_rule_set_lists_one_described_field_per_context_key(rulesets):
    assert set(rulesets) == {rs["name"] for rs in scoring.list_rulesets()}
    for rs in rulesets.values():
        assert [f["name"] for f in rs["context_fields"]] == rs["context_keys"]
        for field in rs["context_fields"]:
            assert field["type"] in {"bool", "enum", "tile"}, field  # none left "unknown"
            assert field["label"]["zh"] and field["label"]["en"]
    assert rulesets["mcr"]["context_fields"] == []


def test_lianzhong_fields_have_the_scorers_types_and_values(rulesets):
    fields = {f["name"]: f for f in rulesets["lianzhong"]["context_fields"]}
    assert set(fields) == {"dealer", "first_turn", "wild_tile"}
    assert fields["dealer"]["type"] == "bool" and fields["dealer"]["default"] is False
    turn = fields["first_turn"]
    assert turn["type"] == "enum" and turn["default"] is None
    assert [v["value"] for v in turn["values"]] == ["initial_deal", "first_draw_after_dealer", "first_go_around"]
    assert [v["label"]["zh"][:2] for v in turn["values"]] == ["天和", "地和", "人和"]
    wild = fields["wild_tile"]
    assert wild["type"] == "tile" and wild["default"] is None
    assert set(wild["values"]) == set(scoring.tiles.PLAYING_TILES) and len(wild["values"]) == 34


def test_every_offered_value_scores_and_the_first_turn_values_give_their_fans(client, rulesets):
    fields = {f["name"]: f for f in rulesets["lianzhong"]["context_fields"]}
    base = score(client, "lianzhong")
    assert base.status_code == 200, base.json()
    fan_of_turn = {"initial_deal": ("天和", {"dealer": True}), "first_draw_after_dealer": ("地和", {}),
                   "first_go_around": ("人和", {})}
    for value in fields["first_turn"]["values"]:
        name, extra = fan_of_turn[value["value"]]
        response = score(client, "lianzhong", first_turn=value["value"], **extra)
        assert response.status_code == 200, response.json()
        assert name in [fan["name_zh"] for fan in response.json()["fans"]]
        assert response.json()["total"] > base.json()["total"]
    for tile in fields["wild_tile"]["values"]:
        assert score(client, "lianzhong", wild_tile=tile).status_code == 200, tile
    for dealer in (True, False):
        assert score(client, "lianzhong", dealer=dealer).status_code == 200


def test_values_outside_the_description_are_refused(client):
    assert score(client, "lianzhong", first_turn="second_go_around").json()["error"]["code"] == "invalid_context"
    assert score(client, "lianzhong", wild_tile="H1").json()["error"]["code"] == "invalid_context"
    assert score(client, "mcr", dealer=True).json()["error"]["code"] == "unknown_context_key"
