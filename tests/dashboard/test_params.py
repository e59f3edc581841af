"""The Solve page's parameters without a browser (rmsc.dashboard.params): the grids hold the
estimators' defaults, bad values are messages, the URL round-trips, β's ways are remembered."""

import numpy as np
import pytest

import rmsc
from rmsc import dashboard as dash


def test_log_grid_holds_the_defaults_in_order_and_in_range():
    grid = dash.log_grid(1e-4, 10)
    assert grid == sorted(grid) and grid[0] == pytest.approx(1e-4) and grid[-1] == 10
    for v in (0.3, 0.005, 0.001, 1.0):
        assert any(np.isclose(g, v) for g in grid)
    assert len(dash.log_grid(1, 10)) == 5  # 1, 2, 3, 5, 10
    with pytest.raises(ValueError, match="low <= high"):
        dash.log_grid(10, 1)


def test_slider_grids_contain_the_estimators_defaults():
    defaults = rmsc.RMSC().get_params()
    assert all(lam in dash.LAM_GRID for lam in rmsc.rmsc.LAM.values())
    # beta's default is relative ("auto", a way of its own); the fixed β's slider is the grid
    assert defaults["beta"] == dash.AUTO
    assert dash.beta_mode(dash.Params()) == dash.AUTO
    assert dash.beta_mode(dash.Params(beta=0.3)) == dash.FIXED
    assert dash.beta_options(defaults["beta"]) == dash.BETA_GRID
    assert dash.beta_options(0.3) == dash.BETA_GRID
    assert dash.beta_options(0.0123) == dash.options_with(dash.BETA_GRID, 0.0123)
    assert defaults["gamma"] in dash.GAMMA_GRID
    assert dash.method_default_beta("view") == dash.AUTO
    assert dash.format_beta(0.3) == "0.3" and "auto" in dash.format_beta(dash.AUTO)


def test_each_way_of_setting_beta_comes_back_at_the_value_it_was_left_at():
    p = dash.Params(beta_rel=0.3)
    # fixed for the first time: the β auto gave on the data (3 digits), else the fallback
    fixed, memory = dash.switch_beta_mode(p, dash.FIXED, None, fixed_start=0.066812)
    assert fixed == dash.Params(beta=0.0668) and memory == {dash.AUTO: 0.3}
    assert dash.switch_beta_mode(p, dash.FIXED)[0].beta == dash.FIXED_BETA_FALLBACK
    moved = fixed.replace(beta=0.02)
    back, memory = dash.switch_beta_mode(moved, dash.AUTO, memory)
    assert back == p and back.resolved_beta_rel == 0.3  # not the default 0.25
    assert memory == {dash.AUTO: 0.3, dash.FIXED: 0.02}
    again, memory = dash.switch_beta_mode(back.replace(beta_rel=0.5), dash.FIXED, memory)
    assert again == dash.Params(beta=0.02) and memory[dash.AUTO] == 0.5
    # the default β_rel is remembered as the default (None), and a non-switch changes nothing
    assert dash.switch_beta_mode(dash.Params(), dash.AUTO, {dash.AUTO: 0.3})[0] == dash.Params()
    rel_default, memory = dash.switch_beta_mode(dash.Params(), dash.FIXED, {dash.AUTO: 0.3})
    assert dash.switch_beta_mode(rel_default, dash.AUTO, memory)[0] == dash.Params()
    with pytest.raises(ValueError, match="'auto' or 'fixed'"):
        dash.switch_beta_mode(p, "relative")


def test_options_with_inserts_a_foreign_value_in_order():
    grid = [0.1, 1.0, 10.0]
    assert dash.options_with(grid, 1.0) == grid
    assert dash.options_with(grid, 0.4) == [0.1, 0.4, 1.0, 10.0]
    assert dash.nearest(grid, 0.4) == 1.0
    assert dash.nearest(grid, 0.2) == 0.1 and dash.nearest(grid, 5.0) == 10.0


