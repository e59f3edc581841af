"""The dashboard's page logic (rmsc.dashboard), without a browser."""

import io
import json
import threading
import time

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import rmsc
from rmsc import dashboard as dash
from rmsc import datasets
from rmsc.datasets import MultiViewDataset
from rmsc.metrics import clustering_accuracy
from rmsc.solver import minimizer

from conftest import union_of_subspaces


@pytest.fixture
def small():
    views, labels = union_of_subspaces(n_per=15, n_clusters=3, dims=(8, 12), seed=1)
    return MultiViewDataset(name="small", views=views, labels=labels, view_names=("A", "B"))


# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Background jobs
# ---------------------------------------------------------------------------


def _wait_until(pred, timeout=10):
    t0 = time.time()
    while not pred():
        if time.time() - t0 > timeout:
            raise AssertionError("condition not reached")
        time.sleep(0.005)


class Gate:
    """A task that records progress and waits for permission at every step."""

    def __init__(self, steps=5, fail=False):
        self.steps = steps
        self.fail = fail
        self.go = threading.Semaphore(0)

    def __call__(self, job):
        done = 0
        for i in range(self.steps):
            self.go.acquire()
            job.record((i + 1, 10.0 - i), latest=i)
            job.report(i + 1, self.steps, f"step {i + 1}")
            done = i + 1
            if job.stop_requested:
                break
        if self.fail:
            raise ValueError("bad parameter: try another")
        return done


def test_job_runs_reports_and_finishes():
    gate = Gate(steps=3)
    job = dash.Job("k", gate, label="t").start()
    assert job.active
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    snap = job.snapshot()
    assert snap.history == ((1, 10.0),) and snap.latest == 0 and snap.fraction == pytest.approx(1 / 3)
    gate.go.release(2)
    assert job.wait(5)
    assert job.state == dash.DONE and job.result == 3 and job.error is None
    assert job.snapshot().history == ((1, 10.0), (2, 9.0), (3, 8.0))


def test_job_failure_becomes_a_message_not_an_exception():
    gate = Gate(steps=1, fail=True)
    job = dash.Job("k", gate).start()
    gate.go.release()
    assert job.wait(5)
    assert job.state == dash.FAILED and job.error == "bad parameter: try another"
    assert job.result is None

    def crash(job):
        raise KeyError("x")

    job = dash.Job("k", crash).start()
    job.wait(5)
    assert job.state == dash.FAILED and "Unexpected KeyError" in job.error


def test_stop_keeps_the_partial_result_cancel_discards_it():
    gate = Gate(steps=10)
    job = dash.Job("k", gate).start()
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    job.request_stop()
    gate.go.release()
    assert job.wait(5)
    assert job.state == dash.STOPPED and job.result == 2

    gate = Gate(steps=10)
    job = dash.Job("k", gate).start()
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    job.cancel()
    gate.go.release()
    assert job.wait(5)
    assert job.state == dash.CANCELLED and job.result is None


def test_a_stop_after_the_task_ran_to_its_end_leaves_it_done():
    class Complete:
        stopped_early = False

    def task(job):
        job.request_stop()  # arrives while the task finishes on its own
        return Complete()

    job = dash.Job("k", task).start()
    assert job.wait(5) and job.state == dash.DONE
    Complete.stopped_early = True
    job = dash.Job("k", task).start()
    assert job.wait(5) and job.state == dash.STOPPED


def test_done_callbacks_run_once_when_the_job_finishes():
    gate = Gate(steps=1)
    job = dash.Job("k", gate).start()
    seen = []
    assert job.add_done_callback(lambda j: seen.append(("a", j.state)), call_if_done=False)
    gate.go.release()
    assert job.wait(5)
    _wait_until(lambda: len(seen) == 1)
    assert seen == [("a", dash.DONE)]
    # on a finished job: called at once, unless asked not to
    assert not job.add_done_callback(lambda j: seen.append(("b", j.state)))
    assert not job.add_done_callback(lambda j: seen.append(("c", j.state)), call_if_done=False)
    assert seen == [("a", dash.DONE), ("b", dash.DONE)]


def test_a_job_cancelled_before_it_starts_never_runs():
    ran = []
    job = dash.Job("k", lambda j: ran.append(1))
    job.cancel()
    job.start()
    assert job.wait(1) and job.state == dash.CANCELLED and ran == []


def test_a_delayed_job_waits_unless_hurried_and_never_runs_if_cancelled_meanwhile():
    ran = []
    job = dash.Job("k", lambda j: ran.append(time.perf_counter()), delay=30, min_delay=0.2)
    t0 = time.perf_counter()
    job.start()
    time.sleep(0.05)
    assert ran == [] and job.active
    job.hurry()
    assert job.wait(5) and job.state == dash.DONE
    assert 0.2 <= ran[0] - t0 < 5  # hurried, but not before min_delay
    job = dash.Job("k", lambda j: ran.append(1), delay=30)
    job.start()
    job.cancel()
    assert job.wait(5) and job.state == dash.CANCELLED and len(ran) == 1


def test_a_slider_moved_quickly_starts_only_the_last_fit():
    slot = dash.JobSlot()
    ran = []
    jobs = [slot.submit(k, (lambda k: lambda j: ran.append(k))(k), delay=0.3, min_delay=0.3)
            for k in "abcd"]
    assert jobs[-1].wait(5)
    for j in jobs[:-1]:
        assert j.wait(5) and j.state == dash.CANCELLED
    assert ran == ["d"]


def test_slot_reuses_a_running_job_for_the_same_key():
    slot = dash.JobSlot()
    gate = Gate(steps=1)
    a = slot.submit("a", gate)
    assert slot.submit("a", Gate()) is a and slot.latest_key == "a"
    gate.go.release()
    assert a.wait(5)
    assert slot.submit("a", Gate()) is a  # finished: not rerun unless forced
    g2 = Gate(steps=1)
    b = slot.submit("a", g2, force=True)
    assert b is not a
    g2.go.release()
    assert b.wait(5) and b.result == 1


def test_slot_cancels_the_running_job_and_queues_only_the_newest():
    slot = dash.JobSlot()
    ga, gb, gc = Gate(steps=100), Gate(steps=1), Gate(steps=1)
    a = slot.submit("a", ga)
    ga.go.release()
    _wait_until(lambda: a.snapshot().done == 1)
    b = slot.submit("b", gb)
    c = slot.submit("c", gc)
    assert a.cancelled and slot.queued is c and b.cancelled
    assert slot.latest is c and slot.latest_key == "c"
    ga.go.release()  # a sees the cancel at its next step
    assert a.wait(5) and a.state == dash.CANCELLED
    gc.go.release()
    assert c.wait(5) and c.state == dash.DONE and c.result == 1
    assert b.state == dash.CANCELLED and b.result is None
    assert slot.current is c and slot.queued is None


