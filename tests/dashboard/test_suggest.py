"""The Solve page's label-free suggestion as a job (rmsc.dashboard.suggest), without a browser."""

import numpy as np
import pandas as pd
import pytest

import rmsc
from rmsc import dashboard as dash
from rmsc.datasets import MultiViewDataset
from rmsc.selection import Suggestion, suggest_parameters

from tests.support import union_of_subspaces


@pytest.fixture
def small():
    views, labels = union_of_subspaces(n_per=15, n_clusters=3, dims=(8, 12), seed=1)
    return MultiViewDataset(name="small", views=views, labels=labels, view_names=("A", "B"))


#: Solve settings that differ from the defaults, so that the test sees them carried over.
SOLVE = dict(gamma=1e-4, max_iter=10, post="scale", seed=2)


class Recorder:
    """A job's reporting half that keeps every call."""

    def __init__(self):
        self.calls = []

    def report(self, done, total, message=""):
        self.calls.append((done, total, message))

    def check(self):
        pass


def reference(data, params, **grid):
    """suggest_parameters called by hand with the page's settings."""
    return suggest_parameters(
        list(data.views), data.n_clusters, weighting=params.weighting,
        random_state=params.seed, gamma=params.gamma, max_iter=params.max_iter, tol=params.tol,
        **params.postprocessing, placement=rmsc.RMSC().get_params()["placement"],
        **grid)


@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_the_runner_equals_suggest_parameters_with_the_solve_settings(small, weighting):
    p = dash.Params(weighting=weighting, lam=10.0, beta=0.5, **SOLVE)
    rec = Recorder()
    run = dash.run_suggestion(small, p, job=rec)
    ref = reference(small, p)
    s = run.suggestion
    pd.testing.assert_frame_equal(pd.DataFrame(s.table), pd.DataFrame(ref.table))
    assert s.best == ref.best and s.params == ref.params and s.beta == ref.beta
    assert s.model is None  # the page needs the numbers only
    assert run.weighting == weighting and run.n_clusters == 3
    # scored against the labels after the choice (not used to choose)
    expect = rmsc.evaluate_runs(small.labels, ref.model.label_runs_)
    assert run.scores["acc_mean"] == expect["acc_mean"]
    assert run.scores["nmi_mean"] == expect["nmi_mean"]
    # one report before each of the 8 settings, then one at the end
    total = len(rmsc.selection.SUGGEST_LAMS) * len(rmsc.selection.SUGGEST_BETA_RELS)
    assert [c[:2] for c in rec.calls] == [(k, total) for k in range(total + 1)]
    lam0, rel0 = rmsc.selection.SUGGEST_LAMS[0], rmsc.selection.SUGGEST_BETA_RELS[0]
    assert rec.calls[0][2] == f"setting 1 of {total}: lam={lam0:g}, beta_rel={rel0:g}"
    assert rec.calls[-1][2] == "done"


def test_the_current_lambda_and_beta_do_not_change_the_run_or_its_key(small):
    p = dash.Params(**SOLVE)
    other = p.replace(lam=5.0, beta=0.02)
    relative = p.replace(lam=5.0, beta_rel=2.0)  # the page's β_rel is chosen too
    assert "beta_rel" not in dash.suggestion_settings(relative, small)
    assert dash.suggestion_key(p, small) == dash.suggestion_key(other, small) == \
        dash.suggestion_key(relative, small)
    grid = dict(lams=(0.3, 3.0), beta_rels=(0.25,))
    a, b = dash.run_suggestion(small, p, **grid), dash.run_suggestion(small, other, **grid)
    c = dash.run_suggestion(small, relative, **grid)
    for run in (b, c):
        pd.testing.assert_frame_equal(pd.DataFrame(a.suggestion.table),
                                      pd.DataFrame(run.suggestion.table))
    for change in (dict(weighting="view"), dict(gamma=1e-3), dict(seed=3), dict(post="none"),
                   dict(n_clusters=4)):
        assert dash.suggestion_key(p.replace(**change), small) != dash.suggestion_key(p, small)


def test_cancelling_stops_between_settings(small, monkeypatch):
    job = dash.Job("k", lambda j: None)
    fits = []
    real_fit = rmsc.RMSC.fit

    def fit_then_cancel(self, Xs, y=None):
        fits.append(self.lam)
        out = real_fit(self, Xs, y)
        job.cancel()  # the user cancels while the first setting is fitted
        return out

    monkeypatch.setattr(rmsc.RMSC, "fit", fit_then_cancel)
    with pytest.raises(dash.Cancelled):
        dash.run_suggestion(small, dash.Params(**SOLVE), job=job)
    assert fits == [rmsc.selection.SUGGEST_LAMS[0]]  # the first setting finished, no other
    snap = job.snapshot()
    assert snap.done == 1 and snap.total == 8 and snap.message.startswith("setting 2 of 8")


def test_cancelling_also_ends_the_setting_being_fitted(small):
    class CancelAtThirdIteration(Recorder):
        checks = 0

        def check(self):
            self.checks += 1
            if self.checks == 3:
                raise dash.Cancelled("k")

    job = CancelAtThirdIteration()
    p = dash.Params(gamma=1e-4, max_iter=50, tol=0.0)  # 50 iterations per setting if not cut
    with pytest.raises(dash.Cancelled):
        dash.run_suggestion(small, p, job=job)
    assert job.checks == 3 and len(job.calls) == 1  # in the first setting, at its 3rd iteration


