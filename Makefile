# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint install install-test install-user clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Non-editable install: what a user gets from a wheel, artefacts included.
install: $(BIN)/python
	$(BIN)/python -m pip install --quiet .

# Under CI=true also the official FEVER scorer, which tests/audit/test_peers.py holds
# hopgate's figures against (its PyPI sdist needs one line patched to build).
install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet ".[test]"
	@if [ "$$CI" = true ] && ! $(BIN)/python -c "import fever.scorer" 2>/dev/null; then \
	  PYTHON=$(BIN)/python bench/install_fever_scorer.sh; fi

demo: install
	$(BIN)/hopgate demo
	@echo "hopgate is installed in $(BIN): run 'source $(VENV)/bin/activate' (this shell) or 'make install-user' (every new shell)"

# Put the command on PATH for every new shell: a link in ~/.local/bin.
$(BIN)/hopgate: | $(BIN)/python
	$(BIN)/python -m pip install --quiet .

install-user: $(BIN)/hopgate
	mkdir -p "$(HOME)/.local/bin"
	ln -sf "$(CURDIR)/$(BIN)/hopgate" "$(HOME)/.local/bin/hopgate"
	@case ":$$PATH:" in \
	  *":$(HOME)/.local/bin:"*) echo "hopgate is on PATH: $(HOME)/.local/bin/hopgate" ;; \
	  *) echo "linked $(HOME)/.local/bin/hopgate; add it to PATH: echo 'export PATH=\"\$$HOME/.local/bin:\$$PATH\"' >> ~/.bashrc" ;; \
	esac

lint: install-test
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# The test modules run in parallel workers, one module per worker at a time
# (its servers start once); `.venv/bin/python -m pytest` alone runs them in one process.
# Under CI=true too: the rows a Virtuoso server once lost with another worker beside
# it were a plan left by earlier loads, not the machine's load, and the rule file
# no longer meets it (docs/remote-virtuoso.md, evaluation-interventions.rq).
test: lint
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadscope

clean:
	rm -rf $(VENV) build *.egg-info .hopgate .pytest_cache .mypy_cache .ruff_cache
