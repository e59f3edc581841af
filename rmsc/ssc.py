"""Sparse subspace clustering (Elhamifar & Vidal, TPAMI 2013) and its multi-view baselines.

SSC per view solves the problem the RMSC paper writes as eq. (naive_ssc)::

    min_Z ||X - X Z||_F^2 + beta ||Z||_1   s.t. diag(Z) = 0

by ADMM on the split Z = C (scaled form, penalty rho ||Z - C + U||^2):

* Z-step: min ||X - XZ||^2 + rho ||Z - (C - U)||^2, diag(Z) = 0 — exactly
  RMSC's Z^v-step with lam = rho and Z* = C - U (:func:`rmsc.solver.zv_step`);
* C-step: C = S_{beta / (2 rho)}(Z + U), entry-wise soft-thresholding;
* U-step: U += Z - C.

U is kept as a sparse part plus R^T Q_U (Z = V - diag(D) + R^T Q from the
Z-step makes it so), so an iteration costs one dense (n x d)(d x n) product,
done a column block at a time (see :func:`ssc_admm` for what else was cut).
On Digit every view stops at ``max_iter``, and SSC-AVG's scores belong to that
200th iterate, not to the lasso's optimum, whose scores are lower
(docs/measurements.md, "SSC's ADMM"). A faster solver of the same problem
(an exact active-set one, say) would give the optimum's scores, so a much
faster SSC with the same scores is out of reach while the scores are those of
a truncated ADMM. rho is adapted by residual balancing (Boyd et
al. 2011, Sec. 3.4.1). Stops when the primal and dual residuals are at most
``tol * max(1, ||C||_F)``, or after ``max_iter`` (200, as the SSC-ADMM
reference) iterations; ``n_iter_`` and ``converged_`` say which.

The default ``beta="auto"`` follows the SSC reference's rule for its weight
(lambda = alpha / mu in min lambda/2 ||X - XZ||^2 + ||Z||_1, where
mu = min_j max_{i != j} |x_i^T x_j| is the data's coherence, taken over the
non-empty samples j): in the form above that is beta = 2 mu / alpha, computed per
view (:func:`auto_beta`). alpha is the estimators' ``alpha`` parameter
(default :data:`SSC_ALPHA` = 20, the reference's); being relative to the data's
coherence, it is the unit that carries from one dataset to another. Every fit
reports both forms per view, ``betas_`` and ``alphas_`` (:func:`beta_and_alpha`).
SSC-BSV clusters every view with SSC and reports the views; SSC-AVG clusters
the average of the views' affinities (paper, Section 5.2).

Why one module (~690 lines): SSC's ADMM (:func:`ssc_admm`, ``_admm`` and its
sparse + low-rank bookkeeping) and the three SSC estimators are one algorithm
and its front ends. DiMSC continues this ADMM's state and imports its private
pieces, and :class:`rmsc.experiments.SharedSolves` memoises ``ssc_admm`` through
this module's attribute; a split would separate the ADMM from the code that
reads its state.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state

from . import solver
from .backends import LocalBlocks, one_thread_per_call
from ._validation import (
    FLAG,
    KEEP_MASS,
    N_CLUSTERS,
    NON_NEGATIVE,
    POSITIVE_INT,
    TOP_K,
    VIEW,
    Interval,
    Options,
    Param,
    check_estimator,
    check_n_clusters,
    check_views,
)
from .preprocessing import normalize_l2
from .spectral import (
    N_KMEANS_RUNS,
    affinity_from_coefficients,
    eigengap,
    kmeans_runs,
    spectral_clustering,
    spectral_embedding,
)


#: alpha of the SSC reference's rule lambda = alpha / mu (its default).
SSC_ALPHA = 20.0


#: A non-empty sample whose largest |inner product| with another sample is at most this
#: fraction of the largest squared norm shares no feature with any other: in exact
#: arithmetic that product is 0, in the Gram factor it is round-off (~1e-16).
ISOLATED_RTOL = 1e-9


def coherence(R, block_size=None):
    """mu = min_j max_{i != j} |x_i^T x_j| over the samples that can be represented.

    That is the SSC reference's coherence, taken over the samples j that are neither
    empty nor isolated. An all-zero sample (e.g. an empty document) has no inner
    product with any other sample, and neither has a sample that shares no feature
    with any other (a document whose words no other document uses): no beta > 0
    gives such a sample a representation (column j of Z is zero once beta >=
    2 max_i |x_i^T x_j| = 0), so it says nothing about the scale of beta. Counted,
    it makes mu zero, or, as the factor holds it, round-off (~1e-16) that turns
    ``auto_beta`` into ~1e-17: no sparsity at all. Elhamifar & Vidal's rule is about
    the samples to be represented, so both kinds are left out: a sample is empty when
    its squared norm is at most ``n * eps`` times the largest one (the rank cut of
    :func:`rmsc.solver.gram_factor`), isolated when its largest |inner product| with
    another sample is at most :data:`ISOLATED_RTOL` times that. The SSC estimators
    warn when a view has isolated samples (:func:`beta_and_alpha`).

    Parameters
    ----------
    R : ndarray of shape (r, n_samples)
        Data factor with R^T R = X^T X (see :func:`rmsc.solver.gram_factor`).
    block_size : int or None
        Columns of the Gram matrix formed at a time.

    Returns
    -------
    float
        For every sample that can be represented, the largest |inner product| with
        another sample; the smallest of those. For unit-norm samples it lies in
        [0, 1]. 0.0 when no sample can be represented.
    """
    return _coherence(R, block_size)[0]


def _coherence(R, block_size=None):
    """(mu, samples that can be represented, isolated samples): see :func:`coherence`."""
    n = R.shape[1]
    b = solver.block_columns(n, block_size)
    best = np.empty(n)
    RT = np.ascontiguousarray(R.T)
    for start in range(0, n, b):
        stop = min(start + b, n)
        G = np.abs(RT @ R[:, start:stop])
        G[np.arange(start, stop), np.arange(stop - start)] = 0.0
        best[start:stop] = G.max(axis=0)
    sq = np.einsum("ij,ij->j", R, R)
    top = sq.max() if n else 0.0
    nonempty = sq > n * np.finfo(float).eps * top
    linked = nonempty & (best > ISOLATED_RTOL * top)
    mu = float(best[linked].min()) if linked.any() else 0.0
    return mu, int(linked.sum()), int((nonempty & ~linked).sum())


#: SSC's beta: a positive number, or the SSC reference's rule.
BETA = Param(Options(["auto"]), Interval(numbers.Real, 0, closed="neither"),
             what="positive (with beta = 0 nothing makes the representation sparse; typical "
                  "values are 1e-3 to 1e-1 on unit-norm data) or 'auto' (the SSC reference's "
                  "rule beta = 2 mu / alpha per view; set alpha to move it)",
             type_what="a positive number or 'auto' (the SSC reference's rule beta = 2 mu / "
                       "alpha per view; set alpha to move it)")

#: Elhamifar & Vidal's alpha. alpha <= 1 means beta >= 2 mu, and the column of the sample
#: whose largest |inner product| is mu is then empty (see :func:`auto_beta`). It plays a
#: part with beta="auto" only.
ALPHA = Param(Interval(numbers.Real, 1, closed="neither"),
              what="a finite number > 1 (Elhamifar & Vidal's alpha: beta = 2 mu / alpha per "
                   "view, mu the view's coherence)",
              hint="With alpha <= 1 at least one sample gets no representation (an empty "
                   "column of Z), and larger alpha makes Z denser; their default is "
                   f"{SSC_ALPHA:g}.", only_with=("beta", "auto"),
              role="sets beta = 2 mu / alpha on each view")


def check_alpha(alpha):
    """Raise unless ``alpha`` is a finite real number > 1 (:data:`ALPHA`); return it as float."""
    return float(ALPHA.check("alpha", alpha))


def _two_mu_over(mu, value):
    """2 mu / value: beta from alpha, and alpha from beta (the map is its own inverse)."""
    return 2.0 * mu / value


def beta_and_alpha(R, beta="auto", alpha=SSC_ALPHA, *, view=None):
    """One view's weight in both forms: ``(beta, alpha)`` with beta = 2 mu / alpha.

    Parameters
    ----------
    R : ndarray of shape (r, n_samples)
        Data factor with R^T R = X^T X (see :func:`rmsc.solver.gram_factor`).
    beta : float > 0 or "auto"
        ``"auto"``: beta = 2 mu / alpha, mu = :func:`coherence` (R). A number:
        it is kept, and ``alpha`` is ignored.
    alpha : float > 1
    view : int or None
        The view's index, for messages.

    Returns
    -------
    beta : float
    alpha : float
        ``alpha`` itself for ``"auto"``; for a numeric beta the alpha it
        corresponds to on this view, 2 mu / beta (0.0 when mu = 0, i.e. no
        sample has a nonzero inner product with another: then any beta empties
        Z and the SSC estimators refuse the view).

    Raises
    ------
    ValueError
        ``beta="auto"`` on a view where no sample shares a feature with another.

    Warns
    -----
    UserWarning
        ``beta="auto"`` on a view where some samples share no feature with any other:
        the reference's coherence would be 0 there (beta ~0, no sparsity); mu is
        taken over the other samples instead (:func:`coherence`).
    """
    mu, linked, isolated = _coherence(R)
    if not isinstance(beta, str):
        return float(beta), _two_mu_over(mu, beta)
    which = "this view" if view is None else f"view {view}"
    if mu <= 0:
        raise ValueError(
            f"No sample of {which} shares a feature with any other sample (each is "
            "orthogonal to every other, or the view is all zero), so no sample can be "
            "represented by the others and SSC has nothing to find there; drop the view."
        )
    beta = _two_mu_over(mu, alpha)
    if isolated:
        warnings.warn(
            f"{isolated} of the {isolated + linked} non-empty samples of {which} share no "
            "feature with any other sample, so the SSC reference's coherence (the smallest "
            "of every sample's largest inner product with another) is 0 there and its "
            "beta = 2 mu / alpha would be ~0: no sparsity at all. beta='auto' uses the "
            f"coherence of the other {linked} samples instead (mu = {mu:.3g}, "
            f"beta = {beta:.3g}). Those {isolated} samples cannot be represented at any "
            f"beta and stay unlinked in this view's affinity. Pass beta=<number> to choose "
            "beta yourself; if most samples are like this, drop the view.",
            UserWarning, stacklevel=2)
    return beta, float(alpha)


def auto_beta(R, alpha=SSC_ALPHA):
    """beta = 2 mu / alpha: the SSC reference's weight (lambda = alpha / mu) in this form.

    In min lambda/2 ||X - XZ||^2 + ||Z||_1, dividing by lambda/2 gives
    ||X - XZ||^2 + (2 / lambda) ||Z||_1, so beta = 2 / lambda = 2 mu / alpha.
    Column j of Z is zero exactly when beta >= 2 max_{i != j} |x_i^T x_j| (the
    lasso's optimality condition at Z_j = 0), so alpha > 1 gives every
    non-empty sample a representation, alpha <= 1 leaves at least the sample
    attaining mu without one, and every column is zero once alpha <= mu / M,
    M the largest |x_i^T x_j|, i != j (Elhamifar & Vidal take alpha > 1).
    """
    return beta_and_alpha(R, "auto", alpha)[0]


#: Precision of the C-step's products (R^T Q and R C): ``"auto"`` is float32 (half
#: their time) when ``tol`` is at least :data:`FLOAT32_MIN_TOL`, else float64, since
#: float32 round-off (~1e-7 relative) keeps the residuals from reaching a tighter tol.
#: The effect on Digit's objective and scores: ``docs/studies/bench_baselines.py``.
PRECISION = "auto"

#: Smallest ``tol`` run with float32 products under ``precision="auto"``.
FLOAT32_MIN_TOL = 1e-5


def precision_dtype(precision, tol):
    """The dtype of the ADMM's fused products: ``precision`` (None: :data:`PRECISION`),
    with ``"auto"`` float32 when ``tol >= FLOAT32_MIN_TOL``, else float64."""
    precision = PRECISION if precision is None else precision
    if precision == "auto":
        precision = "float32" if tol >= FLOAT32_MIN_TOL else "float64"
    if precision not in ("float32", "float64"):
        raise ValueError(f"precision must be 'auto', 'float32' or 'float64'; got {precision!r}.")
    return np.dtype(precision)


def ssc_admm(R, beta, *, rho=1.0, max_iter=200, tol=1e-4, block_size=None, check_every=5,
             precision=None, return_dual=False):
    """Solve single-view SSC by ADMM.

    Parameters
    ----------
    R : ndarray of shape (r, n_samples)
        Data factor with R^T R = X^T X (see :func:`rmsc.solver.gram_factor`).
    beta : float > 0
    rho : float, default=1.0
        Initial ADMM penalty (about the scale the SSC-ADMM reference uses on
        unit-norm data); adapted by residual balancing.
    max_iter : int
    tol : float
        Stop when the primal ||Z - C||_F and dual 2 rho ||C - C_prev||_F
        residuals are both at most ``tol * max(1, ||C||_F)``.
    block_size : int or None
    check_every : int
        Residuals are computed (and rho adapted) every this many iterations.
    precision : {"auto", "float32", "float64"} or None
        Of the C-step's two dense products (R^T Q and R C) and of C while it is
        thresholded; everything else, the Z-step included, is float64. None:
        :data:`PRECISION`; ``"auto"``: float32 when ``tol >= FLOAT32_MIN_TOL``.
    return_dual : bool
        Also return the final scaled dual U = S + R^T Q_U as ``info["dual"] =
        (S, Q_U)``, S sparse (or dense once C is), Q_U of shape (r, n): DiMSC
        continues this ADMM from there (:func:`rmsc.dimsc.diversity_subproblem`).

    Returns
    -------
    C : scipy.sparse.csc_matrix of shape (n_samples, n_samples)
        Zero diagonal.
    info : dict
        ``n_iter``, ``converged``, ``rho``, ``objective`` (||X - XC||^2 +
        beta ||C||_1 per iteration), ``primal``, ``dual`` (residuals where checked).

    Notes
    -----
    Cost per iteration (profiled with cProfile on Digit): one dense
    (n x r)(r x n) product for Z + U, thresholded a column block at a time,
    and R C from the same pass; R U is tracked as an r x n array (U's sparse
    part is C_prev - C - diag(D), so R U needs no product of its own), and C
    is held dense once it is denser than
    :data:`rmsc.solver.DENSE_ZSTAR_DENSITY` (Digit's 6-feature view ends 40 %
    dense, where CSC bookkeeping cost 20 times the arithmetic).
    """
    dtype = precision_dtype(precision, tol)
    with LocalBlocks() as runner:
        return _admm(R, beta, rho, max_iter, tol, block_size, check_every, runner, dtype,
                     return_dual)


class _SparsePart:
    """U's sparse part, s (A - B - diag(D)), formed only when a residual needs it."""

    def __init__(self, A, B, D, scale=1.0):
        self.A, self.B, self.D, self.scale = A, B, D, scale

    def minus(self, other):
        """self - other, as a sparse matrix or a dense array."""
        parts = [(self.scale, self.A), (-self.scale, self.B)]
        if other is not None:
            parts += [(-other.scale, other.A), (other.scale, other.B)]
        dense = any(not sp.issparse(M) for _, M in parts)
        n = self.A.shape[0]
        out = np.zeros((n, n)) if dense else sp.csr_matrix((n, n))
        for c, M in parts:
            if dense:
                out += c * (M.toarray() if sp.issparse(M) else M)
            else:
                out = out + c * M
        diag = -self.scale * self.D + (other.scale * other.D if other is not None else 0.0)
        if dense:
            out[np.diag_indices(n)] += diag
            return out
        return (out + sp.diags(diag)).tocsr()


def _admm(R, beta, rho, max_iter, tol, block_size, check_every, runner, dtype, return_dual=False):
    n = R.shape[1]
    rho = float(rho)
    view = solver.factorize_view(R, rho)
    Rp = R.astype(dtype, copy=False)
    RTp = np.ascontiguousarray(Rp.T)
    shared = runner.share(solver.StackedFactors(R=Rp, RT=RTp, splits=np.array([], dtype=int)))
    C = sp.csc_matrix((n, n))
    RC = np.zeros_like(R)
    S, RS = None, np.zeros_like(R)  # U = S + R^T QU, RS = R S
    QU = np.zeros_like(R)
    KQU = np.zeros_like(R)  # K QU
    hist = {"objective": [], "primal": [], "dual": []}
    converged = False
    for it in range(1, max_iter + 1):
        # Z-step with V = C - U: T = R (I - V) = R - R C + R S + K QU.
        T = R - RC + RS + KQU
        rep = solver.zv_step(view, T)
        # K Q without a product: K M = I - rho M, so K Q = T + R diag(D) - rho Q.
        KQ = T + R * rep.D[None, :] - rho * rep.Q
        # C-step: Z + U = C_prev - diag(D) + R^T Q, soft-thresholded off the diagonal.
        C_prev, RC_prev = C, RC
        out = solver.threshold_columns(
            Rp, rep.Q.astype(dtype, copy=False), C_prev, np.full(n, beta / (2.0 * rho), dtype=dtype),
            block_size=block_size, runner=runner, shared=shared, dense=solver.keep_dense(C_prev))
        C = out.Z
        RC = np.asarray(out.RZ, dtype=np.float64)
        # U-step: U_new = U + Z - C = (C_prev - C - diag(D)) + R^T Q.
        S_new = _SparsePart(C_prev, C, rep.D)
        RS_new = RC_prev - RC - R * rep.D[None, :]
        resid = R - RC
        l1 = np.abs(C.data).sum() if sp.issparse(C) else np.abs(C).sum()
        hist["objective"].append(float(np.sum(resid * resid) + beta * l1))
        check = it % check_every == 0 or it == max_iter
        if check:
            # Primal residual Z - C = U_new - U_old, dual 2 rho (C - C_prev).
            primal = _sparse_plus_lowrank_norm(S_new.minus(S), RS_new - RS, rep.Q - QU,
                                               KQ - KQU)
            dual = 2.0 * rho * _fro(C - C_prev)
            scale = max(1.0, _fro(C))
            hist["primal"].append(float(primal))
            hist["dual"].append(float(dual))
        S, RS, QU, KQU = S_new, RS_new, rep.Q, KQ
        if not check:
            continue
        if primal <= tol * scale and dual <= tol * scale:
            converged = True
            break
        # Residual balancing; the scaled dual U = Y / (2 rho) is rescaled with rho.
        factor = residual_balancing(primal, dual)
        if factor != 1.0:
            rho *= factor
            S.scale /= factor
            RS = RS / factor
            QU = QU / factor
            KQU = KQU / factor
            view = solver.factorize_view(R, rho)
    C = solver.to_csc(C)
    info = {"n_iter": it, "converged": converged, "rho": rho, **hist}
    if return_dual:
        info["dual"] = (S.minus(None), QU)
    return C, info


def _fro(A):
    """Frobenius norm of a sparse matrix or a dense array."""
    if sp.issparse(A):
        return float(np.sqrt(A.multiply(A).sum())) if A.nnz else 0.0
    return float(np.linalg.norm(A))


def residual_balancing(primal, dual, mu=10.0, tau=2.0):
    """The factor rho is multiplied by (Boyd et al. 2011, Sec. 3.4.1): tau when the
    primal residual exceeds mu times the dual, 1/tau in the opposite case, else 1."""
    return tau if primal > mu * dual else 1.0 / tau if dual > mu * primal else 1.0


def _sparse_plus_lowrank_norm(S, RS, Q, KQ):
    """||S + R^T Q||_F for S (n x n, sparse or dense) with RS = R S, dense Q (r x n), KQ = K Q."""
    sq = _fro(S) ** 2 + 2.0 * float(np.einsum("ij,ij->", RS, Q))
    sq += float(np.einsum("ij,ij->", Q, KQ))
    return float(np.sqrt(max(sq, 0.0)))


class _SSCParams:
    """Parameters and checks shared by the SSC estimators."""

    #: Every parameter's rule, declared once (:func:`rmsc._validation.check_estimator`).
    _parameter_constraints = {
        "n_clusters": N_CLUSTERS, "beta": BETA, "alpha": ALPHA, "normalize": FLAG,
        "max_iter": POSITIVE_INT, "tol": NON_NEGATIVE, "keep_mass": KEEP_MASS, "top_k": TOP_K,
        "scale_columns": FLAG, "n_init": POSITIVE_INT,
    }

    def __init__(self, n_clusters=8, *, beta="auto", alpha=SSC_ALPHA, normalize=True,
                 max_iter=200, tol=1e-4, keep_mass=None, top_k=None, scale_columns=False,
                 n_init=N_KMEANS_RUNS, random_state=None):
        self.n_clusters = n_clusters
        self.beta = beta
        self.alpha = alpha
        self.normalize = normalize
        self.max_iter = max_iter
        self.tol = tol
        self.keep_mass = keep_mass
        self.top_k = top_k
        self.scale_columns = scale_columns
        self.n_init = n_init
        self.random_state = random_state


    def _prepare(self, Xs):
        views = check_views(Xs)
        check_estimator(self)  # alpha too, though a numeric beta ignores it
        n = views[0].shape[0]
        check_n_clusters(self.n_clusters, n)
        beta = "auto" if self.beta == "auto" else float(self.beta)
        alpha = float(self.alpha)
        if self.normalize:
            views = [normalize_l2(X, view=v) for v, X in enumerate(views)]
        return views, beta, alpha

    def _ssc_view(self, X, beta, alpha, v):
        R = solver.gram_factor(X)
        beta, alpha = beta_and_alpha(R, beta, alpha, view=v)
        C, info = ssc_admm(R, beta, max_iter=self.max_iter, tol=self.tol)
        info["beta"], info["alpha"] = beta, alpha
        if C.nnz == 0:
            if not info["converged"]:
                raise ValueError(
                    f"The SSC representation of view {v} is still all zero after "
                    f"max_iter={self.max_iter} ADMM iterations (beta={beta:g}): its "
                    "residuals had not reached tol. Raise max_iter or lower beta."
                )
            raise ValueError(
                f"beta={beta:g} makes the SSC representation of view {v} all zero; "
                "lower beta."
            )
        return C.tocsr(), info

    def _affinity(self, C):
        return affinity_from_coefficients(C, keep_mass=self.keep_mass, top_k=self.top_k,
                                          scale_columns=self.scale_columns)


_SSC_PARAMS_DOC = """
    n_clusters : int, default=8
    beta : float or "auto", default="auto"
        Weight of ||Z||_1 (paper eq. naive_ssc). ``"auto"``: per view, the SSC
        reference's rule beta = 2 mu / alpha, mu the view's coherence
        (:func:`rmsc.ssc.auto_beta`; at alpha = 20, 0.05 to 0.1 on the
        unit-norm Digit views). The values used are in ``betas_``.
    alpha : float > 1, default=20
        Elhamifar & Vidal's alpha (their lambda = alpha / mu,
        :data:`rmsc.ssc.SSC_ALPHA`), used by ``beta="auto"``: relative to each
        view's coherence, so a setting that carries between datasets. Larger
        alpha, smaller beta, denser Z; alpha <= 1 would leave samples without
        a representation and is refused. Ignored (but still checked) when
        ``beta`` is a number; ``alphas_`` then reports the alpha that beta
        amounts to on each view.
    normalize : bool, default=True
        Unit L2 norm per sample and view (the paper's preprocessing).
    max_iter : int, default=200
        ADMM iterations at most.
    tol : float, default=1e-4
        ADMM stopping tolerance (relative primal and dual residuals).
    keep_mass : float in (0, 1] or None, default=None
        Elhamifar & Vidal's rho (their code's ``thrC``; not the ADMM penalty
        ``rho`` of :func:`ssc_admm`): per column keep the largest coefficients
        until their absolute sum reaches this share of the column's l1 norm.
    top_k : int or None, default=None
    scale_columns : bool, default=False
        Affinity post-processing (keep_mass, then top_k, then scale_columns),
        see :func:`rmsc.spectral.affinity_from_coefficients`.
    n_init : int, default=20
        k-means restarts (the paper's protocol).
    random_state : int, RandomState instance or None
"""


class SSC(_SSCParams, ClusterMixin, BaseEstimator):
    __doc__ = (
        "Sparse subspace clustering of one view.\n\n    ``fit`` takes ``Xs`` with exactly one "
        "view (``[X]``) or a single array ``X``.\n\n    Parameters\n    ----------"
        + _SSC_PARAMS_DOC
        + """
    Attributes
    ----------
    coef_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    betas_ : ndarray of shape (1,)
        The beta used (resolved when ``beta="auto"``).
    alphas_ : ndarray of shape (1,)
        The same weight as an alpha: ``alpha`` for ``beta="auto"``, else
        2 mu / beta (see :func:`rmsc.ssc.beta_and_alpha`).
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    labels_ : ndarray of shape (n_samples,)
    label_runs_ : ndarray of shape (n_init, n_samples)
    n_iter_ : int
    converged_ : bool
    objective_ : ndarray of shape (n_iter_,)
"""
    )

    @one_thread_per_call
    def fit(self, Xs, y=None):
        if isinstance(Xs, np.ndarray) or sp.issparse(Xs):
            Xs = [Xs]
        views, beta, alpha = self._prepare(Xs)
        if len(views) != 1:
            raise ValueError(
                f"SSC clusters one view; got {len(views)}. Use SSC-BSV or SSC-AVG for several."
            )
        self.coef_, info = self._ssc_view(views[0], beta, alpha, 0)
        self.betas_ = np.array([info["beta"]])
        self.alphas_ = np.array([info["alpha"]])
        self.n_iter_, self.converged_ = info["n_iter"], info["converged"]
        self.objective_ = np.asarray(info["objective"])
        self.affinity_matrix_ = self._affinity(self.coef_)
        runs, self.embedding_ = spectral_clustering(
            self.affinity_matrix_, self.n_clusters, n_runs=self.n_init,
            random_state=check_random_state(self.random_state),
        )
        self.labels_, self.label_runs_ = runs.labels, runs.runs
        return self


class SSCBSV(_SSCParams, ClusterMixin, BaseEstimator):
    __doc__ = (
        "SSC-BSV: SSC on every view separately (the paper's best single view).\n\n"
        "    Every view is clustered; ``view_label_runs_`` holds all of them. The paper\n"
        "    reports the best view, which can only be chosen with the true labels\n"
        "    (:func:`rmsc.metrics.best_view`). ``labels_`` needs an unsupervised choice:\n"
        "    ``view=None`` takes the view whose normalised affinity has the largest\n"
        "    eigengap between eigenvalues c and c+1 (the clearest c-cluster structure);\n"
        "    an int forces a view.\n\n    Parameters\n    ----------"
        + _SSC_PARAMS_DOC
        + """    view : int or None, default=None

    Attributes
    ----------
    view_coefs_ : list of scipy.sparse.csr_matrix, each (n_samples, n_samples)
    view_affinities_ : list of scipy.sparse.csr_matrix
    view_label_runs_ : ndarray of shape (n_views, n_init, n_samples)
    view_eigengaps_ : ndarray of shape (n_views,)
    betas_ : ndarray of shape (n_views,)
        The beta used for each view.
    alphas_ : ndarray of shape (n_views,)
        Each view's weight as an alpha: ``alpha`` for ``beta="auto"``, else
        2 mu_v / beta (see :func:`rmsc.ssc.beta_and_alpha`).
    view_n_iter_ : ndarray of shape (n_views,)
        ADMM iterations each view ran (``max_iter`` where its residuals did
        not reach ``tol``).
    view_ : int
        The view behind ``labels_``.
    labels_ : ndarray of shape (n_samples,)
    label_runs_ : ndarray of shape (n_init, n_samples)
"""
    )

    _parameter_constraints = {**_SSCParams._parameter_constraints, "view": VIEW}

    def __init__(self, n_clusters=8, *, beta="auto", alpha=SSC_ALPHA, normalize=True,
                 max_iter=200, tol=1e-4, keep_mass=None, top_k=None, scale_columns=False,
                 n_init=N_KMEANS_RUNS, random_state=None, view=None):
        super().__init__(n_clusters, beta=beta, alpha=alpha, normalize=normalize,
                         max_iter=max_iter, tol=tol, keep_mass=keep_mass, top_k=top_k,
                         scale_columns=scale_columns, n_init=n_init, random_state=random_state)
        self.view = view

    @one_thread_per_call
    def fit(self, Xs, y=None):
        views, beta, alpha = self._prepare(Xs)
        if self.view is not None and not self.view < len(views):
            raise ValueError(f"view={self.view} is not a view index (0..{len(views) - 1}).")
        rng = check_random_state(self.random_state)
        self.view_coefs_, self.view_affinities_ = [], []
        runs, gaps, betas, alphas, n_iters = [], [], [], [], []
        for v, X in enumerate(views):
            C, info = self._ssc_view(X, beta, alpha, v)
            betas.append(info["beta"])
            alphas.append(info["alpha"])
            n_iters.append(info["n_iter"])
            S = self._affinity(C)
            emb, evals = spectral_embedding(S, self.n_clusters, random_state=rng,
                                            return_eigenvalues=True)
            runs.append(kmeans_runs(emb, self.n_clusters, n_runs=self.n_init, random_state=rng))
            gaps.append(eigengap(evals, self.n_clusters))
            self.view_coefs_.append(C)
            self.view_affinities_.append(S)
        self.view_label_runs_ = np.stack([r.runs for r in runs])
        self.view_eigengaps_ = np.asarray(gaps)
        self.betas_ = np.asarray(betas)
        self.alphas_ = np.asarray(alphas)
        self.view_n_iter_ = np.asarray(n_iters)
        self.view_ = int(self.view) if self.view is not None else int(np.argmax(gaps))
        self.labels_ = runs[self.view_].labels
        self.label_runs_ = runs[self.view_].runs
        return self


class SSCAVG(_SSCParams, ClusterMixin, BaseEstimator):
    __doc__ = (
        "SSC-AVG: spectral clustering on the average of per-view SSC affinities.\n\n"
        "    S = (1/m) sum_v (|Z^v| + |Z^v^T|) / 2 (paper, Section 3.2).\n\n"
        "    Parameters\n    ----------"
        + _SSC_PARAMS_DOC
        + """
    Attributes
    ----------
    view_coefs_ : list of scipy.sparse.csr_matrix, each (n_samples, n_samples)
    betas_ : ndarray of shape (n_views,)
        The beta used for each view.
    alphas_ : ndarray of shape (n_views,)
        Each view's weight as an alpha: ``alpha`` for ``beta="auto"``, else
        2 mu_v / beta (see :func:`rmsc.ssc.beta_and_alpha`).
    view_n_iter_ : ndarray of shape (n_views,)
        ADMM iterations each view ran (``max_iter`` where its residuals did
        not reach ``tol``).
    affinity_matrix_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    labels_ : ndarray of shape (n_samples,)
    label_runs_ : ndarray of shape (n_init, n_samples)
"""
    )

    @one_thread_per_call
    def fit(self, Xs, y=None):
        views, beta, alpha = self._prepare(Xs)
        fits = [self._ssc_view(X, beta, alpha, v) for v, X in enumerate(views)]
        self.view_coefs_ = [C for C, _ in fits]
        self.betas_ = np.array([info["beta"] for _, info in fits])
        self.alphas_ = np.array([info["alpha"] for _, info in fits])
        self.view_n_iter_ = np.array([info["n_iter"] for _, info in fits])
        S = sum(self._affinity(C) for C in self.view_coefs_) / len(views)
        self.affinity_matrix_ = sp.csr_matrix(S)
        runs, self.embedding_ = spectral_clustering(
            self.affinity_matrix_, self.n_clusters, n_runs=self.n_init,
            random_state=check_random_state(self.random_state),
        )
        self.labels_, self.label_runs_ = runs.labels, runs.runs
        return self
