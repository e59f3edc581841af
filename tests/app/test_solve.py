"""The Solve page and the pages that show its fit (Weights, Affinity, Theory) with streamlit's AppTest (no browser), mostly on the bundled "Subspaces"
teaching set opened through the URL as a user would share it:
the fit the library computes, the sliders and the URL, stopping, bad parameters."""

import dataclasses
import sys
import time

import cloudpickle

import numpy as np
import pytest

import rmsc
from rmsc import dashboard as dash
from rmsc import inspection
from rmsc.dominance import directions_text, dominance_message
from rmsc.preprocessing import spread_directions

from tests.app_support import (
    ROOT, cancel_jobs, expected_fit, find_table, goto, no_trouble, open_app, set_beta,
    sidebar_text, stored_subspaces_fit_with_damaged_weights, texts, wait_fit,
)

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")


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
    # the scores' table, drawn as text: its ACC row is the library's mean and std
    table = [m.value for m in at.markdown if m.value.startswith("| metric | mean % |")]
    assert len(table) == 1
    assert (f"| ACC | {100 * scores['acc_mean']:.2f} | {100 * scores['acc_std']:.2f} |"
            in table[0])
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
    # On opening, the result and its objective curve only; the section below it names the
    # rest, and draws it when opened (as a click on it does).
    keys = [c.proto.id for c in at.get("plotly_chart")]
    assert any("objective" in k for k in keys) and len(keys) == 1, keys
    details = [e.label for e in at.expander if e.label.startswith("Convergence details")]
    assert len(details) == 1 and "the clustering along the iterations" in details[0], details
    assert any("**Convergence details** (opened on demand)" in t for t in texts(at, "markdown"))
    at.session_state["solve_details"] = True
    at.run()
    no_trouble(at)
    # the trace was recorded on the worker and came back with the result: rows every
    # PAGE_TRACE_EVERY iterations, the fit's own clustering last
    assert out.trace and out.trace[-1]["final"]
    assert out.trace[-1]["iteration"] == out.n_iter
    assert out.trace[-1]["acc"] == pytest.approx(100 * out.scores["acc_mean"])
    keys = [c.proto.id for c in at.get("plotly_chart")]
    assert any("clustering_trace" in k for k in keys), keys
    assert any("view_weights" in k for k in keys), keys
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


def _chart_spec(at, key):
    """The JSON the page sent for its chart keyed ``key`` (not the live one)."""
    specs = [c.proto.spec for c in at.get("plotly_chart")
             if key in c.proto.id and "live_" not in c.proto.id]
    assert len(specs) == 1, [c.proto.id for c in at.get("plotly_chart")]
    return specs[0]


def test_a_fits_figures_are_built_once_and_drawn_from_its_own_result(fitted_app, monkeypatch):
    """The Solve page builds a fit's figures once per server (ui.result_figures): a rerun,
    or a slider moved back to a fitted setting, draws them without building them again,
    and what it draws is the figure of the result on screen."""
    import plotly.io

    from rmsc import figures

    sys.path.insert(0, str(ROOT))
    import ui

    built = []
    real = figures.objective_figure

    def counted(*a, **k):
        # Only the figures built for a finished result count: while a fit runs, the live
        # chart draws its progress (as often as the page polls, more under load).
        if sys._getframe(1).f_code.co_name == "_result_figures":
            built.append(a)
        return real(*a, **k)

    monkeypatch.setattr(figures, "objective_figure", counted)
    at = fitted_app.run().run()
    assert built == []  # drawn twice more from the figures built for it
    first = at.session_state["slots"]["fit"].latest.result
    set_beta(at, 0.03)
    wait_fit(at)
    assert len(built) == 1  # the new fit's
    set_beta(at, 0.01)
    no_trouble(at)
    assert len(built) == 1  # back to the first fit: its figures, not built again
    shown = _chart_spec(at, "objective")
    expected = real(list(zip(range(1, first.n_iter + 1), first.objective)),
                    max_iter=first.params.max_iter)
    assert shown == plotly.io.to_json(expected, validate=False)
    # a run of the same key stopped early (shown, never cached) gets figures of its own
    stopped = dataclasses.replace(first, n_iter=first.n_iter - 1,
                                  objective=first.objective[:-1],
                                  fit_time=first.fit_time / 2, stopped_early=True)
    full_fig = ui.result_figures(first, at.session_state["data"].view_names)[0]
    stopped_fig = ui.result_figures(stopped, at.session_state["data"].view_names)[0]
    assert len(stopped_fig.data[0].x) == first.n_iter - 1 == len(full_fig.data[0].x) - 1


