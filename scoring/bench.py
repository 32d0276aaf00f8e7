"""Throughput: our scorer and pymahjonggb on the same corpus of random winning hands."""
from __future__ import annotations

import random
import time

from .generate import random_winning_hand
from .reference import _calculator, reference_args
from .score import score_hand


def run_bench(n: int, seed: int = 1, repeat: int = 3, out=None) -> dict:
    rng = random.Random(seed)
    corpus = [random_winning_hand(rng) for _ in range(n)]
    calc = _calculator()
    ref_args = [reference_args(h) for h in corpus]

    def ours_pass():
        for hand in corpus:
            score_hand(hand, "mcr-reference")

    def ref_pass():
        for kwargs in ref_args:
            calc(**kwargs)

    def best(fn) -> float:
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return n / min(times)

    ref_rate = best(ref_pass)
    ours_rate = best(ours_pass)
    report = {"hands": n, "ours_per_s": round(ours_rate), "reference_per_s": round(ref_rate),
              "ratio": ours_rate / ref_rate}
    if out:
        out.write(f"corpus: {n} random winning hands (seed {seed}), best of {repeat} passes, one core\n"
                  f"  fanshot (pure Python, score_hand -> full score JSON): {ours_rate:>10,.0f} hands/s\n"
                  f"  pymahjonggb 1.4.0 (C++):                            {ref_rate:>10,.0f} hands/s\n"
                  f"  ratio: 1/{ref_rate / ours_rate:.1f} of the reference\n")
    return report