def test_slot_going_back_to_the_running_key_drops_the_queue():
    slot = dash.JobSlot()
    ga = Gate(steps=2)
    a = slot.submit("a", ga)
    b = slot.submit("b", Gate())
    assert a.cancelled
    # a is cancelled, so asking for "a" again queues a fresh run of "a" (replacing b)
    g2 = Gate(steps=1)
    a2 = slot.submit("a", g2)
    assert a2 is not a and b.cancelled and slot.queued is a2
    assert b.state == dash.CANCELLED  # never started, finished at once
    ga.go.release(2)
    assert a.wait(5)
    _wait_until(lambda: slot.current is a2)
    slot.cancel()
    g2.go.release()
    assert a2.wait(5) and a2.state == dash.CANCELLED


def test_slot_stop_finishes_the_current_job_early():
    slot = dash.JobSlot()
    gate = Gate(steps=10)
    job = slot.submit("a", gate)
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    slot.stop()
    gate.go.release()
    assert job.wait(5) and job.state == dash.STOPPED and job.result == 2


def test_registry_shares_one_run_between_sessions():
    registry = dash.JobRegistry()
    s1, s2 = dash.JobSlot(registry), dash.JobSlot(registry)
    gate = Gate(steps=2)
    a = s1.submit("a", gate)
    assert s2.submit("a", Gate()) is a and a.watchers == 2
    # session 1 moves on: the run continues for session 2
    gb = Gate(steps=1)
    b = s1.submit("b", gb)
    assert not a.cancelled and s1.current is b
    gate.go.release(2)
    gb.go.release()
    assert a.wait(5) and a.state == dash.DONE and b.wait(5) and b.state == dash.DONE
    assert len(registry) == 0
    # once nobody watches an unfinished job, it is cancelled
    gc = Gate(steps=3)
    c = s1.submit("c", gc)
    s1.cancel()
    gc.go.release(3)
    assert c.wait(5) and c.state == dash.CANCELLED


# ---------------------------------------------------------------------------
# Cache
# ---------------------------------------------------------------------------


def test_result_cache_is_lru_bounded_by_entries_and_bytes():
    cache = dash.ResultCache(max_entries=3, max_bytes=10_000)
    for k in "abc":
        cache.put(k, np.zeros(10))
    assert cache.get("a") is not None  # a becomes most recent
    cache.put("d", np.zeros(10))
    assert "b" not in cache and "a" in cache and len(cache) == 3
    cache.put("big", np.zeros(1000))  # 8000 bytes: fits with two small ones (3 entries)
    assert "big" in cache and "c" not in cache and len(cache) == 3
    cache.put("big2", np.zeros(1000))  # 16 000 bytes together: the older big one goes
    assert "big2" in cache and "big" not in cache and cache.total_bytes <= 10_000
    cache.put("huge", np.zeros(5000))  # larger than the budget alone: kept, others evicted
    assert list(cache._items) == ["huge"]


def test_nbytes_counts_arrays_sparse_and_containers():
    A = np.zeros((10, 10))
    S = sp.random(50, 50, density=0.1, format="csr", random_state=0)
    assert dash.nbytes(A) == 800
    assert dash.nbytes(S) == S.data.nbytes + S.indices.nbytes + S.indptr.nbytes
    assert dash.nbytes({"x": A, "y": [A, A]}) == 2400


# ---------------------------------------------------------------------------
# Fitting
# ---------------------------------------------------------------------------


def test_fit_rmsc_returns_everything_the_pages_show(small):
    job = dash.Job("k", lambda j: None)
    r = dash.fit_rmsc(small, dash.Params(max_iter=8, tol=0.0, beta=0.01), job)
    assert isinstance(r, dash.FitResult)
    n = small.n_samples
    assert r.labels.shape == (n,) and r.label_runs.shape == (20, n)
    assert r.weights.shape == (2, n) and r.consensus.shape == (n, n)
    assert r.n_iter == 8 and not r.stopped_early and r.n_clusters == 3
    assert np.all(np.diff(r.objective) <= 1e-9 * np.abs(r.objective[:-1]))
    # the live curve is the objective, point by point
    hist = job.snapshot().history
    assert [h[0] for h in hist] == list(range(1, 9))
    np.testing.assert_allclose([h[1] for h in hist], r.objective)
    np.testing.assert_allclose(job.snapshot().latest, r.weights.mean(axis=1))
    # scores are the paper protocol's
    expect = rmsc.evaluate_runs(small.labels, r.label_runs)
    assert r.scores == expect
    assert r.chosen_scores == rmsc.evaluate(small.labels, r.labels)
    assert r.density == pytest.approx(r.consensus.nnz / n ** 2)
    table = r.metrics_table()
    assert list(table["metric"]) == ["ACC", "NMI", "ARI", "PURITY"]
    assert table["mean %"].iloc[0] == pytest.approx(100 * expect["acc_mean"])
    assert r.key == dash.fit_key(dash.Params(max_iter=8, tol=0.0, beta=0.01), small)
    assert r.weights_ is r.weights
    assert r.device == "CPU (NumPy)"


def test_the_fits_device_comes_from_rmsc_device(small, monkeypatch):
    # no GPU on this machine whatever is installed: both probes say so
    monkeypatch.setattr(rmsc.device, "_torch_gpu", lambda index: (None, "torch sees no GPU"))
    monkeypatch.setattr(rmsc.device, "_cupy_gpu", lambda index: (None, "CuPy is not installed"))
    monkeypatch.delenv("RMSC_DEVICE", raising=False)
    assert dash.device_text() == ("CPU (NumPy) (no GPU found (torch sees no GPU; CuPy is not "
                                  "installed))")
    monkeypatch.setenv("RMSC_DEVICE", "cpu")
    assert dash.device_text() == "CPU (NumPy)"
    for bad, words in (("cuda", "asks for a CUDA GPU, but none can be used: torch sees no GPU"),
                       ("tpu", "device must be one of auto, cpu, cuda")):
        monkeypatch.setenv("RMSC_DEVICE", bad)
        text = dash.device_text()
        assert text.startswith("RMSC_DEVICE cannot be used: ") and words in text
        # a fit asked for on that device fails with the same words (a Job shows them)
        with pytest.raises(ValueError, match=words.split(":")[0]):
            dash.fit_rmsc(small, dash.Params(max_iter=2, beta=0.01))


def test_fit_rmsc_stops_early_on_request(small):
    class StopAt3:
        stop_requested = False

        def check(self):
            pass

        def record(self, point, latest=None):
            if point[0] >= 3:
                self.stop_requested = True

        def report(self, *a):
            pass

    r = dash.fit_rmsc(small, dash.Params(max_iter=20, tol=0.0, beta=0.01), StopAt3())
    assert r.n_iter == 3 and r.stopped_early
    assert any("stopped after 3" in msg for _, msg in r.diagnostics)


