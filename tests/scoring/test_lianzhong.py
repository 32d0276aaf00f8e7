"""The `lianzhong` rule set: MCR plus the 联众 hands above 88 fan that seed 000 marks 非国标牌型.
One test per hand and per principle, each quoting the seed's own words."""
from __future__ import annotations

import itertools

import pytest

from scoring import HandError, list_rulesets, parse_hand, score_hand
from scoring.tiles import PLAYING_TILES

RULES = "lianzhong"


def score(text: str, rules: str = RULES, **context) -> dict:
    return score_hand(parse_hand(text, **context), rules)


def error(text: str, **context) -> HandError:
    with pytest.raises(HandError) as caught:
        score(text, **context)
    return caught.value


def names(result: dict) -> list[str]:
    return [fan["name_zh"] for fan in result["fans"]]


def test_listed_by_name_with_its_hands_and_context_fields():
    """“联众麻将规则图解88番以上牌型”: the rule set is listed beside mcr, with the five 非国标 hands."""
    listed = {r["name"]: r for r in list_rulesets()}
    assert "mcr" in listed and RULES in listed and listed[RULES]["partial"] is False
    extra = {f["name_zh"]: f["points"] for f in listed[RULES]["fans"] if f["id"] > 100}
    assert extra == {"四方大发": 168, "天和": 168, "地和": 158, "人和": 108, "混杠": 88}
    assert set(listed[RULES]["context_keys"]) == {"dealer", "first_turn", "wild_tile"}


def test_plain_hand_scores_as_mcr():
    """The new context fields are off by default: a hand without them scores exactly as MCR."""
    for text in ("123m456m789m123p5p+5p", "EEE SSS 234m 567p 9s+9s", "1m1m3m3m5p5p7p7p9s9sEEC+C"):
        ours, mcr = score(text), score(text, rules="mcr")
        assert ours["total"] == mcr["total"] and names(ours) == names(mcr)
        assert ours["ruleset"] == RULES


def test_four_winds_and_a_green_pair():
    """“四方大发 168番（非国标牌型）不重复计算：碰碰和、圈风刻、门风刻、三风刻东南西北四风牌的刻或杠各一，发一对，
    实际上就是大四喜和青发对的组合”"""
    result = score("EEE SSS WWW NNN F+F", seat_wind="E", prevalent_wind="E")
    mcr = score("EEE SSS WWW NNN F+F", rules="mcr", seat_wind="E", prevalent_wind="E")
    assert "四方大发" in names(result) and "大四喜" in names(mcr)
    for not_counted in ("大四喜", "碰碰和", "圈风刻", "门风刻", "三风刻"):
        assert not_counted not in names(result)
    assert result["total"] == mcr["total"] - 88 + 168
    fan = result["fans"][names(result).index("四方大发")]
    assert fan["tiles"] == [["F1"] * 3, ["F2"] * 3, ["F3"] * 3, ["F4"] * 3, ["J2", "J2"]]
    # “刻或杠”: a kong of a wind counts too
    assert "四方大发" in names(score("[EEEE] SSS WWW NNN F+F"))
    # another pair is 大四喜, not 四方大发
    other = score("EEE SSS WWW NNN C+C")
    assert "大四喜" in names(other) and "四方大发" not in names(other)


def test_heavenly_hand():
    """“天和 168番（非国标牌型）庄家起牌即和，任何胡牌型均可。”"""
    plain = score("123m456m789m123p5p+5p", self_drawn=True, dealer=True)
    result = score("123m456m789m123p5p+5p", self_drawn=True, dealer=True, first_turn="initial_deal")
    assert result["total"] == plain["total"] + 168 and "天和" in names(result)
    # 任何胡牌型均可: seven pairs too
    assert "天和" in names(score("1m1m3m3m5p5p7p7p9s9sEEC+C", self_drawn=True, dealer=True,
                                 first_turn="initial_deal"))
    # 庄家起牌即和: only the dealer, on the dealt tiles (self-drawn, nothing claimed)
    assert error("123m456m789m123p5p+5p", self_drawn=True, first_turn="initial_deal").code == "invalid_context"
    assert error("123m456m789m123p5p+5p", dealer=True, first_turn="initial_deal").code == "invalid_context"
    assert error("[123m] 456m789m123p5p+5p", self_drawn=True, dealer=True,
                 first_turn="initial_deal").code == "invalid_context"
    # still a winning hand
    assert error("124m456m789m123p5p+5p", self_drawn=True, dealer=True,
                 first_turn="initial_deal").code == "not_a_winning_hand"


