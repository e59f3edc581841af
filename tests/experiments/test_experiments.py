"""rmsc.experiments: compare, accuracy_vs_views, sensitivity_grid on small synthetic data."""

import numpy as np
import pandas as pd
import pytest

import rmsc
from rmsc import evaluate_runs, experiments, get_method
from rmsc.datasets import MultiViewDataset
from rmsc.experiments import Cache

from tests.support import union_of_subspaces


@pytest.fixture
def toy():
    views, y = union_of_subspaces(n_per=15, dims=(8, 12, 10))
    return MultiViewDataset(name="toy", views=views, labels=y, view_names=("A", "B", "C"))


@pytest.fixture
def toy_noise_view():
    """View A is informative, view B is pure noise."""
    views, y = union_of_subspaces(n_per=15, dims=(8, 12))
    views[1] = np.random.default_rng(3).standard_normal(views[1].shape)
    return MultiViewDataset(name="toy2", views=views, labels=y, view_names=("A", "noise"))


def test_compare_scores_every_method_like_a_direct_fit(toy):
    calls = []
    df = experiments.compare(toy, ["RMSC", "ssc-avg", "Co-Pairwise"],
                             params={"rmsc": {"lam": 1.0, "beta": 0.02}},
                             progress=lambda d, t, m: calls.append((d, t, m)))
    assert list(df.columns[:9]) == ["method", "acc_mean", "acc_std", "nmi_mean", "nmi_std",
                                    "ari_mean", "purity_mean", "fit_time", "error"]
    # Table 1 order, whatever order they were asked in.
    assert df["method"].tolist() == ["Co-Pairwise", "SSC-AVG", "RMSC"]
    assert df["error"].isna().all()
    # The RMSC row equals a direct fit with the same parameters and seed.
    est = get_method("RMSC", n_clusters=3, lam=1.0, beta=0.02, random_state=0).fit(toy.views)
    direct = evaluate_runs(toy.labels, est.label_runs_)
    row = df.set_index("method").loc["RMSC"]
    for k in ("acc_mean", "acc_std", "nmi_mean", "nmi_std", "ari_mean", "purity_mean"):
        assert row[k] == pytest.approx(direct[k])
    assert row["params"] == {"lam": 1.0, "beta": 0.02}
    assert (df["acc_mean"].iloc[1:] > 0.9).all() and (df["fit_time"] > 0).all()
    # k-NN graphs suit these subspaces less well, but the row is a real score.
    assert 1 / 3 < df["acc_mean"].iloc[0] <= 1
    assert [c[:2] for c in calls] == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert "SSC-AVG" in calls[1][2]


def test_compare_keeps_going_when_one_method_fails(toy):
    df = experiments.compare(toy, ["RMSC", "SSC-AVG"],
                             params={"RMSC": {"lam": 1.0, "beta": 1e4}})
    bad = df.set_index("method").loc["RMSC"]
    assert np.isnan(bad["acc_mean"]) and "beta" in bad["error"]
    good = df.set_index("method").loc["SSC-AVG"]
    assert pd.isna(good["error"]) and good["acc_mean"] > 0.9
    # An unknown parameter is a clear error in the row, not a crash.
    df = experiments.compare(toy, ["MSC"], params={"MSC": {"lam": 1.0}})
    assert "MSC does not take the parameter(s) lam" in df.loc[0, "error"]


def test_compare_best_single_view_with_and_without_labels(toy_noise_view):
    df = experiments.compare(toy_noise_view, ["SSC-BSV"], params={"SSC-BSV": {"beta": 0.01}})
    row = df.iloc[0]
    assert row["view"] == 0 and "chosen with labels" in row["note"]
    assert row["acc_mean"] >= 0.9
    # The eigengap picks the informative view too, and its scores are reported beside.
    assert row["nolabel_acc_mean"] == pytest.approx(row["acc_mean"])
    assert not np.isnan(row["nolabel_nmi_std"])


def test_compare_bad_input_is_a_clear_error(toy):
    with pytest.raises(ValueError, match="Unknown method 'nope'"):
        experiments.compare(toy, ["nope"])
    with pytest.raises(ValueError, match="has no labels"):
        experiments.compare(toy.replace(labels=None), ["RMSC"])
    with pytest.raises(ValueError, match="params must be a dict"):
        experiments.compare(toy, ["RMSC"], params=[1, 2])


