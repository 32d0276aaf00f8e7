"""Throughput: our scorer and pymahjonggb on the same corpus of random winning hands.

Each timed pass of ours starts with empty memo tables (scoring.calculator.clear_caches),
so the figure includes filling them; passes of the two alternate, and the best of each
counts (the machine may be shared).  CPU time of this process is measured.
"""
from __future__ import annotations

import gc
import random
import time

from .calculator import clear_caches
from .generate import random_winning_hand
from .hand import validate_hand
from .reference import _calculator, reference_args
from .rulesets import get_ruleset
from .score import fan_table_of, score_hand


def run_bench(n: int, seed: int = 1, repeat: int = 3, out=None) -> dict:
    rng = random.Random(seed)
    corpus = [random_winning_hand(rng) for _ in range(n)]
    calc = _calculator()
    ref_args = [tuple(reference_args(h).values()) for h in corpus]

    ruleset = get_ruleset("mcr-reference")

    def ours_pass():
        clear_caches()
        for hand in corpus:
            score_hand(hand, "mcr-reference")

    def core_pass():
        clear_caches()
        for hand in corpus:
            fan_table_of(validate_hand(hand), ruleset)

    def ref_pass():
        for args in ref_args:
            calc(*args)

    def timed(fn) -> float:
        gc.collect()
        start = time.process_time()
        fn()
        return time.process_time() - start

    ours_t, core_t, ref_t = [], [], []
    for _ in range(repeat):
        ref_t.append(timed(ref_pass))
        core_t.append(timed(core_pass))
        ours_t.append(timed(ours_pass))
    ours_rate, core_rate, ref_rate = n / min(ours_t), n / min(core_t), n / min(ref_t)
    report = {"hands": n, "reference_per_s": round(ref_rate), "core_per_s": round(core_rate),
              "full_per_s": round(ours_rate), "core_ratio": core_rate / ref_rate, "full_ratio": ours_rate / ref_rate}
    if out:
        out.write(f"corpus: {n} random winning hands (seed {seed}); best of {repeat} alternating passes, "
                  "CPU time of this process; our memo tables are emptied before each pass\n"
                  f"  pymahjonggb 1.4.0 (C++), hand in -> fan table out     {ref_rate:>10,.0f} hands/s\n"
                  f"  fanshot, same work: validate + fan table (mcr-reference) {core_rate:>10,.0f} hands/s"
                  f"   1/{ref_rate / core_rate:.1f} of the reference\n"
                  f"  fanshot score_hand: + explanations, full score JSON       {ours_rate:>10,.0f} hands/s"
                  f"   1/{ref_rate / ours_rate:.1f} of the reference\n")
    return report
