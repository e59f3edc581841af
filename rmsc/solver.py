"""The RMSC block coordinate descent (Fan et al., IJCAI 2017, Algorithm 1).

This module holds the model's formulas, one function each, named after the
paper. The weight regulariser (paper eq. ``l1_l2_regularizer``) and the
functions derived from it by convex conjugacy (Lemma 1, Figure 2):

* ``psi(p) = gamma * p + 1/p - 2``               — regulariser on a weight
* ``latent_loss(l) = 2 * (sqrt(gamma + l) - 1)`` — phi(l) = min_p p*l + psi(p)
* ``minimizer(l) = 1 / sqrt(gamma + l)``         — sigma(l) = argmin_p, the P-step

Why one module of ~800 lines: it is the paper's Section 4 in code, in the
paper's order (factorisation, Z^v-step, losses, P-step, Z*-step, objective,
Algorithm 1, beta_max); the block updates share the implicit representation of
Z^v defined here, and splitting them would scatter one derivation across files.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .backends import LocalBlocks
from .memory import check_dense_fits


def psi(p, gamma):
    """Weight regulariser psi(p) = gamma*p + 1/p - 2 (paper eq. l1_l2_regularizer).

    Parameters
    ----------
    p : array-like, positive
    gamma : float >= 0
    """
    p = np.asarray(p, dtype=np.float64)
    return gamma * p + 1.0 / p - 2.0


def latent_loss(loss, gamma):
    """Latent loss phi(l) = min_{p>=0} p*l + psi(p) = 2(sqrt(gamma + l) - 1) (Lemma 1)."""
    return 2.0 * (np.sqrt(gamma + np.asarray(loss, dtype=np.float64)) - 1.0)


def minimizer(loss, gamma):
    """Minimizer function sigma(l) = 1/sqrt(gamma + l): the optimal weight for loss l."""
    return 1.0 / np.sqrt(gamma + np.asarray(loss, dtype=np.float64))


def loss_of_weight(p, gamma):
    """The inverse of :func:`minimizer`: the loss l >= 0 whose optimal weight is p.

    l = 1/p^2 - gamma (clipped at 0 against round-off; infinite for p = 0).
    """
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.maximum(1.0 / (p * p) - gamma, 0.0)


# ---------------------------------------------------------------------------
# Per-view factorisation, shared by every iteration
# ---------------------------------------------------------------------------
#
# Notation (paper, samples as columns): X^v is d_v x n. Every quantity of the
# model depends on X^v only through its Gram matrix G = X^vT X^v, so a view
# with more features than samples (text) is replaced by an r x n factor R
# with R^T R = G, r <= n. With K = R R^T (r x r) and M = (lam I + K)^{-1},
# Woodbury gives (G + lam I)^{-1} = (I - R^T M R) / lam: only r x r solves.



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
    """

    R: np.ndarray
    K: np.ndarray
    M: np.ndarray
    MR: np.ndarray
    one_minus_h: np.ndarray
    lam: float


def gram_factor(X):
    """An r x n factor R with R^T R = X X^T for a view given samples-as-rows.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)

    Returns
    -------
    R : ndarray of shape (r, n_samples), r = n_features when that is at most
        n_samples (then R = X^T exactly), else r = rank of the Gram matrix.
    """
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


def factorize_view(R, lam):
    """Precompute the Woodbury quantities of one view (see :class:`ViewFactor`)."""
    K = R @ R.T
    r = K.shape[0]
    cho = scipy.linalg.cho_factor(K + lam * np.eye(r), lower=True)
    M = scipy.linalg.cho_solve(cho, np.eye(r))
    M = (M + M.T) / 2.0
    MR = M @ R
    one_minus_h = 1.0 - np.einsum("ij,ij->j", R, MR)
    return ViewFactor(R=R, K=K, M=M, MR=MR, one_minus_h=one_minus_h, lam=float(lam))


# ---------------------------------------------------------------------------
# Z^v-step (paper eq. update_z_v)
# ---------------------------------------------------------------------------


