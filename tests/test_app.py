"""Every page of the dashboard with streamlit's AppTest (no browser).

Most tests use the bundled "Subspaces" teaching set (150 samples, fitted in
about a second) through the URL, as a user would share it; one opens the app
with no URL at all and checks that it comes up on Digit.
"""

import base64
import io
import json
import sys
import time
from pathlib import Path

import cloudpickle

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import rmsc
from rmsc import dashboard as dash
from rmsc import datasets, inspection

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")
PAGES = ["data", "solve", "weights", "affinity", "compare", "sensitivity", "theory"]

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")


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


def wait_fit(at, timeout=180):
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


# ---------------------------------------------------------------------------
# Opening
# ---------------------------------------------------------------------------


def test_opens_on_digit_with_the_estimators_defaults():
    at = open_app()
    try:
        no_trouble(at)
        assert at.title[0].value == "Data"
        assert "Digit" in [h.value for h in at.subheader]
        views = find_table(at, "view", "features", "storage")
        assert views["view"].tolist() == ["PIX", "FOU", "FAC", "ZER", "KAR", "MOR"]
        side = sidebar_text(at)
        assert "2,000" in side and "6 (PIX" in side and "classes**: 10" in side
        defaults = rmsc.RMSC().get_params()
        assert f"λ = {rmsc.rmsc.LAM['sample']:g}, β = {defaults['beta']}" in side  # β = auto
        # the default fit starts by itself, in the background
        job = at.session_state["slots"]["fit"].latest
        digit = datasets.load_bundled("Digit")
        assert job is not None and job.key == dash.fit_key(dash.Params(), digit)
        assert len(at.get("plotly_chart")) >= 3  # class counts, 2-D views, pictures
        assert at.query_params.get("data") in (None, [], "")  # default state: clean URL
        # Digit's known repeated samples are in its description, not in a warning box
        assert texts(at, "warning") == []
        assert any("6 samples repeat another sample exactly in every view" in c
                   for c in texts(at, "caption"))
        intro = at.markdown[0].value
        assert "**Digit** has 2,000 samples, each seen through 6 views: PIX, FOU" in intro
    finally:
        cancel_jobs(at)


def test_the_data_page_describes_the_data_loaded():
    at = open_app({"data": "Subspaces"})
    try:
        no_trouble(at)
        intro = at.markdown[0].value
        assert intro == dash.data_intro(at.session_state["data"])
        assert "**Subspaces** has 150 samples, each seen through 3 views" in intro
        assert "They belong to 3 classes" in intro
        for digit_only in ("Digit", "Fourier", "digits", "Karhunen"):
            assert digit_only not in intro
        # loading another set rewrites it
        at.selectbox(key="w_bundled").set_value("3-Sources").run()
        at.button(key="w_load_bundled").click().run()
        no_trouble(at)
        assert "**3-Sources** has 169 samples, each seen through 3 views: BBC, Guardian and " \
               "Reuters." in at.markdown[0].value
    finally:
        cancel_jobs(at)


def test_every_widget_whose_choices_depend_on_the_data_starts_again_on_new_data():
    """Forms follow the data (the page review): every widget of ui.DATASET_WIDGETS moved on one
    dataset shows a choice of the next one after a load, held in its key (what the browser
    is sent), and the Data page's Inject works with it at once."""
    import ui

    at = open_app({"data": "Subspaces", "beta": "0.01"}, page="solve")
    try:
        wait_fit(at)
        first = at.session_state["clean"]
        # move every such widget off its default on the first data
        goto(at, "data")
        at.multiselect(key="w_out_views").set_value([first.view_names[2]]).run()
        goto(at, "compare")
        at.radio(key="w_cmp_preset").set_value("robustness preset").run()
        at.multiselect(key="w_cmp_rob_views").set_value([first.view_names[2]]).run()
        goto(at, "affinity")
        at.selectbox(key="w_aff_view").set_value(2).run()
        at.radio(key="w_aff_order").set_value("cluster").run()
        goto(at, "weights")
        at.radio(key="w_weights_order").set_value("nothing").run()
        no_trouble(at)
        # another dataset, with other views
        goto(at, "data")
        at.selectbox(key="w_bundled").set_value("3-Sources").run()
        at.button(key="w_load_bundled").click().run()
        no_trouble(at)
        new = at.session_state["clean"]
        assert new.name == "3-Sources" and set(new.view_names).isdisjoint(first.view_names)
        expect = ui.dataset_widget_defaults(new)
        assert set(expect) | {"w_clusters", "w_aff_kind"} == set(ui.DATASET_WIDGETS)
        for key, value in expect.items():  # held in the keys, drawn or not
            assert at.session_state[key] == value, key
        assert at.multiselect(key="w_out_views").options == list(new.view_names)
        assert at.multiselect(key="w_out_views").value == [new.view_names[0]]
        # Inject at once: no "Choose at least one view to corrupt"
        [b for b in at.button if b.label == "Inject"][0].click().run()
        no_trouble(at)
        assert not at.error, [e.value for e in at.error]
        assert at.session_state["outliers"].views == (new.view_names[0],)
        goto(at, "compare")
        at.radio(key="w_cmp_preset").set_value("robustness preset").run()
        assert at.multiselect(key="w_cmp_rob_views").options == list(new.view_names)
        assert at.multiselect(key="w_cmp_rob_views").value == [new.view_names[0]]  # injected
        wait_fit(goto(at, "solve"))
        goto(at, "affinity")
        no_trouble(at)
        assert at.selectbox(key="w_aff_view").value == 0
        assert at.selectbox(key="w_aff_view").format_func(0) == new.view_names[0]
        assert at.radio(key="w_aff_order").value == "class"
        goto(at, "weights")
        assert at.radio(key="w_weights_order").value == "class"
        no_trouble(at)
    finally:
        cancel_jobs(at)


def test_legacy_a_page_run_on_its_own_draws_the_frame():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["data"] = "Subspaces"
    at.session_state["autorun"] = False
    at.run()
    for page in PAGES:
        at.switch_page(f"pages/{page}.py").run()  # AppTest runs the page file alone here
        no_trouble(at)
        assert at.title[0].value.lower() == page
        assert "Subspaces" in sidebar_text(at) and \
            f"λ = {rmsc.rmsc.LAM['sample']:g}, β = auto" in sidebar_text(at)
        at.run()
        no_trouble(at)
        assert "Subspaces" in sidebar_text(at)


def test_every_page_renders_before_any_fit():
    at = open_app({"data": "Subspaces"})
    at.session_state["autorun"] = False
    cancel_jobs(at)
    st.cache_resource.clear()
    for page in PAGES:
        goto(at, page)
        no_trouble(at)
        assert at.title[0].value.lower() == page
    goto(at, "weights")
    assert any("press **Run** on the *Solve* page" in t or "fills in" in t
               for t in texts(at, "info"))


def test_the_sidebar_names_the_gpu_torch_reports(fake_cuda_torch, monkeypatch):
    """With ``RMSC_DEVICE`` at auto and torch reporting a CUDA GPU (tests/fake_torch.py), the
    sidebar's "Fits run on" line names that GPU on every page (the server's resolution;
    the fits themselves run on the workers, which have no fake torch)."""
    import fake_torch

    monkeypatch.delenv("RMSC_DEVICE", raising=False)
    at = open_app({"data": "Subspaces"})
    at.session_state["autorun"] = False
    cancel_jobs(at)
    want = (f"Fits run on: {fake_torch.NAME} (cuda:0 through torch {fake_torch.VERSION}, "
            "80.0 GB)")
    for page in ("solve", "weights"):
        goto(at, page)
        no_trouble(at)
        assert want in [c.value for c in at.sidebar.caption]
    assert ("get_device_properties", (0,)) in fake_cuda_torch.calls


