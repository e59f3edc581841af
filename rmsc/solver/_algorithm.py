"""Algorithm 1: Z*-step, P-step, Z^v-steps until the stopping rule; and beta_max.

One loop (:func:`_algorithm1`) and one prelude (:func:`_start`: the losses at Z* = 0,
the model's units, the first P-step, the emptying betas) for :func:`solve`,
:func:`column_betas` and :func:`beta_max`, on three forms of the same steps:
:class:`FactorForm` on the views' factors, :class:`KernelForm` on the views' n x n hat
matrices (text views), and :class:`rmsc.solver._dense.DenseForm` in dense form on the
factors' own device (torch, CuPy, array_api_strict). A form holds its iterates and
decides where its arrays live; the loop only calls it, in NumPy or the form's array-API
namespace alike (:func:`_form` picks the form).

Why one module of over 600 lines: the loop, its prelude, the iteration it repeats and the
host forms it drives change together (a new step, a stopping rule, a field of the solution
record lands on every form at once); split, a change could reach one path only, which is
what the one loop is for.
"""

from __future__ import annotations

from contextlib import contextmanager
from functools import partial
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._array_api import namespace
from ..backends import LocalBlocks
from ._acceleration import ACCELERATION, Model, check_acceleration, make_accelerator
from ._dense import DenseForm
from ._factors import factorize_view
from ._kernel import kernel_block, kernel_colmax, kernel_state, use_kernel_form
from ._objective import OBJECTIVE_TERMS, l1_norm, term_values
from ._weights import (
    balance_targets,
    consensus_weights,
    solver_weighting,
    dof_scale,
    fixed_weights,
    initial_weights,
    p_step,
)
from ._zstar_step import (
    assemble_blocks,
    block_columns,
    keep_dense,
    stack_factors,
    to_csc,
    zstar_step,
)
from ._solution import (
    MAX_ITER,
    STOP_ON,
    STOPPINGS,
    TOL,
    RMSCSolution,
    call_back,
    converged,
    model_units,
    squared_norm,
    stop_measure,
)
from ._zv_step import sample_losses, zv_step


#: Precisions of the Z*-step's products (factor form): always float32, always float64, or
#: "auto" (float32 while Z* is held dense, see :data:`DENSE_ZSTAR_DENSITY`; float64 otherwise).
PRECISIONS = ("auto", "float32", "float64")


#: Default precision of the factor form's Z*-step: its two products (A = Zref + R^T QW and
#: R Z*) and its thresholding; everything else (Q, T, D, P, the objective) is float64.
#: float32 halves the time of those products, which are all but the whole cost of an
#: iteration at a dense Z*. Measured on Digit (docs/library.md, "Inside the solver"):
#: at a dense Z* float32 gives the same scores and the objective still falls every
#: iteration; at a fragmented, sparse Z* a round-off change of Z* moved ACC (the
#: spectral step of a graph in pieces amplifies any perturbation). Hence "auto": float32
#: where it pays and the graph is well connected, float64 where Z* is sparse (there the
#: one product is all the cost, and the iterate is the paper form's to round-off).
#: ``precision="float64"`` gives the paper form to ~1e-12 everywhere (exactness tests).
PRECISION = "auto"


@dataclass(frozen=True)
class SolveOptions:
    """Everything a solve is given besides the factors (see :func:`solve`).

    The model (``lam``, ``beta``, ``gamma``, ``weighting``, ``loss_scale``,
    ``scale_power``), when to stop (``max_iter``, ``tol``, ``stop_on``, ``callback``),
    whether to compute beta_max, the acceleration of the iterates (``acceleration``, see
    :mod:`._acceleration`), and the form's settings (``precision``: "auto" or a NumPy
    float type, see :func:`_check_precision`; ``block_size``, ``runner`` and ``kernel``,
    which the device's dense form does not use).
    """

    lam: float
    beta: object
    gamma: float
    weighting: str = "sample"
    loss_scale: str | None = None
    scale_power: float = 0.0
    max_iter: int = MAX_ITER
    tol: float = TOL
    stop_on: str = STOP_ON
    callback: object = None
    with_beta_max: bool = False
    precision: object = PRECISION
    block_size: int | None = None
    runner: object = None
    kernel: bool | None = None
    acceleration: str = ACCELERATION
    uninformative: np.ndarray | None = None
    view_balance: str | None = None


