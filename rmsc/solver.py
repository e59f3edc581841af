"""The RMSC block coordinate descent (Fan et al., IJCAI 2017, Algorithm 1).

This module holds the model's formulas, one function each, named after the
paper. The weight regulariser (paper eq. ``l1_l2_regularizer``) and the
functions derived from it by convex conjugacy (Lemma 1, Figure 2):

* ``psi(p) = gamma * p + 1/p - 2``               — regulariser on a weight
* ``latent_loss(l) = 2 * (sqrt(gamma + l) - 1)`` — phi(l) = min_p p*l + psi(p)
* ``minimizer(l) = 1 / sqrt(gamma + l)``         — sigma(l) = argmin_p, the P-step

Why one module of ~1300 lines: it is the paper's Section 4 in code, in the
paper's order (factorisation, Z^v-step, losses, P-step, Z*-step, objective,
Algorithm 1, beta_max); the block updates share the implicit representation of
Z^v defined here, and splitting them would scatter one derivation across files.
The kernel form (text views, r_v = n) is the same derivation with H_v = R_v^T
M_v R_v in place of the factors, and shares the Z*-step's thresholding.

Speed (issue 14; ``benchmarks/bench_solver.py --settings``, ``bench_fit.py``):
the Z*-step's products run in float32 while Z* is dense (:data:`PRECISION`);
a consensus denser than :data:`DENSE_ZSTAR_DENSITY` is held dense; views with
about as many factor rows as samples use the kernel form (:data:`KERNEL_ROWS`),
whose products H_v Z* are sparse when Z* is. The stopping rule is
:func:`converged` (:data:`TOL`, :data:`MAX_ITER`).
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
    Q0 = view.apply_M(T)
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


def block_columns(n_samples, block_size=None, parts=1):
    """Columns per block: ``block_size``, else a cache-sized block within :data:`BLOCK_BYTES`.

    A block of b columns holds an n x b float64 intermediate. Without a
    ``block_size``, the number of blocks is rounded up to a multiple of
    ``parts`` (the threads running them), so that no thread idles at the end.
    """
    if block_size is not None:
        return int(block_size)
    per_column = 8 * n_samples
    cached = max(MIN_BLOCK_COLUMNS, CACHE_BLOCK_BYTES // per_column)
    b = max(1, min(n_samples, cached, BLOCK_BYTES // per_column))
    parts = max(1, int(parts))
    blocks = -(-n_samples // b)
    blocks = -(-blocks // parts) * parts
    return max(1, -(-n_samples // blocks))


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


def stack_factors(views, dtype=np.float64):
    """Stack the factors of :class:`ViewFactor` s (see :class:`StackedFactors`).

    ``dtype`` is the precision of the Z*-step's products (float32 halves their time).
    """
    R = np.concatenate([v.R for v in views], axis=0).astype(dtype, copy=False)
    return StackedFactors(R=R, RT=np.ascontiguousarray(R.T),
                          splits=np.cumsum([v.R.shape[0] for v in views])[:-1])


def zstar_step(views, reps, Zref, P, lam, beta, block_size=None, with_beta_max=False,
               stack=None, runner=None, shared=None, dense=False, return_delta=False):
    """Z*-step: argmin lam sum_vj P_vj ||z*_j - z^v_j||^2 + beta ||Z*||_1.

    Paper eq. (update_z_*): entry-wise soft-thresholding of the weighted mean
    A_.j = sum_v P_vj z^v_j / s_j, s_j = sum_v P_vj, at beta / (2 lam s_j).
    With the implicit Z^v, A = Zref + sum_v R_v^T (Q_v diag(P_v / s)) off the
    diagonal and 0 on it (every Z^v has a zero diagonal), so one dense
    (n x r)(r x n) product, done a column block at a time, is all the work;
    the result is stored sparse (or dense, see ``dense``). The same pass
    returns R_v Z* for every view, which the next P-step and Z^v-step need.

    Parameters
    ----------
    views : list of ViewFactor
    reps : list of ViewRepresentation
    Zref : scipy.sparse matrix or ndarray of shape (n, n)
        The consensus the reps were computed for (an ndarray is best
        Fortran-ordered: its column blocks are then contiguous).
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
    dense : bool
        Return Z* as a dense Fortran-ordered ndarray instead of CSC (for a
        dense consensus, where sparse storage only costs time).
    return_delta : bool
        Also return ||zref_j - z*_j||^2 for every column j (the P-step needs it).

    Returns
    -------
    Zstar : scipy.sparse.csc_matrix or ndarray of shape (n, n)
    RZ : list of ndarray, each (r_v, n)
        R_v Z* per view.
    beta_max : float or None
    delta_sq : ndarray of shape (n,)
        Only with ``return_delta=True``.
    """
    s = P.sum(axis=0)
    W = P / s[None, :]
    if stack is None:
        stack = stack_factors(views)
    QW = np.empty_like(stack.R)
    for part, rep, w in zip(np.split(QW, stack.splits, axis=0), reps, W):
        np.multiply(rep.Q, w[None, :], out=part, casting="same_kind")
    tau = (beta / (2.0 * lam * s)).astype(stack.R.dtype)
    out = threshold_columns(
        stack.R, QW, Zref, tau, block_size=block_size, with_colmax=with_beta_max, RT=stack.RT,
        runner=runner, shared=shared, dense=dense,
    )
    beta_max = float(np.max(2.0 * lam * s * out.colmax)) if with_beta_max else None
    result = (out.Z, np.split(out.RZ, stack.splits, axis=0), beta_max)
    return result + (out.delta_sq,) if return_delta else result


#: Above this fraction of nonzeros, R @ Z uses dense BLAS (:func:`sparse_right_product`;
#: on Digit, with blocks on threads, the sparse product wins up to ~10 %).
_DENSE_PRODUCT_DENSITY = 0.1

#: Above this fraction of nonzeros the solver keeps Z* as a dense array (when it
#: fits :data:`DENSE_ZSTAR_BYTES`): every pass over a sparse Z* then costs more
#: than over a dense one (CSC building, sparse differences), for no memory saved
#: worth having (12 bytes a nonzero against 8 an entry).
DENSE_ZSTAR_DENSITY = 0.1

#: Most memory for a dense Z* (n <= 8192).
DENSE_ZSTAR_BYTES = 512 * 2**20


def keep_dense(Z):
    """Whether the solver should hold the next Z* densely, given the current one."""
    n = Z.shape[0]
    nnz = Z.nnz if sp.issparse(Z) else np.count_nonzero(Z)
    return nnz > DENSE_ZSTAR_DENSITY * n * n and 8 * n * n <= DENSE_ZSTAR_BYTES


@dataclass
class ColumnBlock:
    """The result of soft-thresholding columns ``start:start + b`` of A.

    Attributes
    ----------
    counts : ndarray of shape (b,)
        Nonzeros kept per column.
    rows : ndarray of int or None
        Row indices of the kept entries, column after column (CSC order).
    vals : ndarray of float or None
        Their thresholded values.
    RZ : ndarray of shape (r, b)
        Rcat @ (the block of Z).
    colmax : ndarray of shape (b,) or None
        max_i |A_ij| before thresholding.
    delta_sq : ndarray of shape (b,)
        ||zref_j - z_j||^2 per column.
    dense : ndarray of shape (b, n) or None
        The block's columns of Z as rows, when a dense Z was asked for
        (then ``rows`` and ``vals`` are None).
    own : ndarray of int or None
        The block column of every kept entry (sparse result).
    extra : dict or None
        By-products of the kernel form (:func:`kernel_block`).
    """

    counts: np.ndarray
    rows: np.ndarray | None
    vals: np.ndarray | None
    RZ: np.ndarray
    colmax: np.ndarray | None
    delta_sq: np.ndarray = None
    dense: np.ndarray | None = None
    own: np.ndarray | None = None
    extra: dict | None = None


def threshold_block(stack, QW_block, zref_block, tau_block, start, with_colmax=False,
                    dense=False):
    """Soft-threshold one column block of A = Zref + Rcat^T QW (zero diagonal).

    A pure function of its arguments, so that it can run anywhere (here, or
    as a Dask task on a worker holding ``stack``).

    Parameters
    ----------
    stack : StackedFactors
    QW_block : ndarray of shape (r, b)
        Columns ``start:start + b`` of QW.
    zref_block : scipy.sparse.csc_matrix of shape (n, b) or ndarray of shape (b, n)
        The same columns of Zref: sparse, or dense with the columns as rows.
    tau_block : ndarray of shape (b,)
        The threshold of each column.
    start : int
        Index of the block's first column (where its diagonal entries are).
    with_colmax : bool
    dense : bool
        Return the block dense (``ColumnBlock.dense``) instead of as CSC parts.

    Returns
    -------
    ColumnBlock
    """
    Rcat = stack.R
    n = Rcat.shape[1]
    b = QW_block.shape[1]
    # Row jj of Bt is column start + jj of A.
    Bt = QW_block.T @ Rcat
    blk = threshold_rows(Bt, zref_block, tau_block, start, with_colmax, dense)
    if dense:
        blk.RZ = (blk.dense @ stack.RT).T.astype(np.float64)
    else:
        block = sp.csc_matrix((blk.vals, blk.rows, np.concatenate(([0], np.cumsum(blk.counts)))),
                              shape=(n, b))
        blk.RZ = sparse_right_product(Rcat, block, stack.RT).astype(np.float64, copy=False)
    return blk


def threshold_rows(Bt, zref_block, tau_block, start, with_colmax=False, dense=False):
    """Soft-threshold A's columns held as the rows of ``Bt`` (A minus Zref), after adding Zref.

    The common part of :func:`threshold_block` and the kernel form's block:
    adds the block of Zref, zeroes the diagonal, thresholds (in place for a
    dense result) and measures ||zref_j - z_j||^2.

    Parameters
    ----------
    Bt : ndarray of shape (b, n)
        Row jj: column ``start + jj`` of A - Zref; overwritten.
    zref_block, tau_block, start, with_colmax, dense :
        As for :func:`threshold_block`.

    Returns
    -------
    ColumnBlock
        Without ``RZ`` (None). For a sparse result, ``own`` holds the row of
        ``Bt`` (column of the block) of every kept entry.
    """
    b, n = Bt.shape
    ref_sparse = sp.issparse(zref_block)
    if ref_sparse:
        ref_own = np.repeat(np.arange(b), np.diff(zref_block.indptr))
        if zref_block.nnz:
            Bt[ref_own, zref_block.indices] += zref_block.data
    else:
        Bt += zref_block
    Bt[np.arange(b), np.arange(start, start + b)] = 0.0
    colmax = np.maximum(Bt.max(axis=1), -Bt.min(axis=1)) if with_colmax else None
    tau_col = tau_block[:, None]
    if dense:
        # Soft-thresholding in place: sign(a) max(|a| - t, 0).
        mag = np.abs(Bt)
        mag -= tau_col
        np.maximum(mag, 0.0, out=mag)
        np.copysign(mag, Bt, out=Bt)
        counts = np.count_nonzero(Bt, axis=1)
        if ref_sparse:
            delta_sq = _delta_sq_sparse_ref(zref_block, ref_own, Bt[ref_own, zref_block.indices],
                                            np.einsum("ij,ij->i", Bt, Bt), b)
        else:
            diff = zref_block - Bt
            delta_sq = np.einsum("ij,ij->i", diff, diff)
        return ColumnBlock(counts=counts, rows=None, vals=None, RZ=None, colmax=colmax,
                           delta_sq=delta_sq, dense=Bt)
    # Soft-thresholding: keep |a| > t, shrink the kept entries by t.
    keep = np.abs(Bt) > tau_col
    flat = np.flatnonzero(keep)
    own, rows = np.divmod(flat, n)
    vals = Bt.ravel()[flat]
    vals -= np.copysign(tau_block[own], vals)
    counts = np.bincount(own, minlength=b)
    z_sq = np.bincount(own, weights=vals * vals, minlength=b)
    if ref_sparse:
        a = Bt[ref_own, zref_block.indices]
        z_at_ref = np.copysign(np.maximum(np.abs(a) - tau_block[ref_own], 0.0), a)
        delta_sq = _delta_sq_sparse_ref(zref_block, ref_own, z_at_ref, z_sq, b)
    else:
        cross = np.bincount(own, weights=vals * zref_block.ravel()[flat], minlength=b)
        delta_sq = np.maximum(np.einsum("ij,ij->i", zref_block, zref_block) + z_sq - 2 * cross,
                              0.0)
    return ColumnBlock(counts=counts, rows=rows, vals=vals, RZ=None, colmax=colmax,
                       delta_sq=delta_sq, own=own)


def _delta_sq_sparse_ref(zref_block, ref_own, z_at_ref, z_sq, b):
    """||zref_j - z_j||^2 = ||zref_j||^2 + ||z_j||^2 - 2 zref_j . z_j for a sparse Zref block.

    ``z_at_ref``: the new Z at Zref's nonzeros (already thresholded).
    """
    data = zref_block.data
    ref_sq = np.bincount(ref_own, weights=data * data, minlength=b)
    cross = np.bincount(ref_own, weights=data * z_at_ref, minlength=b)
    return np.maximum(ref_sq + z_sq - 2.0 * cross, 0.0)


@dataclass
class Thresholded:
    """What :func:`threshold_columns` returns.

    Attributes
    ----------
    Z : scipy.sparse.csc_matrix or ndarray of shape (n, n)
        Dense (Fortran order) when asked for.
    RZ : ndarray of shape (r, n)
    colmax : ndarray of shape (n,) or None
    delta_sq : ndarray of shape (n,)
        ||zref_j - z_j||^2.
    """

    Z: object
    RZ: np.ndarray
    colmax: np.ndarray | None
    delta_sq: np.ndarray


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
    Zref : sparse matrix or ndarray of shape (n, n)
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
    out = threshold_columns(Rcat, QW, Zref, tau, block_size=block_size, with_colmax=with_colmax,
                            RT=RT, runner=runner, shared=shared)
    return out.Z, out.RZ, out.colmax


def threshold_columns(Rcat, QW, Zref, tau, block_size=None, with_colmax=False, RT=None,
                      runner=None, shared=None, dense=False):
    """:func:`soft_threshold_columns` with every by-product (see :class:`Thresholded`).

    ``dense=True`` returns Z as a dense Fortran-ordered array.
    """
    n = Rcat.shape[1]
    runner = LocalBlocks() if runner is None else runner
    block_size = block_columns(n, block_size, getattr(runner, "n_threads", 1))
    if shared is None:
        RT = np.ascontiguousarray(Rcat.T) if RT is None else RT
        shared = runner.share(StackedFactors(R=Rcat, RT=RT, splits=np.array([], dtype=int)))
    if sp.issparse(Zref):
        Zref = sp.csc_matrix(Zref, dtype=Rcat.dtype)
        ref_block = lambda a, b: Zref[:, a:b]  # noqa: E731
    else:
        Zref = np.asfortranarray(Zref, dtype=Rcat.dtype)
        ref_block = lambda a, b: Zref[:, a:b].T  # noqa: E731  (C-contiguous: columns as rows)
    starts = range(0, n, block_size)
    arguments = [
        (QW[:, a:min(a + block_size, n)], ref_block(a, min(a + block_size, n)),
         tau[a:min(a + block_size, n)], a, with_colmax, dense)
        for a in starts
    ]
    blocks = runner.map(threshold_block, shared, arguments)
    Z, colmax, delta_sq = assemble_blocks(blocks, starts, n, dense, Rcat.dtype, with_colmax)
    RZ = np.concatenate([blk.RZ for blk in blocks], axis=1)
    return Thresholded(Z=Z, RZ=RZ, colmax=colmax, delta_sq=delta_sq)


def assemble_blocks(blocks, starts, n, dense, dtype, with_colmax):
    """Z (dense Fortran-ordered or CSC), colmax and delta_sq from the column blocks."""
    if dense:
        Z = np.empty((n, n), order="F", dtype=dtype)
        for a, blk in zip(starts, blocks):
            Z[:, a:a + blk.dense.shape[0]] = blk.dense.T
    else:
        counts = np.concatenate([blk.counts for blk in blocks])
        Z = sp.csc_matrix(
            (np.concatenate([blk.vals for blk in blocks]),
             np.concatenate([blk.rows for blk in blocks]),
             np.concatenate(([0], np.cumsum(counts)))),
            shape=(n, n),
        )
    colmax = np.concatenate([blk.colmax for blk in blocks]) if with_colmax else None
    delta_sq = np.concatenate([blk.delta_sq for blk in blocks])
    return Z, colmax, delta_sq


# ---------------------------------------------------------------------------
# Kernel form of the iteration, for views with about as many factor rows as samples
# ---------------------------------------------------------------------------
#
# With H_v = R_v^T M_v R_v = G_v (G_v + lam I)^{-1} (n x n, fixed for a lambda),
# R_v^T Q_v = H_v U_v with U_v = I - Zref + diag(D_v). So Y_v = H_v U_v is all the
# Z*-step needs (A = Zref + sum_v Y_v diag(w_v)), and everything else follows from
# Y_v and D_v (the same identities as :func:`sample_losses`, with y_j = R^T q_j):
#
#   Z^v-step for Z*:   D_j = (h_j - (H z*_j)_j) / (1 - h_j),  Y = H (I - Z* + diag D)
#   reconstruction:    ||x_j - X z^v_j||^2 = lam (u_j . y_j - ||y_j||^2),
#                      u_j = (1 + D_j) e_j - zref_j
#   coupling:          ||z^v_j - zref_j||^2 = ||y_j - D_j e_j||^2
#   against a new Z*:  + ||zref_j - z*_j||^2 + 2 (zref_j - z*_j) . y_j
#
# An iteration then costs the products H_v Z* (sparse: n nnz(Z*) per view; dense:
# n^3 per view) instead of the stacked n x (sum r_v) x n product plus R Z* and the
# Z^v-step's M T: for text views (r_v = n) half the work at a dense Z* and a
# fraction of it at a sparse one. Kept in float64 (its reconstruction term is a
# difference of two nearly equal quantities when lam is small).

#: The kernel form is used when the views' factor rows average at least this
#: fraction of n (and the n x n arrays fit KERNEL_BYTES): then its dense cost,
#: m n^3, is at most the factor form's two n^2 (sum r_v) products.
KERNEL_ROWS = 0.5

#: Most memory for the kernel form's 2 m n x n arrays (H_v and Y_v).
KERNEL_BYTES = 2 * 2**30


def use_kernel_form(factors, runner=None):
    """Whether :func:`solve` runs the kernel form (see :data:`KERNEL_ROWS`)."""
    n, m = factors[0].shape[1], len(factors)
    rows = sum(R.shape[0] for R in factors)
    local = runner is None or isinstance(runner, LocalBlocks)
    return local and rows >= KERNEL_ROWS * m * n and 2 * m * n * n * 8 <= KERNEL_BYTES


@dataclass
class KernelState:
    """The kernel form's per-view arrays (see the comment above :data:`KERNEL_ROWS`).

    Attributes
    ----------
    H : list of ndarray, each (n, n)
        H_v, symmetric (row j = column j).
    h : ndarray of shape (m, n)
        diag(H_v).
    Y : list of ndarray, each (n, n), Fortran order
        Y_v = H_v U_v for the current Z^v; updated block by block.
    lam : float
    """

    H: list
    h: np.ndarray
    Y: list
    lam: float


def kernel_state(views, dtype=np.float64):
    """H_v, h_v and the initial Y_v (Z^v-step for Z* = 0) from :class:`ViewFactor` s.

    H_v and Y_v are held in ``dtype`` (the precision of the products H_v Z*);
    D, h and the losses in float64.

    Returns
    -------
    state : KernelState
    D : ndarray of shape (m, n)
    recon, coupling : ndarrays of shape (m, n)
        The initial Z^v's losses (coupling with Zref = 0).
    """
    H, h, Y, D = [], [], [], []
    for view in views:
        Hv = view.R.T @ view.MR
        Hv = (Hv + Hv.T) / 2.0
        hv = 1.0 - view.one_minus_h
        Dv = hv / view.one_minus_h               # (h - 0) / (1 - h)
        H.append(Hv)
        h.append(hv)
        D.append(Dv)
        Y.append(np.asfortranarray(Hv * (1.0 + Dv)[None, :], dtype=dtype))
    H = [Hv.astype(dtype, copy=False) for Hv in H]
    state = KernelState(H=H, h=np.array(h), Y=Y, lam=views[0].lam)
    D = np.array(D)
    recon, coupling = _kernel_base_losses(state.lam, [Yv.T for Yv in Y], D,
                                          sp.csr_matrix((len(D[0]), len(D[0]))), 0)
    return state, D, recon, coupling


def _kernel_base_losses(lam, Yt, D, zt, start):
    """Reconstruction and coupling (against Zref = the Z*, ``zt``) of a block of columns.

    ``Yt``: per view the block's columns of Y as rows (b x n); ``D``: (m, b);
    ``zt``: the block's columns of Zref as rows (b x n), sparse CSR or dense.
    """
    m, b = D.shape
    recon, coupling = np.empty((m, b)), np.empty((m, b))
    idx = np.arange(b)
    for v in range(m):
        y = np.asarray(Yt[v], dtype=np.float64)
        yy = np.einsum("ij,ij->i", y, y)
        y_own = y[idx, start + idx]
        zy = _row_dots(zt, y)
        uy = (1.0 + D[v]) * y_own - zy
        recon[v] = np.maximum(lam * (uy - yy), 0.0)
        coupling[v] = np.maximum(yy - 2.0 * D[v] * y_own + D[v] * D[v], 0.0)
    return recon, coupling


def _row_dots(zt, y):
    """Row-wise dot products of ``zt`` (b x n, sparse CSR or dense) with dense ``y`` (b x n)."""
    if sp.issparse(zt):
        zt = sp.csr_matrix(zt)
        own = np.repeat(np.arange(zt.shape[0]), np.diff(zt.indptr))
        return np.bincount(own, weights=zt.data * y[own, zt.indices], minlength=zt.shape[0])
    return np.einsum("ij,ij->i", zt, y)


def kernel_block(state, W_block, zref_block, tau_block, start, with_colmax=False, dense=False,
                 D_block=None):
    """One column block of a whole kernel-form iteration (Z*-step, P-step input, Z^v-step).

    Z*-step: A = Zref + sum_v Y_v diag(w_v) over these columns, soft-thresholded
    (:func:`threshold_rows`). Then, with the old Y_v, the P-step's
    ``(zref_j - z*_j) . y_j``; the Z^v-step's D_j for the new Z*; the new Y_v
    (written into ``state.Y``, these columns only) and its losses.

    Parameters
    ----------
    state : KernelState
    W_block : ndarray of shape (m, b)
        P / s for these columns.
    zref_block, tau_block, start, with_colmax, dense :
        As for :func:`threshold_block`.
    D_block : ndarray of shape (m, b)
        The current Z^v's D for these columns.

    Returns
    -------
    ColumnBlock
        ``extra`` holds ``dy`` (m, b), ``D``, ``recon``, ``coupling`` (the new Z^v's).
    """
    n = state.H[0].shape[0]
    b = W_block.shape[1]
    stop = start + b
    Yt_old = [Y[:, start:stop].T for Y in state.Y]            # (b, n) views, C-contiguous
    At = np.zeros((b, n))
    for Yt, w in zip(Yt_old, W_block):
        At += w[:, None] * Yt
    zref_rows = zref_block.T.tocsr() if sp.issparse(zref_block) else zref_block
    blk = threshold_rows(At, zref_block, tau_block, start, with_colmax, dense)
    # The new Z*'s block as rows: sparse CSR (b x n) or the dense rows.
    if dense:
        zt = blk.dense
    else:
        zt = sp.csr_matrix((blk.vals, blk.rows, np.concatenate(([0], np.cumsum(blk.counts)))),
                           shape=(b, n))
    # z*^T H as a dense product when the block is dense enough for BLAS to win.
    dtype = state.H[0].dtype
    zt_product = (zt.toarray() if sp.issparse(zt) and zt.nnz > _DENSE_PRODUCT_DENSITY * b * n
                  else zt).astype(dtype, copy=False)
    m = len(state.H)
    dy = np.empty((m, b))
    D = np.empty((m, b))
    idx = np.arange(b)
    for v in range(m):
        # P-step: (zref_j - z*_j) . y_j with the old Y
        dy[v] = _row_dots(zref_rows, Yt_old[v]) - _row_dots(zt, Yt_old[v])
        # Z^v-step: D_j = (h_j - (H z*_j)_j) / (1 - h_j); H symmetric, so (H z*_j)_j = H[j] . z*_j
        Hrows = state.H[v][start:stop].astype(np.float64)
        h = state.h[v, start:stop]
        D[v] = (h - _row_dots(zt, Hrows)) / (1.0 - h)
        # Y_new = H (I - Z* + diag D): rows of Y_new^T = (1 + D_j) H[j] - z*_j^T H
        Ynew = Hrows * (1.0 + D[v])[:, None]
        Ynew -= zt_product @ state.H[v]
        Ynew = Ynew.astype(dtype, copy=False)
        state.Y[v][:, start:stop] = Ynew.T
    recon, coupling = _kernel_base_losses(state.lam, [Y[:, start:stop].T for Y in state.Y], D,
                                          zt, start)
    blk.extra = {"dy": dy, "D": D, "recon": recon, "coupling": coupling}
    return blk


def kernel_colmax(state, W, block_size=None):
    """max_i |A_ij| of A = sum_v Y_v diag(w_v) (Zref = 0, zero diagonal): beta_max's b1."""
    n = state.H[0].shape[0]
    b = block_columns(n, block_size)
    out = np.empty(n)
    for a in range(0, n, b):
        stop = min(a + b, n)
        At = np.zeros((stop - a, n))
        for Y, w in zip(state.Y, W[:, a:stop]):
            At += w[:, None] * Y[:, a:stop].T
        At[np.arange(stop - a), np.arange(a, stop)] = 0.0
        out[a:stop] = np.abs(At).max(axis=1)
    return out


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
        recon[v], coupling[v] = sample_losses(view, rep)
    return terms_from_losses(recon, coupling, views[0].lam, P, Zstar, beta, gamma, weighting)


def terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma, weighting="sample"):
    """:func:`objective_terms` from the per-sample losses (each of shape (m, n)).

    ``coupling`` is ||z^v_j - z*_j||^2, not yet multiplied by lam.
    """
    if weighting == "view":
        reg = float(np.sum(psi(P[:, 0], gamma)))
    else:
        reg = float(np.sum(psi(P, gamma)))
    return {
        "reconstruction": float(np.sum(P * recon)),
        "coupling": float(lam * np.sum(P * coupling)),
        "regularizer": reg,
        "sparsity": float(beta * l1_norm(Zstar)),
    }


