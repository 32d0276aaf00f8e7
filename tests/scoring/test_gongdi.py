"""The 1990 工地 rule set (seed 000_*.txt, 传统算幡麻将明白纸): one test per hand and per principle,
each quoting the seed's own words."""
from __future__ import annotations

import pytest

from scoring import HandError, list_rulesets, parse_hand, score_hand
from scoring.gongdi import rules
from scoring.tiles import PLAYING_TILES

RULES = "gongdi-1990"


def score_gongdi(hand: dict) -> dict:
    return score_hand(hand, RULES)


def score(text: str, **context) -> dict:
    return score_gongdi(parse_hand(text, **context))


def error(text: str, **context) -> HandError:
    with pytest.raises(HandError) as caught:
        score(text, **context)
    return caught.value


def names(result: dict) -> set[str]:
    return {fan["name_zh"] for fan in result["fans"]}


# ---- 一、麻将概况 -------------------------------------------------------------------------

def test_136_tiles_and_no_flowers():
    """“麻将由“条”、“饼”、“万”三种色和“风”组成，共136张牌。” — no flowers in this set."""
    hand = parse_hand("123m456m789m123p5p+5p", flowers=["H1"])
    with pytest.raises(HandError) as caught:
        score_gongdi(hand)
    assert caught.value.code == "flowers_not_allowed"
    assert "136" in caught.value.message


def test_pair_is_true_or_false():
    """“真将”：所有“风”、除3、4、6、7之外的“条”或“饼”或“万”；“假将”：3、4、6、7的“条”或“饼”或“万”；
    只有“将”分真假，“卡”和“杠”不分真假。"""
    kinds = {code: rules.pair_kind(code) for code in PLAYING_TILES}
    false = {code for code, kind in kinds.items() if kind == "假将"}
    assert false == {f"{s}{r}" for s in "WTB" for r in (3, 4, 6, 7)}
    assert all(kinds[c] == "真将" for c in ("F1", "F4", "J1", "J2", "J3", "W1", "T2", "B5", "W8", "T9"))
    # the scorer reports the 将 of the hand it counted
    assert score("[123p] [123p] [123p] 456s 4m+4m")["pair"] == {"tiles": ["W4", "W4"], "kind": "假将"}
    assert score("[123p] [123p] [123p] 456s 9m+9m")["pair"] == {"tiles": ["W9", "W9"], "kind": "真将"}


def test_chow_only_from_the_left():
    """“下家只能吃上家的，隔人不能吃，但隔人可以碰、可以杠，胡牌时不受隔人限制。”"""
    chow_across = parse_hand("[123p] 123p 123p 456s 9m+9m")
    chow_across["melds"][0]["from"] = "across"
    with pytest.raises(HandError) as caught:
        score_gongdi(chow_across)
    assert caught.value.code == "impossible_meld" and "left" in caught.value.message
    pung_across = parse_hand("[555p] 123p123p123p 9m+9m")
    pung_across["melds"][0]["from"] = "across"
    assert score_gongdi(pung_across)["total"] == 20          # 隔人可以碰
    chow_left = parse_hand("[123p] 123p 123p 456s 9m+9m")
    chow_left["melds"][0]["from"] = "left"
    assert score_gongdi(chow_left)["total"] == 20
    # 胡牌时不受隔人限制: a discard that completes a chow still wins
    assert score("[123p] [123p] 12p 456s 99m+3p", self_drawn=False)["total"] == 20


def test_at_least_8_fan_to_win_and_20_is_the_cap():
    """“最低八幡才能胡牌，满贯也定为二十幡（为保护输家，即使数出来的幡数再多也按20幡计算）。”"""
    assert rules.settle(7) == {"total": 7, "meets_minimum": False, "capped": False}
    assert rules.settle(8) == {"total": 8, "meets_minimum": True, "capped": False}
    assert rules.settle(40) == {"total": 20, "meets_minimum": True, "capped": True}
    # 清一色 and 三姊妹 in every reading: 40 counted, 20 paid
    result = score("[123m] [123m] [123m] 456m 9m+9m")
    assert names(result) == {"清一色", "三姊妹"}
    assert (result["counted"], result["total"], result["capped"]) == (40, 20, True)


