"""The house's shape: small modules, and the same package list wherever the tools name one.

The import contracts (layers, no cycles) are `lint-imports`' (pyproject.toml [tool.importlinter]),
run by `make test` before pytest.
"""
from __future__ import annotations

import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 500
# Data may be longer than a module should be: "path": "what data it holds". None is, today.
LONG_DATA_FILES: dict[str, str] = {}
# Folders that hold no code of ours: the tests, virtual environments, build output, checkpoints.
SKIPPED_DIRS = {"tests", "build", "runs", "node_modules", "__pycache__", "checkpoints"}
PACKAGES = {"fanshot", "api", "training", "datasets", "vision", "scoring"}


def _source_files() -> list[Path]:
    files = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if any(p.startswith(".") or p in SKIPPED_DIRS or p.endswith(".egg-info") for p in parts[:-1]):
            continue
        files.append(path)
    return files


def _line_count(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def test_the_walk_sees_the_packages():
    seen = {p.relative_to(ROOT).parts[0] for p in _source_files()}
    assert {"scoring", "vision", "api", "datasets", "fanshot"} <= seen


def test_no_source_file_over_500_lines():
    long = {
        str(p.relative_to(ROOT)): n
        for p in _source_files()
        if (n := _line_count(p)) > MAX_LINES and str(p.relative_to(ROOT)) not in LONG_DATA_FILES
    }
    assert long == {}, f"split these modules (over {MAX_LINES} lines): {long}"


def test_long_data_files_listed_still_exist():
    missing = [name for name in LONG_DATA_FILES if not (ROOT / name).is_file()]
    assert missing == []


def test_the_tools_name_the_same_packages():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    tool = config["tool"]
    installed = {name.rstrip("*") for name in tool["setuptools"]["packages"]["find"]["include"]}
    assert installed == PACKAGES
    assert set(tool["mypy"]["files"]) == PACKAGES
    assert set(tool["importlinter"]["root_packages"]) == PACKAGES
    assert set(tool["ruff"]["lint"]["isort"]["known-first-party"]) == PACKAGES
    for package in PACKAGES:
        assert (ROOT / package / "__init__.py").is_file(), package