def test_every_page_without_a_dataset_says_what_to_do():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["clean"] = None
    at.run()
    for page in PAGES:
        goto(at, page)
        no_trouble(at)
        assert "none loaded" in sidebar_text(at)
        if page != "theory":
            assert any("No dataset is loaded" in i for i in texts(at, "info"))
    assert at.session_state["slots"]["fit"].latest is None


def test_url_parameters_set_the_state_and_bad_ones_are_reported():
    at = open_app({"data": "Subspaces", "lam": "2", "beta": "0.01", "weighting": "view",
                   "max_iter": "oops"})
    try:
        no_trouble(at)
        p = at.session_state["params"]
        assert (p.lam, p.beta, p.weighting, p.max_iter) == (2.0, 0.01, "view",
                                                            rmsc.solver.MAX_ITER)
        assert any("max_iter" in w for w in texts(at, "warning"))
        assert "RMSC-WV: λ = 2, β = 0.01" in sidebar_text(at)
        assert at.query_params["lam"] == "2" and at.query_params["data"] == "Subspaces"
    finally:
        cancel_jobs(at)
    at = open_app({"data": "NoSuchSet"})
    try:
        assert any("NoSuchSet" in w for w in texts(at, "warning"))
        assert at.session_state["clean"].name == "Digit"
    finally:
        cancel_jobs(at)


# ---------------------------------------------------------------------------
# Solve and the pages that show the fit
# ---------------------------------------------------------------------------


@pytest.fixture
def fitted_app():
    at = open_app({"data": "Subspaces", "beta": "0.01"}, page="solve")
    wait_fit(at)
    yield at
    cancel_jobs(at)


def test_solve_shows_the_fit_the_library_computes(fitted_app):
    at = fitted_app
    no_trouble(at)
    data = at.session_state["data"]
    params = at.session_state["params"]
    est, scores = expected_fit(params, data)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ACC"] == f"{100 * scores['acc_mean']:.2f}%"
    assert metrics["NMI"] == f"{100 * scores['nmi_mean']:.2f}%"
    assert metrics["iterations"].rstrip("+") == str(est.n_iter_)
    density = est.consensus_.nnz / data.n_samples ** 2
    assert metrics["density of Z*"] == f"{100 * density:.2f}%"
    table = find_table(at, "metric", "mean %")
    assert table["mean %"].iloc[0] == pytest.approx(100 * scores["acc_mean"])
    assert len(at.get("download_button")) == 4
    # where it ran: the worker's device, in the sidebar with the server's resolution of
    # RMSC_DEVICE (the suite's machine has no GPU)
    assert "Fitted on CPU (NumPy):" in " ".join(s.value for s in at.sidebar.success)
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "Fits run on: CPU (NumPy)" in captions


def test_solve_shows_the_clustering_along_the_iterations(fitted_app):
    at = fitted_app
    no_trouble(at)
    out = at.session_state["slots"]["fit"].latest.result
    # the trace was recorded on the worker and came back with the result: rows every
    # PAGE_TRACE_EVERY iterations, the fit's own clustering last
    assert out.trace and out.trace[-1]["final"]
    assert out.trace[-1]["iteration"] == out.n_iter
    assert out.trace[-1]["acc"] == pytest.approx(100 * out.scores["acc_mean"])
    keys = [c.proto.id for c in at.get("plotly_chart")]
    assert any("clustering_trace" in k for k in keys), keys
    captions = texts(at, "caption")
    assert any(f"Every {dash.PAGE_TRACE_EVERY}th iteration" in c for c in captions)
    # its measured summary is said, and no unmeasured "slightly" anywhere
    summary = dash.trace_summary(out.trace)
    assert summary and summary in captions
    assert not any("slightly" in t for t in captions + texts(at, "info"))
    # the suggestion's measured worth stands beside its button
    assert dash.SUGGESTION_VERDICT in captions


def test_a_slider_change_refits_and_updates_url_sidebar_and_result(fitted_app):
    at = fitted_app
    first = dash.fit_key(at.session_state["params"], at.session_state["data"])
    set_beta(at, 0.03)
    p = at.session_state["params"]
    assert p.beta == 0.03
    assert "β = 0.03" in sidebar_text(at)
    assert at.query_params["beta"] == "0.03"
    job = at.session_state["slots"]["fit"].latest
    assert job.key != first and job.key == dash.fit_key(p, at.session_state["data"])
    wait_fit(at)
    no_trouble(at)
    _, scores = expected_fit(p, at.session_state["data"])
    assert {m.label: m.value for m in at.metric}["ACC"] == f"{100 * scores['acc_mean']:.2f}%"


def test_the_next_slider_steps_are_fitted_while_a_result_is_on_screen(fitted_app, monkeypatch):
    import ui

    monkeypatch.setenv(dash.PREFETCH_ENV, "1")
    at = fitted_app.run()  # a draw with the result on screen starts them on the idle workers
    no_trouble(at)
    data, p = at.session_state["data"], at.session_state["params"]
    near = [q for q in dash.slider_neighbors(p)]
    cache = ui.result_cache()
    # One after the other, every step of the β and λ sliders from here is fitted.
    t0 = time.time()
    while not all(dash.fit_key(q, data) in cache for q in near):
        assert time.time() - t0 < 180, "the neighbours were not all fitted"
        time.sleep(0.1)
    assert ui.prefetcher().queued == []
    q = near[0]  # β one step to the left
    # The slider moved onto that step: its result is on screen at once, no fit is started,
    # and it is the fit of that setting (the same numbers as fitting it afresh).
    set_beta(at, q.beta)
    no_trouble(at)
    assert at.session_state["params"] == q
    assert at.session_state["slots"]["fit"].latest_key != dash.fit_key(q, data)
    _, scores = expected_fit(q, data)
    assert {m.label: m.value for m in at.metric}["ACC"] == f"{100 * scores['acc_mean']:.2f}%"
    # A fit asked for takes the workers back from the prefetches nobody joined.
    pre, calls = ui.prefetcher(), []
    give_back = pre.yield_workers
    monkeypatch.setattr(pre, "yield_workers", lambda keep=None: calls.append(keep) or
                        give_back(keep=keep))
    set_beta(at, dash.BETA_GRID[0])
    far = dash.fit_key(at.session_state["params"], data)
    # before the fit starts (and once more after: a step it had joined and left gives way)
    assert calls[:1] == [far] and set(calls) == {far} and pre.running == []
    assert at.session_state["slots"]["fit"].latest_key == far
    wait_fit(at)
    no_trouble(at)


