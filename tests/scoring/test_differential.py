"""mcr-reference against the reference calculator pymahjonggb on 2,000 random winning hands."""
import random

import pytest

pytest.importorskip("MahjongGB", reason="pymahjonggb (dev extra) is the reference calculator")

from scoring.differential import compare, run_differential  # noqa: E402
from scoring.generate import FORMS, random_winning_hand  # noqa: E402


def test_two_thousand_random_hands_agree():
    report = run_differential(2000, seed=20261129, show=0)
    assert report["disagree"] == 0, report
    assert report["fans_seen"] >= 75    # the generator reaches nearly every fan, rare ones included


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_agrees(form):
    rng = random.Random(form)
    for _ in range(15):
        ours, ref = compare(random_winning_hand(rng, form=form))
        assert ours == ref
