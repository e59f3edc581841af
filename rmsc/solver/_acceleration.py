"""Safeguarded acceleration of Algorithm 1: an extrapolated consensus, kept only where it
lowers the objective below the plain step's (docs/acceleration.md).

Block coordinate descent converges linearly, and slowly once the support of Z* settles.
After each plain iteration (Z*-step, P-step, Z^v-steps) an accelerator proposes a
consensus Z_e built from the iterates so far:

* ``"extrapolate"``: Z_e = Z*_t + w (Z*_t - Z*_{t-1}) (the extrapolated block coordinate
  descent of Xu & Yin), with w grown after every accepted step and halved after a
  rejected one;
* ``"anderson"``: Anderson mixing (type II) of the last few plain steps, seen as a fixed
  point map Zref -> Z*: Z_e = Z*_t - sum_i g_i (Z*_i+1 - Z*_i), the g_i minimising the
  norm of the same combination of the residuals Z*_i - Zref_i.

**Why every accepted iterate is a valid point with an exact objective.** The Z^v-step
(paper eq. update_z_v) does not depend on P: each column's two terms carry the same weight
P_vj, so Z^v(Z) = argmin_Z^v F for *any* P. So any consensus Z defines a point
(Z, P(Z), Z^v(Z)), P(Z) the P-step (eq. update_p) of the losses of (Z^v(Z), Z), and its
objective F is computed exactly, as the loop computes it. The candidate's
T_v = R_v (I - Z_e), all the Z^v-step needs, is the same affine combination (weights
summing to 1) of the T_v the solver already holds for the combined iterates, so a
candidate costs one Z^v-step (O(r_v^2 n) per view), its losses and an l1 norm, not a
Z*-step's products. It is accepted only when its objective is below the plain step's
with P refreshed (F(Z*_t, P(Z*_t), Z^v(Z*_t)) <= the plain step's F, itself below the
previous iterate's), and the solver then continues from it; otherwise the plain step
stands, exactly as without acceleration. So the objective never increases, and the
fixed points are the plain algorithm's (a point the plain step does not move has no
direction to extrapolate along).

Only the factor form (:class:`rmsc.solver._algorithm.FactorForm`) is accelerated: the
kernel form (text views) keeps its Z^v in n x n arrays updated in place, and it stops in
a few dozen iterations anyway; there the solver runs the plain iteration.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._objective import terms_from_losses
from ._weights import p_step
from ._zv_step import sample_losses, zv_step


#: The accelerations of :func:`rmsc.solver.solve`: "none" (the plain Algorithm 1),
#: "extrapolate" and "anderson" (see the module docstring).
ACCELERATIONS = ("none", "extrapolate", "anderson")


#: The default acceleration (docs/acceleration.md: the study behind it).
ACCELERATION = "none"


#: Anderson mixing: how many past steps it combines.
ANDERSON_MEMORY = 5


#: Extrapolation: the first weight w, its growth after an accepted step and its cap.
EXTRAPOLATION_START, EXTRAPOLATION_GROWTH, EXTRAPOLATION_MAX = 0.5, 1.5, 8.0


def check_acceleration(acceleration):
    """``acceleration`` if it is one of :data:`ACCELERATIONS`, else a clear error."""
    if not isinstance(acceleration, str) or acceleration not in ACCELERATIONS:
        raise ValueError(f"acceleration must be one of {', '.join(map(repr, ACCELERATIONS))};"
                         f" got {acceleration!r}.")
    return acceleration


class Model:
    """What a candidate's objective needs besides the consensus: the model's constants."""

    def __init__(self, lam, beta, gamma, weighting, scale, factors, fixed=None, target=None):
        self.lam, self.beta, self.gamma = lam, beta, gamma
        self.weighting, self.scale, self.factors = weighting, scale, factors
        self.fixed, self.target = fixed, target

    def weights(self, recon, coupling):
        """The P-step (eq. update_p) of these losses (the fixed weights held)."""
        return p_step(recon + self.lam * coupling, self.gamma, self.weighting, self.scale,
                      fixed=self.fixed, target=self.target)

    def objective(self, recon, coupling, P, Z):
        return sum(terms_from_losses(recon, coupling, self.lam, P, Z, self.beta, self.gamma,
                                     self.weighting, self.scale, self.factors).values())


def make_accelerator(acceleration, form, model):
    """The accelerator for the loop of Algorithm 1, or None (plain iterations)."""
    check_acceleration(acceleration)
    if acceleration == "none" or not hasattr(form, "reps"):
        return None
    return (Extrapolation if acceleration == "extrapolate" else Anderson)(form, model)


class _Accelerator:
    """The common part: evaluate a candidate exactly, accept it or keep the plain step.

    ``step(Zref, Zstar, P, f)`` is called after a plain iteration that went from ``Zref``
    to ``Zstar`` (the form's Z^v solved for ``Zstar``); it returns the point to continue
    from, ``(Zstar, P, f)``, and whether a candidate was accepted.
    """

    def __init__(self, form, model):
        self.form = form
        self.model = model
        self.tried = 0
        self.accepted = 0

    def _Ts(self):
        return [rep.T for rep in self.form.reps]

    def step(self, Zref, Zstar, P, f):
        Ts = self._Ts()
        proposal = self.propose(Zref, Zstar, Ts)
        if proposal is None:
            return Zstar, P, f, False
        Z_e, T_e = proposal
        self.tried += 1
        reps = [zv_step(view, T) for view, T in zip(self.form.views, T_e)]
        recon_e, coupling_e = _losses(self.form.views, reps)
        P_e = self.model.weights(recon_e, coupling_e)
        f_e = self.model.objective(recon_e, coupling_e, P_e, Z_e)
        # the bar: the plain step's point with its P refreshed (one more exact P-step)
        recon, coupling = self.form.losses()
        f_bar = min(f, self.model.objective(recon, coupling, self.model.weights(recon, coupling),
                                            Zstar))
        ok = bool(np.isfinite(f_e) and f_e < f_bar)
        self.feedback(ok)
        if not ok:
            return Zstar, P, f, False
        self.accepted += 1
        self.form.reps = reps
        return Z_e, P_e, f_e, True


class Extrapolation(_Accelerator):
    """Z_e = Z*_t + w (Z*_t - Z*_{t-1}), w adapted by the safeguard's verdicts."""

    def __init__(self, form, model):
        super().__init__(form, model)
        self.w = EXTRAPOLATION_START
        self.previous = None  # (Z*, T) of the previous plain step's output

    def propose(self, Zref, Zstar, Ts):
        previous, self.previous = self.previous, (Zstar, Ts)
        if previous is None or not _same_kind(previous[0], Zstar):
            return None
        Zp, Tp = previous
        w = self.w
        Z_e = _combine(Zstar, [(1.0 + w, Zstar), (-w, Zp)])
        return Z_e, [_affine(T, T0, w) for T, T0 in zip(Ts, Tp)]

    def feedback(self, ok):
        if ok:
            self.w = min(self.w * EXTRAPOLATION_GROWTH, EXTRAPOLATION_MAX)
        else:
            self.w = max(self.w / 2.0, 0.05)


class Anderson(_Accelerator):
    """Anderson mixing (type II) of the last :data:`ANDERSON_MEMORY` plain steps.

    Step i maps Zref_i to G_i = Z*_i (residual F_i = G_i - Zref_i). With the differences
    dF_i = F_i+1 - F_i and dG_i = G_i+1 - G_i, the candidate is G_t - sum_i g_i dG_i, g
    the least-squares solution of sum_i g_i dF_i ~ F_t (lightly regularised); its T_v is
    the same combination of the outputs' T_v. A rejected candidate clears the memory.
    """

    def __init__(self, form, model, memory=ANDERSON_MEMORY):
        super().__init__(form, model)
        self.memory = memory
        self.history = []  # (G, F, T of G) per plain step

    def propose(self, Zref, Zstar, Ts):
        F = _combine(Zstar, [(1.0, Zstar), (-1.0, Zref)]) if _same_kind(Zstar, Zref) else None
        if F is None or (self.history and not _same_kind(self.history[-1][0], Zstar)):
            self.history = []
        if F is None:
            return None
        self.history.append((Zstar, F, Ts))
        self.history = self.history[-(self.memory + 1):]
        if len(self.history) < 2:
            return None
        dF = [_combine(F1, [(1.0, F1), (-1.0, F0)])
              for (_, F0, _), (_, F1, _) in zip(self.history, self.history[1:])]
        k = len(dF)
        A = np.empty((k, k))
        b = np.empty(k)
        for i in range(k):
            b[i] = _dot(dF[i], F)
            for j in range(i + 1):
                A[i, j] = A[j, i] = _dot(dF[i], dF[j])
        A += (1e-10 * max(np.trace(A), np.finfo(float).tiny)) * np.eye(k)
        try:
            g = np.linalg.solve(A, b)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(g)):
            return None
        # Z_e = G_t - sum_i g_i (G_i+1 - G_i): coefficients of the stored G's
        c = np.zeros(len(self.history))
        c[-1] = 1.0
        c[1:] -= g
        c[:-1] += g
        Gs = [h[0] for h in self.history]
        Z_e = _combine(Zstar, list(zip(c, Gs)))
        T_e = [sum(ci * h[2][v] for ci, h in zip(c, self.history))
               for v in range(len(Ts))]
        return Z_e, T_e

    def feedback(self, ok):
        if not ok:
            self.history = self.history[-1:]


