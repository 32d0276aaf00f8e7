"""Fanshot's pure-Python Chinese Official Mahjong (MCR) scorer.

    from scoring import score_hand, parse_hand
    score_hand(parse_hand("123m456m789m123p5p+5p", self_drawn=True))
"""
from .errors import ERROR_CODES, HandError
from .hand import validate_hand
from .notation import format_hand, parse_hand
from .rulesets import RuleSet, get_ruleset, list_rulesets, register_ruleset
from .score import score_hand

__all__ = ["HandError", "ERROR_CODES", "score_hand", "parse_hand", "format_hand", "validate_hand",
           "list_rulesets", "get_ruleset", "register_ruleset", "RuleSet"]