def l1_norm(Z):
    """sum |Z_ij| of a sparse or dense matrix."""
    return float(np.abs(Z.data).sum()) if sp.issparse(Z) else float(np.abs(Z).sum())


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
    beta_max : float or None
        :func:`beta_max` for these data, lam and gamma, when asked for.
    """

    Zstar: object
    P: np.ndarray
    objective: np.ndarray
    terms: dict
    objective_init: float
    n_iter: int
    converged: bool
    beta_max: float | None = None


#: Precisions of the Z*-step's products (factor form): always float32, always float64, or
#: "auto" (float32 while Z* is held dense, see :data:`DENSE_ZSTAR_DENSITY`; float64 otherwise).
PRECISIONS = ("auto", "float32", "float64")

#: Default precision of the factor form's Z*-step: its two products (A = Zref + R^T QW and
#: R Z*) and its thresholding; everything else (Q, T, D, P, the objective) is float64.
#: float32 halves the time of those products, which are all but the whole cost of an
#: iteration at a dense Z*. Measured (``python benchmarks/bench_precision.py``) on Digit:
#: at every dense-Z* setting (30-99 %) float32 gives the same ACC and NMI to 0.01 points,
#: Z* within ~1e-6 of its largest entry, P within ~1e-5, the objective within ~1e-9
#: relative and still falling every iteration, in half the time; but at a fragmented
#: 0.5 %-dense Z* (lam=3, beta=1) the same 2e-7 change of Z* moved ACC by 0.7 points (the
#: spectral step of a graph in pieces amplifies any perturbation). Hence "auto": float32
#: where it pays and the graph is well connected, float64 where Z* is sparse (there the
#: one product is all the cost, and the iterate is the paper form's to round-off).
#: ``precision="float64"`` gives the paper form to ~1e-12 everywhere (exactness tests).
PRECISION = "auto"

#: Most iterations of Algorithm 1, by default.
MAX_ITER = 30

#: Default stopping tolerance: the objective's relative decrease in one iteration.
#: On Digit the objective falls by 86 % in the first iteration and by about 1e-4
#: per iteration after that, so 1e-4 stops after 8 iterations (the paper: "the
#: convergence can be reached within 5 iterations"); 3-Sources stops after 9,
#: Reuter after 16. The labels hardly move after that (Digit ACC 96.3 % at 8
#: iterations, 96.7 % at 30).
TOL = 1e-4

#: The stopping rule in words (see :func:`converged`).
STOPPING = "stop when (f_prev - f) <= tol * |f_prev|, or after max_iter iterations"


def converged(f_prev, f, tol):
    """The stopping rule of Algorithm 1: the objective's relative decrease is at most ``tol``.

    ``tol = 0`` never stops (the iterations run to ``max_iter``).
    """
    return tol > 0 and abs(f_prev - f) <= tol * max(abs(f_prev), np.finfo(float).tiny)


def solve(factors, lam, beta, gamma, *, weighting="sample", max_iter=MAX_ITER, tol=TOL,
          callback=None, block_size=None, runner=None, with_beta_max=False,
          precision=PRECISION, kernel=None):
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
    with_beta_max : bool
        Also compute :func:`beta_max` (``RMSCSolution.beta_max``) from the
        same factorisation: its first candidate is a by-product of the first
        Z*-step, the second costs one more product.
    precision : {"auto", "float32", "float64"}
        Of the Z*-step's products and thresholding (see :data:`PRECISION`).
        The kernel form always runs in float64.
    kernel : bool or None
        Run the kernel form (n x n H_v per view, see :data:`KERNEL_ROWS`)
        instead of the factor form; None decides by :func:`use_kernel_form`.
        Both give the same iterates.

    Returns
    -------
    RMSCSolution
    """
    precision = _check_precision(precision)
    runner = LocalBlocks() if runner is None else runner
    with runner:
        return _algorithm1(factors, lam, beta, gamma, weighting, max_iter, tol, callback,
                           block_size, runner, with_beta_max, precision, kernel)


