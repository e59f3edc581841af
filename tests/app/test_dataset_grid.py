"""Every page on datasets at the edges of what the loader accepts.

Not examples but the corners of the input space: 1 and 2 samples, 1 view, 1 class, no
labels, 100 classes, a constant and an all-zero view, duplicated samples, d >> n sparse
text, views stored as (row, column, value) triplets, and n large enough to put the pages in
their pooled mode (:func:`rmsc.dashboard.scale_plan`). Each file is uploaded on the Data
page as a user would, then every page is drawn before the fit, after it, and (where the
data need it) after the user has chosen the number of clusters.

The decision for each case (docs/dashboard.md, "Datasets at the edges") is asserted here: the loader
refuses what no clustering can use, with a message, and keeps the previous dataset;
everything else loads and every page copes: no exception, and where a page cannot do its
job it says why and what to do.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from rmsc import dashboard as dash
from tests.app_support import cancel_jobs, goto, no_trouble, open_app, texts
from tests.support import _hundred_classes, _no_labels, _one_sample, npz, subspaces

#: The app runs as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")

PAGES = ["data", "solve", "weights", "affinity", "compare", "sensitivity", "theory"]


# ---------------------------------------------------------------------------
# The files
# ---------------------------------------------------------------------------


def mat(views, labels=None):
    cell = np.empty((1, len(views)), dtype=object)
    for v, X in enumerate(views):
        cell[0, v] = X
    variables = {"X": cell}
    if labels is not None:
        variables["Y"] = np.asarray(labels, dtype=float)[:, None]
    buf = io.BytesIO()
    scipy.io.savemat(buf, variables)
    return buf.getvalue()


def triplets(X):
    """A sparse view as MATLAB's ``[i, j, v] = find(X)`` gives it: 1-based rows and columns."""
    C = sp.coo_matrix(X)
    order = np.lexsort((C.row, C.col))  # find() lists the nonzeros column by column
    return np.column_stack([C.row[order] + 1, C.col[order] + 1, C.data[order]])


