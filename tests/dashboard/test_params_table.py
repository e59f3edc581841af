"""The dashboard's parameters table (rmsc.dashboard.params.SETTINGS) and the Solve page's
rules derived from it, without a browser."""

import numbers

import numpy as np
import pytest

import rmsc
from tests.support import union_of_subspaces
from rmsc import dashboard as dash
from rmsc._validation import Interval, Options, Param
from rmsc.datasets import MultiViewDataset


@pytest.fixture
def small():
    views, labels = union_of_subspaces(n_per=15, n_clusters=3, dims=(8, 12), seed=1)
    return MultiViewDataset(name="small", views=views, labels=labels, view_names=("A", "B"))


# ---------------------------------------------------------------------------
# Adding a parameter: one row (and its widget on the page)
# ---------------------------------------------------------------------------

#: A setting of the dashboard's own, with its own rule, passed to the estimator under a
#: keyword of another name.
TOY_OWN = dash.Setting("alpha", "float", "toy_alpha", default=0.5, label="α",
                       rule=Param(Interval(numbers.Real, 0, 1, closed="right"),
                                  what="a number in (0, 1]"),
                       widget="w_alpha", summary=lambda p: f"α = {p.alpha:g}")
#: An estimator parameter the pages did not show: its rule and default are the estimator's.
TOY_ESTIMATOR = dash.Setting("n_init", "int", "n_init", widget="w_n_init", line=0,
                             summary=lambda p: f"{p.n_init} k-means runs")


def test_a_new_row_reaches_params_url_summary_estimator_and_key(small):
    Toy = dash.params_class(dash.SETTINGS + (TOY_OWN, TOY_ESTIMATOR))
    p = Toy()
    # the field and its default: the row's own, or the estimator's (no copy of it)
    assert p.alpha == 0.5 and p.n_init == rmsc.RMSC().n_init
    assert Toy(alpha="0.25").alpha == 0.25 and Toy(n_init=3.0).n_init == 3  # read as the kind
    # its rule, in the pages' words: the row's, or the estimator's declared one
    with pytest.raises(ValueError, match="α must be a number in"):
        Toy(alpha=2)
    with pytest.raises(ValueError, match="n_init must be an integer >= 1"):
        Toy(n_init=0)
    # the URL: only values off the defaults, and back
    q = Toy(alpha=0.25, n_init=3).to_query()
    assert q == {"alpha": "0.25", "n_init": "3"} and Toy().to_query() == {}
    back, problems = Toy.from_query(q)
    assert back == Toy(alpha=0.25, n_init=3) and not problems
    back, problems = Toy.from_query({"alpha": "7"})
    assert back.alpha == 0.5 and problems and problems[0].startswith("Ignored alpha='7'")
    # the summary: each row's words on its line
    lines = Toy(alpha=0.25, n_init=3).summary()
    assert lines[0].endswith(", 3 k-means runs") and "α = 0.25" in lines[1]
    assert lines[2] == dash.Params().summary()[2]
    # what it means to the estimator, and so the fit's key
    kw = dash.estimator_params(Toy(alpha=0.25, n_init=3), small)
    assert kw["toy_alpha"] == 0.25 and kw["n_init"] == 3
    assert {k: v for k, v in kw.items() if k not in ("toy_alpha", "n_init")} == \
        dash.estimator_params(dash.Params(), small)
    keys = {dash.fit_key(Toy(alpha=a, n_init=n), small) for a in (0.25, 0.5) for n in (3, 4)}
    assert len(keys) == 4
    assert dash.fit_key(Toy(alpha=0.25), small) == dash.fit_key(Toy(alpha="0.25"), small)
    # the estimator takes what the row gives it (the keyword it names)
    est_kw = {k: v for k, v in kw.items() if k != "toy_alpha"}
    assert rmsc.get_method("RMSC", **est_kw).n_init == 3
    # the widget: its key, what it shows, what it sets
    assert {"w_alpha", "w_n_init"} <= set(dash.widget_keys(Toy))
    assert not {"w_alpha", "w_n_init"} & set(dash.widget_keys())
    shown = dash.shown_values(Toy(alpha=0.25), small)
    assert shown["w_alpha"] == 0.25 and shown["w_n_init"] == rmsc.RMSC().n_init
    moved = dash.params_from_widgets(Toy(), {"w_alpha": 0.75, "w_n_init": 5}, small)
    assert moved == Toy(alpha=0.75, n_init=5)
    # the pages' own Params has none of it
    assert not hasattr(dash.Params(), "alpha") and "n_init" not in \
        dash.estimator_params(dash.Params(), small)


