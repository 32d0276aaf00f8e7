import scoring


def test_rules_lists_the_scorers_rule_sets_with_their_fan_tables(client):
    response = client.get("/api/v1/rules")
    assert response.status_code == 200
    body = response.json()
    without_fields = [{k: v for k, v in rs.items() if k != "context_fields"} for rs in body["rulesets"]]
    assert without_fields == scoring.list_rulesets()  # context_fields: tests/api/test_rule_context_fields.py
    names = [rs["name"] for rs in body["rulesets"]]
    assert "mcr" in names
    mcr = body["rulesets"][names.index("mcr")]
    assert len(mcr["fans"]) >= 81
    assert all({"name_zh", "name_en", "points"} <= set(fan) for fan in mcr["fans"])
