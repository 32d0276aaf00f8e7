"""Schemathesis' checks, all of them, for both apps (tests/api/test_schema.py, test_label_schema.py).

`positive_data_acceptance` expects a 2xx (or 401/403/404/409/429/5xx) for every request valid by the
schema; a schema cannot say everything a request's content must be: that an upload is an image
(415 not_an_image, 422 truncated, 413 too many pixels or bytes), that a hand is a winning one (the
scorer's 422s), which rule set names exist, which image a labelling path names, or that a photo shows
a tile set laid out in the layout order (422 layout_mismatch). Those refusals
are allowed by their codes, and no other: a refusal for the request's shape (invalid_request,
bad_json, empty, ...) of data valid by the schema fails the run."""
from __future__ import annotations

import json

import schemathesis
from schemathesis.checks import positive_data_acceptance

# refusals for what a request holds that its schema cannot describe
CONTENT_CODES = {
    "not_an_image", "truncated", "too_many_pixels", "too_many_bytes", "unsupported_format",
    "unknown_ruleset", "bad_label_config", "layout_mismatch",
}
SCORER_PATHS = ("/api/v1/score", "/api/v1/analyze")  # any scorer code: a schema-valid hand that is no win
# a game's own rules (a hand that does not fit the game, names that differ only in case) and the scorer's
GAME_PATHS = "/api/v1/games"


def _error(response) -> dict:
    try:
        return json.loads(response.content)["error"]
    except (ValueError, KeyError, TypeError):
        return {}


def _for_content(case, response) -> bool:
    error = _error(response)
    code = error.get("code")
    if code in CONTENT_CODES:
        return True
    if code == "bad_boxes":  # a box that keeps no area inside the image: the image decides
        return "has no area inside" in error.get("message", "")
    by_rules = case.path in SCORER_PATHS or case.path.startswith(GAME_PATHS)
    return by_rules and response.status_code == 422 and code not in ("invalid_request", "bad_json")


def positive_data_accepted_unless_for_content(ctx, response, case):
    """positive_data_acceptance, except for the refusals of CONTENT_CODES (and the scorer's)."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except Exception:
        if _for_content(case, response):
            return None
        raise


def validate(case: schemathesis.Case) -> None:
    """Call `case` and run every check on the answer (positive_data_acceptance as above)."""
    case.call_and_validate(excluded_checks=[positive_data_acceptance],
                           additional_checks=[positive_data_accepted_unless_for_content])