def test_solve_with_beta_rel_in_the_url_fits_that_relative_beta():
    at = open_app({"data": "Subspaces", "beta_rel": "0.5"}, page="solve")
    try:
        wait_fit(at)
        no_trouble(at)
        data, p = at.session_state["data"], at.session_state["params"]
        assert p == dash.Params(beta_rel=0.5)  # every other parameter at its default
        assert at.radio(key="w_beta_mode").value == dash.AUTO
        assert "w_beta" not in [s.key for s in at.select_slider]  # the fixed β's slider
        assert at.select_slider(key="w_beta_rel").value == 0.5
        assert "β = auto (β_rel 0.5)" in sidebar_text(at)
        assert at.query_params["beta_rel"] == "0.5"
        # the same model fitted here, by hand; the default β_rel gives another Z*
        est, default = (rmsc.RMSC(n_clusters=data.n_clusters, random_state=p.seed, beta="auto",
                                  **kw).fit(list(data.views)) for kw in ({"beta_rel": 0.5}, {}))
        assert est.consensus_.nnz != default.consensus_.nnz
        scores = rmsc.evaluate_runs(data.labels, est.label_runs_)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["ACC"] == f"{100 * scores['acc_mean']:.2f}%"
        assert metrics["NMI"] == f"{100 * scores['nmi_mean']:.2f}%"
        assert metrics["density of Z*"] == \
            f"{100 * est.consensus_.nnz / data.n_samples ** 2:.2f}%"
        # the β_rel slider moves it, and the URL follows
        at.select_slider(key="w_beta_rel").set_value(1.0).run()
        p = at.session_state["params"]
        assert p.beta_rel == 1.0 and at.query_params["beta_rel"] == "1"
        assert at.session_state["slots"]["fit"].latest.key == dash.fit_key(p, data)
        # an absolute β has no relative part: the β_rel slider and the URL's beta_rel go
        set_beta(at, 0.03)
        no_trouble(at)
        p = at.session_state["params"]
        assert p.beta == 0.03 and p.beta_rel is None
        assert "w_beta_rel" not in [s.key for s in at.select_slider]
        assert (at.query_params.get("beta_rel") or None) is None
        assert "β_rel" not in sidebar_text(at)
        # and back to auto: β_rel comes back where it was left (test_beta_remembers_...)
        set_beta(at, dash.AUTO)
        no_trouble(at)
        assert at.session_state["params"] == dash.Params(beta_rel=1.0)
        assert at.select_slider(key="w_beta_rel").value == 1.0
    finally:
        cancel_jobs(at)


def test_beta_remembers_each_way_it_is_set():
    """auto → fixed → auto gives back the β_rel that was left (0.3, not the default 0.25), and
    fixed comes back at its β; the URL carries the way in use."""
    import ui

    at = open_app({"data": "Subspaces", "beta_rel": "0.3"}, page="solve")
    try:
        wait_fit(at)
        no_trouble(at)
        data = at.session_state["data"]
        auto = at.session_state["params"]
        assert auto == dash.Params(beta_rel=0.3)
        fitted = ui.result_cache().get(dash.fit_key(auto, data))
        # fixed for the first time: β starts at what auto gave on these data
        at.radio(key="w_beta_mode").set_value(dash.FIXED).run()
        no_trouble(at)
        p = at.session_state["params"]
        assert p == dash.Params(beta=float(f"{fitted.beta:.3g}"))
        assert at.select_slider(key="w_beta").value == p.beta
        assert "w_beta_rel" not in [s.key for s in at.select_slider]
        at.select_slider(key="w_beta").set_value(0.02).run()
        assert at.query_params["beta"] == "0.02" and "beta_rel" not in at.query_params
        # back to auto: β_rel where it was left, in the sliders, the sidebar and the URL
        at.radio(key="w_beta_mode").set_value(dash.AUTO).run()
        no_trouble(at)
        assert at.session_state["params"] == auto
        assert at.select_slider(key="w_beta_rel").value == 0.3
        assert "β = auto (β_rel 0.3)" in sidebar_text(at)
        assert at.query_params["beta_rel"] == "0.3" and "beta" not in at.query_params
        # the first fit of that setting is on screen again (from the cache, not refitted)
        assert {m.label: m.value for m in at.metric}["density of Z*"] == \
            f"{100 * fitted.density:.2f}%"
        # and fixed again: the β it had
        at.radio(key="w_beta_mode").set_value(dash.FIXED).run()
        assert at.session_state["params"] == dash.Params(beta=0.02)
        assert at.select_slider(key="w_beta").value == 0.02
        assert at.query_params["beta"] == "0.02"
        # Defaults forget both
        at.button(key="w_defaults").click().run()
        assert at.session_state["params"] == dash.Params()
        at.radio(key="w_beta_mode").set_value(dash.FIXED).run()
        assert at.session_state["params"].beta != 0.02
        at.radio(key="w_beta_mode").set_value(dash.AUTO).run()
        assert at.session_state["params"] == dash.Params()
    finally:
        cancel_jobs(at)


def test_the_placement_checkbox_refits_without_placement(fitted_app):
    at = fitted_app
    at.checkbox(key="w_placement").uncheck().run()
    p = at.session_state["params"]
    assert p.placement is False and at.query_params["placement"] == "0"
    assert "no placement" in sidebar_text(at)
    wait_fit(at)
    no_trouble(at)
    est, scores = expected_fit(p, at.session_state["data"])
    assert est.placement is None
    assert {m.label: m.value for m in at.metric}["ACC"] == f"{100 * scores['acc_mean']:.2f}%"


def occupy_worker(job):
    """A task that holds its worker until cancelled (at most 5 minutes)."""
    job.report(0, 1, "holding a worker")
    for _ in range(3000):
        job.check()
        time.sleep(0.1)


def test_a_fit_waiting_for_a_free_worker_shows_its_place_on_solve():
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests
    backend = dash.default_backend()
    n = backend.limits()["workers"]
    holders = [dash.Job(("hold", i), dash.Remote(occupy_worker), label="hold",
                        runner=dash.DaskRunner(backend)).start() for i in range(n)]
    deadline = 120
    try:
        t0 = time.monotonic()
        while any(h.snapshot().place is not None or not h.snapshot().message for h in holders):
            assert time.monotonic() - t0 < deadline, "the holders did not start"
            time.sleep(0.1)
        at = open_app({"data": "Subspaces", "beta": "0.01"}, page="solve")
        job = at.session_state["slots"]["fit"].latest
        t0 = time.monotonic()
        while job.snapshot().place is None:  # submitted after its start delay
            assert time.monotonic() - t0 < deadline, "the fit was not queued"
            time.sleep(0.1)
        at.run()
        no_trouble(at)
        shown = " ".join(p.proto.text for p in at.get("progress"))
        assert "waiting for a free worker (1st in the queue)" in shown
    finally:
        for h in holders:
            h.cancel()
    wait_fit(at)
    no_trouble(at)
    assert "ACC" in {m.label for m in at.metric}


def test_elhamifars_rho_threshold_is_an_affinity_choice(fitted_app):
    at = fitted_app
    at.selectbox(key="w_post").set_value("rho+scale").run()
    at.number_input(key="w_keep_mass").set_value(0.5).run()
    p = at.session_state["params"]
    assert p.post == "rho+scale" and p.keep_mass == 0.5
    wait_fit(at)
    no_trouble(at)
    assert "affinity post-processing: ρ = 0.5, then scale" in sidebar_text(at)
    out = at.session_state["slots"]["fit"].latest.result
    expect = rmsc.spectral.affinity_from_coefficients(out.consensus, keep_mass=0.5,
                                                      scale_columns=True)
    assert abs(out.affinity - expect).max() < 1e-12
    assert at.query_params["post"] == "rho+scale" and at.query_params["keep_mass"] == "0.5"


def test_switching_to_rmsc_wv_uses_its_registry_beta(fitted_app):
    at = fitted_app
    at.radio(key="w_weighting").set_value("view").run()
    p = at.session_state["params"]
    assert p.weighting == "view" and p.beta == rmsc.get_method("RMSC-WV").beta
    # λ was at RMSC's default, so it follows to RMSC-WV's own (the slider too)
    assert p.lam is None and p.resolved_lam == rmsc.rmsc.LAM["view"] != rmsc.rmsc.LAM["sample"]
    assert at.select_slider(key="w_lam").value == rmsc.rmsc.LAM["view"]
    assert at.select_slider(key="w_lam").proto.set_value  # the browser is told (see Apply)
    beta_slider = "w_beta_rel" if p.beta == dash.AUTO else "w_beta"  # the way β is set
    assert at.select_slider(key=beta_slider).value == (
        p.resolved_beta_rel if p.beta == dash.AUTO else p.beta)
    wait_fit(at)
    no_trouble(at)
    assert f"RMSC-WV: λ = {rmsc.rmsc.LAM['view']:g}" in sidebar_text(at)
    assert at.session_state["slots"]["fit"].latest.result.model.lam_ == rmsc.rmsc.LAM["view"]


