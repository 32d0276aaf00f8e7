"""The `fanshot` command: each module of fanshot.commands registers its own subcommands.

A module in COMMAND_MODULES exposes `register(subparsers)`, which adds its
subcommands and sets `func` (called with the parsed args, returns the exit
code). Heavy imports belong inside the handlers, so `fanshot --help` is fast.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

COMMAND_MODULES = [  # in the order of `fanshot --help`
    "fanshot.commands.score",
    "fanshot.commands.dataset",
    "fanshot.commands.detect",
    "fanshot.commands.train",
    "fanshot.commands.serve",
    "fanshot.commands.analyze",
    "fanshot.commands.pipeline_eval",
    "fanshot.commands.label",
    "fanshot.commands.batch",
    "fanshot.commands.game",
    "fanshot.commands.tileset",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fanshot", description="Score a Chinese Official Mahjong (MCR) hand from a photo or from text."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except SystemExit as exc:  # a handler that ends the command early with a status
        return exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
