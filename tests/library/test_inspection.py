"""rmsc.inspection: the weights' shares, the cap, the pooled heatmap."""

import numpy as np
import pytest

import rmsc
from rmsc.inspection import (
    at_cap,
    heatmap_pool,
    pooled_columns,
    trust_vs_quality,
    view_quality,
    view_weight_shares,
    weight_change,
    weight_change_summary,
)


def test_at_cap_is_loss_at_most_gamma():
    gamma = 1e-4
    losses = np.array([[0.0, 0.5e-4, 1e-4, 1.01e-4, 1.0]])
    P = 1.0 / np.sqrt(gamma + losses)
    assert at_cap(P, gamma).tolist() == [[True, True, True, False, False]]
    assert not at_cap(P, 0.0).any()


def test_shares_add_up_and_follow_the_models_factors():
    P = np.array([[1.0, 3.0], [2.0, 2.0]])
    rows = view_weight_shares(P, gamma=1e-5, view_names=["a", "b"])
    assert [r["share"] for r in rows] == pytest.approx([0.5, 0.5])
    assert [r["mean_weight"] for r in rows] == pytest.approx([2.0, 2.0])
    rows = view_weight_shares(P, gamma=1e-5, factors=np.array([3.0, 1.0]))
    assert [r["share"] for r in rows] == pytest.approx([12 / 16, 4 / 16])
    # the loss behind a weight: 1/P^2 - gamma, times the view's unit when scaled
    rows = view_weight_shares(P, gamma=0.0, scale=np.array([2.0, 1.0]))
    assert rows[0]["median_loss"] == pytest.approx(2.0 * np.median([1.0, 1 / 9]))
    assert rows[1]["median_loss"] == pytest.approx(0.25)


def test_heatmap_pool_orders_by_class_then_weight_and_pools_by_minimum():
    rng = np.random.default_rng(2)
    n = 1000
    y = np.repeat(np.arange(4), 250)
    P = rng.uniform(0.9, 1.1, size=(2, n))
    low = [17, 263, 777]
    P[1, low] = 0.05                        # three outliers in view 2
    h = heatmap_pool(P, y, max_columns=100, relative=False)
    assert sorted(h.order.tolist()) == list(range(n))
    assert h.values.shape == (2, 100) and h.bounds[0] == 0 and h.bounds[-1] == n
    # classes are contiguous and in order, each with its share of the columns
    assert [g[0] for g in h.groups] == [0, 1, 2, 3]
    assert [g[2] - g[1] for g in h.groups] == [25, 25, 25, 25]
    assert all(np.all(y[h.order[h.bounds[g[1]]:h.bounds[g[2]]]] == g[0]) for g in h.groups)
    # each pooled value is the minimum of its column's samples (brute force)
    for k in range(100):
        block = P[:, h.order[h.bounds[k]:h.bounds[k + 1]]]
        assert np.allclose(h.values[:, k], block.min(axis=1))
    # the outliers come first in their class and stay as dark as they are
    cols = pooled_columns(h, low)
    assert cols.tolist() == [0, 25, 75]
    assert np.allclose(h.values[1, cols], 0.05)
    # where the mean of the same columns would have hidden them
    mean_of_col0 = P[1, h.order[h.bounds[0]:h.bounds[1]]].mean()
    assert mean_of_col0 > 0.5


def test_heatmap_pool_quantile_relative_and_small_inputs():
    P = np.array([[1.0, 2.0, 4.0, 8.0], [3.0, 3.0, 3.0, 0.3]])
    h = heatmap_pool(P, max_columns=10)            # no pooling below the budget
    assert h.values.shape == (2, 4) and h.groups == [(None, 0, 4)]
    # relative to each view's median (3.0 and 3.0), lowest over the views first
    assert h.order.tolist() == [3, 0, 1, 2]
    assert np.allclose(h.values[:, 0], [8.0 / 3.0, 0.1])
    q = heatmap_pool(P, max_columns=1, pool="quantile", quantile=0.5, relative=False)
    assert np.allclose(q.values[:, 0], np.median(P, axis=1)) and q.pool == "quantile 0.5"
    with pytest.raises(ValueError, match="pool must be"):
        heatmap_pool(P, pool="mean")
    with pytest.raises(ValueError, match="one entry per sample"):
        heatmap_pool(P, labels=[0, 1])


