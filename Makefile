# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint install install-test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Non-editable install: what a user gets from a wheel, artefacts included.
install: $(BIN)/python
	$(BIN)/python -m pip install --quiet .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet ".[test]"

demo: install
	$(BIN)/hopgate demo

lint: install-test
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: lint
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV) build *.egg-info .hopgate .pytest_cache .mypy_cache .ruff_cache
