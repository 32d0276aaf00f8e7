"""Every error code of the scorer, each with the bad hand that raises it."""
import copy

import pytest

from scoring import HandError, parse_hand, score_hand
from scoring.errors import MCR_ERROR_CODES

GOOD = {
    "concealed": ["W1", "W2", "W3", "B4", "B5", "B6", "T7", "T8", "T9", "W5", "W5", "W5", "B2"],
    "melds": [], "win_tile": "B2", "flowers": [], "context": {},
}


def hand(**changes):
    h = copy.deepcopy(GOOD)
    h.update(changes)
    return h


def error_of(h, rules="mcr"):
    with pytest.raises(HandError) as info:
        score_hand(h, rules)
    err = info.value
    expected = {"code": err.code, "message": err.message}
    if err.code in ("wrong_tile_count", "too_many_copies"):  # with the counts, for other languages
        expected["params"] = err.params
        assert err.params
    assert err.to_json() == {"error": expected}
    assert err.message and "Traceback" not in err.message
    return err.code


def test_the_good_hand_scores():
    assert score_hand(GOOD)["total"] > 0


CASES = [
    ("invalid_hand", lambda: ["W1"]),
    ("invalid_hand", lambda: hand(concealed="W1 W2")),
    ("invalid_hand", lambda: hand(color="red")),
    ("unknown_tile", lambda: hand(win_tile="X9")),
    ("unknown_tile", lambda: hand(concealed=GOOD["concealed"][:-1] + ["W0"])),
    ("misplaced_flower", lambda: hand(win_tile="H1")),
    ("misplaced_flower", lambda: hand(flowers=["W1"])),
    ("too_many_copies", lambda: hand(concealed=["W5"] * 3 + GOOD["concealed"][3:12] + ["W5"], win_tile="W5")),
    ("too_many_copies", lambda: hand(concealed=["W1", "W2", "W3", "B4", "B5", "B6", "T7", "T8", "T9", "B2"],
                                     melds=[{"kind": "pung", "tiles": ["B2"] * 3, "exposed": True}],
                                     win_tile="B2")),
    ("too_many_copies", lambda: hand(flowers=["H1", "H1"])),
    ("wrong_tile_count", lambda: hand(concealed=GOOD["concealed"][:-1])),
    ("wrong_tile_count", lambda: hand(melds=[{"kind": "pung", "tiles": ["F1"] * 3, "exposed": True}])),
    ("impossible_meld", lambda: hand(concealed=GOOD["concealed"][3:],
                                     melds=[{"kind": "chow", "tiles": ["W1", "W2", "W4"], "exposed": True}])),
    ("impossible_meld", lambda: hand(concealed=GOOD["concealed"][3:],
                                     melds=[{"kind": "chow", "tiles": ["F1", "F2", "F3"], "exposed": True}])),
    ("impossible_meld", lambda: hand(concealed=GOOD["concealed"][3:],
                                     melds=[{"kind": "pung", "tiles": ["W1", "W1", "W2"], "exposed": True}])),
    ("impossible_meld", lambda: hand(concealed=GOOD["concealed"][3:],
                                     melds=[{"kind": "pung", "tiles": ["W1"] * 3, "exposed": False}])),
    ("impossible_meld", lambda: hand(concealed=GOOD["concealed"][3:],
                                     melds=[{"kind": "chow", "tiles": ["W1", "W2", "W3"], "from": "across"}])),
    ("impossible_meld", lambda: hand(concealed=GOOD["concealed"][3:],
                                     melds=[{"kind": "triple", "tiles": ["W1", "W2", "W3"]}])),
    ("invalid_context", lambda: hand(context={"seat_wind": "X"})),
    ("invalid_context", lambda: hand(context={"self_drawn": "yes"})),
    ("unknown_context_key", lambda: hand(context={"dealer": True})),
    ("kong_replacement_on_discard", lambda: hand(context={"kong_replacement": True})),
    ("kong_replacement_without_kong", lambda: hand(context={"kong_replacement": True, "self_drawn": True})),
    ("robbing_kong_self_drawn", lambda: hand(context={"robbing_kong": True, "self_drawn": True})),
    ("robbing_kong_impossible", lambda: hand(concealed=GOOD["concealed"][:-1] + ["B2"], win_tile="B2",
                                             context={"robbing_kong": True})),
    ("fourth_tile_impossible", lambda: hand(context={"fourth_tile": True})),
    ("not_a_winning_hand", lambda: hand(win_tile="F1")),
]


@pytest.mark.parametrize("code,make", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_error_codes(code, make):
    assert error_of(make()) == code


def test_unknown_ruleset():
    assert error_of(GOOD, rules="riichi") == "unknown_ruleset"


def test_bad_notation_codes():
    for text, code in [("123x", "bad_notation"), ("567z", "bad_notation"), ("12", "bad_notation"),
                       ("[123m", "bad_notation"), ("", "bad_notation"), ("{123m}456m", "impossible_meld"),
                       ("123m+1m+2m", "bad_notation")]:
        with pytest.raises(HandError) as info:
            parse_hand(text)
        assert info.value.code == code, text


def test_every_error_code_is_tested():
    tested = {c for c, _ in CASES} | {"unknown_ruleset", "bad_notation"}
    assert tested == set(MCR_ERROR_CODES)


def test_messages_are_for_players():
    h = hand(concealed=["W5"] * 3 + GOOD["concealed"][3:12] + ["W5"], win_tile="W5")
    with pytest.raises(HandError) as info:
        score_hand(h)
    assert "8 copies" in info.value.message and "four" in info.value.message


def test_rule_set_context_keys_are_accepted_only_when_declared():
    from scoring.rulesets import _REGISTRY, MCR, RuleSet, register_ruleset
    register_ruleset(RuleSet(name="test-dealer", title="t", description="d", fans=MCR.fans,
                             options=MCR.options, context_keys=frozenset({"dealer"})))
    try:
        assert score_hand(hand(context={"dealer": True}), "test-dealer")["ruleset"] == "test-dealer"
        assert error_of(hand(context={"dealer": True}), "mcr") == "unknown_context_key"
    finally:
        _REGISTRY.pop("test-dealer")


def test_quick_and_thorough_validation_agree():
    import random

    from scoring.generate import random_winning_hand
    from scoring.hand import _validate_common_case, _validate_thoroughly
    rng = random.Random(9)
    for _ in range(300):
        h = random_winning_hand(rng)
        quick = _validate_common_case(h)
        assert quick is not None and quick == _validate_thoroughly(h)
    odd = hand(context={"seat_wind": "south"})
    assert _validate_common_case(odd) is None
    assert score_hand(odd)["hand"]["context"]["seat_wind"] == "S"


@pytest.mark.parametrize("meld", [
    {"kind": ["chow"], "tiles": ["W1", "W2", "W3"]},
    {"kind": "chow", "tiles": ["W1", "W2", "W3"], "claimed": ["W1"]},
    {"kind": "chow", "tiles": ["W1", "W2", "W3"], "from": {"left": 1}},
    {"kind": "chow", "tiles": [["W1"], "W2", "W3"]},
    {"kind": "chow", "tiles": ["W1", "W2", "W3"], "exposed": "yes"},
])
def test_odd_json_values_are_hand_errors(meld):
    h = hand(concealed=GOOD["concealed"][3:], melds=[meld])
    error_of(h)
    error_of(hand(context={"seat_wind": ["E"]}))
    error_of(hand(flowers=[["H1"]]))
