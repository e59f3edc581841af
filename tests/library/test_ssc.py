"""SSC's ADMM against a brute-force proximal-gradient solve; the SSC baselines."""

import numpy as np
import pytest
from sklearn.base import clone

import rmsc
from rmsc import SSC, SSCAVG, SSCBSV, solver
from rmsc.ssc import ssc_admm
from tests.support import coherence_views, random_views, union_of_subspaces


def _ista(X, beta, iters=30000):
    """Proximal gradient on ||X - XZ||^2 + beta ||Z||_1, diag(Z) = 0 (samples as rows)."""
    G = X @ X.T
    L = 2 * np.linalg.eigvalsh(G).max()
    Z = np.zeros_like(G)
    for _ in range(iters):
        Z = Z - 2 * (G @ Z - G) / L
        Z = np.sign(Z) * np.maximum(np.abs(Z) - beta / L, 0)
        np.fill_diagonal(Z, 0)
    return Z


@pytest.mark.parametrize("d", [6, 40])  # Woodbury factor and Gram factor (d > n)
def test_admm_reaches_the_lasso_optimum(d):
    rng = np.random.default_rng(0)
    X = random_views(rng, 25, (d,))[0]
    beta = 0.05
    C, info = ssc_admm(solver.gram_factor(X), beta, max_iter=3000, tol=1e-9)
    assert info["converged"]
    Zi = _ista(X, beta)
    obj = lambda Z: np.sum((X.T - X.T @ Z) ** 2) + beta * np.abs(Z).sum()  # noqa: E731
    assert obj(C.toarray()) <= obj(Zi) + 1e-7
    if d > 25:  # G has full rank: the minimiser is unique
        assert np.abs(C.toarray() - Zi).max() < 1e-3
    assert np.all(C.diagonal() == 0)
    # KKT: on the support, 2 (G (I - C))_ij = beta sign(C_ij); off it, |.| <= beta.
    G = X @ X.T
    grad = 2 * (G - G @ C.toarray())
    Cd = C.toarray()
    on = Cd != 0
    assert np.allclose(grad[on], beta * np.sign(Cd[on]), atol=1e-5)
    off = ~on & ~np.eye(25, dtype=bool)
    assert np.all(np.abs(grad[off]) <= beta + 1e-5)


def test_ssc_recovers_subspaces_and_baselines_fit():
    views, y = union_of_subspaces(seed=1)
    m = SSC(3, beta=0.01, random_state=0).fit(views[0])
    assert rmsc.evaluate(y, m.labels_)["acc"] >= 0.95
    avg = SSCAVG(3, beta=0.01, random_state=0).fit(views)
    assert rmsc.evaluate(y, avg.labels_)["acc"] >= 0.95
    S = sum((abs(C) + abs(C.T)) / 2 for C in avg.view_coefs_) / 2
    assert np.allclose(avg.affinity_matrix_.toarray(), S.toarray())
    bsv = SSCBSV(3, beta=0.01, random_state=0).fit(views)
    assert bsv.view_label_runs_.shape == (2, 20, len(y))
    assert np.array_equal(bsv.label_runs_, bsv.view_label_runs_[bsv.view_])
    assert bsv.view_ == int(np.argmax(bsv.view_eigengaps_))
    forced = SSCBSV(3, beta=0.01, random_state=0, view=1).fit(views)
    assert forced.view_ == 1 and np.array_equal(forced.label_runs_, forced.view_label_runs_[1])


