from __future__ import annotations

from fastapi import APIRouter

from ..errors import error_responses
from ..schemas import Score, ScoreRequest
from ..scorer import score_or_error

router = APIRouter(tags=["scoring"])


@router.post("/score", response_model=Score, responses=error_responses(400, 413, 422),
             summary="Score a hand given as hand JSON")
def score(request: ScoreRequest) -> dict:
    """The fans and total of a winning hand. A hand the scorer rejects is a 422 with
    the scorer's error code (not_a_winning_hand, too_many_tiles, ...)."""
    return score_or_error(request.hand.to_plain(), request.rules)