def test_fit_rmsc_cancelled_raises(small):
    job = dash.Job("k", lambda j: None)
    job.cancel()
    with pytest.raises(dash.Cancelled):
        dash.fit_rmsc(small, dash.Params(max_iter=5), job)


def test_fit_rmsc_too_large_beta_is_a_failure_with_the_estimators_message(small):
    out = dash.fit_rmsc(small, dash.Params(beta=1e4, max_iter=3))
    assert isinstance(out, dash.FitFailure) and out.degenerate
    # the estimator's message, in the pages' words
    assert out.message.startswith("β = 10000 is so large") and "all zero" in out.message
    # where Z* empties, for the Sensitivity page's grid: the estimator's own beta_max_
    est = rmsc.RMSC(n_clusters=3, beta=1e4, max_iter=3)
    with pytest.raises(ValueError):
        est.fit(list(small.views))
    assert out.beta_max == pytest.approx(est.beta_max_)


def test_fit_rmsc_without_labels_has_no_scores(small):
    data = small.replace(labels=None)
    r = dash.fit_rmsc(data, dash.Params(n_clusters=3, max_iter=5, beta=0.01))
    assert r.scores is None and r.metrics_table() is None and r.labels.shape == (45,)


def test_diagnose_names_isolated_samples_pieces_and_one_big_cluster(small):
    r = dash.fit_rmsc(small, dash.Params(max_iter=5, beta=0.01))
    n = small.n_samples
    # hand-made affinity: two linked pairs, the rest isolated
    S = sp.csr_matrix(([1.0] * 4, ([0, 1, 2, 3], [1, 0, 3, 2])), shape=(n, n))
    bad = dataclasses_replace(r, affinity=S, labels=np.zeros(n, dtype=int))
    text = [msg for level, msg in dash.diagnose(bad) if level == "warning"]
    assert any(f"{n - 4} sample(s) have no link" in m for m in text)
    assert any(f"falls into {n - 2} disconnected pieces" in m for m in text)
    assert any(f"One cluster holds {n} of {n}" in m for m in text)


def test_placed_samples_are_reported_not_called_arbitrary(small):
    import types

    r = dash.fit_rmsc(small, dash.Params(max_iter=5, beta=0.01))
    np.testing.assert_array_equal(r.placed, r.model.placed_)
    n = small.n_samples
    S = sp.csr_matrix(([1.0] * 4, ([0, 1, 2, 3], [1, 0, 3, 2])), shape=(n, n))
    placed = dataclasses_replace(r, affinity=S,
                                 model=types.SimpleNamespace(placed_=np.arange(4, n)))
    notes = dash.diagnose(placed)
    assert not any("have no link" in m for level, m in notes if level == "warning")
    assert any(f"{n - 4} sample(s) have no link" in m and "placed by their nearest neighbours"
               in m for level, m in notes if level == "info")
    assert dataclasses_replace(r, model=None).placed.size == 0  # made-up results


def dataclasses_replace(obj, **kw):
    import dataclasses

    return dataclasses.replace(obj, **kw)


def test_describe_error_is_one_readable_sentence():
    assert dash.describe_error(ValueError("beta too large")) == "beta too large"
    assert "Not enough memory" in dash.describe_error(MemoryError())
    assert dash.describe_error(ZeroDivisionError("x")).startswith("Unexpected ZeroDivisionError")


# ---------------------------------------------------------------------------
# Tables and helpers
# ---------------------------------------------------------------------------


def test_dataset_summary_lists_size_views_classes_and_outliers(small):
    rows = dict(dash.dataset_summary(small))
    assert rows["dataset"] == "small" and rows["samples n"] == "45"
    assert rows["views"] == "2 (A, B)" and rows["classes"] == "3"
    assert rows["injected outliers"] == "none"
    mask = np.zeros((2, 45), bool)
    mask[0, [1, 2, 3]] = True
    mask[1, [3, 4]] = True
    rows = dict(dash.dataset_summary(small.replace(outlier_mask=mask, labels=None)))
    assert rows["injected outliers"] == "4 samples (A 3, B 2)"
    assert rows["classes"] == "unlabelled"
    assert dash.dataset_summary(None) == [("dataset", "none loaded")]


def test_scale_plan_switches_to_summaries_for_large_data():
    small = dash.scale_plan(400)
    assert not small.large and small.scatter_points == 400
    mid = dash.scale_plan(2000)
    assert mid.scatter_points == 2000 and mid.weight_columns == dash.MAX_WEIGHT_COLUMNS < 2000
    assert any("pooled" in n for n in mid.notices)
    big = dash.scale_plan(50_000)
    assert big.scatter_points == dash.MAX_SCATTER_POINTS
    assert big.weight_columns == dash.MAX_WEIGHT_COLUMNS and len(big.notices) == 3
    assert mid.dense_views and not big.dense_views
    assert any(n.startswith("Each view's own Zᵛ")
               for n in dash.scale_plan(dash.MAX_DENSE_VIEW_SAMPLES + 1).notices)
    assert not any("weight heatmap" in n for n in big.notices)  # the Weights page says it


def test_subsample_keeps_the_marked_samples():
    keep = np.zeros(10_000, bool)
    keep[[5, 500, 9999]] = True
    idx = dash.subsample(10_000, 100, keep=keep)
    assert idx.size == 100 and np.all(np.diff(idx) > 0)
    assert {5, 500, 9999} <= set(idx.tolist())
    np.testing.assert_array_equal(dash.subsample(50, 100), np.arange(50))


def test_project_2d_of_planar_data_explains_everything():
    rng = np.random.default_rng(0)
    basis = np.linalg.qr(rng.standard_normal((5, 2)))[0].T  # a plane in R^5
    X = rng.standard_normal((60, 2)) @ basis + 3 * basis[0]  # offset keeps rows away from 0
    coords, explained = dash.project_2d(X)
    assert coords.shape == (60, 2)
    # unit-L2 rows of planar data lie on a circle in that plane: rank 2 after centring
    assert explained.sum() == pytest.approx(1.0)
    coords_s, explained_s = dash.project_2d(sp.csr_matrix(np.abs(X)))
    assert coords_s.shape == (60, 2) and np.all(explained_s >= 0)
    # many more features than samples takes the other solver, same answer as a plain SVD
    wide = rng.standard_normal((30, 3000))
    coords_w, _ = dash.project_2d(wide)
    from rmsc.preprocessing import normalize_l2

    centered = normalize_l2(wide) - normalize_l2(wide).mean(axis=0)
    U, s, _ = np.linalg.svd(centered, full_matrices=False)
    np.testing.assert_allclose(np.abs(coords_w), np.abs(U[:, :2] * s[:2]), atol=1e-8)
    one = dash.project_2d(np.arange(1, 11, dtype=float)[:, None])[0]
    assert one.shape == (10, 2) and np.all(one[:, 1] == 0)


