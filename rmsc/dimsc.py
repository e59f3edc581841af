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
solved by ADMM (:func:`diversity_subproblem`): SSC's own iteration
(:func:`rmsc.ssc.ssc_admm`, same splitting, Woodbury-factored Z-step of
:mod:`rmsc.solver`) with the pull in the smooth part. Any point whose
surrogate value is at most Z_k's lowers the objective (majorise-minimise), so
the views are updated one after the other (Gauss-Seidel, as Cao et al.'s
alternation) by *inexact* solves: each subproblem runs ``inner_iter`` ADMM
iterations, then stops at the first check (every 5 iterations) where its
surrogate is at most Z_k's; an iterate above it is never returned (if none
is found within ``max_iter``, Z_k is kept). The views start from their SSC
solutions (:func:`rmsc.ssc.ssc_admm`, i.e. lam = 0), and every subproblem
continues the ADMM where that view's previous solve stopped: its dual and rho
(the dual moved by the change of the pull, - (mu / rho)(Z_k - W)), not the
stationary dual of a fresh start.

Stopping: each ADMM stops when the primal ||Z - C||_F and dual
2 rho ||C - C_prev||_F residuals are at most ``tol * max(1, ||C||_F)``
(``tol`` = 1e-4, as SSC) and the surrogate is at most its start, after
``inner_iter`` iterations at the first check where it is, or after
``max_iter``; the outer alternation stops when the objective's relative
decrease in a sweep is at most ``outer_tol`` (1e-4) or after ``outer_iter``
sweeps.

Clustering: S = (1/m) sum_v (|Z^v| + |Z^vT|) / 2 (Cao et al. sum the views'
affinities; the mean has the same spectral clustering), then the shared
spectral protocol.

Cost: the diversity subproblems continue SSC's ADMM (its state, its float32 product fused
with the thresholding, its sparsity) instead of restarting it, which also makes every sweep
lower the objective; before, the first sweep could raise it and end the fit
(docs/measurements.md, "DiMSC's cost", ``docs/studies/bench_dimsc.py``):