def text_views(n=60, c=3, seed=0):
    """d >> n word counts: three topics, each with its own vocabulary (plus shared words)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(c), n // c)
    views = []
    for d in (20_000, 5_000):
        rows, cols = [], []
        for j in range(n):
            topic = rng.integers(y[j] * d // c, (y[j] + 1) * d // c, 40)
            shared = rng.integers(0, d, 10)
            cols += [*topic, *shared]
            rows += [j] * 50
        X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, d))
        X.sum_duplicates()
        views.append(X)
    return views, y


@dataclass
class Case:
    """One corner of the input space and what the dashboard must do with it."""

    name: str
    make: object  # () -> (file name, bytes)
    #: The loader refuses it: a phrase of its message.
    refused: str | None = None
    #: What Solve shows at the defaults: "result", "failure" (a message from the fit),
    #: or "choose c" (the user must pick the number of clusters first).
    solve: str = "result"
    #: The number of clusters the user picks when Solve asks for it.
    pick: int = 3
    #: URL parameters the app is opened with (e.g. a β under which the fit succeeds).
    query: dict = field(default_factory=dict)
    #: Run Compare and Sensitivity (small selections) on it.
    experiments: bool = False
    #: Further checks of this case on the fitted pages: check(at).
    check: object = None
    timeout: int = 180


def _two_samples():
    rng = np.random.default_rng(0)
    return "two_samples.npz", npz([rng.standard_normal((2, 5)), rng.standard_normal((2, 4))],
                                  [1, 2])


def _one_view():
    views, y = subspaces(dims=(10,))
    return "one_view.npz", npz(views, y)


def _one_class():
    views, _ = subspaces()
    return "one_class.npz", npz(views, np.zeros(60, int))


def _constant_view():
    views, y = subspaces()
    return "constant_view.npz", npz([views[0], np.full((60, 5), 7.0)], y)


def _zero_view():
    views, y = subspaces()
    return "zero_view.npz", npz([views[0], np.zeros((60, 5)), views[1]], y)


def _duplicates():
    views, y = subspaces(n_per=10)
    return "duplicates.npz", npz([np.repeat(X, 3, axis=0) for X in views], np.repeat(y, 3))


def _sparse_text():
    views, y = text_views()
    return "sparse_text.mat", mat(views, y)


def _triplet_views():
    views, y = text_views()
    return "triplets.mat", mat([triplets(X) for X in views], y)


def _pooled():
    from rmsc.datasets import make_multiview_subspaces

    n_per = (dash.MAX_WEIGHT_COLUMNS // 5) + 20  # above every pooling threshold but scatter
    d = make_multiview_subspaces(n_clusters=5, n_per_cluster=n_per, n_views=2,
                                 view_dims=(20, 30), subspace_dim=3, noise=0.05,
                                 random_state=0)
    return "pooled.npz", npz(d.views, d.labels)


CASES = [
    Case("1 sample", _one_sample, refused="holds 1 sample(s); clustering needs at least 2"),
    Case("2 samples", _two_samples, experiments=True),
    Case("1 view", _one_view, experiments=True),
    Case("1 class", _one_class, solve="choose c", experiments=True),
    Case("no labels", _no_labels, solve="choose c"),
    Case("100 classes", _hundred_classes, timeout=400, check=lambda at: _legible(at)),
    Case("constant view", _constant_view, check=lambda at: (
        _says(at, "data", "warning", "View1 is the same for every sample"),
        _says(at, "affinity", "caption", "No k-NN graph for view1: Every sample has at least"))),
    Case("all-zero view", _zero_view, check=lambda at: _says(
        at, "data", "warning", "View1 is zero for every sample")),
    Case("duplicate samples", _duplicates, experiments=True, check=lambda at: _says(
        at, "data", "warning", "60 samples repeat another sample exactly in every view")),
    # d >> n text fits at the defaults (beta relative to the data, docs/defaults.md); the
    # failure path (an absolute beta that empties Z*) is exercised on the triplet views.
    Case("sparse text, d >> n", _sparse_text),
    Case("triplet views", _triplet_views, solve="failure", query={"beta": "1000"}),
    Case("pooled mode", _pooled, query={"beta": "0.02"}, timeout=400),
]


# ---------------------------------------------------------------------------
# Driving the app
# ---------------------------------------------------------------------------


def upload(at, fname, raw):
    goto(at, "data")
    at.file_uploader(key="w_upload").set_value((fname, raw, "application/octet-stream"))
    at.button(key="w_load_upload").click().run()
    return at


def wait_jobs(at, timeout):
    for s in at.session_state["slots"].values():
        job = s.latest
        if job is not None:
            assert job.wait(timeout), f"{job.label} did not finish in {timeout} s"


def every_page(at, case, when):
    for page in PAGES:
        goto(at, page)
        assert not at.exception, (case.name, when, page, [e.value for e in at.exception])
        assert at.title[0].value.lower() == page, (case.name, when, page)


def messages(at):
    return " ".join(texts(at, "error") + texts(at, "warning") + texts(at, "info")
                    + texts(at, "caption"))


def current_job(at):
    """The fit job of the current data and parameters, or None (none started, or c unknown)."""
    try:
        key = dash.fit_key(at.session_state["params"], at.session_state["data"])
    except ValueError:
        return None
    job = at.session_state["slots"]["fit"].latest
    return job if job is not None and job.key == key else None


def fitted(at):
    """The outcome (FitResult or FitFailure) of the fit of the current data and parameters."""
    job = current_job(at)
    return None if job is None else job.result


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_page_copes_with(case):
    at = open_app({"data": "Subspaces", **case.query}, timeout=case.timeout)
    try:
        _check_case(at, case)
    finally:
        cancel_jobs(at)


def _check_case(at, case):
    fname, raw = case.make()
    upload(at, fname, raw)
    no_trouble(at)
    if case.refused:
        errors = " ".join(texts(at, "error"))
        assert f"Could not load {fname}" in errors and case.refused in errors, errors
        assert at.session_state["clean"].name == "Subspaces"
        every_page(at, case, "refused")
        # a later failed upload shows its own message only
        upload(at, "broken.npz", b"PK\x03\x04 not really a zip")
        no_trouble(at)
        assert [e for e in texts(at, "error") if "Could not load" in e] == [
            e for e in texts(at, "error") if "broken.npz" in e]
        return
    data = at.session_state["clean"]
    assert data.name == fname.rsplit(".", 1)[0], texts(at, "error")
    # the Data page's choices start from the new data (not the previous set's view names)
    assert at.multiselect(key="w_out_views").value == [data.view_names[0]]
    every_page(at, case, "while the fit runs")
    wait_jobs(at, case.timeout)
    every_page(at, case, "after the fit")
    goto(at, "solve")
    if case.solve == "choose c":
        # nothing runs, every page says what to do, and the widget shows no number it
        # would not apply
        assert current_job(at) is None
        assert any("choose **clusters c** (left)" in t and "runs on its own" in t
                   for t in texts(at, "info")), messages(at)
        assert at.number_input(key="w_clusters").value is None
        assert at.button(key="w_run").disabled
        for page in ("weights", "affinity"):
            goto(at, page)
            assert any("choose 'clusters c' on the Solve page" in t for t in texts(at, "info"))
        goto(at, "solve")
        at.number_input(key="w_clusters").set_value(case.pick).run()
        assert at.session_state["params"].n_clusters == case.pick
        assert current_job(at) is not None, "choosing c did not start the fit (autorun is on)"
        wait_jobs(at, case.timeout)
        every_page(at, case, "after choosing c")
        goto(at, "solve")
    out = fitted(at)
    if case.solve == "failure":
        assert isinstance(out, dash.FitFailure), out
        assert any("did not give a usable clustering" in e for e in texts(at, "error"))
        for page in ("weights", "affinity"):
            goto(at, page)
            assert any("failed" in e for e in texts(at, "error")), (page, messages(at))
    else:
        assert isinstance(out, dash.FitResult), getattr(out, "message", out)
        metrics = {m.label: m.value for m in at.metric}
        assert {"ACC", "NMI", "iterations", "time", "density of Z*"} <= set(metrics)
        if case.solve == "choose c":
            assert metrics["ACC"] in ("no labels", "one class")
    if case.experiments:
        _run_experiments(at, case)
    if case.check is not None:
        case.check(at)


def _run_experiments(at, case):
    data = at.session_state["data"]
    scorable = data.labels is not None and data.n_clusters >= 2
    goto(at, "compare")
    if not scorable:
        assert any(dash.labels_problem(data) in t for t in texts(at, "info")), messages(at)
    else:
        at.multiselect(key="w_cmp_methods").set_value(["RMSC", "SSC-AVG"]).run()
        at.button(key="w_cmp_run").click().run()
        wait_jobs(at, case.timeout)
        at.run()
        no_trouble(at)
        assert any("ACC %" in d.value.columns for d in at.dataframe) or texts(at, "error")
    goto(at, "sensitivity")
    if not scorable:
        assert any(dash.labels_problem(data) in t for t in texts(at, "info")), messages(at)
        return
    lams = at.multiselect(key="w_sens_lams").value[:2]
    betas = at.multiselect(key="w_sens_betas").value[:2]
    at.multiselect(key="w_sens_lams").set_value(lams)
    at.multiselect(key="w_sens_betas").set_value(betas).run()
    at.button(key="w_sens_run").click().run()
    wait_jobs(at, case.timeout)
    at.run()
    no_trouble(at)


def test_without_labels_the_messages_match_what_the_page_does():
    """Autorun off: Solve says 'press Run' and Run runs; on: it runs when c is chosen."""
    fname, raw = _no_labels()
    at = open_app({"data": "Subspaces"})
    try:
        at.session_state["autorun"] = False
        upload(at, fname, raw)
        goto(at, "solve")
        no_trouble(at)
        assert any("choose **clusters c** (left). RMSC then runs when you press **Run**" in t
                   for t in texts(at, "info")), messages(at)
        assert at.button(key="w_run").disabled
        at.number_input(key="w_clusters").set_value(3).run()
        assert current_job(at) is None  # autorun is off
        assert any("press **Run**" in t for t in texts(at, "info")), messages(at)
        assert not at.button(key="w_run").disabled
        at.button(key="w_run").click().run()
        wait_jobs(at, 120)
        at.run()
        no_trouble(at)
        assert {m.label: m.value for m in at.metric}["ACC"] == "no labels"
        # a labelled dataset next: c follows its labels again (not the 3 chosen here)
        at.toggle(key="w_autorun").set_value(True).run()
        goto(at, "data")
        at.selectbox(key="w_bundled").set_value("Subspaces")
        at.button(key="w_load_bundled").click().run()
        goto(at, "solve")
        assert at.session_state["params"].n_clusters is None
        assert at.number_input(key="w_clusters").value == at.session_state["clean"].n_clusters
    finally:
        cancel_jobs(at)


# ---------------------------------------------------------------------------
# Figures on the 100-class set: legible (checked on the figures the page sends)
# ---------------------------------------------------------------------------


def _says(at, page, kind, text):
    goto(at, page)
    assert any(text in t for t in texts(at, kind)), (page, messages(at))


def specs(at):
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def legend_entries(spec):
    return [t["name"] for t in spec["data"] if t.get("showlegend", True) and t.get("name")]


def _legible(at):
    """100 classes: no gridlines tinting the matrices, a short legend, axes that can be read."""
    from rmsc import figures

    goto(at, "data")
    counts, views = specs(at)[:2]
    assert "text" not in counts["data"][0]  # no 100 overprinted numbers
    assert len(legend_entries(views)) <= figures.MAX_LEGEND_ENTRIES
    goto(at, "affinity")
    charts = {c["layout"]["title"]["text"].split(" —")[0]: c for c in specs(at)}
    consensus = charts["Consensus (|Z*|+|Z*ᵀ|)/2"]
    assert not consensus["layout"].get("shapes")
    assert len(consensus["layout"]["xaxis"]["ticktext"]) <= figures.MAX_GROUP_TICKS
    every = next(c for t, c in charts.items() if t.startswith("Every view"))
    assert not every["layout"].get("shapes")
    embedding = next(c for t, c in charts.items() if t.startswith("Spectral embedding"))
    assert len(legend_entries(embedding)) <= figures.MAX_LEGEND_ENTRIES
    goto(at, "weights")
    heat = specs(at)[0]
    assert not heat["layout"].get("shapes")
    assert len(heat["layout"]["xaxis"]["ticktext"]) <= figures.MAX_GROUP_TICKS

