"""The `gongdi-1990` rule set: the traditional 1990 工地 rules of seed 000, scored in 幡 (partial).

rules.py holds the data (the seed's words, limits, 20-幡 hands), readings.py every way to
group a hand, hands.py one predicate per 20-幡 hand, score.py the seed's principles.
"""
from __future__ import annotations

from ..errors import ERROR_CODES
from ..lianzhong import SeedFan
from ..rulesets import RuleSet, register_ruleset

ERROR_CODES.setdefault("not_covered", "not covered by the rules we have: the hand needs a part of the "
                       "rule set that its seed does not contain")
ERROR_CODES.setdefault("flowers_not_allowed", "the rule set has no flower tiles")

from . import rules  # noqa: E402
from .score import score_gongdi  # noqa: E402

GONGDI = register_ruleset(RuleSet(
    name=rules.NAME,
    title=rules.TITLE,
    description=rules.DESCRIPTION,
    fans=tuple(SeedFan(201 + i, row["key"].upper(), row["name_zh"], row["name_en"], row["points"], (),
                       quote=row["quote"]) for i, row in enumerate(rules.LIMIT_HANDS)),
    partial=True,
    scorer=lambda hand, ruleset=None: score_gongdi(hand),
    unit=rules.UNIT,
    minimum=rules.MIN_TO_WIN,
))

__all__ = ["score_gongdi", "GONGDI", "rules"]