@dataclass
class ViewRepresentation:
    """Z^v held implicitly: Z^v = Zref - diag(D) + R^T Q (never formed as n x n).

    ``Zref`` is the consensus the Z^v-step was solved for (the same for every
    view, so it is kept once, outside). ``T = R (I - Zref)`` is kept because
    the next P-step needs it.

    Attributes
    ----------
    D : ndarray of shape (n_samples,)
    Q : ndarray of shape (r, n_samples)
    T : ndarray of shape (r, n_samples)
    """

    D: np.ndarray
    Q: np.ndarray
    T: np.ndarray
    base_losses: tuple = None  # (recon, coupling) for Z* = Zref, filled on first use


def zv_step(view, T):
    """Z^v-step: argmin ||X - X Z||^2 + lam ||Z - Z*||^2 s.t. diag(Z) = 0.

    Paper eq. (update_z_v): Z^v = (G + lam I)^{-1} (G + lam Z* - diag(y/2)),
    with G = X^T X and the multiplier y chosen so that diag(Z^v) = 0. With
    C = (G + lam I)^{-1}(G + lam Z*) and B = (G + lam I)^{-1}, the constraint
    gives y_i / 2 = C_ii / B_ii (the paper's formula for y). Woodbury turns
    this into

        C = Z* + R^T Q0,            Q0 = M R (I - Z*) = M T
        D_i = C_ii / (lam B_ii) = (R^T Q0)_ii / (1 - h_i)     (diag Z* = 0)
        Z^v = Z* - diag(D) + R^T Q, Q = Q0 + M R diag(D).

    Parameters
    ----------
    view : ViewFactor
    T : ndarray of shape (r, n_samples)
        R (I - Z*) for the current consensus Z* (whose diagonal is zero).

    Returns
    -------
    ViewRepresentation
    """
    Q0 = view.M @ T
    D = np.einsum("ij,ij->j", view.R, Q0) / view.one_minus_h
    Q = Q0 + view.MR * D[None, :]
    return ViewRepresentation(D=D, Q=Q, T=T)


def residual_operator(view, Z):
    """T = R (I - Z) for a sparse n x n Z: the input of :func:`zv_step`."""
    return view.R - sparse_right_product(view.R, Z)


def view_representation(R, Zstar, lam):
    """A view's Z^v for a given consensus, formed densely: Z* - diag(D) + R^T Q.

    The last step of every iteration of Algorithm 1 is the Z^v-step for the
    final Z*, so with the fitted consensus this is exactly the Z^v the solver
    ended with (which it only ever holds implicitly).

    Parameters
    ----------
    R : ndarray of shape (r, n_samples)
        The view's data factor (:func:`gram_factor`).
    Zstar : sparse matrix of shape (n_samples, n_samples)
    lam : float > 0

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
        Zero diagonal.
    """
    n = R.shape[1]
    check_dense_fits(n, n, count=2, what="A view's dense representation Z^v")
    view = factorize_view(R, lam)
    rep = zv_step(view, residual_operator(view, sp.csc_matrix(Zstar)))
    Z = np.asarray(R.T @ rep.Q + sp.csr_matrix(Zstar))
    # (R^T Q)_jj = D_j, so the diagonal is exactly zero but for round-off.
    np.fill_diagonal(Z, 0.0)
    return Z


def sparse_right_product(A, Z, AT=None):
    """A @ Z for dense A (r x n) and sparse Z (n x k), as a dense array.

    ``AT``, a C-contiguous copy of A.T, saves scipy a copy when given.
    """
    if Z.nnz == 0:
        return np.zeros((A.shape[0], Z.shape[1]))
    cells = Z.shape[0] * Z.shape[1]
    if Z.nnz > _DENSE_PRODUCT_DENSITY * cells and 8 * cells <= BLOCK_BYTES:
        return A @ Z.toarray()  # dense BLAS beats the sparse kernel on dense-ish Z
    return np.asarray((sp.csr_matrix(Z.T) @ (A.T if AT is None else AT)).T)


# ---------------------------------------------------------------------------
# Per-sample losses (used by the P-step and the objective)
# ---------------------------------------------------------------------------