def test_earthly_hand():
    """“地和 158番（非国标牌型）庄家出第一张后，下家自摸即是地和，牌型不限。”"""
    plain = score("123m456m789m123p5p+5p", self_drawn=True)
    result = score("123m456m789m123p5p+5p", self_drawn=True, first_turn="first_draw_after_dealer")
    assert result["total"] == plain["total"] + 158 and "地和" in names(result)
    assert "天和" not in names(result) and "人和" not in names(result)
    # 下家自摸: self-drawn, and not by the dealer
    assert error("123m456m789m123p5p+5p", first_turn="first_draw_after_dealer").code == "invalid_context"
    assert error("123m456m789m123p5p+5p", self_drawn=True, dealer=True,
                 first_turn="first_draw_after_dealer").code == "invalid_context"


def test_human_hand():
    """“人和 108番（非国标牌型）第一圈内胡牌，牌型不限。”"""
    plain = score("123m456m789m123p5p+5p")
    result = score("123m456m789m123p5p+5p", first_turn="first_go_around")
    assert result["total"] == plain["total"] + 108 and names(result)[-1] == "人和"
    # 牌型不限: with a claimed meld as well
    assert "人和" in names(score("[123m] 456m789m123p5p+5p", first_turn="first_go_around"))


def test_kong_of_the_wild_tiles():
    """“混杠 88番（非国标牌型）四张混开杠，其它牌型不限。” — the wild (混) tile is an option."""
    hand = "{CCCC} 123m456m789m5p+5p"
    plain = score(hand, self_drawn=True)
    result = score(hand, self_drawn=True, wild_tile="J1")
    assert result["total"] == plain["total"] + 88
    assert result["fans"][-1]["name_zh"] == "混杠" and result["fans"][-1]["tiles"] == [["J1"] * 4]
    # a kong of another tile is not 混杠
    assert "混杠" not in names(score(hand, self_drawn=True, wild_tile="B9"))
    assert "混杠" in names(score("[CCCC] 123m456m789m5p+5p", wild_tile="J1"))


def _best_by_brute_force(text: str, wild: str, **context) -> int:
    """The highest MCR total over every way the wild tiles of `text` can be other tiles."""
    hand = parse_hand(text, **context)
    rest = [t for t in hand["concealed"] if t != wild]
    slots = len(hand["concealed"]) - len(rest) + (hand["win_tile"] == wild)
    best = None
    for chosen in itertools.product(PLAYING_TILES, repeat=slots):
        tiles = list(chosen)
        win = tiles.pop() if hand["win_tile"] == wild else hand["win_tile"]
        try:
            total = score_hand({**hand, "concealed": rest + tiles, "win_tile": win}, "mcr")["total"]
        except HandError:
            continue
        best = total if best is None else max(best, total)
    return best


def test_wild_tiles_stand_for_any_tile():
    """混 is a wild tile: “四张混开杠” names it; a concealed 混 may stand for any tile, and the hand is
    scored with the substitution that scores highest."""
    text = "123m456m789m12p5sC+5s"
    assert error(text).code == "not_a_winning_hand"            # 中 as itself does not win
    result = score(text, wild_tile="J1")
    assert result["wild"]["stands_for"] == ["B3"] and result["wild"]["concealed"].count("J1") == 0
    assert result["total"] == _best_by_brute_force(text, "J1")
    # two wild tiles, one of them the winning tile
    two = "123m456m789m1p5sCC+5s"
    assert score(two, wild_tile="J1")["total"] == _best_by_brute_force(two, "J1")


def test_wild_tiles_are_chosen_for_the_lianzhong_hands_too():
    """The highest score counts the 联众 hands: two wild 中 as the pair are worth the same to MCR as
    中中, 发发 or 白白 (大四喜), but as 发发 they make “四方大发 ... 发一对” (168 in place of 大四喜's 88)."""
    result = score("EEE SSS WWW NNN C+C", wild_tile="J1")
    assert result["wild"]["stands_for"] == ["J2", "J2"]
    assert "四方大发" in names(result) and "大四喜" not in names(result)
    assert result["total"] == score("EEE SSS WWW NNN F+F")["total"]


def test_wild_tiles_that_cannot_win():
    """A wild tile stands for one tile: a hand two tiles away from winning still does not win."""
    err = error("13m5m7m9m2p4p6p8sESWC+N", wild_tile="J1")
    assert err.code == "not_a_winning_hand" and "wild" in err.message


def test_context_fields_are_checked():
    """Bad values of the new context fields are refused with a clear error."""
    assert error("123m456m789m123p5p+5p", first_turn="second_go_around").code == "invalid_context"
    assert error("123m456m789m123p5p+5p", wild_tile="Z9").code == "invalid_context"
    assert error("123m456m789m123p5p+5p", dealer="yes").code == "invalid_context"
    with pytest.raises(HandError) as caught:       # mcr does not read them
        score("123m456m789m123p5p+5p", rules="mcr", wild_tile="J1")
    assert caught.value.code == "unknown_context_key"
