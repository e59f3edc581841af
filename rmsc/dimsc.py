"""DiMSC: diversity-induced multi-view subspace clustering (Cao et al., CVPR 2015), sparse form.

Cao, Zhang, Fu, Liu & Zhang learn one self-representation per view and push
the views' representations apart with the Hilbert-Schmidt independence
criterion, so that each view contributes what the others miss. Their model
has a smoothness term tr(Z L Z^T) on each Z^v; the RMSC paper (Section 5.1)
replaces it by the sparse constraint "for better comparison", i.e. SSC per
view plus the diversity term. In the paper's notation (samples as columns,
X^v of shape d_v x n)::

    min_{Z^v}  sum_v ||X^v - X^v Z^v||_F^2 + beta_v ||Z^v||_1
               + lam sum_{v<w} HSIC(Z^v, Z^w),      diag(Z^v) = 0,

    HSIC(Z^v, Z^w) = (n - 1)^{-2} tr(K^v H K^w H),  K^v = Z^vT Z^v,  H = I - 11^T/n

(Cao et al., eqs. 4-6: the inner-product kernel on the representations and
the empirical HSIC estimator). With the other views fixed, the terms in Z^v
are ||X - XZ||^2 + beta ||Z||_1 + tr(Z A Z^T), A = lam (n-1)^{-2}
sum_{w != v} H K^w H (their eq. 9 without the smoothness term), whose
stationarity condition is the Sylvester-type equation
(G + rho I) Z + Z A = RHS of their eq. 10. Solving that exactly costs O(n^3)
per ADMM step, so each view's subproblem is solved by majorisation
instead: with L_A >= lambda_max(A) (Lanczos estimate, 2 % margin),

    tr(Z A Z^T) <= const + L_A ||Z - W||_F^2,   W = Z_k - Z_k A / L_A,

tight at the current Z_k. The surrogate is SSC with an extra pull towards W,
solved by ADMM (:func:`diversity_subproblem`) whose Z-step is the
Woodbury-factored solve of :mod:`rmsc.solver` (:func:`rmsc.solver.gram_factor`,
:func:`rmsc.solver.factorize_view`). Minimising the surrogate never increases
the objective (majorise-minimise), view after view (Gauss-Seidel, as Cao et
al.'s alternation). The views start from their SSC solutions
(:func:`rmsc.ssc.ssc_admm`), i.e. lam = 0.

Stopping: each ADMM stops when the primal ||Z - C||_F and dual
2 rho ||C - C_prev||_F residuals are at most ``tol * max(1, ||C||_F)``
(``tol`` = 1e-4, as SSC) or after ``max_iter``; the outer alternation stops
when the objective's relative decrease in a sweep is at most ``outer_tol``
(1e-4) or after ``outer_iter`` sweeps.

Clustering: S = (1/m) sum_v (|Z^v| + |Z^vT|) / 2 (Cao et al. sum the views'
affinities; the mean has the same spectral clustering), then the shared
spectral protocol.

Cost: the surrogate's target W is a dense n x n matrix, so each view's
subproblem works with dense n x n arrays (O(n^2) memory, O(r n^2) per ADMM
step, r <= min(d_v, n)); the reference code is O(n^3) per step.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state

from .backends import one_thread_per_call
from . import solver
from .memory import check_dense_fits
from ._validation import check_nonnegative, check_positive_int
from .spectral import N_KMEANS_RUNS, spectral_clustering
from .ssc import (
    _SSC_PARAMS_DOC,
    SSC_ALPHA,
    _SSCParams,
    beta_and_alpha,
    residual_balancing,
    ssc_admm,
)


# ---------------------------------------------------------------------------
# HSIC pieces
# ---------------------------------------------------------------------------


def _centred_columns(Z):
    """Z H as a dense array (every row minus its mean)."""
    Zd = Z.toarray() if sp.issparse(Z) else np.array(Z, dtype=float)
    return Zd - Zd.mean(axis=1, keepdims=True)


def hsic(Zv, Zw):
    """Empirical HSIC of two representations with the inner-product kernel.

    ``(n-1)^{-2} tr(K^v H K^w H)`` with ``K = Z^T Z`` (Cao et al. 2015, eq. 5),
    computed as ``(n-1)^{-2} ||Z^w H Z^vT||_F^2``.

    Parameters
    ----------
    Zv, Zw : ndarray or sparse matrix of shape (n_samples, n_samples)

    Returns
    -------
    float
    """
    n = Zv.shape[1]
    P = Zw @ Zv.T
    P = P.toarray() if sp.issparse(P) else np.asarray(P)
    a = np.asarray(Zw.sum(axis=1)).ravel()
    b = np.asarray(Zv.sum(axis=1)).ravel()
    # Z^w H Z^vT = Z^w Z^vT - (Z^w 1)(Z^v 1)^T / n
    val = np.sum(P * P) - 2.0 * a @ P @ b / n + (a @ a) * (b @ b) / n ** 2
    return float(max(val, 0.0)) / (n - 1) ** 2


def diversity_gradient_half(Z, others, weight):
    """Z A with A = weight * sum_w H Z^wT Z^w H (half the gradient of tr(Z A Z^T)).

    Parameters
    ----------
    Z : ndarray or sparse matrix of shape (n, n)
    others : list of sparse matrices of shape (n, n)
        The other views' representations Z^w.
    weight : float
        lam / (n - 1)^2.

    Returns
    -------
    ndarray of shape (n, n)
    """
    ZH = _centred_columns(Z)
    out = np.zeros_like(ZH)
    for Zw in others:
        Zw = sp.csr_matrix(Zw)
        out += np.asarray((Zw.T @ (Zw @ ZH.T)).T)   # (Z H) Z^wT Z^w
    out -= out.mean(axis=1, keepdims=True)           # ... H
    return weight * out


def diversity_lipschitz(others, weight, n, random_state=None):
    """An upper estimate of lambda_max(weight * sum_w H Z^wT Z^w H) (2 % margin)."""
    if weight == 0 or not others:
        return 0.0
    mats = [sp.csr_matrix(Zw) for Zw in others]

    def matvec(x):
        x = np.asarray(x, dtype=float).reshape(n, -1)
        x = x - x.mean(axis=0, keepdims=True)
        y = sum(Zw.T @ (Zw @ x) for Zw in mats)
        return weight * (y - y.mean(axis=0, keepdims=True))

    op = scipy.sparse.linalg.LinearOperator((n, n), matvec=matvec, matmat=matvec, dtype=float)
    if n <= 50:
        dense = matvec(np.eye(n))
        return 1.02 * float(np.linalg.eigvalsh((dense + dense.T) / 2).max())
    v0 = check_random_state(random_state).uniform(-1, 1, n)
    w = scipy.sparse.linalg.eigsh(op, k=1, which="LA", v0=v0, tol=1e-4)[0]
    return 1.02 * float(w.max())


def dimsc_objective(Rs, Zs, betas, lam):
    """sum_v ||X^v - X^v Z^v||^2 + beta_v ||Z^v||_1 + lam sum_{v<w} HSIC(Z^v, Z^w).

    Parameters
    ----------
    Rs : list of ndarray, each (r_v, n)
        Data factors (R^T R = X^T X, :func:`rmsc.solver.gram_factor`).
    Zs : list of sparse matrices (n, n)
    betas : array-like of shape (n_views,)
    lam : float

    Returns
    -------
    total : float
    parts : dict with ``reconstruction``, ``sparsity``, ``diversity``
    """
    recon = sparsity = 0.0
    for R, Z, b in zip(Rs, Zs, betas):
        Z = sp.csc_matrix(Z)
        res = R - solver.sparse_right_product(R, Z)
        recon += float(np.sum(res * res))
        sparsity += b * float(np.abs(Z.data).sum())
    m = len(Zs)
    div = sum(hsic(Zs[v], Zs[w]) for v in range(m) for w in range(v + 1, m)) if lam else 0.0
    return recon + sparsity + lam * div, {
        "reconstruction": recon, "sparsity": sparsity, "diversity": div}


# ---------------------------------------------------------------------------
# One view's subproblem
# ---------------------------------------------------------------------------


def _soft_threshold_offdiag(A, tau):
    C = np.sign(A) * np.maximum(np.abs(A) - tau, 0.0)
    np.fill_diagonal(C, 0.0)
    return C


def diversity_subproblem(R, beta, C0, W=None, mu=0.0, *, rho=1.0, max_iter=200, tol=1e-4):
    """min_Z ||X - XZ||^2 + mu ||Z - W||^2 + beta ||Z||_1,  diag(Z) = 0, by ADMM.

    The split Z = C carries the L1 term and the zero diagonal on C (scaled
    ADMM, penalty rho ||Z - C + U||^2):

    * Z-step: Z = (G + nu I)^{-1} (G + nu V), nu = mu + rho,
      V = (mu W + rho (C - U)) / nu; by Woodbury Z = V + R^T M R (I - V),
      M = (R R^T + nu I)^{-1} (:func:`rmsc.solver.factorize_view`);
    * C-step: C = S_{beta / (2 rho)}(Z + U), diagonal set to 0;
    * U-step: U += Z - C.

    Started at ``C0`` with the dual that makes ``C0`` stationary for the
    Z-step, U = (G (I - C0) - mu (C0 - W)) / rho, so a warm start at the
    optimum stays there. rho is adapted by residual balancing.

    Parameters
    ----------
    R : ndarray of shape (r, n)
        R^T R = X^T X.
    beta : float > 0
    C0 : ndarray or sparse matrix of shape (n, n)
    W : ndarray of shape (n, n) or None
    mu : float >= 0
    rho : float
    max_iter : int
    tol : float
        Stop when the primal ||Z - C||_F and dual 2 rho ||C - C_prev||_F
        residuals are at most ``tol * max(1, ||C||_F)``.

    Returns
    -------
    C : scipy.sparse.csr_matrix of shape (n, n)
    info : dict with ``n_iter``, ``converged``, ``rho``
    """
    C = C0.toarray() if sp.issparse(C0) else np.array(C0, dtype=float)
    np.fill_diagonal(C, 0.0)
    if mu == 0.0 or W is None:
        mu, W = 0.0, None
    grad = R.T @ (R - R @ C)                      # G (I - C)
    U = (grad - mu * (C - W)) / rho if mu else grad / rho
    factor = solver.factorize_view(R, mu + rho)
    converged = False
    it = 0
    for it in range(1, max_iter + 1):
        nu = mu + rho
        V = (rho / nu) * (C - U)
        if mu:
            V += (mu / nu) * W
        Z = V + R.T @ (factor.M @ (R - R @ V))
        C_prev = C
        C = _soft_threshold_offdiag(Z + U, beta / (2.0 * rho))
        diff = Z - C
        U += diff
        primal = float(np.linalg.norm(diff))
        dual = 2.0 * rho * float(np.linalg.norm(C - C_prev))
        scale = max(1.0, float(np.linalg.norm(C)))
        if primal <= tol * scale and dual <= tol * scale:
            converged = True
            break
        factor_change = residual_balancing(primal, dual)
        if factor_change != 1.0:
            rho *= factor_change
            U /= factor_change
            factor = solver.factorize_view(R, mu + rho)
    return sp.csr_matrix(C), {"n_iter": it, "converged": converged, "rho": rho}


# ---------------------------------------------------------------------------
# Estimator
# ---------------------------------------------------------------------------

#: Dense n x n arrays alive at once in the diversity step (for the memory guard).
DENSE_ARRAYS = 12


class DiMSC(_SSCParams, ClusterMixin, BaseEstimator):
    __doc__ = (
        "DiMSC with sparse per-view representations (Cao et al. 2015, as compared in the RMSC paper).\n\n"
        "    See the module docstring for the model, the update equations and the\n"
        "    stopping rules. ``lam = 0`` is SSC on every view with the averaged affinity\n"
        "    (SSC-AVG).\n\n"
        "    Quirk of the reference code not copied: Cao et al.'s script reports the best\n"
        "    of several runs chosen with the true labels; here k-means is restarted\n"
        "    ``n_init`` times and every run is kept (``label_runs_``).\n\n"
        "    Parameters\n    ----------" + _SSC_PARAMS_DOC.replace(
            "ADMM iterations at most.", "ADMM iterations at most (per SSC start and per subproblem).")
        + """    lam : float, default=0.01
        Weight of the diversity term lam * sum_{v<w} HSIC(Z^v, Z^w) (Cao et al.'s
        lambda_V; HSIC is normalised by (n-1)^2 as theirs).
    outer_iter : int, default=10
        Sweeps over the views at most.
    outer_tol : float, default=1e-4
        Stop when a sweep lowers the objective by at most this fraction.

    Attributes
    ----------
    view_coefs_ : list of scipy.sparse.csr_matrix, each (n_samples, n_samples)
    betas_ : ndarray of shape (n_views,)
        The beta used for each view.
    alphas_ : ndarray of shape (n_views,)
        Each view's weight as an alpha: ``alpha`` for ``beta="auto"``, else
        2 mu_v / beta (see :func:`rmsc.ssc.beta_and_alpha`).
    objective_ : ndarray of shape (n_iter_ + 1,)
        The objective at the SSC start and after each sweep.
    n_iter_ : int
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    embedding_ : ndarray of shape (n_samples, n_clusters)
    labels_ : ndarray of shape (n_samples,)
    label_runs_ : ndarray of shape (n_init, n_samples)
