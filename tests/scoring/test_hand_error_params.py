"""HandError may carry the values of its message as params, next to the code (an added field:
an error without params answers exactly {"code", "message"} as before)."""
import pytest

from scoring.errors import HandError


def test_params_are_answered_next_to_the_code():
    err = HandError("wrong_tile_count", "13 tiles", {"found": 13, "needed": 14})
    assert err.params == {"found": 13, "needed": 14}
    assert err.to_json() == {"error": {"code": "wrong_tile_count", "message": "13 tiles",
                                       "params": {"found": 13, "needed": 14}}}


def test_without_params_the_error_json_is_unchanged():
    err = HandError("not_a_winning_hand", "no")
    assert err.params is None and err.to_json() == {"error": {"code": "not_a_winning_hand", "message": "no"}}


def test_an_unknown_code_is_still_refused():
    with pytest.raises(AssertionError):
        HandError("no_such_code", "x", {"a": 1})