# ---------------------------------------------------------------------------
# Two shares, and trust beside each view's own quality (the weights study, 39)
# ---------------------------------------------------------------------------


def test_share_of_sum_p_is_p_alone_and_differs_from_the_consensus_share():
    P = np.array([[1.0, 1.0], [2.0, 2.0]])
    rows = view_weight_shares(P, gamma=1e-5, factors=np.array([2.0, 0.5]))
    # consensus weights c_v P = [[2, 2], [1, 1]]: 2/3 and 1/3; P alone: 1/3 and 2/3
    assert [r["share"] for r in rows] == pytest.approx([2 / 3, 1 / 3])
    assert [r["p_share"] for r in rows] == pytest.approx([1 / 3, 2 / 3])
    paper = view_weight_shares(P, gamma=1e-5)  # c_v = 1: the two are the same
    assert [r["p_share"] for r in paper] == pytest.approx([r["share"] for r in paper])
    # each view's c_v beside its shares (1 under the paper's model)
    assert [r["factor"] for r in rows] == [2.0, 0.5]
    assert [r["factor"] for r in paper] == [1.0, 1.0]


def _rows(shares, accs=None, gaps=None):
    m = len(shares)
    names = [f"v{v}" for v in range(m)]
    sh = [{"view": names[v], "share": shares[v]} for v in range(m)]
    q = [{"view": names[v], "acc": None if accs is None else accs[v],
          "nmi": None if accs is None else accs[v],
          "eigengap": 0.0 if gaps is None else gaps[v]} for v in range(m)]
    return sh, q


def test_trust_follows_quality_when_the_shares_rank_like_the_accs():
    sh, q = _rows([0.6, 0.3, 0.1], accs=[0.9, 0.5, 0.2])
    out = trust_vs_quality(sh, q)
    assert out.measure == "acc" and out.rho == pytest.approx(1.0)
    assert out.verdict == "follows" and out.most_trusted == out.best == 0
    assert "trust follows" in out.sentence and "+1.00" in out.sentence
    assert "v0 (60% of the weight), is also the best on its own (own ACC 90.0 %)" in out.sentence


def test_trust_runs_against_quality_names_the_rank_of_the_most_trusted():
    sh, q = _rows([0.1, 0.2, 0.7], accs=[0.9, 0.5, 0.2])
    out = trust_vs_quality(sh, q)
    assert out.rho == pytest.approx(-1.0) and out.verdict == "runs against"
    assert out.most_trusted == 2 and out.best == 0
    assert "−1.00" in out.sentence
    assert ("v2 (70% of the weight), ranks 3 of 3 on its own (own ACC 20.0 %), while the "
            "best, v0 (own ACC 90.0 %), gets 10%") in out.sentence


def test_trust_vs_quality_is_spearmans_rho_of_the_ranks():
    rng = np.random.default_rng(3)
    for _ in range(20):
        shares = rng.dirichlet(np.ones(6))
        accs = rng.uniform(0.2, 0.9, 6)
        out = trust_vs_quality(*_rows(list(shares), accs=list(accs)))
        # brute force: Pearson's correlation of the ranks (no ties in random data)
        rs, ra = np.argsort(np.argsort(shares)), np.argsort(np.argsort(accs))
        assert out.rho == pytest.approx(np.corrcoef(rs, ra)[0, 1])
        assert out.verdict == ("follows" if out.rho > 0.5 else "runs against"
                               if out.rho < -0.5 else "hardly follows")


