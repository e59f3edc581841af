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
# Two pytest-xdist workers: much of the suite waits (on a server, a browser, a fit on the
# Dask workers), so a second worker fills that time; --dist loadgroup keeps the tests that
# share a module's server or cluster on one worker (tests/conftest.py). --durations lists
# where the time went.
TEST_WORKERS ?= 2
test: venv browser lint
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup --durations=25

lint: venv
	$(PY) -m ruff check .

# Everything but the browser and slow tests, for a quick loop while developing.
test-fast: venv lint
	$(PY) -m pytest -q -m "not browser and not slow" -n $(TEST_WORKERS) --dist loadgroup

bench: venv
	$(PY) benchmarks/bench_solver.py

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info
