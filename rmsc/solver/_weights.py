"""The weight regulariser psi and the P-step (paper Section 3.3, eq. l1_l2_regularizer, update_p).

By convex conjugacy (Lemma 1, Figure 2):

* ``psi(p) = gamma * p + 1/p - 2``               — regulariser on a weight
* ``latent_loss(l) = 2 * (sqrt(gamma + l) - 1)`` — phi(l) = min_p p*l + psi(p)
* ``minimizer(l) = 1 / sqrt(gamma + l)``         — sigma(l) = argmin_p, the P-step

Every function takes NumPy arrays (computed in float64, as always) or the arrays of
another array-API namespace (torch, CuPy, array_api_strict: computed there, in their
dtype), so that the device path (:mod:`rmsc.solver._dense`) runs these same formulas.
"""

from __future__ import annotations

import numpy as np

from .._array_api import namespace, to_numpy


def _as_float(x):
    """``(xp, x)``: NumPy's float64 array for host input, the array itself otherwise."""
    xp = namespace(x)
    return (np, np.asarray(x, dtype=np.float64)) if xp is np else (xp, x)


def psi(p, gamma):
    """Weight regulariser psi(p) = gamma*p + 1/p - 2 (paper eq. l1_l2_regularizer).

    Parameters
    ----------
    p : array-like, positive
    gamma : float >= 0
    """
    _, p = _as_float(p)
    return gamma * p + 1.0 / p - 2.0


def latent_loss(loss, gamma):
    """Latent loss phi(l) = min_{p>=0} p*l + psi(p) = 2(sqrt(gamma + l) - 1) (Lemma 1)."""
    xp, loss = _as_float(loss)
    return 2.0 * (xp.sqrt(gamma + loss) - 1.0)


def minimizer(loss, gamma):
    """Minimizer function sigma(l) = 1/sqrt(gamma + l): the optimal weight for loss l."""
    xp, loss = _as_float(loss)
    return 1.0 / xp.sqrt(gamma + loss)


def initial_weights(losses, gamma, weighting="sample"):
    """The weights P that Algorithm 1 starts from (the paper leaves the start open).

    ``weighting="sample"`` (RMSC): P = 1. ``weighting="view"`` (RMSC-WV): the
    P-step of the initial losses, p_v = 1 / sqrt(gamma + sum_j l_vj). One weight per
    view is of the order 1 / sqrt(n) (a view's loss is summed over its n samples), so
    P = 1 would make the first Z*-step threshold at a beta / (2 lam sum_v p_v) about
    sqrt(n) times too small for the beta's unit (:func:`rmsc.solver.column_betas` is
    measured with these weights): that step came out nearly dense, 13 GB at
    n = 20,000. Starting from the P-step is one exact block minimisation more, so
    the objective still never increases. A weight per sample (l_vj <= about 1 for
    unit-L2 samples) is of the order 1 already, and RMSC keeps P = 1.

    Parameters
    ----------
    losses : ndarray of shape (n_views, n_samples)
        The losses at the start (Z* = 0, every Z^v its ridge self-representation).
    gamma : float >= 0
    weighting : {"sample", "view"}

    Returns
    -------
    P : ndarray of shape (n_views, n_samples)
    """
    if weighting == "view":
        return p_step(losses, gamma, weighting)
    xp = namespace(losses)
    if xp is np:
        return np.ones(np.shape(losses))
    return xp.ones_like(losses)


def loss_of_weight(p, gamma):
    """The inverse of :func:`minimizer`: the loss l >= 0 whose optimal weight is p.

    l = 1/p^2 - gamma (clipped at 0 against round-off; infinite for p = 0).
    """
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.maximum(1.0 / (p * p) - gamma, 0.0)


def p_step(losses, gamma, weighting="sample", *, check=True):
    """P-step: the optimal weights for fixed losses.

    Paper eq. (update_p): P_vj = 1 / sqrt(gamma + l_vj). With
    ``weighting="view"`` (RMSC-WV, appendix) one weight per view,
    p_v = 1 / sqrt(gamma + sum_j l_vj), broadcast over the samples.

    Parameters
    ----------
    losses : ndarray of shape (n_views, n_samples)
    gamma : float >= 0
    weighting : {"sample", "view"}
    check : bool, default=True
        Raise when a weight is infinite (gamma = 0 and a loss of 0). The device path
        (:mod:`rmsc.solver._dense`) passes False and checks P with the one transfer to
        the host of its iteration (a check here would wait for the device).

    Returns
    -------
    P : ndarray of shape (n_views, n_samples)
    """
    xp = namespace(losses)
    # on a device, clip to a Python bound: maximum(x, 0.0) would make a device array of
    # the 0.0 (torch: a copy from the host, which waits for the device)
    losses = xp.maximum(losses, 0.0) if xp is np else xp.clip(losses, min=0.0)
    if weighting == "view":
        total = xp.sum(losses, axis=1, keepdims=True)
        P = xp.broadcast_to(minimizer(total, gamma), losses.shape) * 1.0
        where = xp.reshape(total, (-1,))
    else:
        P = minimizer(losses, gamma) if gamma > 0 else _safe_minimizer(losses)
        where = losses
    if check and not bool(xp.all(xp.isfinite(P))):
        _infinite_weight(to_numpy(P), to_numpy(where), weighting)
    return P


def _infinite_weight(P, where, weighting):
    """The error for an infinite weight (gamma = 0 and a loss of 0); host arrays."""
    v, j = np.argwhere(~np.isfinite(P))[0]
    what = f"sample {j} in view {v}" if weighting == "sample" else f"view {v}"
    raise ValueError(
        f"gamma = 0 and {what} is reconstructed exactly (loss {float(np.ravel(where)[0] if weighting == 'view' else where[v, j]):.3g}), "
        "so its weight 1/sqrt(gamma + loss) is infinite. Use gamma > 0 "
        "(the paper uses 1e-5)."
    )


def _safe_minimizer(losses):
    xp = namespace(losses)
    with np.errstate(divide="ignore"):
        return 1.0 / xp.sqrt(losses)
