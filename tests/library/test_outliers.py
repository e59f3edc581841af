"""rmsc.outliers: injection (four kinds), scores from RMSC's weights, ROC-AUC / AP."""

import types
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import average_precision_score, roc_auc_score

from rmsc import RMSC, datasets, outliers
from rmsc.datasets import MultiViewDataset
from rmsc.outliers import KINDS, evaluate, inject, roc_curves, scores


def toy(n=60, seed=0, sparse_view=True):
    """Three views (one non-negative, optionally one sparse), three classes of 20."""
    rng = np.random.default_rng(seed)
    views = [rng.standard_normal((n, 5)) * [1, 2, 3, 4, 5] + [0, 1, 2, 3, 4],
             rng.uniform(0, 3, size=(n, 8))]
    names = ["gauss", "positive"]
    if sparse_view:
        views.append(sp.random(n, 40, density=0.15, random_state=seed, format="csr") * 5)
        names.append("sparse")
    return MultiViewDataset(name="toy", views=views, labels=np.repeat([0, 1, 2], n // 3),
                            view_names=names, description="toy data.")


def dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def changed_rows(before, after):
    A, B = dense(before), dense(after)
    return np.flatnonzero(np.any(A != B, axis=1))


# ---------------------------------------------------------------------------
# injection
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_mask_marks_exactly_the_changed_rows(kind):
    d = toy()
    c = inject(d, ["gauss", "sparse"], 0.25, kind=kind, random_state=3)
    assert c.outlier_mask.shape == (3, 60)
    assert c.outlier_mask.sum(axis=1).tolist() == [15, 0, 15]
    for v in range(3):
        np.testing.assert_array_equal(changed_rows(d.views[v], c.views[v]),
                                      np.flatnonzero(c.outlier_mask[v]))
    assert c.views[1] is d.views[1]  # an untouched view is not copied
    assert sp.issparse(c.views[2])  # sparse stays sparse
    np.testing.assert_array_equal(c.outlier_mask[0], c.outlier_mask[2])  # same samples
    assert f"Outliers injected: {kind}" in c.description and "gauss, sparse" in c.description
    assert d.outlier_mask is None  # the input is untouched


def test_independent_draws_per_view_and_determinism():
    d = toy()
    a = inject(d, [0, 1, 2], 0.3, same_samples=False, random_state=5)
    assert not np.array_equal(a.outlier_mask[0], a.outlier_mask[1])
    assert a.outlier_mask.sum(axis=1).tolist() == [18, 18, 18]
    b = inject(d, [0, 1, 2], 0.3, same_samples=False, random_state=5)
    assert a.fingerprint == b.fingerprint
    c = inject(d, [0, 1, 2], 0.3, same_samples=False, random_state=6)
    assert c.fingerprint != a.fingerprint
    assert "drawn independently per view" in a.description


def test_masks_merge_and_indices_names_mix():
    d = toy()
    a = inject(d, "gauss", 0.1, random_state=0)
    b = inject(a, [-1], 0.1, kind="noise", random_state=1)  # index -1 is "sparse"
    np.testing.assert_array_equal(b.outlier_mask[0], a.outlier_mask[0])
    assert b.outlier_mask[2].sum() == 6 and b.outlier_mask[1].sum() == 0
    assert b.views[0] is a.views[0]


def test_fraction_rounding_and_zero():
    d = toy()
    assert inject(d, 0, 0.001, random_state=0).outlier_mask.sum() == 1  # at least one
    z = inject(d, 0, 0.0, random_state=0)
    assert z.outlier_mask.sum() == 0
    np.testing.assert_array_equal(z.views[0], d.views[0])
    assert inject(d, 0, 1.0, random_state=0).outlier_mask[0].all()


def test_replace_is_matched_to_the_feature_scale():
    rng = np.random.default_rng(1)
    mean, std = np.array([0.0, 10.0, -5.0, 100.0]), np.array([1.0, 0.1, 3.0, 20.0])
    X = mean + std * rng.standard_normal((4000, 4))
    d = MultiViewDataset(name="s", views=[X])
    R = inject(d, 0, 1.0, kind="replace", random_state=2).views[0]
    np.testing.assert_allclose(R.mean(axis=0), X.mean(axis=0), atol=4 * 20 / np.sqrt(4000))
    np.testing.assert_allclose(R.std(axis=0), X.std(axis=0), rtol=0.06)
    R2 = inject(d, 0, 1.0, kind="replace", severity=2.0, random_state=2).views[0]
    np.testing.assert_allclose(R2.std(axis=0), 2 * X.std(axis=0), rtol=0.06)
    # the replacement is independent of the sample it replaces
    assert abs(np.corrcoef(R[:, 3], X[:, 3])[0, 1]) < 0.06


def test_replace_in_a_sparse_view_keeps_density_and_values():
    d = toy(n=300)
    X = d.views[2]
    c = inject(d, "sparse", 1.0, random_state=4)
    R = c.views[2]
    assert sp.issparse(R)
    assert abs(R.nnz / X.nnz - 1) < 0.15  # density matched
    assert set(np.round(R.data, 12)) <= set(np.round(X.data, 12))  # values from the view
    assert changed_rows(X, R).size > 290


@pytest.mark.parametrize("severity", [0.5, 1.0, 3.0])
def test_noise_norm_is_severity_times_median_norm(severity):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 200)) * 3
    d = MultiViewDataset(name="n", views=[X])
    N = inject(d, 0, 1.0, kind="noise", severity=severity, random_state=1).views[0] - X
    expected = severity * np.median(np.linalg.norm(X, axis=1))
    np.testing.assert_allclose(np.linalg.norm(N, axis=1).mean(), expected, rtol=0.02)


