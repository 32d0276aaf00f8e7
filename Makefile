# The two commands of the README: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 0.0.0.0
PORT   ?= 8000

.PHONY: serve test system-deps train-env clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.runtime: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.dev: pyproject.toml $(VENV)/.runtime
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

serve: $(VENV)/.runtime
	$(BIN)/fanshot serve --host $(HOST) --port $(PORT)

system-deps:
	sh scripts/system-deps.sh

# Lint, types and the import contracts (settings in pyproject.toml), then the whole suite.
test: $(VENV)/.dev system-deps
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q

# Training needs torch and ultralytics (the `train` extra), kept out of the serving venv.
train-env: .venv-train/.installed
.venv-train/.installed: pyproject.toml
	$(PYTHON) -m venv .venv-train
	.venv-train/bin/pip install -q --upgrade pip
	.venv-train/bin/pip install -q torch==2.14.1 torchvision==0.29.1
	.venv-train/bin/pip install -q -e '.[train,dev]'
	touch $@

clean:
	rm -rf $(VENV) .venv-train *.egg-info .mypy_cache .ruff_cache .import_linter_cache

# Label Studio from PyPI in its own venv under ~/.cache/fanshot, for tests/api/test_label_studio_real.py
# (the test runs this script itself; this installs it ahead).
.PHONY: label-studio-env
label-studio-env:
	sh scripts/label-studio-venv.sh