def test_a_lambda_the_user_chose_stays_when_the_weighting_changes(fitted_app):
    at = fitted_app
    at.select_slider(key="w_lam").set_value(0.5).run()
    at.radio(key="w_weighting").set_value("view").run()
    p = at.session_state["params"]
    assert p.weighting == "view" and p.lam == 0.5
    assert at.select_slider(key="w_lam").value == 0.5


def test_defaults_moves_every_widget_back_and_tells_the_browser(fitted_app):
    at = fitted_app
    at.select_slider(key="w_lam").set_value(0.5).run()
    at.select_slider(key="w_gamma").set_value(1.0).run()
    assert at.session_state["params"].lam == 0.5
    at.button(key="w_defaults").click().run()
    no_trouble(at)
    assert at.session_state["params"] == dash.Params()
    for key, value in (("w_lam", dash.Params().resolved_lam), ("w_gamma", dash.Params().gamma)):
        slider = at.select_slider(key=key)
        assert slider.value == value and slider.proto.set_value, key
    # a rerun as the browser then makes (the widgets' values as it was told) changes nothing
    at.run()
    assert at.session_state["params"] == dash.Params()


def test_the_run_automatically_switch_outlives_leaving_the_solve_page(fitted_app):
    # opened on the Solve page's URL (a shared link), then another page: the switch's state
    # is the session's, not the widget's (a widget's key goes when its page is left)
    at = fitted_app
    at.toggle(key="w_autorun").set_value(False).run()
    for page in ("theory", "weights", "solve"):
        goto(at, page)
        no_trouble(at)
        assert at.session_state["autorun"] is False
    assert at.toggle(key="w_autorun").value is False


def test_too_large_beta_explains_itself_on_every_page(fitted_app):
    at = fitted_app
    set_beta(at, 10.0)
    wait_fit(at)
    no_trouble(at)
    errors = " ".join(texts(at, "error"))
    assert "did not give a usable clustering" in errors
    # in the page's words: β and λ as on the sliders, no argument or attribute names
    assert "β = 10 is so large that the consensus Z* is all zero" in errors
    assert "Measured on these data with λ = " in errors and "Try β = " in errors
    for code in ("beta=", "lam=", "beta_max_", "beta_rel=", "'auto'", "beta "):
        assert code not in errors, code
    for page in ("weights", "affinity"):
        goto(at, page)
        no_trouble(at)
        shown = [e for e in texts(at, "error") if "failed" in e]
        assert shown and "β = 10" in shown[0] and "beta" not in shown[0]
    goto(at, "theory")
    no_trouble(at)


def test_an_impossible_parameter_is_a_message_and_loses_nothing():
    # more clusters than samples: the widget stops at n, a shared link can still ask for more
    at = open_app({"data": "Subspaces", "beta": "0.01", "n_clusters": "400"}, page="solve")
    try:
        before = at.session_state["data"]
        wait_fit(at)
        no_trouble(at)
        errors = " ".join(texts(at, "error"))
        assert "The fit failed" in errors
        assert "c = 400 exceeds the number of samples (150)" in errors  # the page's c
        assert "n_clusters" not in errors
        assert at.session_state["data"] is before
        at.number_input(key="w_clusters").set_value(3).run()
        wait_fit(at)
        no_trouble(at)
        assert {m.label for m in at.metric} >= {"ACC", "NMI"}
        assert at.number_input(key="w_clusters").max == before.n_samples
    finally:
        cancel_jobs(at)


def test_stop_finishes_early_and_shows_the_current_result():
    import time

    # 200 iterations take 0.2 s on Subspaces, which a loaded machine can pass before the
    # click arrives: 50,000 (about a minute) cannot finish first
    at = open_app({"data": "Subspaces", "beta": "0.01", "tol": "0", "max_iter": "50000"},
                  page="solve")
    try:
        job = at.session_state["slots"]["fit"].latest
        t0 = time.time()
        while len(job.snapshot().history) < 2 and time.time() - t0 < 60:
            time.sleep(0.02)
        at.button(key="w_stop").click().run()
        wait_fit(at)
        no_trouble(at)
        assert job.state == dash.STOPPED
        r = job.result
        assert r.stopped_early and 2 <= r.n_iter < 50000
        assert any(f"stopped after {r.n_iter}" in c for c in texts(at, "caption"))
        assert {m.label: m.value for m in at.metric}["iterations"] == f"{r.n_iter}+"
        # shown, but not cached as the result of these parameters
        assert r.key not in at.session_state["slots"] and ui_cache().get(r.key) is None
    finally:
        cancel_jobs(at)


def ui_cache():
    import sys

    sys.path.insert(0, str(ROOT))
    import ui

    return ui.result_cache()


def test_weights_page_ranks_and_drills_down(fitted_app):
    at = goto(fitted_app, "weights")
    no_trouble(at)
    data = at.session_state["data"]
    out = at.session_state["slots"]["fit"].latest.result
    table = at.dataframe(key="least_trusted").value
    expect = dash.least_trusted(out.weights, data.view_names, labels=data.labels, top=25)
    assert table["sample"].tolist() == expect["sample"].tolist()
    j = int(expect["sample"].iloc[3])
    at.number_input(key=f"w_sample_{int(expect['sample'].iloc[0])}").set_value(j).run()
    detail = find_table(at, "view", "weight", "view median")
    np.testing.assert_allclose(detail["weight"], out.weights[:, j])
    assert len(at.get("plotly_chart")) >= 3
    assert any("No injected outliers" in t for t in texts(at, "info"))


def test_weights_page_shows_each_views_share_of_the_weights(fitted_app):
    at = goto(fitted_app, "weights")
    no_trouble(at)
    data = at.session_state["data"]
    out = at.session_state["slots"]["fit"].latest.result
    expect = rmsc.inspection.view_weight_shares(
        out.weights, gamma=out.model.gamma, view_names=data.view_names,
        factors=out.model.view_factors_, scale=out.model.loss_scale_,
        n_features=[X.shape[1] for X in data.views])
    consensus, alone = f"{inspection.SHARE_LABEL} %", f"{inspection.P_SHARE_LABEL} %"
    table = find_table(at, consensus, alone, "samples at the cap %")
    assert table["view"].tolist() == list(data.view_names)
    np.testing.assert_allclose(table[consensus], [100 * e["share"] for e in expect])
    np.testing.assert_allclose(table["samples at the cap %"], [100 * e["at_cap"] for e in expect])
    np.testing.assert_allclose(table["mean weight"], [e["mean_weight"] for e in expect])
    assert table[consensus].sum() == pytest.approx(100)
    # the share of ΣP is P alone: each view's sum of P over the sum of all of P
    np.testing.assert_allclose(table[alone], 100 * out.weights.sum(axis=1) / out.weights.sum())
    message = rmsc.inspection.dominance_message(
        out.weights, gamma=out.model.gamma, view_names=data.view_names,
        factors=out.model.view_factors_, scale=out.model.loss_scale_,
        n_features=[X.shape[1] for X in data.views])
    if message is None:
        assert "No view carries most of the consensus weight." in texts(at, "caption")
    else:
        assert message in texts(at, "warning")
    keys = [c.proto.id for c in at.get("plotly_chart")]
    assert any("view_shares" in k for k in keys), keys


