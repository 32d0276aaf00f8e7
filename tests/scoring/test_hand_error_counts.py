"""The scorer's tile-count errors carry the counts of their message as params (found / needed /
kongs, the tile and how many copies), so a client can say them in another language."""
import pytest

import scoring
from scoring.errors import HandError


def error_of(text: str, **context) -> HandError:
    with pytest.raises(HandError) as caught:
        scoring.score_hand(scoring.parse_hand(text, **context))
    return caught.value


def test_too_few_tiles_gives_found_and_needed():
    err = error_of("123m 456m 789m 123p 5p")
    assert err.code == "wrong_tile_count"
    assert err.params == {"found": 13, "needed": 14, "kongs": 0}
    assert err.message.startswith("13 tiles with 0 kongs: a winning hand has 14")


def test_each_kong_raises_the_count_needed():
    err = error_of("{5555p} [WWWW] 123s 789s 1m 1m 1m")
    assert err.params == {"found": 17, "needed": 16, "kongs": 2}
    assert err.to_json()["error"]["params"] == err.params


def test_more_than_four_melds_also_names_the_melds():
    hand = scoring.parse_hand("[123m] [456m] [789m] [123p] 5p 5p")
    hand["melds"].append({"kind": "pung", "tiles": ["F1"] * 3, "exposed": True})
    with pytest.raises(HandError) as caught:
        scoring.score_hand(hand)
    assert caught.value.code == "wrong_tile_count"
    assert caught.value.params == {"found": 17, "needed": 14, "kongs": 0, "melds": 5}


def test_too_many_copies_names_the_tile_and_its_count():
    err = error_of("11111m 456m 789m 55p")
    assert err.code == "too_many_copies"
    assert err.params == {"tile": "W1", "count": 5}


def test_a_flower_twice_names_the_flower():
    hand = scoring.parse_hand("123m 456m 789m 123p 55p")
    hand["flowers"] = ["H3", "H3", "H1"]
    with pytest.raises(HandError) as caught:
        scoring.score_hand(hand)
    assert (caught.value.code, caught.value.params) == ("too_many_copies", {"tile": "H3", "count": 2})


def test_other_errors_still_have_no_params():
    err = error_of("123m 456m 789m 123p 5p 6p")
    assert err.code == "not_a_winning_hand" and err.params is None


def test_a_flower_three_times_says_three_times():
    hand = scoring.parse_hand("123m 456m 789m 123p 55p")
    hand["flowers"] = ["H3", "H3", "H3"]
    with pytest.raises(HandError) as caught:
        scoring.score_hand(hand)
    assert caught.value.params == {"tile": "H3", "count": 3}
    assert "appears 3 times" in caught.value.message