def test_the_next_slider_steps_are_fitted_while_a_result_is_on_screen(fitted_app, monkeypatch):
    import ui

    monkeypatch.setenv(dash.PREFETCH_ENV, "1")
    try:
        _next_slider_steps_are_fitted(fitted_app, monkeypatch)
    finally:
        # The prefetches this test left (the last result's neighbours) end with it: a
        # prefetch that ends starts the next queued one, whatever the environment says now,
        # and the file's later tests would share the workers with them.
        ui.prefetcher().yield_workers()


def _next_slider_steps_are_fitted(fitted_app, monkeypatch):
    import ui

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
    pre, calls, running = ui.prefetcher(), [], []
    give_back = pre.yield_workers

    def yield_workers(keep=None):
        calls.append(keep)
        running.append([j for j in pre.running if j.active])  # unfinished when asked
        return give_back(keep=keep)

    monkeypatch.setattr(pre, "yield_workers", yield_workers)
    set_beta(at, dash.BETA_GRID[0])
    far_params = at.session_state["params"]
    far = dash.fit_key(far_params, data)
    # before the fit starts (and once more after: a step it had joined and left gives way)
    assert calls[:1] == [far] and set(calls) == {far}
    # every prefetch under way then (q's neighbours, started by the draw above) gave way
    assert all(j.cancelled for j in running[0] if j.key != far), running[0]
    # What runs now can only be the new result's own neighbours: a quick fit can end within
    # this very run (its page then draws the result and prefetches around it), which a
    # loaded machine's slower page makes likelier; never a prefetch of before the move.
    now = {j.key for j in pre.running}
    assert not now or (far in ui.result_cache() and now <= {
        dash.fit_key(n, data) for n in dash.slider_neighbors(far_params)}), now
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
    dask_workers = dash.default_workers()
    n = dask_workers.limits()["workers"]
    holders = [dash.Job(("hold", i), dash.Remote(occupy_worker), label="hold",
                        sender=dash.DaskSender(dask_workers)).start() for i in range(n)]
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
        # two iterations done (a loaded machine can take a while to start the fit: the
        # Stop must not arrive before it, which a bound that went on silently allowed)
        while len(job.snapshot().history) < 2:
            assert time.time() - t0 < 180, "the fit did not start"
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
    # the message, with the views' spread: the reason a dominant view is easy to rebuild
    message = dominance_message(
        out.weights, gamma=out.model.gamma, view_names=data.view_names,
        factors=out.model.view_factors_, scale=out.model.loss_scale_,
        n_features=[X.shape[1] for X in data.views],
        spread=[spread_directions(X) for X in data.views])
    if message is None:
        assert "No view carries most of the consensus weight." in texts(at, "caption")
    else:
        assert message in texts(at, "warning")
    keys = [c.proto.id for c in at.get("plotly_chart")]
    assert any("view_shares" in k for k in keys), keys


def test_weights_page_says_why_a_dominant_view_draws_the_weight():
    # Digit-small (ten iterations): MOR carries most of the weight and its samples spread
    # along the fewest directions, so the message gives that reason with the numbers the
    # library measures on the same data (the library's sentence, rmsc.dominance)
    at = open_app({"data": "Digit-small", "max_iter": "10"}, page="solve")
    try:
        wait_fit(at)
        at = goto(at, "weights")
        no_trouble(at)
        data = at.session_state["data"]
        out = at.session_state["slots"]["fit"].latest.result
        spread = [spread_directions(X) for X in data.views]
        facts = dash.weight_dominance(out, data, spread)
        assert facts is not None and facts["view"] == "MOR"
        reason = directions_text(facts)
        assert reason.startswith("MOR's samples spread along few directions (it has 6 "
                                 "features)")
        (warning,) = texts(at, "warning")
        assert warning == dash.weight_shares(out, data, spread)[1]
        assert warning.endswith(" " + reason) and "fewest features" not in warning
    finally:
        cancel_jobs(at)


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