def test_weights_page_shows_trust_beside_each_views_own_quality(fitted_app):
    at = goto(fitted_app, "weights")
    no_trouble(at)
    job = at.session_state["slots"]["quality"].latest
    assert job is not None and job.wait(300), "the per-view runs did not finish"
    at.run()
    no_trouble(at)
    data, params = at.session_state["data"], at.session_state["params"]
    out = at.session_state["slots"]["fit"].latest.result
    quality = inspection.view_quality(list(data.views), params.resolved_clusters(data),
                                      data.labels, view_names=list(data.view_names),
                                      random_state=params.seed)
    shares, _ = dash.weight_shares(out, data)
    table = find_table(at, "own ACC %", "own eigengap")
    assert table["view"].tolist() == list(data.view_names)
    np.testing.assert_allclose(table["own ACC %"], [100 * q["acc"] for q in quality])
    np.testing.assert_allclose(table["own NMI %"], [100 * q["nmi"] for q in quality])
    np.testing.assert_allclose(table["own eigengap"], [q["eigengap"] for q in quality])
    np.testing.assert_allclose(table[f"{inspection.SHARE_LABEL} %"],
                               [100 * s["share"] for s in shares])
    trust = inspection.trust_vs_quality(shares, quality)
    assert trust.measure == "acc"  # Subspaces has labels
    assert trust.sentence in texts(at, "markdown")
    keys = [c.proto.id for c in at.get("plotly_chart")]
    assert any("trust_quality" in k for k in keys), keys


def test_affinity_page_reports_block_structure(fitted_app):
    at = goto(fitted_app, "affinity")
    no_trouble(at)
    data = at.session_state["data"]
    out = at.session_state["slots"]["fit"].latest.result
    table = find_table(at, "affinity", "within-class share %")
    assert table["affinity"].iloc[0] == "consensus (RMSC)"
    assert table["within-class share %"].iloc[0] == pytest.approx(
        100 * dash.within_group_mass(out.affinity, data.labels))
    # consensus, every view's Zᵛ of this fit, every view's k-NN graph
    assert len(table) == 1 + 2 * data.n_views
    Zs = out.model.view_representations(list(data.views))
    for v, name in enumerate(data.view_names):
        row = table[table["affinity"] == f"{name}: Zᵛ of this fit"]
        S = (np.abs(Zs[v]) + np.abs(Zs[v].T)) / 2
        assert row["within-class share %"].iloc[0] == pytest.approx(
            100 * dash.within_group_mass(S, data.labels))
    wrong = dash.mistakes(data.labels, out.labels)
    assert any(f"{int(wrong.sum())} of {data.n_samples} samples misclustered" in c
               for c in texts(at, "caption"))
    import json

    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"]
              for c in at.get("plotly_chart")]
    assert titles[1].startswith(f"{data.view_names[0]}: (|Zᵛ|+|Zᵛᵀ|)/2")
    grid = json.loads(at.get("plotly_chart")[2].proto.spec)
    assert grid["layout"]["meta"]["views"] == data.n_views  # every view side by side
    at.radio(key="w_aff_order").set_value("cluster").run()
    at.selectbox(key="w_aff_view").set_value(2).run()
    at.radio(key="w_aff_kind").set_value("knn").run()
    no_trouble(at)
    assert len(at.get("plotly_chart")) == 4
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"]
              for c in at.get("plotly_chart")]
    assert titles[1].startswith(f"{data.view_names[2]}: k-NN graph")


def test_theory_page_with_a_fit_and_a_gamma_slider(fitted_app):
    at = goto(fitted_app, "theory")
    no_trouble(at)
    assert len(at.latex) >= 5 and len(at.get("plotly_chart")) == 2
    # the defaults' scaled model, in the page's words, with the library's own numbers
    scaled = [m.value for m in at.markdown if "in its own unit" in m.value]
    assert scaled and "weights $c_v P_{vj}$" in " ".join(m.value for m in at.markdown)
    text = " ".join(m.value for m in at.markdown)
    assert f"(default {rmsc.rmsc.GAMMA:g}: a weight at most {rmsc.rmsc.GAMMA ** -0.5:g} times" in text
    assert f"less than {rmsc.solver.TOL:g} of its size" in text
    assert any(r"\ell_{vj}/s_v" in x.value for x in at.latex)
    at.select_slider(key="w_theory_gamma").set_value(0.01).run()
    no_trouble(at)


# ---------------------------------------------------------------------------
# Data: injection, upload, generator
# ---------------------------------------------------------------------------


def test_injecting_outliers_changes_the_mask_and_reset_restores(fitted_app):
    at = goto(fitted_app, "data")
    clean = at.session_state["clean"]
    view = clean.view_names[1]
    at.multiselect(key="w_out_views").set_value([view])
    at.slider(key="w_out_fraction").set_value(0.2)
    at.selectbox(key="w_out_kind").set_value("replace")
    submit = [b for b in at.button if b.label == "Inject"]
    submit[0].click().run()
    no_trouble(at)
    data = at.session_state["data"]
    assert data.outlier_mask is not None
    assert data.outlier_mask[1].sum() == round(0.2 * clean.n_samples)
    assert data.outlier_mask[[0, 2]].sum() == 0
    assert f"{view} {round(0.2 * clean.n_samples)}" in sidebar_text(at)
    assert at.query_params["outliers"].startswith(view)
    # the weights page marks them and scores them
    wait_fit(at)
    goto(at, "weights")
    no_trouble(at)
    auc = find_table(at, "score", "view", "roc_auc")
    from rmsc import outliers

    out = at.session_state["slots"]["fit"].latest.result
    expect = outliers.compare(outliers.all_scores(list(data.views), out, out.labels),
                              data.outlier_mask, data.view_names)
    expect = expect[expect["outliers"] > 0]
    # P, view inconsistency and the k-NN baseline, for the one corrupted view
    assert auc["score"].tolist() == expect["score"].tolist() == list(outliers.SCORES.values())
    assert auc["view"].tolist() == [view] * 3
    np.testing.assert_allclose(auc["roc_auc"], expect["roc_auc"])
    assert all(0 <= a <= 1 for a in auc["roc_auc"])
    goto(at, "data")
    at.button(key="w_reset_outliers").click().run()
    assert at.session_state["data"] is at.session_state["clean"]
    assert "injected outliers**: none" in sidebar_text(at)


def test_weights_page_shows_the_change_from_the_clean_fit(fitted_app):
    at = fitted_app
    clean_fit = at.session_state["slots"]["fit"].latest.result
    at = goto(at, "data")
    clean = at.session_state["clean"]
    at.multiselect(key="w_out_views").set_value([clean.view_names[0]])
    at.slider(key="w_out_fraction").set_value(0.1)
    at.selectbox(key="w_out_kind").set_value("replace")
    [b for b in at.button if b.label == "Inject"][0].click().run()
    wait_fit(at)
    goto(at, "weights")
    no_trouble(at)
    at.radio(key="w_weights_show").set_value("change from the clean fit (P / P clean)").run()
    no_trouble(at)
    # the clean fit of these parameters is in the cache already (the fixture fitted it)
    data = at.session_state["data"]
    out = at.session_state["slots"]["fit"].latest.result
    assert clean_fit.key == dash.fit_key(at.session_state["params"], clean)
    change = inspection.weight_change(out.weights, clean_fit.weights)
    summary = inspection.weight_change_summary(change, data.outlier_mask, data.view_names)
    assert summary["sentence"] in texts(at, "markdown")
    # the outliers lowered their own cells' weights more than the others'
    assert summary["injected_median"] < summary["clean_median"]
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert heat["colorbar"]["title"]["text"] == "P / P clean"
    pooled = inspection.heatmap_pool(change, data.labels, pool="min", relative=False,
                                     max_columns=dash.scale_plan(data.n_samples).weight_columns)
    z = heat["z"]  # float32 cells, sent as plotly's typed array (base64 bytes and a shape)
    z = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(
        [int(d) for d in str(z["shape"]).split(",")])
    np.testing.assert_allclose(z, pooled.values, rtol=1e-6)


