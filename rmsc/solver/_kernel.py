"""The kernel form of the iteration, for views with about as many factor rows as samples (text).

With H_v = R_v^T M_v R_v = G_v (G_v + lam I)^{-1} (n x n, fixed for a lambda),
R_v^T Q_v = H_v U_v with U_v = I - Zref + diag(D_v). So Y_v = H_v U_v is all the
Z*-step needs (A = Zref + sum_v Y_v diag(w_v)), and everything else follows from
Y_v and D_v (the same identities as :func:`sample_losses`, with y_j = R^T q_j):

  Z^v-step for Z*:   D_j = (h_j - (H z*_j)_j) / (1 - h_j),  Y = H (I - Z* + diag D)
  reconstruction:    ||x_j - X z^v_j||^2 = lam (u_j . y_j - ||y_j||^2),
                     u_j = (1 + D_j) e_j - zref_j
  coupling:          ||z^v_j - zref_j||^2 = ||y_j - D_j e_j||^2
  against a new Z*:  + ||zref_j - z*_j||^2 + 2 (zref_j - z*_j) . y_j

An iteration then costs the products H_v Z* (sparse: n nnz(Z*) per view; dense:
n^3 per view) instead of the stacked n x (sum r_v) x n product plus R Z* and the
Z^v-step's M T: for text views (r_v = n) half the work at a dense Z* and a
fraction of it at a sparse one. Kept in float64 (its reconstruction term is a
difference of two nearly equal quantities when lam is small).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..backends import LocalBlocks
from ._linalg import _DENSE_PRODUCT_DENSITY
from ._zstar_step import block_columns, threshold_rows


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
    idx = np.arange(b)
    recon, coupling = np.empty((m, b)), np.empty((m, b))
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