def test_inconsistent_takes_features_from_another_class():
    d = toy()
    c = inject(d, ["gauss", "sparse"], 0.5, kind="inconsistent", random_state=7)
    for v in (0, 2):
        X, Y = dense(d.views[v]), dense(c.views[v])
        for j in np.flatnonzero(c.outlier_mask[v]):
            donors = np.flatnonzero(np.all(X == Y[j], axis=1))
            assert donors.size and np.all(d.labels[donors] != d.labels[j])
    half = inject(d, "gauss", 0.5, kind="inconsistent", severity=0.5, random_state=7)
    X, Y = d.views[0], half.views[0]
    for j in np.flatnonzero(half.outlier_mask[0]):
        donor = 2 * Y[j] - X[j]
        match = np.flatnonzero(np.all(np.isclose(X, donor), axis=1))
        assert match.size and np.all(d.labels[match] != d.labels[j])


def test_inconsistent_without_labels_uses_any_other_sample():
    d = toy().replace(labels=None)
    c = inject(d, 0, 0.5, kind="inconsistent", random_state=0)
    X, Y = d.views[0], c.views[0]
    for j in np.flatnonzero(c.outlier_mask[0]):
        match = np.flatnonzero(np.all(X == Y[j], axis=1))
        assert match.size and j not in match


def test_features_corrupts_a_fifth_of_the_features_by_three_sd():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((100, 30)) + 5  # positive features, far from clipping
    d = MultiViewDataset(name="f", views=[X])
    c = inject(d, 0, 0.2, kind="features", random_state=3)
    mean, std = X.mean(axis=0), X.std(axis=0)
    for j in np.flatnonzero(c.outlier_mask[0]):
        cols = np.flatnonzero(c.views[0][j] != X[j])
        assert cols.size == 6
        np.testing.assert_allclose(np.abs(c.views[0][j, cols] - mean[cols]), 3 * std[cols])


@pytest.mark.parametrize("kind", ["replace", "noise", "features"])
def test_non_negative_views_stay_non_negative(kind):
    d = toy()
    c = inject(d, ["positive", "sparse"], 1.0, kind=kind, severity=3.0, random_state=0)
    assert c.views[1].min() >= 0 and c.views[2].data.min() >= 0
    g = inject(d, "gauss", 1.0, kind=kind, severity=3.0, random_state=0)
    assert g.views[0].min() < 0  # a view with negative values is not clipped


