"""Per-view factorisation, shared by every iteration of a solve.

Notation (paper, samples as columns): X^v is d_v x n. Every quantity of the
model depends on X^v only through its Gram matrix G = X^vT X^v, so a view
with more features than samples (text) is replaced by an r x n factor R
with R^T R = G, r <= n. With K = R R^T (r x r) and M = (lam I + K)^{-1},
Woodbury gives (G + lam I)^{-1} = (I - R^T M R) / lam: only r x r solves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._array_api import is_device_array, namespace
from ..backends import LocalBlocks
from ..memory import check_dense_fits


@dataclass
class ViewFactor:
    """The constant per-view quantities of the Z^v-step for a given lambda.

    Attributes
    ----------
    R : ndarray of shape (r, n_samples)
        Data factor, R^T R = X^T X (R = X^v itself when d_v <= n and dense).
    K : ndarray of shape (r, r)
        R R^T.
    M : ndarray of shape (r, r)
        (lam I + K)^{-1}.
    MR : ndarray of shape (r, n_samples)
        M R.
    one_minus_h : ndarray of shape (n_samples,)
        1 - diag(R^T M R) = lam * diag((X^T X + lam I)^{-1}), positive for lam > 0.
    lam : float
    m_diag : ndarray of shape (r,) or None
        The diagonal of M when K is diagonal (the eigen-factor of
        :func:`gram_factor` for a view with more features than samples): then
        products with M are row scalings, O(r n) instead of O(r^2 n).
    """

    R: np.ndarray
    K: np.ndarray
    M: np.ndarray
    MR: np.ndarray
    one_minus_h: np.ndarray
    lam: float
    m_diag: np.ndarray | None = None

    def apply_M(self, T):
        """M @ T, for T of shape (r, k)."""
        if self.m_diag is not None:
            return self.m_diag[:, None] * T
        return self.M @ T


def gram_factor(X):
    """An r x n factor R with R^T R = X X^T for a view given samples-as-rows.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)

    Returns
    -------
    R : ndarray of shape (r, n_samples), r = n_features when that is at most
        n_samples (then R = X^T exactly), else r = rank of the Gram matrix.
        An array of another array-API namespace (torch, CuPy, array_api_strict) gives
        its factor there (:func:`gram_factor_dense`).
    """
    if is_device_array(X):
        return gram_factor_dense(X)
    n, d = X.shape
    if d <= n:
        return np.ascontiguousarray((X.toarray() if sp.issparse(X) else X).T, dtype=np.float64)
    # The n x n Gram matrix, its eigenvectors and eigh's workspace.
    check_dense_fits(n, n, count=3, what=f"The Gram matrix of a view with {d} features > "
                                          f"{n} samples", alternative=None)
    G = X @ X.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    w, V = scipy.linalg.eigh(G)
    keep = w > w.max() * n * np.finfo(float).eps
    return np.ascontiguousarray((V[:, keep] * np.sqrt(w[keep])).T)


def gram_factors(views, runner=None):
    """:func:`gram_factor` of every view, the views on the runner's threads.

    A text view's factor is an n x n eigendecomposition (LAPACK, which releases
    the GIL), so several views factor at once on a machine with several cores.

    Parameters
    ----------
    views : list of ndarray or sparse matrix, each (n_samples, n_features_v)
    runner : rmsc.backends.LocalBlocks or None
        None: a :class:`LocalBlocks` for the call.

    Returns
    -------
    list of ndarray, each (r_v, n_samples)
    """
    runner = LocalBlocks() if runner is None else runner
    with runner:
        return runner.map(lambda _, X: gram_factor(X), None, [(X,) for X in views])


#: K = R R^T counts as diagonal when its off-diagonal entries are at most this
#: fraction of its largest entry (the eigen-factor's K is diagonal to ~1e-14).
_DIAGONAL_K = 1e-12


def factorize_view(R, lam):
    """Precompute the Woodbury quantities of one view (see :class:`ViewFactor`).

    When K = R R^T is diagonal (rows of R orthogonal, as :func:`gram_factor`
    makes them for a view with more features than samples), M is the diagonal
    1 / (K_ii + lam): no r x r solve, and the Z^v-step scales rows instead of
    multiplying by M.
    """
    K = R @ R.T
    r = K.shape[0]
    k = np.diag(K).copy()
    off = K - np.diag(k)
    if r > 1 and np.abs(off).max() <= _DIAGONAL_K * max(np.abs(k).max(), np.finfo(float).tiny):
        m = 1.0 / (k + lam)
        MR = m[:, None] * R
        one_minus_h = 1.0 - np.einsum("ij,ij->j", R, MR)
        return ViewFactor(R=R, K=K, M=np.diag(m), MR=MR, one_minus_h=one_minus_h,
                          lam=float(lam), m_diag=m)
    cho = scipy.linalg.cho_factor(K + lam * np.eye(r), lower=True)
    M = scipy.linalg.cho_solve(cho, np.eye(r))
    M = (M + M.T) / 2.0
    MR = M @ R
    one_minus_h = 1.0 - np.einsum("ij,ij->j", R, MR)
    return ViewFactor(R=R, K=K, M=M, MR=MR, one_minus_h=one_minus_h, lam=float(lam))


def gram_factor_dense(X):
    """:func:`._factors.gram_factor` on the device: R with R^T R = X X^T, X (n, d).

    R = X^T (in X's dtype) when d <= n; else the eigen-factor of the n x n Gram matrix
    (float64), whose rows are orthogonal.
    """
    xp = namespace(X)
    n, d = X.shape
    if d <= n:
        return xp.asarray(X.T, copy=True)
    X64 = xp.astype(X, xp.float64)
    w, V = xp.linalg.eigh(X64 @ X64.T)
    keep = xp.nonzero(w > xp.max(w) * (n * float(np.finfo(np.float64).eps)))[0]
    R = (xp.take(V, keep, axis=1) * xp.sqrt(xp.take(w, keep))[None, :]).T
    return xp.astype(R, X.dtype)
