# rmsc — two commands: `make run` (dashboard on the bundled Digit data) and `make test` (whole suite).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PORT   ?= 8501
# localhost: this machine only; `make run ADDRESS=0.0.0.0` serves the network.
ADDRESS ?= localhost
CHROMIUM ?= /usr/bin/chromium

.PHONY: run test test-fast lint bench venv browser clean

# The virtual environment is rebuilt only when pyproject.toml changes.
# PYTHONWARNINGS: setuptools ends every editable install of a flat layout (rmsc/ beside
# pyproject.toml) with an "InformationOnly: Editable installation" box warning about folders
# named like the package in the working directory; here that folder is the package itself.
$(VENV)/.installed: pyproject.toml setup.py
	@echo "Setting up $(VENV): rmsc and its dependencies (numpy, scipy, streamlit, dask, ...)."
	@echo "The first time, pip downloads and installs them (a few minutes, quietly); later runs skip this."
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --upgrade pip
	@PYTHONWARNINGS="ignore::UserWarning:setuptools.command.editable_wheel" \
	  $(PY) -m pip install --quiet -e ".[test,dask]"
	@touch $@
	@echo "$(VENV) is ready."

venv: $(VENV)/.installed

# Debian's Chromium for the real-browser tests (Playwright's own browser download cannot work here).
browser:
	@test -x $(CHROMIUM) || { \
	  echo "Installing Debian's chromium for the browser tests..."; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; }

# The same entry as an installed package's `rmsc dashboard` (it runs app.py).
run: venv
	$(PY) -m rmsc dashboard --port $(PORT) --address $(ADDRESS)

# ruff first (seconds): an undefined name fails here, before the suite.
# Everything but the real-browser tests on two pytest-xdist workers: much of the suite waits
# (on a fit on the Dask workers, a server, a helper process), and a second worker fills that
# time; --dist loadfile runs each test file on one worker, so that a module's server or
# cluster starts once; --no-loadscope-reorder hands the files out in the order collected,
# the long ones first (tests/conftest.py), not xdist's most-tests-first, which ends the run
# with the long one-test files on one worker. Then the browser tests, in one process by
# default (BROWSER_WORKERS=2 runs two servers and two Chromiums at once: on a loaded machine their
# starts ran past the tests' waits; docs/measurements.md, "How long the suite takes").
# --durations lists where the time went. The browser half collects only the files that hold
# browser tests (BROWSER_TESTS: collecting the whole suite to keep 28 of its tests cost 22 CPU s,
# these files 8; tests/project/test_layout.py checks the list names every such file).
TEST_WORKERS ?= 2
BROWSER_WORKERS ?= 0
BROWSER_TESTS := tests/browser tests/benchmarks/test_benchmarks.py
test: venv browser lint
	$(PY) -m pytest -q -m "not browser" -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25
	$(PY) -m pytest -q -m browser -n $(BROWSER_WORKERS) --dist loadfile --durations=10 $(BROWSER_TESTS)

lint: venv
	$(PY) -m ruff check .

# Everything but the browser and slow tests, for a quick loop while developing.
test-fast: venv lint
	$(PY) -m pytest -q -m "not browser and not slow" -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

bench: venv
	$(PY) benchmarks/bench_solver.py

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info