def test_bad_arguments():
    d = toy()
    with pytest.raises(ValueError, match="Unknown outlier kind 'swap'; choose one of replace"):
        inject(d, 0, 0.1, kind="swap")
    with pytest.raises(ValueError, match="Unknown view 'FOU'; toy has the views gauss, "
                                         "positive, sparse"):
        inject(d, "FOU", 0.1)
    with pytest.raises(ValueError, match="View index 3 is out of range"):
        inject(d, [3], 0.1)
    with pytest.raises(ValueError, match="No view chosen"):
        inject(d, [], 0.1)
    for bad in (-0.1, 1.5, "10%", None):
        with pytest.raises(ValueError, match="fraction must be a number between 0 and 1"):
            inject(d, 0, bad)
    for bad in (0, -1, float("nan"), True):
        with pytest.raises(ValueError, match="severity must be a positive number"):
            inject(d, 0, 0.1, severity=bad)
    one = d.replace(labels=np.zeros(60, dtype=int))
    with pytest.raises(ValueError, match="single class"):
        inject(one, 0, 0.1, kind="inconsistent")


# ---------------------------------------------------------------------------
# scores and evaluation
# ---------------------------------------------------------------------------


def test_scores_are_the_losses_behind_the_weights():
    P = np.array([[1.0, 0.5, 2.0], [0.1, 1.0, 4.0]])
    model = types.SimpleNamespace(weights_=P, gamma=0.01)
    S = scores(model)
    np.testing.assert_allclose(S, 1 / P ** 2 - 0.01)
    np.testing.assert_allclose(1 / np.sqrt(0.01 + S), P)  # P-step inverted
    for v in range(2):  # reverse order of the weights
        np.testing.assert_array_equal(np.argsort(S[v]), np.argsort(-P[v]))
    with pytest.raises(ValueError, match="no fitted weights_: fit an RMSC model first"):
        scores(RMSC())


