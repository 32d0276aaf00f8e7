"""Counts and ports given on the command line: a bad one is argparse's usage error (exit 2), before
anything runs (fanshot.args)."""
from __future__ import annotations

import pytest

from fanshot.cli import build_parser


@pytest.mark.parametrize("command, message", [
    (["score-check", "--hands", "0"], "--hands: must be 1 or more, not 0"),  # printed '0/0 hands agree'
    (["score-bench", "--hands", "0"], "--hands: must be 1 or more, not 0"),  # a ZeroDivisionError
    (["score-bench", "--repeat", "-1"], "--repeat: must be 1 or more, not -1"),
    (["resolution-eval", "folder", "--limit", "0"], "--limit: must be 1 or more"),  # an IndexError
    (["dataset", "sheet", "src", "--out", "s.png", "--images", "0"], "--images: must be 1 or more"),  # a crop sheet instead
    (["bench-detect", "--runs", "0"], "--runs: must be 1 or more"),
    (["analyze-eval", "--n", "0"], "--n: must be 1 or more"),
    (["analyze-eval", "--show", "-1"], "--show: must be 0 or more"),
    (["train", "classifier", "--crops", "a", "--run", "b", "--epochs", "0"], "--epochs: must be 1 or more"),
    (["train", "finder", "--data", "d", "--batch", "x"], "--batch: not a whole number: 'x'"),
    (["synth", "--n", "0", "--out", "o"], "--n: must be 1 or more"),
    (["synth", "--n", "1", "--start", "-1", "--out", "o"], "--start: must be 0 or more"),
    (["eval", "--data", "d", "--rank-floor", "0"], "--rank-floor: must be above 0 and at most 1, not 0"),
    (["eval", "--data", "d", "--conf", "1.5"], "--conf: must be above 0 and at most 1, not 1.5"),
    (["eval", "--data", "d", "--conf", "x"], "--conf: not a number: 'x'"),
])
def test_a_count_below_its_least_is_a_usage_error(command, message, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(command)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_counts_at_their_least_are_taken():
    assert build_parser().parse_args(["score-check", "--hands", "1"]).hands == 1
    assert build_parser().parse_args(["analyze-eval", "--show", "0"]).show == 0