def test_params_are_the_table_in_its_order():
    import dataclasses
    assert tuple(f.name for f in dataclasses.fields(dash.Params)) == \
        tuple(row.name for row in dash.SETTINGS)
    assert dash.Params.__module__ == "rmsc.dashboard.params"
    # a default the estimator owns is the estimator's, whatever it is now
    est = rmsc.RMSC()
    p = dash.Params()
    for row in dash.SETTINGS:
        if row.default == dash.params.ESTIMATOR_DEFAULT:
            assert getattr(p, row.name) == getattr(est, row.keyword), row.name


def test_estimator_params_and_the_key_come_from_the_rows(small):
    p = dash.Params(lam=2.0, beta=0.1, post="top_k", top_k=7, placement=False, seed=3,
                    max_iter=9)
    kw = dash.estimator_params(p, small)
    assert kw == {"lam": 2.0, "beta": 0.1, "beta_rel": None, "gamma": p.gamma,
                  "max_iter": 9, "tol": p.tol, "keep_mass": None, "top_k": 7,
                  "scale_columns": False, "placement": None, "n_clusters": 3,
                  "random_state": 3, "view_balance": None}
    key, kwargs = dash.fit_request(p, small)
    assert kwargs == kw and key == dash.fit_key(p, small)
    assert key[:3] == ("fit", small.fingerprint, "RMSC") and dict(key[3:]) == kw
    # a setting that plays no part (top-k while the post-processing keeps every
    # coefficient) changes neither what the estimator gets nor the key
    scale = dash.Params(post="scale")
    assert dash.fit_key(scale, small) == dash.fit_key(scale.replace(top_k=3), small)
    assert dash.fit_key(scale, small) != dash.fit_key(scale.replace(post="top_k"), small)
    # the weighting is the method, not a keyword
    wv = dash.Params(weighting="view")
    assert "weighting" not in dash.estimator_params(wv, small)
    assert dash.fit_key(wv, small)[2] == "RMSC-WV"
    # the number of clusters unknown: no key
    with pytest.raises(ValueError, match="choose 'clusters c'"):
        dash.fit_key(dash.Params(), small.replace(labels=None))


# ---------------------------------------------------------------------------
# The Solve page's rules
# ---------------------------------------------------------------------------


def test_the_cluster_rule_stores_the_number_of_classes_as_following_the_labels(small):
    assert small.n_clusters == 3
    assert dash.clusters_from_widget(3, small) is None  # follows the labels
    assert dash.clusters_from_widget(4.0, small) == 4
    assert dash.clusters_from_widget(None, small) is None
    unlabelled = small.replace(labels=None)
    assert dash.clusters_from_widget(3, unlabelled) == 3  # no labels to follow
    assert dash.shown_clusters(dash.Params(), small) == 3
    assert dash.shown_clusters(dash.Params(), unlabelled) is None  # the user must choose
    assert dash.shown_clusters(dash.Params(n_clusters=5), unlabelled) == 5
    one_class = small.replace(labels=np.zeros(small.n_samples, int))
    assert dash.shown_clusters(dash.Params(), one_class) is None


def test_the_widgets_apply_the_beta_slider_of_the_way_beta_is_set(small):
    auto = dash.Params()
    # a fixed β slider's value lingering in the session does not touch β = auto
    moved = dash.params_from_widgets(auto, {"w_beta": 0.3, "w_beta_rel": 0.5}, small)
    assert moved.beta == dash.AUTO and moved.beta_rel == 0.5
    fixed = dash.Params(beta=0.1)
    moved = dash.params_from_widgets(fixed, {"w_beta": 0.3, "w_beta_rel": 0.5}, small)
    assert moved.beta == 0.3 and moved.beta_rel is None
    # every widget of the page at once, as the page sends them
    values = {"w_lam": 2.0, "w_gamma": 0.1, "w_weighting": "view", "w_max_iter": 7,
              "w_post": "top_k", "w_top_k": 4, "w_keep_mass": 0.5, "w_placement": False,
              "w_clusters": 3, "w_seed": 2, "w_beta_rel": 0.5}
    assert dash.params_from_widgets(auto, values, small) == dash.Params(
        lam=2.0, gamma=0.1, weighting="view", max_iter=7, post="top_k", top_k=4,
        keep_mass=0.5, placement=False, seed=2, beta_rel=0.5)
    with pytest.raises(ValueError, match="γ must be"):
        dash.params_from_widgets(auto, {"w_gamma": -1.0}, small)


