import scoring


def test_rules_lists_the_scorers_rule_sets_with_their_fan_tables(client):
    response = client.get("/api/v1/rules")
    assert response.status_code == 200
    body = response.json()
    assert body == {"rulesets": scoring.list_rulesets()}
    names = [rs["name"] for rs in body["rulesets"]]
    assert "mcr" in names
    mcr = body["rulesets"][names.index("mcr")]
    assert len(mcr["fans"]) >= 81
    assert all({"name_zh", "name_en", "points"} <= set(fan) for fan in mcr["fans"])
