"""Fixtures shared by the test packages (tests/api, tests/vision, ...).

It lies at the repository root, not in tests/: a conftest puts its folder on sys.path, and
tests/ there would shadow the packages with the test folders of the same names (tests/scoring,
tests/vision) whenever pytest is not run as `python -m pytest` from the root.

`warning_samples`: params for every layout warning code (vision.layout_warnings.WARNING_CODES), as
the layout builds them: the one table the schema, page, photo-text and English-text tests use. A
test that needs other values overrides only those (`{**warning_samples, code: params}`), and each
checks that the table covers every code, so a new code without a sample fails them all.
"""
from __future__ import annotations

import copy

import pytest

SAMPLE_READING = {"win_tile": "B4", "win_apart": False, "melds": [["W1", "W2", "W3"], ["J1", "J1", "J1"]],
                  "left_out": ["T9", "BACK"]}
WARNING_SAMPLES = {
    "tile_read_two_ways": {"kept": "B5", "kept_score": 0.8, "other": "BACK", "other_score": 0.1},
    "win_tile_not_apart": {"tile": "B4"},
    "hidden_kong_tile_unknown": {"total": 12, "tiles": ["W5", "J1"], "min_total": 10, "max_total": 14},
    "unusual_layout": {"reading": SAMPLE_READING},
    "grouping_ambiguous": {"reading": dict(SAMPLE_READING, win_apart=True, left_out=None)},
    "strays_left_out": {"count": 2, "tiles": ["H1", "BACK"]},
    "low_confidence": {"threshold": 0.5, "tiles": [{"tile": "F4", "score": 0.07}, {"tile": "T3", "score": 0.4}]},
    "reading_repaired": {"changes": [{"from": "W9", "to": "W7", "choice": 2, "box": [10.0, 20.0, 50.0, 80.5]},
                                     {"from": "H6", "to": "W5", "choice": 3, "box": [60.0, 20.0, 100.0, 80.5]},
                                     {"from": None, "to": "B3", "choice": 1, "box": [110.0, 20.0, 150.0, 80.5],
                                      "added": True}]},
}


@pytest.fixture
def warning_samples() -> dict:
    """{code: params} for every warning code (a fresh copy: a test may change it)."""
    return copy.deepcopy(WARNING_SAMPLES)


@pytest.fixture(scope="session", autouse=True)
def service_data_dir(tmp_path_factory):
    """The service's lasting state (api/storage/) goes to a temporary data directory in every test,
    never to the user's (XDG_DATA_HOME) or to a database named in the environment."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("xdg-data")))
        patch.delenv("FANSHOT_DATA_DIR", raising=False)
        patch.delenv("FANSHOT_DATABASE_URL", raising=False)
        yield
