"""Argument types the subcommands share: a bad value is argparse's usage error (exit 2)."""
from __future__ import annotations

import argparse


def positive_int(text: str) -> int:
    """A count of 1 or more (hands, runs, repeats): 0 or less gave empty or nonsense figures, or a
    division by zero."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def non_negative_int(text: str) -> int:
    """A count of 0 or more (how many misses to list)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def port_number(text: str) -> int:
    """A TCP port, 1-65535 (a larger number was taken and the service listened on another port
    than the one it printed)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1-65535, not {port}")
    return port
