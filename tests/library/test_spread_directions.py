"""rmsc.preprocessing.spread_directions, worked by hand."""

import numpy as np
import pytest
import scipy.sparse as sp

from rmsc.preprocessing import spread_directions


def test_the_spread_along_one_direction_and_evenly_along_two_by_hand():
    # e1, e2, e1, e2 (unit already): centred to ±(0.5, -0.5), all along one direction
    one = spread_directions(np.array([[1.0, 0], [0, 1], [1, 0], [0, 1]]))
    assert one == pytest.approx({"pc1": 1.0, "directions": 1.0})
    # e1, e2, e3: the centred covariance has two equal eigenvalues (and a zero one)
    two = spread_directions(np.eye(3))
    assert two == pytest.approx({"pc1": 0.5, "directions": 2.0})
    # the samples are scaled to unit length first: 2·e1 and 5·e2 are e1 and e2
    assert spread_directions(np.array([[2.0, 0], [0, 5], [3, 0], [0, 1]])) == pytest.approx(one)


def test_unequal_spread_is_the_covariance_spectrums_share_and_participation_ratio():
    # four samples in 3-D spread unequally along two axes after unit scaling
    c = np.sqrt(2.0)
    X = np.array([[c, 1, 0], [-c, 1, 0], [0, 1, 1], [0, 1, -1]])
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    lam = np.linalg.eigvalsh(np.cov(Xn.T))
    want = {"pc1": lam.max() / lam.sum(), "directions": lam.sum() ** 2 / np.sum(lam ** 2)}
    assert spread_directions(X) == pytest.approx(want)
    assert 1 < want["directions"] < 2 and 0.5 < want["pc1"] < 1


def test_more_features_than_samples_and_sparse_views_give_the_same_spectrum():
    rng = np.random.default_rng(0)
    X = rng.random((5, 40))
    dense = spread_directions(X)
    assert spread_directions(sp.csr_matrix(X)) == pytest.approx(dense)
    # through the Gram matrix (40 features > 5 samples) as through the covariance
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    lam = np.clip(np.linalg.eigvalsh(np.cov(Xn.T)), 0, None)
    assert dense["directions"] == pytest.approx(lam.sum() ** 2 / np.sum(lam ** 2))
    assert dense["directions"] <= 4 + 1e-9  # five samples span at most four directions


def test_a_view_without_spread_gives_zero():
    assert spread_directions(np.array([[1.0, 1], [2, 2]])) == {"pc1": 0.0, "directions": 0.0}
