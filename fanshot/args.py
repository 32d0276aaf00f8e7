"""Argument types the subcommands share: a bad value is argparse's usage error (exit 2)."""
from __future__ import annotations

import argparse


def _whole(text: str, least: int, most: int | None = None, what: str = "") -> int:
    """`text` as a whole number from `least` (to `most`), else argparse's error."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a {what or 'whole'} number: {text!r}") from None
    if value < least or (most is not None and value > most):
        span = f"{least} or more" if most is None else f"{least}-{most}"
        raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
    return value


def positive_int(text: str) -> int:
    """A count of 1 or more (hands, runs, repeats)."""
    return _whole(text, 1)


def non_negative_int(text: str) -> int:
    """A count of 0 or more (how many misses to list, the first index)."""
    return _whole(text, 0)


def port_number(text: str) -> int:
    """A TCP port, 1-65535."""
    return _whole(text, 1, 65535, what="port")


def unit_share(text: str) -> float:
    """A score or share above 0 and at most 1 (a threshold, a floor)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, not {text}")
    return value
