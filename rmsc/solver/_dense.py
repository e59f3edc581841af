"""Algorithm 1 in dense form, on the arrays' own device (torch, CuPy, array_api_strict).

:func:`rmsc.solver.solve` comes here when the factors are not NumPy arrays (scikit-learn's
array API convention: the inputs' namespace and device decide where the fit runs; see
docs/device.md). The steps are those of the factor form (:mod:`._factors`, :mod:`._zv_step`,
:mod:`._zstar_step`) with Z* held as a dense n x n array on the device, where one iteration
is two dense products (A = Zref + R^T QW and R Z*) and a few passes over n x n, all of which
an accelerator runs at its full rate. The P-step (:func:`._weights.p_step`), the objective
(:func:`._objective.terms_from_losses`) and the stopping rule (:func:`._algorithm.converged`)
are the same functions the NumPy path calls.

Precision: the n x n arrays (Z*, the Z*-step's products and thresholding) are in the
dtype of the factors (float32 input: float32, as the NumPy path's ``precision="float32"``;
float64: float64), or in ``precision`` when it names one. Everything of size r x n or less
(the Woodbury quantities, Q, T, D, the losses, P and the objective) is float64, as on the
NumPy path.

Memory (:func:`dense_form_bytes`): at most :data:`DENSE_COPIES` n x n arrays are alive at
once (Zref and A in the Z*-step, which thresholds in row blocks of :data:`BLOCK_ENTRIES`
entries; Z*, |Z*| and S in the affinity step after it), plus about
:data:`FACTOR_COPIES` float64 arrays of the factors' size. The fit
checks this against the device's free memory before it starts and refuses with the size it
would need (:func:`rmsc.device.check_device_fits`) rather than streaming column blocks:
streamed, every iteration would move an n x n array between host and device, slower than
the CPU path, which already streams and keeps Z* sparse when it is sparse.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._array_api import device_of, namespace, to_numpy, zero_diagonal
from ._algorithm import MAX_ITER, TOL, RMSCSolution, converged
from ._factors import _DIAGONAL_K
from ._objective import OBJECTIVE_TERMS, terms_from_losses
from ._weights import initial_weights, p_step

#: n x n arrays alive at once at the peak of a device fit (see the module docstring).
DENSE_COPIES = 3

#: Entries of the row blocks in which the Z*-step thresholds: its temporaries (at most
#: :data:`BLOCK_TEMPORARIES` such blocks at once) stay this small beside the n x n arrays.
BLOCK_ENTRIES = 2**24

#: Block-sized temporaries of the Z*-step alive at once (the clipped block, the new block,
#: its difference to Zref and that squared; array_api_strict's clip takes two more).
BLOCK_TEMPORARIES = 6

#: float64 arrays of the factors' size (sum_v r_v x n) alive at once: R, MR, Q, T and the
#: new T per view, the stacked R and QW in the working precision, R Z* in it and in float64,
#: the views themselves and their normalised copies.
FACTOR_COPIES = 12


def dense_form_bytes(n_samples, factor_rows, itemsize):
    """Device memory a dense-form fit needs: :data:`DENSE_COPIES` n x n arrays of
    ``itemsize`` bytes, the Z*-step's block temporaries, and :data:`FACTOR_COPIES`
    float64 arrays of ``factor_rows`` x n."""
    n = int(n_samples)
    block = BLOCK_TEMPORARIES * min(n * n, BLOCK_ENTRIES) * int(itemsize)
    return DENSE_COPIES * n * n * int(itemsize) + block + FACTOR_COPIES * int(factor_rows) * n * 8


@dataclass
class DenseView:
    """The constant Woodbury quantities of one view (as :class:`._factors.ViewFactor`),
    float64 arrays of the device's namespace.

    Attributes
    ----------
    R : array of shape (r, n)
    MR : array of shape (r, n)
        M R, M = (lam I + R R^T)^{-1}.
    one_minus_h : array of shape (n,)
        1 - diag(R^T M R).
    M : array of shape (r, r) or None
    m_diag : array of shape (r,) or None
        The diagonal of M when R R^T is diagonal (then M is not kept).
    lam : float
    """

    R: object
    MR: object
    one_minus_h: object
    M: object
    m_diag: object
    lam: float

    def apply_M(self, T):
        """M @ T, for T of shape (r, k)."""
        if self.m_diag is not None:
            return self.m_diag[:, None] * T
        return self.M @ T


@dataclass
class DenseRep:
    """Z^v held implicitly, as :class:`._zv_step.ViewRepresentation`: Z^v = Zref - diag(D) + R^T Q."""

    D: object
    Q: object
    T: object


def gram_factor_dense(X):
    """:func:`._factors.gram_factor` on the device: R with R^T R = X X^T, X (n, d).

    R = X^T (in X's dtype) when d <= n; else the eigen-factor of the n x n Gram matrix
    (float64), whose rows are orthogonal.
    """
    xp = namespace(X)
    n, d = X.shape
    if d <= n:
        return xp.asarray(X.T, copy=True)
    X64 = xp.astype(X, xp.float64)
    w, V = xp.linalg.eigh(X64 @ X64.T)
    keep = xp.nonzero(w > xp.max(w) * (n * float(np.finfo(np.float64).eps)))[0]
    R = (xp.take(V, keep, axis=1) * xp.sqrt(xp.take(w, keep))[None, :]).T
    return xp.astype(R, X.dtype)


def factorize_dense(R, lam):
    """:func:`._factors.factorize_view` on the device (float64): the Woodbury quantities of
    the Z^v-step, M = (lam I + R R^T)^{-1} (diagonal when R R^T is)."""
    xp = namespace(R)
    R = xp.astype(R, xp.float64)
    dev = device_of(R)
    K = R @ R.T
    r = K.shape[0]
    k = xp.linalg.diagonal(K)
    off = float(xp.max(xp.abs(zero_diagonal(xp.asarray(K, copy=True), xp)))) if r > 1 else 0.0
    if r > 1 and off <= _DIAGONAL_K * max(float(xp.max(xp.abs(k))), np.finfo(float).tiny):
        m = 1.0 / (k + lam)
        MR = m[:, None] * R
        return DenseView(R=R, MR=MR, one_minus_h=1.0 - xp.sum(R * MR, axis=0), M=None,
                         m_diag=m, lam=float(lam))
    M = xp.linalg.inv(K + lam * xp.eye(r, dtype=xp.float64, device=dev))
    M = (M + M.T) / 2.0
    MR = M @ R
    return DenseView(R=R, MR=MR, one_minus_h=1.0 - xp.sum(R * MR, axis=0), M=M, m_diag=None,
                     lam=float(lam))


def zv_step_dense(view, T):
    """Z^v-step (paper eq. update_z_v), Woodbury form of :func:`._zv_step.zv_step`:
    Q0 = M T, D = diag(R^T Q0) / (1 - h), Q = Q0 + M R diag(D); T = R (I - Z*)."""
    xp = namespace(T)
    Q0 = view.apply_M(T)
    D = xp.sum(view.R * Q0, axis=0) / view.one_minus_h
    return DenseRep(D=D, Q=Q0 + view.MR * D[None, :], T=T)


def losses_dense(view, rep, T_now=None, delta_sq=None):
    """Per-sample reconstruction and coupling losses of one view (:func:`._zv_step.sample_losses`):
    recon = lam^2 ||q_j||^2, coupling = q_j . (t_j - lam q_j), and for a consensus that has
    moved since the Z^v-step, + ||zref_j - z*_j||^2 + 2 q_j . (t_now_j - t_j)."""
    xp = namespace(rep.Q)
    lam, Q = view.lam, rep.Q
    qq = xp.sum(Q * Q, axis=0)
    recon = lam * lam * qq
    coupling = xp.sum(Q * rep.T, axis=0) - lam * qq
    if T_now is not None:
        coupling = coupling + delta_sq + 2.0 * xp.sum((T_now - rep.T) * Q, axis=0)
    return recon, xp.maximum(coupling, 0.0)


def zstar_step_dense(Rcat, QW, Zref, tau, with_colmax=False):
    """Z*-step (paper eq. update_z_*): soft-thresholding of A = Zref + Rcat^T QW (zero
    diagonal) at tau_j per column, as :func:`._zstar_step.threshold_rows` does block by
    block, here in one n x n pass.

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
    colmax = xp.maximum(xp.max(A, axis=0), -xp.min(A, axis=0)) if with_colmax else None
    # sign(a) max(|a| - t, 0) = a - clip(a, -t, t), as on the NumPy path; a block of rows
    # at a time, so that the temporaries stay small beside the two n x n arrays
    lo, hi = -tau[None, :], tau[None, :]
    delta_sq = xp.zeros((n,), dtype=A.dtype, device=device_of(A))
    rows = max(1, BLOCK_ENTRIES // n)
    for a in range(0, n, rows):
        b = min(a + rows, n)
        block = A[a:b, :]
        block = block - xp.clip(block, min=lo, max=hi)
        A[a:b, :] = block
        diff = block if Zref is None else Zref[a:b, :] - block
        delta_sq += xp.sum(diff * diff, axis=0)
    return A, colmax, delta_sq


def emptying_betas_dense(Rcat, reps, lam, P):
    """Per sample j, 2 lam sum_v P_vj max_i |A_ij| at Zref = 0 (:func:`._algorithm.column_betas`)."""
    xp = namespace(P)
    s = xp.sum(P, axis=0)
    A = Rcat.T @ _weighted_Q(reps, P / s[None, :], Rcat.dtype)
    A = zero_diagonal(A, xp)
    colmax = xp.astype(xp.maximum(xp.max(A, axis=0), -xp.min(A, axis=0)), xp.float64)
    del A
    return 2.0 * lam * s * colmax


def _weighted_Q(reps, W, dtype):
    """QW: every view's Q scaled column-wise by its weights W_v = P_v / s, stacked."""
    xp = namespace(W)
    return xp.astype(xp.concat([rep.Q * W[v:v + 1, :] for v, rep in enumerate(reps)],
                               axis=0), dtype)


def _precision(precision, dtype, xp):
    if isinstance(precision, str) and precision == "auto":
        return dtype
    return {"float32": xp.float32, "float64": xp.float64}[str(np.dtype(precision))]


def dense_solve(factors, lam, beta, gamma, *, weighting="sample", max_iter=MAX_ITER, tol=TOL,
                callback=None, with_beta_max=False, precision="auto"):
    """Block coordinate descent of Algorithm 1 in dense form on the factors' device.

    Parameters and initialisation as :func:`rmsc.solver.solve` (which calls this for
    factors that are not NumPy arrays; ``block_size`` and ``runner`` do not apply here).

    Parameters
    ----------
    factors : list of arrays, each (r_v, n), one array-API namespace and device
    lam, gamma : float
    beta : float or callable
    weighting : {"sample", "view"}
    max_iter : int
    tol : float
    callback : callable(iteration, objective, weights) -> bool or None
        ``weights`` is P on the device.
    with_beta_max : bool
    precision : {"auto", "float32", "float64"}
        Of the n x n arrays; "auto" takes the factors' dtype.

    Returns
    -------
    rmsc.solver.RMSCSolution
        ``Zstar`` (dense n x n, working precision) and ``P`` on the device;
        ``objective``, ``terms`` and ``column_betas`` NumPy arrays.
    """
    from ..device import check_device_fits

    xp = namespace(*factors)
    wdt = _precision(precision, factors[0].dtype, xp)
    n = factors[0].shape[1]
    check_device_fits(n, sum(R.shape[0] for R in factors), wdt, xp, device_of(factors[0]))
    views = [factorize_dense(R, lam) for R in factors]
    splits = np.cumsum([0] + [v.R.shape[0] for v in views])
    Rcat = xp.astype(xp.concat([v.R for v in views], axis=0), wdt)
    reps = [zv_step_dense(v, v.R) for v in views]  # Z* = 0: T = R

    def losses(T_now=None, delta_sq=None):
        pairs = [losses_dense(v, rep) if T_now is None else
                 losses_dense(v, rep, T_now[i], delta_sq)
                 for i, (v, rep) in enumerate(zip(views, reps))]
        return xp.stack([p[0] for p in pairs]), xp.stack([p[1] for p in pairs])

    recon, coupling = losses()
    P = initial_weights(recon + lam * coupling, gamma, weighting)
    b_max = cbetas = None
    if with_beta_max or callable(beta):
        P1 = p_step(recon + lam * coupling, gamma, weighting)
        cbetas = to_numpy(emptying_betas_dense(Rcat, reps, lam, P1))
        b_max = float(np.max(cbetas))
    if callable(beta):
        beta = float(beta(cbetas))
        if not (np.isfinite(beta) and beta >= 0):
            raise ValueError(f"The beta rule gave {beta!r}; it must give a finite beta >= 0.")
    zero = sp.csc_matrix((n, n))  # Z* = 0 at the start, as on the NumPy path
    f_prev = sum(terms_from_losses(recon, coupling, lam, P, zero, beta, gamma,
                                   weighting).values())
    f_init = f_prev
    history = {k: [] for k in OBJECTIVE_TERMS}
    objective = []
    done = False
    Zstar = None
    for it in range(1, max_iter + 1):
        # Z*-step (eq. update_z_*); the first one also gives beta_max's first candidate
        first = with_beta_max and it == 1
        s = xp.sum(P, axis=0)
        tau = xp.astype(beta / (2.0 * lam * s), wdt)
        Zstar, colmax, delta_sq = zstar_step_dense(Rcat, _weighted_Q(reps, P / s[None, :], wdt),
                                                   Zstar, tau, with_colmax=first)
        if first:
            b_max = max(b_max, float(xp.max(2.0 * lam * s * xp.astype(colmax, xp.float64))))
        RZ = xp.astype(Rcat @ Zstar, xp.float64)
        T_now = [v.R - RZ[int(a):int(b), :] for v, a, b in zip(views, splits[:-1], splits[1:])]
        del RZ
        # P-step (eq. update_p), with the Z^v of the previous iteration
        recon, coupling = losses(T_now, xp.astype(delta_sq, xp.float64))
        P = p_step(recon + lam * coupling, gamma, weighting)
        # Z^v-steps (eq. update_z_v)
        reps = [zv_step_dense(v, T) for v, T in zip(views, T_now)]
        recon, coupling = losses()
        terms = terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma, weighting)
        f = sum(terms.values())
        for k in OBJECTIVE_TERMS:
            history[k].append(terms[k])
        objective.append(f)
        stop = bool(callback(it, f, P)) if callback is not None else False
        if converged(f_prev, f, tol):
            done = True
            break
        f_prev = f
        if stop:
            break
    return RMSCSolution(
        Zstar=Zstar,
        P=P,
        objective=np.asarray(objective),
        terms={k: np.asarray(v) for k, v in history.items()},
        objective_init=float(f_init),
        n_iter=len(objective),
        converged=done,
        beta_max=b_max,
        beta=float(beta),
        column_betas=cbetas,
    )