def test_the_widgets_applied_give_the_parameters_and_their_fit_in_one_call(small):
    """What the Solve page's callback asks for when a widget moves: the parameters, and the
    fit of them (the request the worker is sent), or no fit when c is unknown."""
    fixed = dash.Params(beta=0.1)
    params, request = dash.apply_widgets(fixed, {"w_beta": 0.3, "w_lam": 2.0}, small)
    assert params == dash.params_from_widgets(fixed, {"w_beta": 0.3, "w_lam": 2.0}, small)
    assert params.beta == 0.3 and params.lam == 2.0
    assert request == dash.fit_request(params, small)
    assert request[0][2] == params.method  # the worker reads the method from the key
    unlabelled = small.replace(labels=None)
    params, request = dash.apply_widgets(dash.Params(), {"w_beta_rel": 0.5}, unlabelled)
    assert params.beta_rel == 0.5 and request is None
    assert dash.apply_widgets(dash.Params(), {"w_clusters": 3}, unlabelled)[1] == \
        dash.fit_request(dash.Params(n_clusters=3), unlabelled)
    with pytest.raises(ValueError, match="γ must be"):
        dash.apply_widgets(fixed, {"w_gamma": -1.0}, small)


def test_the_widgets_show_the_parameters_and_one_beta_slider(small):
    shown = dash.shown_values(dash.Params(), small)
    assert shown[dash.BETA_MODE_WIDGET] == dash.AUTO
    assert shown["w_beta_rel"] == dash.auto_beta_rel("sample") and "w_beta" not in shown
    assert shown["w_lam"] == dash.auto_lam("sample") and shown["w_clusters"] == 3
    assert set(shown) == set(dash.widget_keys()) - {"w_beta"} | {dash.BETA_MODE_WIDGET}
    shown = dash.shown_values(dash.Params(beta=0.2, n_clusters=4), small)
    assert shown[dash.BETA_MODE_WIDGET] == dash.FIXED
    assert shown["w_beta"] == 0.2 and "w_beta_rel" not in shown and shown["w_clusters"] == 4
    # what the widgets show, applied, gives the parameters back
    for p in (dash.Params(), dash.Params(beta=0.2, lam=3.0, n_clusters=4),
              dash.Params(weighting="view", beta_rel=0.5, post="rho+scale", keep_mass=0.5)):
        values = dash.shown_values(p, small)
        values.pop(dash.BETA_MODE_WIDGET)
        assert dash.params_from_widgets(dash.Params(beta=p.beta), values, small) == p


def test_a_new_weighting_takes_its_defaults_unless_the_user_moved_lambda():
    LAM = rmsc.rmsc.LAM
    before = dash.Params(beta=0.2)
    after = dash.after_weighting_change(before, before.replace(weighting="view"), "view")
    assert after.weighting == "view" and after.lam is None
    assert after.resolved_lam == LAM["view"]
    assert after.beta == dash.method_default_beta("view")
    moved = dash.Params(lam=5.0)
    after = dash.after_weighting_change(moved, moved.replace(weighting="view"), "view")
    assert after.lam == 5.0  # the user's λ stays
    back = dash.after_weighting_change(after, after.replace(weighting="sample"), "sample")
    assert back.beta == dash.method_default_beta("sample")


# ---------------------------------------------------------------------------
# The model of the views' shares (view_balance): a row whose choices are the library's
# ---------------------------------------------------------------------------


def test_view_balance_offers_the_estimators_choices_in_its_order():
    solver = rmsc.solver
    choices = dash.VIEW_BALANCE_CHOICES
    assert [dash.balance_from_widget(v) for v in choices] == list(solver.VIEW_BALANCES)
    assert dash.estimator_choices("view_balance") == tuple(solver.VIEW_BALANCES)
    assert dash.estimator_choices("weighting") == rmsc.rmsc.WEIGHTINGS
    # None (the estimator's default, the paper's P-step) is the widget's and URL's "none"
    assert dash.Params().view_balance is None is rmsc.RMSC().view_balance
    assert choices[0] == dash.NO_BALANCE and dash.balance_widget_value(None) == dash.NO_BALANCE
    # every choice has its own name and words, and a value without words shows as itself
    names = [dash.view_balance_name(dash.balance_from_widget(v)) for v in choices]
    assert len(set(names)) == len(names)
    assert dash.view_balance_name("two levels") == "two levels"
    assert "docs/weights.md" in dash.view_balance_words("two levels")


def test_the_choices_are_read_from_the_estimators_rule(monkeypatch):
    rule = rmsc.RMSC._parameter_constraints["view_balance"]
    monkeypatch.setattr(rule, "constraints", (Options((*rmsc.solver.VIEW_BALANCES, "new")),))
    assert dash.estimator_choices("view_balance")[-1] == "new"