def solve(factors, lam, beta, gamma, *, weighting="sample", max_iter=MAX_ITER, tol=TOL,
          callback=None, block_size=None, runner=None, with_beta_max=False,
          precision=PRECISION, kernel=None, loss_scale=None, scale_power=0.0,
          stop_on=STOP_ON, acceleration=ACCELERATION, uninformative=None, view_balance=None):
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
    acceleration : {"none", "extrapolate", "anderson"}
        A safeguarded acceleration of the iterates (:mod:`rmsc.solver._acceleration`):
        a candidate is kept only where it lowers the objective below the plain step's.
        "none" is the plain Algorithm 1. The kernel form and the device path run plain.
    uninformative : ndarray of bool, shape (n_views, n_samples), or None
        Samples that carry no information in a view (:func:`uninformative_samples`):
        their weights are held at the view's typical weight (:func:`fixed_weights`)
        instead of the P-step's; None: the paper (every weight from the P-step).
        Ignored for ``weighting="view"``.
    view_balance : {None, "balanced", "consensus", "dof", "two_level"}
        The model of the views' shares (:data:`VIEW_BALANCES`, docs/weights.md): None, the
        paper's P-step; "balanced", every view's weights sum to n
        (:func:`p_step_balanced`); "consensus", every view's consensus weights c_v P_vj
        sum to n; "dof", each view's losses in the unit of its degrees of freedom
        (:func:`dof_scale`, replacing ``loss_scale``'s unit) with view factor 1;
        "two_level", one weight per view times the view's balanced weights
        (:func:`p_step_two_level`; the P the solution holds is their product).
        "balanced", "consensus" and "two_level" are ignored for ``weighting="view"``.

    Factors that are not NumPy arrays (torch, CuPy, array_api_strict; see
    :func:`rmsc.solver.gram_factor`) run the dense form on their own device
    (:class:`rmsc.solver._dense.DenseForm`; ``block_size``, ``runner`` and ``kernel``
    do not apply there, and "auto" precision is the factors' dtype). There ``Zstar`` is
    dense n x n (working precision) and ``P`` stays on the device (the callback gets P
    there, and the dense Z* as its consensus); the rest of the solution is NumPy.

    Returns
    -------
    RMSCSolution
    """
    precision = _check_precision(precision)
    check_acceleration(acceleration)
    if stop_on not in STOPPINGS:
        raise ValueError(f"stop_on must be one of {', '.join(map(repr, STOPPINGS))}; "
                         f"got {stop_on!r}.")
    # "two_level" is a structure of the weights the P-step and the objective see (eq. B4)
    weighting = solver_weighting(weighting, view_balance)
    options = SolveOptions(lam, beta, gamma, weighting=weighting, loss_scale=loss_scale,
                           scale_power=scale_power, max_iter=max_iter, tol=tol,
                           stop_on=stop_on, callback=callback, with_beta_max=with_beta_max,
                           precision=precision, block_size=block_size, runner=runner,
                           kernel=kernel, acceleration=acceleration,
                           uninformative=uninformative, view_balance=view_balance)
    with _form(factors, options) as form:
        return _algorithm1(form, options)


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


@contextmanager
def _form(factors, options):
    """The form of Algorithm 1's steps for these factors, factorized (Woodbury quantities
    of every view) and ready at Z* = 0: :class:`DenseForm` for factors that are not NumPy
    arrays; else, within the runner, :class:`KernelForm` or :class:`FactorForm` by
    ``options.kernel`` (None: :func:`use_kernel_form`)."""
    if namespace(*factors) is not np:
        yield DenseForm(factors, options.lam, options.precision)
        return
    runner = LocalBlocks() if options.runner is None else options.runner
    with runner:
        views = [factorize_view(R, options.lam) for R in factors]
        kernel, precision = options.kernel, options.precision
        if kernel is None:
            kernel = use_kernel_form(factors, runner)
            if not kernel and use_kernel_form(factors):
                # Text views on a cluster: the factor form, in the kernel form's float64,
                # so that a Dask fit gives what a local one does.
                precision = np.float64
        # The kernel form runs in float64: in float32 its P moved by up to 2e-4 on Reuter and
        # a fragmented (0.6 % dense) consensus clustered 1 NMI point differently, while its
        # sparse products gain nothing from float32.
        yield (KernelForm(views, options.block_size, runner, np.float64) if kernel
               else FactorForm(views, options.block_size, runner, precision))


@dataclass
class Start:
    """Algorithm 1 at Z* = 0 (:func:`_start`), in the form's namespace.

    Attributes
    ----------
    recon, coupling : arrays of shape (m, n)
        The per-sample losses of the ridge self-representations (Z^v solved for Z* = 0).
    scale, factors : arrays of shape (m,) or None
        The model's units s_v and view factors c_v (:func:`model_units`).
    P : array of shape (m, n)
        The initial weights (:func:`initial_weights`).
    fixed : FixedWeights or None
        The weights held at their view's typical value (:func:`fixed_weights`), for
        every P-step of the solve.
    column_betas : ndarray of shape (n,) or None
        On the host: the emptying betas of the second Z*-step (:func:`column_betas`),
        when asked for.
    """

    recon: object
    coupling: object
    scale: object
    factors: object
    P: object
    fixed: object
    target: object
    column_betas: np.ndarray | None


def _start(form, options, betas):
    """The prelude :func:`solve`, :func:`column_betas` and :func:`beta_max` share: the
    losses at Z* = 0, the model's units, the initial weights and, with ``betas``, the
    first P-step's weights P1 and their emptying betas (the second Z*-step's)."""
    lam = options.lam
    recon, coupling = form.losses()
    losses = recon + lam * coupling
    scale, factors = model_units(losses, options.loss_scale, options.scale_power)
    if options.view_balance == "dof":  # eq. B3: the unit of the view's dof, factor 1
        scale, factors = dof_scale(losses, lam), None
    target = (None if options.weighting == "view" else
              balance_targets(options.view_balance, losses.shape[0], losses.shape[1], factors))
    fixed = (None if options.uninformative is None or options.weighting == "view"
             else fixed_weights(options.uninformative, losses, options.gamma, scale, target))
    P = initial_weights(losses, options.gamma, options.weighting, scale, fixed=fixed,
                        target=target)
    cbetas = None
    if betas:
        P1 = p_step(losses, options.gamma, options.weighting, scale, fixed=fixed, target=target)
        cbetas = form.to_host(_emptying_betas(form, lam, consensus_weights(P1, factors)))
    return Start(recon, coupling, scale, factors, P, fixed, target, cbetas)


def _rule_beta(beta, cbetas):
    """beta itself, or a rule's beta from the emptying betas (checked)."""
    if not callable(beta):
        return beta
    beta = float(beta(cbetas))
    if not (np.isfinite(beta) and beta >= 0):
        raise ValueError(f"The beta rule gave {beta!r}; it must give a finite beta >= 0.")
    return beta


