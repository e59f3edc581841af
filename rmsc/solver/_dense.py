"""Algorithm 1's steps in dense form, on the arrays' own device (torch, CuPy, array_api_strict).

:func:`rmsc.solver.solve` runs :class:`DenseForm` when the factors are not NumPy arrays
(scikit-learn's array API convention: the inputs' namespace and device decide where the fit
runs; see docs/device.md): the third strategy of the one loop
(:func:`rmsc.solver._algorithm._algorithm1`), beside the factor and the kernel forms. The
steps are those of the factor form (:mod:`._factors`, :mod:`._zv_step`,
:mod:`._zstar_step`) with Z* held as a dense n x n array on the device, where one iteration
is two dense products (A = Zref + R^T QW and R Z*) and a few passes over n x n, all of which
an accelerator runs at its full rate. The loop, its prelude, the P-step
(:func:`._weights.p_step`), the objective (:func:`._objective.term_values`) and the
stopping rule (:func:`._solution.converged`) are the NumPy path's.

Few device calls, one wait a step. On a GPU a small fit is bound by the time it takes to
launch each operation and by every wait for the device, not by arithmetic (docs/device.md,
"How an iteration runs on a GPU"). So every view is handled at once: the views'
factors are stacked into one (sum_v r_v) x n array (:class:`DenseViews`), M is one
block-diagonal product, and the per-view sums over a view's rows are one product with a
0/1 matrix (``E``): an iteration is about 80 operations whatever the number of views. And
an iteration waits for the device once: its objective terms (and whether every weight is
finite, the P-step's check) come to the host in one transfer, for the stopping rule and
the callback. Nothing makes a device array of a Python number (on torch that is a host to
device copy, which waits too).

Precision: the n x n arrays (Z*, the Z*-step's products and thresholding) are in the
dtype of the factors (float32 input: float32, as the NumPy path's ``precision="float32"``;
float64: float64), or in ``precision`` when it names one. Everything of size r x n or less
(the Woodbury quantities, Q, T, D, the losses, P and the objective) is float64, as on the
NumPy path.

Memory (:func:`dense_form_bytes`): at most :data:`DENSE_COPIES` n x n arrays are alive at
once (Zref and A in the Z*-step, which thresholds in row blocks of
:data:`rmsc._array_api.BLOCK_ENTRIES`
entries; Z*, |Z*| and S in the affinity step after it), plus about
:data:`FACTOR_COPIES` float64 arrays of the factors' size and M. The fit
checks this against the device's free memory before it starts and refuses with the size it
would need (:func:`check_device_fits`) rather than streaming column blocks:
streamed, every iteration would move an n x n array between host and device, slower than
the CPU path, which already streams and keeps Z* sparse when it is sparse.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numpy as np

from .. import _array_api
from .._array_api import (
    DEVICE_MEMORY_ENV,
    device_of,
    free_bytes,
    from_numpy,
    graph_capture,
    library,
    namespace,
    row_blocks,
    to_numpy,
    zero_diagonal,
)
from ..memory import BUDGET_ENV, MemoryBudgetError, format_bytes
from ._factors import _DIAGONAL_K
from ._objective import l1_norm_array

#: n x n arrays alive at once at the peak of a device fit (see the module docstring).
DENSE_COPIES = 3

#: Block-sized temporaries (blocks of :data:`rmsc._array_api.BLOCK_ENTRIES`) alive at
#: once: the Z*-step's (the clipped block, the new block, its difference to Zref and that
#: squared; array_api_strict's clip takes two more), the l1 norm's (|block| and its
#: float64 copy), count_nonzero's on a CUDA device (a bool and an int64 copy).
BLOCK_TEMPORARIES = 6

#: float64 arrays of the factors' size (sum_v r_v x n) alive at once: R, MR, Q, T, T_now,
#: the Z^v-step's M T and its two temporaries, the stacked R and QW in the working
#: precision, R Z* in it and in float64, the views themselves and their normalised copies.
FACTOR_COPIES = 14

#: n x n arrays a captured iteration holds beside the eager ones
#: (:meth:`DenseForm.iterate`): its own copy of Z* and the graph pool's A and new Z*.
GRAPH_COPIES = 3

#: The iteration is captured as one CUDA graph only up to this many samples: beyond it an
#: iteration's products and passes over n x n take far longer than its ~80 launches.
GRAPH_MAX_SAMPLES = 16384

#: M is applied as one block-diagonal (sum_v r_v)^2 product (one device call for every
#: view) when sum_v r_v is at most this and at most n, and the product costs at most
#: :data:`BLOCK_DIAGONAL_WASTE` times the separate ones; else one product per view.
BLOCK_DIAGONAL_ROWS = 2048
BLOCK_DIAGONAL_WASTE = 4


def dense_form_bytes(n_samples, factor_rows, itemsize):
    """Device memory a dense-form fit needs: :data:`DENSE_COPIES` n x n arrays of
    ``itemsize`` bytes, the Z*-step's block temporaries, :data:`FACTOR_COPIES`
    float64 arrays of ``factor_rows`` x n, and M (float64, at most r x min(r, n))."""
    n, r = int(n_samples), int(factor_rows)
    block = BLOCK_TEMPORARIES * min(n * n, _array_api.BLOCK_ENTRIES) * int(itemsize)
    return (DENSE_COPIES * n * n * int(itemsize) + block + FACTOR_COPIES * r * n * 8
            + r * min(r, n) * 8)


def _itemsize(xp, dtype):
    return xp.finfo(dtype).bits // 8


def check_device_fits(n_samples, factor_rows, dtype, xp, device):
    """Refuse before a dense-form fit whose arrays would not fit the device's free memory.

    The need is :func:`rmsc.solver.dense_form_bytes`: :data:`rmsc.solver.DENSE_COPIES`
    n x n arrays of ``dtype`` and the factors.

    Returns
    -------
    int
        The bytes needed.

    Raises
    ------
    rmsc.memory.MemoryBudgetError
        Saying how much it needs, how much is free, about how many samples would fit,
        and what else to do.
    """
    size = _itemsize(xp, dtype)
    need = dense_form_bytes(n_samples, factor_rows, size)
    have = free_bytes(xp, device)
    if have is None or need <= have:
        return need
    lo, hi = 0, int(n_samples)  # the largest n whose need fits: need grows with n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if dense_form_bytes(mid, factor_rows, size) <= have else (lo, mid - 1)
    fit_n = lo
    source = (f" ({DEVICE_MEMORY_ENV})" if os.environ.get(DEVICE_MEMORY_ENV) else
              f" ({BUDGET_ENV} or the host's available memory)"
              if library(xp) not in ("torch", "cupy") or str(device) == "cpu" else "")
    precision = "float64" if size == 8 else "float32"
    halve = (" float32 input halves the n x n arrays (these are float64);" if size == 8 else "")
    raise MemoryBudgetError(
        f"RMSC's dense form on {device} needs {format_bytes(need)} for {n_samples} samples "
        f"({DENSE_COPIES} n x n {precision} arrays of {format_bytes(n_samples ** 2 * size)} "
        f"each, plus the factors), but only {format_bytes(have)} is free{source}. About "
        f"{fit_n} samples would fit.{halve} Subsample, or fit on the CPU (NumPy input), "
        "which streams column blocks and keeps Z* sparse when it is sparse."
    )


@dataclass
class DenseViews:
    """Every view's constant Woodbury quantities (:class:`._factors.ViewFactor`), stacked
    row-wise in view order: float64 arrays of the device's namespace, the rows of view v
    being ``splits[v]:splits[v + 1]`` (r = sum_v r_v rows, m views).

    Attributes
    ----------
    R : array of shape (r, n)
    MR : array of shape (r, n)
        M R, M = blockdiag_v (lam I + R_v R_v^T)^{-1}.
    one_minus_h : array of shape (m, n)
        1 - diag(R_v^T M_v R_v), one row per view.
    E : array of shape (m, r)
        E[v, i] = 1 when row i is view v's: ``E @ X`` sums every view's rows at once,
        ``E^T @ Y`` repeats view v's row of Y over its rows.
    M : array of shape (r, r) or None
        The block-diagonal M, when it is applied as one product.
    blocks : list or None
        Else, per view: ("diag", m_v) (R_v R_v^T is diagonal) or ("full", M_v).
    splits : ndarray of int
    lam : float
    """

    R: object
    MR: object
    one_minus_h: object
    E: object
    M: object
    blocks: list | None
    splits: np.ndarray
    lam: float

    def apply_M(self, T):
        """M @ T, for T of shape (r, k)."""
        if self.M is not None:
            return self.M @ T
        xp = namespace(T)
        parts = []
        for (kind, Mv), a, b in zip(self.blocks, self.splits[:-1], self.splits[1:]):
            Tv = T[int(a):int(b), :]
            parts.append(Mv[:, None] * Tv if kind == "diag" else Mv @ Tv)
        return xp.concat(parts, axis=0)

    def view_sums(self, X):
        """Per view, the sum of X's rows that are that view's: (r, n) -> (m, n)."""
        return self.E @ X

    def per_row(self, Y):
        """Each view's row of Y repeated over that view's rows: (m, n) -> (r, n), exactly
        (one product with the 0/1 E^T: a single nonzero term a sum)."""
        return self.E.T @ Y


def factorize_dense(factors, lam):
    """:func:`._factors.factorize_view` for every view on the device (float64), stacked:
    the Woodbury quantities of the Z^v-step, M_v = (lam I + R_v R_v^T)^{-1} (diagonal when
    R_v R_v^T is). One wait for the device (the test for a diagonal K of every view).

    Returns
    -------
    DenseViews
    """
    xp = namespace(*factors)
    dev = device_of(factors[0])
    Rs = [xp.astype(R, xp.float64) for R in factors]
    Ks = [R @ R.T for R in Rs]
    sizes = [R.shape[0] for R in Rs]
    # per view: max |off-diagonal of K| and max |diag K|, to the host at once
    tests = []
    for K in Ks:
        k = xp.linalg.diagonal(K)
        tests += [xp.max(xp.abs(zero_diagonal(xp.asarray(K, copy=True), xp))), xp.max(xp.abs(k))]
    tests = to_numpy(xp.stack(tests))
    blocks = []
    for v, (K, r) in enumerate(zip(Ks, sizes)):
        off, kmax = float(tests[2 * v]), float(tests[2 * v + 1])
        if r > 1 and off <= _DIAGONAL_K * max(kmax, np.finfo(float).tiny):
            blocks.append(("diag", 1.0 / (xp.linalg.diagonal(K) + lam)))
        else:
            M = xp.linalg.inv(K + lam * xp.eye(r, dtype=xp.float64, device=dev))
            blocks.append(("full", (M + M.T) / 2.0))
    del Ks
    splits = np.cumsum([0] + sizes)
    r, n, m = int(splits[-1]), factors[0].shape[1], len(factors)
    R = xp.concat(Rs, axis=0) if m > 1 else Rs[0]
    del Rs
    membership = np.zeros((m, r))
    for v in range(m):
        membership[v, splits[v]:splits[v + 1]] = 1.0
    E = from_numpy(membership, xp, dev, xp.float64)
    M = None
    separate = sum(size * size for size in sizes)  # the flops of one product per view
    if r <= min(BLOCK_DIAGONAL_ROWS, n) and r * r <= BLOCK_DIAGONAL_WASTE * separate:
        M = xp.zeros((r, r), dtype=xp.float64, device=dev)
        for (kind, Mv), a, b in zip(blocks, splits[:-1], splits[1:]):
            eye = xp.eye(int(b - a), dtype=xp.float64, device=dev)
            M[int(a):int(b), int(a):int(b)] = eye * Mv[None, :] if kind == "diag" else Mv
        blocks = None
    views = DenseViews(R=R, MR=None, one_minus_h=None, E=E, M=M, blocks=blocks,
                       splits=splits, lam=float(lam))
    views.MR = views.apply_M(R)
    views.one_minus_h = 1.0 - views.view_sums(R * views.MR)
    return views


def zv_step_dense(views, T):
    """Z^v-step of every view at once (paper eq. update_z_v), the Woodbury form of
    :func:`._zv_step.zv_step`: Q0 = M T, D = diag(R^T Q0) / (1 - h), Q = Q0 + M R diag(D),
    for T = R (I - Z*) stacked over the views (Z^v = Zref - diag(D) + R^T Q).

    Returns
    -------
    Q : array of shape (r, n)
    """
    Q0 = views.apply_M(T)
    D = views.view_sums(views.R * Q0) / views.one_minus_h
    return Q0 + views.MR * views.per_row(D)


def losses_dense(views, Q, T):
    """Per-sample reconstruction and coupling losses of every view right after its
    Z^v-step, (m, n) each (:func:`._zv_step.sample_losses`): recon = lam^2 ||q_j||^2,
    coupling = q_j . (t_j - lam q_j), not yet clipped at 0 (:func:`moved_coupling` adds
    to it; the objective takes ``clip(coupling, min=0)``)."""
    lam = views.lam
    qq = views.view_sums(Q * Q)
    return lam * lam * qq, views.view_sums(Q * T) - lam * qq


def moved_coupling(views, Q, T, coupling, T_now, delta_sq):
    """The coupling losses of the Z^v of ``Q``, ``T`` once the consensus has moved since
    their Z^v-step (:func:`._zv_step.sample_losses`): ``coupling`` (of
    :func:`losses_dense`) + ||zref_j - z*_j||^2 + 2 q_j . (t_now_j - t_j), clipped at 0;
    ``delta_sq`` the second, float64."""
    xp = namespace(Q)
    moved = coupling + delta_sq[None, :] + 2.0 * views.view_sums((T_now - T) * Q)
    return xp.clip(moved, min=0.0)


def zstar_step_dense(Rcat, QW, Zref, tau, with_colmax=False):
    """Z*-step (paper eq. update_z_*): soft-thresholding of A = Zref + Rcat^T QW (zero
    diagonal) at tau_j per column, as :func:`._zstar_step.threshold_rows` does block by
    block, here in place on the n x n A (a block of rows at a time when n x n is over
    :data:`rmsc._array_api.BLOCK_ENTRIES`).

    Parameters
    ----------
    Rcat, QW : arrays of shape (sum_v r_v, n), in the working precision
        The stacked factors and the P-weighted Q of every view.
    Zref : array of shape (n, n) or None
        The consensus the Z^v were solved for (None: zero).
    tau : array of shape (n,)
        beta / (2 lam s_j).
    with_colmax : bool
        Also return max_i |A_ij| before thresholding.

    Returns
    -------
    Z : array of shape (n, n)
    colmax : array of shape (n,) or None
    delta_sq : array of shape (n,)
        ||zref_j - z_j||^2.
    """
    xp = namespace(Rcat)
    n = Rcat.shape[1]
    A = Rcat.T @ QW
    if Zref is not None:
        A += Zref
    A = zero_diagonal(A, xp)
    colmax = _colmax(A, xp) if with_colmax else None
    # sign(a) max(|a| - t, 0) = a - clip(a, -t, t), as on the NumPy path; ||zref_j - z_j||^2
    # by vector_norm: one pass over the difference (an n x n pass costs at large n)
    lo, hi = -tau[None, :], tau[None, :]
    blocks = row_blocks(n, n)
    if len(blocks) == 1:  # in place on A
        A -= xp.clip(A, min=lo, max=hi)
        diff = A if Zref is None else Zref - A
        return A, colmax, xp.linalg.vector_norm(diff, axis=0) ** 2
    # a block of rows at a time, so that the temporaries stay small beside the two n x n
    # arrays (a slice is not a view in every array-API library: the block is written back)
    delta_sq = xp.zeros((n,), dtype=A.dtype, device=device_of(A))
    for a, b in blocks:
        block = A[a:b, :]
        block = block - xp.clip(block, min=lo, max=hi)
        A[a:b, :] = block
        diff = block if Zref is None else Zref[a:b, :] - block
        delta_sq += xp.linalg.vector_norm(diff, axis=0) ** 2
    return A, colmax, delta_sq


def _colmax(A, xp):
    """max_i |A_ij| of every column j."""
    return xp.maximum(xp.max(A, axis=0), -xp.min(A, axis=0))


def _weighted_Q(views, Q, W, dtype):
    """QW: every view's rows of Q scaled column-wise by its weights W_v = P_v / s."""
    xp = namespace(Q)
    return xp.astype(Q * views.per_row(W), dtype, copy=False)


