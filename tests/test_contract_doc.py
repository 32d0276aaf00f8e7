"""docs/contract.md lists the codes the code uses: the 43 classes, the error and warning codes."""
from __future__ import annotations

import re
from pathlib import Path

import scoring
from scoring.errors import ERROR_CODES, MCR_ERROR_CODES
from scoring.tiles import ALL_CODES
from vision.classes import CLASSES
from vision.layout_warnings import LAYOUT_ERROR_CODES, WARNING_CODES

DOC = (Path(__file__).resolve().parents[1] / "docs" / "contract.md").read_text(encoding="utf-8")


def _indented_line_starting(word: str) -> list[str]:
    lines = [line.split() for line in DOC.splitlines() if line.startswith("    ") and line.split()[:1] == [word]]
    assert len(lines) == 1, f"one indented line starting with {word!r}"
    return lines[0]


def _codes_in_backquotes() -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", DOC))


def test_the_class_list_is_the_detectors():
    assert _indented_line_starting("W1") == CLASSES
    assert CLASSES[:-1] == list(ALL_CODES) and CLASSES[-1] == "BACK"


def test_the_scorers_error_codes_are_listed():
    scoring.list_rulesets()  # every rule set registered, with the error codes it adds
    assert set(_indented_line_starting("invalid_hand")) == set(MCR_ERROR_CODES)
    assert set(ERROR_CODES) - set(MCR_ERROR_CODES) <= _codes_in_backquotes()


def test_the_layout_codes_are_listed():
    warning_rows = {line.split()[0] for line in DOC.splitlines()
                    if line.startswith("      ") and line.split() and line.split()[0] in WARNING_CODES}
    assert warning_rows == set(WARNING_CODES)
    assert set(LAYOUT_ERROR_CODES) <= _codes_in_backquotes()