def test_injecting_with_no_view_is_a_message(fitted_app):
    at = goto(fitted_app, "data")
    at.multiselect(key="w_out_views").set_value([])
    [b for b in at.button if b.label == "Inject"][0].click().run()
    no_trouble(at)
    assert any("at least one view" in e for e in texts(at, "error"))
    assert at.session_state["data"].outlier_mask is None


def test_a_failed_upload_keeps_the_dataset():
    at = open_app({"data": "Subspaces"})
    try:
        at.file_uploader(key="w_upload").set_value(("broken.mat", b"not a mat file", "application/octet-stream"))
        at.button(key="w_load_upload").click().run()
        no_trouble(at)
        errors = " ".join(texts(at, "error"))
        assert "Could not load broken.mat" in errors and "previous dataset" in errors
        assert at.session_state["clean"].name == "Subspaces"
    finally:
        cancel_jobs(at)


def test_uploading_a_paper_mat_file_loads_it(paper_mats):
    at = open_app({"data": "Subspaces"})
    try:
        raw = (paper_mats / "3sources.mat").read_bytes()
        at.file_uploader(key="w_upload").set_value(("3sources.mat", raw, "application/octet-stream"))
        at.selectbox(key="w_upload_pre").set_value("tfidf")
        at.button(key="w_load_upload").click().run()
        no_trouble(at)
        data = at.session_state["clean"]
        assert data.n_samples == 169 and data.n_views == 3 and data.n_clusters == 6
        assert "169" in sidebar_text(at)
        assert find_table(at, "view", "features", "storage").shape[0] == 3
    finally:
        cancel_jobs(at)


def unlabelled_npz():
    data = datasets.load_bundled("Subspaces")
    buf = io.BytesIO()
    np.savez(buf, **{f"view{v}": np.asarray(X) for v, X in enumerate(data.views)})
    return buf.getvalue()


def test_an_unlabelled_dataset_works_where_it_can_and_says_so_elsewhere():
    at = open_app({"data": "Subspaces"})
    try:
        at.file_uploader(key="w_upload").set_value(("nolabels.npz", unlabelled_npz(),
                                                    "application/octet-stream"))
        at.button(key="w_load_upload").click().run()
        no_trouble(at)
        assert at.session_state["clean"].labels is None
        assert any("no labels" in t for t in texts(at, "info"))
        goto(at, "solve")
        no_trouble(at)
        at.number_input(key="w_clusters").set_value(3).run()
        wait_fit(at)
        no_trouble(at)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["ACC"] == "no labels"
        for page in ("weights", "affinity", "compare", "sensitivity", "theory", "data"):
            goto(at, page)
            no_trouble(at)
        goto(at, "compare")
        assert any("needs labels" in t for t in texts(at, "info"))
    finally:
        cancel_jobs(at)


def test_the_synthetic_generator_and_bundled_switch():
    at = open_app({"data": "Subspaces"})
    try:
        at.number_input(key="w_syn_clusters").set_value(4)
        at.number_input(key="w_syn_per").set_value(20)
        at.text_input(key="w_syn_dims").set_value("10, 15")
        at.button(key="w_generate").click().run()
        no_trouble(at)
        data = at.session_state["clean"]
        assert data.n_samples == 80 and data.n_views == 2 and data.n_clusters == 4
        at.text_input(key="w_syn_dims").set_value("10, x")
        at.button(key="w_generate").click().run()
        no_trouble(at)
        assert any("Could not generate" in e for e in texts(at, "error"))
        assert at.session_state["clean"].n_samples == 80
        at.selectbox(key="w_bundled").set_value("Digit-small")
        at.button(key="w_load_bundled").click().run()
        no_trouble(at)
        assert at.session_state["clean"].name == "Digit-small"
        assert at.query_params["data"] == "Digit-small"
    finally:
        cancel_jobs(at)


def test_data_page_offers_every_bundled_set_and_loads_the_paper_text_sets():
    at = open_app({"data": "Subspaces"})
    try:
        assert at.selectbox(key="w_bundled").options == datasets.bundled_names()
        for name, n, views in (("3-Sources", 169, 3), ("Reuter", 1200, 5)):
            at.selectbox(key="w_bundled").set_value(name)
            at.button(key="w_load_bundled").click().run()
            no_trouble(at)
            data = at.session_state["clean"]
            assert data.name == name and (data.n_samples, data.n_views) == (n, views)
            assert at.query_params["data"] == name
            assert find_table(at, "view", "features", "storage").shape[0] == views
            cancel_jobs(at)
    finally:
        cancel_jobs(at)
    shared = open_app({"data": "3-Sources"})  # and by a shared link
    try:
        no_trouble(shared)
        assert shared.session_state["clean"].name == "3-Sources"
    finally:
        cancel_jobs(shared)


# ---------------------------------------------------------------------------
# Compare and Sensitivity
# ---------------------------------------------------------------------------


def test_compare_runs_in_the_background_and_fills_the_table(fitted_app):
    at = goto(fitted_app, "data")
    at.multiselect(key="w_out_views").set_value([at.session_state["clean"].view_names[0]])
    [b for b in at.button if b.label == "Inject"][0].click().run()
    goto(at, "compare")
    no_trouble(at)
    at.multiselect(key="w_cmp_methods").set_value(["RMSC", "SSC-AVG"]).run()
    at.button(key="w_cmp_run").click().run()
    job = at.session_state["slots"]["compare"].latest
    # every fit a part of its own (no two share a solve), spread over the workers
    assert isinstance(job._task, dash.RemoteParts) and len(job._task.parts) == 4
    assert job.wait(300)
    at.run()
    no_trouble(at)
    clean, dirty = [d.value for d in at.dataframe if "ACC %" in d.value.columns]
    assert clean["method"].tolist() == ["SSC-AVG", "RMSC"] == dirty["method"].tolist()
    tables = job.result
    assert clean["ACC %"].iloc[1] == (f"{100 * tables['clean']['acc_mean'].iloc[1]:.2f} ± "
                                      f"{100 * tables['clean']['acc_std'].iloc[1]:.2f}")
    assert "change (points)" in find_table(at, "method", "change (points)").columns
    assert len(at.get("plotly_chart")) == 3
    # by default each method ran at its own post-processing (SSC-AVG: the registry's plain
    # affinity; RMSC: the Solve page's), and each row says so; the rows' parameters are what ran
    name = dash.POSTPROCESSING_NAMES[at.session_state["params"].post]
    assert clean["post-processing"].tolist() == [dash.POSTPROCESSING_NAMES["none"], name]
    ssc = tables["clean"].set_index("method").loc["SSC-AVG", "params"]
    assert ssc["scale_columns"] is False
    assert not any(dash.SAME_POSTPROCESSING_NOTE in c.value for c in at.caption)
    # the same for all, on request: SSC-AVG gets the Solve page's, and the page says what
    # that does to methods whose coefficients have other scales
    at.radio(key="w_cmp_post").set_value("same").run()
    assert any(dash.SAME_POSTPROCESSING_NOTE in c.value for c in at.caption)
    at.button(key="w_cmp_run").click().run()
    job = at.session_state["slots"]["compare"].latest
    assert job.wait(300)
    at.run()
    no_trouble(at)
    clean = [d.value for d in at.dataframe if "ACC %" in d.value.columns][0]
    assert clean["post-processing"].tolist() == [name, name]
    ssc = job.result["clean"].set_index("method").loc["SSC-AVG", "params"]
    assert {k: ssc[k] for k in ("keep_mass", "top_k", "scale_columns")} == \
        at.session_state["params"].postprocessing