def test_a_cancelled_job_in_a_thread_ends_cancelled_without_a_result(small, monkeypatch):
    real_fit = rmsc.RMSC.fit
    holder = {}

    def fit_then_cancel(self, Xs, y=None):
        out = real_fit(self, Xs, y)
        holder["job"].cancel()
        return out

    monkeypatch.setattr(rmsc.RMSC, "fit", fit_then_cancel)
    job = dash.Job("k", lambda j: dash.run_suggestion(small, dash.Params(**SOLVE), job=j))
    holder["job"] = job
    job.start()
    assert job.wait(120)
    assert job.state == dash.CANCELLED and job.result is None


def test_no_usable_setting_is_a_message(small):
    p = dash.Params(**SOLVE)
    with pytest.raises(rmsc.DegenerateSolutionError, match="None of the 2 settings"):
        dash.run_suggestion(small, p, lams=(0.3, 1.0), beta_rels=(1e6,))
    job = dash.Job("k", lambda j: dash.run_suggestion(small, p, job=j, lams=(1.0,),
                                                      beta_rels=(1e6,))).start()
    assert job.wait(120)
    assert job.state == dash.FAILED
    assert job.error.startswith("None of the 1 settings") and "Traceback" not in job.error


def test_apply_moves_lambda_and_beta_rel_and_keeps_the_rest():
    base = dash.Params(gamma=1e-4, max_iter=30, post="scale", seed=4, beta=0.01, lam=0.1)
    table = [{"lam": 3.0, "beta_rel": 0.5, "beta": 0.123, "eigengap": 0.4, "isolated": 0,
              "pieces": 3}]
    rel_half = dash.SuggestionRun(Suggestion(params={"lam": 3.0, "beta": "auto", "beta_rel": 0.5},
                                             beta=0.123, table=table, best=0),
                                  weighting="view", n_clusters=3)
    out = dash.apply_suggestion(base, rel_half)
    # beta_rel 0.5 travels as it is (β = auto in the data's units), not as the 0.123 it gave
    assert out == base.replace(lam=3.0, beta=dash.AUTO, beta_rel=0.5, weighting="view")
    assert out.to_query()["beta_rel"] == "0.5" and "beta" not in out.to_query()
    at_auto = dash.SuggestionRun(
        Suggestion(params={"lam": 1.0, "beta": "auto", "beta_rel": dash.auto_beta_rel("sample")},
                   beta=0.7, table=table, best=0), weighting="sample", n_clusters=3)
    applied = dash.apply_suggestion(base.replace(beta=dash.AUTO, beta_rel=2.0), at_auto)
    assert applied == base.replace(lam=1.0, beta=dash.AUTO)  # the default β_rel
    assert applied.resolved_beta_rel == dash.auto_beta_rel("sample")
    assert dash.auto_beta_rel("view") == rmsc.get_method("RMSC-WV")._beta_rel()


@pytest.mark.parametrize("beta_rels", [(0.5,), (dash.auto_beta_rel("sample"),)])
def test_the_applied_parameters_fit_the_suggested_model(small, beta_rels):
    p = dash.Params(**SOLVE)
    run = dash.run_suggestion(small, p, lams=(0.3, 3.0), beta_rels=beta_rels)
    applied = dash.apply_suggestion(p, run)
    assert applied.beta == dash.AUTO and applied.resolved_beta_rel == beta_rels[0]
    # what the Solve page then fits (rmsc.dashboard.fit_rmsc) is the suggested setting
    fit = dash.fit_rmsc(small, applied)
    assert fit.beta == run.suggestion.beta
    assert fit.scores["acc_mean"] == run.scores["acc_mean"]
    assert fit.params.lam == run.suggestion.params["lam"]
    assert fit.model.beta_rel_ == pytest.approx(beta_rels[0])


def test_the_table_marks_the_suggestion_and_explains_failures():
    sug = Suggestion(params={"lam": 1.0, "beta": "auto", "beta_rel": 0.25}, beta=0.3, best=1,
                     table=[
                         {"lam": 0.3, "beta_rel": 0.25, "beta": 0.2, "eigengap": 0.1,
                          "isolated": 2, "pieces": 5, "agreement": 0.7},
                         {"lam": 1.0, "beta_rel": 0.25, "beta": 0.3, "eigengap": 0.6,
                          "isolated": 0, "pieces": 3, "agreement": 0.95},
                         {"lam": 1.0, "beta_rel": 9.0, "beta": 5.0,
                          "error": "beta=5 is so large that the consensus Z* is all zero, so "
                                   "there is nothing to cluster. Try beta=0.3."}])
    df = dash.suggestion_table(sug)
    assert df.columns.tolist() == ["λ", "β_rel", "β", "isolated", "pieces", "agreement (ARI)",
                                   "eigengap", "suggested", "note"]
    assert df["agreement (ARI)"].tolist()[:2] == [0.7, 0.95]
    assert df["suggested"].tolist() == [False, True, False]
    assert df["isolated"].iloc[0] == 2 and pd.isna(df["isolated"].iloc[2])
    assert np.isnan(df["eigengap"].iloc[2])
    # the failure's first sentence, in the page's words (β, not the estimator's beta=)
    assert df["note"].iloc[2] == ("β = 5 is so large that the consensus Z* is all zero, so "
                                  "there is nothing to cluster.")
    assert df["note"].iloc[1] == ""


def test_the_figure_marks_the_suggestion_of_a_real_run(small):
    from rmsc import figures

    run = dash.run_suggestion(small, dash.Params(**SOLVE))
    s = run.suggestion
    fig = figures.suggestion_figure(s.table, s.best, n_clusters=run.n_clusters)
    star = [t for t in fig.data if t.name.startswith("suggested")]
    assert len(star) == 1
    chosen = s.table[s.best]
    assert list(star[0].x) == [chosen["lam"]] and list(star[0].y) == [chosen["agreement"]]
