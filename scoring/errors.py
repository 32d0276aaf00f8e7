"""The one error type of the scorer: a code a program can test and a message a player understands."""
from __future__ import annotations

# Every error code the scorer raises, with what it means (used by docs and tests).
ERROR_CODES = {
    "invalid_hand": "the hand is not a JSON object of the documented shape",
    "bad_notation": "the text notation could not be read",
    "unknown_tile": "a tile code that does not exist",
    "misplaced_flower": "a flower or season tile among the hand's tiles, or a playing tile among the flowers",
    "too_many_copies": "more than four copies of a tile (or a flower twice)",
    "wrong_tile_count": "the hand does not have 14 tiles (plus one per kong)",
    "impossible_meld": "a chow, pung or kong that cannot exist",
    "invalid_context": "a context field with a wrong value or type",
    "unknown_context_key": "a context field no rule set knows",
    "kong_replacement_without_kong": "a win on a kong's replacement tile with no kong in the hand",
    "kong_replacement_on_discard": "a win on a kong's replacement tile must be self-drawn",
    "robbing_kong_self_drawn": "robbing a kong is a win on another player's tile, not a self-draw",
    "robbing_kong_impossible": "the robbed tile cannot be robbed: another copy of it is in the hand",
    "fourth_tile_impossible": "the winning tile cannot be the last copy: another copy is in the concealed hand",
    "not_a_winning_hand": "the tiles do not form a winning hand",
    "unknown_ruleset": "no rule set of that name",
}
MCR_ERROR_CODES = frozenset(ERROR_CODES)   # the scorer's own; rule-set modules may add more


class HandError(ValueError):
    """A hand that cannot be scored; `code` is one of ERROR_CODES. `params` (optional) are the
    values in the message, for a client that says it in another language; `to_json` adds them
    next to the code when there are any."""

    def __init__(self, code: str, message: str, params: dict | None = None):
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = dict(params) if params else None

    def to_json(self) -> dict:
        error: dict[str, object] = {"code": self.code, "message": self.message}
        if self.params:
            error["params"] = self.params
        return {"error": error}

    def __repr__(self) -> str:
        return f"HandError({self.code!r}, {self.message!r})"
