"""The Z^v-step (paper eq. update_z_v) and the per-sample losses it leaves behind."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..memory import check_dense_fits
from ._factors import factorize_view
from ._linalg import sparse_right_product


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


def consensus_gap(R, Zstar, lam):
    """||Z^v - Z*||_F for the Z^v of the Z^v-step at ``Zstar``, without forming Z^v.

    How far the coupling lam ||Z^v - Z*||^2 lets a view's own table stray from the
    consensus (:func:`view_representation` forms the same Z^v densely). With
    Z^v - Z* = R^T Q - diag(D) and (R^T Q)_jj = D_j, the square is
    ||R^T Q||_F^2 - sum_j D_j^2 = sum((R R^T) * (Q Q^T)) - sum_j D_j^2: r x r products only.

    Parameters
    ----------
    R : ndarray of shape (r, n_samples)
    Zstar : sparse matrix of shape (n_samples, n_samples), zero diagonal
    lam : float > 0
    """
    view = factorize_view(R, lam)
    rep = zv_step(view, residual_operator(view, sp.csc_matrix(Zstar)))
    square = float(np.sum((R @ R.T) * (rep.Q @ rep.Q.T)) - np.sum(rep.D ** 2))
    return float(np.sqrt(max(square, 0.0)))


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
