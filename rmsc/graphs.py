"""Per-view similarity graphs for the spectral baselines (SC-BSV, MSC, Co-*).

The paper (Section 5.1) builds, for every method that needs a graph
Laplacian, "the Gaussian kernel and k-nearest neighbor graphs
(von Luxburg 2007), k empirically set to be 5". This module is that graph:

* neighbours: the ``n_neighbors`` nearest samples in Euclidean distance
  (scikit-learn ``NearestNeighbors``; a sample is not its own neighbour);
* weights: the Gaussian kernel ``w_ij = exp(-||x_i - x_j||^2 / (2 sigma^2))``
  on those edges, 0 elsewhere;
* symmetrisation: ``W = max(W, W^T)`` — i and j are joined when either is
  among the other's k nearest (von Luxburg's "k-nearest neighbour graph").

Bandwidth rule (``bandwidth``):

* ``"mean_knn"`` (default): one global sigma, the mean over samples of the
  distance to the k-th nearest neighbour. This is the rule of thumb of the
  tutorial the paper cites for its graphs (von Luxburg 2007, Sec. 8.1: sigma
  "in the order of the mean distance of a point to its k-th nearest
  neighbour"); it ties sigma to the same k as the graph, needs no labels and
  follows the scale of each view, which matters because the views differ
  (e.g. Digit's six feature sets).
* ``"self_tuning"``: local scaling of Zelnik-Manor & Perona (NIPS 2004),
  ``w_ij = exp(-d_ij^2 / (sigma_i sigma_j))`` with sigma_i the distance from
  i to its k-th neighbour; for data whose density varies between clusters.
* a positive float: a fixed global sigma.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from ._validation import check_positive_int

#: k of the k-nearest-neighbour graphs (the paper's value).
N_NEIGHBORS = 5

#: Names of the bandwidth rules accepted by :func:`knn_affinity`.
BANDWIDTH_RULES = ("mean_knn", "self_tuning")


def knn_distances(X, n_neighbors=N_NEIGHBORS):
    """Distances to, and indices of, every sample's ``n_neighbors`` nearest samples.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    n_neighbors : int

    Returns
    -------
    distances : ndarray of shape (n_samples, n_neighbors)
        Ascending along each row; the sample itself is excluded.
    indices : ndarray of shape (n_samples, n_neighbors)
    """
    k = check_positive_int("n_neighbors", n_neighbors)
    n = X.shape[0]
    if k >= n:
        raise ValueError(
            f"n_neighbors={k} needs more than {k} samples, but there are only {n}; "
            f"use n_neighbors <= {n - 1}."
        )
    nn = NearestNeighbors(n_neighbors=k).fit(X)
    # kneighbors() without a query excludes each sample from its own neighbours.
    return nn.kneighbors()


def knn_bandwidth(distances, bandwidth="mean_knn"):
    """The Gaussian bandwidth(s) of a rule, from :func:`knn_distances` output.

    Parameters
    ----------
    distances : ndarray of shape (n_samples, n_neighbors)
    bandwidth : {"mean_knn", "self_tuning"} or float > 0

    Returns
    -------
    sigma : float (global rules) or ndarray of shape (n_samples,) ("self_tuning")
    """
    kth = distances[:, -1]
    if isinstance(bandwidth, str):
        if bandwidth == "mean_knn":
            sigma = float(kth.mean())
            if sigma <= 0:
                raise ValueError(
                    "Every sample has at least n_neighbors exact duplicates, so the mean "
                    "k-th neighbour distance is 0 and no Gaussian bandwidth can be set; "
                    "remove duplicate samples or pass a positive bandwidth."
                )
            return sigma
        if bandwidth == "self_tuning":
            if np.any(kth <= 0):
                bad = np.flatnonzero(kth <= 0)
                raise ValueError(
                    f"{bad.size} sample(s) (e.g. {bad[0]}) have n_neighbors or more exact "
                    "duplicates, so their local bandwidth is 0; remove duplicates, raise "
                    "n_neighbors or use bandwidth='mean_knn'."
                )
            return kth.copy()
        raise ValueError(
            f"Unknown bandwidth rule {bandwidth!r}; use one of {', '.join(BANDWIDTH_RULES)} "
            "or a positive number."
        )
    if isinstance(bandwidth, bool) or not isinstance(bandwidth, numbers.Real) \
            or not np.isfinite(bandwidth) or bandwidth <= 0:
        raise ValueError(
            f"bandwidth must be 'mean_knn', 'self_tuning' or a positive number; got {bandwidth!r}."
        )
    return float(bandwidth)


def knn_affinity(X, n_neighbors=N_NEIGHBORS, bandwidth="mean_knn", *, return_bandwidth=False):
    """Symmetric Gaussian k-nearest-neighbour affinity of one view.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    n_neighbors : int, default=5
        The paper's k.
    bandwidth : {"mean_knn", "self_tuning"} or float > 0, default="mean_knn"
        See the module docstring.
    return_bandwidth : bool, default=False

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, non-negative, zero diagonal; every row has at least
        ``n_neighbors`` stored entries (more where other samples chose it).
    sigma : float or ndarray of shape (n_samples,)
        Only with ``return_bandwidth=True``.
    """
    dist, ind = knn_distances(X, n_neighbors)
    sigma = knn_bandwidth(dist, bandwidth)
    n, k = ind.shape
    rows = np.repeat(np.arange(n), k)
    if np.ndim(sigma) == 0:
        vals = np.exp(-(dist ** 2) / (2.0 * sigma ** 2))
    else:
        vals = np.exp(-(dist ** 2) / (sigma[:, None] * sigma[ind]))
    W = sp.csr_matrix((vals.ravel(), (rows, ind.ravel())), shape=(n, n))
    W = W.maximum(W.T).tocsr()
    W.setdiag(0.0)
    W.eliminate_zeros()
    return (W, sigma) if return_bandwidth else W


def normalized_affinity(W):
    """``D^{-1/2} W D^{-1/2}`` with ``D = diag(W 1)``: what the spectral baselines maximise.

    ``I - D^{-1/2} W D^{-1/2}`` is the normalised graph Laplacian, so its
    smallest eigenvectors are this matrix's largest (Kumar et al. 2011 call
    this matrix the "normalized Laplacian" directly). Samples with no edge
    weight (possible only through kernel underflow) get a zero row.

    Parameters
    ----------
    W : sparse matrix of shape (n_samples, n_samples), symmetric non-negative

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    """
    deg = np.asarray(W.sum(axis=1)).ravel()
    d = np.divide(1.0, np.sqrt(deg), out=np.zeros_like(deg), where=deg > 0)
    N = sp.diags(d) @ sp.csr_matrix(W) @ sp.diags(d)
    return sp.csr_matrix((N + N.T) / 2.0)


def normalize_rows(U):
    """Scale every row of an embedding to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(U, axis=1, keepdims=True)
    return np.divide(U, norms, out=np.zeros_like(U), where=norms > 0)