def _graphs(xp, device, n_samples, need):
    """:func:`rmsc._array_api.graph_capture` for a fit of ``n_samples`` that needs ``need``
    bytes with a captured iteration, or None: beyond :data:`GRAPH_MAX_SAMPLES`, or when
    that does not fit the device's free memory, every step is launched as it runs."""
    capture = graph_capture(xp, device)
    if capture is None or n_samples > GRAPH_MAX_SAMPLES:
        return None
    have = free_bytes(xp, device)
    return capture if have is None or need <= have else None


def _precision(precision, dtype, xp):
    if isinstance(precision, str) and precision == "auto":
        return dtype
    return {"float32": xp.float32, "float64": xp.float64}[str(np.dtype(precision))]


def _to_host(xp, values):
    """0-d float64 device arrays to one NumPy vector: one transfer, one wait."""
    return to_numpy(xp.stack([xp.astype(v, xp.float64, copy=False) for v in values]))


class DenseForm:
    """Algorithm 1's steps in dense form on the factors' device, for the one loop of
    :func:`rmsc.solver._algorithm._algorithm1` (beside ``FactorForm`` and ``KernelForm``).

    Everything that is the device's stays here: the memory check before the start
    (:func:`check_device_fits`), the working precision of the n x n arrays, and the
    transfers to the host (:meth:`fetch`: the iteration's values in one wait;
    :meth:`to_host`). The consensus is a dense n x n array; None is Z* = 0.

    Parameters
    ----------
    factors : list of arrays, each (r_v, n), one array-API namespace and device
    lam : float
    precision : "auto" or a NumPy float type
        Of the n x n arrays; "auto" takes the factors' dtype.
    """

    #: P is checked finite with the iteration's one transfer, not by the P-step (a check
    #: there would wait for the device).
    host = False

    def __init__(self, factors, lam, precision):
        xp = self.xp = namespace(*factors)
        self.device = device_of(factors[0])
        self.wdt = _precision(precision, factors[0].dtype, xp)
        n = factors[0].shape[1]
        need = check_device_fits(n, sum(R.shape[0] for R in factors), self.wdt, xp, self.device)
        self._capture = _graphs(xp, self.device, n, need + GRAPH_COPIES * n * n
                                * _itemsize(xp, self.wdt))
        self._warm = False
        self._replay = None
        self.views = factorize_dense(factors, lam)
        self.Rcat = xp.astype(self.views.R, self.wdt, copy=False)
        self.T_now = self.views.R  # Z* = 0: T = R
        self.zv_step()

    def zero(self):
        """Z* = 0 at the start."""
        return None

    def colmax_at_zero(self, W):
        """max_i |A_ij| of the Z*-step with weights W at Zref = 0, float64."""
        xp = self.xp
        A = self.Rcat.T @ _weighted_Q(self.views, self.Q, W / xp.sum(W, axis=0)[None, :],
                                      self.Rcat.dtype)
        return xp.astype(_colmax(zero_diagonal(A, xp), xp), xp.float64)

    def zstar_step(self, Zref, W, lam, beta, with_colmax):
        """:func:`zstar_step_dense` with the weights W (m, n); also R Z* for the steps after."""
        xp = self.xp
        s = xp.sum(W, axis=0)
        tau = xp.astype(beta / (2.0 * lam * s), self.wdt)
        Z, colmax, delta_sq = zstar_step_dense(
            self.Rcat, _weighted_Q(self.views, self.Q, W / s[None, :], self.wdt), Zref, tau,
            with_colmax=with_colmax)
        self.T_now = self.views.R - xp.astype(self.Rcat @ Z, xp.float64)
        if colmax is not None:
            colmax = xp.astype(colmax, xp.float64)
        return Z, colmax, xp.astype(delta_sq, xp.float64)

    def losses(self, delta_sq=None):
        """Per-sample losses of the current Z^v: against their Zref, or the new Z* (delta_sq)."""
        if delta_sq is None:
            return self.recon, self.xp.clip(self.base, min=0.0)
        return self.recon, moved_coupling(self.views, self.Q, self.T, self.base, self.T_now,
                                          delta_sq)

    def zv_step(self):
        self.T = self.T_now
        self.Q = zv_step_dense(self.views, self.T)
        self.recon, self.base = losses_dense(self.views, self.Q, self.T)

    def l1_norm(self, Z):
        """||Z*||_1, a 0-d float64 array on the device."""
        if Z is None:
            return self.xp.zeros((), dtype=self.xp.float64, device=self.device)
        return l1_norm_array(Z)

    def squared_norm(self, Z):
        return squared_norm_array(Z)

    #: The state an iteration reads and writes besides Z* and P: the Z^v's (T, Q), their
    #: losses and R (I - Z*) at the newest Z*.
    STATE = ("T", "Q", "recon", "base", "T_now")

    def iterate(self, step, Zstar, P, repeat):
        """``step(Zstar, P) -> (Zstar, P, losses, values)``, the loop's iteration.

        On a CUDA device (:func:`rmsc._array_api.graph_capture`) the repeated step is
        captured once as a graph and then replayed: one launch an iteration instead of
        ~80, which is most of an iteration's time at Digit's size (docs/device.md). The
        first iteration (Z* = 0, and beta_max's candidate) and the first repeated one run
        as launched, the second so that the libraries' lazy setup (cuBLAS's handles,
        kernels loaded) is done before the capture, which may not do it. The replayed
        graph runs the same kernels on the same arrays: the iterates are those of the
        launched steps (tested with a stand-in capture that reruns the step).
        """
        if not repeat or self._capture is None:
            return step(Zstar, P)
        if self._replay is None:
            if not self._warm:
                self._warm = True
                return step(Zstar, P)
            try:
                self._record(step, Zstar, P)
            except Exception as error:  # the library refused the capture: launch instead
                warnings.warn(f"The iteration could not be captured as a CUDA graph ({error}); "
                              "its steps are launched one by one instead (slower on small "
                              "data, the same iterates).", RuntimeWarning, stacklevel=2)
                self._capture = None
                for name, array in zip(self.STATE, self._static[2:]):
                    setattr(self, name, array)
                return step(self._static[0], self._static[1])
        self._replay()
        static = self._static
        for name, array in zip(self.STATE, static[2:]):
            setattr(self, name, array)
        # P is handed on (callback, solution) as a copy: the buffer changes at each replay
        return static[0], self.xp.asarray(static[1], copy=True), self._losses, self._values

    def _record(self, step, Zstar, P):
        """Capture ``step`` as one graph over buffers of its own: each replay reads the
        state from them and writes the next iteration's state back into them."""
        xp = self.xp
        static = [xp.asarray(a, copy=True)
                  for a in (Zstar, P, *(getattr(self, k) for k in self.STATE))]

        def body():
            for name, array in zip(self.STATE, static[2:]):
                setattr(self, name, array)
            Z, P_new, losses, values = step(static[0], static[1])
            values = xp.stack([xp.astype(v, xp.float64, copy=False) for v in values])
            new = [Z, P_new, *(getattr(self, k) for k in self.STATE)]
            for buffer, array in zip(static, new):
                buffer[...] = array
            self._losses, self._values = losses, values

        self._static = static
        self._replay = self._capture(body)

    def fetch(self, values):
        """0-d device arrays (or a replayed step's stacked vector) to one NumPy float64
        vector: one transfer, one wait."""
        if not isinstance(values, (list, tuple)):
            return to_numpy(values)
        return _to_host(self.xp, values)

    def to_host(self, x):
        return None if x is None else to_numpy(x)

    def consensus(self, Z):
        """Z* as the solution holds it: dense, on the device."""
        return Z


def squared_norm_array(Z):
    """||Z||_F^2 of a dense array on a device, as a 0-d float64 array there (a block of
    rows at a time, as :func:`rmsc.solver._objective.l1_norm_array`)."""
    xp = namespace(Z)
    total = None
    for a, b in row_blocks(*Z.shape):
        part = xp.astype(xp.linalg.vector_norm(Z[a:b, :]), xp.float64) ** 2
        total = part if total is None else total + part
    return total