def test_params_defaults_are_the_estimators():
    p = dash.Params()
    est = rmsc.RMSC().get_params()
    for name in ("lam", "beta", "gamma", "weighting", "max_iter", "tol"):
        assert getattr(p, name) == est[name]
    est_obj = rmsc.RMSC()
    assert p.method == "RMSC" and p.postprocessing == {
        "keep_mass": est_obj.keep_mass, "top_k": est_obj.top_k,
        "scale_columns": est_obj.scale_columns}
    # "auto" travels in the URL and back.
    assert dash.Params.from_query({"beta": "auto"})[0].beta == dash.AUTO
    assert dash.Params(beta=0.3).replace(beta="auto").beta_text == (
        f"auto (β_rel {rmsc.RMSC()._beta_rel():g})")


def test_lambda_follows_the_weighting_until_the_user_sets_it(small):
    LAM = rmsc.rmsc.LAM
    p = dash.Params()
    assert p.lam is None and p.resolved_lam == LAM["sample"]
    wv = p.replace(weighting="view")
    assert wv.lam is None and wv.resolved_lam == LAM["view"]
    assert dash.estimator_params(wv, small)["lam"] == LAM["view"]
    assert dash.fit_key(wv, small) != dash.fit_key(p.replace(weighting="view", lam=LAM["sample"]),
                                                  small)
    # a weighting's default is stored as None: equal settings compare and share equal
    assert dash.Params(weighting="view", lam=LAM["view"]) == wv
    assert dash.Params(lam=LAM["sample"]) == p and p.to_query() == {}
    chosen = dash.Params(weighting="view", lam=LAM["sample"])
    assert chosen.lam == LAM["sample"] and chosen.to_query()["lam"] == f"{LAM['sample']:g}"
    back, problems = dash.Params.from_query({"weighting": "view", "lam": f"{LAM['view']:g}"})
    assert back == wv and not problems
    assert f"λ = {LAM['view']:g}" in wv.summary()[0]


@pytest.mark.parametrize("changes, message", [
    # in the pages' words: the symbols on the sliders, not the estimator's argument names
    ({"lam": 0}, "λ must be positive: λ = 0 cuts every view off"),
    ({"beta": -1}, "β must be a finite number >= 0"),
    ({"gamma": float("nan")}, "γ must be a finite"),
    ({"weighting": "both"}, "weighting must be"),
    ({"post": "magic"}, "affinity post-processing must be one of none, scale"),
    ({"max_iter": 0}, "max iterations must be an integer >= 1"),
    ({"top_k": 2.5}, "top-k must be an integer"),
    ({"keep_mass": 0}, r"ρ must be in \(0, 1\]"),
    ({"keep_mass": 1.5}, r"ρ must be in \(0, 1\]"),
    ({"keep_mass": "most"}, r"ρ must be a number"),
    ({"n_clusters": 1}, "clusters c must be an integer >= 2"),
    ({"lam": "abc"}, "λ must be a number"),
    ({"beta_rel": 0}, "β_rel must be a positive number"),
    ({"beta_rel": -0.5}, "β_rel must be a positive number"),
    ({"beta_rel": float("inf")}, "β_rel must be a positive number"),
    ({"beta_rel": "half"}, "β_rel must be a positive number"),
    ({"beta": 0.3, "beta_rel": float("nan")}, "β_rel must be a positive number"),
])
def test_params_reject_bad_values_with_a_message(changes, message):
    with pytest.raises(ValueError, match=message):
        dash.Params().replace(**changes)


