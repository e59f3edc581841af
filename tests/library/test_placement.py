"""rmsc.placement: samples the consensus isolates are placed by evidence from the views."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics import adjusted_rand_score
from sklearn.utils import check_random_state

from rmsc import RMSC, datasets
from rmsc.outliers import inject
from rmsc.rmsc import FORMER_STOPPING, PAPER_MODEL
from rmsc.placement import (
    WEAK_DEGREE,
    evidence_rows,
    place_weak_samples,
    relative_trust,
    weak_samples,
)
from rmsc.spectral import kmeans_runs, spectral_clustering, spectral_embedding


def blobs(n_per=20, centers=((0, 0), (10, 0), (0, 10)), spread=0.5, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, spread, size=(n_per, 2)) for c in centers])
    return X, np.repeat(np.arange(len(centers)), n_per)


def knn_affinity(X, k=5):
    """Symmetric 0/1 k-NN graph."""
    d = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    A = np.zeros_like(d)
    idx = np.argsort(d, axis=1)[:, :k]
    A[np.repeat(np.arange(len(X)), k), idx.ravel()] = 1
    return np.maximum(A, A.T)


def test_weak_samples_hand_worked():
    # 0-3 fully linked (weight 1), 4 linked to 0 by 0.5, 5 isolated:
    # degrees 3.5, 3, 3, 3, 0.5, 0; median 3
    S = np.zeros((6, 6))
    S[:4, :4] = 1.0
    np.fill_diagonal(S, 0)
    S[4, 0] = S[0, 4] = 0.5
    np.testing.assert_allclose(S.sum(1), [3.5, 3, 3, 3, 0.5, 0])
    assert weak_samples(S, 0.3).tolist() == [False] * 4 + [True, True]  # below 0.9
    assert weak_samples(sp.csr_matrix(S), 0.3).tolist() == [False] * 4 + [True, True]
    assert weak_samples(S, 0.1).tolist() == [False] * 5 + [True]  # 0.5 is not below 0.3
    assert weak_samples(S, 0.0).tolist() == [False] * 5 + [True]  # isolated: always weak


def test_relative_trust_hand_worked():
    P = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 0.3]])
    np.testing.assert_allclose(relative_trust(P), [[0.5, 1.0, 2.0], [1.0, 1.0, 0.1]])


def test_evidence_rows_follow_the_trusted_view():
    # Anchors 0-3 in cluster A (embedding e1), 4-7 in cluster B (e2). Target 8 sits among
    # the A anchors in view 0 and among the B anchors in view 1.
    A = np.r_[np.zeros((4, 1)), np.ones((4, 1)) * 10]
    view0 = np.vstack([A, [[0.0]]])
    view1 = np.vstack([A, [[10.0]]])
    emb = np.r_[np.tile([1.0, 0.0], (4, 1)), np.tile([0.0, 1.0], (4, 1))]
    anchors, targets = np.arange(8), np.array([8])
    trust = np.array([[1.0] * 9, [1.0] * 9])
    trust[0, 8], trust[1, 8] = 3.0, 1.0
    row = evidence_rows([view0, view1], emb, anchors, targets, trust, n_neighbors=4)
    np.testing.assert_allclose(row, [[3, 1] / np.hypot(3, 1)])  # unit length, mostly A
    trust[0, 8], trust[1, 8] = 0.0, 2.0  # view 0 distrusts it: B only
    np.testing.assert_allclose(evidence_rows([view0, view1], emb, anchors, targets, trust, 4),
                               [[0.0, 1.0]])
    trust[:, 8] = 0.0  # nobody trusts it: a zero row, no NaN
    np.testing.assert_array_equal(evidence_rows([view0, view1], emb, anchors, targets, trust, 4),
                                  [[0.0, 0.0]])


def test_isolated_samples_are_placed_with_their_neighbors():
    # Three clusters; in the consensus affinity the first three samples of every cluster lost
    # all their links (as outliers' Z* columns do). Both views still see where they belong.
    X, y = blobs(n_per=20)
    S = knn_affinity(X, k=5)
    cut = np.r_[0, 1, 2, 20, 21, 22, 40, 41, 42]
    S[cut, :] = 0
    S[:, cut] = 0
    rng = np.random.default_rng(1)
    views = [X, X @ rng.standard_normal((2, 5))]
    P = np.ones((2, 60))

    with pytest.warns(UserWarning, match="9 sample"):
        plain, _ = spectral_clustering(S, 3, random_state=0)
    assert adjusted_rand_score(y, plain.labels) < 1  # the isolated samples land anywhere

    emb, placed = place_weak_samples(S, views, P, 3, random_state=0)
    np.testing.assert_array_equal(placed, cut)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1)
    labels = kmeans_runs(emb, 3, random_state=0).labels
    assert adjusted_rand_score(y, labels) == 1.0


def test_a_distrusted_view_is_outvoted():
    # View 1 is corrupted for the isolated samples: there they sit in the wrong cluster.
    # With P low in view 1 for them, they still land in their own cluster.
    X, y = blobs(n_per=20)
    S = knn_affinity(X, k=5)
    cut = np.array([0, 1, 20, 21])
    S[cut, :] = 0
    S[:, cut] = 0
    bad = X.copy()
    bad[[0, 1]] = X[45]  # cluster 0 samples look like cluster 2 in view 1
    bad[[20, 21]] = X[5]  # cluster 1 samples look like cluster 0 in view 1
    P = np.ones((2, 60))
    P[1, cut] = 0.05
    emb, placed = place_weak_samples(S, [X, bad], P, 3, random_state=0)
    labels = kmeans_runs(emb, 3, random_state=0).labels
    assert adjusted_rand_score(y, labels) == 1.0
    P[1, cut], P[0, cut] = 1.0, 0.05  # trusting the corrupted view instead misplaces them
    emb, _ = place_weak_samples(S, [X, bad], P, 3, random_state=0)
    labels = kmeans_runs(emb, 3, random_state=0).labels
    assert adjusted_rand_score(y, labels) < 1.0


def test_nothing_weak_gives_the_plain_embedding():
    X, y = blobs(n_per=15)
    S = knn_affinity(X, k=5)
    emb, placed = place_weak_samples(S, [X], np.ones((1, 45)), 3, random_state=0)
    assert placed.size == 0
    np.testing.assert_allclose(emb, spectral_embedding(S, 3, random_state=0))


#: A sparse consensus (the former defaults, the paper's affinity), where outliers' columns of
#: Z* shrink until they are isolated: the case placement is for. Today's relative-beta
#: defaults keep these sets' consensus dense enough that nothing is isolated.
#: The former defaults (lam = beta = 0.3, the paper's affinity), on the paper's model with the
#: stopping rule of their time: a sparse consensus that isolates outliers.
SPARSE = {"lam": 0.3, "beta": 0.3, "scale_columns": False, **PAPER_MODEL, **FORMER_STOPPING}


def rmsc_fit(data, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return RMSC(n_clusters=3, random_state=0, **{**SPARSE, **params}).fit(data.views)


def test_rmsc_placement_option():
    d = inject(datasets.load_bundled("Subspaces"), [0, 2], 0.1, kind="replace", random_state=1)
    off = rmsc_fit(d, placement=None)
    assert off.placed_.size == 0
    runs, emb = spectral_clustering(off.affinity_matrix_, 3, random_state=check_random_state(0))
    np.testing.assert_array_equal(off.label_runs_, runs.runs)  # the paper's clustering step

    on = rmsc_fit(d)
    assert on.get_params()["placement"] == "neighbors"
    np.testing.assert_array_equal(on.placed_, np.flatnonzero(weak_samples(on.affinity_matrix_,
                                                                          WEAK_DEGREE)))
    assert on.placed_.size > 0
    # The solve itself is unchanged: only the clustering step differs.
    np.testing.assert_array_equal(on.weights_, off.weights_)
    assert (on.consensus_ != off.consensus_).nnz == 0
    # Most placed samples are outliers: their columns of Z* were the ones shrunk.
    assert d.outlier_mask.any(axis=0)[on.placed_].mean() > 0.5
    with pytest.raises(ValueError, match="placement must be 'neighbors'"):
        rmsc_fit(d, placement="random")


@pytest.mark.slow
def test_placement_recovers_digit_with_replaced_samples():
    """The robustness mechanism: 10 % of Digit replaced in PIX and FOU. At a sparse consensus
    (the former defaults: lam=0.3, beta=0.3, the paper's affinity) it isolates outliers and
    RMSC falls to ~89 % ACC without placement; placed, it is back at ~97 %. (At today's
    defaults the consensus is denser and isolates none: docs/robustness.md.)"""
    from rmsc import evaluate_runs

    d = datasets.load_digit()
    c = inject(d, ["PIX", "FOU"], 0.10, kind="replace", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = RMSC(n_clusters=10, random_state=0, **SPARSE).fit(c.views)
    assert model.placement == "neighbors"  # the default
    placed = evaluate_runs(d.labels, model.label_runs_)["acc_mean"]
    with pytest.warns(UserWarning, match="zero affinity"):  # the consensus isolates some
        plain, _ = spectral_clustering(model.affinity_matrix_, 10,
                                       random_state=check_random_state(0))
    unplaced = evaluate_runs(d.labels, plain.runs)["acc_mean"]
    assert placed >= 0.95 and unplaced < 0.92
    outlier = c.outlier_mask.any(axis=0)
    assert outlier[model.placed_].mean() > 0.5  # mostly outliers were placed
    assert outlier[model.placed_].sum() > 0.8 * outlier.sum()  # and most outliers were