def test_not_a_winning_hand():
    """“一手牌胡牌（也叫和牌）时只能有“扑”、“卡”或“杠”、“将””"""
    err = error("124m456m789m123p5p+5p")
    assert err.code == "not_a_winning_hand"


def test_listed_as_partial_with_the_seed_hands():
    """The seed is cut off after “（8）大三元：胡牌时有“中、发、白”各不少于三张。”: the rule set says so."""
    listed = {r["name"]: r for r in list_rulesets()}[RULES]
    assert listed["partial"] is True and listed["unit"] == "幡" and listed["minimum"] == 8
    assert [f["name_zh"] for f in listed["fans"]] == ["清一色", "风满楼", "三姊妹", "七大对", "三暗卡",
                                                     "十三幺", "十三不靠", "大三元"]
    assert all(f["points"] == 20 and f["quote"] for f in listed["fans"])
    assert score("[CCC] [FFF] PP 123m 55s+P")["partial"] is True


# ---- 二、幡数计算法: the principles -------------------------------------------------------

def test_count_the_smaller_reading():
    """“计幡原则是：难度越大幡数越多，能计小则不计大” — 11223344556677m is 七大对 + 清一色 (40) as
    pairs, or 清一色 alone (20) as 扑 + 将: the smaller is counted."""
    result = score("1122334455667m+7m")
    assert result["counted"] == 20
    assert names(result) == {"清一色"}


def test_grouping_in_doubt_is_not_counted():
    """“同时出现两种及以上情况、有争议时则该项不计幡。” — 111222333m on a discarded 3m is 三姊妹 as
    three 123m, but only two 暗卡 as three 卡: 三姊妹 is disputed, and the count without it is in the
    missing part of the seed."""
    err = error("11122233m 456p 99s+3m", self_drawn=False)
    assert err.code == "not_covered"
    assert "三姊妹" in err.message and "有争议时则该项不计幡" in err.message
    # no dispute when every reading pays 20: three 暗卡 (the 3p completes 345p) or 三姊妹
    result = score("111222333m45p66s+3p", self_drawn=False)
    assert result["total"] == 20 and result["readings"] == 2


def test_winning_tile_with_two_counts_counts_none():
    """“当胡牌时听到的这张牌有两种及以上幡数时则为都不计幡。” — a discarded 5p that completes either
    the 555p 卡 (then only two 暗卡) or the 345p 扑 (then three 暗卡) gives two counts."""
    err = error("111m999s555p34p77m+5p", self_drawn=False)
    assert err.code == "not_covered"
    assert "三暗卡" in err.message and "都不计幡" in err.message
    # self-drawn, the 5p gives 三暗卡 either way: one count, 20 幡
    assert names(score("111m999s555p34p77m+5p", self_drawn=True)) == {"三暗卡"}


def test_hand_without_a_20_fan_hand_is_not_covered():
    """The seed stops after “（8）大三元：胡牌时有“中、发、白”各不少于三张。”: no smaller 幡 item is
    known, so an ordinary hand is answered "not covered by the rules we have", never a guess."""
    err = error("123m456p789s234m5s+5s")
    assert err.code == "not_covered"
    assert "not covered by the rules we have" in err.message


# ---- 1、二十幡（满贯） -------------------------------------------------------------------

def test_pure_suit():
    """“（1）清一色：胡牌时只有三种色里的一种并且没有“风””"""
    result = score("123m456m789m234m5m+5m")
    assert names(result) == {"清一色"} and result["total"] == 20 and result["meets_minimum"]
    assert error("123m456m789m5m EEE+5m").code == "not_covered"   # a 风 in it: not 清一色


def test_all_honours():
    """“（2）风满楼：胡牌时只有“风”；（极难遇到）”"""
    result = score("[EEE] [SSS] [WWW] CCNN+N", self_drawn=False)
    assert names(result) == {"风满楼"} and result["total"] == 20


