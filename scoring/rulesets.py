"""Rule sets by name: a fan table (data rows) plus the options where rule sets differ.

`mcr` follows the seed list (the 81 fans of the 2006 rulebook); `mcr-reference`
reproduces the reference calculator pymahjonggb 1.4.0.  Other modules register
more (scoring/lianzhong.py, scoring/gongdi.py): a rule set with its own `scorer`
takes the validated hand and returns a score dict; without one, the MCR
calculator scores it with the rule set's fan values and options.
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from . import fans as F
from .calculator import Options
from .errors import HandError


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str
    description: str
    fans: tuple                                   # scoring.fans.Fan rows
    options: Options = field(default_factory=Options)
    partial: bool = False                          # True: not every rule of its book is implemented
    context_keys: frozenset = frozenset()          # context fields beyond DESIGN.md's that it reads
    scorer: Optional[Callable] = None              # (validated hand, ruleset) -> score dict; None: MCR
    unit: str = "fan"
    minimum: int = 8                               # points needed to declare (flowers excluded)

    def points(self) -> list:
        """Points per fan id, as the calculator wants them."""
        values = [0] * F.TABLE_SIZE
        for fan in self.fans:
            if fan.id < F.TABLE_SIZE:
                values[fan.id] = fan.points
        return values

    def as_json(self) -> dict:
        return {"name": self.name, "title": self.title, "description": self.description,
                "partial": self.partial, "unit": self.unit, "minimum": self.minimum,
                "context_keys": sorted(self.context_keys),
                "fans": [fan.as_row() for fan in self.fans]}


_REGISTRY: dict[str, RuleSet] = {}
_points_cache: dict[str, list] = {}


def register_ruleset(ruleset: RuleSet, replace_existing: bool = False) -> RuleSet:
    if ruleset.name in _REGISTRY and not replace_existing:
        raise ValueError(f"rule set {ruleset.name!r} is already registered")
    _REGISTRY[ruleset.name] = ruleset
    _points_cache.pop(ruleset.name, None)
    return ruleset


def get_ruleset(name: str) -> RuleSet:
    _load_plugins()
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise HandError("unknown_ruleset", f"unknown rule set {name!r}: choose one of "
                        f"{', '.join(sorted(_REGISTRY))}") from None


def points_of(ruleset: RuleSet) -> list:
    values = _points_cache.get(ruleset.name)
    if values is None:
        values = _points_cache[ruleset.name] = ruleset.points()
    return values


def list_rulesets() -> list[dict]:
    _load_plugins()
    return [rs.as_json() for rs in _REGISTRY.values()]


MCR = register_ruleset(RuleSet(
    name="mcr",
    title="Chinese Official (MCR), 81 fans",
    description="The 81 fans of the seed list and the 2006 rulebook, with their 不计 exclusions. "
                "Differs from mcr-reference where the seed list decides: no 明暗杠 (a concealed and a melded "
                "kong count 暗杠 2 + 明杠 1), 七对 does not combine with fans made of sets (绿一色, 字一色, "
                "清幺九, 混幺九, 全大/全中/全小, 大于五/小于五), and no 边张/嵌张/单钓将 inside a 组合龙.",
    fans=tuple(f for f in F.FANS if f.id in F.MCR_FAN_IDS),
    options=Options(concealed_and_melded_kong=False, seven_pairs_set_fans=False,
                    knitted_straight_body_waits=False),
))

MCR_REFERENCE = register_ruleset(RuleSet(
    name="mcr-reference",
    title="MCR as the reference calculator (pymahjonggb 1.4.0)",
    description="Reproduces pymahjonggb 1.4.0 hand for hand: adds 明暗杠 (5), lets 七对 combine with "
                "绿一色, 字一色, 全大 and the like, and follows the MIL rulings on kongs and on waits inside "
                "a 组合龙.",
    fans=F.FANS,
    options=Options(concealed_and_melded_kong=True, seven_pairs_set_fans=True,
                    knitted_straight_body_waits=True),
))

_PLUGINS = ("scoring.lianzhong", "scoring.gongdi")
_plugins_loaded = False


def _load_plugins() -> None:
    """Import the optional rule-set modules (they register themselves) once, if they exist."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for name in _PLUGINS:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


__all__ = ["RuleSet", "register_ruleset", "get_ruleset", "list_rulesets", "points_of", "MCR",
           "MCR_REFERENCE", "Options", "replace"]
