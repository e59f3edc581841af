"""What the AppTest tests of the pages share (``tests/app/``, and the dataset, registry and
store tests that open the app): opening the app on a page as a URL would, waiting for the
fit, reading tables and texts, moving β as a user does, and the fit the library computes
for the same parameters."""

import json
from pathlib import Path

import numpy as np
import streamlit as st
from streamlit.testing.v1 import AppTest

import rmsc
from rmsc import dashboard as dash
from rmsc import datasets
from rmsc.dashboard import store

from tests.support import damage_file

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def open_app(query=None, page=None, timeout=120):
    at = AppTest.from_file(APP, default_timeout=timeout)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(f"pages/{page}.py").run()
    return at


def goto(at, page):
    return at.switch_page(f"pages/{page}.py").run()


def wait_fit(at, timeout=300):
    """Wait for the background fit of the current parameters, then redraw."""
    job = at.session_state["slots"]["fit"].latest
    if job is not None:
        assert job.wait(timeout), "the fit did not finish"
    return at.run()


def find_table(at, *columns):
    """The first table on the page that has all ``columns``."""
    for d in at.dataframe:
        df = d.value
        if all(c in df.columns for c in columns):
            return df
    raise AssertionError(f"no table with columns {columns}")


def no_trouble(at):
    assert not at.exception, [e.value for e in at.exception]


def texts(at, kind):
    return [e.value for e in getattr(at, kind)]


def sidebar_text(at):
    return " ".join(m.value for m in at.sidebar.markdown)


def cancel_jobs(at):
    for s in at.session_state["slots"].values():
        s.cancel()


def set_beta(at, value):
    """Move β as a user does: "auto", or a fixed value (the way first, then its slider)."""
    if value == dash.AUTO:
        return at.radio(key="w_beta_mode").set_value(dash.AUTO).run()
    if at.session_state["params"].beta == dash.AUTO:
        at.radio(key="w_beta_mode").set_value(dash.FIXED).run()
    return at.select_slider(key="w_beta").set_value(value).run()


def expected_fit(params, data):
    est = rmsc.get_method(params.method, **dash.estimator_params(params, data))
    est.fit(list(data.views))
    return est, rmsc.evaluate_runs(data.labels, est.label_runs_)


def stored_subspaces_fit_with_damaged_weights(tmp_path, monkeypatch, query):
    """Fit ``query`` (on Subspaces) on Solve into a result folder under ``tmp_path`` whose
    store keeps Subspaces' weights P as an array read on demand (the store's threshold,
    from about 22k samples × 6 views, lowered to P's size); then restart the server (its
    memory gone, the folder kept) and damage P's bytes in the entry's file, as a disk error
    would. Returns the first session (its fit done, its jobs cancelled) and the entry's path."""
    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "results"))
    subspaces = datasets.load_bundled("Subspaces")
    monkeypatch.setattr(store, "LAZY_BYTES", 8 * subspaces.n_samples * len(subspaces.views))
    first = open_app(query, page="solve")
    wait_fit(first)
    cancel_jobs(first)
    (path,) = (tmp_path / "results").glob("*.npz")
    with np.load(path, allow_pickle=False) as z:  # P's values, an array read on demand
        header = json.loads(str(z["__header__"][()]))
        name = header["value"]["f"]["weights"]["a"]
        assert name in header["deferred"]
        inside = z[name].tobytes()
    st.cache_resource.clear()  # the server restarted: its memory is gone, the folder kept
    damage_file(path, "flipped", inside)
    return first, path