def test_three_identical_chows():
    """“（3）三姊妹：胡牌时有完全一样的三扑排（三胞胎）；（极难遇到）”"""
    result = score("[123p] [123p] [123p] 456s 9m+9m")
    assert names(result) == {"三姊妹"}
    assert result["fans"][0]["tiles"] == [["B1", "B2", "B3"]] * 3
    assert error("[123p] [123p] [234p] 456s 9m+9m").code == "not_covered"


def test_seven_pairs():
    """“（4）七大对：胡牌时有7对牌；”"""
    result = score("1m1m3m3m5p5p7p7p9s9sEEC+C")
    assert names(result) == {"七大对"} and result["total"] == 20


def test_seven_pairs_with_four_alike_is_not_covered():
    """“七大对：胡牌时有7对牌” does not say whether four identical tiles are two of the pairs."""
    err = error("1m1m1m1m5p5p7p7p9s9sEEC+C")
    assert err.code == "not_covered" and "four identical" in err.message


def test_three_concealed_pungs():
    """“（5）三暗卡：胡牌时有三扑自己摸到的立着的“卡””, with “①“暗卡”：自己摸到的立着的“卡””: a 卡 is
    concealed only if all its tiles were drawn by the player."""
    result = score("111m555p999s234s7p+7p", self_drawn=False)
    assert names(result) == {"三暗卡"}
    assert sorted(result["fans"][0]["tiles"]) == [["B5"] * 3, ["T9"] * 3, ["W1"] * 3]
    # the third 9s taken from a discard: that 卡 was not drawn by the player, two 暗卡 are left
    assert error("111m555p99s234s77p+9s", self_drawn=False).code == "not_covered"
    assert names(score("111m555p99s234s77p+9s", self_drawn=True)) == {"三暗卡"}


def test_concealed_kong_as_a_concealed_pung_is_not_covered():
    """“三暗卡：胡牌时有三扑自己摸到的立着的“卡””, and “只有“将”分真假，“卡”和“杠”不分真假” keeps 卡 and
    杠 apart: whether a 暗杠 counts toward 三暗卡 is not in the seed."""
    err = error("{1111m} 555p999s234s7p+7p", self_drawn=False)
    assert err.code == "not_covered" and "暗杠" in err.message


def test_thirteen_terminals():
    """“（6）十三幺：胡牌时全是1、9和“风”；（极难遇到）”"""
    assert names(score("1m9m1s9s1p9pESWNCFP+P")) == {"十三幺"}
    # pungs of 1, 9 and 风 are “全是1、9和风” too
    assert names(score("[111m] [999p] [EEE] NNN 9s+9s")) == {"十三幺"}
    assert names(score("[111m] [999m] [111s] 999p 1p+1p")) == {"十三幺"}      # 1 and 9 alone


def test_loose_terminals_are_not_covered():
    """“十三幺：胡牌时全是1、9和“风”” does not say whether 14 such tiles win in any arrangement."""
    err = error("1m1m9m1s9s9s1p9pESWNC+F")
    assert err.code == "not_covered" and "十三幺" in err.message


def test_thirteen_unrelated():
    """“（7）十三不靠：胡牌时所有的牌都不相连（比如：东、南、西、北、中、发、白、1条、2饼、3万、4条、5饼、
    6万、7条、8饼、9万中的14张）”"""
    result = score("ESWNCF 1s4s7s 2p5p 3m6m+P")
    assert names(result) == {"十三不靠"} and result["total"] == 20
    # tiles next to each other are 相连: not a winning hand
    assert error("ESWNCF 1s2s7s 2p5p 3m6m+P").code == "not_a_winning_hand"
    # two apart: 不相连 in words, but not as the example keeps them
    assert error("ESWNCF 1s3s7s 2p5p 3m6m+P").code == "not_covered"


def test_big_three_dragons():
    """“（8）大三元：胡牌时有“中、发、白”各不少于三张。”"""
    result = score("[CCC] [FFF] PP 123m 55s+P", self_drawn=False)
    assert names(result) == {"大三元"}
    assert result["fans"][0]["tiles"] == [["J1"] * 3, ["J2"] * 3, ["J3"] * 3]