def test_a_download_that_finds_its_stored_result_damaged_says_so_and_fits_again(
        tmp_path, monkeypatch):
    # A restarted server shows a result from the disk cache without reading its affinity;
    # the "affinity (.npz)" button reads it when clicked, in Streamlit's thread for deferred
    # downloads (MediaFileManager.execute_deferred), and its file turns out damaged then.
    import io
    import json

    import scipy.sparse as sp
    import streamlit as st
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.media_file_storage import MediaFileStorageError

    from rmsc._deferred import unread
    from rmsc.dashboard import store
    from tests.support import damage_file

    monkeypatch.setenv(store.CACHE_DIR_ENV, str(tmp_path / "results"))
    monkeypatch.setattr(store, "LAZY_BYTES", 4096)  # Subspaces' Z* and affinity count as large
    deferred = {}  # file name -> (manager, id, maker) of the newest run's download buttons
    add_deferred = MediaFileManager.add_deferred

    def recorded(self, fn, mimetype, coordinates, file_name=None, element_id=""):
        file_id = add_deferred(self, fn, mimetype, coordinates, file_name=file_name,
                               element_id=element_id)
        deferred[file_name] = (self, file_id, fn)
        return file_id
    monkeypatch.setattr(MediaFileManager, "add_deferred", recorded)

    query = {"data": "Subspaces", "beta": "0.01"}
    first = open_app(query, page="solve")
    wait_fit(first)
    shown = {m.label: m.value for m in first.metric}
    cancel_jobs(first)
    st.cache_resource.clear()  # the server restarted: its memory is gone, the folder kept
    at = open_app(query, page="solve")
    no_trouble(at)
    assert at.session_state["slots"]["fit"].latest is None  # from disk, nothing fitted
    assert {m.label: m.value for m in at.metric} == shown
    import ui

    (kept,) = [v for v in ui.result_cache()._items.values() if isinstance(v, dash.FitResult)]
    assert "affinity" in unread(kept)
    data, params = at.session_state["data"], at.session_state["params"]
    (path,) = (tmp_path / "results").glob("*.npz")
    with np.load(path, allow_pickle=False) as z:  # every array read on demand, damaged
        header = json.loads(str(z["__header__"][()]))
        insides = [z[n].tobytes() for n in header["deferred"]]
    for inside in insides:
        damage_file(path, "flipped", inside)
    manager, file_id, _ = deferred["rmsc_affinity.npz"]
    with pytest.raises(MediaFileStorageError) as failed:  # the browser: "Failed to generate"
        manager.execute_deferred(file_id)
    assert isinstance(failed.value.__cause__, dash.DownloadFailed)  # ours, not a traceback's
    assert not path.exists()  # discarded
    # the page's next run (the guard asked the session for it) says what happened and what
    # to do, and fits again; the data and the parameters are as they were
    at.run()
    no_trouble(at)
    warned = [w for w in texts(at, "warning") if "affinity (.npz)" in w]
    assert len(warned) == 1 and "damaged" in warned[0] and "fits these settings again" in \
        warned[0], texts(at, "warning")
    assert at.session_state["slots"]["fit"].latest is not None  # a miss: fitted again
    assert at.session_state["data"] is data and at.session_state["params"] == params
    wait_fit(at)
    no_trouble(at)
    again = {m.label: m.value for m in at.metric}
    assert again.pop("time") and again == {k: v for k, v in shown.items() if k != "time"}
    assert not any("affinity (.npz)" in w for w in texts(at, "warning"))  # said once
    fresh = at.session_state["slots"]["fit"].latest.result
    made = deferred["rmsc_affinity.npz"][2]()  # the new result's button: the file is made
    assert (sp.load_npz(io.BytesIO(made)) != fresh.affinity).nnz == 0


@pytest.mark.parametrize("page", ["solve", "theory"])
def test_a_page_that_finds_the_stored_weights_damaged_says_so_and_fits_again(
        page, tmp_path, monkeypatch):
    # A restarted server shows a result from the disk cache. Its weights P are an array read
    # on demand (at the store's threshold, from about 22k samples × 6 views; lowered here so
    # that Subspaces' P counts), read when Solve's weights chart or Theory's σ chart is drawn,
    # outside the pages' require_result, and its file turns out damaged then.
    query = {"data": "Subspaces", "beta": "0.01"}
    first, path = stored_subspaces_fit_with_damaged_weights(tmp_path, monkeypatch, query)
    shown = {m.label: m.value for m in first.metric}
    at = open_app(query, page=page)
    no_trouble(at)  # no traceback
    assert not path.exists()  # discarded
    warned = [w for w in texts(at, "warning") if "could not be shown" in w]
    assert len(warned) == 1 and "damaged" in warned[0] and \
        "fits these settings again" in warned[0], texts(at, "warning")
    assert at.session_state["slots"]["fit"].latest is not None  # a miss: fitted again
    data, params = at.session_state["data"], at.session_state["params"]
    assert data.name == "Subspaces" and params.to_query()["beta"] == "0.01"  # kept
    wait_fit(at)
    no_trouble(at)
    assert not any("could not be shown" in w for w in texts(at, "warning"))  # said once
    if page == "solve":
        again = {m.label: m.value for m in at.metric}
        assert again.pop("time") and again == {k: v for k, v in shown.items() if k != "time"}
    else:
        assert at.session_state["data"] is data
        assert "The current fit" in " ".join(m.value for m in at.markdown)