@pytest.mark.parametrize("value", [v for v in rmsc.solver.VIEW_BALANCES if v is not None])
def test_view_balance_round_trips_through_the_url_summary_and_the_fit_key(small, value):
    p = dash.Params(view_balance=value)
    # the URL, both ways (only off the default)
    assert p.to_query() == {"view_balance": value}
    assert dash.Params.from_query(p.to_query()) == (p, [])
    assert dash.Params().to_query() == {}
    assert dash.Params.from_query({"view_balance": "none"}) == (dash.Params(), [])
    # the summary's first line (the model) names it; the default's says nothing of it
    name = dash.view_balance_name(value)
    assert p.summary()[0].endswith(f", view balance: {name}")
    assert "view balance" not in " ".join(dash.Params().summary())
    # what the estimator gets, and so the key: the cache never serves another model's fit
    kw = dash.estimator_params(p, small)
    assert kw["view_balance"] == value
    assert rmsc.get_method("RMSC", **kw).view_balance == value
    assert dash.estimator_params(dash.Params(), small)["view_balance"] is None
    assert dash.fit_key(p, small) != dash.fit_key(dash.Params(), small)
    assert dash.fit_key(p, small) == dash.fit_key(dash.Params(view_balance=value), small)
    # Compare, Sensitivity and the suggestion fit the same model as the Solve page
    assert dash.rmsc_method_params(p, small)["RMSC"]["view_balance"] == value
    assert dash.sensitivity_settings(p, "RMSC")["view_balance"] == value
    assert dash.suggestion_settings(p, small)["view_balance"] == value
    # the widget shows it and sets it
    shown = dash.shown_values(p, small)
    assert shown["w_view_balance"] == value
    assert dash.params_from_widgets(dash.Params(), {"w_view_balance": value}, small) == p
    assert dash.params_from_widgets(p, {"w_view_balance": dash.NO_BALANCE}, small) == \
        dash.Params()


def test_every_view_balance_has_its_own_fit_key(small):
    keys = {dash.fit_key(dash.Params(view_balance=v), small) for v in rmsc.solver.VIEW_BALANCES}
    assert len(keys) == len(rmsc.solver.VIEW_BALANCES)


def test_a_bad_view_balance_is_a_message_not_a_traceback(small):
    p, problems = dash.Params.from_query({"view_balance": "sideways", "lam": "3"})
    assert p == dash.Params(lam=3.0)  # the rest of the URL is kept
    assert len(problems) == 1
    assert problems[0].startswith("Ignored view_balance='sideways' from the URL: "
                                  "view balance must be None (the paper's P-step), 'balanced'")
    assert problems[0].endswith("got 'sideways'.")
    with pytest.raises(ValueError, match="view balance must be None"):
        dash.params_from_widgets(dash.Params(), {"w_view_balance": "sideways"}, small)
    # a flag-like word is not None where the rule takes no None (the weighting)
    p, problems = dash.Params.from_query({"weighting": "none"})
    assert p == dash.Params() and problems[0].startswith("Ignored weighting='none'")


# ---------------------------------------------------------------------------
# The paper's model (rmsc.rmsc.PAPER_MODEL) as the pages' parameters
# ---------------------------------------------------------------------------


def test_the_papers_model_is_params_whose_fit_is_the_papers(small):
    from rmsc.rmsc import PAPER_MODEL

    p = dash.Params().replace(**PAPER_MODEL)
    kw = dash.estimator_params(p, small)
    assert {k: kw[k] for k in PAPER_MODEL} == PAPER_MODEL  # every part of the model passed
    # the defaults are not passed: every other fit keeps the key it had without the rows
    assert not {"loss_scale", "uninformative"} & set(dash.estimator_params(dash.Params(), small))
    assert dash.fit_key(p, small) != dash.fit_key(p.replace(loss_scale="median"), small)
    assert dash.fit_key(p, small) != dash.fit_key(p.replace(uninformative="typical"), small)
    # a choice's None round-trips through the URL as "none"
    query = p.to_query()
    assert query["loss_scale"] == query["uninformative"] == dash.params.NONE_TEXT
    assert dash.Params.from_query(query) == (p, [])
    assert "losses unscaled (the paper's: every cᵥ = 1)" in p.summary()[0]
    assert "losses unscaled" not in dash.Params().summary()[0]
    # the fit is the estimator's with the paper's model
    model = rmsc.get_method(p.method, **kw).fit(list(small.views))
    ref = rmsc.RMSC(**{**kw, **PAPER_MODEL}).fit(list(small.views))
    assert model.view_factors_ is None and np.array_equal(model.weights_, ref.weights_)


def test_a_bad_loss_scale_is_a_message_not_a_traceback():
    p, problems = dash.Params.from_query({"loss_scale": "mean", "lam": "3"})
    assert p == dash.Params(lam=3.0) and len(problems) == 1
    assert problems[0].startswith("Ignored loss_scale='mean' from the URL: ")