def test_scores_from_a_fitted_rmsc_find_replaced_samples():
    d = datasets.load_bundled("Subspaces")
    c = inject(d, [0, 2], 0.1, kind="replace", random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RMSC(n_clusters=3, random_state=0).fit(c.views)
    S = scores(model)
    assert S.shape == (3, 150) and np.all(S >= 0)
    table = evaluate(S, c.outlier_mask, c.view_names)
    assert table["roc_auc"].iloc[[0, 2]].min() >= 0.95
    assert np.isnan(table["roc_auc"].iloc[1])


def test_evaluate_hand_worked():
    S = np.array([[0.1, 0.4, 0.35, 0.8], [1, 2, 3, 4], [4, 3, 2, 1]], dtype=float)
    M = np.array([[0, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=bool)
    t = evaluate(S, M, ["a", "b", "c"])
    assert list(t.columns) == ["view", "outliers", "roc_auc", "average_precision"]
    assert t["view"].tolist() == ["a", "b", "c"] and t["outliers"].tolist() == [2, 0, 4]
    # ranking 0.8 (T), 0.4 (F), 0.35 (T), 0.1 (F): 3 of 4 (pos, neg) pairs in order
    assert t["roc_auc"][0] == pytest.approx(0.75)
    # precision at the two hits: 1/1 and 2/3
    assert t["average_precision"][0] == pytest.approx((1 + 2 / 3) / 2)
    assert np.isnan(t["roc_auc"][1]) and np.isnan(t["average_precision"][2])
    assert evaluate(S, M)["view"].tolist() == ["view 0", "view 1", "view 2"]
    rng = np.random.default_rng(0)
    s, m = rng.standard_normal(50), rng.random(50) < 0.3
    row = evaluate(s[None], m[None]).iloc[0]
    assert row["roc_auc"] == pytest.approx(roc_auc_score(m, s))
    assert row["average_precision"] == pytest.approx(average_precision_score(m, s))


def test_roc_curves():
    S = np.array([[0.1, 0.4, 0.35, 0.8], [1, 2, 3, 4]], dtype=float)
    M = np.array([[0, 0, 1, 1], [0, 0, 0, 0]], dtype=bool)
    curves = roc_curves(S, M)
    assert curves[1] is None
    fpr, tpr = curves[0]
    assert fpr[0] == 0 and tpr[0] == 0 and fpr[-1] == 1 and tpr[-1] == 1
    assert np.trapezoid(tpr, fpr) == pytest.approx(0.75)


def test_evaluate_bad_input():
    with pytest.raises(ValueError, match="no outlier mask"):
        evaluate(np.zeros((2, 3)), None)
    with pytest.raises(ValueError, match=r"scores have shape \(2, 3\) but the mask has shape "
                                         r"\(3, 2\)"):
        evaluate(np.zeros((2, 3)), np.zeros((3, 2), bool))
    with pytest.raises(ValueError, match="NaN or infinite"):
        roc_curves(np.array([[np.nan, 1.0]]), np.array([[True, False]]))


# ---------------------------------------------------------------------------
# the reference scenario of the issue
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_reference_scenario_digit_fou_zer_replaced():
    """Digit, 10 % of the samples replaced in FOU and in ZER, RMSC at its defaults.

    An independent implementation reaches ROC-AUC ~0.98 (FOU) and ~0.999 (ZER).
    """
    d = datasets.load_digit()
    c = inject(d, ["FOU", "ZER"], 0.10, kind="replace", random_state=0)
    assert c.outlier_mask.sum(axis=1).tolist() == [0, 200, 0, 200, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RMSC(n_clusters=10, random_state=0).fit(c.views)
    table = evaluate(scores(model), c.outlier_mask, c.view_names).set_index("view")
    assert table.loc["FOU", "roc_auc"] >= 0.95
    assert table.loc["ZER", "roc_auc"] >= 0.95


# ---------------------------------------------------------------------------
# property-based: injection marks exactly what it changed, deterministically
# ---------------------------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

values = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)


@st.composite
def datasets_and_spec(draw):
    n = draw(st.integers(2, 25))
    m = draw(st.integers(1, 3))
    views = []
    for v in range(m):
        d = draw(st.integers(1, 6))
        X = draw(hnp.arrays(np.float64, (n, d), elements=values))
        if draw(st.booleans()):
            X = np.abs(X)  # a non-negative view (clipping applies)
        if draw(st.booleans()):
            X = sp.csr_matrix(X)
        views.append(X)
    labels = draw(st.none() | hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    data = MultiViewDataset(name="h", views=views, labels=labels)
    chosen = draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=m, unique=True))
    spec = dict(
        views=chosen,
        fraction=draw(st.floats(0, 1)),
        kind=draw(st.sampled_from(KINDS)),
        severity=draw(st.floats(0.01, 5)),
        same_samples=draw(st.booleans()),
        random_state=draw(st.integers(0, 2 ** 31 - 1)),
    )
    return data, spec


def _bits(X, rows):
    A = dense(X)[rows]
    return np.ascontiguousarray(A, dtype=np.float64).tobytes()


@settings(max_examples=150, deadline=None)
@given(case=datasets_and_spec())
def test_injection_marks_exactly_the_corrupted_pairs(case):
    data, spec = case
    single_class = data.labels is not None and np.unique(data.labels).size < 2
    if spec["kind"] == "inconsistent" and single_class:
        with pytest.raises(ValueError, match="single class"):
            inject(data, **spec)
        return
    out = inject(data, **spec)
    n = data.n_samples
    k = int(round(spec["fraction"] * n)) or (1 if spec["fraction"] > 0 else 0)
    mask = out.outlier_mask
    assert mask.shape == (data.n_views, n)
    for v in range(data.n_views):
        if v in spec["views"]:
            assert mask[v].sum() == k
        else:
            assert not mask[v].any() and out.views[v] is data.views[v]
        clean = ~mask[v]
        # every unmarked pair is bit-identical to the input
        assert _bits(out.views[v], clean) == _bits(data.views[v], clean)
        assert out.views[v].shape == data.views[v].shape
        assert sp.issparse(out.views[v]) == sp.issparse(data.views[v])
        assert np.all(np.isfinite(dense(out.views[v])))
        if dense(data.views[v]).min(initial=0) >= 0:
            assert dense(out.views[v]).min(initial=0) >= 0
        if spec["kind"] == "noise" and mask[v].any():
            # Gaussian noise moves every marked sample (no clipping on a signed view)
            if dense(data.views[v]).min() < 0:
                assert not np.any(np.all(dense(out.views[v])[mask[v]] ==
                                         dense(data.views[v])[mask[v]], axis=1))
    if spec["same_samples"]:
        rows = mask[spec["views"]]
        assert (rows == rows[0]).all()
    again = inject(data, **spec)
    assert again.fingerprint == out.fingerprint  # deterministic per seed
    np.testing.assert_array_equal(again.outlier_mask, mask)


def test_noise_moves_every_sample_of_a_mostly_zero_view():
    # Found by hypothesis: 11 zero rows, one ~1e-82, eleven of norm 1. The median norm is
    # ~1e-82, which made the noise vanish on the unit rows; the scale must not collapse.
    X = np.zeros((23, 1))
    X[1, 0] = 2.2e-82
    X[[0, 2, 3, 4, 5, 7, 8, 9, 10, 11], 0] = 1.0
    X[6, 0] = -1.0
    data = MultiViewDataset(name="h", views=(X,))
    out = inject(data, views=[0], fraction=1.0, kind="noise", severity=1.0,
                 same_samples=False, random_state=0)
    moved = np.abs(out.views[0] - X).ravel()
    assert out.outlier_mask[0].all()
    assert np.all(moved > 1e-3)


# ---------------------------------------------------------------------------
# the k-NN distance baseline and the view-inconsistency score
# ---------------------------------------------------------------------------

from rmsc.outliers import inconsistency_scores, knn_distance_scores, view_neighbors  # noqa: E402


def test_knn_distance_hand_worked():
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    # k = 1: nearest other point; k = 2: the second nearest
    np.testing.assert_allclose(knn_distance_scores([X], 1, normalize=False), [[1, 1, 2, 7]])
    np.testing.assert_allclose(knn_distance_scores([X, 2 * X], 2, normalize=False),
                               [[3, 2, 3, 9], [6, 4, 6, 18]])
    # unit-L2 first: (1, 0) and (0, 2) become orthogonal unit vectors, sqrt(2) apart
    Y = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 0.0]])
    np.testing.assert_allclose(knn_distance_scores([Y], 1), [[0, np.sqrt(2), 0]], atol=1e-12)
    assert knn_distance_scores([sp.csr_matrix(Y)], 2).shape == (1, 3)


