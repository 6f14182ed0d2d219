# The two commands of the project: `make run` and `make test`. Both bootstrap .venv from scratch.
# `make test-all` runs the long tests `make test` leaves out (marker `long`, docs/testing.md); CI runs both.
# `make check` is the contributors' inner loop (about 16 s of CPU): lint, type checks, and the rules,
# AI and compiled-core tests without those marked slow.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --disable-pip-version-check -q -c constraints.txt

# Test folders that mypy --strict checks as well as the package: all of them, and the contributors'
# tools (tools/, not installed).
TYPED_TESTS := tests/ai tests/envs tests/tui tests/web tests/rules tests/server tests/fast tests/tools tests/test_clock.py tests/conftest.py tools
# Folders whose modules are imported by their plain name (tui_pty_driver, positions, server_harness,
# test_ai_agents, and the tools).
TEST_HELPERS := tests/tui tests/rules tests/server tests/ai tools
# The tests make check runs.
CHECK_TESTS := tests/rules tests/ai tests/fast

empty :=
space := $(empty) $(empty)

.PHONY: run test test-all check coverage lint typecheck pytest clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --disable-pip-version-check -q --upgrade pip

$(VENV)/.core: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) -e .
	touch $@

$(VENV)/.dev: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) -e '.[dev]'
	touch $@ $(VENV)/.core

run: $(VENV)/.core
	$(BIN)/kahuna serve

lint: $(VENV)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.dev
	$(BIN)/mypy
	MYPYPATH=$(subst $(space),:,$(TEST_HELPERS)) $(BIN)/mypy --explicit-package-bases $(TYPED_TESTS)

# make test's tests run in two processes, a test file each at a time (its module's server stays
# with it); `make test PARALLEL=` runs them in one (docs/testing.md). Both print their ten slowest
# tests, so that every run says where its time went.
PARALLEL ?= -n 2 --dist loadfile --no-loadscope-reorder
DURATIONS := --durations=10 --durations-min=1

pytest: $(VENV)/.dev
	$(BIN)/pytest -q -m "not long" $(PARALLEL) $(DURATIONS)

test: lint typecheck pytest

# Exactly the tests `make test` leaves out: the two together run the whole suite once.
test-all: $(VENV)/.dev
	$(BIN)/pytest -q -m long $(DURATIONS)

# Line coverage of kahuna/ (the servers the tests start included): what make test's tests cover,
# then the whole suite (make test's and make test-all's tests). Reports in htmlcov/.
coverage: $(VENV)/.dev
	rm -rf .coverage .coverage.* htmlcov
	KAHUNA_TEST_FRESH_PROCESSES=1 $(BIN)/pytest -q -m "not long" $(PARALLEL) --cov --cov-report=
	@echo "make test's tests cover:"; $(BIN)/coverage report --format=total
	KAHUNA_TEST_FRESH_PROCESSES=1 $(BIN)/pytest -q -m long --cov --cov-append --cov-report=
	@echo "the whole suite covers:"; $(BIN)/coverage report --format=total
	$(BIN)/coverage html -q

check: lint typecheck
	$(BIN)/pytest -q -m "not slow" $(CHECK_TESTS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