def test_align_clusters_hand_worked_and_consistent_with_accuracy():
    y = np.array([0, 0, 1, 1, 2, 2])
    p = np.array([1, 1, 0, 0, 2, 0])
    np.testing.assert_array_equal(dash.align_clusters(y, p), [0, 0, 1, 1, 2, 1])
    assert dash.mistakes(y, p).tolist() == [False] * 5 + [True]
    rng = np.random.default_rng(1)
    for _ in range(20):
        y = rng.integers(0, 4, 50)
        p = rng.integers(0, 5, 50)  # more clusters than classes
        aligned = dash.align_clusters(y, p)
        assert np.mean(aligned == y) == pytest.approx(clustering_accuracy(y, p))


def test_order_by_groups_and_finds_boundaries():
    order, bounds, groups = dash.order_by([2, 0, 2, 1, 0])
    np.testing.assert_array_equal(order, [1, 4, 3, 0, 2])
    np.testing.assert_array_equal(bounds, [2, 3])
    np.testing.assert_array_equal(groups, [0, 1, 2])
    order, _, _ = dash.order_by([1, 1, 0, 0], secondary=[5, 3, 9, 1])
    np.testing.assert_array_equal(order, [3, 2, 1, 0])


def test_within_group_mass_hand_worked():
    S = np.array([[0, 2, 1], [2, 0, 0], [1, 0, 0]], dtype=float)
    assert dash.within_group_mass(S, [0, 0, 1]) == pytest.approx(4 / 6)
    assert dash.within_group_mass(sp.csr_matrix(S), [0, 0, 0]) == 1.0
    assert np.isnan(dash.within_group_mass(np.zeros((3, 3)), [0, 1, 2]))


def test_within_group_mass_dense_equals_sparse():
    rng = np.random.default_rng(0)
    S = rng.standard_normal((30, 30)) * (rng.random((30, 30)) < 0.3)
    labels = rng.integers(0, 4, 30)
    assert dash.within_group_mass(S, labels) == pytest.approx(
        dash.within_group_mass(sp.csr_matrix(S), labels))


def test_view_representation_affinities_pool_every_views_zv(small):
    from rmsc.pooling import pool_matrix

    r = dash.fit_rmsc(small, dash.Params(beta=0.01, seed=0))
    orders = {"class": dash.order_by(small.labels)[0], "cluster": dash.order_by(r.labels)[0]}
    pooled, pool, shares = dash.view_representation_affinities(
        r.model, small.views, orders, labels=small.labels, max_side=15)
    Zs = r.model.view_representations(list(small.views))
    assert pool == 3 and len(shares) == small.n_views
    for v, Z in enumerate(Zs):
        S = (np.abs(Z) + np.abs(Z.T)) / 2
        for name, order in orders.items():
            np.testing.assert_allclose(pooled[name][v], pool_matrix(S, order, 15)[0], rtol=1e-5)
        assert shares[v] == pytest.approx(dash.within_group_mass(sp.csr_matrix(S), small.labels))
    # the model kept by the result is the fitted estimator without the page's callback
    assert r.model.callback is None and r.model.consensus_.nnz == r.consensus.nnz


def test_view_affinity_is_the_baselines_knn_graph(small):
    from rmsc.graphs import knn_affinity
    from rmsc.preprocessing import normalize_l2

    S = dash.view_affinity(small.views[0])
    expect = knn_affinity(normalize_l2(small.views[0]))
    assert abs(S - sp.csr_matrix(expect)).max() < 1e-12
    assert (S != S.T).nnz == 0


def test_least_trusted_puts_the_distrusted_sample_first():
    P = np.ones((3, 8)) * np.array([[1.0], [10.0], [100.0]])
    P[1, 5] = 1.0  # a tenth of its view's median
    P[2, 2] = 50.0  # half of its view's median
    mask = np.zeros((3, 8), bool)
    mask[1, 5] = True
    table = dash.least_trusted(P, ["a", "b", "c"], labels=np.arange(8) % 2,
                               outlier_mask=mask, top=3)
    assert table["sample"].tolist()[:2] == [5, 2]
    assert table["in view"].tolist()[:2] == ["b", "c"]
    assert table["relative to view median"].iloc[0] == pytest.approx(0.1)
    assert table["injected in"].tolist()[:2] == ["b", ""]
    assert table["class"].iloc[0] == 1 and len(table) == 3


def test_sample_weights_percentile_and_bounds():
    P = np.array([[1.0, 2.0, 3.0, 4.0], [4.0, 3.0, 2.0, 1.0]])
    df = dash.sample_weights(P, ["a", "b"], 2)
    assert df["weight"].tolist() == [3.0, 2.0]
    assert df["view median"].tolist() == [2.5, 2.5]
    assert df["percentile in view"].tolist() == [50.0, 25.0]
    with pytest.raises(ValueError, match="choose 0 to 3"):
        dash.sample_weights(P, ["a", "b"], 4)


def test_weight_losses_invert_the_p_step():
    losses = np.array([[0.0, 0.5, 3.0], [1e-3, 2.0, 10.0]])
    for gamma in (1e-5, 1.0):
        np.testing.assert_allclose(dash.weight_losses(minimizer(losses, gamma), gamma), losses,
                                   atol=1e-9)


def test_image_tiles_and_class_examples():
    imgs = np.arange(2 * 3 * 4, dtype=float).reshape(2, 3, 4)
    tiles = dash.image_tiles(imgs, [1])
    assert len(tiles) == 1 and tiles[0].shape == (3, 4)
    assert tiles[0].max() == 1.0 and tiles[0].min() == pytest.approx(12 / 23)
    assert dash.class_examples([0, 1, 0, 2, 1], 1) == [0, 1, 3]
    assert dash.class_examples([0, 1, 0, 2, 1], 1, exclude=[1, 0, 0, 0, 0]) == [2, 1, 3]


# ---------------------------------------------------------------------------
# Downloads
# ---------------------------------------------------------------------------


@pytest.fixture
def fitted(small):
    return dash.fit_rmsc(small, dash.Params(max_iter=5, beta=0.01, seed=2))


