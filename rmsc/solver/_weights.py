"""The weight regulariser psi and the P-step (paper Section 3.3, eq. l1_l2_regularizer, update_p).

By convex conjugacy (Lemma 1, Figure 2):

* ``psi(p) = gamma * p + 1/p - 2``               — regulariser on a weight
* ``latent_loss(l) = 2 * (sqrt(gamma + l) - 1)`` — phi(l) = min_p p*l + psi(p)
* ``minimizer(l) = 1 / sqrt(gamma + l)``         — sigma(l) = argmin_p, the P-step

The scaled model (the stability study; ``loss_scale="median"``) measures each view's losses in
that view's own unit s_v (:func:`loss_scale`: the median of the view's per-sample
losses at the start) and gives view v the factor c_v = s_v ** -power
(:func:`view_factors`)::

    F = sum_v c_v sum_j [ P_vj l_vj + s_v psi(P_vj) ] + beta ||Z*||_1

For fixed s and c every block step is still an exact minimisation, so the objective
never increases: the P-step is P_vj = sigma(l_vj / s_v) (:func:`p_step` with
``scale``), the Z^v-step is unchanged (each column's two terms carry the same weight)
and the Z*-step is the paper's with the weights c_v P_vj (:func:`consensus_weights`).
Minimised over P, view v contributes c_v s_v phi(l / s_v): the paper's robust loss in
the view's unit. ``power = 0``: every view's typical sample weighs about 1 whatever
its number of features; ``power = 1/2`` is the paper's model with gamma_v = gamma s_v
(its weights c_v P_vj = 1 / sqrt(gamma s_v + l_vj)); ``power = 1`` divides every loss
by s_v (F = sum P l / s + psi(P)). ``scale=None`` is the paper's model.

Uninformative samples (the weights study): a sample that is all zero in a view, or repeated there
exactly by another sample, is rebuilt with loss 0 (by nothing, or by its twin) whatever
the view says about it, and the P-step alone would give it the view's highest weight, the
cap 1/sqrt(gamma). With ``uninformative="typical"`` (:data:`UNINFORMATIVE_RULES`) such a
(v, j) gets instead **the view's typical weight**: the median, over the view's other
samples, of the P-step's weights at the start (:func:`fixed_weights`), held fixed for the
whole solve. Those weights are then constants of the model, not variables: the P-step
minimises over the other weights exactly (:func:`p_step` with ``fixed``), the Z^v- and
Z*-steps take every weight as given, and the objective (with the constants' terms
P_vj l_vj + psi(P_vj) in it) still never increases. RMSC-WV's one weight per view has no
per-sample weight to fix: the rule does not apply to ``weighting="view"``.

``view_balance`` (docs/weights.md, eqs. B1-B4): "balanced", every view's weights sum to n
(:func:`p_step_balanced`); "consensus", its consensus weights c_v P_vj do; "dof", losses in
the unit of the view's degrees of freedom (:func:`dof_scale`); "two_level", one weight per
view (RMSC-WV's) times the view's balanced weights (:func:`p_step_two_level`, the solver's
``weighting="two_level"``). All P-steps stay exact.

Every function takes NumPy arrays (computed in float64, as always) or the arrays of
another array-API namespace (torch, CuPy, array_api_strict: computed there, in their
dtype), so that the device path (:mod:`rmsc.solver._dense`) runs these same formulas,
the scaled model's among them (a unit s or factor c given as a NumPy vector is copied to
the device of P or of the losses; the device path passes device vectors, so its loop
makes no copy).

Why one module of over 600 lines: every P-step (the paper's, RMSC-WV's, the balanced ones,
the two-level one),
the weights held fixed and the regulariser they minimise are one closed form seen from
several sides; each proof of "the objective never increases" reads them together.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse as sp

from .._array_api import device_of, from_numpy, library, namespace, to_numpy


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


def psi_centred(p, gamma):
    """psi less its value at 1: psi(p) - psi(1) = gamma (p - 1) + 1/p - 1.

    The two-level model's within-view regulariser (docs/weights.md, eq. B4): a constant
    shift, which moves no P-step. Over weights of mean 1 (the view's balanced weights) its
    sum is sum_j 1/p_j - n >= 0 (the harmonic mean is at most the mean), zero when every
    weight is 1: the view's robust loss is then never negative, and it is the view's mean
    loss itself when the weights within the view are all alike.
    """
    _, p = _as_float(p)
    return gamma * (p - 1.0) + 1.0 / p - 1.0


def latent_loss(loss, gamma):
    """Latent loss phi(l) = min_{p>=0} p*l + psi(p) = 2(sqrt(gamma + l) - 1) (Lemma 1)."""
    xp, loss = _as_float(loss)
    return 2.0 * (xp.sqrt(gamma + loss) - 1.0)


def minimizer(loss, gamma):
    """Minimizer function sigma(l) = 1/sqrt(gamma + l): the optimal weight for loss l."""
    xp, loss = _as_float(loss)
    return 1.0 / xp.sqrt(gamma + loss)


def initial_weights(losses, gamma, weighting="sample", scale=None, *, fixed=None,
                    target=None):
    """The weights P that Algorithm 1 starts from (the paper leaves the start open).

    ``weighting="sample"`` (RMSC): P = 1. ``weighting="view"`` (RMSC-WV): the
    P-step of the initial losses, p_v = 1 / sqrt(gamma + sum_j l_vj). One weight per
    view is of the order 1 / sqrt(n) (a view's loss is summed over its n samples), so
    P = 1 would make the first Z*-step threshold at a beta / (2 lam sum_v p_v) about
    sqrt(n) times too small for the beta's unit (:func:`rmsc.solver.column_betas` is
    measured with these weights): that step came out nearly dense (docs/library.md).
    Starting from the P-step is one exact block minimisation more, so
    the objective still never increases. A weight per sample (l_vj <= about 1 for
    unit-L2 samples) is of the order 1 already, and RMSC keeps P = 1.

    Parameters
    ----------
    losses : ndarray of shape (n_views, n_samples)
        The losses at the start (Z* = 0, every Z^v its ridge self-representation).
    gamma : float >= 0
    weighting : {"sample", "view", "two_level"}
        "two_level" (eq. B4) starts, like the balanced models, from its P-step.
    scale : ndarray of shape (n_views,) or None
        The scaled model's units (:func:`p_step`); P = 1 is of the order of its
        weights too (a sample at its view's typical loss weighs 1/sqrt(1 + gamma)).
    fixed : FixedWeights or None
        Weights held constant (:func:`fixed_weights`): they start at their value.
    target : ndarray of shape (n_views,) or None
        The balanced models' constraint (:func:`balance_targets`). P = 1 need not satisfy
        it (with fixed weights, or "consensus"), and a start outside the constraint would
        let the first P-step raise the objective: the balanced models start, like RMSC-WV,
        from the (balanced) P-step of the initial losses.

    Returns
    -------
    P : ndarray of shape (n_views, n_samples)
    """
    if weighting == "view":
        return p_step(losses, gamma, weighting, scale)
    if target is not None or weighting == "two_level":
        return p_step(losses, gamma, weighting, scale, fixed=fixed, target=target)
    xp = namespace(losses)
    P = np.ones(np.shape(losses)) if xp is np else xp.ones_like(losses)
    return P if fixed is None else fixed.apply(P)


#: The rules for each view's unit of loss s_v: None (the paper: no unit, s_v = 1) or
#: "median" (:func:`loss_scale`).
LOSS_SCALES = (None, "median")


def loss_scale(losses, how="median"):
    """Each view's unit of loss s_v, from the per-sample losses (scaled model).

    ``how="median"``: the median over the view's samples of l_vj (the solver
    passes the losses at the start: Z* = 0, every Z^v its ridge
    self-representation). A view whose median loss is 0 (more than half of its
    samples reconstructed exactly, e.g. all-zero samples) takes the mean of its
    losses instead, and 1 when that is 0 too. ``how=None``: the paper's model,
    s_v = 1 for every view.

    Parameters
    ----------
    losses : ndarray of shape (n_views, n_samples)
    how : {"median", None}

    Returns
    -------
    ndarray of shape (n_views,), positive
        In the losses' namespace (on their device for device losses).
    """
    xp, losses = _as_float(losses)
    losses = np.maximum(losses, 0.0) if xp is np else xp.clip(losses, min=0.0)
    if how is None:
        return np.ones(losses.shape[0]) if xp is np else xp.ones_like(losses[:, 0])
    if how != "median":
        raise ValueError(f"loss_scale must be one of {', '.join(map(repr, LOSS_SCALES))}; "
                         f"got {how!r}.")
    if xp is np:
        s = np.median(losses, axis=1)
        mean = losses.mean(axis=1)
        return np.where(s > 0, s, np.where(mean > 0, mean, 1.0))
    s = _row_medians(losses, xp)
    mean = xp.mean(losses, axis=1)
    return xp.where(s > 0, s, xp.where(mean > 0, mean, xp.ones_like(mean)))


def _row_medians(x, xp):
    """The median of every row of a 2-D array, as ``np.median(x, axis=1)``."""
    s = xp.sort(x, axis=1)
    n = s.shape[1]
    if n % 2:
        return s[:, n // 2]
    return (s[:, n // 2 - 1] + s[:, n // 2]) / 2


def view_factors(scale, power=0.0):
    """The views' factors c_v = s_v ** -power of the scaled model (ones for scale None)."""
    if scale is None:
        return None
    _, scale = _as_float(scale)
    return scale ** (-float(power))


def consensus_weights(P, factors=None):
    """The weights the Z*-step averages the Z^v with: c_v P_vj (P for the paper's model)."""
    if factors is None:
        return P
    return _like(factors, P)[:, None] * P


def regularizer(P, gamma, weighting="sample", scale=None, factors=None):
    """The objective's weight term: sum_v c_v s_v sum_j psi(P_vj).

    Paper (``scale=None``): sum_vj psi(P_vj), or sum_v psi(p_v) for RMSC-WV. Scaled
    model: each view's psi carries its unit s_v (n s_v for RMSC-WV's one weight per
    view, whose loss is a sum over n samples) and its factor c_v.

    Parameters
    ----------
    P : ndarray of shape (n_views, n_samples)
    gamma : float
    weighting : {"sample", "view", "two_level"}
        "two_level": P = q_v p_vj, the terms of eq. B4 (:func:`p_step_two_level`).
    scale, factors : ndarray of shape (n_views,) or None
        :func:`loss_scale` and :func:`view_factors`.

    Returns
    -------
    float, or a 0-d array on P's device for a device P (the device path brings it to
    the host with the iteration's other terms, :func:`rmsc.solver._objective.term_values`)
    """
    xp = namespace(P)
    if weighting == "two_level":
        return _two_level_regularizer(P, gamma, scale, factors)
    if scale is None and factors is None:  # the paper's sum, in its order
        total = xp.sum(psi(P[:, 0] if weighting == "view" else P, gamma))
    else:
        if weighting == "view":
            per_view = psi(P[:, 0], gamma)
            unit = None if scale is None else _like(scale, P) * P.shape[1]
        else:
            per_view = xp.sum(psi(P, gamma), axis=1)
            unit = None if scale is None else _like(scale, P)
        if unit is not None:
            per_view = per_view * unit
        if factors is not None:
            per_view = per_view * _like(factors, P)
        total = xp.sum(per_view)
    return float(total) if xp is np else total


def _two_level_regularizer(P, gamma, scale=None, factors=None):
    """The two-level model's weight terms (docs/weights.md, eq. B4), from the solver's
    weights P = q_v p_vj: sum_v c_v s_v [q_v sum_j psi_centred(p_vj) + n psi(q_v)].

    The within-view weights sum to n in every view (the balanced constraint), so the
    product factors uniquely: q_v = sum_j P_vj / n, p_vj = P_vj / q_v.
    """
    xp = namespace(P)
    n = P.shape[1]
    q = xp.sum(P, axis=1) / n
    within = P / q[:, None]
    per_view = q * xp.sum(psi_centred(within, gamma), axis=1) + n * psi(q, gamma)
    if scale is not None:
        per_view = per_view * _like(scale, P)
    if factors is not None:
        per_view = per_view * _like(factors, P)
    total = xp.sum(per_view)
    return float(total) if xp is np else total


def _like(v, ref):
    """The per-view vector ``v`` (s or c) as an array of ``ref``'s namespace: NumPy float64
    for a NumPy ``ref``; for a device ``ref``, ``v`` itself when it is a device array
    already, else a float64 copy of it on ``ref``'s device."""
    xp = namespace(ref)
    if xp is np:
        return np.asarray(to_numpy(v), dtype=np.float64)
    if namespace(v) is not np:
        return v
    return from_numpy(np.asarray(v, dtype=np.float64), xp, device_of(ref), xp.float64)


def loss_of_weight(p, gamma):
    """The inverse of :func:`minimizer`: the loss l >= 0 whose optimal weight is p.

    l = 1/p^2 - gamma (clipped at 0 against round-off; infinite for p = 0).
    """
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return np.maximum(1.0 / (p * p) - gamma, 0.0)


def p_step(losses, gamma, weighting="sample", scale=None, *, check=True, fixed=None,
           target=None):
    """P-step: the optimal weights for fixed losses.

    Paper eq. (update_p): P_vj = 1 / sqrt(gamma + l_vj). With
    ``weighting="view"`` (RMSC-WV, appendix) one weight per view,
    p_v = 1 / sqrt(gamma + sum_j l_vj), broadcast over the samples.
    With ``scale`` (the scaled model, see the module docstring) the losses are
    measured in each view's unit: P_vj = 1 / sqrt(gamma + l_vj / s_v), and for
    RMSC-WV p_v = 1 / sqrt(gamma + sum_j l_vj / (n s_v)).

    Parameters
    ----------
    losses : ndarray of shape (n_views, n_samples)
    gamma : float >= 0
    weighting : {"sample", "view", "two_level"}
        "two_level": :func:`p_step_two_level` (``view_balance="two_level"``).
    scale : ndarray of shape (n_views,) or None
        :func:`loss_scale`; None is the paper's model.
    check : bool, default=True
        Raise when a weight is infinite (gamma = 0 and a loss of 0). The device path
        (:mod:`rmsc.solver._dense`) passes False and checks P with the one transfer to
        the host of its iteration (a check here would wait for the device).
    fixed : FixedWeights or None
        Weights held constant (:func:`fixed_weights`, the uninformative samples): they
        keep their value, the others are the closed form above, which minimises the
        objective over them exactly.
    target : ndarray of shape (n_views,) or None
        The balanced models' constraint sum_j P_vj = target_v (:func:`balance_targets`):
        the P-step is then :func:`p_step_balanced`. None (the paper): no constraint.
        Ignored for ``weighting="view"``.

    Returns
    -------
    P : ndarray of shape (n_views, n_samples)
    """
    xp = namespace(losses)
    if weighting == "two_level":
        return p_step_two_level(losses, gamma, scale, target, fixed=fixed, check=check)
    if target is not None and weighting == "sample":
        return p_step_balanced(losses, gamma, scale, target, fixed=fixed)
    if fixed is not None and weighting == "sample":
        return fixed.apply(p_step(losses, gamma, weighting, scale, check=False), check=check)
    # on a device, clip to a Python bound: maximum(x, 0.0) would make a device array of
    # the 0.0 (torch: a copy from the host, which waits for the device)
    losses = xp.maximum(losses, 0.0) if xp is np else xp.clip(losses, min=0.0)
    if scale is not None:
        unit = _like(scale, losses)[:, None]
        if weighting == "view":
            unit = unit * losses.shape[1]
        losses = losses / unit
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


#: The models of the views' shares (``view_balance``, docs/weights.md "Models whose view
#: shares follow informativeness"): None (the paper's P-step, each weight on its own),
#: "balanced" (every view's weights sum to n, eq. B1), "consensus" (every view's consensus
#: weights c_v P_vj sum to n, eq. B2), "dof" (each view's losses in the unit of its
#: degrees of freedom, view factor 1, eq. B3), "two_level" (one weight per view, RMSC-WV's,
#: times the view's balanced weights, eq. B4).
VIEW_BALANCES = (None, "balanced", "consensus", "dof", "two_level")


def solver_weighting(weighting, view_balance):
    """The weighting the P-step and the objective take: "two_level" for
    ``view_balance="two_level"`` under RMSC's ``weighting="sample"``, else ``weighting``
    (RMSC-WV's one weight per view has no weights within the view to weigh: "two_level"
    does not apply to it, as "balanced" does not)."""
    if view_balance == "two_level" and weighting == "sample":
        return "two_level"
    return weighting


def balance_targets(view_balance, n_views, n_samples, factors=None):
    """The constraint sum_j P_vj = target_v of a balanced model, or None (host float64).

    "balanced" (eq. B1): target_v = n, every view's weights sum to n. "consensus" (eq. B2):
    sum_j c_v P_vj = n, i.e. target_v = n / c_v (= n for the paper's model, c_v = 1).
    "two_level" (eq. B4): the weights within each view sum to n, as "balanced".
    None and "dof" constrain nothing.
    """
    if view_balance not in VIEW_BALANCES:
        raise ValueError(f"view_balance must be one of {', '.join(map(repr, VIEW_BALANCES))}; "
                         f"got {view_balance!r}.")
    if view_balance not in ("balanced", "consensus", "two_level"):
        return None
    target = np.full(n_views, float(n_samples))
    if view_balance == "consensus" and factors is not None:
        target = target / np.asarray(to_numpy(factors), dtype=np.float64)
    return target


def balance_shift(a, total):
    """The balanced P-step's root t = mu + min_j a_j > 0 of sum_j 1/sqrt(a_j - min a + t) = total
    (mu the constraint's multiplier).

    ``a`` (host float64, one view's free weights) is gamma + l_j / s_v. The sum falls
    strictly from +inf (mu -> -min a) to 0 (mu -> inf), so the root is unique; with
    t = mu + min(a) it lies in [1/total^2, k^2/total^2] (k = len(a)): at the left end the
    smallest a alone gives total, at the right end every term is at most total/k.
    scipy's brentq finds it to a relative 4 eps of t (docs/weights.md, eq. B1).
    """
    a = np.asarray(a, dtype=np.float64)
    k = a.size
    if k == 0 or not total > 0:
        raise ValueError(
            f"The balanced P-step cannot share a total weight of {total:.3g} among {k} free "
            "weights of a view (the samples held at the view's typical weight take it all). "
            "Use uninformative=None with this view_balance, or view_balance=None.")
    base = a - a.min()

    def excess(t):
        return np.sum(1.0 / np.sqrt(base + t)) - total

    lo, hi = 1.0 / total ** 2, (k / total) ** 2
    if excess(hi) >= 0.0:  # every a_j equal: t = hi exactly
        return hi
    return scipy.optimize.brentq(excess, lo, hi, xtol=np.finfo(float).tiny,
                                 rtol=4 * np.finfo(float).eps, maxiter=500)


def p_step_balanced(losses, gamma, scale, target, *, fixed=None):
    """The balanced P-step (docs/weights.md, eq. B1): every view's weights sum to target_v.

    min over P_v >= 0 of sum_j [P_vj l_vj / s_v + psi(P_vj)] subject to sum_j P_vj = target_v
    (times c_v s_v, which does not move the minimiser) has the closed form

        P_vj = 1 / sqrt(gamma + l_vj / s_v + mu_v),

    mu_v the root of the constraint (:func:`balance_shift`, on the host: one (m, n) copy
    from a device; the weights are computed as 1 / sqrt(a_vj - min_j a_vj + t_v), with
    t_v = mu_v + min_j a_vj > 0 the root's variable, so that no round-off makes the
    smallest a_vj + mu_v zero or negative). gamma only shifts mu_v: under the constraint sum_j gamma P_vj is a
    constant, so the weights do not depend on gamma (nor does any weight reach a cap: none
    exceeds target_v). With ``fixed`` (the uninformative samples) the held weights keep
    their value and the free ones share target_v minus their sum.

    Parameters
    ----------
    losses : array of shape (n_views, n_samples), any array-API namespace
    gamma : float
    scale : array of shape (n_views,) or None
    target : float or ndarray of shape (n_views,)
        :func:`balance_targets`.
    fixed : FixedWeights or None

    Returns
    -------
    P : array of shape (n_views, n_samples), the losses' namespace and device
    """
    xp = namespace(losses)
    losses = xp.maximum(losses, 0.0) if xp is np else xp.clip(losses, min=0.0)
    if scale is not None:
        losses = losses / _like(scale, losses)[:, None]
    a = gamma + losses
    host = np.asarray(to_numpy(a), dtype=np.float64)
    m, n = host.shape
    totals = np.broadcast_to(np.asarray(target, dtype=np.float64), (m,))
    free = np.ones((m, n), dtype=bool) if fixed is None else ~fixed.mask
    low, t = np.empty(m), np.empty(m)
    for v in range(m):
        if not free[v].any():  # every weight held (at target_v / n: the constraint holds)
            low[v], t[v] = 0.0, 1.0
            continue
        held = 0.0 if fixed is None else float(fixed.values[v]) * int(fixed.mask[v].sum())
        low[v] = host[v, free[v]].min()
        t[v] = balance_shift(host[v, free[v]], totals[v] - held)
    gap = a - _like(low, a)[:, None]
    gap = xp.maximum(gap, 0.0) if xp is np else xp.clip(gap, min=0.0)  # held ones below
    P = 1.0 / xp.sqrt(gap + _like(t, a)[:, None])
    return P if fixed is None else fixed.apply(P)


def p_step_two_level(losses, gamma, scale=None, target=None, *, fixed=None, check=True):
    """The two-level P-step (docs/weights.md, eq. B4): one weight per view times the view's
    balanced weights, P_vj = q_v p_vj.

    The model's weight terms are sum_v c_v [q_v sum_j (p_vj l_vj + s_v psi_centred(p_vj))
    + n s_v psi(q_v)] with sum_j p_vj = n. For any q_v > 0 the p-part of view v is q_v
    c_v s_v times the balanced P-step's (plus a constant), so p is :func:`p_step_balanced`
    whatever q; then q_v = 1/sqrt(gamma + u_v) minimises the rest exactly (RMSC-WV's
    P-step), u_v = mean_j [p_vj l_vj / s_v + psi_centred(p_vj)] >= 0 the view's mean robust
    loss in its unit: together the exact minimiser over (q, p).

    Parameters
    ----------
    losses : array of shape (n_views, n_samples), any array-API namespace
    gamma : float
    scale : array of shape (n_views,) or None
    target : ndarray of shape (n_views,) or None
        The within-view weights' sums: n in every view (:func:`balance_targets`), which
        :func:`regularizer` assumes to split P into (q, p); None: n.
    fixed : FixedWeights or None
        Within-view weights held (at the view's mean weight 1: the uninformative samples).
    check : bool, default=True
        Raise when a view weight is infinite (gamma = 0 and a view rebuilt exactly with
        equal weights within it); as for :func:`p_step`.

    Returns
    -------
    P : array of shape (n_views, n_samples), the losses' namespace and device
    """
    if target is None:
        target = np.full(losses.shape[0], float(losses.shape[1]))
    within = p_step_balanced(losses, gamma, scale, target, fixed=fixed)
    q = view_level_weights(within, losses, gamma, scale)
    if check and not bool(namespace(q).all(namespace(q).isfinite(q))):
        v = int(np.argmin(np.isfinite(to_numpy(q))))
        raise ValueError(
            f"gamma = 0 and view {v} is reconstructed exactly with equal weights within it, "
            "so its view weight 1/sqrt(gamma + loss) is infinite. Use gamma > 0 (the paper "
            "uses 1e-5).")
    return q[:, None] * within


def view_level_weights(within, losses, gamma, scale=None):
    """The two-level model's view weights q_v = 1/sqrt(gamma + u_v) for fixed weights within
    the views (eq. B4): RMSC-WV's P-step, with the view's mean squared loss replaced by its
    mean robust loss u_v = mean_j [p_vj l_vj / s_v + psi_centred(p_vj)] (>= 0)."""
    xp = namespace(losses)
    losses = xp.maximum(losses, 0.0) if xp is np else xp.clip(losses, min=0.0)
    if scale is not None:
        losses = losses / _like(scale, losses)[:, None]
    u = xp.mean(within * losses + psi_centred(within, gamma), axis=1)
    u = xp.maximum(u, 0.0) if xp is np else xp.clip(u, min=0.0)  # >= 0 but for round-off
    return minimizer(u, gamma) if gamma > 0 else _safe_minimizer(u)


def dof_scale(losses, lam):
    """Each view's unit of loss from its degrees of freedom (the "dof" model, eq. B3).

    At the start (Z* = 0) sample j's loss in view v is l_vj = lam h_j / (1 - h_j), h_j the
    j-th diagonal entry of the ridge hat matrix K (K + lam I)^-1 (K = X^T X): the zero-diagonal
    self-representation is the leave-one-out ridge fit. So h_j = l_vj / (lam + l_vj), and
    the view's degrees of freedom are df_v = sum_j h_j = tr K (K + lam I)^-1 (at most
    rank X^v). The unit s_v = lam rho / (1 - rho), rho = df_v / n, is the start loss of a
    sample of average leverage: what a view of df_v degrees of freedom makes of any sample,
    whatever its clusters. A view with no degree of freedom (all zero) takes 1.

    Parameters
    ----------
    losses : array of shape (n_views, n_samples)
        The losses at the start (any namespace).
    lam : float > 0

    Returns
    -------
    array of shape (n_views,), positive, in the losses' namespace
    """
    xp, losses = _as_float(losses)
    losses = np.maximum(losses, 0.0) if xp is np else xp.clip(losses, min=0.0)
    rho = xp.mean(losses / (lam + losses), axis=1)
    s = lam * rho / (1.0 - rho)
    return xp.where(s > 0, s, xp.ones_like(s))


#: Rules for the weight of a sample that carries no information in a view (all zero
#: there, or repeated exactly by another sample; :func:`uninformative_samples`): None (the
#: paper: the P-step's weight, the cap for a loss of 0) or "typical" (the view's typical
#: weight, held fixed: :func:`fixed_weights`).
UNINFORMATIVE_RULES = (None, "typical")


def uninformative_samples(views):
    """Which samples carry no information in which view.

    Sample j is uninformative in view v when its row of X^v is all zero, or equal
    (exactly) to another sample's row: either way the view rebuilds it with loss 0 (from
    nothing, or from its twin) whatever it says about the sample.

    Parameters
    ----------
    views : list of array-like or scipy.sparse matrices, each (n_samples, n_features_v)
        The views as the solver sees them (after any preprocessing); arrays of another
        array-API namespace are copied to the host.

    Returns
    -------
    ndarray of bool, shape (n_views, n_samples)
    """
    return np.stack([_uninformative_rows(X) for X in views])


def _uninformative_rows(X):
    if sp.issparse(X):
        X = sp.csr_matrix(X, copy=True)
        X.eliminate_zeros()
        X.sum_duplicates()
        X.sort_indices()
        n = X.shape[0]
        zero = np.diff(X.indptr) == 0
        seen = {}
        keys = []
        for j in range(n):
            a, b = X.indptr[j], X.indptr[j + 1]
            key = (X.indices[a:b].tobytes(), X.data[a:b].tobytes())
            keys.append(key)
            seen[key] = seen.get(key, 0) + 1
        repeated = np.array([seen[k] > 1 for k in keys], dtype=bool)
        return zero | repeated
    X = np.asarray(to_numpy(X))
    if X.shape[1] == 0:
        return np.ones(X.shape[0], dtype=bool)
    zero = ~np.any(X != 0, axis=1)
    _, inverse, counts = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    return zero | (counts[np.ravel(inverse)] > 1)


@dataclass(frozen=True)
class FixedWeights:
    """Weights held constant through a solve (the uninformative samples' rule).

    Attributes
    ----------
    mask : ndarray of bool, shape (n_views, n_samples)
        The (v, j) whose weight is fixed.
    values : ndarray of shape (n_views,)
        Each view's fixed weight (host float64).
    """

    mask: np.ndarray
    values: np.ndarray

    def apply(self, P, *, check=False):
        """P with the fixed entries set to their view's value (P's namespace and device).

        ``check``: raise when a free weight is infinite (gamma = 0 and a loss of 0)."""
        xp = namespace(P)
        if xp is np:
            out = np.where(self.mask, self.values[:, None], P)
        else:
            mask, fill = self._on_device(xp, P)
            out = xp.where(mask, fill, P)
        if check and not bool(xp.all(xp.isfinite(out))):
            host = to_numpy(out)
            _infinite_weight(host, np.zeros_like(host), "sample")
        return out

    def _on_device(self, xp, P):
        """The mask and the fill values on P's device, copied there once per device and
        dtype (a copy from the host each P-step would be a wait for the device, and one a
        captured iteration cannot hold: :meth:`rmsc.solver._dense.DenseForm.iterate`)."""
        key = (library(xp), str(device_of(P)), str(P.dtype))
        cache = self.__dict__.setdefault("_device_copies", {})
        if key not in cache:
            cache[key] = (from_numpy(self.mask, xp, device_of(P)),
                          from_numpy(np.broadcast_to(self.values[:, None], self.mask.shape),
                                     xp, device_of(P), P.dtype))
        return cache[key]


def fixed_weights(mask, losses, gamma, scale=None, target=None):
    """The uninformative samples' fixed weights: each view's typical weight at the start.

    The value of view v is the median, over its informative samples, of the P-step's
    weights for the losses at the start (Z* = 0, every Z^v its ridge
    self-representation): P = 1/sqrt(gamma + l/s_v) at the view's median loss. A view with
    no informative sample takes the weight of a sample at the view's unit loss,
    1/sqrt(gamma + 1).

    Parameters
    ----------
    mask : ndarray of bool, shape (n_views, n_samples)
        :func:`uninformative_samples`.
    losses : ndarray of shape (n_views, n_samples)
        The losses at the start (any namespace).
    gamma : float
    scale : ndarray of shape (n_views,) or None
        :func:`loss_scale`; None is the paper's model.
    target : ndarray of shape (n_views,) or None
        The balanced models' constraint sum_j P_vj = target_v (:func:`balance_targets`):
        there the view's typical weight is its mean weight target_v / n, held fixed.
        It is never above the view's highest free weight (the free weights then share
        target_v (n - k) / n among n - k samples: their mean is target_v / n too), whereas
        the start's median could end above every free weight when a balanced view's
        weights flatten out, and it always leaves the free weights a positive total.

    Returns
    -------
    FixedWeights or None
        None when no sample is uninformative.
    """
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return None
    if target is not None:
        values = np.broadcast_to(np.asarray(target, dtype=np.float64), (mask.shape[0],))
        return FixedWeights(mask=mask, values=values / mask.shape[1])
    P0 = to_numpy(p_step(losses, gamma, "sample", scale, check=False, target=target))
    values = np.empty(mask.shape[0])
    for v in range(mask.shape[0]):
        free = P0[v, ~mask[v]]
        free = free[np.isfinite(free)]
        values[v] = np.median(free) if free.size else 1.0 / np.sqrt(gamma + 1.0)
    return FixedWeights(mask=mask, values=values)
