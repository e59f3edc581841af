"""The Solve page's label-free suggestion of λ and β with streamlit's AppTest (no browser), mostly on the bundled "Subspaces"
teaching set opened through the URL as a user would share it: applied,
it moves the sliders and fits; with no usable setting it is a message and loses nothing."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rmsc import dashboard as dash

from tests.app_support import (
    APP, cancel_jobs, find_table, goto, no_trouble, sidebar_text, texts, wait_fit,
)

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")


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
