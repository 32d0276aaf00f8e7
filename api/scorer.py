"""The scorer as the API uses it: a rejected hand becomes a 422 with the scorer's code."""
from __future__ import annotations

from .errors import ApiError


def score_or_error(hand: dict, rules: str) -> dict:
    import scoring

    try:
        return scoring.score_hand(hand, rules)
    except scoring.HandError as exc:
        raise ApiError(422, exc.code, exc.message, params=exc.params) from None


def check_rules(rules: str) -> None:
    """A 422 with the scorer's code (unknown_ruleset) for a rule set it does not have."""
    import scoring

    try:
        scoring.get_ruleset(rules)
    except scoring.HandError as exc:
        raise ApiError(422, exc.code, exc.message, params=exc.params) from None