def test_downloads_round_trip(fitted, small):
    labels = pd.read_csv(io.StringIO(dash.labels_csv(fitted, small.labels)))
    assert labels.columns.tolist() == ["sample", "cluster", "class"]
    np.testing.assert_array_equal(labels["cluster"], fitted.labels)
    weights = pd.read_csv(io.StringIO(dash.weights_csv(fitted, small.view_names)))
    assert weights.columns.tolist() == ["sample", "A", "B"]
    np.testing.assert_allclose(weights[["A", "B"]].to_numpy().T, fitted.weights)
    S = sp.load_npz(io.BytesIO(dash.affinity_npz(fitted)))
    assert abs(S - fitted.affinity).max() == 0


def test_config_json_reproduces_the_estimator(fitted, small):
    spec = dash.OutlierSpec(views=("A",), fraction=0.1)
    cfg = json.loads(dash.config_json(fitted, small, spec))
    assert cfg["method"] == "RMSC" and cfg["dataset"]["fingerprint"] == small.fingerprint
    assert cfg["outliers"]["views"] == ["A"]
    est = rmsc.get_method(cfg["method"], **cfg["estimator_params"])
    ref = rmsc.get_method("RMSC", **dash.estimator_params(fitted.params, small))
    assert est.get_params() == ref.get_params()
    assert cfg["result"]["scores"]["acc_mean"] == fitted.scores["acc_mean"]


# ---------------------------------------------------------------------------
# Experiments
# ---------------------------------------------------------------------------


def test_rmsc_method_params_carry_the_solve_settings(small):
    p = dash.Params(lam=2.0, beta=0.02, post="scale", weighting="view")
    out = dash.rmsc_method_params(p, small)
    assert list(out) == ["RMSC-WV"]
    assert out["RMSC-WV"]["lam"] == 2.0 and out["RMSC-WV"]["scale_columns"] is True
    assert "n_clusters" not in out["RMSC-WV"] and "random_state" not in out["RMSC-WV"]
    # Compare and the number-of-views experiment run Solve's relative β as it is
    rel = dash.rmsc_method_params(dash.Params(beta_rel=0.5), small)["RMSC"]
    assert rel["beta"] == dash.AUTO and rel["beta_rel"] == 0.5


def test_run_compare_reports_one_bar_over_all_variants(small):
    job = dash.Job("k", lambda j: None)
    corrupted = small.replace(views=[small.views[0], small.views[1][::-1]])
    params = {"RMSC": {"beta": 0.01, "max_iter": 5}}
    out = dash.run_compare({"clean": small, "with outliers": corrupted}, ["RMSC"], params,
                           random_state=0, job=job)
    assert list(out) == ["clean", "with outliers"]
    snap = job.snapshot()
    assert snap.total == 2 and snap.done == 2 and snap.message.startswith("with outliers")
    ref = rmsc.get_method("RMSC", n_clusters=3, beta=0.01, max_iter=5, random_state=0)
    assert out["clean"]["acc_mean"].iloc[0] == pytest.approx(
        rmsc.evaluate_runs(small.labels, ref.fit(small.views).label_runs_)["acc_mean"])
    table = dash.robustness_table(out)
    assert table.columns.tolist() == ["method", "clean %", "with outliers %", "change (points)"]
    assert table["change (points)"].iloc[0] == pytest.approx(
        table["with outliers %"].iloc[0] - table["clean %"].iloc[0])
    shown = dash.compare_display(out["clean"])
    assert shown["ACC %"].iloc[0] == (f"{100 * out['clean']['acc_mean'].iloc[0]:.2f} ± "
                                      f"{100 * out['clean']['acc_std'].iloc[0]:.2f}")
    with pytest.raises(ValueError, match="at least one method"):
        dash.run_compare({"x": small}, [])


def test_robustness_variants_every_kind_and_fraction(small):
    out = dash.robustness_variants(small, ["B"], random_state=4)
    kinds = rmsc.outliers.KINDS
    assert list(out) == ["clean"] + [f"{k} {p}%" for k in kinds for p in (10, 20)]
    assert out["clean"] is small
    for k in kinds:
        for f in dash.ROBUSTNESS_FRACTIONS:
            d = out[f"{k} {100 * f:g}%"]
            ref = rmsc.outliers.inject(small, ["B"], f, kind=k, random_state=4)
            assert d.fingerprint == ref.fingerprint
            assert d.outlier_mask[0].sum() == 0 and d.outlier_mask[1].sum() == round(f * 45)
    two = dash.robustness_variants(small, ["A", "B"], kinds=["noise"], fractions=[0.2])
    assert list(two) == ["clean", "noise 20%"]
    assert (two["noise 20%"].outlier_mask.sum(axis=1) == 9).all()
    with pytest.raises(ValueError, match="at least one view"):
        dash.robustness_variants(small, [])


def test_run_compare_cancelled_between_fits(small):
    job = dash.Job("k", lambda j: None)
    job.cancel()
    with pytest.raises(dash.Cancelled):
        dash.run_compare({"x": small}, ["RMSC"], job=job)


def test_run_sensitivity_and_views_report_progress(small):
    job = dash.Job("k", lambda j: None)
    df = dash.run_sensitivity(small, [0.3, 1.0], [0.01, 1e4], "RMSC", {"max_iter": 3}, job=job)
    assert len(df) == 4 and job.snapshot().done == 4
    assert df.loc[df["beta"] == 1e4, "error"].notna().all()
    job = dash.Job("k", lambda j: None)
    df = dash.run_views(small, ["RMSC"], {"RMSC": {"beta": 0.01, "max_iter": 3}}, job=job)
    assert df["n_views"].tolist() == [1, 2] and job.snapshot().total == 2


def test_compare_display_marks_failed_methods():
    df = pd.DataFrame([{"method": "X", "acc_mean": np.nan, "acc_std": np.nan,
                        "nmi_mean": np.nan, "nmi_std": np.nan, "ari_mean": np.nan,
                        "purity_mean": np.nan, "fit_time": 0.1, "error": "beta too large",
                        "note": None}])
    shown = dash.compare_display(df)
    assert shown["ACC %"].iloc[0] == "—" and shown["note"].iloc[0] == "β too large"


def test_compare_display_names_the_best_view_and_leaves_other_notes_empty(small):
    out = dash.run_compare({"clean": small}, ["SC-BSV", "RMSC"],
                           {"RMSC": {"beta": 0.01, "max_iter": 3}})["clean"]
    bsv = out[out["method"] == "SC-BSV"].iloc[0]
    shown = dash.compare_display(out, small.view_names)
    assert shown["note"].tolist() == [
        f"best view {small.view_names[int(bsv['view'])]} "
        f"(without labels: {small.view_names[int(bsv['nolabel_view'])]})", ""]  # not "nan"
    # without the names, the library's note (and still nothing for RMSC)
    assert dash.compare_display(out)["note"].tolist() == [bsv["note"], ""]