def _iteration(form, model, first, stop_on, Zstar, P):
    """One pass of Algorithm 1's three block steps from (Z*, P), left where the form's
    arrays live (no wait for a device: :meth:`DenseForm.iterate` may replay it as one
    captured graph).

    Returns the new Z*, the new P, the losses the P-step saw, and the values the loop
    fetches in one transfer: the objective's four terms, whether every weight is finite,
    with ``first`` beta_max's candidate from this Z*-step, and with ``stop_on="zstar"``
    sum_j ||z*_j - zref_j||^2 and ||Z*||_F^2.
    """
    lam = model.lam
    # Z*-step (eq. update_z_*) from the previous Z*
    W = consensus_weights(P, model.factors)
    Zstar, colmax, delta_sq = form.zstar_step(Zstar, W, lam, model.beta, with_colmax=first)
    # P-step (eq. update_p), with the Z^v of the previous iteration (a device form checks
    # that every weight is finite with the loop's transfer)
    recon, coupling = form.losses(delta_sq)
    losses = recon + lam * coupling
    P = p_step(losses, model.gamma, model.weighting, model.scale, check=form.host,
               fixed=model.fixed, target=model.target)
    # Z^v-steps (eq. update_z_v)
    form.zv_step()
    recon, coupling = form.losses()
    xp = namespace(P)
    values = list(term_values(recon, coupling, lam, P, form.l1_norm(Zstar), model.beta,
                              model.gamma, model.weighting, model.scale, model.factors))
    values.append(xp.all(xp.isfinite(P)))
    if first:
        values.append(xp.max(_betas_of_colmax(lam, W, colmax)))
    if stop_on == "zstar":
        values += [xp.sum(delta_sq), form.squared_norm(Zstar)]
    return Zstar, P, losses, values


