"""The `gongdi-1990` rule set: the traditional 1990 工地 rules of seed 000, scored in 幡 (partial)."""
from __future__ import annotations

from ..errors import ERROR_CODES

ERROR_CODES.setdefault("not_covered", "the hand needs a part of the rule set that the seed does not have")
ERROR_CODES.setdefault("flowers_not_allowed", "the rule set has no flower tiles")

from .score import score_gongdi  # noqa: E402

__all__ = ["score_gongdi"]
