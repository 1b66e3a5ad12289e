# Two entry points for a fresh machine: `make play` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: play test lint bench clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@

play: $(VENV)/.installed
	$(BIN)/hexgames serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests
	$(BIN)/python -m pytest -n auto -q

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests

bench: $(VENV)/.installed
	$(BIN)/python -m hexgames.bench benediction
	$(BIN)/python -m hexgames.bench dendria

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .ruff_cache