def _check_precision(precision):
    """"auto", or the numpy type of a fixed precision."""
    if isinstance(precision, str) and precision == "auto":
        return "auto"
    try:
        name = str(np.dtype(precision))
    except TypeError:
        name = None
    if name not in PRECISIONS:
        raise ValueError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}; "
                         f"got {precision!r}.")
    return np.dtype(precision).type


def _algorithm1(factors, lam, beta, gamma, weighting, max_iter, tol, callback, block_size,
                runner, with_beta_max, precision, kernel):
    views = [factorize_view(R, lam) for R in factors]
    if kernel is None:
        kernel = use_kernel_form(factors, runner)
        if not kernel and use_kernel_form(factors):
            # Text views on a cluster: the factor form, in the kernel form's float64,
            # so that a Dask fit gives what a local one does.
            precision = np.float64
    # The kernel form runs in float64: in float32 its P moved by up to 2e-4 on Reuter and
    # a fragmented (0.6 % dense) consensus clustered 1 NMI point differently, while its
    # sparse products gain nothing from float32.
    form = (KernelForm(views, block_size, runner, np.float64) if kernel
            else FactorForm(views, block_size, runner, precision))
    n = views[0].R.shape[1]
    m = len(views)
    Zstar = sp.csc_matrix((n, n))
    P = np.ones((m, n))
    recon, coupling = form.losses()
    f_prev = sum(terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma,
                                   weighting).values())
    f_init = f_prev
    b_max = None
    if with_beta_max:
        P1 = p_step(recon + lam * coupling, gamma, weighting)
        b_max = float(np.max(2.0 * lam * P1.sum(axis=0) * form.colmax_at_zero(P1)))
    history = {k: [] for k in OBJECTIVE_TERMS}
    objective = []
    done = False
    for it in range(1, max_iter + 1):
        # Z*-step (eq. update_z_*); the first one also gives beta_max's first candidate
        Zref = Zstar
        first = with_beta_max and it == 1
        Zstar, colmax, delta_sq = form.zstar_step(Zref, P, lam, beta, dense=keep_dense(Zref),
                                                  with_colmax=first)
        if first:
            b_max = max(b_max, float(np.max(2.0 * lam * P.sum(axis=0) * colmax)))
        # P-step (eq. update_p), with the Z^v of the previous iteration
        recon, coupling = form.losses(delta_sq)
        P = p_step(recon + lam * coupling, gamma, weighting)
        # Z^v-steps (eq. update_z_v)
        form.zv_step()
        recon, coupling = form.losses()
        terms = terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma, weighting)
        f = sum(terms.values())
        for k in OBJECTIVE_TERMS:
            history[k].append(terms[k])
        objective.append(f)
        stop = bool(callback(it, f, P)) if callback is not None else False
        if converged(f_prev, f, tol):
            done = True
            break
        f_prev = f
        if stop:
            break
    return RMSCSolution(
        Zstar=sp.csc_matrix(Zstar, dtype=np.float64),
        P=P,
        objective=np.asarray(objective),
        terms={k: np.asarray(v) for k, v in history.items()},
        objective_init=float(f_init),
        n_iter=len(objective),
        converged=done,
        beta_max=b_max,
    )