def test_ssc_estimators_threshold_each_view_with_keep_mass():
    from rmsc.spectral import affinity_from_coefficients

    views, _ = union_of_subspaces(seed=1)
    one = SSC(3, beta=0.01, keep_mass=0.6, random_state=0).fit(views[0])
    assert np.array_equal(one.affinity_matrix_.toarray(),
                          affinity_from_coefficients(one.coef_, keep_mass=0.6).toarray())
    avg = SSCAVG(3, beta=0.01, keep_mass=0.6, random_state=0).fit(views)
    S = sum(affinity_from_coefficients(C, keep_mass=0.6) for C in avg.view_coefs_) / 2
    np.testing.assert_allclose(avg.affinity_matrix_.toarray(), S.toarray(), rtol=1e-15, atol=0)
    plain = SSCAVG(3, beta=0.01, random_state=0).fit(views)
    assert avg.affinity_matrix_.nnz < plain.affinity_matrix_.nnz
    bsv = SSCBSV(3, beta=0.01, keep_mass=0.6, top_k=4, scale_columns=True,
                 random_state=0).fit(views)
    for C, Sv in zip(bsv.view_coefs_, bsv.view_affinities_):
        want = affinity_from_coefficients(C, keep_mass=0.6, top_k=4, scale_columns=True)
        assert np.array_equal(Sv.toarray(), want.toarray())
    for bad in (0, 1.01, -1):
        with pytest.raises(ValueError, match=r"keep_mass must be a number in \(0, 1\]"):
            SSCAVG(2, keep_mass=bad).fit([np.eye(4)])


def test_ssc_estimators_follow_sklearn_conventions():
    for est in (SSC(3), SSCAVG(3), SSCBSV(3, view=0)):
        c = clone(est)
        assert c.get_params() == est.get_params()
    with pytest.raises(ValueError, match="beta must be positive"):
        SSCAVG(2, beta=0).fit([np.eye(4)])
    with pytest.raises(ValueError, match="SSC clusters one view"):
        SSC(2).fit([np.eye(4), np.eye(4)])
    with pytest.raises(ValueError, match="not a view index"):
        SSCBSV(2, view=3).fit([np.eye(4)])


