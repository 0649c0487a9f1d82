# paperscout: `make demo` and `make test` are all a fresh machine needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat requirements.lock pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install demo test lint format bench lock clean

install: $(STAMP)

# Pinned install: every package at the version in requirements.lock, then paperscout itself without deps.
$(STAMP): requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=24"
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/paperscout demo

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: $(STAMP)
	$(BIN)/python bench/pipeline.py
	$(BIN)/python bench/rank_quality.py

# Re-resolve the dependency set from pyproject.toml into requirements.lock (needs the package index).
lock:
	rm -rf .lock-venv && $(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --upgrade pip
	.lock-venv/bin/python -m pip install --quiet "torch==2.13.0" ".[dev]"
	{ head -3 requirements.lock; .lock-venv/bin/python -m pip freeze --exclude-editable | grep -v '^paperscout' \
	  | sed 's/+cpu//' ; } > requirements.lock.new && mv requirements.lock.new requirements.lock
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
