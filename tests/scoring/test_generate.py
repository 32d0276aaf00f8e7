"""The seeded winning-hand generator."""
import random

import pytest

from scoring import score_hand, validate_hand
from scoring.generate import FORMS, random_winning_hand

SPECIAL = {"seven_pairs": "七对", "seven_shifted_pairs": "连七对", "thirteen_orphans": "十三幺",
           "nine_gates": "九莲宝灯", "pure_terminal_chows": "一色双龙会", "all_green": "绿一色",
           "four_shifted_chows": "一色四步高", "knitted_straight": "组合龙", "quadruple_chow": "一色四同顺"}


def test_same_seed_same_hands():
    a = [random_winning_hand(random.Random(42)) for _ in range(3)]
    b = [random_winning_hand(random.Random(42)) for _ in range(3)]
    assert a == b


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_makes_valid_winning_hands(form):
    rng = random.Random(form)
    for _ in range(10):
        hand = random_winning_hand(rng, form=form)
        validate_hand(hand)
        assert score_hand(hand, "mcr-reference")["total"] >= 1


@pytest.mark.parametrize("form,fan", sorted(SPECIAL.items()))
def test_forms_reach_their_fan(form, fan):
    rng = random.Random(7)
    names = set()
    for _ in range(20):
        names |= {f["name_zh"] for f in score_hand(random_winning_hand(rng, form=form), "mcr-reference")["fans"]}
    assert fan in names


def test_contexts_are_consistent_and_varied():
    rng = random.Random(3)
    seen = set()
    for _ in range(400):
        hand = random_winning_hand(rng)
        ctx = hand["context"]
        seen |= {k for k, v in ctx.items() if v is True}
        if ctx["kong_replacement"]:
            assert ctx["self_drawn"] and any(m["kind"] == "kong" for m in hand["melds"])
        if ctx["robbing_kong"]:
            assert not ctx["self_drawn"]
    assert {"self_drawn", "last_tile", "kong_replacement", "robbing_kong", "fourth_tile"} <= seen


def test_options_no_flowers_and_no_melds():
    rng = random.Random(5)
    for _ in range(30):
        hand = random_winning_hand(rng, flowers=False, max_melds=0)
        assert hand["flowers"] == [] and hand["melds"] == []