def _algorithm1(form, options):
    """Algorithm 1 on ``form`` (:class:`FactorForm`, :class:`KernelForm` or
    :class:`DenseForm`) with ``options`` (:class:`SolveOptions`)."""
    lam, gamma, weighting = options.lam, options.gamma, options.weighting
    start = _start(form, options, betas=options.with_beta_max or callable(options.beta))
    recon, coupling, scale, factors, P = (start.recon, start.coupling, start.scale,
                                          start.factors, start.P)
    fixed, target = start.fixed, start.target
    cbetas = start.column_betas
    b_max = None if cbetas is None else float(np.max(cbetas))
    beta = _rule_beta(options.beta, cbetas)
    Zstar = form.zero()
    f_prev = float(sum(form.fetch(term_values(recon, coupling, lam, P, form.l1_norm(Zstar),
                                              beta, gamma, weighting, scale, factors))))
    f_init = f_prev
    history = {k: [] for k in OBJECTIVE_TERMS}
    objective, changes = [], []
    done = False
    # None for the plain iteration (and for the kernel and dense forms)
    model = Model(lam, beta, gamma, weighting, scale, factors, fixed, target)
    accelerator = make_accelerator(options.acceleration, form, model)
    for it in range(1, options.max_iter + 1):
        # the first Z*-step also gives beta_max's first candidate
        first = options.with_beta_max and it == 1
        Zref = Zstar
        # one iteration's block steps; a device form may replay the same steps as one
        # captured graph from the third iteration on (DenseForm.iterate), except under a
        # view_balance constraint, whose P-step finds its shifts on the host
        Zstar, P, losses, values = form.iterate(
            partial(_iteration, form, model, first, options.stop_on), Zstar, P,
            repeat=not first and it > 1 and target is None)
        host = form.fetch(values)
        if not host[4]:
            # raises, saying which weight is infinite
            p_step(losses, gamma, weighting, scale, fixed=fixed, target=target)
        if first:
            b_max = max(b_max, float(host[5]))
        terms = {k: float(v) for k, v in zip(OBJECTIVE_TERMS, host[:4])}
        f = sum(terms.values())
        for k in OBJECTIVE_TERMS:
            history[k].append(terms[k])
        objective.append(f)
        stop = call_back(options.callback, it, f, P, Zstar)
        changes.append(stop_measure(options.stop_on, f_prev, f, host[-2:]))
        if converged(changes[-1], options.tol):
            done = True
            break
        f_prev = f
        if stop:
            break
        if accelerator is not None and it < options.max_iter:
            # a safeguarded candidate beyond this step, kept only where its exact
            # objective is below the plain step's (rmsc.solver._acceleration)
            Zstar, P, f_prev, _ = accelerator.step(Zref, Zstar, P, f)
    return RMSCSolution(
        Zstar=form.consensus(Zstar),
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
        scale=form.to_host(scale),
        factors=form.to_host(factors),
        n_accelerated=0 if accelerator is None else accelerator.accepted,
    )


class HostForm:
    """What the forms on the host (NumPy, scipy.sparse) share: Z* = 0 is a sparse
    matrix, the P-step checks P at once, the values the loop fetches are already here."""

    #: The P-step checks that every weight is finite (on the host that costs no wait).
    host = True

    def zero(self):
        """Z* = 0 at the start."""
        return sp.csc_matrix((self.n, self.n))

    def l1_norm(self, Z):
        return l1_norm(Z)

    def squared_norm(self, Z):
        return squared_norm(Z)

    def iterate(self, step, Zstar, P, repeat):
        """``step(Zstar, P)``: on the host every iteration simply runs."""
        return step(Zstar, P)

    def fetch(self, values):
        return np.array([float(v) for v in values])

    def to_host(self, x):
        return x

    def consensus(self, Z):
        """Z* as the solution holds it: sparse."""
        return to_csc(Z)


