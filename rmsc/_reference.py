"""A straightforward paper-form RMSC, kept as the reference for the fast solver.

It forms every n x n matrix the paper writes down: (X^T X + lam I)^{-1} per
view, the dense Z^v of eq. (update_z_v) with the multiplier y, the three-case
Z* of eq. (update_z_*) and the residuals of eq. (update_p). O(m n^3) per
iteration: use it on small problems (tests) and in benchmarks/ as the
baseline the fast solver is measured against. Same initialisation and update
order as :func:`rmsc.solver.solve`.
"""

from __future__ import annotations

import numpy as np

from .memory import check_dense_fits
from .solver import consensus_weights, initial_weights, regularizer, view_factors
from .solver import loss_scale as view_loss_scale


def solve_paper_form(Xs, lam, beta, gamma, *, weighting="sample", max_iter=30, tol=0.0,
                     loss_scale=None, scale_power=0.0):
    """Run Algorithm 1 literally.

    Parameters
    ----------
    Xs : list of ndarray, each (n_samples, n_features_v), already preprocessed
    lam, beta, gamma : float
    weighting : {"sample", "view"}
    max_iter : int
    tol : float
    loss_scale : {None, "median"}, scale_power : float
        The scaled model (:mod:`rmsc.solver._weights`): each view's losses in the
        unit s_v (the median of its losses at the start), the Z*-step's weights
        c_v P_vj with c_v = s_v ** -scale_power. None: the paper's model.

    Returns
    -------
    dict with ``Zstar`` (n x n dense), ``P`` (m x n), ``Zv`` (list of n x n),
    ``objective`` (one value per iteration), ``objective_init``.
    """
    Xv = [np.asarray(X, dtype=float).T for X in Xs]  # d_v x n, the paper's layout
    n = Xv[0].shape[1]
    m = len(Xv)
    # G, its inverse and Z^v per view, plus Z*, the Z*-step's sums and temporaries.
    check_dense_fits(n, n, count=3 * m + 6, what=f"The paper-form RMSC on {n} samples")
    G = [X.T @ X for X in Xv]
    inv = [np.linalg.inv(g + lam * np.eye(n)) for g in G]

    def zv(v, Zs):
        C = inv[v] @ (G[v] + lam * Zs)
        y_half = np.diag(C) / np.diag(inv[v])  # y_i / 2, the paper's multiplier
        return C - inv[v] * y_half[None, :]

    def losses(Zv, Zs):
        out = np.empty((m, n))
        for v in range(m):
            res = Xv[v] - Xv[v] @ Zv[v]
            out[v] = (res ** 2).sum(axis=0) + lam * ((Zv[v] - Zs) ** 2).sum(axis=0)
        return out

    def objective(P, Zv, Zs):
        L = losses(Zv, Zs)
        c = np.ones(m) if fac is None else fac
        if weighting == "view":
            p = P[:, 0]
            fit = np.sum(c * p * L.sum(axis=1))
        else:
            fit = np.sum(c[:, None] * P * L)
        return float(fit + regularizer(P, gamma, weighting, s, fac) + beta * np.abs(Zs).sum())

    Zs = np.zeros((n, n))
    Zv = [zv(v, Zs) for v in range(m)]
    L0 = losses(Zv, Zs)
    s = None if loss_scale is None else view_loss_scale(L0, loss_scale)
    fac = view_factors(s, scale_power)
    unit = np.ones((m, 1)) if s is None else s[:, None]  # l_vj / s_v, the P-step's loss
    P = initial_weights(L0, gamma, weighting, s)
    f_prev = f_init = objective(P, Zv, Zs)
    history = []
    for _ in range(max_iter):
        # Z*-step, the paper's three cases (weights c_v P_vj in the scaled model)
        W = consensus_weights(P, fac)
        a = sum(W[v][None, :] * Zv[v] for v in range(m))  # sum_v W_vj Z^v_ij
        sw = W.sum(axis=0)[None, :]
        t = beta / (2 * lam)
        Zs = np.where(a > t, (2 * lam * a - beta) / (2 * lam * sw),
                      np.where(a < -t, (2 * lam * a + beta) / (2 * lam * sw), 0.0))
        # P-step
        L = losses(Zv, Zs) / unit
        if weighting == "view":
            P = np.repeat(1.0 / np.sqrt(gamma + L.sum(axis=1, keepdims=True) / (1 if s is None else n)),
                          n, axis=1)
        else:
            P = 1.0 / np.sqrt(gamma + L)
        # Z^v-step
        Zv = [zv(v, Zs) for v in range(m)]
        f = objective(P, Zv, Zs)
        history.append(f)
        if tol > 0 and abs(f_prev - f) <= tol * abs(f_prev):
            break
        f_prev = f
    return {"Zstar": Zs, "P": P, "Zv": Zv, "objective": np.array(history), "objective_init": f_init}
