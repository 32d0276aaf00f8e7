"""Differential test: our `mcr-reference` rule set against pymahjonggb on random winning hands."""
from __future__ import annotations

import json
import random
import time
from collections import Counter

from .fans import reference_name
from .generate import random_winning_hand
from .hand import validate_hand
from .reference import _calculator, reference_score
from .rulesets import get_ruleset
from .score import score_validated


def compare(hand: dict, calculator=None) -> tuple:
    """(ours, reference) as comparable (total, {reference fan name: count}) pairs."""
    ours = score_validated(validate_hand(hand), get_ruleset("mcr-reference"))
    ref = reference_score(hand, calculator)
    return ((ours["total"], {reference_name(f["id"]): f["count"] for f in ours["fans"]}),
            (ref["total"], ref["fans"]))


def run_differential(n: int, seed: int = 1, show: int = 5, out=None) -> dict:
    calc = _calculator()
    rng = random.Random(seed)
    disagree = 0
    fans_seen: Counter[str] = Counter()
    started = time.perf_counter()
    for i in range(n):
        hand = random_winning_hand(rng)
        ours, ref = compare(hand, calc)
        fans_seen.update(ref[1])
        if ours != ref:
            disagree += 1
            if out and disagree <= show:
                out.write(f"DISAGREE {json.dumps(hand, ensure_ascii=False)}\n  ours {ours}\n  ref  {ref}\n")
        if out and (i + 1) % 10_000 == 0:
            out.write(f"  {i + 1} hands, {disagree} disagreements\n")
            out.flush()
    report = {"hands": n, "seed": seed, "agree": n - disagree, "disagree": disagree,
              "agreement": (n - disagree) / n if n else 1.0, "fans_seen": len(fans_seen),
              "seconds": round(time.perf_counter() - started, 1)}
    if out:
        out.write(f"{report['agree']}/{n} hands agree with pymahjonggb 1.4.0 "
                  f"({100 * report['agreement']:.3f}%, total and fan list), {report['fans_seen']} different fans "
                  f"seen, seed {seed}, {report['seconds']} s\n")
    return report