def test_postprocessing_and_method_follow_the_choices():
    p = dash.Params(post="top_k+scale", top_k=7, weighting="view")
    post = lambda keep_mass, top_k, scale: {  # noqa: E731
        "keep_mass": keep_mass, "top_k": top_k, "scale_columns": scale}
    assert p.method == "RMSC-WV" and p.postprocessing == post(None, 7, True)
    assert dash.Params(post="scale").postprocessing == post(None, None, True)
    assert dash.Params(post="top_k", top_k=3).postprocessing == post(None, 3, False)
    rho = dash.Params(post="rho+scale", keep_mass=0.8, top_k=3)
    assert rho.postprocessing == post(0.8, None, True)
    assert dash.Params(post="rho+scale").keep_mass == dash.DEFAULT_KEEP_MASS
    assert "ρ = 0.8, then scale" in rho.summary()[2]
    back, problems = dash.Params.from_query(rho.to_query())
    assert back == rho and not problems


def test_estimator_params_build_the_same_estimator(small):
    p = dash.Params(lam=1.0, beta=0.01, post="top_k", top_k=5, seed=3)
    kw = dash.estimator_params(p, small)
    est = rmsc.get_method(p.method, **kw)
    assert est.n_clusters == 3 and est.lam == 1.0 and est.beta == 0.01
    assert est.top_k == 5 and est.scale_columns is False and est.random_state == 3
    rho = dash.Params(post="rho+scale", keep_mass=0.8)
    est = rmsc.get_method(rho.method, **dash.estimator_params(rho, small)).fit(small.views)
    assert est.keep_mass == 0.8 and est.top_k is None and est.scale_columns is True
    expect = rmsc.spectral.affinity_from_coefficients(est.consensus_, keep_mass=0.8,
                                                      scale_columns=True)
    assert abs(est.affinity_matrix_ - expect).max() == 0
    assert dash.fit_key(rho, small) != dash.fit_key(dash.Params(post="rho+scale", keep_mass=0.9),
                                                   small)


def test_placement_is_the_estimators_rule_or_none_and_travels_in_the_url(small):
    assert dash.Params().placement is True
    assert dash.estimator_params(dash.Params(), small)["placement"] == rmsc.RMSC().placement
    off = dash.Params(placement=False)
    assert dash.estimator_params(off, small)["placement"] is None
    assert off.to_query() == {"placement": "0"}
    assert dash.Params.from_query(off.to_query()) == (off, [])
    assert "no placement" in " ".join(off.summary())
    assert "placement" not in " ".join(dash.Params().summary())
    p, problems = dash.Params.from_query({"placement": "maybe"})
    assert p.placement is True and problems == ["Ignored placement='maybe' from the URL: "
                                                "placement must be 1 or 0."]
    with pytest.raises(ValueError, match="placement must be True or False"):
        dash.Params(placement="neighbors")
    est = rmsc.get_method("RMSC", **dash.estimator_params(off, small))
    assert est.placement is None


def test_clusters_come_from_labels_or_must_be_given(small):
    assert dash.Params().resolved_clusters(small) == 3
    assert dash.Params(n_clusters=5).resolved_clusters(small) == 5
    unlabelled = small.replace(labels=None)
    with pytest.raises(ValueError, match="no labels"):
        dash.Params().resolved_clusters(unlabelled)
    assert dash.Params(n_clusters=4).resolved_clusters(unlabelled) == 4
    # one class cannot be the number of clusters (a clustering needs two): the user chooses
    one_class = small.replace(labels=np.zeros(45, int))
    with pytest.raises(ValueError, match="one class only.*choose 'clusters c'"):
        dash.Params().resolved_clusters(one_class)
    assert dash.Params(n_clusters=2).resolved_clusters(one_class) == 2


def test_labels_score_a_clustering_only_with_two_classes_or_more(small):
    assert dash.labels_problem(small) is None and dash.scoring_labels(small) is small.labels
    assert dash.labels_problem(small.replace(labels=None)) == "This dataset has no labels"
    one_class = small.replace(labels=np.zeros(45, int))
    assert "one class only" in dash.labels_problem(one_class)
    assert dash.scoring_labels(one_class) is None
    r = dash.fit_rmsc(one_class, dash.Params(n_clusters=3, max_iter=5, beta=0.01))
    assert r.scores is None and r.metrics_table() is None  # ACC against one class means nothing
    assert dict(dash.dataset_summary(one_class))["classes"] == "1 (cannot score a clustering)"


