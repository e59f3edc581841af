"""The Compare and Sensitivity pages with streamlit's AppTest (no browser), mostly on the bundled "Subspaces"
teaching set opened through the URL as a user would share it: runs in the background,
the robustness preset, the time estimate, the grid and the number-of-views chart."""

import pytest

from rmsc import dashboard as dash

from tests.app_support import (
    cancel_jobs, find_table, goto, no_trouble, open_app, texts,
)
from tests.support import scoring_seconds

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")


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
    monkeypatch.setattr(pace, "runnable_now", lambda *a, **k: 0.0)
    at = goto(fitted_app, "compare")
    fit = at.session_state["slots"]["fit"].latest.result
    at.multiselect(key="w_cmp_methods").set_value(["RMSC"]).run()
    no_trouble(at)
    # RMSC with the Solve page's parameters was measured there: its duration (idle: no more
    # than it took), then its scoring against the labels (Subspaces: 150 samples, 3 clusters,
    # at the probe's 0.05 s); one figure and a range at most 2x wide
    measured = fit.fit_time + fit.spectral_time + scoring_seconds(150, 3, 0.05)
    label = at.button(key="w_cmp_run").label
    assert label.startswith("Run 1 fits (about ") and label.endswith(" on this machine now)")
    assert _label_seconds(label) <= _label_seconds(f"(about {pace.duration_text(measured)})")
    # and the scoring is charged: never less than it alone
    alone = scoring_seconds(150, 3, 0.05)
    assert _label_seconds(label) >= _label_seconds(f"(about {pace.duration_text(alone)})")
    at.multiselect(key="w_cmp_methods").set_value(["RMSC", "SSC-AVG"]).run()
    with_ssc = at.button(key="w_cmp_run").label
    assert with_ssc.startswith("Run 2 fits (about ")
    # a second method never makes the run shorter
    assert _label_seconds(with_ssc) >= _label_seconds(label)


def test_a_sensitivity_run_started_before_solves_fit_stays_on_screen(monkeypatch):
    # The default grid follows Solve's fit (β_max); the fit landing after the click moved the
    # defaults, reset the selection and with it the run's key, and the started run vanished.
    import ui

    # Solve's fit starts by itself after the first page's start delay (3 s), which the two
    # runs of opening the page can outlast on a loaded machine, and a fit of Subspaces then
    # lands before the click. Here the delay outlasts any test; the fit is let go (as the
    # delay running out would) once the run is clicked.
    monkeypatch.setattr(ui.fitting, "FIRST_FIT_DELAY", 3600.0)
    at = open_app({"data": "Subspaces"}, page="sensitivity")
    try:
        fit = at.session_state["slots"]["fit"].latest
        basis = at.session_state["_sens_basis"]
        chosen = (at.multiselect(key="w_sens_lams").value,
                  at.multiselect(key="w_sens_betas").value)
        assert fit.active  # clicked before the fit lands
        at.button(key="w_sens_run").click().run()
        run = at.session_state["slots"]["sensitivity"].latest
        fit.hurry()
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


def test_a_run_clicked_just_after_the_solve_fit_ended_is_not_dropped(fitted_app):
    # The sidebar's status saw Solve's fit running in the page's last run (it keeps the
    # fit's key), and the fit has ended since. The run of the click draws the sidebar as
    # finished without rerunning the page: a rerun would drop the click (a button is True
    # for one run only), and Compare's Run would do nothing.
    at = goto(fitted_app, "compare")
    no_trouble(at)
    at.multiselect(key="w_cmp_methods").set_value(["SSC-AVG"]).run()
    fit = at.session_state["slots"]["fit"].latest
    assert fit is not None and not fit.active
    at.session_state["_status_was_active"] = fit.key  # what the status kept while it ran
    at.button(key="w_cmp_run").click().run()
    no_trouble(at)
    assert at.session_state["slots"]["compare"].latest is not None  # the click started it
    assert at.session_state["_status_was_active"] is None
    assert any(s.value.startswith("Fitted on") for s in at.sidebar.success)
