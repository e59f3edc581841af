import os
import sys

import pytest
from threadpoolctl import threadpool_limits

from tests.browser_support import (CHROMIUM, CHROMIUM_ARGS, PAGE_WAIT, ROOT, SHOTS, VIEWPORT,
                                   log_path, serve)
from tests.support import PAPER_MATS, paper_mat_variables, union_of_subspaces

# One BLAS and OpenMP thread in the test processes, as every fit runs
# (rmsc.backends.one_thread_per_call) and the Dask workers do (Dask starts them so): a test
# that calls the solver, k-means or numpy's products outside a fit otherwise ran them on
# threads that spin while they wait for a core on the busy machine that runs the suite
# (docs/measurements.md, "How long the suite takes"). A LocalBlocks still sets its own.
_ONE_THREAD = threadpool_limits(limits=1)

# The dashboards the tests start (AppTest, `streamlit run`) keep no results on disk: every
# test sees its own fits run. Tests of the disk layer give it a folder of their own.
os.environ["RMSC_CACHE_DIR"] = "off"


@pytest.fixture(scope="session")
def paper_mats(tmp_path_factory):
    """A folder holding the paper's three .mat files (MATLAB v5, as scipy writes them)."""
    import scipy.io

    folder = tmp_path_factory.mktemp("paper_mats")
    for file in PAPER_MATS:
        scipy.io.savemat(folder / file, paper_mat_variables(file), do_compression=True)
    return folder


@pytest.fixture
def subspaces():
    return union_of_subspaces()


# The dashboard's prefetching of the next slider steps (rmsc.dashboard.prefetch) is off in
# the tests, so that a test's fits are the ones it asks for; the tests of prefetching turn it
# on (monkeypatch.setenv(dash.PREFETCH_ENV, "1")).
os.environ["RMSC_PREFETCH"] = "0"

# The tests' Dask workers (the dashboard's LocalCluster in this process, the benchmarks'
# smoke runs) run at this process's priority, not WORKER_NICENESS (5) below it: the product
# keeps the server ahead of its fits, but here the "server" is pytest waiting on them, and on
# the busy 2-core machine beside two processes at nice 0 workers niced by 5 got a third of a
# core's share, so the tests that wait on fits took several times longer (measured in
# docs/measurements.md, "The tests' workers at the server's priority"). The browser tests'
# servers keep the product's niceness (tests.browser_support.serve drops this), and
# tests/dashboard/test_workers.py checks the default on its own cluster.
os.environ.setdefault("RMSC_WORKER_NICENESS", "0")  # RMSC_WORKER_NICENESS=5 pytest: the default

# Dask's diagnostics that no test reads, quietened in the clusters the tests start
# themselves too, as rmsc.dask_cluster.local_cluster quietens its own (the dashboard's, the
# servers' and helper processes' the tests start): the same settings, from there.
import dask.config  # noqa: E402

from rmsc.dask_cluster import QUIET_DIAGNOSTICS  # noqa: E402

dask.config.set(QUIET_DIAGNOSTICS)


# ---------------------------------------------------------------------------
# Running the suite in parallel (pytest-xdist: `make test` runs `pytest -n 2 --dist
# loadfile`): each test file runs on one worker, so a module-scoped fixture (a helper
# process, a Dask cluster) starts once; a session-scoped one (the browser tests' server,
# Chromium and result folder) starts once per worker. Nothing else is shared between
# workers: each has its own dashboard cluster (random ports), its own `tmp_path`s, and the
# servers' logs carry the worker's name (browser_support.serve).
#
# The order files are handed out in: pytest-xdist's default (its "loadscope reorder") hands
# out the files with the most tests first, which leaves the files of one or two long tests
# (the wheel, the device benchmark's smoke run, a reproduction on Dask workers) to the end,
# where one worker runs them while the other has nothing left to do. `make test` turns that
# off (`--no-loadscope-reorder`: the files in the order collected), and under xdist the files
# that hold a test marked `slow` (tens of seconds or more) are collected first, so that the
# many short files fill the end of the run on both workers. A run without xdist keeps its
# order.


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    slow = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in slow)  # stable: else as is

# ---------------------------------------------------------------------------
# Where the suite's time goes: with RMSC_TEST_TIMES=FILE, every test appends one line to
# FILE: its node id, its wall seconds (setup, call and teardown), the CPU seconds of this
# process and everything it started meanwhile (servers, Dask workers, helper processes),
# the load average and the xdist worker. `python tools/suite_times.py FILE` sums it up. A
# module- or session-scoped fixture counts with the first test that uses it (setup) and the
# last one (teardown).

TIMES_ENV = "RMSC_TEST_TIMES"


def _tree_cpu_seconds():
    """CPU seconds of this process, of its children that ended, and of those still running
    with the children they reaped (a server's Dask workers that ended): what a child reaped
    moves into its parent's ``children_*`` times, and with the parent into ours, counted
    once all along."""
    import resource

    import psutil

    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
        except psutil.Error:  # ended meanwhile: RUSAGE_CHILDREN counts it once reaped
            continue
        total += times.user + times.system + times.children_user + times.children_system
    return total


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    path = os.environ.get(TIMES_ENV)
    if not path:
        yield
        return
    import time

    cpu, wall = _tree_cpu_seconds(), time.monotonic()
    yield
    wall, cpu = time.monotonic() - wall, _tree_cpu_seconds() - cpu
    line = (f"{item.nodeid}\t{wall:.2f}\t{cpu:.2f}\t{os.getloadavg()[0]:.1f}\t"
            f"{os.environ.get('PYTEST_XDIST_WORKER', '-')}\n")
    with open(path, "a") as f:  # one short write: lines of parallel workers stay whole
        f.write(line)