def test_sensitivity_axes_are_centered_on_where_z_star_empties():
    lams, betas = dash.sensitivity_axes(0.3, beta_max=1.0)
    assert lams == (0.03, 0.1, 0.3, 1.0, 3.0)
    assert betas == (0.01, 0.02, 0.05, 0.1, 0.2)  # beta_max / 100 .. / 5 on the slider grid
    assert set(lams) <= set(dash.LAM_GRID) and set(betas) <= set(dash.BETA_GRID)
    # it follows the data: ten times smaller beta_max, ten times smaller betas
    assert dash.sensitivity_axes(0.3, beta_max=0.1)[1] == (0.001, 0.002, 0.005, 0.01, 0.02)
    assert max(dash.sensitivity_axes(1.0, beta_max=0.05)[1]) < 0.05
    # and lambda: around the current value
    assert dash.sensitivity_axes(2.0, beta_max=1.0)[0] == (0.2, 0.5, 2.0, 5.0, 20.0)
    # no fit yet: the current beta (assumed to work) in the fourth place
    assert dash.sensitivity_axes(0.3, beta=0.3)[1] == (0.03, 0.05, 0.2, 0.3, 0.5)
    assert dash.sensitivity_axes(0.3) == (dash.DEFAULT_SENSITIVITY_LAMS,
                                          dash.DEFAULT_SENSITIVITY_BETAS)
    # the grid's ends: values collapse rather than leave the sliders' range
    assert dash.sensitivity_axes(0.3, beta_max=1e-6)[1] == (min(dash.BETA_GRID),)


def test_the_page_logic_never_imports_streamlit():
    import subprocess
    import sys

    code = ("import sys, rmsc.dashboard, rmsc.figures; "
            "sys.exit(int(any(m == 'streamlit' or m.startswith('streamlit.') "
            "for m in sys.modules)))")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_data_notes_name_views_and_samples_without_information(small):
    A, B = small.views
    assert dash.data_notes(small) == []

    def notes(*views):
        return dash.data_notes(small.replace(views=views))

    assert notes(A, np.zeros_like(B)) == [
        "View B is zero for every sample: it carries no information."]
    assert notes(A, np.full_like(B, 7.0)) == [
        "View B is the same for every sample: it cannot tell samples apart."]
    assert notes(sp.csr_matrix(np.ones((45, 3))), B)[0].startswith("View A is the same")
    A0 = A.copy()
    A0[[3, 9]] = 0
    assert notes(A0, sp.csr_matrix(B))[0].startswith("2 samples are all zero in view A: they")
    A0 = A.copy()
    A0[9] = 0
    assert notes(A0, B)[0].startswith("1 sample is all zero in view A: it carries")
    # a view named "view 1" is not "view view 1"
    named = small.replace(views=(A, np.zeros_like(B)), view_names=("view 0", "view 1"))
    assert dash.data_notes(named) == ["View 1 is zero for every sample: it carries no "
                                      "information."]
    A1 = A.copy()
    A1[[2, 4, 7]] = 0
    assert dash.data_notes(named.replace(views=(A1, B)))[0].startswith(
        "3 samples are all zero in view 0:")
    # a sample equal to another in every view (not in one view only) is a repeat
    A2, B2 = A.copy(), B.copy()
    A2[5], B2[5] = A2[0], B2[0]
    A2[6] = A2[1]
    assert notes(A2, sp.csr_matrix(B2)) == [
        "1 sample repeats another sample exactly in every view: RMSC cannot tell them apart "
        "(each is represented by its copies)."]
    # ... unless the description says so already (the bundled data say their own)
    said = small.replace(views=(A2, B2), description="Made up. 1 sample repeats another "
                         "sample exactly in every view, as in the source.")
    assert dash.data_notes(said) == []
    assert dash.data_notes(said.replace(description="Made up.")) == notes(A2, B2)


def test_the_bundled_data_say_their_repeated_samples_and_the_page_does_not_warn():
    digit = datasets.load_bundled("Digit")
    assert digit.repeated_samples() == 6
    assert "6 samples repeat another sample exactly in every view" in digit.description
    assert "FOU: 76 Fourier coefficients" in digit.description  # what each view measures
    assert dash.data_notes(digit) == []
    # the same data under another description (a user's upload) still warns
    assert dash.data_notes(digit.replace(name="mine", description="")) == [
        "6 samples repeat another sample exactly in every view: RMSC cannot tell them apart "
        "(each is represented by its copies)."]
    reuter = datasets.load_bundled("Reuter")
    assert reuter.repeated_samples() == 3 and "3 samples repeat" in reuter.description
    assert not [n for n in dash.data_notes(reuter) if "repeat" in n]
    assert "repeat" not in datasets.load_bundled("3-Sources").description


# ---------------------------------------------------------------------------
# The library's messages in the pages' words
# ---------------------------------------------------------------------------

#: What a page must never show: the estimator's argument and attribute spellings.
CODE_WORDS = ("beta=", "lam=", "beta_rel=", "beta_max_", "beta='auto'", "n_clusters", "beta ",
              " lam ")


def test_page_words_turn_the_advice_of_a_failed_beta_into_the_sliders_symbols():
    # both branches of the library's advice, from measured emptying betas
    column_betas = np.linspace(0.01, 1.0, 100)
    for beta in (0.5, 0.02):
        text, suggested = rmsc.rmsc.beta_advice(1.0, beta, column_betas, 0.25, 0.8227)
        assert "beta_max_" in text and f"beta={beta:.4g}" in text  # the library's own words
        page = dash.page_words(text)
        assert not [w for w in CODE_WORDS if w in page], page
        assert f"Measured on these data with λ = 1: at β = {beta:.4g}, " in page
        assert "and β ≥ 0.8227 empties Z*." in page and "β ≤ " in page
        assert f"Try β = {suggested:.3g}" in page
    assert "(β = auto with β_rel = 0.25)" in dash.page_words(
        rmsc.rmsc.beta_advice(1.0, 0.5, column_betas, 0.25)[0])
    assert "Here β = auto (β_rel = 0.25) would not be below the failed β, so step down" in dash.page_words(
        rmsc.rmsc.beta_advice(1.0, 0.001, column_betas, 0.25)[0])


def test_a_failed_fit_says_it_in_the_pages_words(small):
    with pytest.raises(rmsc.DegenerateSolutionError) as raised:
        rmsc.RMSC(n_clusters=3, beta=1000.0).fit(small.views)
    assert str(raised.value).startswith("beta=1000 is so large")  # the library keeps its own
    out = dash.fit_rmsc(small, dash.Params(beta=1000.0))
    assert isinstance(out, dash.FitFailure)
    assert out.message.startswith("β = 1000 is so large that the consensus Z* is all zero")
    assert not [w for w in CODE_WORDS if w in out.message], out.message