def test_compare_robustness_preset(fitted_app):
    at = goto(fitted_app, "compare")
    clean = at.session_state["clean"]
    at.radio(key="w_cmp_preset").set_value("robustness preset").run()
    no_trouble(at)
    assert at.multiselect(key="w_cmp_rob_views").value == list(clean.view_names[:2])
    at.multiselect(key="w_cmp_rob_views").set_value([clean.view_names[1]])
    at.multiselect(key="w_cmp_methods").set_value(["RMSC"]).run()
    assert "Run 9 fits" in at.button(key="w_cmp_run").label
    at.button(key="w_cmp_run").click().run()
    job = at.session_state["slots"]["compare"].latest
    assert job.wait(300)
    at.run()
    no_trouble(at)
    table = find_table(at, "method", "clean %")
    expect = dash.robustness_variants(clean, [clean.view_names[1]], random_state=0)
    assert list(job.result) == list(expect)
    assert table.columns.tolist() == ["method"] + [f"{name} %" for name in expect]
    assert table["method"].tolist() == ["RMSC"]
    assert table["clean %"].iloc[0] == pytest.approx(
        100 * job.result["clean"]["acc_mean"].iloc[0])
    assert len(at.get("plotly_chart")) == 1


def _label_seconds(label):
    """The figure a run button names, in seconds: "(about 2.5 min (…) …)" -> 150."""
    number, unit = label.split("(about ", 1)[1].split()[:2]
    return float(number) * {"s": 1, "min": 60, "h": 3600}[unit.rstrip(")")]