def sample_losses(view, rep, T_now=None, delta_sq=None):
    """Reconstruction and coupling loss of every sample in one view.

    ``l_vj = ||x_j - X z_j||^2 + lam ||z_j - z*_j||^2`` (paper, Section 3.3),
    from the implicit Z^v, in O(r n). The stationarity condition of the Z^v-step,
    G (Z^v - I) + lam (Z^v - Zref) + diag(y/2) = 0, gives:

    * the residual X (I - Z^v) = lam Q, so the reconstruction term is
      lam^2 ||q_j||^2;
    * Z^v - Zref = R^T Q - diag(D) with diag(Z^v) = diag(Zref) = 0, so
      ||z^v_j - zref_j||^2 = q_j . R (z^v_j - zref_j) = q_j . (t_j - lam q_j).

    When the consensus has moved from Zref to Z* since the Z^v-step,
    Delta = Zref - Z* enters through ``T_now = R (I - Z*)`` (so
    R Delta = T_now - rep.T) and ``delta_sq``, the squared column norms of Delta.

    Returns
    -------
    recon, coupling : ndarrays of shape (n_samples,)
        ``coupling`` is ||z^v_j - z*_j||^2 (not yet multiplied by lam).
    """
    if rep.base_losses is None:
        lam, Q = view.lam, rep.Q
        qq = np.einsum("ij,ij->j", Q, Q)
        recon = lam * lam * qq
        coupling = np.einsum("ij,ij->j", Q, rep.T) - lam * qq
        rep.base_losses = (recon, coupling)
    recon, coupling = rep.base_losses
    if T_now is not None:
        coupling = coupling + delta_sq + 2.0 * np.einsum("ij,ij->j", T_now - rep.T, rep.Q)
    return recon, np.maximum(coupling, 0.0)


# ---------------------------------------------------------------------------
# P-step (paper eq. update_p) and its view-level variant (appendix, RMSC-WV)
# ---------------------------------------------------------------------------


def p_step(losses, gamma, weighting="sample"):
    """P-step: the optimal weights for fixed losses.

    Paper eq. (update_p): P_vj = 1 / sqrt(gamma + l_vj). With
    ``weighting="view"`` (RMSC-WV, appendix) one weight per view,
    p_v = 1 / sqrt(gamma + sum_j l_vj), broadcast over the samples.

    Parameters
    ----------
    losses : ndarray of shape (n_views, n_samples)
    gamma : float >= 0
    weighting : {"sample", "view"}

    Returns
    -------
    P : ndarray of shape (n_views, n_samples)
    """
    losses = np.maximum(losses, 0.0)
    if weighting == "view":
        total = losses.sum(axis=1, keepdims=True)
        P = np.broadcast_to(minimizer(total, gamma), losses.shape).copy()
        where = total.ravel()
    else:
        P = minimizer(losses, gamma) if gamma > 0 else _safe_minimizer(losses)
        where = losses
    if not np.all(np.isfinite(P)):
        v, j = np.argwhere(~np.isfinite(P))[0]
        what = f"sample {j} in view {v}" if weighting == "sample" else f"view {v}"
        raise ValueError(
            f"gamma = 0 and {what} is reconstructed exactly (loss {float(np.ravel(where)[0] if weighting == 'view' else where[v, j]):.3g}), "
            "so its weight 1/sqrt(gamma + loss) is infinite. Use gamma > 0 "
            "(the paper uses 1e-5)."
        )
    return P


def _safe_minimizer(losses):
    with np.errstate(divide="ignore"):
        return 1.0 / np.sqrt(losses)


# ---------------------------------------------------------------------------
# Z*-step (paper eq. update_z_*)
# ---------------------------------------------------------------------------


#: Most memory for the dense intermediate of one column block, in bytes.
BLOCK_BYTES = 64 * 2**20

#: Preferred size of that intermediate: small enough to stay in cache while it
#: is thresholded, unless that would make blocks narrower than
#: :data:`MIN_BLOCK_COLUMNS` (the product's efficiency drops below that).
CACHE_BLOCK_BYTES = 4 * 2**20
MIN_BLOCK_COLUMNS = 128


