"""The model of the views' shares (``RMSC(view_balance=...)``) on the dashboard, with
streamlit's AppTest (no browser), on the bundled "Subspaces" teaching set: the Solve page's
select box, the URL and sidebar, the fit it asks for, and the Weights page naming the model
whose weights it shows."""

import numpy as np
import pytest

from rmsc import dashboard as dash
from rmsc import inspection

from tests.app_support import (
    cancel_jobs, expected_fit, find_table, goto, no_trouble, open_app, sidebar_text, texts,
    wait_fit,
)

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")

SHARE = f"{inspection.SHARE_LABEL} %"


def _shares(est, data):
    return [s["share"] for s in inspection.view_weight_shares(
        est.weights_, gamma=est.gamma, view_names=data.view_names,
        factors=est.view_factors_, scale=est.loss_scale_,
        n_features=[X.shape[1] for X in data.views])]


def test_the_view_balance_select_box_fits_that_model_and_weights_names_it(fitted_app):
    at = fitted_app
    box = at.selectbox(key="w_view_balance")
    assert list(box.options) == [dash.view_balance_name(dash.balance_from_widget(v))
                                 for v in dash.VIEW_BALANCE_CHOICES]
    assert box.value == dash.NO_BALANCE  # the default: the paper's P-step
    default_fit = at.session_state["slots"]["fit"].latest.result
    box.set_value("balanced").run()
    p = at.session_state["params"]
    assert p.view_balance == "balanced" and at.query_params["view_balance"] == "balanced"
    assert "view balance: balanced" in sidebar_text(at)
    assert dash.view_balance_words("balanced")[1:] in " ".join(texts(at, "caption"))
    wait_fit(at)
    no_trouble(at)
    out = at.session_state["slots"]["fit"].latest.result
    # the fit received the model, under a key of its own
    assert out.model.view_balance == "balanced" and out.params.view_balance == "balanced"
    assert ("view_balance", "balanced") in out.key and out.key != default_fit.key
    data = at.session_state["data"]
    est, scores = expected_fit(p, data)
    np.testing.assert_allclose(out.weights, est.weights_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out.weights.sum(axis=1), data.n_samples, rtol=1e-8)
    assert {m.label: m.value for m in at.metric}["ACC"] == f"{100 * scores['acc_mean']:.2f}%"
    # the Weights page names the model and shows its shares: the library's for that model,
    # not the default's
    at = goto(at, "weights")
    no_trouble(at)
    assert dash.view_balance_sentence("balanced") in texts(at, "markdown")
    assert "caps no weight" in " ".join(texts(at, "markdown"))
    table = find_table(at, SHARE)
    np.testing.assert_allclose(table[SHARE], [100 * s for s in _shares(est, data)])
    assert not np.allclose(table[SHARE], [100 * s for s in _shares(default_fit.model, data)])
    # back to none: the default's fit, from the cache, and the page says so
    at = goto(at, "solve")
    at.selectbox(key="w_view_balance").set_value(dash.NO_BALANCE).run()
    assert at.session_state["params"] == dash.Params(beta=0.01)
    assert "view_balance" not in at.query_params
    assert dash.fit_key(at.session_state["params"], data) == default_fit.key
    wait_fit(at)
    at = goto(at, "weights")
    no_trouble(at)
    assert dash.view_balance_sentence(None) in texts(at, "markdown")


def test_consensus_from_the_url_gives_every_view_the_same_share():
    at = open_app({"data": "Subspaces", "beta": "0.01", "view_balance": "consensus"},
                  page="solve")
    try:
        assert at.selectbox(key="w_view_balance").value == "consensus"
        wait_fit(at)
        at = goto(at, "weights")
        no_trouble(at)
        data = at.session_state["data"]
        est, _ = expected_fit(at.session_state["params"], data)
        assert est.view_balance == "consensus"
        table = find_table(at, SHARE)
        np.testing.assert_allclose(table[SHARE], [100 * s for s in _shares(est, data)])
        np.testing.assert_allclose(table[SHARE], 100 / data.n_views, rtol=1e-6)
        assert dash.view_balance_sentence("consensus") in texts(at, "markdown")
    finally:
        cancel_jobs(at)


def test_a_bad_view_balance_in_the_url_is_a_message_and_the_rest_is_kept():
    at = open_app({"data": "Subspaces", "beta": "0.01", "view_balance": "sideways"})
    try:
        no_trouble(at)
        shown = " ".join(texts(at, "warning"))
        assert "Ignored view_balance='sideways' from the URL: view balance must be" in shown
        p = at.session_state["params"]
        assert p.view_balance is None and p.beta == 0.01
        assert at.session_state["data"].name == "Subspaces"
    finally:
        cancel_jobs(at)