def _affine(T, T0, w):
    """(1 + w) T - w T0, with one temporary."""
    out = np.multiply(T, 1.0 + w)
    out -= w * T0
    return out


def _losses(views, reps):
    m, n = len(views), views[0].R.shape[1]
    recon, coupling = np.empty((m, n)), np.empty((m, n))
    for v, (view, rep) in enumerate(zip(views, reps)):
        recon[v], coupling[v] = sample_losses(view, rep)
    return recon, coupling


def _same_kind(a, b):
    return sp.issparse(a) == sp.issparse(b)


def _combine(like, terms):
    """sum_i c_i Z_i, sparse (CSC) or dense (Fortran order) as ``like``, in its dtype.

    Dense: computed in place in ``like``'s dtype (float32 while the solver holds Z* dense
    in "auto" precision), two passes over n x n per term: a pass over Digit's dense Z* costs
    about as much as a P-step, so no float64 temporaries.
    """
    terms = [(c, Z) for c, Z in terms if c != 0]
    if sp.issparse(like):
        out = sp.csc_matrix(like.shape, dtype=like.dtype)
        for c, Z in terms:
            out = out + c * Z
        out = sp.csc_matrix(out)
        out.eliminate_zeros()
        return out
    dtype = like.dtype
    out = np.zeros(like.shape, dtype=dtype, order="F")
    tmp = np.empty_like(out) if len(terms) > 1 else None
    for i, (c, Z) in enumerate(terms):
        if i == 0:
            np.multiply(Z, dtype.type(c), out=out)
        else:
            np.multiply(Z, dtype.type(c), out=tmp)
            out += tmp
    return out


def _dot(a, b):
    if sp.issparse(a):
        return float(a.multiply(b).sum())
    return float(np.vdot(a, b))
