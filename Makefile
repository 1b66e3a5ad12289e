# Two entry points for a fresh machine: `make play` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: play test fuzz lint bench clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet -e .
	touch $@

# The train extra's torch: the CPU build (a plain "torch" may fetch a CUDA build of several GB).
TORCH ?= torch==2.13.0

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/activate
	$(BIN)/pip install --quiet '$(TORCH)'
	$(BIN)/pip install --quiet -e '.[dev,train]'
	touch $(VENV)/.installed $@

play: $(VENV)/.installed
	$(BIN)/hexgames serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests tools experiments
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto -q

# Property tests with random (not derandomized) examples, 20x the CI budget: bug hunting.
fuzz: $(VENV)/.installed-dev
	HEXGAMES_FUZZ=1 $(BIN)/python -m pytest -n auto -q -m "not browser" --timeout 0 $(FUZZ_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests tools experiments
	$(BIN)/mypy

bench: $(VENV)/.installed
	$(BIN)/python -m hexgames.bench benediction
	$(BIN)/python -m hexgames.bench dendria

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .ruff_cache