* U is held as F + (mu / rho) W_off + R^T P with F sparse (a combination of
  iterates C), so the Z-step never touches W; R C, R F and K P are r x n
  arrays, and an iteration is SSC's: one (n x r)(r x n) product in float32
  (SSC's precision rule, :data:`rmsc.ssc.PRECISION`) fused with the
  thresholding, W entering only as the dense reference added to each column
  block; residuals and the surrogate every 5 iterations.
* ``inner_iter`` = 5 iterations a subproblem.
* The diversity gradient and the Lipschitz bound use one dense
  B = sum_w Z^wT Z^w kept up to date through the sweeps (one product Z^v B
  per view instead of two per other view).

Why one module (~700 lines): the HSIC pieces, the diversity subproblem's block
steps (``_z_step``, ``_c_step``, ``_u_step``, which continue SSC's ADMM state)
and the estimator are one majorise-minimise algorithm, and
:class:`rmsc.experiments.SharedSolves` memoises ``diversity_subproblem``,
``diversity_gradient_half``, ``dimsc_objective`` and ``ssc_admm`` through this
module's attributes. Moving the subproblem to a module of its own is the next
step if this one grows.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state

from dataclasses import dataclass

from .backends import LocalBlocks, one_thread_per_call
from . import solver
from .memory import check_dense_fits
from ._validation import NON_NEGATIVE, POSITIVE_INT, Interval, Param
from .spectral import N_KMEANS_RUNS, spectral_clustering
from .ssc import (
    _SSC_PARAMS_DOC,
    SSC_ALPHA,
    _SSCParams,
    _fro,
    _sparse_plus_lowrank_norm,
    beta_and_alpha,
    precision_dtype,
    residual_balancing,
    ssc_admm,
)


# ---------------------------------------------------------------------------
# HSIC pieces
# ---------------------------------------------------------------------------


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
    if _dense_enough(Zv):   # sparse x sparse would fill in: one side dense instead
        P = _left_product(Zw, _as_dense(Zv).T)
    elif _dense_enough(Zw):
        P = _left_product(Zv, _as_dense(Zw).T).T
    else:
        P = Zw @ Zv.T
        P = P.toarray() if sp.issparse(P) else np.asarray(P)
    a = np.asarray(Zw.sum(axis=1)).ravel()
    b = np.asarray(Zv.sum(axis=1)).ravel()
    # Z^w H Z^vT = Z^w Z^vT - (Z^w 1)(Z^v 1)^T / n
    val = np.sum(P * P) - 2.0 * a @ P @ b / n + (a @ a) * (b @ b) / n ** 2
    return float(max(val, 0.0)) / (n - 1) ** 2


#: Above this fraction of nonzeros, products with a representation use dense BLAS
#: (as :func:`rmsc.solver.sparse_right_product`; Digit's 6-feature view is 41 % dense).
DENSE_PRODUCT_DENSITY = 0.1


def _dense_enough(Z):
    return not sp.issparse(Z) or Z.nnz > DENSE_PRODUCT_DENSITY * Z.shape[0] * Z.shape[1]


def _as_dense(Z):
    return Z.toarray() if sp.issparse(Z) else np.asarray(Z, dtype=float)


def gram(Z):
    """Z^T Z as a dense array."""
    if not _dense_enough(Z):
        return np.asarray((Z.T @ Z).toarray())
    Zd = _as_dense(Z)
    return Zd.T @ Zd


def _left_product(Z, B):
    """Z @ B for Z (n x n, sparse or dense) and dense B, as a dense array."""
    if not _dense_enough(Z):
        return np.asarray(sp.csr_matrix(Z) @ B)
    return _as_dense(Z) @ B


def diversity_gradient_half(Z, others, weight, gram_sum=None):
    """Z A with A = weight * sum_w H Z^wT Z^w H (half the gradient of tr(Z A Z^T)).

    Computed as weight (Z B - (Z 1)(1^T B) / n) H with B = sum_w Z^wT Z^w:
    one product with the dense n x n B instead of two with every other view.

    Parameters
    ----------
    Z : ndarray or sparse matrix of shape (n, n)
    others : list of sparse matrices of shape (n, n)
        The other views' representations Z^w (unused when ``gram_sum`` is given).
    weight : float
        lam / (n - 1)^2.
    gram_sum : ndarray of shape (n, n) or None
        B = sum_w Z^wT Z^w (:func:`gram`), when the caller keeps it.

    Returns
    -------
    ndarray of shape (n, n)
    """
    B = sum(gram(Zw) for Zw in others) if gram_sum is None else gram_sum
    out = _left_product(Z, B)
    z1 = np.asarray(Z.sum(axis=1)).ravel()
    out -= np.outer(z1, B.sum(axis=0) / Z.shape[0])       # (Z H) B
    out -= out.mean(axis=1, keepdims=True)                 # ... H
    out *= weight
    return out


def diversity_lipschitz(others, weight, n, random_state=None, gram_sum=None):
    """An upper estimate of lambda_max(weight * sum_w H Z^wT Z^w H) (2 % margin).

    ``gram_sum``: B = sum_w Z^wT Z^w, when the caller keeps it (then ``others``
    is only checked for being non-empty).
    """
    if weight == 0 or not others:
        return 0.0
    if gram_sum is None:
        mats = [sp.csr_matrix(Zw) for Zw in others]
        apply = lambda x: sum(Zw.T @ (Zw @ x) for Zw in mats)  # noqa: E731
    else:
        apply = lambda x: gram_sum @ x  # noqa: E731

    def matvec(x):
        x = np.asarray(x, dtype=float).reshape(n, -1)
        x = x - x.mean(axis=0, keepdims=True)
        y = apply(x)
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


def surrogate(R, beta, C, W=None, mu=0.0, RC=None):
    """||X - XC||^2 + mu ||C - W||^2 + beta ||C||_1: the subproblem's objective at C.

    Parameters
    ----------
    R : ndarray of shape (r, n)
    beta : float
    C : sparse matrix or ndarray of shape (n, n)
    W : ndarray of shape (n, n) or None
    mu : float
    RC : ndarray of shape (r, n) or None
        R C, when the caller has it.

    Returns
    -------
    float
    """
    if RC is None:
        RC = solver.sparse_right_product(R, sp.csc_matrix(C)) if sp.issparse(C) else R @ C
    res = R - RC
    value = float(np.sum(res * res))
    if sp.issparse(C):
        C = sp.coo_matrix(C)
        value += beta * float(np.abs(C.data).sum())
        if mu:
            # ||C - W||^2 = ||W||^2 + sum over C's nonzeros of (c - w)^2 - w^2
            w = W[C.row, C.col]
            value += mu * (float(np.sum(W * W)) + float(np.sum((C.data - w) ** 2 - w * w)))
        return value
    value += beta * float(np.abs(C).sum())
    if mu:
        value += mu * float(np.sum((C - W) ** 2))
    return value


def _combine(*terms):
    """sum of c * M over (c, M): sparse CSC when every M is sparse, else a dense array."""
    terms = [(c, M) for c, M in terms if c != 0.0 and M is not None]
    if all(sp.issparse(M) for _, M in terms):
        out = sp.csc_matrix(terms[0][1].shape)
        for c, M in terms:
            out = out + c * M
        return sp.csc_matrix(out)
    out = None
    for c, M in terms:
        M = M.toarray() if sp.issparse(M) else M
        out = c * M if out is None else out + c * M
    return out


def _add_into(out, c, M):
    """out += c * M for a dense ``out`` and a sparse or dense M."""
    if c == 0.0:
        return
    if sp.issparse(M):
        M = M.tocoo()
        out[M.row, M.col] += (c * M.data).astype(out.dtype, copy=False)
    else:
        out += (c * M).astype(out.dtype, copy=False)


def _minus_diag(F, D):
    """F - diag(D), sparse or dense."""
    if sp.issparse(F):
        return sp.csc_matrix(F - sp.diags(D))
    F = F.copy()
    F[np.diag_indices_from(F)] -= D
    return F


@dataclass
class _State:
    """The subproblem's ADMM state: C, and the scaled dual U = F + (mu / rho) W_off + R^T P.

    With this split the pull towards W never enters the Z-step, F stays as
    sparse as the iterates C (see :func:`diversity_subproblem`), and R F,
    K P, R C are tracked as r x n arrays, so an iteration needs one dense
    (n x r)(r x n) product (:func:`rmsc.solver.threshold_columns`).
    """

    C: object
    RC: np.ndarray
    F: object
    RF: np.ndarray
    P: np.ndarray
    KP: np.ndarray
    rho: float


def _start_state(R, K, C0, mu, rho, dual):
    """The state at C0 for the dual ``(S, Q)`` of the pull-free problem (U = S + R^T Q).

    The pull adds mu (C - W) to the smooth gradient, so the dual of the
    subproblem is U = S + R^T Q - (mu / rho) (C0 - W)_off: F = S - (mu / rho) C0.
    ``dual=None`` takes the dual that makes C0 stationary for the Z-step,
    S = 0, Q = R (I - C0) / rho.
    """
    C = sp.csc_matrix(C0) if sp.issparse(C0) else np.array(C0, dtype=float)
    if sp.issparse(C):
        C.setdiag(0.0)
        C.eliminate_zeros()
    else:
        np.fill_diagonal(C, 0.0)
    RC = solver.sparse_right_product(R, C) if sp.issparse(C) else R @ C
    if dual is None:
        S, Q = sp.csc_matrix(C.shape), (R - RC) / rho
    else:
        S, Q = dual
    S = sp.csc_matrix(S) if sp.issparse(S) else np.asarray(S, dtype=float)
    F = _combine((1.0, S), (-mu / rho, C))
    RF = solver.sparse_right_product(R, F) if sp.issparse(F) else R @ F
    P = np.array(Q, dtype=float)
    return _State(C=C, RC=RC, F=F, RF=RF, P=P, KP=K @ P, rho=float(rho))


def _z_step(view, R, st, mu):
    """Z = V - diag(D) + R^T Q for V = (rho / nu)(C - F - R^T P), nu = mu + rho.

    The Z-step min ||X - XZ||^2 + mu ||Z - W||^2 + rho ||Z - C + U||^2,
    diag(Z) = 0, is SSC's with lam = nu and target V = (mu W + rho (C - U)) / nu;
    the W terms cancel in V (U holds (mu / rho) W_off). Returns the
    :func:`rmsc.solver.zv_step` representation and K Q.
    """
    nu = mu + st.rho
    T = R - (st.rho / nu) * (st.RC - st.RF - st.KP)          # R (I - V)
    rep = solver.zv_step(view, T)
    KQ = T + R * rep.D[None, :] - nu * rep.Q                  # K M = I - nu M
    return rep, KQ


def _c_step(Rp, shared, runner, st, rep, W32, buf, mu, beta, block_size):
    """C = S_{beta / (2 rho)}(Z + U) off the diagonal, fused with the product R^T P'.

    Z + U = (rho/nu) C + (mu/nu) F + (mu/rho) W_off - diag(D) + R^T P',
    P' = Q + (mu/nu) P; the dense part is assembled in ``buf`` (F-ordered, as
    ``W32``, the pull target without its diagonal). Returns the thresholded C,
    R C and P'.
    """
    rho = st.rho
    nu = mu + rho
    Pn = rep.Q + (mu / nu) * st.P
    if W32 is None:
        ref = _combine((rho / nu, st.C), (mu / nu, st.F))
    else:
        ref = np.multiply(W32, W32.dtype.type(mu / rho), out=buf)
        for c, M in ((rho / nu, st.C), (mu / nu, st.F)):
            _add_into(ref, c, M)
    dtype = Rp.dtype
    n = Rp.shape[1]
    out = solver.threshold_columns(
        Rp, Pn.astype(dtype, copy=False), ref, np.full(n, beta / (2.0 * rho), dtype=dtype),
        block_size=block_size, runner=runner, shared=shared, dense=solver.keep_dense(st.C))
    C = out.Z if not sp.issparse(out.Z) else sp.csc_matrix(out.Z, dtype=np.float64)
    return C, np.asarray(out.RZ, dtype=np.float64), Pn


def _u_step(R, st, rep, KQ, C, RC, Pn, mu):
    """U += Z - C: F' = (rho/nu) C_prev + (mu/nu) F - diag(D) - C, P' = Q + (mu/nu) P."""
    rho = st.rho
    nu = mu + rho
    F = _minus_diag(_combine((rho / nu, st.C), (mu / nu, st.F), (-1.0, C)), rep.D)
    RF = (rho / nu) * st.RC + (mu / nu) * st.RF - R * rep.D[None, :] - RC
    return _State(C=C, RC=RC, F=F, RF=RF, P=Pn, KP=KQ + (mu / nu) * st.KP, rho=rho)


def _rescale(st, factor):
    """rho *= factor; the scaled dual U = Y / (2 rho) with it (F, P and their products)."""
    return _State(C=st.C, RC=st.RC, F=st.F / factor, RF=st.RF / factor, P=st.P / factor,
                  KP=st.KP / factor, rho=st.rho * factor)


#: Iterations between residual (and surrogate) checks of :func:`diversity_subproblem`.
CHECK_EVERY = 5

#: An iterate whose surrogate exceeds the start's by at most this fraction counts as no
#: worse (round-off: at a fixed point the same value is computed from other iterates and
#: came out 1-2 ulps above the start's, so a restart at its own solution could not stop
#: until the rounding happened to fall the other way).
ACCEPT_RTOL = 1e-12


def diversity_subproblem(R, beta, C0, W=None, mu=0.0, *, rho=1.0, max_iter=200, tol=1e-4,
                         dual=None, accept_after=None, check_every=CHECK_EVERY,
                         precision=None, block_size=None):
    """min_Z ||X - XZ||^2 + mu ||Z - W||^2 + beta ||Z||_1,  diag(Z) = 0, by ADMM.

    SSC's ADMM (:func:`rmsc.ssc.ssc_admm`) with the pull mu ||Z - W||^2 in the
    smooth part, split Z = C (penalty rho ||Z - C + U||^2, diag(Z) = diag(C) = 0):

    * Z-step (:func:`_z_step`): Z = (G + nu I)^{-1}(G + nu V) with the diagonal
      fixed to 0, nu = mu + rho, V = (mu W + rho (C - U)) / nu: SSC's Z-step
      (:func:`rmsc.solver.zv_step`, Woodbury factor for nu);
    * C-step (:func:`_c_step`): C = S_{beta / (2 rho)}(Z + U), diagonal 0;
    * U-step (:func:`_u_step`): U += Z - C.

    U is held as F + (mu / rho) W_off + R^T P (W_off: W without its diagonal).
    Then V = (rho / nu)(C - F - R^T P) does not involve W, and the U-step is
    F' = (rho/nu) C_prev + (mu/nu) F - diag(D) - C, P' = Q + (mu/nu) P: F is a
    combination of iterates C (sparse while they are), W enters only as the
    dense reference added before thresholding, and an iteration costs one
    (n x r)(r x n) product, in ``precision`` (float32 under SSC's rule,
    :data:`rmsc.ssc.PRECISION`), fused with the thresholding. With mu = 0
    this is :func:`rmsc.ssc.ssc_admm`'s iteration.

    Started at C0 with the dual ``dual`` of the pull-free problem (SSC's final
    one, or this function's previous ``info["dual"]``), moved to this problem
    by - (mu / rho)(C0 - W); ``dual=None`` takes the dual that makes C0
    stationary for the Z-step. rho is adapted by residual balancing every
    ``check_every`` iterations, where the residuals and the surrogate value
    are computed.

    Monotone by construction: an iterate is returned only if its value is at
    most C0's (up to round-off, :data:`ACCEPT_RTOL`); if no checked iterate is,
    C0 is returned unchanged.

    Parameters
    ----------
    R : ndarray of shape (r, n)
        R^T R = X^T X.
    beta : float > 0
    C0 : ndarray or sparse matrix of shape (n, n)
    W : ndarray of shape (n, n) or None
    mu : float >= 0
    rho : float
        Initial penalty (when ``dual`` is given, the rho it belongs to).
    max_iter : int
    tol : float
        Stop when the primal ||Z - C||_F and dual 2 rho ||C - C_prev||_F
        residuals are at most ``tol * max(1, ||C||_F)`` (and the value is at
        most C0's).
    dual : tuple (S, Q) or None
        U = S + R^T Q for the problem without the pull, at penalty ``rho``.
    accept_after : int or None
        Inexact solve: after this many iterations, stop at the first check
        whose value is at most C0's (majorise-minimise needs no more). None:
        run to ``tol`` or ``max_iter``.
    check_every : int
    precision : {"auto", "float32", "float64"} or None
        Of the fused product, as :func:`rmsc.ssc.ssc_admm`'s.
    block_size : int or None

    Returns
    -------
    C : scipy.sparse.csr_matrix of shape (n, n)
    info : dict with ``n_iter``, ``converged``, ``rho``, ``dual`` (S, Q) for the
        next call, ``value`` (the surrogate at C), ``start_value`` (at C0),
        ``accepted`` (False when C0 was returned).
    """
    if mu == 0.0 or W is None:
        mu, W = 0.0, None
    dtype = precision_dtype(precision, tol)
    view = solver.factorize_view(R, mu + rho)
    K = view.K
    st = _start_state(R, K, C0, mu, rho, dual)
    start = st
    f0 = surrogate(R, beta, st.C, W, mu, RC=st.RC)
    W32 = buf = None
    if W is not None:
        W32 = np.array(W, dtype=dtype, order="F")
        np.fill_diagonal(W32, 0.0)
        buf = np.empty_like(W32)
    Rp = R.astype(dtype, copy=False)
    converged = accepted = False
    value = f0
    it = 0
    with LocalBlocks() as runner:
        shared = runner.share(solver.StackedFactors(R=Rp, RT=np.ascontiguousarray(Rp.T),
                                                    splits=np.array([], dtype=int)))
        for it in range(1, max_iter + 1):
            rep, KQ = _z_step(view, R, st, mu)
            C, RC, Pn = _c_step(Rp, shared, runner, st, rep, W32, buf, mu, beta,
                                block_size)
            prev, st = st, _u_step(R, st, rep, KQ, C, RC, Pn, mu)
            if it % check_every and it != max_iter:
                continue
            # Primal residual Z - C = U - U_prev, dual 2 rho (C - C_prev).
            dF = _combine((1.0, st.F), (-1.0, prev.F))
            primal = _sparse_plus_lowrank_norm(dF, st.RF - prev.RF, st.P - prev.P,
                                               st.KP - prev.KP)
            dual_res = 2.0 * st.rho * _fro(_combine((1.0, st.C), (-1.0, prev.C)))
            scale = max(1.0, _fro(st.C))
            value = surrogate(R, beta, st.C, W, mu, RC=st.RC)
            accepted = value <= f0 + ACCEPT_RTOL * abs(f0)
            if accepted and (primal <= tol * scale and dual_res <= tol * scale):
                converged = True
                break
            if accepted and accept_after is not None and it >= accept_after:
                break
            factor = residual_balancing(primal, dual_res)
            if factor != 1.0:
                st = _rescale(st, factor)
                view = solver.factorize_view(R, mu + st.rho)
    if not accepted:
        st, value = start, f0
    S = _combine((1.0, st.F), (mu / st.rho, st.C))
    info = {"n_iter": it, "converged": converged, "rho": st.rho, "dual": (S, st.P),
            "value": value, "start_value": f0, "accepted": accepted}
    return sp.csr_matrix(st.C), info


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
    inner_iter : int or None, default=5
        Inexact subproblems: after this many ADMM iterations, a view's
        subproblem stops at the first check where its surrogate is at most its
        starting value (``accept_after`` of :func:`diversity_subproblem`),
        else it runs on, to ``max_iter`` at most. None: solve every subproblem
        to ``tol`` or ``max_iter``.

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
    inner_iters_ : ndarray of int of shape (n_iter_, n_views)
        ADMM iterations of every view's subproblem in every sweep.
    n_iter_ : int
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    embedding_ : ndarray of shape (n_samples, n_clusters)
    labels_ : ndarray of shape (n_samples,)
    label_runs_ : ndarray of shape (n_init, n_samples)
""")

    _parameter_constraints = {
        **_SSCParams._parameter_constraints, "lam": NON_NEGATIVE, "outer_iter": POSITIVE_INT,
        "outer_tol": NON_NEGATIVE, "inner_iter": Param(None, Interval(numbers.Integral, 1),
                                                       what="an integer >= 1, or None (every "
                                                            "subproblem solved to tol)"),
    }

    def __init__(self, n_clusters=8, *, lam=0.01, beta="auto", alpha=SSC_ALPHA, normalize=True,
                 max_iter=200, tol=1e-4, outer_iter=10, outer_tol=1e-4, inner_iter=5,
                 keep_mass=None,
                 top_k=None, scale_columns=False, n_init=N_KMEANS_RUNS, random_state=None):
        super().__init__(n_clusters, beta=beta, alpha=alpha, normalize=normalize,
                         max_iter=max_iter, tol=tol, keep_mass=keep_mass, top_k=top_k,
                         scale_columns=scale_columns, n_init=n_init, random_state=random_state)
        self.lam = lam
        self.outer_iter = outer_iter
        self.outer_tol = outer_tol
        self.inner_iter = inner_iter

    @one_thread_per_call
    def fit(self, Xs, y=None):
        views, beta, alpha = self._prepare(Xs)
        lam = float(self.lam)  # the contract checked it (in _prepare)
        rng = check_random_state(self.random_state)
        n, m = views[0].shape[0], len(views)
        if lam > 0 and m > 1:
            # The diversity step holds about a dozen dense n x n arrays at once
            # (Z^v, its target W, the ADMM iterates C, U, V, Z and their differences).
            check_dense_fits(n, n, count=DENSE_ARRAYS, what=f"DiMSC on {n} samples")
        Rs = [solver.gram_factor(X) for X in views]
        betas, alphas = zip(*(beta_and_alpha(R, beta, alpha) for R in Rs))
        sweeps = lam > 0 and m > 1
        Zs, duals, rhos = [], [], []
        for v, (R, b) in enumerate(zip(Rs, betas)):
            C, info = ssc_admm(R, b, max_iter=self.max_iter, tol=self.tol, return_dual=sweeps)
            if C.nnz == 0:
                raise ValueError(f"beta={b:g} makes the SSC representation of view {v} all "
                                 "zero; lower beta.")
            Zs.append(C.tocsr())
            duals.append(info.get("dual"))
            rhos.append(info["rho"])
        objective = [dimsc_objective(Rs, Zs, betas, lam)[0]]
        inner = []
        it = 0
        weight = lam / (n - 1) ** 2
        if sweeps:
            B = sum(gram(Z) for Z in Zs)              # sum_w Z^wT Z^w, kept up to date
            for it in range(1, self.outer_iter + 1):
                inner.append([])
                for v in range(m):
                    B -= gram(Zs[v])                   # the other views' only
                    Zs[v], info = self._view_step(Rs[v], betas[v], Zs[v], duals[v], rhos[v],
                                                  B, weight, rng)
                    duals[v], rhos[v] = info["dual"], info["rho"]
                    inner[-1].append(info["n_iter"])
                    B += gram(Zs[v])
                objective.append(dimsc_objective(Rs, Zs, betas, lam)[0])
                if objective[-2] - objective[-1] <= self.outer_tol * abs(objective[-2]):
                    break
        self.inner_iters_ = np.asarray(inner, dtype=int).reshape(len(inner), m)
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

    def _view_step(self, R, beta, Z, dual, rho, gram_sum, weight, rng):
        """One view's majorise-minimise step: the surrogate's target, then its inexact solve."""
        n = Z.shape[0]
        L = diversity_lipschitz([None], weight, n, random_state=rng, gram_sum=gram_sum)
        W = None
        if L > 0:
            W = Z.toarray()
            W -= diversity_gradient_half(Z, None, weight, gram_sum=gram_sum) / L
        return diversity_subproblem(R, beta, Z, W, L, rho=rho, dual=dual, max_iter=self.max_iter,
                                    tol=self.tol, accept_after=self.inner_iter)