def test_cache_key_changes_with_every_parameter_and_the_data(small):
    base = dash.Params()
    keys = {dash.fit_key(base, small)}
    for change in ({"lam": 2.0}, {"beta": 0.1}, {"gamma": 1e-3}, {"weighting": "view"},
                   {"max_iter": 5}, {"post": "top_k"}, {"seed": 1}, {"n_clusters": 4},
                   {"tol": 0.0}, {"placement": False}, {"beta_rel": 0.5}, {"beta_rel": 1.0}):
        keys.add(dash.fit_key(base.replace(**change), small))
    other = small.replace(views=[small.views[0] * 2, small.views[1]])
    keys.add(dash.fit_key(base, other))
    assert len(keys) == 14
    # equal inputs, equal keys
    assert dash.fit_key(base, small) == dash.fit_key(dash.Params(), small)
    hash(dash.fit_key(base, small))


def test_query_round_trip_and_only_non_defaults():
    assert dash.Params().to_query() == {}
    p = dash.Params(lam=2.0, beta=0.005, weighting="view", post="top_k", top_k=12, seed=4,
                    n_clusters=6, max_iter=50)
    q = p.to_query()
    assert q["lam"] == "2" and q["beta"] == "0.005" and q["weighting"] == "view"
    back, problems = dash.Params.from_query(q)
    assert back == p and problems == []


def test_beta_rel_is_relative_beta_stored_once_and_ignored_for_an_absolute_beta(small):
    default = rmsc.RMSC()._beta_rel()  # the estimator's own default ("auto")
    p = dash.Params(beta_rel=0.5)
    assert p.beta_rel == 0.5 and p.resolved_beta_rel == 0.5
    assert dash.Params().beta_rel is None and dash.Params().resolved_beta_rel == default
    # the default written out is the default: equal settings compare, hash and share equal
    assert dash.Params(beta_rel=default) == dash.Params()
    assert dash.fit_key(dash.Params(beta_rel=default), small) == dash.fit_key(dash.Params(), small)
    assert dash.Params(beta_rel=default).to_query() == {}
    # with an absolute beta, beta_rel plays no part: not kept, not in the key or the fit
    absolute = dash.Params(beta=0.3, beta_rel=0.5)
    assert absolute == dash.Params(beta=0.3) and absolute.resolved_beta_rel is None
    assert dash.fit_key(absolute, small) == dash.fit_key(dash.Params(beta=0.3), small)
    assert dash.estimator_params(absolute, small)["beta_rel"] is None
    assert absolute.beta_text == "0.3" and "β_rel" not in " ".join(absolute.summary())
    # words: the sidebar and the Compare page say which relative beta
    assert p.beta_text == "auto (β_rel 0.5)"
    assert "RMSC: λ = 1, β = auto (β_rel 0.5)," in p.summary()[0]
    assert dash.Params(beta_rel=2).beta_text == "auto (β_rel 2)"


def test_estimator_params_pass_beta_rel_to_the_estimator(small):
    kw = dash.estimator_params(dash.Params(beta_rel=0.5, max_iter=5), small)
    assert kw["beta"] == dash.AUTO and kw["beta_rel"] == 0.5
    est = rmsc.get_method("RMSC", **kw).fit(small.views)
    assert est.beta_rel_ == pytest.approx(0.5)
    assert est.beta_ == pytest.approx(0.5 * est.beta_scale_)
    # None is the weighting's default, written out (a configuration file says which)
    for weighting in ("sample", "view"):
        p = dash.Params(weighting=weighting)
        assert dash.estimator_params(p, small)["beta_rel"] == rmsc.get_method(p.method)._beta_rel()