def test_compare_button_estimates_the_ticked_methods(fitted_app, monkeypatch):
    from rmsc.dashboard import estimates, pace

    # a slow machine's speed probe, so that the model's seconds are not all rounded to "1 s";
    # nothing else busy (each thread of a run would get a whole core)
    monkeypatch.setattr(estimates, "fastest_probe_seconds", lambda: 0.05)
    monkeypatch.setattr(pace.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    at = goto(fitted_app, "compare")
    fit = at.session_state["slots"]["fit"].latest.result
    at.multiselect(key="w_cmp_methods").set_value(["RMSC"]).run()
    no_trouble(at)
    # RMSC with the Solve page's parameters was measured there: its duration (idle: no more
    # than it took), one figure and a range at most 2x wide
    measured = fit.fit_time + fit.spectral_time
    label = at.button(key="w_cmp_run").label
    assert label.startswith("Run 1 fits (about ") and label.endswith(" on this machine now)")
    assert _label_seconds(label) <= _label_seconds(f"(about {pace.duration_text(measured)})")
    at.multiselect(key="w_cmp_methods").set_value(["RMSC", "SSC-AVG"]).run()
    with_ssc = at.button(key="w_cmp_run").label
    assert with_ssc.startswith("Run 2 fits (about ")
    # a second method never makes the run shorter
    assert _label_seconds(with_ssc) >= _label_seconds(label)


def test_a_sensitivity_run_started_before_solves_fit_stays_on_screen():
    # The default grid follows Solve's fit (β_max); the fit landing after the click moved the
    # defaults, reset the selection and with it the run's key, and the started run vanished.
    at = open_app({"data": "Subspaces"}, page="sensitivity")  # Solve's fit starts by itself
    try:
        fit = at.session_state["slots"]["fit"].latest
        basis = at.session_state["_sens_basis"]
        chosen = (at.multiselect(key="w_sens_lams").value,
                  at.multiselect(key="w_sens_betas").value)
        assert fit.active  # clicked before the fit lands
        at.button(key="w_sens_run").click().run()
        run = at.session_state["slots"]["sensitivity"].latest
        assert fit.wait(180)
        at.run()  # the redraw the landing fit causes
        no_trouble(at)
        assert at.session_state["_sens_basis"] != basis  # the defaults did move
        assert (at.multiselect(key="w_sens_lams").value,
                at.multiselect(key="w_sens_betas").value) == chosen
        assert run.wait(300)
        at.run()
        no_trouble(at)
        assert at.session_state["slots"]["sensitivity"].latest is run
        assert len(at.get("plotly_chart")) == 1  # the started run's grid is on screen
    finally:
        cancel_jobs(at)


def test_sensitivity_grid_and_views_on_demand(fitted_app):
    at = goto(fitted_app, "sensitivity")
    no_trouble(at)
    at.multiselect(key="w_sens_lams").set_value([0.3, 1.0])
    at.multiselect(key="w_sens_betas").set_value([0.01, 10.0]).run()
    at.button(key="w_sens_run").click().run()
    assert at.session_state["slots"]["sensitivity"].latest.wait(300)
    at.run()
    no_trouble(at)
    failed = [w for w in texts(at, "warning") if "gave no clustering" in w]
    # the library's reason in the page's words: "β = 10 is so large ...", no "beta=10"
    assert failed and "β = 10 is so large that the consensus Z* is all zero" in failed[0]
    assert "beta" not in failed[0] and "lam=" not in failed[0]
    df = at.session_state["slots"]["sensitivity"].latest.result
    assert len(df) == 4 and df.loc[df["beta"] == 10.0, "error"].notna().all()
    at.multiselect(key="w_views_methods").set_value(["RMSC"]).run()
    at.button(key="w_views_run").click().run()
    assert at.session_state["slots"]["views"].latest.wait(300)
    at.run()
    no_trouble(at)
    views = at.session_state["slots"]["views"].latest.result
    assert views["n_views"].tolist() == [1, 2, 3]
    assert len(at.get("plotly_chart")) == 2


# ---------------------------------------------------------------------------
# Solve: the label-free suggestion of λ and β
# ---------------------------------------------------------------------------


def test_suggest_then_apply_moves_the_sliders_and_fits_the_suggestion(fitted_app):
    import pandas as pd

    at = fitted_app
    data = at.session_state["data"]
    before = at.session_state["params"]
    at.button(key="w_suggest").click().run()
    job = at.session_state["slots"]["suggest"].latest
    assert job is not None and job.wait(300)
    at.run()
    no_trouble(at)
    run = job.result
    # the worker's run is the library's, with the Solve page's settings
    ref = dash.run_suggestion(data, before)
    pd.testing.assert_frame_equal(pd.DataFrame(run.suggestion.table),
                                  pd.DataFrame(ref.suggestion.table))
    assert run.suggestion.best == ref.suggestion.best and run.scores == ref.scores
    table = find_table(at, "λ", "β_rel", "eigengap", "suggested")
    assert len(table) == len(run.suggestion.table)
    assert table["suggested"].tolist() == [i == run.suggestion.best
                                           for i in range(len(table))]
    chosen = run.suggestion.table[run.suggestion.best]
    words = " ".join(m.value for m in at.markdown)
    assert f"λ = {chosen['lam']:g}" in words and "eigengap" in words
    assert f"k-means runs agreeing at ARI {chosen['agreement']:.3f}" in words  # the criterion
    assert any(f"ACC {100 * run.scores['acc_mean']:.2f}%" in c for c in texts(at, "caption"))
    assert at.session_state["params"] == before  # nothing moves before "apply"
    at.button(key="w_suggest_apply").click().run()
    no_trouble(at)
    p = at.session_state["params"]
    assert p == dash.apply_suggestion(before, run)
    # β = auto with the suggested β_rel (not the absolute β it gave on these data)
    assert p.resolved_lam == chosen["lam"] and p.beta == dash.AUTO
    assert p.resolved_beta_rel == chosen["beta_rel"] == run.suggestion.params["beta_rel"]
    assert at.select_slider(key="w_lam").value == chosen["lam"]
    assert at.radio(key="w_beta_mode").value == dash.AUTO
    assert at.select_slider(key="w_beta_rel").value == chosen["beta_rel"]
    # ... and the browser is told: a slider on screen drawn again from its key alone keeps its
    # old value in the browser (its id is its key), which the browser's next rerun sends
    # back, undoing the suggestion (the sidebar and URL showed it for a moment, then went
    # back): λ, if the suggestion moved it, and the way β is set (fixed -> auto) are sent
    # their new values; β_rel, not on screen before (β was absolute), starts from the new value
    assert before.beta != dash.AUTO
    if before.resolved_lam != chosen["lam"]:
        assert at.select_slider(key="w_lam").proto.set_value
    assert at.radio(key="w_beta_mode").proto.set_value
    rel = at.select_slider(key="w_beta_rel")
    assert rel.proto.options[int(rel.proto.default[0])] == f"{chosen['beta_rel']:g}"
    assert f"β = auto (β_rel {chosen['beta_rel']:g})" in sidebar_text(at)
    for name in ("lam", "beta", "beta_rel"):  # none at the default; the absolute β has gone
        assert (at.query_params.get(name) or None) == p.to_query().get(name)
    assert "beta" not in p.to_query()
    assert any("sliders are at the suggestion" in s for s in texts(at, "success"))
    # the normal fit of the new parameters runs, and it is the suggested setting
    assert at.session_state["slots"]["fit"].latest.key == dash.fit_key(p, data)
    wait_fit(at)
    no_trouble(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ACC"] == f"{100 * run.scores['acc_mean']:.2f}%"


def test_a_suggestion_with_no_usable_setting_is_a_message_and_loses_nothing():
    from rmsc.datasets import MultiViewDataset

    # all-zero views: no setting links any sample (rmsc.DegenerateSolutionError in every one)
    data = MultiViewDataset(name="Zeros", views=[np.zeros((30, 5)), np.zeros((30, 4))],
                            labels=np.repeat([0, 1, 2], 10), view_names=("A", "B"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["clean"] = data
    at.session_state["autorun"] = False
    at.run()
    goto(at, "solve")
    try:
        before = at.session_state["params"]
        at.button(key="w_suggest").click().run()
        assert at.session_state["slots"]["suggest"].latest.wait(300)
        at.run()
        no_trouble(at)
        assert any(e.startswith("None of the 8 settings") for e in texts(at, "error"))
        assert any("Nothing changed" in c for c in texts(at, "caption"))
        assert at.session_state["params"] == before
        assert at.session_state["data"].fingerprint == data.fingerprint
        assert not [b for b in at.button if b.key == "w_suggest_apply"]
    finally:
        cancel_jobs(at)


# ---------------------------------------------------------------------------
# At scale: subsampled scatter, pooled images, binned weights, notices
# ---------------------------------------------------------------------------


def large_dataset_and_result(n=6000, c=10, seed=0):
    """A 6000-sample dataset and a made-up fit result (the pages only draw it)."""
    import scipy.sparse as sp

    from rmsc.datasets import MultiViewDataset

    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(c), n // c)
    centers = rng.standard_normal((c, 8))
    views = [centers[labels] @ rng.standard_normal((8, d)) + 0.3 * rng.standard_normal((n, d))
             for d in (12, 20)]
    data = MultiViewDataset(name="Large", views=views, labels=labels, view_names=("A", "B"))
    params = dash.Params()
    rows = rng.integers(0, n, 20 * n)
    cols = (rows // (n // c)) * (n // c) + rng.integers(0, n // c, rows.size)
    Z = sp.csr_matrix((rng.random(rows.size), (rows, cols)), shape=(n, n))
    Z.setdiag(0)
    Z.eliminate_zeros()
    S = sp.csr_matrix((abs(Z) + abs(Z.T)) / 2)
    result = dash.FitResult(
        key=dash.fit_key(params, data), params=params, dataset_name="Large", n_clusters=c,
        labels=labels.copy(), label_runs=np.tile(labels, (20, 1)),
        weights=rng.uniform(1, 2, (2, n)), consensus=Z, affinity=S,
        embedding=np.eye(c)[labels] + 0.01 * rng.standard_normal((n, c)),
        objective=np.linspace(10, 5, 30), terms={}, objective_init=12.0, n_iter=30,
        converged=True, stopped_early=False, fit_time=1.0, spectral_time=0.1, beta_max=5.0,
        scores=rmsc.evaluate_runs(labels, np.tile(labels, (2, 1))),
        chosen_scores=rmsc.evaluate(labels, labels), diagnostics=())
    return data, result


def chart_sizes(at):
    return [len(c.proto.spec) for c in at.get("plotly_chart")]


def test_a_large_dataset_switches_to_summaries_with_a_notice():
    import sys

    sys.path.insert(0, str(ROOT))
    import ui

    data, result = large_dataset_and_result()
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["clean"] = data
    at.session_state["autorun"] = False
    at.run()
    ui.result_cache().put(result.key, result)
    no_trouble(at)
    assert any("showing a random 3,000 of 6,000" in c for c in texts(at, "caption"))
    assert max(chart_sizes(at)) < 2_000_000
    goto(at, "weights")
    no_trouble(at)
    assert any(f"each of the {dash.MAX_WEIGHT_COLUMNS} columns shows the lowest weight" in c
               for c in texts(at, "caption"))
    assert max(chart_sizes(at)) < 2_000_000
    goto(at, "affinity")
    no_trouble(at)
    assert any("averaged in blocks" in c for c in texts(at, "caption"))
    assert any("Showing 3,000 of 6,000" in c for c in texts(at, "caption"))
    assert any("shown by their k-NN graphs only" in c for c in texts(at, "caption"))
    import json

    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    pooled = [s for s in specs if (s.get("layout", {}).get("meta") or {}).get("pool")]
    assert len(pooled) == 2 and all(s["layout"]["meta"]["side"] <= 500 for s in pooled)
    assert max(chart_sizes(at)) < 2_000_000  # never n² cells as JSON
    goto(at, "theory")
    no_trouble(at)
    goto(at, "solve")
    no_trouble(at)
    assert {m.label: m.value for m in at.metric}["ACC"] == "100.00%"


@pytest.mark.slow
def test_twenty_thousand_generated_samples_never_hang_a_page():
    """The Data page's generator at 20,000 samples: every page draws, summarised, while
    the fit runs in the background and after it. β = 1000 empties Z* at this size, which
    the pages explain (the default β follows the data and fits it: benchmarks/
    check_defaults.py)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["beta"] = "1000"
    at.run()
    at.number_input(key="w_syn_clusters").set_value(10)
    at.number_input(key="w_syn_per").set_value(2000)
    at.button(key="w_generate").click().run()
    try:
        no_trouble(at)
        assert at.session_state["data"].n_samples == 20_000
        assert any("showing a random 3,000 of 20,000" in c for c in texts(at, "caption"))
        assert max(chart_sizes(at)) < 2_000_000
        job = at.session_state["slots"]["fit"].latest
        for page in ("solve", "weights", "affinity", "theory", "data"):
            goto(at, page)  # while the fit runs
            no_trouble(at)
        assert job.wait(300)
        for page in ("solve", "weights", "affinity"):
            goto(at, page)
            no_trouble(at)
            assert any("Z*" in e and "Try β = " in e and "beta" not in e
                       for e in texts(at, "error")), page
        goto(at, "theory")
        no_trouble(at)
        assert "Fit failed (see Solve)." in texts(at, "error")  # the sidebar
    finally:
        cancel_jobs(at)
