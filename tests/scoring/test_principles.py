"""The counting principles: 不重复, 不拆移, 不得相同, 套算一次, and the best decomposition wins."""
from scoring import parse_hand, score_hand


def fans(text, rules="mcr", **context):
    return {f["name_zh"]: f["count"] for f in score_hand(parse_hand(text, **context), rules)["fans"]}


def test_no_double_counting_bu_chong_fu():
    # 不重复: a fan implied by a bigger one is not counted again
    got = fans("EEESSSWWWNNN5m+5m")
    assert "大四喜" in got
    assert not {"碰碰和", "三风刻", "圈风刻", "门风刻", "幺九刻"} & set(got)
    assert "无字" not in fans("123m345m678m999m5m+5m")          # 清一色 implies 无字


def test_no_resplitting_bu_chai_yi():
    # 不拆移: the chows of 清龙 are not split again into 连六 / 老少副 among themselves
    got = fans("123m456m789m123p5p+5p")
    assert got.get("清龙") == 1 and "连六" not in got and "老少副" not in got
    # the fourth chow may combine once with one of them: 123m + 123m is 一般高
    assert fans("[123m]123m456m789m5p+5p").get("一般高") == 1


def test_no_identical_bu_de_xiang_tong():
    # 不得相同: three identical chows count 一色三同顺 once, never also 一般高
    got = fans("[123m][123m]123m789p5p+5p")
    assert got.get("一色三同顺") == 1 and "一般高" not in got


def test_account_once_tao_suan_yi_ci():
    # 套算一次: 123m 123m 123p -> 一般高 once and 喜相逢 once (the 123p pairs with one 123m only)
    got = fans("[123m][123m][123p]789s5p+5p")
    assert got.get("一般高") == 1 and got.get("喜相逢") == 1
    # the three wind pungs of 三风刻 are not also 幺九刻 (seat and prevalent wind South, pungs E W N)
    got = fans("EEEWWWNNN123m5m+5m", seat_wind="S", prevalent_wind="S")
    assert got.get("三风刻") == 1 and "幺九刻" not in got


def test_highest_scoring_decomposition_wins():
    # 111222333m is three pungs (一色三节高 24 + 三暗刻 16) rather than three chows (一色三同顺 24)
    got = fans("123m123m123m789p5p+5p")
    assert "一色三节高" in got and "一色三同顺" not in got
    # 七对 against a regular reading: 11 11 22 22 33 33 55 is also 123m x4 + 55m, 一色四同顺 48
    got = fans("111122223333m5m+5m")
    assert "七对" not in got and got.get("一色四同顺") == 1
    # and the other way: when the pairs score more, 七对 is kept
    got = fans("1122m3355p6688s9s+9s")
    assert got.get("七对") == 1


def test_minimum_ignores_flowers():
    low = score_hand(parse_hand("[234m]456p678s222s5p+5p", flowers=8))
    fan_points = sum(f["points"] * f["count"] for f in low["fans"] if f["key"] != "FLOWER_TILES")
    assert fan_points < 8 and low["total"] == fan_points + 8
    assert low["meets_minimum"] is False
    chicken = score_hand(parse_hand("33sEE[234m][678p][789s]+3s", seat_wind="S", prevalent_wind="S"))
    assert chicken["total"] == 8 and chicken["meets_minimum"] is True


def test_fans_name_their_tiles():
    score = score_hand(parse_hand("[123m]123m456p789s5p+5p"))
    pdc = next(f for f in score["fans"] if f["key"] == "PURE_DOUBLE_CHOW")
    assert pdc["tiles"] == [["W1", "W2", "W3"], ["W1", "W2", "W3"]]
    assert pdc["text"] == "一般高 1 (🀇🀈🀉, 🀇🀈🀉)"
    assert [m["kind"] for m in score["melds"]] == ["chow", "chow", "chow", "chow", "pair"]


def test_every_fan_of_random_hands_names_tiles_and_totals_add_up():
    import random

    from scoring.generate import random_winning_hand
    rng = random.Random(12)
    for _ in range(300):
        hand = random_winning_hand(rng)
        for rules in ("mcr", "mcr-reference"):
            score = score_hand(hand, rules)
            assert score["total"] == sum(f["points"] * f["count"] for f in score["fans"])
            for fan in score["fans"]:
                assert fan["tiles"] and all(fan["tiles"]), (fan, hand)
            melded = sorted(t for m in score["melds"] for t in m["tiles"])
            held = sorted(hand["concealed"] + [hand["win_tile"]] + [t for m in hand["melds"] for t in m["tiles"]])
            assert melded == held      # the decomposition shown covers exactly the hand's tiles