def test_progress_and_plain_words_are_left_as_people_read_them(small):
    messages = []
    rmsc.experiments.sensitivity_grid(small, [0.2], [0.02], progress=lambda d, t, m:
                                      messages.append(m))
    assert messages[0] == "small: RMSC lam=0.2, beta=0.02"  # the library's progress ...
    assert dash.page_words(messages[0]) == "small: RMSC λ = 0.2, β = 0.02"  # ... on a page
    assert dash.page_words("n_clusters=11 exceeds the number of samples (10). n_clusters must "
                           "be at least 2. Lower beta or raise lam.") == (
        "c = 11 exceeds the number of samples (10). The number of clusters c must be at least "
        "2. Lower β or raise λ.")
    # words that merely contain a name, and everything else, stay
    for text in ("lambda and beta_scale_ stay", "iteration 3 of at most 30", "betas", ""):
        assert dash.page_words(text) == text
    assert dash.page_words(None) is None


def test_the_data_pages_introduction_is_written_from_the_data(small):
    text = dash.data_intro(small)
    assert "**small** has 45 samples, each seen through 2 views: A and B. They belong to " \
           "3 classes." in text
    assert "coloured by class" in text and "Digit" not in text
    many = small.replace(views=small.views * 5, view_names=[f"v{k}" for k in range(10)])
    assert "10 views: v0 to v9." in dash.data_intro(many)
    bare = small.replace(labels=None)
    assert "This dataset has no labels." in dash.data_intro(bare)
    assert "coloured by class" not in dash.data_intro(bare)
    assert "Load one below" in dash.data_intro(None)


# ---------------------------------------------------------------------------
# The clustering along the iterations (the stability study)
# ---------------------------------------------------------------------------


def test_fit_rmsc_records_the_clustering_along_the_iterations(small):
    from rmsc.tracking import ClusteringTrace

    job = dash.Job("k", lambda j: None)
    params = dash.Params(max_iter=25, tol=0.0, beta=0.01)
    r = dash.fit_rmsc(small, params, job)
    every = dash.PAGE_TRACE_EVERY
    # rows at 1, every, 2 every, ... then the fit's own clustering; the job got the same
    assert [row["iteration"] for row in r.trace] == [1, *range(every, 26, every), 25]
    assert list(job.snapshot().rows) == list(r.trace)
    assert r.trace[-1]["final"] and not any(row["final"] for row in r.trace[:-1])
    # the same trace the library records on the estimator the page fits
    trace = ClusteringTrace(3, every=every, labels=small.labels, scale_columns=True,
                            random_state=params.seed)
    est = rmsc.get_method(params.method, callback=trace,
                          **dash.estimator_params(params, small)).fit(list(small.views))
    trace.finish(est)
    for mine, lib in zip(r.trace, trace.rows):
        assert {k: v for k, v in mine.items() if k != "seconds"} == pytest.approx(
            {k: v for k, v in lib.items() if k != "seconds"})
    # the final row's ACC is the protocol's (mean over the 20 k-means runs)
    assert r.trace[-1]["acc"] == pytest.approx(100 * r.scores["acc_mean"])
    np.testing.assert_allclose(r.changes, est.changes_)
    assert r.stop_on == est.stop_on


def test_trace_summary_reports_the_last_recorded_agreements():
    rows = [{"iteration": 1, "ari_previous": None, "changed": None, "final": False},
            {"iteration": 10, "ari_previous": 0.5, "changed": 30, "final": False},
            {"iteration": 20, "ari_previous": 0.98, "changed": 4, "final": False},
            {"iteration": 30, "ari_previous": 0.995, "changed": 1, "final": False},
            {"iteration": 40, "ari_previous": 1.0, "changed": 0, "final": False},
            {"iteration": 41, "ari_previous": 0.2, "changed": 90, "final": True}]
    text = dash.trace_summary(rows)
    # the last three quick clusterings (20, 30, 40): the lowest ARI, the most changed;
    # the final row (20 k-means, not the quick clustering) is left out
    assert "The last 3 recorded clusterings (iterations 20–40)" in text
    assert "ARI ≥ 0.980" in text and "at most 4 sample(s)" in text
    assert dash.trace_summary(rows[:1]) is None
    assert "The last recorded clustering (iteration 10)" in dash.trace_summary(rows[:2])


def test_an_unconverged_fit_says_what_the_stopping_rule_measured(small):
    r = dash.fit_rmsc(small, dash.Params(max_iter=12, beta=0.01))
    assert not r.converged
    notes = [m for _, m in r.diagnostics]
    assert not any("slightly" in m for m in notes)
    rule = [m for m in notes if m.startswith("Not converged within 12 iterations")]
    assert rule and f"{r.changes[-1]:.3g}" in rule[0] and "relative change of Z*" in rule[0]
    assert dash.trace_summary(r.trace) in notes


# ---------------------------------------------------------------------------
# Compare: each method's own post-processing by default, the same for all on request
# ---------------------------------------------------------------------------


def test_compare_params_give_each_method_its_own_or_every_method_the_same_affinity(small):
    params = dash.Params(post="top_k+scale", top_k=7, beta=0.01)
    methods = ["RMSC", "RMSC-WV", "SSC-AVG", "DiMSC", "Co-Training"]
    assert list(dash.COMPARE_POSTPROCESSING)[0] == "own"  # the page's default
    own = dash.compare_params(params, small, methods)
    assert own == dash.compare_params(params, small, methods, postprocessing="own")
    assert own["SSC-AVG"]["scale_columns"] is False and own["SSC-AVG"]["top_k"] is None
    assert own["DiMSC"]["scale_columns"] is False
    # RMSC-WV (not the Solve page's method): everything as the registry builds it
    wv = rmsc.get_method("RMSC-WV").get_params()
    assert own["RMSC-WV"] == {k: wv[k] for k in own["RMSC-WV"]}
    assert own["RMSC-WV"]["scale_columns"] is True and own["RMSC-WV"]["placement"] == \
        wv["placement"]
    assert own["RMSC"]["top_k"] == 7  # the Solve page's method keeps its choice
    assert own["RMSC"]["beta"] == 0.01
    assert "Co-Training" not in own  # nothing the protocol would set otherwise
    assert dash.compare_params(params, small, methods, use_solve=False)["RMSC"]["top_k"] is None
    same = dash.compare_params(params, small, methods, postprocessing="same")
    for m in ("RMSC", "RMSC-WV", "SSC-AVG", "DiMSC"):
        assert {k: same[m][k] for k in ("keep_mass", "top_k", "scale_columns")} == \
            {"keep_mass": None, "top_k": 7, "scale_columns": True}, m
    assert "Co-Training" not in same  # no self-representation: nothing to set
    assert same["RMSC"]["beta"] == 0.01  # the Solve page's other settings stay
    with pytest.raises(ValueError, match="own, same"):
        dash.compare_params(params, small, methods, postprocessing="mine")