class FactorForm:
    """Algorithm 1's steps on the views' factors (each Z^v = Zref - diag(D) + R^T Q).

    ``zstar_step`` is :func:`zstar_step` (one stacked product per column block,
    plus R Z*), ``losses`` is :func:`sample_losses` and ``zv_step`` is
    :func:`zv_step` for every view.
    """

    def __init__(self, views, block_size, runner, precision):
        self.views = views
        self.block_size = block_size
        self.runner = runner
        self.precision = precision
        self._stacks = {}
        self.reps = [zv_step(v, v.R.copy()) for v in views]
        self.Ts = None

    def stack(self, dense):
        """The stacked factors (and the runner's handle) in the precision for this step."""
        if self.precision == "auto":
            dtype = np.float32 if dense else np.float64
        else:
            dtype = self.precision
        if dtype not in self._stacks:
            stack = stack_factors(self.views, dtype)
            self._stacks[dtype] = (stack, self.runner.share(stack))
        return self._stacks[dtype]

    def colmax_at_zero(self, P):
        """max_i |A_ij| of the Z*-step with weights P at Zref = 0 (for beta_max)."""
        n = self.views[0].R.shape[1]
        stack, shared = self.stack(dense=False)
        out = threshold_columns(stack.R, self._weighted_Q(P, stack), sp.csc_matrix((n, n)),
                                np.full(n, np.inf, dtype=stack.R.dtype),
                                block_size=self.block_size, with_colmax=True,
                                runner=self.runner, shared=shared)
        return out.colmax

    def _weighted_Q(self, P, stack):
        W = P / P.sum(axis=0)[None, :]
        QW = np.empty_like(stack.R)
        for part, rep, w in zip(np.split(QW, stack.splits, axis=0), self.reps, W):
            np.multiply(rep.Q, w[None, :], out=part, casting="same_kind")
        return QW

    def zstar_step(self, Zref, P, lam, beta, dense, with_colmax):
        stack, shared = self.stack(dense)
        s = P.sum(axis=0)
        tau = (beta / (2.0 * lam * s)).astype(stack.R.dtype)
        out = threshold_columns(stack.R, self._weighted_Q(P, stack), Zref, tau,
                                block_size=self.block_size, with_colmax=with_colmax,
                                RT=stack.RT, runner=self.runner, shared=shared, dense=dense)
        RZ = np.split(out.RZ, stack.splits, axis=0)
        self.Ts = [v.R - rz for v, rz in zip(self.views, RZ)]
        return out.Z, out.colmax, out.delta_sq

    def losses(self, delta_sq=None):
        """Per-sample losses of the current Z^v: against their Zref, or the new Z* (delta_sq)."""
        m, n = len(self.views), self.views[0].R.shape[1]
        recon, coupling = np.empty((m, n)), np.empty((m, n))
        for v, (view, rep) in enumerate(zip(self.views, self.reps)):
            if delta_sq is None:
                recon[v], coupling[v] = sample_losses(view, rep)
            else:
                recon[v], coupling[v] = sample_losses(view, rep, self.Ts[v], delta_sq)
        return recon, coupling

    def zv_step(self):
        pairs = list(zip(self.views, self.Ts))
        if isinstance(self.runner, LocalBlocks):  # the views side by side on the threads
            self.reps = self.runner.map(lambda _, view, T: zv_step(view, T), None, pairs)
        else:
            self.reps = [zv_step(view, T) for view, T in pairs]


