"""Graph-based baselines of the paper's Table 1: SC-BSV, MSC, Co-Pairwise, Co-Centroid, Co-Training.

Every method starts from the same per-view graphs (:mod:`rmsc.graphs`: Gaussian
k-nearest-neighbour affinity W_v, k = 5 as the paper) and their normalised
forms N_v = D_v^{-1/2} W_v D_v^{-1/2} (the normalised Laplacian is I - N_v, so
"smallest eigenvectors of the Laplacian" are "largest eigenvectors of N_v"),
and ends through the shared protocol of :mod:`rmsc.spectral`: a row-normalised
c-dimensional embedding, then k-means ``n_init`` times (``labels_`` is the run
of lowest inertia, ``label_runs_`` all runs).

Samples are scaled to unit L2 norm per view first (``normalize=True``), as the
paper does for every method.

Why five estimators in one module (~680 lines): they share their first half
(the per-view graphs, the eigenvector solver :func:`top_eigenvectors`, the
parameter checks of :class:`_GraphMethod`) and differ only in how views are
combined, which reads best side by side; each estimator is about 80 lines.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state

from .backends import one_thread_per_call
from ._validation import (
    FLAG,
    N_CLUSTERS,
    NON_NEGATIVE,
    POSITIVE_INT,
    VIEW,
    Interval,
    Options,
    Param,
    PerView,
    check_estimator,
    check_n_clusters,
    check_views,
)
from .memory import check_dense_fits
from .graphs import BANDWIDTH_RULES, N_NEIGHBORS, knn_affinity, normalize_rows, normalized_affinity
from .preprocessing import normalize_l2
from .spectral import (
    _DENSE_EIGH_MAX,
    N_KMEANS_RUNS,
    eigengap,
    kmeans_runs,
    spectral_embedding,
)


# ---------------------------------------------------------------------------
# Linear algebra shared by the methods
# ---------------------------------------------------------------------------


def top_eigenvectors(N, k, B=None, lam=0.0, *, random_state=None):
    """The ``k`` largest eigenpairs of ``N + lam * B B^T``.

    Parameters
    ----------
    N : sparse or dense symmetric matrix of shape (n, n)
        A normalised affinity (:func:`rmsc.graphs.normalized_affinity`), whose
        eigenvalues are at most 1.
    k : int
    B : ndarray of shape (n, p) or None
        Low-rank term (e.g. the stacked embeddings of the other views).
    lam : float >= 0
    random_state : int, RandomState or None
        Start vector of the Lanczos solver (used when n > 600).

    Returns
    -------
    w : ndarray of shape (k,)
        Eigenvalues, descending.
    U : ndarray of shape (n, k)
        Orthonormal eigenvectors, in the order of ``w``.

    Notes
    -----
    Up to 600 samples: dense ``scipy.linalg.eigh``. Above: Lanczos
    (``eigsh``) in shift-invert mode at sigma = 1 + lam ||B||_2^2 + 1e-3, just
    above the whole spectrum, so the wanted eigenvalues are the ones nearest
    sigma. k-NN graphs have clusters of eigenvalues at or near 1 (one per
    connected piece), where plain Lanczos stalls (seconds, and inaccurate);
    shift-invert converges in a few steps. The inverse of
    (N - sigma I) + lam B B^T is applied by a sparse LU of N - sigma I and the
    Woodbury identity, so no dense n x n matrix is formed.
    """
    n = N.shape[0]
    lowrank = B is not None and lam != 0.0
    if n <= _DENSE_EIGH_MAX or k >= n - 1:
        check_dense_fits(n, n, count=3, what=f"A dense eigendecomposition of {n} samples")
        M = N.toarray() if sp.issparse(N) else np.array(N, dtype=float)
        if lowrank:
            M = M + lam * (B @ B.T)
        w, U = scipy.linalg.eigh(M, subset_by_index=(n - k, n - 1))
    else:
        bound = 1.0 + (lam * scipy.linalg.norm(B, 2) ** 2 if lowrank else 0.0)
        sigma = bound + 1e-3
        lu = scipy.sparse.linalg.splu(sp.csc_matrix(N - sigma * sp.identity(n, format="csc")))
        if lowrank:
            AiB = lu.solve(np.asfortranarray(B))
            core = scipy.linalg.lu_factor(np.eye(B.shape[1]) / lam + B.T @ AiB)

            def solve(x):
                y = lu.solve(np.asarray(x, dtype=np.float64))
                return y - AiB @ scipy.linalg.lu_solve(core, B.T @ y)
        else:
            def solve(x):
                return lu.solve(np.asarray(x, dtype=np.float64))
        opinv = scipy.sparse.linalg.LinearOperator((n, n), matvec=solve, dtype=np.float64)
        v0 = check_random_state(random_state).uniform(-1, 1, n)
        w, U = scipy.sparse.linalg.eigsh(_operator(N, B, lam) if lowrank else N, k=k,
                                         sigma=sigma, which="LM", OPinv=opinv, v0=v0, tol=1e-10)
    order = np.argsort(w)[::-1]
    return w[order], U[:, order]


def _operator(N, B, lam):
    def matmat(x):
        return N @ x + lam * (B @ (B.T @ x))
    return scipy.sparse.linalg.LinearOperator((N.shape[0],) * 2, matvec=matmat, matmat=matmat,
                                              rmatvec=matmat, dtype=np.float64)


def _projector_overlap(U, V):
    """||U^T V||_F^2 = tr(U U^T V V^T) for orthonormal U, V."""
    return float(np.sum((U.T @ V) ** 2))


def _check_lambda(name, value, n_views):
    """One float per view from a number or one per view (the values' rule is the contract's:
    :data:`_CoRegParams._parameter_constraints`)."""
    if np.ndim(value) == 0:
        return np.full(n_views, float(value))
    arr = [float(x) for x in np.ravel(np.asarray(value, dtype=object))]
    if len(arr) != n_views:
        raise ValueError(f"{name} has {len(arr)} values but there are {n_views} views; "
                         "give one number or one per view.")
    return np.asarray(arr)


# ---------------------------------------------------------------------------
# Shared parameters
# ---------------------------------------------------------------------------


_GRAPH_PARAMS_DOC = """
    n_clusters : int, default=8
        Number of clusters c (also the embedding dimension).
    n_neighbors : int, default=5
        k of every view's k-nearest-neighbour graph (the paper's k = 5).
    bandwidth : {"mean_knn", "self_tuning"} or float, default="mean_knn"
        Gaussian bandwidth rule of the graphs, see :mod:`rmsc.graphs`.
    normalize : bool, default=True
        Unit L2 norm per sample and view first (the paper's preprocessing).
    n_init : int, default=20
        k-means restarts (the paper's protocol).
    random_state : int, RandomState instance or None
"""


class _GraphMethod(ClusterMixin, BaseEstimator):
    """Parameters and graph construction shared by the graph-based baselines."""

    #: Fewest views it accepts (the registry's ``MethodSpec.min_views`` reads it).
    min_views = 1

    #: Every parameter's rule, declared once (:func:`rmsc._validation.check_estimator`).
    _parameter_constraints = {
        "n_clusters": N_CLUSTERS, "n_neighbors": POSITIVE_INT,
        "bandwidth": Param(Options(BANDWIDTH_RULES), Interval(numbers.Real, 0, closed="neither"),
                           what=f"one of {', '.join(map(repr, BANDWIDTH_RULES))} or a positive "
                                "number (a fixed Gaussian bandwidth)"),
        "normalize": FLAG, "n_init": POSITIVE_INT,
    }

    def __init__(self, n_clusters=8, *, n_neighbors=N_NEIGHBORS, bandwidth="mean_knn",
                 normalize=True, n_init=N_KMEANS_RUNS, random_state=None):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.bandwidth = bandwidth
        self.normalize = normalize
        self.n_init = n_init
        self.random_state = random_state

    def _graphs(self, Xs):
        views = check_views(Xs)
        check_estimator(self)
        if len(views) < self.min_views:
            raise ValueError(
                f"{type(self).__name__} combines views and needs at least {self.min_views}; got "
                f"{len(views)}. For a single view use SC-BSV."
            )
        check_n_clusters(self.n_clusters, views[0].shape[0])
        if self.normalize:
            views = [normalize_l2(X, view=v) for v, X in enumerate(views)]
        graphs, sigmas = [], []
        for X in views:
            W, sigma = knn_affinity(X, self.n_neighbors, self.bandwidth, return_bandwidth=True)
            graphs.append(W)
            sigmas.append(sigma)
        self.view_affinities_ = graphs
        self.bandwidths_ = sigmas
        return graphs

    def _finish(self, embedding, rng):
        """Row-normalise, k-means ``n_init`` times (the shared protocol)."""
        self.embedding_ = normalize_rows(embedding)
        runs = kmeans_runs(self.embedding_, self.n_clusters, n_runs=self.n_init, random_state=rng)
        self.labels_, self.label_runs_ = runs.labels, runs.runs
        return self


def _per_view_embeddings(normalized, k, rng):
    return [top_eigenvectors(N, k, random_state=rng)[1] for N in normalized]


# ---------------------------------------------------------------------------
# SC-BSV
# ---------------------------------------------------------------------------


class SCBSV(_GraphMethod):
    __doc__ = (
        "SC-BSV: normalised spectral clustering of every view separately.\n\n"
        "    Each view's k-NN Gaussian graph is clustered by the shared protocol\n"
        "    (:func:`rmsc.spectral.spectral_embedding`: Ng-Jordan-Weiss embedding, then\n"
        "    k-means ``n_init`` times). The paper cites Shi & Malik's normalised cut;\n"
        "    NJW is its symmetric-normalised relaxation, used here so that every method\n"
        "    shares one protocol. The paper reports the best view, which can only be\n"
        "    chosen with the true labels (:func:`rmsc.metrics.best_view` on\n"
        "    ``view_label_runs_``). ``labels_`` needs an unsupervised choice: ``view=None``\n"
        "    takes the view whose normalised affinity has the largest eigengap between\n"
        "    eigenvalues c and c+1 (as :class:`rmsc.ssc.SSCBSV`); an int forces a view.\n\n"
        "    Parameters\n    ----------" + _GRAPH_PARAMS_DOC + """    view : int or None, default=None

    Attributes
    ----------
    view_affinities_ : list of scipy.sparse.csr_matrix, each (n_samples, n_samples)
    bandwidths_ : list of float or ndarray
        The Gaussian bandwidth used in each view.
    view_label_runs_ : ndarray of shape (n_views, n_init, n_samples)
    view_eigengaps_ : ndarray of shape (n_views,)
    view_ : int
        The view behind ``labels_``.
    affinity_matrix_ : scipy.sparse.csr_matrix
        The affinity of ``view_``.
    embedding_ : ndarray of shape (n_samples, n_clusters)
        The spectral embedding of ``view_``.
    labels_ : ndarray of shape (n_samples,)
    label_runs_ : ndarray of shape (n_init, n_samples)
""")

    _parameter_constraints = {**_GraphMethod._parameter_constraints, "view": VIEW}

    def __init__(self, n_clusters=8, *, n_neighbors=N_NEIGHBORS, bandwidth="mean_knn",
                 normalize=True, n_init=N_KMEANS_RUNS, random_state=None, view=None):
        super().__init__(n_clusters, n_neighbors=n_neighbors, bandwidth=bandwidth,
                         normalize=normalize, n_init=n_init, random_state=random_state)
        self.view = view

    @one_thread_per_call
    def fit(self, Xs, y=None):
        graphs = self._graphs(Xs)
        if self.view is not None and not (
                isinstance(self.view, numbers.Integral) and 0 <= self.view < len(graphs)):
            raise ValueError(f"view={self.view!r} is not a view index (0..{len(graphs) - 1}).")
        rng = check_random_state(self.random_state)
        runs, gaps, embs = [], [], []
        c = self.n_clusters
        for W in graphs:
            emb, evals = spectral_embedding(W, c, random_state=rng, return_eigenvalues=True)
            runs.append(kmeans_runs(emb, c, n_runs=self.n_init, random_state=rng))
            gaps.append(eigengap(evals, c))
            embs.append(emb)
        self.view_label_runs_ = np.stack([r.runs for r in runs])
        self.view_eigengaps_ = np.asarray(gaps)
        self.view_ = int(self.view) if self.view is not None else int(np.argmax(gaps))
        self.affinity_matrix_ = graphs[self.view_]
        self.embedding_ = embs[self.view_]
        self.labels_ = runs[self.view_].labels
        self.label_runs_ = runs[self.view_].runs
        return self


# ---------------------------------------------------------------------------
# MSC (Xia, Tao, Mei & Zhang 2010)
# ---------------------------------------------------------------------------


def msc_weights(traces, r):
    """MSC's closed-form view weights for fixed Y (Xia et al. 2010, eq. 11).

    Minimising ``sum_v alpha_v^r t_v`` over the simplex (``alpha >= 0``,
    ``sum alpha = 1``) with ``t_v = tr(Y^T L_v Y) > 0`` and ``r > 1`` gives,
    by the Lagrangian ``r alpha_v^{r-1} t_v = mu``,

        alpha_v = (1 / t_v)^{1/(r-1)} / sum_u (1 / t_u)^{1/(r-1)}.

    Parameters
    ----------
    traces : array-like of shape (n_views,), positive
    r : float > 1

    Returns
    -------
    alpha : ndarray of shape (n_views,)
    """
    t = np.asarray(traces, dtype=float)
    # t_v = 0 (a view whose graph already splits into the embedding's pieces)
    # takes all the weight in the limit; floor it to keep the formula finite.
    t = np.maximum(t, np.finfo(float).tiny ** 0.5)
    logs = -np.log(t) / (r - 1.0)
    a = np.exp(logs - logs.max())
    return a / a.sum()


class MSC(_GraphMethod):
    __doc__ = (
        "MSC: multiview spectral embedding (Xia, Tao, Mei & Zhang, IEEE TSMC-B 2010).\n\n"
        "    Solves (Xia et al., eq. 9, with each view's part optimisation replaced by its\n"
        "    normalised graph Laplacian L_v = I - N_v, as in the multi-view clustering\n"
        "    comparisons that use MSC as a baseline)::\n\n"
        "        min_{Y, alpha}  sum_v alpha_v^r tr(Y^T L_v Y)\n"
        "        s.t. Y^T Y = I, sum_v alpha_v = 1, alpha_v >= 0,   r > 1\n\n"
        "    by alternating (Xia et al., Sec. III-C): Y = the c eigenvectors of\n"
        "    sum_v alpha_v^r L_v with smallest eigenvalues (= largest of\n"
        "    sum_v alpha_v^r N_v, eq. 10), then alpha in closed form (eq. 11,\n"
        "    :func:`msc_weights`). Starts from alpha = 1/m. Both steps are exact, so the\n"
        "    objective never increases. Stops when max |alpha change| <= ``tol`` or after\n"
        "    ``max_iter`` iterations. k-means on the row-normalised Y.\n\n"
        "    Parameters\n    ----------" + _GRAPH_PARAMS_DOC + """    r : float > 1, default=5
        Xia et al.'s exponent: r -> 1 puts all weight on the single smoothest
        view, r -> inf weights the views equally. 5 is inside the range the
        MSE authors recommend.
    max_iter : int, default=30
    tol : float, default=1e-6

    Attributes
    ----------
    view_affinities_ : list of scipy.sparse.csr_matrix
    bandwidths_ : list
    alpha_ : ndarray of shape (n_views,)
        View weights (non-negative, sum to one).
    alpha_history_ : ndarray of shape (n_iter_ + 1, n_views)
    objective_ : ndarray of shape (n_iter_,)
        sum_v alpha_v^r tr(Y^T L_v Y) after each iteration.
    affinity_matrix_ : scipy.sparse.csr_matrix
        sum_v alpha_v^r N_v / sum_v alpha_v^r, whose top eigenvectors are Y.
    embedding_ : ndarray of shape (n_samples, n_clusters)
        Row-normalised Y.
    n_iter_ : int
    labels_, label_runs_
""")

    _parameter_constraints = {
        **_GraphMethod._parameter_constraints,
        "r": Param(Interval(numbers.Real, 1, closed="neither"),
                   what="greater than 1 (Xia et al.'s exponent)",
                   type_what="a number greater than 1 (Xia et al.'s exponent)",
                   hint="Typical values are 2 to 10."),
        "max_iter": POSITIVE_INT, "tol": NON_NEGATIVE,
    }

    def __init__(self, n_clusters=8, *, r=5.0, max_iter=30, tol=1e-6, n_neighbors=N_NEIGHBORS,
                 bandwidth="mean_knn", normalize=True, n_init=N_KMEANS_RUNS, random_state=None):
        super().__init__(n_clusters, n_neighbors=n_neighbors, bandwidth=bandwidth,
                         normalize=normalize, n_init=n_init, random_state=random_state)
        self.r = r
        self.max_iter = max_iter
        self.tol = tol

    @one_thread_per_call
    def fit(self, Xs, y=None):
        graphs = self._graphs(Xs)
        r = float(self.r)
        rng = check_random_state(self.random_state)
        Ns = [normalized_affinity(W) for W in graphs]
        c, m = self.n_clusters, len(Ns)
        alpha = np.full(m, 1.0 / m)
        history, objective = [alpha], []
        for it in range(1, self.max_iter + 1):
            _, Y = top_eigenvectors(_msc_combination(Ns, alpha, r), c, random_state=rng)
            traces = np.array([c - _projector_trace(N, Y) for N in Ns])
            alpha_new = msc_weights(traces, r)
            objective.append(float(np.sum(alpha_new ** r * traces)))
            change = np.abs(alpha_new - alpha).max()
            alpha = alpha_new
            history.append(alpha)
            if change <= self.tol:
                break
        self.n_iter_ = it
        self.alpha_ = alpha
        self.alpha_history_ = np.array(history)
        self.objective_ = np.array(objective)
        self.affinity_matrix_ = _msc_combination(Ns, alpha, r)
        _, Y = top_eigenvectors(self.affinity_matrix_, c, random_state=rng)
        return self._finish(Y, rng)


def _msc_combination(Ns, alpha, r):
    """sum_v alpha_v^r N_v / sum_v alpha_v^r: same eigenvectors, spectrum in [-1, 1]."""
    a = alpha ** r
    return sp.csr_matrix(sum((av / a.sum()) * N for av, N in zip(a, Ns)))


def _projector_trace(N, Y):
    """tr(Y^T N Y)."""
    return float(np.sum(Y * (N @ Y)))


# ---------------------------------------------------------------------------
# Co-regularised spectral clustering (Kumar, Rai & Daume, NIPS 2011)
# ---------------------------------------------------------------------------


class _CoRegParams(_GraphMethod):
    min_views = 2  # co-regularisation couples two views or more
    _parameter_constraints = {
        **_GraphMethod._parameter_constraints,
        "lam": Param(PerView(Interval(numbers.Real, 0)),
                     what="a finite non-negative number, or one per view"),
        "max_iter": POSITIVE_INT, "tol": NON_NEGATIVE,
    }

    def __init__(self, n_clusters=8, *, lam=0.01, max_iter=10, tol=1e-6,
                 n_neighbors=N_NEIGHBORS, bandwidth="mean_knn", normalize=True,
                 n_init=N_KMEANS_RUNS, random_state=None):
        super().__init__(n_clusters, n_neighbors=n_neighbors, bandwidth=bandwidth,
                         normalize=normalize, n_init=n_init, random_state=random_state)
        self.lam = lam
        self.max_iter = max_iter
        self.tol = tol

    def _check(self, Xs):
        graphs = self._graphs(Xs)
        lam = _check_lambda("lam", self.lam, len(graphs))
        return [normalized_affinity(W) for W in graphs], lam


_COREG_PARAMS_DOC = """    lam : float or array-like of shape (n_views,), default=0.01
        Co-regularisation weight lambda (one for all views or one per view).
        Kumar et al. report lambda in 0.01-0.05 working well on their data;
        0 decouples the views.
    max_iter : int, default=10
        Alternation rounds at most (Kumar et al. run a fixed handful).
    tol : float, default=1e-6
        Stop when the objective's relative increase in a round is at most tol.
"""


class CoRegPairwise(_CoRegParams):
    __doc__ = (
        "Co-Pairwise: pairwise co-regularised spectral clustering (Kumar, Rai & Daume, NIPS 2011).\n\n"
        "    Maximises (Kumar et al., eq. 3 generalised to m views, Sec. 3.1)::\n\n"
        "        sum_v tr(U_v^T N_v U_v) + sum_{v<w} lam tr(U_v U_v^T U_w U_w^T),  U_v^T U_v = I\n\n"
        "    (with a per-view lam the pair weight is (lam_v + lam_w) / 2). Starting from\n"
        "    each view's own spectral embedding, every round updates each view in turn to\n"
        "    the c largest eigenvectors of N_v + sum_{w != v} lam_vw U_w U_w^T (their\n"
        "    eq. 4), which maximises the objective over U_v exactly, so the objective\n"
        "    never decreases (``objective_``). The eigenproblem is solved by Lanczos on\n"
        "    the sparse N_v plus the low-rank term, never forming an n x n dense matrix.\n"
        "    Final clustering: k-means on the row-normalised concatenation\n"
        "    [U_1, ..., U_m] (their Sec. 3.1 leaves the choice of view open; the\n"
        "    concatenation uses all views without looking at labels).\n\n"
        "    Quirk of the reference code not copied: it reports the best NMI over\n"
        "    iterations and views, chosen with the true labels.\n\n"
        "    Parameters\n    ----------" + _GRAPH_PARAMS_DOC + _COREG_PARAMS_DOC + """
    Attributes
    ----------
    view_affinities_ : list of scipy.sparse.csr_matrix
    bandwidths_ : list
    view_embeddings_ : list of ndarray, each (n_samples, n_clusters)
        U_v, orthonormal columns.
    objective_ : ndarray of shape (n_iter_ + 1,)
        The objective at the start and after each round.
    embedding_ : ndarray of shape (n_samples, n_views * n_clusters)
    n_iter_ : int
    labels_, label_runs_
""")

    @one_thread_per_call
    def fit(self, Xs, y=None):
        Ns, lam = self._check(Xs)
        rng = check_random_state(self.random_state)
        c, m = self.n_clusters, len(Ns)
        pair = (lam[:, None] + lam[None, :]) / 2.0
        U = _per_view_embeddings(Ns, c, rng)
        objective = [self._objective(Ns, U, pair)]
        it = 0
        for it in range(1, self.max_iter + 1):
            for v in range(m):
                others = [w for w in range(m) if w != v]
                B = np.hstack([np.sqrt(pair[v, w]) * U[w] for w in others])
                U[v] = top_eigenvectors(Ns[v], c, B, 1.0 if pair[v].sum() else 0.0,
                                        random_state=rng)[1]
            objective.append(self._objective(Ns, U, pair))
            if objective[-1] - objective[-2] <= self.tol * abs(objective[-2]):
                break
        self.n_iter_ = it
        self.objective_ = np.array(objective)
        self.view_embeddings_ = U
        return self._finish(np.hstack(U), rng)

    @staticmethod
    def _objective(Ns, U, pair):
        m = len(Ns)
        value = sum(_projector_trace(N, Uv) for N, Uv in zip(Ns, U))
        value += sum(pair[v, w] * _projector_overlap(U[v], U[w])
                     for v in range(m) for w in range(v + 1, m))
        return float(value)


class CoRegCentroid(_CoRegParams):
    __doc__ = (
        "Co-Centroid: centroid-based co-regularised spectral clustering (Kumar, Rai & Daume, NIPS 2011).\n\n"
        "    Maximises (Kumar et al., eq. 6, Sec. 3.2)::\n\n"
        "        sum_v tr(U_v^T N_v U_v) + sum_v lam_v tr(U_v U_v^T U* U*^T),\n"
        "        U_v^T U_v = I, U*^T U* = I\n\n"
        "    by alternation from each view's own embedding: U* = the c largest\n"
        "    eigenvectors of sum_v lam_v U_v U_v^T (their eq. 8; a rank m c matrix, taken\n"
        "    from the SVD of the stacked [sqrt(lam_v) U_v]), then each U_v = the c\n"
        "    largest eigenvectors of N_v + lam_v U* U*^T (eq. 7). Each step is an exact\n"
        "    maximisation, so the objective never decreases. Final clustering: k-means\n"
        "    on the row-normalised consensus U* (as Kumar et al.).\n\n"
        "    Quirk of the reference code not copied: it reports the best NMI over\n"
        "    iterations, chosen with the true labels.\n\n"
        "    Parameters\n    ----------" + _GRAPH_PARAMS_DOC + _COREG_PARAMS_DOC
        + "        lam must be positive for at least one view: with lam = 0 no view\n"
        "        informs the consensus.\n" + """
    Attributes
    ----------
    view_affinities_ : list of scipy.sparse.csr_matrix
    bandwidths_ : list
    view_embeddings_ : list of ndarray, each (n_samples, n_clusters)
    consensus_ : ndarray of shape (n_samples, n_clusters)
        U*, orthonormal columns.
    objective_ : ndarray of shape (n_iter_ + 1,)
    embedding_ : ndarray of shape (n_samples, n_clusters)
        Row-normalised U*.
    n_iter_ : int
    labels_, label_runs_
""")

    @one_thread_per_call
    def fit(self, Xs, y=None):
        Ns, lam = self._check(Xs)
        if not np.any(lam > 0):
            raise ValueError(
                "lam must be positive for Co-Centroid: with lam = 0 the views never inform "
                "the consensus. Kumar et al. use values around 0.01-0.05."
            )
        rng = check_random_state(self.random_state)
        c = self.n_clusters
        U = _per_view_embeddings(Ns, c, rng)
        Ustar = centroid_step(U, lam, c)
        objective = [self._objective(Ns, U, Ustar, lam)]
        it = 0
        for it in range(1, self.max_iter + 1):
            U = [top_eigenvectors(N, c, Ustar, lv, random_state=rng)[1] for N, lv in zip(Ns, lam)]
            Ustar = centroid_step(U, lam, c)
            objective.append(self._objective(Ns, U, Ustar, lam))
            if objective[-1] - objective[-2] <= self.tol * abs(objective[-2]):
                break
        self.n_iter_ = it
        self.objective_ = np.array(objective)
        self.view_embeddings_ = U
        self.consensus_ = Ustar
        return self._finish(Ustar, rng)

    @staticmethod
    def _objective(Ns, U, Ustar, lam):
        return float(sum(_projector_trace(N, Uv) + lv * _projector_overlap(Uv, Ustar)
                         for N, Uv, lv in zip(Ns, U, lam)))


def centroid_step(U, lam, k):
    """U* = the k largest eigenvectors of sum_v lam_v U_v U_v^T (Kumar et al. 2011, eq. 8).

    Parameters
    ----------
    U : list of ndarray, each (n_samples, k_v)
    lam : ndarray of shape (n_views,)
    k : int

    Returns
    -------
    ndarray of shape (n_samples, k), orthonormal columns
    """
    B = np.hstack([np.sqrt(lv) * Uv for Uv, lv in zip(U, lam)])
    left, _, _ = scipy.linalg.svd(B, full_matrices=False)
    return left[:, :k]


# ---------------------------------------------------------------------------
# Co-training (Kumar & Daume, ICML 2011)
# ---------------------------------------------------------------------------


def cotraining_step(W, B, k):
    """One view's co-training update (Kumar & Daume 2011, Algorithm 1, steps 3-5).

    The view's graph is projected onto the other views' eigenvectors,
    ``S = sym(W P)`` with ``P = B B^T`` (B stacks the other views' U_w, so
    P = sum_{w != v} U_w U_w^T), ``sym(A) = (A + A^T) / 2``; then
    ``U = the k largest eigenvectors of D^{-1/2} S D^{-1/2}``, D = diag(S 1).

    S has rank at most 2p (p = columns of B): with A = W B,
    S = (A B^T + B A^T) / 2, so the eigenproblem is solved exactly in the
    2p-dimensional span of [D^{-1/2} A, D^{-1/2} B] — no n x n matrix is formed.

    Projection can make some degrees non-positive (a sample whose projected
    similarities cancel); those samples get a zero row in the normalised matrix,
    which the reference code would turn into complex numbers.

    Parameters
    ----------
    W : sparse matrix of shape (n, n)
    B : ndarray of shape (n, p)
    k : int

    Returns
    -------
    U : ndarray of shape (n, k)
    n_bad_degrees : int
    """
    A = np.asarray(W @ B)
    deg = (A @ B.sum(axis=0) + B @ A.sum(axis=0)) / 2.0
    bad = deg <= 0
    d = np.divide(1.0, np.sqrt(deg), out=np.zeros_like(deg), where=~bad)
    Q, Rqr = scipy.linalg.qr(np.hstack([A * d[:, None], B * d[:, None]]), mode="economic")
    p = B.shape[1]
    Ra, Rb = Rqr[:, :p], Rqr[:, p:]
    small = (Ra @ Rb.T + Rb @ Ra.T) / 2.0
    if k > small.shape[0]:
        raise ValueError(
            f"Co-training projects onto {p} eigenvectors of the other views, too few for "
            f"{k} clusters; raise n_projection."
        )
    w, V = scipy.linalg.eigh(small, subset_by_index=(small.shape[0] - k, small.shape[0] - 1))
    return Q @ V[:, ::-1], int(bad.sum())


class CoTraining(_GraphMethod):
    __doc__ = (
        "Co-Training: co-trained multi-view spectral clustering (Kumar & Daume, ICML 2011).\n\n"
        "    Algorithm 1 of Kumar & Daume, for m views: start from each view's spectral\n"
        "    embedding U_v (the c largest eigenvectors of N_v); then, for ``max_iter``\n"
        "    rounds, for every view, S_v = sym(W_v sum_{w != v} U_w U_w^T) — the view's\n"
        "    graph with its columns projected onto the subspace the other views found —\n"
        "    and U_v = the largest eigenvectors of D^{-1/2} S_v D^{-1/2}\n"
        "    (:func:`cotraining_step`; all views are updated from the previous round's\n"
        "    embeddings, as their algorithm). ``n_projection`` eigenvectors per view are\n"
        "    used for the projection (the paper: c; its code notes more can help).\n"
        "    Stops early when no view's subspace moves: 1 - ||U_v^T U_v_prev||_F^2 / c\n"
        "    <= ``tol`` for all v. Final clustering: k-means on the row-normalised\n"
        "    concatenation [U_1, ..., U_m] of the c leading eigenvectors.\n\n"
        "    Quirk of the reference code not copied: it reports the maximum NMI over\n"
        "    iterations and views, chosen with the true labels.\n\n"
        "    Parameters\n    ----------" + _GRAPH_PARAMS_DOC + """    max_iter : int, default=10
        Co-training rounds (0 gives the views' own embeddings).
    n_projection : int or None, default=None
        Eigenvectors per view used to project the other views' graphs;
        None means n_clusters.
    tol : float, default=1e-8

    Attributes
    ----------
    view_affinities_ : list of scipy.sparse.csr_matrix
    bandwidths_ : list
    view_embeddings_ : list of ndarray, each (n_samples, n_projection)
    n_iter_ : int
    n_bad_degrees_ : int
        Samples, summed over views and rounds, whose projected degree was not
        positive (zero row, see :func:`cotraining_step`).
    embedding_ : ndarray of shape (n_samples, n_views * n_clusters)
    labels_, label_runs_
""")

    min_views = 2  # each view is projected onto the others'
    _parameter_constraints = {
        **_GraphMethod._parameter_constraints,
        "max_iter": Param(Interval(numbers.Integral, 0), what="an integer >= 0 (0: the views' "
                          "own embeddings)"),
        "n_projection": Param(None, Interval(numbers.Integral, 1), what="an integer >= 1, or "
                              "None (n_clusters)"),
        "tol": NON_NEGATIVE,
    }

    def __init__(self, n_clusters=8, *, max_iter=10, n_projection=None, tol=1e-8,
                 n_neighbors=N_NEIGHBORS, bandwidth="mean_knn", normalize=True,
                 n_init=N_KMEANS_RUNS, random_state=None):
        super().__init__(n_clusters, n_neighbors=n_neighbors, bandwidth=bandwidth,
                         normalize=normalize, n_init=n_init, random_state=random_state)
        self.max_iter = max_iter
        self.n_projection = n_projection
        self.tol = tol

    @one_thread_per_call
    def fit(self, Xs, y=None):
        graphs = self._graphs(Xs)
        c = self.n_clusters
        k = c if self.n_projection is None else int(self.n_projection)
        if k < c:
            raise ValueError(f"n_projection={k} is below n_clusters={c}; use at least {c}.")
        rng = check_random_state(self.random_state)
        Ns = [normalized_affinity(W) for W in graphs]
        U = _per_view_embeddings(Ns, k, rng)
        m, bad, it = len(graphs), 0, 0
        for it in range(1, self.max_iter + 1):
            new = []
            for v in range(m):
                B = np.hstack([U[w] for w in range(m) if w != v])
                Uv, nb = cotraining_step(graphs[v], B, k)
                new.append(Uv)
                bad += nb
            moved = max(1.0 - _projector_overlap(a, b) / k for a, b in zip(new, U))
            U = new
            if moved <= self.tol:
                break
        self.n_iter_ = it
        self.n_bad_degrees_ = bad
        self.view_embeddings_ = U
        return self._finish(np.hstack([Uv[:, :c] for Uv in U]), rng)
