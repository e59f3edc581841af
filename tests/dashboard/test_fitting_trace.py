"""The clustering along the iterations (the stability study) (rmsc.dashboard), without a browser
(rmsc.dashboard.fitting): recorded by the fit, summarised, and what an unconverged fit says."""

import numpy as np
import pytest

import rmsc
from rmsc import dashboard as dash


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