def test_beta_rel_travels_in_the_url_and_bad_values_are_ignored_with_a_message(monkeypatch):
    p = dash.Params(beta_rel=0.5, lam=3.0)
    assert p.to_query() == {"lam": "3", "beta_rel": "0.5"}
    assert dash.Params.from_query(p.to_query()) == (p, [])
    wv = dash.Params(beta_rel=0.1, weighting="view")
    assert dash.Params.from_query(wv.to_query()) == (wv, [])
    # were the weightings' defaults to differ, β_rel would still mean the URL's weighting's
    monkeypatch.setitem(rmsc.rmsc.BETA_REL, "view", 0.1)
    wv = dash.Params(beta_rel=0.25, weighting="view")
    assert wv.beta_rel == 0.25 and dash.Params(weighting="view").resolved_beta_rel == 0.1
    assert wv.to_query() == {"beta_rel": "0.25", "weighting": "view"}
    assert dash.Params.from_query(wv.to_query()) == (wv, [])
    monkeypatch.undo()
    for raw in ("0", "-1", "inf", "half"):
        back, problems = dash.Params.from_query({"beta_rel": raw, "lam": "3"})
        assert back == dash.Params(lam=3.0)
        assert len(problems) == 1 and problems[0].startswith(f"Ignored beta_rel={raw!r} from "
                                                             "the URL: β_rel must be")
    back, problems = dash.Params.from_query({"beta": "0.3", "beta_rel": "0.5"})
    assert back == dash.Params(beta=0.3)
    assert problems == ["Ignored beta_rel='0.5' from the URL: β_rel applies to β = auto only, "
                        "and the URL sets β = 0.3."]


def test_beta_rel_grid_holds_the_defaults_and_the_suggested_values():
    grid = dash.BETA_REL_GRID
    assert grid == sorted(grid) and len(set(grid)) == len(grid)
    for weighting in ("sample", "view"):
        assert dash.auto_beta_rel(weighting) in grid
    for rel in dash.SUGGEST_BETA_RELS:
        assert rel in grid
    assert grid[0] < min(dash.SUGGEST_BETA_RELS) and grid[-1] > 1  # room on both sides


def test_query_with_bad_values_keeps_defaults_and_says_so():
    p, problems = dash.Params.from_query({"lam": "-3", "beta": "x", "gamma": "0.01",
                                          "weighting": ["sample", "view"], "junk": "1"})
    assert p.lam is None and p.beta == dash.Params().beta
    assert p.gamma == 0.01 and p.weighting == "view"
    assert len(problems) == 2
    assert any("lam" in m for m in problems) and any("beta" in m for m in problems)


def test_summary_names_method_and_values():
    text = " ".join(dash.Params(beta=0.1, post="top_k", top_k=9).summary())
    assert "RMSC" in text and "β = 0.1" in text and "top-9" in text


def test_method_default_beta_comes_from_the_registry():
    assert dash.method_default_beta("view") == rmsc.get_method("RMSC-WV").beta
    assert dash.method_default_beta("sample") == rmsc.get_method("RMSC").beta


def test_outlier_spec_validates_and_round_trips():
    spec = dash.OutlierSpec(views=("PIX", "FOU"), fraction=0.2, kind="noise", severity=2.0,
                            same_samples=False, seed=5)
    back = dash.OutlierSpec.from_query(spec.to_query()["outliers"])
    assert back == spec
    assert "20%" in spec.summary() and "PIX, FOU" in spec.summary()
    with pytest.raises(ValueError, match="at least one view"):
        dash.OutlierSpec(views=())
    with pytest.raises(ValueError, match="fraction"):
        dash.OutlierSpec(views=("A",), fraction=1.5)
    with pytest.raises(ValueError, match="expected views:fraction"):
        dash.OutlierSpec.from_query("PIX:0.1")


def test_outlier_spec_rejects_unknown_views(small):
    with pytest.raises(ValueError, match="not in small"):
        dash.OutlierSpec(views=("nope",)).inject(small)