def test_coherence_and_auto_beta_match_brute_force():
    from rmsc.ssc import SSC_ALPHA, auto_beta, coherence
    rng = np.random.default_rng(4)
    X = rng.standard_normal((23, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    G = np.abs(X @ X.T)
    np.fill_diagonal(G, 0.0)
    mu = G.max(axis=0).min()
    R = solver.gram_factor(X)
    assert coherence(R, block_size=4) == pytest.approx(mu, rel=1e-12)
    assert auto_beta(R) == pytest.approx(2 * mu / SSC_ALPHA, rel=1e-12)
    with pytest.raises(ValueError, match="orthogonal"):
        auto_beta(solver.gram_factor(np.eye(5)))


def test_auto_beta_is_resolved_per_view_and_bad_strings_are_refused(subspaces):
    from rmsc.ssc import auto_beta
    views, y = subspaces
    avg = SSCAVG(3, random_state=0).fit(views)
    expected = [auto_beta(solver.gram_factor(X / np.linalg.norm(X, axis=1, keepdims=True)))
                for X in views]
    assert np.allclose(avg.betas_, expected)
    assert rmsc.evaluate(y, avg.labels_)["acc"] >= 0.9
    with pytest.raises(ValueError, match="positive number or 'auto'"):
        SSC(3, beta="large").fit(views[0])


def test_residual_balancing_rule():
    # Boyd et al. 2011, Sec. 3.4.1 with mu = 10, tau = 2: rho grows when the primal residual
    # dominates, shrinks when the dual does, and stays within a factor of 10 either way.
    from rmsc.ssc import residual_balancing

    assert residual_balancing(11.0, 1.0) == 2.0
    assert residual_balancing(1.0, 11.0) == 0.5
    assert residual_balancing(10.0, 1.0) == 1.0
    assert residual_balancing(1.0, 10.0) == 1.0
    assert residual_balancing(3.0, 1.0, mu=2.0, tau=3.0) == 3.0


@pytest.mark.parametrize("d", [6, 40])  # X^T itself and the eigen-factor (d > n): round-off differs
def test_auto_beta_ignores_an_all_zero_sample(d):
    # Elhamifar & Vidal's mu is over the samples to represent: an empty one (a document with no
    # words, Reuter view 3) has no inner product with anything and must not pull mu to ~0.
    from rmsc.ssc import SSC_ALPHA, auto_beta, coherence
    rng = np.random.default_rng(7)
    X = rng.standard_normal((25, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    G = np.abs(X @ X.T)
    np.fill_diagonal(G, 0.0)
    mu = G.max(axis=0).min()
    X_empty = np.vstack([X[:12], np.zeros((1, d)), X[12:]])
    R = solver.gram_factor(X_empty)
    assert coherence(R) == pytest.approx(mu, rel=1e-10)
    assert auto_beta(R) == pytest.approx(2 * mu / SSC_ALPHA, rel=1e-10)
    # DiMSC resolves "auto" with the same rule.
    est = rmsc.DiMSC(2, lam=0.0, max_iter=5, random_state=0).fit([X_empty])
    assert est.betas_[0] == pytest.approx(2 * mu / SSC_ALPHA, rel=1e-10)
    with pytest.raises(ValueError, match="all zero"):
        auto_beta(solver.gram_factor(np.zeros((5, 3))))


def isolated_documents_view(n=30, d=40, isolated=5, seed=0):
    """A text-like view where the first ``isolated`` documents share no word with any other
    (each uses a word of its own), seen through a random rotation of the features: their
    inner products with the others are 0 in exact arithmetic and round-off (~1e-16) as
    computed, the SSC reference's coherence 0 (as on a public 203-page web set)."""
    rng = np.random.default_rng(seed)
    X = np.zeros((n, d))
    X[np.arange(isolated), np.arange(isolated)] = 1.0 + rng.random(isolated)
    for j in range(isolated, n):  # two topics of 15 words, 3 words a document
        X[j, isolated + 15 * (j % 2) + rng.choice(15, 3, replace=False)] = rng.random(3) + 0.5
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    return X, X @ Q


def test_auto_beta_on_a_view_whose_coherence_is_zero_warns_and_uses_the_linked_samples():
    from rmsc.ssc import SSC_ALPHA, auto_beta, coherence
    X, view = isolated_documents_view()
    G = np.abs(X @ X.T)
    np.fill_diagonal(G, 0.0)
    best = G.max(axis=0)
    assert best[:5].max() == 0 and best.min() == 0  # the reference's mu: 0
    R = solver.gram_factor(view)
    raw = np.abs(R.T @ R)
    np.fill_diagonal(raw, 0.0)
    assert raw.max(axis=0).min() < 1e-15  # as computed: round-off, a beta of ~1e-17
    mu = best[5:].min()  # over the documents that share words with others
    assert coherence(R) == pytest.approx(mu, rel=1e-10)
    with pytest.warns(UserWarning, match=r"5 of the 30 non-empty samples of this view share "
                                         r"no feature.*coherence of the other 25 samples"):
        assert auto_beta(R) == pytest.approx(2 * mu / SSC_ALPHA, rel=1e-10)
    # the estimators: the view named, a beta that makes Z sparse, the topics found
    y = np.r_[np.arange(5) % 2, np.arange(5, 30) % 2]
    dense = np.random.default_rng(1).standard_normal((30, 4)) + 3 * y[:, None]
    with pytest.warns(UserWarning, match="samples of view 1 share no feature"):
        est = SSCAVG(2, random_state=0).fit([dense, view])
    assert est.betas_[1] == pytest.approx(2 * mu / SSC_ALPHA, rel=1e-10)
    C = est.view_coefs_[1]
    assert C.nnz < 0.5 * 30 * 29
    assert C[:, :5].nnz == 0  # the isolated documents get no representation
    with pytest.warns(UserWarning, match="share no feature"):
        assert rmsc.SSCBSV(2, random_state=0).fit([view]).betas_[0] == pytest.approx(
            2 * mu / SSC_ALPHA, rel=1e-10)


def test_admm_dense_and_sparse_storage_and_float32_agree(monkeypatch):
    # C is held dense once it is denser than DENSE_ZSTAR_DENSITY: the same iterates
    # either way in float64; float32 products move the objective by round-off only.
    from rmsc.solver import _zstar_step
    rng = np.random.default_rng(3)
    R = solver.gram_factor(random_views(rng, 60, (5,))[0])
    runs = {}
    for name, density in (("sparse", 2.0), ("dense", 0.0)):
        monkeypatch.setattr(_zstar_step, "DENSE_ZSTAR_DENSITY", density)
        runs[name] = ssc_admm(R, 0.05, max_iter=40, tol=1e-4, precision="float64")
    (Cs, infos), (Cd, infod) = runs["sparse"], runs["dense"]
    assert Cs.nnz > 0.1 * 60 * 60  # the dense path was taken in the second run
    assert abs(Cs - Cd).max() < 1e-12
    assert infos["n_iter"] == infod["n_iter"] and infos["rho"] == infod["rho"]
    monkeypatch.undo()
    C32, info32 = ssc_admm(R, 0.05, max_iter=40, tol=1e-4, precision="float32")
    assert info32["objective"][-1] == pytest.approx(infos["objective"][-1], rel=1e-5)
    assert abs(C32 - Cs).max() < 1e-4
    assert C32.dtype == np.float64 and np.all(C32.diagonal() == 0)
    with pytest.raises(ValueError, match="precision must be"):
        ssc_admm(R, 0.05, precision="half")


# --- alpha: Elhamifar & Vidal's relative weight, beta = 2 mu / alpha per view ---------------


def test_alpha_sets_each_views_beta_to_two_mu_over_alpha():
    from rmsc.ssc import auto_beta, coherence
    views = coherence_views()
    Rs = [solver.gram_factor(X) for X in views]
    assert [coherence(R) for R in Rs] == pytest.approx([0.6, 0.8], rel=1e-12)
    assert [auto_beta(R, 4) for R in Rs] == pytest.approx([0.3, 0.4], rel=1e-12)
    for est in (SSCAVG(2, alpha=4, random_state=0), SSCBSV(2, alpha=4, random_state=0)):
        est.fit(views)
        assert est.betas_ == pytest.approx([0.3, 0.4], rel=1e-12)
        assert np.array_equal(est.alphas_, [4.0, 4.0])
        assert rmsc.evaluate([0, 0, 0, 1, 1, 1], est.labels_)["acc"] == 1.0
    # alpha 8 halves beta; and the beta reported is the one solved with.
    one = SSC(2, alpha=8, random_state=0).fit(views[1])
    assert one.betas_ == pytest.approx([0.2], rel=1e-12) and np.array_equal(one.alphas_, [8.0])
    C, _ = ssc_admm(Rs[1], 0.2)
    assert abs(one.coef_ - C).max() < 1e-12


def test_numeric_beta_reports_the_alpha_it_amounts_to_and_ignores_alpha():
    views = coherence_views()
    est = SSCAVG(2, beta=0.3, random_state=0).fit(views)
    assert np.array_equal(est.betas_, [0.3, 0.3])
    assert est.alphas_ == pytest.approx([4.0, 2 * 0.8 / 0.3], rel=1e-12)  # 2 mu_v / beta
    other = SSCAVG(2, beta=0.3, alpha=50, random_state=0).fit(views)
    assert np.array_equal(other.alphas_, est.alphas_)
    for a, b in zip(other.view_coefs_, est.view_coefs_):
        assert abs(a - b).max() == 0
    # The reported alpha carries the setting back: alpha = alphas_[v] gives the same beta.
    back = SSC(2, alpha=est.alphas_[1], random_state=0).fit(views[1])
    assert back.betas_ == pytest.approx([0.3], rel=1e-12)
    assert SSC(2, beta=0.2, random_state=0).fit(views[1]).alphas_ == pytest.approx([8.0])


def test_alpha_at_most_one_leaves_the_least_coherent_sample_unrepresented():
    # Why alpha must exceed 1: column j of Z is empty once beta >= 2 max_i |x_i^T x_j|. In view 0
    # sample 0's largest is mu = .6: at alpha = 1 (beta = 1.2) its column empties, the others
    # (largest .8, threshold 1.6) do not; at alpha = 1.2 (beta = 1) every column has a nonzero.
    from rmsc.ssc import auto_beta
    R = solver.gram_factor(coherence_views()[0])
    at_one = ssc_admm(R, auto_beta(R, 1.0), max_iter=2000, tol=1e-9)[0].toarray()
    assert np.abs(at_one[:, [0, 3]]).max() < 1e-12  # on the threshold: round-off at most
    assert all(np.count_nonzero(at_one[:, j]) > 0 for j in (1, 2, 4, 5))
    above = ssc_admm(R, auto_beta(R, 1.2), max_iter=2000, tol=1e-9)[0].toarray()
    assert all(np.count_nonzero(above[:, j]) > 0 for j in range(6))


@pytest.mark.parametrize("bad", [1, 1.0, 0.5, 0, -20, float("nan"), float("inf"), "20", None, True])
def test_alpha_is_refused_unless_a_finite_number_above_one(bad):
    views = coherence_views()
    for est in (SSC(2, alpha=bad), SSCAVG(2, alpha=bad), SSCBSV(2, alpha=bad),
                SSCAVG(2, beta=0.3, alpha=bad)):  # checked even when a numeric beta ignores it
        with pytest.raises(ValueError, match=r"alpha must be a finite number > 1 .*"
                                             r"at least one sample gets no representation"):
            est.fit(views[:1] if isinstance(est, SSC) else views)


def test_default_alpha_is_the_ssc_references_and_changes_nothing(subspaces):
    from rmsc.ssc import SSC_ALPHA, auto_beta
    assert SSC_ALPHA == 20
    for est in (SSC(), SSCAVG(), SSCBSV(), rmsc.DiMSC(), rmsc.get_method("SSC-AVG"),
                rmsc.get_method("SSC-BSV"), rmsc.get_method("DiMSC")):
        assert est.get_params()["alpha"] == SSC_ALPHA
        assert clone(est.set_params(alpha=7)).alpha == 7
    views, _ = subspaces
    avg = SSCAVG(3, random_state=0).fit(views)
    Rs = [solver.gram_factor(X / np.linalg.norm(X, axis=1, keepdims=True)) for X in views]
    assert np.array_equal(avg.betas_, [auto_beta(R) for R in Rs])
    assert np.array_equal(avg.alphas_, [SSC_ALPHA] * len(views))
    # Solved exactly as with the explicit beta auto_beta(R).
    for C, R in zip(avg.view_coefs_, Rs):
        assert abs(C - ssc_admm(R, auto_beta(R))[0]).max() == 0


def test_multiview_ssc_reports_each_views_iterations():
    views, _ = union_of_subspaces(seed=1)
    # tol = 0 is never reached: every view runs max_iter.
    for est in (SSCAVG(3, beta=0.01, max_iter=7, tol=0, random_state=0),
                SSCBSV(3, beta=0.01, max_iter=7, tol=0, random_state=0)):
        assert est.fit(views).view_n_iter_.tolist() == [7, 7]
    # A loose tol stops at the first check (every check_every = 5 iterations).
    loose = SSCAVG(3, beta=0.01, max_iter=50, tol=1e3, random_state=0).fit(views)
    assert loose.view_n_iter_.tolist() == [5, 5]


def test_an_all_zero_iterate_cut_short_asks_for_more_iterations_not_a_lower_beta():
    from rmsc.preprocessing import normalize_l2

    views, _ = union_of_subspaces(seed=1)
    X = normalize_l2(views[0])
    G = np.abs(X @ X.T)
    np.fill_diagonal(G, 0)
    beta = 1.9 * G.max()  # below 2 max |x_i^T x_j|: the optimum is not all zero
    with pytest.raises(ValueError, match=r"still all zero after max_iter=5 .*Raise max_iter"):
        SSC(3, beta=beta, max_iter=5, random_state=0).fit(views[0])
    with pytest.warns(UserWarning):  # a few samples stay unlinked at so large a beta
        assert SSC(3, beta=beta, random_state=0).fit(views[0]).coef_.nnz > 0
