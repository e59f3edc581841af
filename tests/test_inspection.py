"""rmsc.inspection: the weights' shares, the cap, the dominance message, the pooled heatmap."""

import numpy as np
import pytest

import rmsc
from rmsc.inspection import (
    at_cap,
    dominance_message,
    dominance_threshold,
    heatmap_pool,
    pooled_columns,
    view_weight_shares,
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


def test_no_message_when_the_weight_is_shared():
    rng = np.random.default_rng(0)
    P = rng.uniform(0.8, 1.2, size=(4, 50))
    assert dominance_message(P, gamma=1e-5) is None
    assert dominance_threshold(2) == 0.75 and dominance_threshold(6) == 0.5


def test_message_states_the_measured_facts():
    gamma = 1e-5
    rng = np.random.default_rng(1)
    losses = np.vstack([np.r_[np.zeros(30), rng.uniform(1e-4, 2e-4, 70)],
                        rng.uniform(0.05, 0.1, 100), rng.uniform(0.05, 0.1, 100)])
    P = 1.0 / np.sqrt(gamma + losses)
    msg = dominance_message(P, gamma=gamma, view_names=["MOR", "PIX", "FOU"],
                            n_features=[6, 240, 76])
    rows = view_weight_shares(P, gamma=gamma)
    assert msg.startswith(f"MOR carries {rows[0]['share']:.0%} of the consensus weight")
    assert "an equal share would be 33% of 3 views" in msg
    assert f"{rows[0]['at_cap']:.0%} of its samples are at the weight cap" in msg
    assert rows[0]["at_cap"] == pytest.approx(0.30)  # the 30 exact ones (loss 0 <= gamma)
    assert "1/√γ = 316" in msg
    assert "fewest features (6; the others 76–240)" in msg
    assert f"{rows[0]['median_loss']:.3g}" in msg
    # without the feature counts nothing is said about features
    assert "features" not in dominance_message(P, gamma=gamma)


def test_message_on_a_fit_where_a_view_has_few_features():
    # A 2-feature view next to a 40-feature one: the 2-feature view's losses are far
    # smaller, so under the paper's model it takes most of the weight, and the message
    # says so with its numbers.
    d = rmsc.datasets.make_multiview_subspaces(n_clusters=3, n_per_cluster=20, n_views=2,
                                               view_dims=(2, 40), subspace_dim=2,
                                               random_state=0)
    est = rmsc.RMSC(3, loss_scale=None, gamma=1e-5, random_state=0, max_iter=10,
                    tol=0).fit(d.views)  # the paper's model, ten iterations
    rows = view_weight_shares(est.weights_, gamma=est.gamma, n_features=[2, 40])
    assert rows[0]["share"] > dominance_threshold(2)
    assert rows[0]["median_loss"] < rows[1]["median_loss"] / 10
    msg = dominance_message(est.weights_, gamma=est.gamma, view_names=["small", "big"],
                            n_features=[2, 40])
    assert msg.startswith(f"small carries {rows[0]['share']:.0%}")
    assert "fewest features (2; the other 40)" in msg
    assert f"{rows[1]['median_loss'] / rows[0]['median_loss']:.3g} times below" in msg


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
