"""The pages' tables and helpers without a browser (rmsc.dashboard.tables): the data's
summary, the plan at scale, subsampling, projections, aligned clusters, within-group mass, weights."""

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from rmsc import dashboard as dash
from rmsc.metrics import clustering_accuracy
from rmsc.solver import minimizer


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


def test_markdown_table_aligns_formats_and_escapes_by_hand():
    table = pd.DataFrame({"name": ["a|b", "c"], "x %": [1.005, 20.0], "n": [3, 12]})
    assert dash.markdown_table(table, {"x %": ".1f"}) == (
        "| name | x % | n |\n"
        "|---|---:|---:|\n"
        "| a\\|b | 1.0 | 3 |\n"
        "| c | 20.0 | 12 |")
    assert dash.markdown_table(pd.DataFrame({"a|b": ["z"]})) == "| a\\|b |\n|---|\n| z |"
