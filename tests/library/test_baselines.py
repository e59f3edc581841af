"""The baselines of Table 1: graphs, SC-BSV, MSC, Co-Pairwise, Co-Centroid, Co-Training, DiMSC."""

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.base import clone

import rmsc
from rmsc import MSC, SCBSV, CoRegCentroid, CoRegPairwise, CoTraining, DiMSC, SSCAVG, solver
from rmsc.dimsc import (
    diversity_gradient_half,
    diversity_lipschitz,
    diversity_subproblem,
    dimsc_objective,
    gram,
    hsic,
    surrogate,
)
from rmsc.experiments.paper import PAPER_TABLE1
from rmsc.graphs import knn_affinity, knn_bandwidth, normalized_affinity
from rmsc.multiview_spectral import (
    centroid_step,
    cotraining_step,
    msc_weights,
    top_eigenvectors,
)
from rmsc.methods import paper_methods
from rmsc.preprocessing import normalize_l2
from rmsc.spectral import spectral_embedding
from rmsc.ssc import ssc_admm
from tests.support import coherence_views, random_views, union_of_subspaces


def blobs(n_per=25, n_clusters=3, dims=(5, 8, 4), spread=0.15, seed=0, bad_view=False):
    """Well-separated Gaussian blobs, one independent set of centers per view."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_clusters), n_per)
    views = []
    for v, d in enumerate(dims):
        centers = 3.0 * rng.standard_normal((n_clusters, d)) + 5.0
        X = centers[y] + spread * rng.standard_normal((y.size, d))
        if bad_view and v == len(dims) - 1:
            X = rng.standard_normal((y.size, d)) + 5.0   # a view without structure
        views.append(X)
    return views, y


def projector(U):
    return U @ U.T


def dense_top(M, k):
    n = M.shape[0]
    return scipy.linalg.eigh(M, subset_by_index=(n - k, n - 1))[1]


# ---------------------------------------------------------------------------
# graphs
# ---------------------------------------------------------------------------


def test_knn_graph_is_symmetric_with_k_neighbors_and_the_stated_bandwidth():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    k = 5
    W, sigma = knn_affinity(X, k, return_bandwidth=True)
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    order = np.argsort(D, axis=1)[:, :k]
    kth = np.sort(D, axis=1)[:, k - 1]
    assert sigma == pytest.approx(kth.mean())                     # von Luxburg's rule by hand
    Wd = W.toarray()
    assert np.allclose(Wd, Wd.T) and np.all(np.diag(Wd) == 0) and Wd.min() >= 0
    for i in range(40):
        assert set(order[i]) <= set(np.flatnonzero(Wd[i]))           # i's own k neighbours
        for j in np.flatnonzero(Wd[i]):
            assert i in order[j] or j in order[i]                   # an edge only if chosen
            assert Wd[i, j] == pytest.approx(np.exp(-D[i, j] ** 2 / (2 * sigma ** 2)))
    assert (np.count_nonzero(Wd, axis=1) >= k).all()


def test_self_tuning_bandwidth_and_sparse_input():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((30, 4))
    W, s = knn_affinity(sp.csr_matrix(X), 4, "self_tuning", return_bandwidth=True)
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    assert np.allclose(s, np.sort(D, axis=1)[:, 3])
    i, j = np.argwhere(W.toarray() > 0)[0]
    assert W[i, j] == pytest.approx(np.exp(-D[i, j] ** 2 / (s[i] * s[j])))
    W2 = knn_affinity(X, 4, 0.7)
    assert W2[i, j] == pytest.approx(np.exp(-D[i, j] ** 2 / (2 * 0.7 ** 2))) or W2[i, j] == 0


def test_graph_input_errors():
    X = np.random.default_rng(0).standard_normal((6, 2))
    with pytest.raises(ValueError, match="n_neighbors=6 needs more than 6 samples"):
        knn_affinity(X, 6)
    with pytest.raises(ValueError, match="Unknown bandwidth rule"):
        knn_affinity(X, 2, "median")
    with pytest.raises(ValueError, match="positive number"):
        knn_affinity(X, 2, -1.0)
    with pytest.raises(ValueError, match="duplicates"):
        knn_bandwidth(np.zeros((5, 2)), "mean_knn")
    with pytest.raises(ValueError, match="duplicates"):
        knn_bandwidth(np.array([[0.0, 0.0], [1.0, 2.0]]), "self_tuning")


def test_top_eigenvectors_sparse_shift_invert_matches_dense():
    # n > 600 takes the Lanczos shift-invert path, with and without the low-rank term;
    # a graph with several connected pieces has a repeated eigenvalue 1.
    rng = np.random.default_rng(2)
    views, _ = blobs(n_per=220, n_clusters=3, dims=(3,), spread=0.2, seed=3)
    N = normalized_affinity(knn_affinity(views[0], 5))
    B = np.linalg.qr(rng.standard_normal((N.shape[0], 6)))[0]
    for Bx, lam in ((None, 0.0), (B, 0.3)):
        w, U = top_eigenvectors(N, 4, Bx, lam, random_state=0)
        M = N.toarray() + (lam * B @ B.T if Bx is not None else 0)
        wd = scipy.linalg.eigvalsh(M)[::-1][:4]
        assert np.allclose(w, wd, atol=1e-8)
        assert np.allclose(U.T @ U, np.eye(4), atol=1e-8)
        assert np.allclose(M @ U, U * w, atol=1e-6)


# ---------------------------------------------------------------------------
# SC-BSV
# ---------------------------------------------------------------------------


def test_scbsv_clusters_every_view_and_picks_the_eigengap_view():
    views, y = blobs(bad_view=True)
    est = SCBSV(3, random_state=0).fit(views)
    assert est.view_label_runs_.shape == (3, 20, y.size)
    best, per_view = rmsc.metrics.best_view(y, est.view_label_runs_)
    assert per_view[best]["acc_mean"] == 1.0
    assert est.view_ == int(np.argmax(est.view_eigengaps_)) and est.view_ != 2
    assert rmsc.evaluate(y, est.labels_)["acc"] == 1.0
    assert np.array_equal(est.label_runs_, est.view_label_runs_[est.view_])
    # the shared protocol on the chosen view's graph
    X = normalize_l2(views[est.view_])
    assert np.allclose(est.affinity_matrix_.toarray(), knn_affinity(X).toarray())
    emb = spectral_embedding(est.affinity_matrix_, 3)
    assert np.allclose(projector(emb), projector(est.embedding_), atol=1e-8)
    forced = SCBSV(3, view=2, random_state=0).fit(views)
    assert forced.view_ == 2
    with pytest.raises(ValueError, match="not a view index"):
        SCBSV(3, view=5).fit(views)


# ---------------------------------------------------------------------------
# MSC
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("r", [1.5, 2.0, 5.0])
def test_msc_weight_closed_form_matches_brute_force(r):
    t = np.array([0.3, 1.2, 0.05, 2.0])
    alpha = msc_weights(t, r)
    assert np.all(alpha >= 0) and alpha.sum() == pytest.approx(1.0)
    f = lambda a: np.sum(np.abs(a) ** r * t)  # noqa: E731
    res = scipy.optimize.minimize(
        f, np.full(4, 0.25), method="SLSQP", bounds=[(0, 1)] * 4,
        constraints=[{"type": "eq", "fun": lambda a: a.sum() - 1}], options={"ftol": 1e-14})
    assert np.allclose(alpha, res.x, atol=1e-5)
    assert f(alpha) <= res.fun + 1e-12


def test_msc_alternation_weights_objective_and_recovery():
    views, y = blobs(bad_view=True)
    est = MSC(3, r=2.0, random_state=0).fit(views)
    assert np.all(est.alpha_ >= 0) and est.alpha_.sum() == pytest.approx(1.0)
    assert np.all(np.diff(est.objective_) <= 1e-12)                 # never increases
    assert est.alpha_[2] < est.alpha_[:2].min()                      # the noise view counts least
    assert rmsc.evaluate(y, est.labels_)["acc"] == 1.0
    # alpha_ is the closed form for the final embedding's traces
    Ns = [normalized_affinity(W) for W in est.view_affinities_]
    a = est.alpha_history_[-2]
    S = sum((x ** 2) * N for x, N in zip(a, Ns)).toarray()
    Y = dense_top(S, 3)
    traces = [3 - np.trace(Y.T @ N.toarray() @ Y) for N in Ns]
    assert np.allclose(est.alpha_, msc_weights(traces, 2.0), atol=1e-8)
    with pytest.raises(ValueError, match="r must be greater than 1"):
        MSC(3, r=1).fit(views)


# ---------------------------------------------------------------------------
# Co-regularisation
# ---------------------------------------------------------------------------


def test_copairwise_zero_coupling_is_per_view_spectral_clustering():
    views, y = blobs()
    est = CoRegPairwise(3, lam=0.0, random_state=0).fit(views)
    for W, U in zip(est.view_affinities_, est.view_embeddings_):
        Ud = dense_top(normalized_affinity(W).toarray(), 3)
        assert np.allclose(projector(U), projector(Ud), atol=1e-8)
    assert est.n_iter_ == 1                                          # nothing moves


def test_copairwise_update_objective_and_recovery():
    views, y = blobs(bad_view=True, spread=0.3)
    est = CoRegPairwise(3, lam=0.5, max_iter=5, tol=0, random_state=0).fit(views)
    assert np.all(np.diff(est.objective_) >= -1e-10)                 # never decreases
    assert rmsc.evaluate(y, est.labels_)["acc"] >= 0.95
    assert est.embedding_.shape == (y.size, 9)
    # each U_v maximises tr(U^T (N_v + lam sum_{w!=v} U_w U_w^T) U) given the others
    Ns = [normalized_affinity(W).toarray() for W in est.view_affinities_]
    U = est.view_embeddings_
    M = Ns[2] + 0.5 * (projector(U[0]) + projector(U[1]))
    assert np.allclose(projector(U[2]), projector(dense_top(M, 3)), atol=1e-8)


def test_cocentroid_steps_objective_and_recovery():
    views, y = blobs(bad_view=True, spread=0.3)
    est = CoRegCentroid(3, lam=[0.2, 0.2, 0.05], max_iter=5, tol=0, random_state=0).fit(views)
    assert np.all(np.diff(est.objective_) >= -1e-10)
    assert rmsc.evaluate(y, est.labels_)["acc"] >= 0.95
    lam = np.array([0.2, 0.2, 0.05])
    S = sum(l * projector(U) for l, U in zip(lam, est.view_embeddings_))
    assert np.allclose(projector(est.consensus_), projector(dense_top(S, 3)), atol=1e-8)
    assert np.allclose(projector(centroid_step(est.view_embeddings_, lam, 3)),
                       projector(est.consensus_), atol=1e-8)
    tiny = CoRegCentroid(3, lam=1e-12, max_iter=1, random_state=0).fit(views)
    for W, U in zip(tiny.view_affinities_, tiny.view_embeddings_):
        Ud = dense_top(normalized_affinity(W).toarray(), 3)
        assert np.allclose(projector(U), projector(Ud), atol=1e-6)
    with pytest.raises(ValueError, match="lam must be positive for Co-Centroid"):
        CoRegCentroid(3, lam=0).fit(views)
    with pytest.raises(ValueError, match="one number or one per view"):
        CoRegCentroid(3, lam=[0.1, 0.1]).fit(views)


# ---------------------------------------------------------------------------
# Co-training
# ---------------------------------------------------------------------------


def test_cotraining_step_matches_dense_projection():
    views, _ = blobs(spread=0.4)
    Ws = [knn_affinity(normalize_l2(X)) for X in views]
    U = [dense_top(normalized_affinity(W).toarray(), 3) for W in Ws]
    B = np.hstack([U[1], U[2]])
    got, bad = cotraining_step(Ws[0], B, 3)
    S = Ws[0].toarray() @ (B @ B.T)
    S = (S + S.T) / 2
    d = S.sum(axis=1)
    assert bad == 0 and np.all(d > 0)
    L = S / np.sqrt(d)[:, None] / np.sqrt(d)[None, :]
    assert np.allclose(projector(got), projector(dense_top(L, 3)), atol=1e-8)


def test_cotraining_zero_rounds_is_per_view_and_rounds_recover():
    views, y = blobs(bad_view=True, spread=0.3)
    none = CoTraining(3, max_iter=0, random_state=0).fit(views)
    for W, U in zip(none.view_affinities_, none.view_embeddings_):
        Ud = dense_top(normalized_affinity(W).toarray(), 3)
        assert np.allclose(projector(U), projector(Ud), atol=1e-8)
    est = CoTraining(3, random_state=0).fit(views)
    assert rmsc.evaluate(y, est.labels_)["acc"] >= 0.95
    with pytest.raises(ValueError, match="n_projection=2 is below n_clusters=3"):
        CoTraining(3, n_projection=2).fit(views)
    with pytest.raises(ValueError, match="at least 2"):
        CoTraining(3).fit(views[:1])


# ---------------------------------------------------------------------------
# DiMSC
# ---------------------------------------------------------------------------


def test_hsic_and_its_gradient_match_the_definitions():
    rng = np.random.default_rng(5)
    n = 12
    Zs = [sp.random(n, n, density=0.3, random_state=s, format="csr") for s in range(3)]
    H = np.eye(n) - np.ones((n, n)) / n
    K = [Z.toarray().T @ Z.toarray() for Z in Zs]
    assert hsic(Zs[0], Zs[1]) == pytest.approx(np.trace(K[0] @ H @ K[1] @ H) / (n - 1) ** 2)
    Z = rng.standard_normal((n, n))
    A = 0.7 * (H @ K[1] @ H + H @ K[2] @ H)
    assert np.allclose(diversity_gradient_half(Z, Zs[1:], 0.7), Z @ A)


def test_diversity_subproblem_without_pull_is_ssc():
    rng = np.random.default_rng(0)
    X = random_views(rng, 25, (6,))[0]
    R = solver.gram_factor(X)
    ref, _ = ssc_admm(R, 0.05, max_iter=3000, tol=1e-9)
    got, info = diversity_subproblem(R, 0.05, np.zeros((25, 25)), max_iter=3000, tol=1e-9)
    assert info["converged"]
    obj = lambda C: np.sum((R - R @ C) ** 2) + 0.05 * np.abs(C).sum()  # noqa: E731
    assert obj(got.toarray()) == pytest.approx(obj(ref.toarray()), rel=1e-6)


def test_diversity_subproblem_satisfies_kkt():
    rng = np.random.default_rng(1)
    X = random_views(rng, 20, (8,))[0]
    R = solver.gram_factor(X)
    W = 0.05 * rng.standard_normal((20, 20))
    beta, mu = 0.05, 0.7
    C, info = diversity_subproblem(R, beta, np.zeros((20, 20)), W, mu, max_iter=5000, tol=1e-10)
    assert info["converged"]
    C = C.toarray()
    G = R.T @ R
    grad = 2 * (G @ C - G) + 2 * mu * (C - W)          # smooth part's gradient
    on = C != 0
    assert np.all(np.diag(C) == 0)
    assert np.allclose(grad[on], -beta * np.sign(C[on]), atol=1e-6)
    off = ~on & ~np.eye(20, dtype=bool)
    assert np.all(np.abs(grad[off]) <= beta + 1e-6)


def test_dimsc_zero_diversity_is_per_view_ssc_and_objective_decreases():
    views, y = union_of_subspaces(seed=1)
    zero = DiMSC(3, lam=0.0, beta=0.01, random_state=0).fit(views)
    avg = SSCAVG(3, beta=0.01, random_state=0).fit(views)
    for a, b in zip(zero.view_coefs_, avg.view_coefs_):
        assert abs(a - b).max() == 0
    assert np.allclose(zero.affinity_matrix_.toarray(), avg.affinity_matrix_.toarray())
    est = DiMSC(3, lam=50.0, beta=0.01, outer_tol=0, outer_iter=6, random_state=0).fit(views)
    assert 1 <= est.n_iter_ <= 6 and est.objective_.shape == (est.n_iter_ + 1,)
    assert np.all(np.diff(est.objective_) <= 1e-9 * est.objective_[0])
    # the diversity term is what moves: it is lower than at the SSC start
    Rs = [solver.gram_factor(normalize_l2(X)) for X in views]
    start = dimsc_objective(Rs, zero.view_coefs_, zero.betas_, 50.0)[1]["diversity"]
    end = dimsc_objective(Rs, est.view_coefs_, est.betas_, 50.0)[1]["diversity"]
    assert end < start
    assert rmsc.evaluate(y, est.labels_)["acc"] >= 0.95


def test_hsic_sparse_and_dense_products_and_the_lipschitz_bound():
    n = 60
    Zs = [sp.random(n, n, density=d, random_state=s, format="csr")
          for s, d in enumerate((0.03, 0.05, 0.4))]        # sparse x sparse and dense paths
    H = np.eye(n) - np.ones((n, n)) / n
    K = [Z.toarray().T @ Z.toarray() for Z in Zs]
    for v, w in ((0, 1), (0, 2), (2, 1)):
        assert hsic(Zs[v], Zs[w]) == pytest.approx(np.trace(K[v] @ H @ K[w] @ H) / (n - 1) ** 2)
    A = 0.3 * H @ (K[1] + K[2]) @ H
    top = np.linalg.eigvalsh(A).max()
    for B in (None, gram(Zs[1]) + gram(Zs[2])):           # n > 50: Lanczos, with and without B
        L = diversity_lipschitz(Zs[1:], 0.3, n, random_state=0, gram_sum=B)
        assert top <= L <= 1.03 * top
    assert np.allclose(diversity_gradient_half(Zs[0], None, 0.3, gram_sum=gram(Zs[1]) + gram(Zs[2])),
                       Zs[0].toarray() @ A)


def test_diversity_subproblem_with_mu_zero_continues_ssc_from_its_dual():
    # SSC for 10 iterations, then the subproblem (no pull) for 10 from SSC's state:
    # the same iterate as 20 SSC iterations (same splitting, dual and rho handed over).
    rng = np.random.default_rng(3)
    R = solver.gram_factor(random_views(rng, 40, (7,))[0])
    C10, info = ssc_admm(R, 0.05, max_iter=10, tol=0, precision="float64", return_dual=True)
    C20, _ = ssc_admm(R, 0.05, max_iter=20, tol=0, precision="float64")
    got, sub = diversity_subproblem(R, 0.05, C10, dual=info["dual"], rho=info["rho"], max_iter=10,
                                    tol=0, precision="float64")
    assert sub["accepted"] and sub["n_iter"] == 10
    np.testing.assert_allclose(got.toarray(), C20.toarray(), atol=1e-10)


def test_diversity_subproblem_restarted_at_its_solution_with_its_dual_stays_there():
    # The dual handed back is the pull-free one; moved by -(mu/rho)(C0 - W) it makes the
    # solution a fixed point again: a restart stays there (same iterate, same value) and
    # stops at once, instead of iterating on until round-off lets its value pass the
    # no-worse check (it took 50 iterations, as many as the cold solve, before that
    # check allowed for round-off).
    rng = np.random.default_rng(2)
    R = solver.gram_factor(random_views(rng, 25, (7,))[0])
    W = 0.05 * rng.standard_normal((25, 25))
    C, info = diversity_subproblem(R, 0.05, np.zeros((25, 25)), W, 0.7, max_iter=5000, tol=1e-11)
    assert info["converged"]
    again, info2 = diversity_subproblem(R, 0.05, C, W, 0.7, dual=info["dual"], rho=info["rho"],
                                        max_iter=5000, tol=1e-9, check_every=5)
    assert info2["converged"] and info2["accepted"]
    np.testing.assert_allclose(again.toarray(), C.toarray(), atol=1e-9)
    assert info2["value"] == pytest.approx(info["value"], rel=1e-12)
    assert info2["n_iter"] <= 2 * 5 < info["n_iter"]  # within its first two checks


def test_diversity_subproblem_never_returns_a_worse_point():
    # From a rough start (3 SSC iterations) and its stationary dual, the first ADMM
    # iterate is worse than the start: the subproblem must return the start then, and
    # otherwise a point no worse than it (what keeps DiMSC's objective monotone).
    rng = np.random.default_rng(4)
    R = solver.gram_factor(random_views(rng, 30, (6,))[0])
    C0, _ = ssc_admm(R, 0.05, max_iter=3, tol=0)
    W = C0.toarray() + 0.05 * rng.standard_normal((30, 30))
    start = surrogate(R, 0.05, C0, W, 0.5)
    accepted = []
    for it in (1, 2, 3, 5, 40):
        C, info = diversity_subproblem(R, 0.05, C0, W, 0.5, max_iter=it, check_every=1, tol=0,
                                       precision="float64")
        value = surrogate(R, 0.05, C, W, 0.5)
        assert info["start_value"] == pytest.approx(start, rel=1e-12)
        assert value == pytest.approx(info["value"], rel=1e-12)
        assert value <= start * (1 + 1e-12)
        if not info["accepted"]:
            assert abs(C - C0).max() == 0
        accepted.append(info["accepted"])
    assert accepted[0] is False and accepted[-1] is True   # the guard is exercised
    assert value < start


def test_diversity_subproblem_float32_products_within_tolerance_of_float64():
    # The fused product in float32 (SSC's rule at tol >= 1e-5): after 100 iterations the
    # surrogate agrees with float64's to 1e-5 relative and the iterates to 1e-4 of their norm.
    rng = np.random.default_rng(6)
    R = solver.gram_factor(random_views(rng, 120, (10,))[0])
    C0, info = ssc_admm(R, 0.05, max_iter=50, return_dual=True)
    W = C0.toarray() + 0.01 * rng.standard_normal((120, 120))
    out = {}
    for precision in ("float32", "float64"):
        out[precision] = diversity_subproblem(R, 0.05, C0, W, 0.3, dual=info["dual"],
                                              rho=info["rho"], max_iter=100, tol=1e-4,
                                              precision=precision)
    (C32, i32), (C64, i64) = out["float32"], out["float64"]
    assert i32["value"] == pytest.approx(i64["value"], rel=1e-5)
    assert abs(C32 - C64).max() <= 1e-4 * abs(C64).max()


@pytest.mark.parametrize("inner_iter", [1, 5, None])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dimsc_objective_never_increases_on_random_problems(seed, inner_iter):
    rng = np.random.default_rng(seed)
    views = random_views(rng, 40, (5, 9, 3))
    est = DiMSC(3, lam=30.0, beta=0.05, outer_iter=4, outer_tol=0, inner_iter=inner_iter,
                max_iter=60, random_state=0).fit(views)
    assert est.inner_iters_.shape == (est.n_iter_, 3)
    assert np.all(np.diff(est.objective_) <= 1e-12 * est.objective_[0])
    assert est.objective_[-1] < est.objective_[0]
    # objective_ is the model's objective at the returned representations
    Rs = [solver.gram_factor(normalize_l2(X)) for X in views]
    assert dimsc_objective(Rs, est.view_coefs_, est.betas_, 30.0)[0] == pytest.approx(
        est.objective_[-1], rel=1e-12)


def test_dimsc_keep_mass_thresholds_every_view_before_averaging():
    from rmsc.spectral import affinity_from_coefficients

    views, _ = union_of_subspaces(seed=1)
    est = DiMSC(3, lam=50.0, beta=0.01, outer_iter=2, keep_mass=0.6, random_state=0).fit(views)
    S = sum(affinity_from_coefficients(Z, keep_mass=0.6) for Z in est.view_coefs_) / 2
    np.testing.assert_allclose(est.affinity_matrix_.toarray(), S.toarray(), rtol=1e-15, atol=0)
    plain = sum(affinity_from_coefficients(Z) for Z in est.view_coefs_) / 2
    assert est.affinity_matrix_.nnz < plain.nnz
    with pytest.raises(ValueError, match=r"keep_mass must be a number in \(0, 1\]"):
        DiMSC(2, keep_mass=0.0).fit([np.eye(4), np.eye(4)])


# ---------------------------------------------------------------------------
# Conventions and registry
# ---------------------------------------------------------------------------


ESTIMATORS = [SCBSV(3, view=1), MSC(3, r=3.0), CoRegPairwise(3, lam=0.02),
              CoRegCentroid(3, lam=[0.1, 0.2]), CoTraining(3, n_projection=4), DiMSC(3, lam=0.5)]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_sklearn_conventions_and_bad_input(est):
    c = clone(est)
    assert c.get_params() == est.get_params()
    assert not any(k.endswith("_") for k in vars(c))                 # nothing fitted in __init__
    with pytest.raises(ValueError, match="list of views"):
        clone(est).fit(np.eye(5))
    with pytest.raises(ValueError, match="different numbers of samples"):
        clone(est).fit([np.ones((6, 2)), np.ones((5, 2))])
    with pytest.raises(ValueError, match="n_clusters"):
        clone(est).set_params(n_clusters=1).fit([np.eye(6), np.eye(6)])


def test_registry_reaches_every_paper_method_in_table_order():
    # the paper's set and order: its Table 1 as transcribed (rmsc.experiments.paper), and
    # the registry's in_paper specs, first in the registry, in that order
    names = list(PAPER_TABLE1)
    assert paper_methods() == names == rmsc.available_methods()[:len(names)]
    kinds = {"SC-BSV": SCBSV, "MSC": MSC, "Co-Pairwise": CoRegPairwise,
             "Co-Centroid": CoRegCentroid, "Co-Training": CoTraining, "SSC-BSV": rmsc.SSCBSV,
             "SSC-AVG": SSCAVG, "DiMSC": DiMSC, "RMSC-WV": rmsc.RMSC, "RMSC": rmsc.RMSC}
    assert set(kinds) == set(names)
    for name, kind in kinds.items():
        est = rmsc.get_method(name.lower(), n_clusters=4)
        assert type(est) is kind and est.n_clusters == 4
    assert rmsc.get_method("Co-Pairwise", lam=0.05).lam == 0.05


def test_dimsc_takes_alpha_as_the_ssc_estimators():
    views = coherence_views()  # mu = .6 and .8, worked out in its docstring
    est = DiMSC(2, lam=0.0, alpha=4, random_state=0).fit(views)
    assert est.betas_ == pytest.approx([0.3, 0.4], rel=1e-12)          # 2 mu_v / 4
    assert np.array_equal(est.alphas_, [4.0, 4.0])
    avg = SSCAVG(2, alpha=4, random_state=0).fit(views)                 # the same SSC start
    for a, b in zip(est.view_coefs_, avg.view_coefs_):
        assert abs(a - b).max() == 0
    div = DiMSC(2, lam=50.0, alpha=4, outer_iter=2, random_state=0).fit(views)
    assert np.array_equal(div.betas_, est.betas_)
    numeric = DiMSC(2, lam=0.0, beta=0.3, alpha=50, random_state=0).fit(views)
    assert numeric.alphas_ == pytest.approx([4.0, 2 * 0.8 / 0.3], rel=1e-12)
    assert rmsc.get_method("DiMSC", alpha=4).get_params()["alpha"] == 4
    with pytest.raises(ValueError, match=r"alpha must be a finite number > 1"):
        DiMSC(2, alpha=1.0).fit(views)