class KernelForm:
    """Algorithm 1's steps in the kernel form (see :data:`KERNEL_ROWS`).

    One pass over the column blocks (:func:`kernel_block`) does the Z*-step and
    the Z^v-step's heavy part; ``losses`` and ``zv_step`` read its by-products.
    """

    def __init__(self, views, block_size, runner, precision=np.float64):
        self.state, self.D, self.recon, self.coupling = kernel_state(views, precision)
        self.block_size = block_size
        self.runner = runner
        self.pending = None

    def colmax_at_zero(self, P):
        return kernel_colmax(self.state, P / P.sum(axis=0)[None, :], self.block_size)

    def zstar_step(self, Zref, P, lam, beta, dense, with_colmax):
        n = self.D.shape[1]
        s = P.sum(axis=0)
        W = P / s[None, :]
        tau = beta / (2.0 * lam * s)
        b = block_columns(n, self.block_size, getattr(self.runner, "n_threads", 1))
        starts = range(0, n, b)
        if sp.issparse(Zref):
            Zref = sp.csc_matrix(Zref)
            ref_block = lambda a, c: Zref[:, a:c]  # noqa: E731
        else:
            Zref = np.asfortranarray(Zref, dtype=np.float64)
            ref_block = lambda a, c: Zref[:, a:c].T  # noqa: E731
        arguments = [(W[:, a:min(a + b, n)], ref_block(a, min(a + b, n)), tau[a:min(a + b, n)],
                      a, with_colmax, dense, self.D[:, a:min(a + b, n)]) for a in starts]
        blocks = self.runner.map(kernel_block, self.state, arguments)
        Z, colmax, delta_sq = assemble_blocks(blocks, starts, n, dense, np.float64, with_colmax)
        extra = {k: np.concatenate([blk.extra[k] for blk in blocks], axis=1)
                 for k in ("dy", "D", "recon", "coupling")}
        self.delta_sq, self.pending = delta_sq, extra
        return Z, colmax, delta_sq

    def losses(self, delta_sq=None):
        if delta_sq is None:
            return self.recon, self.coupling
        coupling = np.maximum(self.coupling + delta_sq[None, :] + 2.0 * self.pending["dy"], 0.0)
        return self.recon, coupling

    def zv_step(self):
        self.D = self.pending["D"]
        self.recon, self.coupling = self.pending["recon"], self.pending["coupling"]
        self.pending = None


def beta_max(factors, lam, gamma, *, weighting="sample", block_size=None, runner=None,
             precision=PRECISION):
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
    block_size, runner, precision : as for :func:`solve`

    Returns
    -------
    float
    """
    precision = _check_precision(precision)
    runner = LocalBlocks() if runner is None else runner
    with runner:
        views = [factorize_view(R, lam) for R in factors]
        form = FactorForm(views, block_size, runner, precision)
        n = views[0].R.shape[1]
        out = 0.0
        recon, coupling = form.losses()
        for P in (np.ones((len(views), n)), p_step(recon + lam * coupling, gamma, weighting)):
            out = max(out, float(np.max(2.0 * lam * P.sum(axis=0) * form.colmax_at_zero(P))))
        return out