def test_accuracy_vs_views_adds_views_in_order(toy_noise_view):
    df = experiments.accuracy_vs_views(toy_noise_view, ["SSC-AVG", "Co-Centroid"],
                                       params={"SSC-AVG": {"beta": 0.01}})
    assert list(df.columns[:7]) == ["method", "n_views", "views", "acc_mean", "acc_std",
                                     "nmi_mean", "nmi_std"]
    assert df[["method", "n_views", "views"]].values.tolist() == [
        ["Co-Centroid", 1, "A"], ["SSC-AVG", 1, "A"],
        ["Co-Centroid", 2, "A+noise"], ["SSC-AVG", 2, "A+noise"]]
    by = df.set_index(["method", "n_views"])
    # Co-Centroid needs two views: its one-view row says so instead of a score.
    assert "at least 2" in by.loc[("Co-Centroid", 1), "error"]
    assert np.isnan(by.loc[("Co-Centroid", 1), "acc_mean"])
    # SSC-AVG on the first view alone is SSC on that view.
    single = get_method("SSC-AVG", n_clusters=3, beta=0.01, random_state=0).fit(
        [toy_noise_view.views[0]])
    assert by.loc[("SSC-AVG", 1), "acc_mean"] == pytest.approx(
        evaluate_runs(toy_noise_view.labels, single.label_runs_)["acc_mean"])
    # Averaging in a pure-noise view hurts SSC-AVG (the paper's point about naive averaging).
    assert by.loc[("SSC-AVG", 2), "acc_mean"] < by.loc[("SSC-AVG", 1), "acc_mean"]


def test_sensitivity_grid_covers_the_grid_and_records_failures(toy):
    seen = []
    df = experiments.sensitivity_grid(toy, [0.3, 3.0], [0.01, 1e4], params={"max_iter": 5},
                                      progress=lambda d, t, m: seen.append(d))
    assert list(df.columns[:7]) == ["lam", "beta", "acc_mean", "acc_std", "nmi_mean",
                                    "nmi_std", "fit_time"]
    assert df[["lam", "beta"]].values.tolist() == [[0.3, 0.01], [0.3, 1e4], [3.0, 0.01],
                                                   [3.0, 1e4]]
    ok = df[df["beta"] == 0.01]
    assert ok["error"].isna().all() and (ok["acc_mean"] > 0.9).all()
    failed = df[df["beta"] == 1e4]
    assert failed["acc_mean"].isna().all() and failed["error"].str.contains("beta").all()
    assert seen == [0, 1, 2, 3, 4]
    direct = get_method("RMSC", n_clusters=3, lam=3.0, beta=0.01, max_iter=5,
                        random_state=0).fit(toy.views)
    assert df.loc[2, "nmi_mean"] == pytest.approx(
        evaluate_runs(toy.labels, direct.label_runs_)["nmi_mean"])
    with pytest.raises(ValueError, match="axes"):
        experiments.sensitivity_grid(toy, [1.0], [0.1], params={"lam": 2.0})
    with pytest.raises(ValueError, match="at least one lam"):
        experiments.sensitivity_grid(toy, [], [0.1])


def test_experiments_share_the_cache_and_do_not_refit(toy, monkeypatch, tmp_path):
    cache = Cache(tmp_path / "runs.json")
    first = experiments.sensitivity_grid(toy, [1.0], [0.02], cache=cache)
    monkeypatch.setattr(experiments.protocol, "run_one", lambda *a, **k: pytest.fail("refitted"))
    again = experiments.sensitivity_grid(toy, [1.0], [0.02], cache=Cache(tmp_path / "runs.json"))
    pd.testing.assert_frame_equal(first, again)
    # compare with the same parameters finds the same cached fit.
    df = experiments.compare(toy, ["RMSC"], params={"RMSC": {"lam": 1.0, "beta": 0.02}},
                             cache=cache)
    assert df.loc[0, "acc_mean"] == first.loc[0, "acc_mean"]


def test_the_protocol_fits_the_papers_model_unless_told_and_only_rmscs():
    from rmsc.experiments.protocol import PAPER_SOLVER, at_library_defaults, run_one

    d = rmsc.datasets.make_multiview_subspaces(n_clusters=3, n_per_cluster=15, n_views=2,
                                               view_dims=(8, 12), random_state=0)
    # RMSC: the paper's model and former stopping unless the params say otherwise
    _, est = run_one("RMSC", {}, d.views, d.labels)
    assert {k: est.get_params()[k] for k in PAPER_SOLVER} == PAPER_SOLVER
    assert est.loss_scale_ is None and est.n_iter_ <= 30
    # at the library's defaults: every model and stopping parameter is the estimator's own
    lib = at_library_defaults("RMSC", {"lam": 2.0})
    default = rmsc.RMSC().get_params()
    assert lib["lam"] == 2.0 and all(lib[k] == default[k] for k in PAPER_SOLVER)
    _, est = run_one("RMSC", lib, d.views, d.labels)
    assert est.loss_scale == "median" and est.loss_scale_ is not None
    # SSC-AVG's tol and max_iter are its own ADMM's: the protocol leaves them alone
    ssc_default = rmsc.get_method("SSC-AVG").get_params()
    _, est = run_one("SSC-AVG", {}, d.views, d.labels)
    assert est.get_params()["max_iter"] == ssc_default["max_iter"]
    assert est.get_params()["tol"] == ssc_default["tol"]
    assert at_library_defaults("SSC-AVG", {"beta": 0.1}) == {"beta": 0.1}