""")

    def __init__(self, n_clusters=8, *, lam=0.01, beta="auto", alpha=SSC_ALPHA, normalize=True,
                 max_iter=200, tol=1e-4, outer_iter=10, outer_tol=1e-4, keep_mass=None,
                 top_k=None, scale_columns=False, n_init=N_KMEANS_RUNS, random_state=None):
        super().__init__(n_clusters, beta=beta, alpha=alpha, normalize=normalize,
                         max_iter=max_iter, tol=tol, keep_mass=keep_mass, top_k=top_k,
                         scale_columns=scale_columns, n_init=n_init, random_state=random_state)
        self.lam = lam
        self.outer_iter = outer_iter
        self.outer_tol = outer_tol

    @one_thread_per_call
    def fit(self, Xs, y=None):
        views, beta, alpha = self._prepare(Xs)
        lam = check_nonnegative("lam", self.lam)
        check_positive_int("outer_iter", self.outer_iter)
        check_nonnegative("outer_tol", self.outer_tol)
        rng = check_random_state(self.random_state)
        n, m = views[0].shape[0], len(views)
        if lam > 0 and m > 1:
            # The diversity step holds about a dozen dense n x n arrays at once
            # (Z^v, its target W, the ADMM iterates C, U, V, Z and their differences).
            check_dense_fits(n, n, count=DENSE_ARRAYS, what=f"DiMSC on {n} samples")
        Rs = [solver.gram_factor(X) for X in views]
        betas, alphas = zip(*(beta_and_alpha(R, beta, alpha) for R in Rs))
        Zs = []
        for v, (R, b) in enumerate(zip(Rs, betas)):
            C, _ = ssc_admm(R, b, max_iter=self.max_iter, tol=self.tol)
            if C.nnz == 0:
                raise ValueError(f"beta={b:g} makes the SSC representation of view {v} all "
                                 "zero; lower beta.")
            Zs.append(C.tocsr())
        objective = [dimsc_objective(Rs, Zs, betas, lam)[0]]
        it = 0
        weight = lam / (n - 1) ** 2
        if lam > 0 and m > 1:
            for it in range(1, self.outer_iter + 1):
                for v in range(m):
                    others = [Zs[w] for w in range(m) if w != v]
                    L = diversity_lipschitz(others, weight, n, random_state=rng)
                    Zk = Zs[v].toarray()
                    Wt = Zk - diversity_gradient_half(Zk, others, weight) / L
                    Zs[v], _ = diversity_subproblem(Rs[v], betas[v], Zk, Wt, L,
                                                    max_iter=self.max_iter, tol=self.tol)
                objective.append(dimsc_objective(Rs, Zs, betas, lam)[0])
                if objective[-2] - objective[-1] <= self.outer_tol * abs(objective[-2]):
                    break
        self.view_coefs_ = Zs
        self.betas_ = np.asarray(betas, dtype=float)
        self.alphas_ = np.asarray(alphas, dtype=float)
        self.objective_ = np.asarray(objective)
        self.n_iter_ = it
        self.affinity_matrix_ = sp.csr_matrix(sum(self._affinity(Z) for Z in Zs) / m)
        runs, self.embedding_ = spectral_clustering(
            self.affinity_matrix_, self.n_clusters, n_runs=self.n_init, random_state=rng)
        self.labels_, self.label_runs_ = runs.labels, runs.runs
        return self