class FactorForm(HostForm):
    """Algorithm 1's steps on the views' factors (each Z^v = Zref - diag(D) + R^T Q).

    ``zstar_step`` is :func:`zstar_step` (one stacked product per column block,
    plus R Z*), ``losses`` is :func:`sample_losses` and ``zv_step`` is
    :func:`zv_step` for every view.
    """

    def __init__(self, views, block_size, runner, precision):
        self.views = views
        self.n = views[0].R.shape[1]
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
        stack, shared = self.stack(dense=False)
        return zstar_step(self.views, self.reps, self.zero(), P, 1.0, np.inf,
                          block_size=self.block_size, with_beta_max=True, stack=stack,
                          runner=self.runner, shared=shared).colmax

    def zstar_step(self, Zref, P, lam, beta, with_colmax):
        dense = keep_dense(Zref)
        stack, shared = self.stack(dense)
        step = zstar_step(self.views, self.reps, Zref, P, lam, beta, block_size=self.block_size,
                          with_beta_max=with_colmax, stack=stack, runner=self.runner,
                          shared=shared, dense=dense)
        self.Ts = [v.R - rz for v, rz in zip(self.views, step.RZ)]
        return step.Z, step.colmax, step.delta_sq

    def losses(self, delta_sq=None):
        """Per-sample losses of the current Z^v: against their Zref, or the new Z* (delta_sq)."""
        recon, coupling = np.empty((len(self.views), self.n)), np.empty((len(self.views), self.n))
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


class KernelForm(HostForm):
    """Algorithm 1's steps in the kernel form (see :data:`KERNEL_ROWS`).

    One pass over the column blocks (:func:`kernel_block`) does the Z*-step and
    the Z^v-step's heavy part; ``losses`` and ``zv_step`` read its by-products.
    """

    def __init__(self, views, block_size, runner, precision=np.float64):
        self.state, self.D, self.recon, self.coupling = kernel_state(views, precision)
        self.n = self.D.shape[1]
        self.block_size = block_size
        self.runner = runner
        self.pending = None

    def colmax_at_zero(self, P):
        return kernel_colmax(self.state, P / P.sum(axis=0)[None, :], self.block_size)

    def zstar_step(self, Zref, P, lam, beta, with_colmax):
        n, dense = self.n, keep_dense(Zref)
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
    factors : list of arrays, each (r_v, n)
    lam, gamma : float
    weighting, block_size, runner, precision, loss_scale, scale_power : as for :func:`solve`

    Returns
    -------
    ndarray of shape (n,)
    """
    options = _beta_options(lam, gamma, weighting, block_size, runner, precision, loss_scale,
                            scale_power)
    with _form(factors, options) as form:
        return _start(form, options, betas=True).column_betas


def _beta_options(lam, gamma, weighting, block_size, runner, precision, loss_scale,
                  scale_power):
    """:func:`column_betas`' and :func:`beta_max`'s options: the factor form's (no beta)."""
    return SolveOptions(lam, None, gamma, weighting=weighting, loss_scale=loss_scale,
                        scale_power=scale_power, precision=_check_precision(precision),
                        block_size=block_size, runner=runner, kernel=False)


def _emptying_betas(form, lam, P):
    """Per sample j, the beta from which the Z*-step with weights ``P`` (m, n) leaves
    column j empty: 2 lam sum_v P_vj max_i |A_ij| (A the P-weighted average of the Z^v)."""
    return _betas_of_colmax(lam, P, form.colmax_at_zero(P))


def _betas_of_colmax(lam, P, colmax):
    """2 lam sum_v P_vj colmax_j, in P's namespace (:func:`_emptying_betas`)."""
    return 2.0 * lam * namespace(P).sum(P, axis=0) * colmax


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
    options = _beta_options(lam, gamma, weighting, block_size, runner, precision, loss_scale,
                            scale_power)
    with _form(factors, options) as form:
        start = _start(form, options, betas=True)
        b0 = form.to_host(_emptying_betas(form, lam, consensus_weights(start.P, start.factors)))
        return max(float(np.max(b0)), float(np.max(start.column_betas)))
