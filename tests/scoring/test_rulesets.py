"""Rule sets by name, and every documented difference between `mcr` and `mcr-reference` (docs/rules.md)."""
import pytest

from scoring import HandError, get_ruleset, list_rulesets, parse_hand, score_hand


def fans(text, rules, **context):
    return {f["name_zh"]: f["count"] for f in score_hand(parse_hand(text, **context), rules)["fans"]}


def test_registry_lists_both_mcr_rule_sets():
    names = {rs["name"]: rs for rs in list_rulesets()}
    assert {"mcr", "mcr-reference"} <= set(names)
    mcr = names["mcr"]
    assert len(mcr["fans"]) == 81 and not mcr["partial"]
    row = next(f for f in mcr["fans"] if f["name_zh"] == "大四喜")
    assert row["points"] == 88 and "ALL_PUNGS" in row["excludes"] and row["name_en"] == "Big Four Winds"
    assert len(names["mcr-reference"]["fans"]) == 82   # + 明暗杠


def test_unknown_rule_set_is_a_hand_error():
    with pytest.raises(HandError) as info:
        get_ruleset("nope")
    assert info.value.code == "unknown_ruleset" and "mcr" in info.value.message


def test_default_rule_set_is_mcr():
    h = parse_hand("123m456m789m123p5p+5p")
    assert score_hand(h)["ruleset"] == "mcr"


# Difference 1: 明暗杠 ------------------------------------------------------------
def test_difference_concealed_and_melded_kong():
    text = "{1111m}[2222p]456s789s5p+5p"
    ref, mcr = fans(text, "mcr-reference"), fans(text, "mcr")
    assert ref.get("明暗杠") == 1 and "明杠" not in ref and "暗杠" not in ref
    assert mcr.get("明杠") == 1 and mcr.get("暗杠") == 1 and "明暗杠" not in mcr


# Difference 2: 七对 with fans made of sets -------------------------------------------
@pytest.mark.parametrize("text,fan", [
    ("2222334466s88sF+F", "绿一色"),
    ("EESSWWNNCCFFP+P", "字一色"),
    ("1199m1199p1199s1m+1m", "清幺九"),
    ("1199m1199pEECC9s+9s", "混幺九"),
    ("7799m7799p88s99s7s+7s", "全大"),
    ("4466m4455p55s66s4s+4s", "全中"),
    ("1133m1122p22s33s1s+1s", "全小"),
    ("6688m6677p77s99s6s+6s", "大于五"),
    ("1133m2244p22s44s1s+1s", "小于五"),
])
def test_difference_seven_pairs_with_set_fans(text, fan):
    ref, mcr = fans(text, "mcr-reference"), fans(text, "mcr")
    assert ref.get("七对") == 1 and ref.get(fan) == 1
    assert mcr.get("七对") == 1 and fan not in mcr


def test_seven_pairs_of_honours_is_not_one_voided_suit_in_mcr():
    assert "缺一门" not in fans("EESSWWNNCCFFP+P", "mcr")


# Difference 3: waits inside the 组合龙 body ------------------------------------------
def test_difference_waits_inside_knitted_straight():
    edge = "12369m147s22258p+3m"          # 3m completes 12m (edge) but also sits in 369m
    assert fans(edge, "mcr-reference").get("边张") == 1
    assert "边张" not in fans(edge, "mcr")
    single = "258m366789s1147p+1p"        # 1p pairs with 1p (single) but also sits in 147p
    assert fans(single, "mcr-reference", self_drawn=True).get("单钓将") == 1
    assert "单钓将" not in fans(single, "mcr", self_drawn=True)


def test_rule_sets_agree_elsewhere():
    for text in ["123m456m789m123p5p+5p", "EEESSSWWWNNN5m+5m", "19m19s19pESWNCFP+1m", "1112345678999m+5m"]:
        assert fans(text, "mcr") == fans(text, "mcr-reference")


def test_mcr_differs_from_mcr_reference_only_where_documented():
    import random

    from scoring.generate import random_winning_hand
    rng = random.Random(21)
    seven_pair_set_fans = {"绿一色", "字一色", "清幺九", "混幺九", "全大", "全中", "全小", "大于五", "小于五",
                           "缺一门", "无字", "混一色"}   # the last three: what those fans would have excluded
    seen = set()
    for _ in range(3000):
        hand = random_winning_hand(rng)
        ref = {f["name_zh"]: f["count"] for f in score_hand(hand, "mcr-reference")["fans"]}
        mcr = {f["name_zh"]: f["count"] for f in score_hand(hand, "mcr")["fans"]}
        if ref == mcr:
            continue
        changed = {k for k in set(ref) | set(mcr) if ref.get(k) != mcr.get(k)}
        if "明暗杠" in ref:
            assert changed == {"明暗杠", "明杠", "暗杠"}, (hand, ref, mcr)
            seen.add(1)
        elif "七对" in ref:
            assert changed <= seven_pair_set_fans, (hand, ref, mcr)
            seen.add(2)
        else:
            assert "组合龙" in ref and changed <= {"边张", "嵌张", "单钓将"}, (hand, ref, mcr)
            seen.add(3)
    assert seen == {1, 2, 3}
