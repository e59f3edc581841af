import os
import sys

import numpy as np
import pytest

from browser_support import CHROMIUM, CHROMIUM_ARGS, SHOTS, VIEWPORT, serve

# The dashboards the tests start (AppTest, `streamlit run`) keep no results on disk: every
# test sees its own fits run. Tests of the disk layer give it a folder of their own.
os.environ["RMSC_CACHE_DIR"] = "off"


def cell(*items, column=False):
    """A MATLAB cell array (object ndarray) of 1 x m, or m x 1 with column=True."""
    out = np.empty((len(items), 1) if column else (1, len(items)), dtype=object)
    for k, item in enumerate(items):
        out.flat[k] = item
    return out


#: The paper's .mat files as their README (and ../shared/datasets) describe them:
#: file -> (view key, label key, column cell?).
PAPER_MATS = {
    "digit_handwritten.mat": ("X", "Y", False),  # 1x6 cell: PIX uint8, FAC uint16, others double
    "reuters_1200.mat": ("fea", "gt", False),     # 1x5 cell of sparse CSC doubles
    "3sources.mat": ("X", "y", True),             # 3x1 cell of dense uint8 counts
}


def paper_mat_variables(file):
    """The variables of one of the paper's .mat files, rebuilt from the bundled copy.

    Same keys, cell shapes, storage types and label coding as the original files (Reuter and
    3-Sources hold exactly the original values; Digit's real-valued views are the bundled
    CSVs' 5-digit values), so tests of the loader's conventions need nothing outside the
    repository.
    """
    from rmsc.datasets import _bundle_io
    from rmsc._resources import sample_data_dir

    view_key, label_key, column = PAPER_MATS[file]
    if file == "digit_handwritten.mat":
        with np.load(sample_data_dir() / "digit.npz") as d:
            views = [d[str(n)] for n in d["view_names"]]
            labels = (d["labels"] + 1).astype(np.uint8)  # 1..10, as the file stores them
    else:
        stored = _bundle_io.load_views(sample_data_dir() / {
            "reuters_1200.mat": "reuter.npz", "3sources.mat": "3sources.npz"}[file])
        views, labels = stored["views"], stored["labels"]
    return {view_key: cell(*views, column=column), label_key: labels.reshape(-1, 1)}


@pytest.fixture(scope="session")
def paper_mats(tmp_path_factory):
    """A folder holding the paper's three .mat files (MATLAB v5, as scipy writes them)."""
    import scipy.io

    folder = tmp_path_factory.mktemp("paper_mats")
    for file in PAPER_MATS:
        scipy.io.savemat(folder / file, paper_mat_variables(file), do_compression=True)
    return folder


def union_of_subspaces(n_per=20, n_clusters=3, dims=(8, 12), sub_dim=2, noise=0.01, seed=0):
    """Small multi-view union-of-subspaces data: (views, labels).

    Every cluster is a random sub_dim-dimensional latent subspace; each view
    sees the latent points through its own random linear map.
    """
    rng = np.random.default_rng(seed)
    latent_dim = n_clusters * sub_dim
    bases = [np.linalg.qr(rng.standard_normal((latent_dim, sub_dim)))[0] for _ in range(n_clusters)]
    latent = np.vstack([(B @ rng.standard_normal((sub_dim, n_per))).T for B in bases])
    labels = np.repeat(np.arange(n_clusters), n_per)
    views = []
    for d in dims:
        A = rng.standard_normal((latent_dim, d))
        views.append(latent @ A + noise * rng.standard_normal((latent.shape[0], d)))
    return views, labels


@pytest.fixture
def subspaces():
    return union_of_subspaces()


def coherence_views():
    """Two views of six unit samples, two 2-D subspaces of R^4 each; samples 3-5 repeat 0-2.

    View 0: (1, 0), (.6, .8), (0, 1): |inner products| .6 (0-1), 0 (0-2), .8 (1-2), so each
    sample's largest is .6, .8, .8 and mu = .6. View 1: (1, 0), (.8, .6), (.6, .8): .8, .6, .96,
    largest .8, .96, .96, mu = .8.
    """
    def view(a, b, c):
        X = np.zeros((6, 4))
        X[:3, :2] = X[3:, 2:] = [a, b, c]
        return X

    return [view((1, 0), (.6, .8), (0, 1)), view((1, 0), (.8, .6), (.6, .8))]


def random_views(rng, n, dims):
    """Random unit-norm views (samples as rows)."""
    views = [rng.standard_normal((n, d)) for d in dims]
    return [X / np.linalg.norm(X, axis=1, keepdims=True) for X in views]


# The dashboard's prefetching of the next slider steps (rmsc.dashboard.prefetch) is off in
# the tests, so that a test's fits are the ones it asks for; the tests of prefetching turn it
# on (monkeypatch.setenv(dash.PREFETCH_ENV, "1")).
os.environ["RMSC_PREFETCH"] = "0"


# ---------------------------------------------------------------------------
# Running the suite in parallel (pytest-xdist: `make test` runs `pytest -n 2 --dist
# loadfile`): each test file runs on one worker, so a module-scoped fixture (a server, a
# browser, a helper process, a Dask cluster) starts once. Nothing else is shared between
# workers: each has its own dashboard cluster (random ports), its own `tmp_path`s, and the
# servers' logs carry the worker's name (browser_support.serve).

# ---------------------------------------------------------------------------
# Where the suite's time goes: with RMSC_TEST_TIMES=FILE, every test appends one line to
# FILE: its node id, its wall seconds (setup, call and teardown), the CPU seconds of this
# process and everything it started meanwhile (servers, Dask workers, helper processes),
# the load average and the xdist worker. `python tools/suite_times.py FILE` sums it up. A
# module-scoped fixture counts with the first test that uses it (setup) and the last one
# (teardown).

TIMES_ENV = "RMSC_TEST_TIMES"


def _tree_cpu_seconds():
    """CPU seconds of this process, of its children that ended, and of those still running."""
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
        total += times.user + times.system
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
    import fake_torch

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
# The real-browser tests' fixtures: one server and one Chromium per module, a fresh page
# (1500 x 1000) per test, failing the test on any JavaScript error.

@pytest.fixture(scope="module")
def server():
    with serve() as url:
        yield url


@pytest.fixture(scope="module")
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
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    try:  # what was on screen when the test ended (to look at when one fails)
        pg.screenshot(path=str(SHOTS / f"last_{request.node.name}.png"))
    except Exception:  # noqa: BLE001 - a screenshot must not hide the test's own result
        pass
    context.close()
    assert not errors, errors