@pytest.fixture(scope="session", autouse=True)
def _dashboard_workers_end_with_the_tests():
    """The dashboard's worker processes (a LocalCluster started by the first job) end with
    the test session: no test leaves a cluster running."""
    yield
    from rmsc.dashboard import workers

    workers.shutdown()


@pytest.fixture
def fake_cuda_torch(monkeypatch):
    """A stand-in ``torch`` (``tests/fake_torch.py``) that reports one CUDA GPU, in place
    of any real one for the test: ``rmsc.device`` resolves ``auto`` to it."""
    from tests import fake_torch

    torch = fake_torch.make(count=1)
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


# ---------------------------------------------------------------------------
# The app tests' fixtures (AppTest): modules that run the app name them in
# ``pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")``.

@pytest.fixture
def steady_state_navigation(monkeypatch, request):
    """Run app.py on every AppTest run, as a live server does.

    Because the repository has a ``pages/`` folder, Streamlit starts in its
    legacy pages-directory mode until ``st.navigation`` is first called; a live
    server leaves it after its first run, but AppTest resets it before every
    run and would then run the page file alone. Tests named ``*legacy*`` keep
    AppTest's behaviour to check that a page run on its own still works.
    """
    if "legacy" in request.node.name:
        yield
        return
    import streamlit.testing.v1.app_test as app_test_module
    from streamlit.runtime.pages_manager import PagesManager

    class SteadyStatePagesManager(PagesManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            PagesManager.uses_pages_directory = False

    monkeypatch.setattr(app_test_module, "PagesManager", SteadyStatePagesManager)
    yield
    PagesManager.uses_pages_directory = None


@pytest.fixture
def fresh_caches():
    """Streamlit's caches empty before and after the test."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()


# ---------------------------------------------------------------------------
# The real-browser tests' fixtures: one server and one Chromium for the session (per xdist
# worker), a fresh page (1500 x 1000, its own browser context) per test, failing the test on
# any JavaScript error.

@pytest.fixture(scope="session")
def results_folder(tmp_path_factory):
    """The result folder on disk (the dashboard's ``RMSC_CACHE_DIR``) of every server the
    browser tests start: a fit, comparison or suggestion one test computed answers another
    test's equal request from disk, as on a server that computed it once (a server's memory
    forgets its results when its last tab closes, between tests). Empty at the start of each
    run: a test that must watch a fit run asks for settings no other test fits, and a stopped
    fit is never kept."""
    return tmp_path_factory.mktemp("results")


@pytest.fixture(scope="session")
def lesson_file(tmp_path_factory):
    """The lesson of the browser tests' servers: the shipped one on Digit-small, its fits
    run to convergence (``clipping_support.small_lesson``); no other test opens the Lesson
    page."""
    from tests.clipping_support import small_lesson

    return small_lesson(tmp_path_factory.mktemp("lesson"))


@pytest.fixture(scope="session")
def server_env(results_folder, lesson_file):
    """The environment the browser tests' servers start with (``browser_support.serve``)."""
    return {"RMSC_CACHE_DIR": str(results_folder), "RMSC_LESSON": str(lesson_file)}


@pytest.fixture(scope="session")
def warmed_results(request, results_folder, lesson_file):
    """The results the long browser tests wait on (the 1280-px walk's fits, the heatmap's,
    the lesson's), fitted into ``results_folder`` by a process of their own at this
    process's priority while the session's first tests run (``tests/warm_support.py``,
    which says why), those of the tests this session collected only; stopped with the
    session if still running. A page that asks before a result is there fits it on its
    server as before."""
    import subprocess

    from tests.warm_support import parts_for

    SHOTS.mkdir(parents=True, exist_ok=True)
    log = open(log_path("warm.log"), "w")
    parts = parts_for(item.nodeid for item in request.session.items)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.warm_support", str(results_folder), str(lesson_file),
         *parts],
        cwd=ROOT, stdout=log,
        stderr=subprocess.STDOUT, env={**os.environ, "OMP_NUM_THREADS": "1",
                                       "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})
    yield proc
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    log.close()


@pytest.fixture(scope="session")
def server(server_env, warmed_results):
    """One ``streamlit run app.py`` for the session's browser tests (its Dask workers start
    once): a test opens its own session in it, with the settings it needs in the URL; the
    long tests' results are being fitted beside it (``warmed_results``)."""
    with serve(env=server_env) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport=VIEWPORT)
    pg = context.new_page()
    pg.set_default_timeout(PAGE_WAIT)  # a click's or a read's element, as the waits' bound
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    try:  # what was on screen when the test ended (to look at when one fails)
        pg.screenshot(path=str(SHOTS / f"last_{request.node.name}.png"))
    except Exception:  # noqa: BLE001 - a screenshot must not hide the test's own result
        pass
    context.close()
    assert not errors, errors