def block_columns(n_samples, block_size=None):
    """Columns per block: ``block_size``, else a cache-sized block within :data:`BLOCK_BYTES`.

    A block of b columns holds an n x b float64 intermediate.
    """
    if block_size is not None:
        return int(block_size)
    per_column = 8 * n_samples
    cached = max(MIN_BLOCK_COLUMNS, CACHE_BLOCK_BYTES // per_column)
    return max(1, min(n_samples, cached, BLOCK_BYTES // per_column))


@dataclass
class StackedFactors:
    """The views' factors stacked once per solve, for the Z*-step's one product.

    Attributes
    ----------
    R : ndarray of shape (sum_v r_v, n_samples)
    RT : ndarray of shape (n_samples, sum_v r_v)
        C-contiguous copy of ``R.T`` (for sparse products).
    splits : ndarray of int
        Row offsets where a new view starts in ``R``.
    """

    R: np.ndarray
    RT: np.ndarray
    splits: np.ndarray


def stack_factors(views):
    """Stack the factors of :class:`ViewFactor` s (see :class:`StackedFactors`)."""
    R = np.concatenate([v.R for v in views], axis=0)
    return StackedFactors(R=R, RT=np.ascontiguousarray(R.T),
                          splits=np.cumsum([v.R.shape[0] for v in views])[:-1])


def zstar_step(views, reps, Zref, P, lam, beta, block_size=None, with_beta_max=False,
               stack=None, runner=None, shared=None):
    """Z*-step: argmin lam sum_vj P_vj ||z*_j - z^v_j||^2 + beta ||Z*||_1.

    Paper eq. (update_z_*): entry-wise soft-thresholding of the weighted mean
    A_.j = sum_v P_vj z^v_j / s_j, s_j = sum_v P_vj, at beta / (2 lam s_j).
    With the implicit Z^v, A = Zref + sum_v R_v^T (Q_v diag(P_v / s)) off the
    diagonal and 0 on it (every Z^v has a zero diagonal), so one dense
    (n x r)(r x n) product, done a column block at a time, is all the work;
    the result is stored sparse. The same pass returns R_v Z* for every view,
    which the next P-step and Z^v-step need.

    Parameters
    ----------
    views : list of ViewFactor
    reps : list of ViewRepresentation
    Zref : scipy.sparse.csc_matrix of shape (n, n)
        The consensus the reps were computed for.
    P : ndarray of shape (n_views, n)
    lam, beta : float
    block_size : int or None
        Columns per block (bounds the dense intermediate to n x block_size);
        None fits :data:`BLOCK_BYTES`.
    with_beta_max : bool
        Also compute the smallest beta for which this step gives Z* = 0.
    stack : StackedFactors or None
        ``stack_factors(views)``, when the caller keeps it between iterations.
    runner, shared :
        Where the column blocks run, and ``runner.share(stack)`` (see
        :func:`soft_threshold_columns`).

    Returns
    -------
    Zstar : scipy.sparse.csc_matrix of shape (n, n)
    RZ : list of ndarray, each (r_v, n)
        R_v Z* per view.
    beta_max : float or None
    """
    s = P.sum(axis=0)
    W = P / s[None, :]
    if stack is None:
        stack = stack_factors(views)
    QW = np.empty_like(stack.R)
    for part, rep, w in zip(np.split(QW, stack.splits, axis=0), reps, W):
        np.multiply(rep.Q, w[None, :], out=part)
    tau = beta / (2.0 * lam * s)
    Zstar, RZ, colmax = soft_threshold_columns(
        stack.R, QW, Zref, tau, block_size=block_size, with_colmax=with_beta_max, RT=stack.RT,
        runner=runner, shared=shared,
    )
    beta_max = float(np.max(2.0 * lam * s * colmax)) if with_beta_max else None
    return Zstar, np.split(RZ, stack.splits, axis=0), beta_max


#: Above this fraction of nonzeros, R @ Z uses dense BLAS (:func:`sparse_right_product`;
#: on Digit, with blocks on threads, the sparse product wins up to ~10 %).
_DENSE_PRODUCT_DENSITY = 0.1


@dataclass
class ColumnBlock:
    """The result of soft-thresholding columns ``start:start + b`` of A.

    Attributes
    ----------
    counts : ndarray of shape (b,)
        Nonzeros kept per column.
    rows : ndarray of int
        Row indices of the kept entries, column after column (CSC order).
    vals : ndarray of float
        Their thresholded values.
    RZ : ndarray of shape (r, b)
        Rcat @ (the block of Z).
    colmax : ndarray of shape (b,) or None
        max_i |A_ij| before thresholding.
    """

    counts: np.ndarray
    rows: np.ndarray
    vals: np.ndarray
    RZ: np.ndarray
    colmax: np.ndarray | None


def threshold_block(stack, QW_block, zref_block, tau_block, start, with_colmax=False):
    """Soft-threshold one column block of A = Zref + Rcat^T QW (zero diagonal).

    A pure function of its arguments, so that it can run anywhere (here, or
    as a Dask task on a worker holding ``stack``).

    Parameters
    ----------
    stack : StackedFactors
    QW_block : ndarray of shape (r, b)
        Columns ``start:start + b`` of QW.
    zref_block : scipy.sparse.csc_matrix of shape (n, b)
        The same columns of Zref.
    tau_block : ndarray of shape (b,)
        The threshold of each column.
    start : int
        Index of the block's first column (where its diagonal entries are).
    with_colmax : bool

    Returns
    -------
    ColumnBlock
    """
    Rcat = stack.R
    n = Rcat.shape[1]
    b = QW_block.shape[1]
    # Row jj of Bt is column start + jj of A.
    Bt = QW_block.T @ Rcat
    if zref_block.nnz:
        own = np.repeat(np.arange(b), np.diff(zref_block.indptr))
        Bt[own, zref_block.indices] += zref_block.data
    Bt[np.arange(b), np.arange(start, start + b)] = 0.0
    colmax = np.maximum(Bt.max(axis=1), -Bt.min(axis=1)) if with_colmax else None
    # Soft-thresholding: keep |a| > t, shrink the kept entries by t.
    keep = np.abs(Bt) > tau_block[:, None]
    flat = np.flatnonzero(keep)
    own, rows = np.divmod(flat, n)
    vals = Bt.ravel()[flat]
    vals -= np.copysign(tau_block[own], vals)
    counts = np.bincount(own, minlength=b)
    block = sp.csc_matrix((vals, rows, np.concatenate(([0], np.cumsum(counts)))), shape=(n, b))
    RZ = sparse_right_product(Rcat, block, stack.RT)
    return ColumnBlock(counts=counts, rows=rows, vals=vals, RZ=RZ, colmax=colmax)


def soft_threshold_columns(Rcat, QW, Zref, tau, block_size=None, with_colmax=False, RT=None,
                           runner=None, shared=None):
    """Z = S(Zref + Rcat^T QW, tau_j) with zero diagonal, and Rcat @ Z, block by block.

    S is entry-wise soft-thresholding with a threshold per column. Shared by
    the Z*-step and the C-step of SSC's ADMM. Every column block is computed
    by :func:`threshold_block`, independently of the others; ``runner``
    decides where (:class:`LocalBlocks` by default; a Dask runner ships them
    to a cluster).

    Parameters
    ----------
    Rcat : ndarray of shape (r, n)
    QW : ndarray of shape (r, n)
    Zref : sparse matrix of shape (n, n)
    tau : ndarray of shape (n,)
    block_size : int or None
        Columns per block (see :func:`block_columns`).
    with_colmax : bool
    RT : ndarray of shape (n, r) or None
        C-contiguous copy of ``Rcat.T``, when the caller keeps one.
    runner : rmsc.backends.LocalBlocks, rmsc.backends.DaskBlocks or None
        Where the blocks run; None runs them here, one after another.
    shared : object or None
        ``runner.share(StackedFactors)`` for these ``Rcat``, when the caller
        keeps it between calls (saves shipping the factors again).

    Returns
    -------
    Z : scipy.sparse.csc_matrix of shape (n, n)
    RZ : ndarray of shape (r, n)
        Rcat @ Z.
    colmax : ndarray of shape (n,) or None
        max_i |A_ij| before thresholding (column j is zero iff tau_j >= colmax_j).
    """
    n = Rcat.shape[1]
    block_size = block_columns(n, block_size)
    runner = LocalBlocks() if runner is None else runner
    if shared is None:
        RT = np.ascontiguousarray(Rcat.T) if RT is None else RT
        shared = runner.share(StackedFactors(R=Rcat, RT=RT, splits=np.array([], dtype=int)))
    Zref = sp.csc_matrix(Zref)
    starts = range(0, n, block_size)
    arguments = [
        (QW[:, a:min(a + block_size, n)], Zref[:, a:min(a + block_size, n)],
         tau[a:min(a + block_size, n)], a, with_colmax)
        for a in starts
    ]
    blocks = runner.map(threshold_block, shared, arguments)
    counts = np.concatenate([blk.counts for blk in blocks])
    Z = sp.csc_matrix(
        (np.concatenate([blk.vals for blk in blocks]),
         np.concatenate([blk.rows for blk in blocks]),
         np.concatenate(([0], np.cumsum(counts)))),
        shape=(n, n),
    )
    RZ = np.concatenate([blk.RZ for blk in blocks], axis=1)
    colmax = np.concatenate([blk.colmax for blk in blocks]) if with_colmax else None
    return Z, RZ, colmax


# ---------------------------------------------------------------------------
# The objective (paper eq. proposed_model; appendix eq. rmsc_mv for RMSC-WV)
# ---------------------------------------------------------------------------

#: Names of the objective's terms, in the paper's order.
OBJECTIVE_TERMS = ("reconstruction", "coupling", "regularizer", "sparsity")


def objective_terms(views, reps, P, Zstar, beta, gamma, weighting="sample"):
    """The four terms of the objective right after a Z^v-step.

    sum_vj P_vj ||x_j - X z^v_j||^2 (reconstruction) + lam sum_vj P_vj
    ||z^v_j - z*_j||^2 (coupling) + sum psi(P) (regularizer; per sample and
    view, or per view for RMSC-WV) + beta ||Z*||_1 (sparsity).

    Returns
    -------
    dict mapping each name of :data:`OBJECTIVE_TERMS` to a float.
    """
    recon = np.empty(P.shape)
    coupling = np.empty(P.shape)
    for v, (view, rep) in enumerate(zip(views, reps)):
        recon[v], c = sample_losses(view, rep)
        coupling[v] = view.lam * c
    if weighting == "view":
        p = P[:, 0]
        reg = float(np.sum(psi(p, gamma)))
    else:
        reg = float(np.sum(psi(P, gamma)))
    return {
        "reconstruction": float(np.sum(P * recon)),
        "coupling": float(np.sum(P * coupling)),
        "regularizer": reg,
        "sparsity": float(beta * np.abs(Zstar.data).sum()),
    }


# ---------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------


@dataclass
class RMSCSolution:
    """What :func:`solve` returns.

    Attributes
    ----------
    Zstar : scipy.sparse.csc_matrix of shape (n, n)
    P : ndarray of shape (n_views, n)
    objective : ndarray of shape (n_iter,)
        Whole objective after every iteration.
    terms : dict of ndarray of shape (n_iter,)
    objective_init : float
        Objective at the initialisation (P = 1, Z* = 0, Z^v solved for Z* = 0).
    n_iter : int
    converged : bool
    """

    Zstar: object
    P: np.ndarray
    objective: np.ndarray
    terms: dict
    objective_init: float
    n_iter: int
    converged: bool


#: Most iterations of Algorithm 1, by default.
MAX_ITER = 30

#: Default stopping tolerance: the objective's relative decrease in one iteration.
#: On Digit the objective falls by 86 % in the first iteration and by about 1e-4
#: per iteration after that, so 1e-4 stops after 8 iterations (the paper: "the
#: convergence can be reached within 5 iterations"); 3-Sources stops after 9,
#: Reuter after 16. The labels hardly move after that (Digit ACC 96.3 % at 8
#: iterations, 96.7 % at 30).
TOL = 1e-4


def solve(factors, lam, beta, gamma, *, weighting="sample", max_iter=MAX_ITER, tol=TOL,
          callback=None, block_size=None, runner=None):
    """Block coordinate descent of Algorithm 1 (Z*-step, P-step, Z^v-steps).

    Initialisation (the paper leaves it open): P = 1 and every Z^v the exact
    Z^v-step for Z* = 0, i.e. the ridge self-representation of its view.
    Stops when the objective's relative decrease falls below ``tol`` (never,
    for ``tol=0``), at ``max_iter``, or when ``callback`` returns True.

    Parameters
    ----------
    factors : list of ndarray, each (r_v, n)
        Per-view data factors (see :func:`gram_factor`).
    lam, beta, gamma : float
    weighting : {"sample", "view"}
    max_iter : int
    tol : float
    callback : callable(iteration, objective, weights) -> bool or None
    block_size : int or None
        Columns per block of the Z*-step (see :func:`block_columns`).
    runner : rmsc.backends.LocalBlocks, rmsc.backends.DaskBlocks or None
        Where the Z*-step's column blocks run (None: here). The P- and
        Z^v-steps cost O(r^2 n) and run here.

    Returns
    -------
    RMSCSolution
    """
    runner = LocalBlocks() if runner is None else runner
    with runner:
        return _algorithm1(factors, lam, beta, gamma, weighting, max_iter, tol, callback,
                           block_size, runner)


def _algorithm1(factors, lam, beta, gamma, weighting, max_iter, tol, callback, block_size,
                runner):
    views = [factorize_view(R, lam) for R in factors]
    stack = stack_factors(views)
    shared = runner.share(stack)
    n = views[0].R.shape[1]
    m = len(views)
    Zstar = sp.csc_matrix((n, n))
    P = np.ones((m, n))
    reps = [zv_step(v, v.R.copy()) for v in views]
    f_prev = sum(objective_terms(views, reps, P, Zstar, beta, gamma, weighting).values())
    f_init = f_prev
    history = {k: [] for k in OBJECTIVE_TERMS}
    objective = []
    converged = False
    for it in range(1, max_iter + 1):
        # Z*-step (eq. update_z_*)
        Zref = Zstar
        Zstar, RZ, _ = zstar_step(views, reps, Zref, P, lam, beta, block_size, stack=stack,
                                  runner=runner, shared=shared)
        # P-step (eq. update_p), with the Z^v of the previous iteration
        delta = Zref - Zstar
        delta_sq = np.asarray(delta.multiply(delta).sum(axis=0)).ravel()
        Ts = [v.R - rz for v, rz in zip(views, RZ)]
        losses = np.empty((m, n))
        for v, (view, rep, T) in enumerate(zip(views, reps, Ts)):
            recon, coupling = sample_losses(view, rep, T, delta_sq)
            losses[v] = recon + lam * coupling
        P = p_step(losses, gamma, weighting)
        # Z^v-steps (eq. update_z_v)
        reps = [zv_step(view, T) for view, T in zip(views, Ts)]
        terms = objective_terms(views, reps, P, Zstar, beta, gamma, weighting)
        f = sum(terms.values())
        for k in OBJECTIVE_TERMS:
            history[k].append(terms[k])
        objective.append(f)
        stop = bool(callback(it, f, P)) if callback is not None else False
        if tol > 0 and abs(f_prev - f) <= tol * max(abs(f_prev), np.finfo(float).tiny):
            converged = True
            break
        f_prev = f
        if stop:
            break
    return RMSCSolution(
        Zstar=Zstar,
        P=P,
        objective=np.asarray(objective),
        terms={k: np.asarray(v) for k, v in history.items()},
        objective_init=float(f_init),
        n_iter=len(objective),
        converged=converged,
    )


def beta_max(factors, lam, gamma, *, weighting="sample", block_size=None, runner=None):
    """The smallest beta for which Algorithm 1 keeps Z* = 0 from the start.

    If the first Z*-step (P = 1) leaves Z* = 0, which happens for beta >= b0,
    the P-step then weighs the initial losses (P1 = sigma(l) of the ridge
    self-representations) and the Z^v-step returns the same Z^v, so the second
    Z*-step is zero for beta >= b1 (computed with P1) and the iterates stay
    there for good. For beta >= max(b0, b1) the consensus is therefore empty;
    any smaller beta gives a nonzero Z* at the first or second iteration.
    (P1 is usually much larger than 1, so b1 is the larger one.)

    Parameters
    ----------
    factors : list of ndarray, each (r_v, n)
    lam, gamma : float
    weighting : {"sample", "view"}
    block_size, runner : as for :func:`solve`

    Returns
    -------
    float
    """
    runner = LocalBlocks() if runner is None else runner
    with runner:
        views = [factorize_view(R, lam) for R in factors]
        stack = stack_factors(views)
        shared = runner.share(stack)
        n = views[0].R.shape[1]
        Zero = sp.csc_matrix((n, n))
        reps = [zv_step(v, v.R.copy()) for v in views]
        P0 = np.ones((len(views), n))
        losses = np.empty_like(P0)
        for v, (view, rep) in enumerate(zip(views, reps)):
            recon, coupling = sample_losses(view, rep)
            losses[v] = recon + lam * coupling
        out = 0.0
        for P in (P0, p_step(losses, gamma, weighting)):
            _, _, b = zstar_step(views, reps, Zero, P, lam, np.inf, block_size,
                                 with_beta_max=True, stack=stack, runner=runner, shared=shared)
            out = max(out, b)
        return out
