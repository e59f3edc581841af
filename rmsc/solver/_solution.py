"""What Algorithm 1 returns, and when it stops: the solution record, the default
iteration budget and the stopping rules of Algorithm 1's one loop (:mod:`._algorithm`),
whichever form (host or device) runs its steps."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._weights import loss_scale, view_factors


@dataclass
class RMSCSolution:
    """What :func:`rmsc.solver.solve` returns.

    Attributes
    ----------
    Zstar : scipy.sparse.csc_matrix of shape (n, n)
    P : ndarray of shape (n_views, n)
    objective : ndarray of shape (n_iter,)
        Whole objective after every iteration.
    changes : ndarray of shape (n_iter,)
        What the stopping rule measured after every iteration (:func:`stop_measure`).
    terms : dict of ndarray of shape (n_iter,)
    objective_init : float
        Objective at the initialisation (P of :func:`initial_weights`, Z* = 0, Z^v
        solved for Z* = 0).
    n_iter : int
    converged : bool
    beta_max : float or None
        :func:`beta_max` for these data, lam and gamma, when asked for.
    beta : float
        The beta of the run (the rule's value when beta was a rule).
    column_betas : ndarray of shape (n,) or None
        :func:`column_betas`, when beta_max or a beta rule asked for them.
    scale : ndarray of shape (n_views,) or None
        The scaled model's unit of loss s_v per view (:func:`loss_scale`); None for
        the paper's model.
    factors : ndarray of shape (n_views,) or None
        The scaled model's view factors c_v (:func:`view_factors`); the Z*-step
        averages with the weights c_v P_vj.
    n_accelerated : int
        Iterations after which the acceleration's candidate was accepted
        (:mod:`._acceleration`; 0 for the plain iteration).
    """

    Zstar: object
    P: np.ndarray
    objective: np.ndarray
    terms: dict
    changes: np.ndarray
    objective_init: float
    n_iter: int
    converged: bool
    beta_max: float | None = None
    beta: float | None = None
    column_betas: np.ndarray | None = None
    scale: np.ndarray | None = None
    factors: np.ndarray | None = None
    n_accelerated: int = 0


#: Most iterations of Algorithm 1, by default (docs/stability.md). The paper's "within 5
#: iterations" is the objective's; the clustering of the consensus keeps moving for
#: hundreds (the stability study), and under the default scaled model it settles well
#: within this budget (docs/stability.md, "4. The chosen defaults").
MAX_ITER = 200


#: Default stopping tolerance, on the rule :data:`STOP_ON`: the consensus's relative change
#: in one iteration, ||Z*_t - Z*_{t-1}||_F / ||Z*_t||_F <= 3e-3 (docs/stability.md). The
#: former rule, the objective's relative decrease <= 1e-4 with at most 30 iterations,
#: stopped Digit at 30, where its ACC was 8 points from the converged one.
TOL = 3e-3


#: The stopping rules (see :func:`stop_measure`): "objective", the objective's relative
#: decrease in one iteration; "zstar", the relative change of the consensus in one
#: iteration, ||Z*_t - Z*_{t-1}||_F / ||Z*_t||_F.
STOPPINGS = ("objective", "zstar")


#: The default stopping rule: scale-free (the objective's relative decrease is measured
#: against a constant of about 2 m n that psi adds, see :func:`objective_change`).
STOP_ON = "zstar"


#: The stopping rules in words (see :func:`converged`).
STOPPING_TEXT = {
    "objective": "stop when (f_prev - f) <= tol * |f_prev|, or after max_iter iterations",
    "zstar": "stop when ||Z*_t - Z*_{t-1}||_F <= tol * ||Z*_t||_F, or after max_iter iterations",
}


#: The default stopping rule in words.
STOPPING = STOPPING_TEXT[STOP_ON]


def objective_change(f_prev, f):
    """The objective's relative change in one iteration, |f_prev - f| / |f_prev|.

    Beware its unit: psi(p) = gamma p + 1/p - 2 adds -2 per weight, so |f| carries a
    constant of about 2 m n (m views, n samples) and this ratio measures the decrease
    against that constant as much as against the objective's variable part.
    """
    return abs(f_prev - f) / max(abs(f_prev), np.finfo(float).tiny)


def zstar_change(delta_sq, Zstar):
    """The consensus's relative change in one iteration: ||Z*_t - Z*_{t-1}||_F / ||Z*_t||_F.

    ``delta_sq`` holds ||z*_j(t) - z*_j(t-1)||^2 per column (the Z*-step returns it for
    the P-step); ``Zstar`` is Z*_t, dense or sparse. Scale-free: it does not depend on the
    objective's constants or on the data's size. 0 when both are zero; inf when Z*_t = 0
    but it changed.
    """
    return relative_change(float(np.sum(delta_sq)), float(squared_norm(Zstar)))


def squared_norm(Z):
    """||Z||_F^2 of a sparse or dense NumPy matrix, summed in Z's dtype."""
    # In memory order: vdot flattens in C order, which copies a Fortran-ordered Z* (the
    # dense solver's) on every call, ten times the sum's own cost at Digit's size.
    values = Z.data if sp.issparse(Z) else np.ravel(Z, order="K")
    return np.vdot(values, values).real


def relative_change(change_sq, norm_sq):
    """sqrt(change_sq / norm_sq) for the sums of :func:`zstar_change` (the device path
    computes them on the device): 0 when both are 0, inf when only the norm is."""
    if norm_sq > 0:
        return float(np.sqrt(change_sq / norm_sq))
    return 0.0 if change_sq == 0 else float("inf")


def stop_measure(stop_on, f_prev, f, sums=None):
    """What the stopping rule ``stop_on`` (:data:`STOPPINGS`) measures after an iteration.

    ``sums`` are, for the rule "zstar", ||Z*_t - Z*_{t-1}||_F^2 and ||Z*_t||_F^2 (on a
    device, summed there and brought to the host with the objective): their
    :func:`relative_change` is :func:`zstar_change`.
    """
    if stop_on == "zstar":
        return relative_change(float(sums[0]), float(sums[1]))
    return objective_change(f_prev, f)


def converged(change, tol):
    """The stopping rule of Algorithm 1: the measured change is at most ``tol``.

    ``change`` is :func:`stop_measure`'s (:func:`objective_change` or
    :func:`zstar_change`). ``tol = 0`` never stops (the iterations run to ``max_iter``).
    """
    return tol > 0 and change <= tol


def model_units(losses, how_scale, scale_power):
    """(s, c) of the model: None, None for the paper's; else :func:`loss_scale` of the
    losses at the start and :func:`view_factors`."""
    if how_scale is None:
        return None, None
    scale = loss_scale(losses, how_scale)
    return scale, view_factors(scale, scale_power)


def call_back(callback, it, f, P, Zstar):
    """The callback's stop request (see :func:`rmsc.solver.solve`)."""
    if callback is None:
        return False
    if getattr(callback, "needs_consensus", False):
        return bool(callback(it, f, P, consensus=Zstar))
    return bool(callback(it, f, P))
