"""The Z*-step (paper eq. update_z_*): soft-thresholding of the weighted mean, block by block.

Every column block of the dense intermediate is computed and thresholded on
its own (:func:`threshold_block`), so memory stays within :data:`BLOCK_BYTES`
and the blocks can run anywhere (:mod:`rmsc.backends`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..backends import LocalBlocks
from ._linalg import BLOCK_BYTES, sparse_right_product


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


def weighted_Q(reps, P, stack):
    """QW: every view's Q_v with column j scaled by P_vj / s_j (s_j = sum_v P_vj), stacked
    as ``stack.R`` is and in its precision (the right factor of the Z*-step's product)."""
    W = P / P.sum(axis=0)[None, :]
    QW = np.empty_like(stack.R)
    for part, rep, w in zip(np.split(QW, stack.splits, axis=0), reps, W):
        np.multiply(rep.Q, w[None, :], out=part, casting="same_kind")
    return QW


@dataclass
class ZstarStep:
    """What :func:`zstar_step` returns.

    Attributes
    ----------
    Z : scipy.sparse.csc_matrix or ndarray of shape (n, n)
        The new Z* (dense and Fortran-ordered when asked for).
    RZ : list of ndarray, each (r_v, n)
        R_v Z* per view (the next P-step and Z^v-step need them).
    colmax : ndarray of shape (n,) or None
        max_i |A_ij| before thresholding, with ``with_beta_max``.
    delta_sq : ndarray of shape (n,)
        ||zref_j - z*_j||^2 for every column j (the P-step needs it).
    beta_max : float or None
        The smallest beta for which this step gives Z* = 0, with ``with_beta_max``.
    """

    Z: object
    RZ: list
    colmax: np.ndarray | None
    delta_sq: np.ndarray
    beta_max: float | None = None


def zstar_step(views, reps, Zref, P, lam, beta, block_size=None, with_beta_max=False,
               stack=None, runner=None, shared=None, dense=False):
    """Z*-step: argmin lam sum_vj P_vj ||z*_j - z^v_j||^2 + beta ||Z*||_1.

    Paper eq. (update_z_*): entry-wise soft-thresholding of the weighted mean
    A_.j = sum_v P_vj z^v_j / s_j, s_j = sum_v P_vj, at beta / (2 lam s_j).
    With the implicit Z^v, A = Zref + sum_v R_v^T (Q_v diag(P_v / s)) off the
    diagonal and 0 on it (every Z^v has a zero diagonal), so one dense
    (n x r)(r x n) product, done a column block at a time, is all the work;
    the result is stored sparse (or dense, see ``dense``). The same pass
    returns R_v Z* for every view, which the next P-step and Z^v-step need.
    This is the step Algorithm 1 runs (:class:`rmsc.solver.FactorForm`).

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
        Also compute max_i |A_ij| per column and the smallest beta for which this
        step gives Z* = 0.
    stack : StackedFactors or None
        ``stack_factors(views, dtype)``, when the caller keeps it between iterations;
        its dtype is the precision of the products.
    runner, shared :
        Where the column blocks run, and ``runner.share(stack)`` (see
        :func:`threshold_columns`).
    dense : bool
        Return Z* as a dense Fortran-ordered ndarray instead of CSC (for a
        dense consensus, where sparse storage only costs time).

    Returns
    -------
    ZstarStep
    """
    if stack is None:
        stack = stack_factors(views)
    s = P.sum(axis=0)
    tau = (beta / (2.0 * lam * s)).astype(stack.R.dtype)
    out = threshold_columns(
        stack.R, weighted_Q(reps, P, stack), Zref, tau, block_size=block_size,
        with_colmax=with_beta_max, RT=stack.RT, runner=runner, shared=shared, dense=dense,
    )
    beta_max = float(np.max(2.0 * lam * s * out.colmax)) if with_beta_max else None
    return ZstarStep(Z=out.Z, RZ=np.split(out.RZ, stack.splits, axis=0), colmax=out.colmax,
                     delta_sq=out.delta_sq, beta_max=beta_max)


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


def to_csc(Z):
    """Z as a float64 CSC matrix; a dense Z column by column (faster than scipy's
    conversion for a dense Fortran-ordered Z: its transpose is C-ordered, so its
    nonzeros come out already in CSC order; docs/measurements.md)."""
    if sp.issparse(Z):
        return sp.csc_matrix(Z, dtype=np.float64)
    n_rows, n_cols = Z.shape
    Zt = Z.T
    mask = Zt != 0
    indptr = np.zeros(n_cols + 1, dtype=np.int64)
    np.cumsum(np.count_nonzero(mask, axis=1), out=indptr[1:])
    rows = np.nonzero(mask)[1]
    return sp.csc_matrix((Zt[mask].astype(np.float64), rows, indptr), shape=(n_rows, n_cols))


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
        # Soft-thresholding in place: sign(a) max(|a| - t, 0) = a - clip(a, -t, t), the
        # same values (round-to-nearest is symmetric) in two passes instead of four.
        clipped = np.clip(Bt, -tau_col, tau_col)
        Bt -= clipped
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


def threshold_columns(Rcat, QW, Zref, tau, block_size=None, with_colmax=False, RT=None,
                      runner=None, shared=None, dense=False):
    """Z = S(Zref + Rcat^T QW, tau_j) with zero diagonal, and Rcat @ Z, block by block.

    S is entry-wise soft-thresholding with a threshold per column. Shared by
    the Z*-step (:func:`zstar_step`) and the C-step of SSC's ADMM. Every column
    block is computed by :func:`threshold_block`, independently of the others;
    ``runner`` decides where (:class:`LocalBlocks` by default; a Dask runner
    ships them to a cluster).

    Parameters
    ----------
    Rcat : ndarray of shape (r, n)
    QW : ndarray of shape (r, n)
    Zref : sparse matrix or ndarray of shape (n, n)
    tau : ndarray of shape (n,)
    block_size : int or None
        Columns per block (see :func:`block_columns`).
    with_colmax : bool
        Also return max_i |A_ij| before thresholding (column j is zero iff
        tau_j >= colmax_j).
    RT : ndarray of shape (n, r) or None
        C-contiguous copy of ``Rcat.T``, when the caller keeps one.
    runner : rmsc.backends.LocalBlocks, rmsc.backends.DaskBlocks or None
        Where the blocks run; None runs them here, one after another.
    shared : object or None
        ``runner.share(StackedFactors)`` for these ``Rcat``, when the caller
        keeps it between calls (saves shipping the factors again).
    dense : bool
        Return Z as a dense Fortran-ordered array instead of CSC.

    Returns
    -------
    Thresholded
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
