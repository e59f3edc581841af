"""Algorithm 1: Z*-step, P-step, Z^v-steps until the stopping rule; and beta_max.

:class:`FactorForm` runs the steps on the views' factors, :class:`KernelForm`
on the views' n x n hat matrices (text views); both behind the same loop.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._array_api import namespace
from ..backends import LocalBlocks
from ._factors import factorize_view
from ._kernel import kernel_block, kernel_colmax, kernel_state, use_kernel_form
from ._objective import OBJECTIVE_TERMS, terms_from_losses
from ._weights import consensus_weights, fixed_weights, initial_weights, p_step
from ._zstar_step import (
    assemble_blocks,
    block_columns,
    keep_dense,
    stack_factors,
    to_csc,
    zstar_step,
)
from ._dense import dense_solve
from ._solution import (
    MAX_ITER,
    STOP_ON,
    STOPPINGS,
    TOL,
    RMSCSolution,
    call_back,
    converged,
    model_units,
    stop_measure,
)
from ._zv_step import sample_losses, zv_step


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


def solve(factors, lam, beta, gamma, *, weighting="sample", max_iter=MAX_ITER, tol=TOL,
          callback=None, block_size=None, runner=None, with_beta_max=False,
          precision=PRECISION, kernel=None, loss_scale=None, scale_power=0.0,
          stop_on=STOP_ON, uninformative=None):
    """Block coordinate descent of Algorithm 1 (Z*-step, P-step, Z^v-steps).

    Initialisation (the paper leaves it open): every Z^v the exact Z^v-step for
    Z* = 0, i.e. the ridge self-representation of its view, and P from
    :func:`initial_weights` (1 for RMSC; RMSC-WV's P-step of those losses).
    Stops when the stopping rule's measure (``stop_on``) is at most ``tol`` (never,
    for ``tol=0``), at ``max_iter``, or when ``callback`` returns True.

    Parameters
    ----------
    factors : list of ndarray, each (r_v, n)
        Per-view data factors (see :func:`gram_factor`).
    lam, gamma : float
    beta : float or RelativeBeta
        The weight of ||Z*||_1, or a rule ``beta(column_betas) -> float`` that
        sets it from the per-sample emptying betas of these data (see
        :func:`column_betas`; computed here from the same factorization, one
        more product), such as :class:`RelativeBeta`. The beta used is
        ``RMSCSolution.beta``.
    weighting : {"sample", "view"}
    max_iter : int
    tol : float
    stop_on : {"objective", "zstar"}
        The stopping rule (:data:`STOPPINGS`, :func:`stop_measure`).
    callback : callable(iteration, objective, weights) -> bool or None
        A callback with a true attribute ``needs_consensus`` is called as
        ``callback(iteration, objective, weights, consensus=Zstar)`` (Z* sparse,
        or dense while it is held dense; read it, do not keep it: the solver may
        reuse it), e.g. :class:`rmsc.tracking.ClusteringTrace`.
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
    loss_scale : {None, "median"}
        None: the paper's model. "median": the scaled model of
        :mod:`rmsc.solver._weights` (each view's losses in its unit s_v, the
        median of its losses at the start).
    scale_power : float
        The scaled model's view factor c_v = s_v ** -scale_power (0: the views'
        typical samples weigh alike). Ignored for ``loss_scale=None``.
    uninformative : ndarray of bool, shape (n_views, n_samples), or None
        Samples that carry no information in a view (:func:`uninformative_samples`):
        their weights are held at the view's typical weight (:func:`fixed_weights`)
        instead of the P-step's; None: the paper (every weight from the P-step).
        Ignored for ``weighting="view"``.

    Factors that are not NumPy arrays (torch, CuPy, array_api_strict; see
    :func:`rmsc.solver.gram_factor`) run the dense form on their own device
    (:func:`rmsc.solver._dense.dense_solve`; ``block_size``, ``runner`` and ``kernel``
    do not apply there, and "auto" precision is the factors' dtype).

    Returns
    -------
    RMSCSolution
    """
    checked = _check_precision(precision)
    if stop_on not in STOPPINGS:
        raise ValueError(f"stop_on must be one of {', '.join(map(repr, STOPPINGS))}; "
                         f"got {stop_on!r}.")
    if namespace(*factors) is not np:
        return dense_solve(factors, lam, beta, gamma, weighting=weighting, max_iter=max_iter,
                           tol=tol, callback=callback, with_beta_max=with_beta_max,
                           precision=precision, loss_scale=loss_scale, scale_power=scale_power,
                           stop_on=stop_on, uninformative=uninformative)
    precision = checked
    runner = LocalBlocks() if runner is None else runner
    with runner:
        return _algorithm1(factors, lam, beta, gamma, weighting, max_iter, tol, callback,
                           block_size, runner, with_beta_max, precision, kernel,
                           loss_scale, scale_power, stop_on, uninformative)


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
                runner, with_beta_max, precision, kernel, how_scale=None, scale_power=0.0,
                stop_on=STOP_ON, uninformative=None):
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
    recon, coupling = form.losses()
    scale, factors = model_units(recon + lam * coupling, how_scale, scale_power)
    fixed = None if uninformative is None or weighting == "view" else \
        fixed_weights(uninformative, recon + lam * coupling, gamma, scale)
    P = initial_weights(recon + lam * coupling, gamma, weighting, scale, fixed=fixed)
    b_max = cbetas = None
    if with_beta_max or callable(beta):
        # per-sample emptying betas at the second Z*-step (see column_betas)
        P1 = p_step(recon + lam * coupling, gamma, weighting, scale, fixed=fixed)
        cbetas = _emptying_betas(form, lam, consensus_weights(P1, factors))
        b_max = float(np.max(cbetas))
    if callable(beta):
        beta = float(beta(cbetas))
        if not (np.isfinite(beta) and beta >= 0):
            raise ValueError(f"The beta rule gave {beta!r}; it must give a finite beta >= 0.")
    f_prev = sum(terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma,
                                   weighting, scale, factors).values())
    f_init = f_prev
    history = {k: [] for k in OBJECTIVE_TERMS}
    objective, changes = [], []
    done = False
    for it in range(1, max_iter + 1):
        # Z*-step (eq. update_z_*); the first one also gives beta_max's first candidate
        Zref = Zstar
        first = with_beta_max and it == 1
        W = consensus_weights(P, factors)
        Zstar, colmax, delta_sq = form.zstar_step(Zref, W, lam, beta, dense=keep_dense(Zref),
                                                  with_colmax=first)
        if first:
            b_max = max(b_max, float(np.max(2.0 * lam * W.sum(axis=0) * colmax)))
        # P-step (eq. update_p), with the Z^v of the previous iteration
        recon, coupling = form.losses(delta_sq)
        P = p_step(recon + lam * coupling, gamma, weighting, scale, fixed=fixed)
        # Z^v-steps (eq. update_z_v)
        form.zv_step()
        recon, coupling = form.losses()
        terms = terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma, weighting,
                                  scale, factors)
        f = sum(terms.values())
        for k in OBJECTIVE_TERMS:
            history[k].append(terms[k])
        objective.append(f)
        stop = call_back(callback, it, f, P, Zstar)
        changes.append(stop_measure(stop_on, f_prev, f, delta_sq, Zstar))
        if converged(changes[-1], tol):
            done = True
            break
        f_prev = f
        if stop:
            break
    return RMSCSolution(
        Zstar=to_csc(Zstar),
        P=P,
        objective=np.asarray(objective),
        terms={k: np.asarray(v) for k, v in history.items()},
        changes=np.asarray(changes),
        objective_init=float(f_init),
        n_iter=len(objective),
        converged=done,
        beta_max=b_max,
        beta=float(beta),
        column_betas=cbetas,
        scale=scale,
        factors=factors,
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
        return zstar_step(self.views, self.reps, sp.csc_matrix((n, n)), P, 1.0, np.inf,
                          block_size=self.block_size, with_beta_max=True, stack=stack,
                          runner=self.runner, shared=shared).colmax

    def zstar_step(self, Zref, P, lam, beta, dense, with_colmax):
        stack, shared = self.stack(dense)
        step = zstar_step(self.views, self.reps, Zref, P, lam, beta, block_size=self.block_size,
                          with_beta_max=with_colmax, stack=stack, runner=self.runner,
                          shared=shared, dense=dense)
        self.Ts = [v.R - rz for v, rz in zip(self.views, step.RZ)]
        return step.Z, step.colmax, step.delta_sq

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


def column_betas(factors, lam, gamma, *, weighting="sample", block_size=None, runner=None,
                 precision=PRECISION, loss_scale=None, scale_power=0.0):
    """For every sample j, the smallest beta that empties column j of Z* at the start.

    The second Z*-step (weights P1 of the initial losses, Z^v the ridge
    self-representations) keeps column j nonzero exactly when
    beta < 2 lam s_j max_i |A_ij| (s_j = sum_v P1_vj, A the weighted average of the
    Z^v), so these values say, sample by sample, how large a beta each tolerates:
    their maximum is (all but always) :func:`beta_max`, and their quantiles give a
    beta that leaves a chosen share of samples unlinked at the start (the scale
    the defaults use, :data:`rmsc.rmsc.BETA_QUANTILE`).

    Parameters
    ----------
    factors : list of ndarray, each (r_v, n)
    lam, gamma : float
    weighting, block_size, runner, precision, loss_scale, scale_power : as for :func:`solve`

    Returns
    -------
    ndarray of shape (n,)
    """
    precision = _check_precision(precision)
    runner = LocalBlocks() if runner is None else runner
    with runner:
        views = [factorize_view(R, lam) for R in factors]
        form = FactorForm(views, block_size, runner, precision)
        recon, coupling = form.losses()
        scale, fac = model_units(recon + lam * coupling, loss_scale, scale_power)
        P1 = p_step(recon + lam * coupling, gamma, weighting, scale)
        return _emptying_betas(form, lam, consensus_weights(P1, fac))


def _emptying_betas(form, lam, P):
    """Per sample j, the beta from which the Z*-step with weights ``P`` (m, n) leaves
    column j empty: 2 lam sum_v P_vj max_i |A_ij| (A the P-weighted average of the Z^v)."""
    return 2.0 * lam * P.sum(axis=0) * form.colmax_at_zero(P)


def beta_max(factors, lam, gamma, *, weighting="sample", block_size=None, runner=None,
             precision=PRECISION, loss_scale=None, scale_power=0.0):
    """The smallest beta for which Algorithm 1 keeps Z* = 0 from the start.

    If the first Z*-step (P0 of :func:`initial_weights`: 1 for RMSC) leaves Z* = 0,
    which happens for beta >= b0,
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
    block_size, runner, precision, loss_scale, scale_power : as for :func:`solve`

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
        losses = recon + lam * coupling
        scale, fac = model_units(losses, loss_scale, scale_power)
        for P in (initial_weights(losses, gamma, weighting, scale),
                  p_step(losses, gamma, weighting, scale)):
            out = max(out, float(np.max(_emptying_betas(form, lam, consensus_weights(P, fac)))))
        return out