def test_view_neighbors_exclude_the_sample_itself_even_among_duplicates():
    X = np.array([[0.0], [0.0], [0.0], [5.0]])
    N = view_neighbors([X], 2, normalize=False)
    assert N.shape == (1, 4, 2)
    for j in range(4):
        assert j not in N[0, j]
    assert set(N[0, 3]) <= {0, 1, 2}
    with pytest.raises(ValueError, match="n_neighbors=4 needs at least 5 samples"):
        view_neighbors([X], 4)


def swapped_blobs(n_per=20, seed=0):
    """Three views of three well separated blobs; samples 0 and 25 swapped in view 0."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n_per)
    centers = np.eye(3) * 10
    views = [centers[y] + rng.normal(0, 0.3, (3 * n_per, 3)) for _ in range(3)]
    views[0][0] = views[0][45]  # sample 0 (class 0) looks like class 2 in view 0
    views[0][25] = views[0][5]  # sample 25 (class 1) looks like class 0 in view 0
    return views, y


def test_inconsistency_score_known_answer():
    views, y = swapped_blobs()
    S = inconsistency_scores(views, y, n_neighbors=5, normalize=False)
    assert S.shape == (3, 60) and S.min() >= 0 and S.max() <= 1
    # view 0 puts samples 0 and 25 among another class only
    np.testing.assert_allclose(S[0, [0, 25]], 1.0)
    # a clean sample has at most one swapped sample among its 5 neighbours in view 0:
    # h = (0.8, 0.2, 0) against (1, 0, 0) at worst
    clean = np.setdiff1d(np.arange(60), [0, 5, 25, 45])
    assert np.all(S[0, clean] <= 1 - 0.8 / np.hypot(0.8, 0.2) + 1e-12)
    assert np.sum(S[0, clean] < 1e-12) > 40
    # in views 1 and 2, sample 0 disagrees with one of the two other views: h = (1, 0, 0)
    # against the mean of (1, 0, 0) and (0, 0, 1), cosine 1/sqrt(2)
    np.testing.assert_allclose(S[1:, 0], 1 - 1 / np.sqrt(2))
    mask = np.zeros((3, 60), bool)
    mask[0, [0, 25]] = True
    assert evaluate(S, mask)["roc_auc"][0] == 1.0
    # labels may be any coding
    np.testing.assert_allclose(inconsistency_scores(views, np.array(list("abc"))[y], 5,
                                                    normalize=False), S)
    # the weights and the k-NN distance do not see it: the swapped samples look normal
    knn = knn_distance_scores(views, 5, normalize=False)
    assert evaluate(knn, mask)["roc_auc"][0] < 0.9


def test_inconsistency_score_bad_input():
    views, y = swapped_blobs()
    with pytest.raises(ValueError, match="needs at least two views"):
        inconsistency_scores(views[:1], y)
    with pytest.raises(ValueError, match="labels has 59 entries for 60 samples"):
        inconsistency_scores(views, y[:-1])
    with pytest.raises(ValueError, match="n_neighbors must be a positive integer"):
        inconsistency_scores(views, y, 0)


@pytest.mark.slow
def test_inconsistent_outliers_found_on_digit():
    """The robustness target: ROC-AUC >= 0.9 in each corrupted view (PIX, FOU), 10 % inconsistent."""
    d = datasets.load_digit()
    c = inject(d, ["PIX", "FOU"], 0.10, kind="inconsistent", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RMSC(n_clusters=10, random_state=0).fit(c.views)
    S = inconsistency_scores(c.views, model.labels_)
    table = evaluate(S, c.outlier_mask, c.view_names).set_index("view")
    assert table.loc["PIX", "roc_auc"] >= 0.9
    assert table.loc["FOU", "roc_auc"] >= 0.9
    weights_auc = evaluate(scores(model), c.outlier_mask, c.view_names).set_index("view")
    assert weights_auc.loc["PIX", "roc_auc"] < 0.9  # what the new score adds


def test_all_scores_and_compare():
    views, y = swapped_blobs()
    P = np.ones((3, 60))
    P[0, 7] = 0.1  # the weights single out sample 7 in view 0
    model = types.SimpleNamespace(weights_=P, gamma=0.0)
    got = outliers.all_scores(views, model, y, 5, normalize=False)
    assert list(got) == list(outliers.SCORES) == ["weights", "inconsistency", "knn"]
    np.testing.assert_allclose(got["weights"], scores(model))
    np.testing.assert_allclose(got["inconsistency"],
                               inconsistency_scores(views, y, 5, normalize=False))
    np.testing.assert_allclose(got["knn"], knn_distance_scores(views, 5, normalize=False))
    assert list(outliers.all_scores(views[:1], types.SimpleNamespace(weights_=P[:1], gamma=0.0),
                                    y, 5)) == ["weights", "knn"]
    mask = np.zeros((3, 60), bool)
    mask[0, [0, 25]] = True
    table = outliers.compare(got, mask, ["u", "v", "w"])
    assert list(table.columns) == ["score", "view", "outliers", "roc_auc", "average_precision"]
    assert table["score"].tolist() == [n for n in outliers.SCORES.values() for _ in range(3)]
    assert table["view"].tolist() == ["u", "v", "w"] * 3
    by = table.set_index(["score", "view"])["roc_auc"]
    assert by[(outliers.SCORES["inconsistency"], "u")] == 1.0
    assert by[(outliers.SCORES["weights"], "u")] == pytest.approx(
        roc_auc_score(mask[0], got["weights"][0]))
    assert np.isnan(by[(outliers.SCORES["knn"], "v")])