def test_trust_vs_quality_without_labels_ranks_by_eigengap_and_says_when_undefined():
    sh, q = _rows([0.5, 0.3, 0.2], gaps=[0.01, 0.05, 0.03])
    out = trust_vs_quality(sh, q)
    assert out.measure == "eigengap" and out.best == 1
    assert out.rho == pytest.approx(-0.5) and out.verdict == "hardly follows"
    assert "own graph's eigengap 0.01" in out.sentence
    sh, q = _rows([0.5, 0.3, 0.2], accs=[0.4, 0.4, 0.4])
    out = trust_vs_quality(sh, q)
    assert np.isnan(out.rho) and out.verdict == "undefined"
    assert "every view has the same own ACC" in out.sentence
    with pytest.raises(ValueError, match="same views"):
        trust_vs_quality(sh, q[:2])


def test_view_quality_scores_each_view_on_its_own():
    # view a: three well separated blobs; view b: noise with no class in it
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 30)
    centers = 5 * np.eye(3, 8)
    a = centers[y] + 0.3 * rng.standard_normal((90, 8))
    b = rng.standard_normal((90, 8))
    rows = view_quality([a, b], 3, y, view_names=["a", "b"], random_state=0)
    assert [r["view"] for r in rows] == ["a", "b"]
    assert rows[0]["acc"] == pytest.approx(1.0) and rows[0]["nmi"] == pytest.approx(1.0)
    assert rows[1]["acc"] < 0.6
    assert rows[0]["eigengap"] > rows[1]["eigengap"]
    # the same numbers as the registry's SC-BSV, per view
    est = rmsc.get_method("SC-BSV", n_clusters=3, random_state=0).fit([a, b])
    for v in range(2):
        scores = rmsc.evaluate_runs(y, est.view_label_runs_[v])
        assert rows[v]["acc"] == pytest.approx(scores["acc_mean"])
        assert rows[v]["eigengap"] == pytest.approx(est.view_eigengaps_[v])
    unlabelled = view_quality([a, b], 3, random_state=0)
    assert all(r["acc"] is None and r["nmi"] is None for r in unlabelled)
    assert [r["eigengap"] for r in unlabelled] == pytest.approx([r["eigengap"] for r in rows])


def test_weight_change_is_the_cellwise_ratio_and_its_summary_counts_hand_worked_cells():
    clean = np.array([[2.0, 2.0, 1.0, 4.0], [1.0, 1.0, 1.0, 1.0]])
    P = np.array([[0.5, 2.0, 1.0, 1.0], [1.0, 0.9, 1.2, 1.0]])
    R = weight_change(P, clean)
    np.testing.assert_allclose(R, [[0.25, 1.0, 1.0, 0.25], [1.0, 0.9, 1.2, 1.0]])
    mask = np.zeros((2, 4), bool)
    mask[0, [0, 1]] = True
    out = weight_change_summary(R, mask, view_names=["a", "b"])
    # injected: 0.25 and 1.0 -> median 0.625, one of two below 0.5; the other six cells:
    # 1.0, 0.25, 1.0, 0.9, 1.2, 1.0 -> median 1.0, one of six below 0.5
    assert out["injected_median"] == pytest.approx(0.625)
    assert out["injected_fell"] == pytest.approx(0.5)
    assert out["clean_median"] == pytest.approx(1.0)
    assert out["clean_fell"] == pytest.approx(1 / 6)
    assert out["sentence"] == (
        "Against the clean fit, the injected cells (2, in a) kept a median 0.62 of their "
        "weight and 50% of them fell below 0.5 of it; the other cells kept a median 1.00, "
        "and 16.7% of them fell below 0.5.")
    with pytest.raises(ValueError, match="same samples and views"):
        weight_change(P, clean[:, :3])
    with pytest.raises(ValueError, match="at least one injected"):
        weight_change_summary(R, np.zeros((2, 4), bool))