def test_compare_caption_speaks_only_of_the_methods_that_ran():
    assert dash.compare_caption(["RMSC", "SSC-AVG"]) == ""
    text = dash.compare_caption(["SSC-BSV", "RMSC"])
    assert text.startswith("SSC-BSV reports the best single view") and "SC-BSV and" not in text
    assert "'—'" not in text
    both = dash.compare_caption(["SC-BSV", "SSC-BSV", "MSC"])
    assert both.startswith("SC-BSV and SSC-BSV report ") and "'—'" in both


def test_sensitivity_settings_keep_the_solve_pages_placement_and_tolerance():
    p = dash.Params(placement=False, tol=1e-4)
    base = dash.sensitivity_settings(p, "RMSC")
    assert base["placement"] is None and base["tol"] == 1e-4
    assert dash.sensitivity_settings(dash.Params(), "RMSC")["placement"] == \
        rmsc.RMSC().placement


def test_postprocessing_used_names_what_each_row_ran():
    names = dash.POSTPROCESSING_NAMES
    # nothing said: the protocol's affinity, the paper's
    assert dash.postprocessing_used("SSC-AVG", {}) == names["none"]
    assert dash.postprocessing_used("RMSC", {"scale_columns": True}) == names["scale"]
    assert dash.postprocessing_used("RMSC", {"top_k": 5, "scale_columns": True}) == \
        names["top_k+scale"]
    assert dash.postprocessing_used("RMSC", {"keep_mass": 0.7, "scale_columns": True}) == \
        names["rho+scale"]
    assert dash.postprocessing_used("Co-Training", {}) == "—"
    for post in names:  # every choice of the Solve page reads back as itself
        p = dash.Params(post=post).postprocessing
        assert dash.postprocessing_used("DiMSC", p) == names[post]


class ElsewhereSender:
    """A sender like rmsc.dashboard.DaskSender: the task runs elsewhere (a thread standing
    for a worker process), and the job's own thread ends as soon as the job is cancelled,
    while the task winds down on its own at its next step."""

    def run(self, job, task):
        out = {}

        def work():
            try:
                out["result"] = task(job)
            except dash.Cancelled:
                pass

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        while worker.is_alive():
            if job.cancelled:
                raise dash.Cancelled(job.label)
            job.wait_for_request(0.01)
        return out.get("result")


def test_the_latest_move_wins_without_waiting_for_the_moves_before():
    """Three slider moves before any fit ends: the first two fits are cancelled (nobody
    waits for them) and the last starts at once, while their tasks are still at a step."""
    registry = dash.JobRegistry()
    slot = dash.JobSlot(registry, ElsewhereSender())
    gates = {k: Gate(steps=3) for k in "abc"}
    jobs = {}
    for k in "abc":
        jobs[k] = slot.submit(k, gates[k])
        _wait_until(lambda: slot.current is jobs[k] or slot.queued is jobs[k])
    for k in "ab":  # their tasks never got past their first step
        assert jobs[k].wait(5) and jobs[k].state == dash.CANCELLED and jobs[k].result is None
    _wait_until(lambda: slot.current is jobs["c"] and jobs["c"].active)
    gates["c"].go.release(3)
    assert jobs["c"].wait(5) and jobs["c"].state == dash.DONE and jobs["c"].result == 3
    assert slot.latest is jobs["c"] and len(registry) == 0
    # another session watching a fit keeps it going when this one moves on
    other = dash.JobSlot(registry, ElsewhereSender())
    gd = Gate(steps=1)
    d = slot.submit("d", gd)
    assert other.submit("d", Gate()) is d
    e = slot.submit("e", Gate(steps=1))
    assert not d.cancelled
    gd.go.release()
    e._task.go.release()
    assert d.wait(5) and d.state == dash.DONE and e.wait(5) and e.state == dash.DONE
    for g in gates.values():
        g.go.release(3)  # let the cancelled tasks end


def test_runs_in_parts_give_the_tables_of_the_runs_one_fit_after_another(small):
    """compare_parts, sensitivity_parts and views_parts: one part per group of fits that
    share a solve (SSC-AVG with SSC-BSV), the same tables as run_compare & co."""
    methods = ["RMSC", "RMSC-WV", "SSC-AVG", "SSC-BSV"]
    variants = {"clean": small,
                "noisy": dash.OutlierSpec(views=("A",), fraction=0.2).inject(small)}
    task = dash.compare_parts(variants, methods, None, 3)
    assert sorted(len(p.args[1]) for p in task.parts) == [1, 1, 1, 1, 2, 2]
    assert sum(p.share for p in task.parts) == pytest.approx(1.0)
    job = dash.Job("c", task).start()
    assert job.wait(120) and job.state == dash.DONE, job.error
    ref = dash.run_compare(variants, methods, None, 3)
    assert list(job.result) == list(ref) == ["clean", "noisy"]
    for name in ref:
        got, want = job.result[name], ref[name]
        assert got["method"].tolist() == want["method"].tolist()
        pd.testing.assert_frame_equal(got.drop(columns="fit_time"), want.drop(columns="fit_time"))
    assert (job.snapshot().done, job.snapshot().total) == (8, 8)
    job = dash.Job("s", dash.sensitivity_parts(small, [0.1, 1.0], [0.01, 0.1], "RMSC",
                                               {"max_iter": 5}, 0)).start()
    assert job.wait(120) and job.state == dash.DONE, job.error
    ref = dash.run_sensitivity(small, [0.1, 1.0], [0.01, 0.1], "RMSC", {"max_iter": 5}, 0)
    pd.testing.assert_frame_equal(job.result.drop(columns="fit_time"),
                                  ref.drop(columns="fit_time"))
    job = dash.Job("v", dash.views_parts(small, ["RMSC", "Co-Training"], None, 0)).start()
    assert job.wait(120) and job.state == dash.DONE, job.error
    ref = dash.run_views(small, ["RMSC", "Co-Training"], None, 0)
    pd.testing.assert_frame_equal(job.result.drop(columns="fit_time"),
                                  ref.drop(columns="fit_time"))


def test_the_sidebar_names_the_post_processing_as_the_solve_page_does():
    # one name per setting: the Solve page's select, the sidebar, `rmsc fit --scale-columns`
    assert dash.Params(post="scale").summary()[2] == "affinity post-processing: scale columns"
    assert dash.Params(post="top_k+scale", top_k=7).summary()[2] == \
        "affinity post-processing: top-7, then scale"
    assert dash.Params(post="rho+scale", keep_mass=0.5, placement=False).summary()[2] == \
        "affinity post-processing: ρ = 0.5, then scale; no placement of isolated samples"
