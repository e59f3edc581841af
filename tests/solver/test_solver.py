"""The block updates against brute-force solves, and the whole solver against the paper form."""

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

from rmsc import solver
from rmsc._reference import solve_paper_form
from tests.support import random_views


def _factors(views):
    return [solver.gram_factor(X) for X in views]


#: The float32 rule (rmsc.solver.PRECISION): the Z*-step's products in float32 leave Z* within
#: 2e-6 of its largest entry, P within 1e-4 of its largest, the objective within 1e-6 relative,
#: and any increase of the objective below 1e-6 of its scale; float64 is the paper form to round-off.
TOLERANCE = {
    "float64": {"zstar": 1e-8, "p": 1e-8, "objective": 1e-8, "increase": 1e-10},
    "float32": {"zstar": 2e-6, "p": 1e-4, "objective": 1e-6, "increase": 1e-6},
}
TOLERANCE["auto"] = TOLERANCE["float32"]  # float32 while Z* is dense


# --- the formulas of the psi discussion -------------------------------------------------

@pytest.mark.parametrize("gamma", [1e-5, 0.1, 1.0])
@pytest.mark.parametrize("loss", [0.0, 0.03, 1.0, 7.5])
def test_minimizer_and_latent_loss_solve_the_weight_problem(gamma, loss):
    f = lambda p: p * loss + solver.psi(p, gamma)  # noqa: E731
    res = scipy.optimize.minimize_scalar(f, bounds=(1e-6, 1e4), method="bounded",
                                         options={"xatol": 1e-12})
    assert solver.minimizer(loss, gamma) == pytest.approx(res.x, rel=1e-4)
    assert solver.latent_loss(loss, gamma) == pytest.approx(res.fun, rel=1e-6, abs=1e-8)


def test_psi_matches_paper_definition():
    p = np.array([0.5, 1.0, 2.0])
    assert np.allclose(solver.psi(p, 0.3), 0.3 * p + 1 / p - 2)
    assert solver.psi(1.0, 0.0) == -1.0  # gamma + 1/1 - 2
    # phi(l) = min_p p l + psi(p) is concave and increasing (Lemma 1).
    ell = np.linspace(0, 5, 50)
    phi = solver.latent_loss(ell, 0.5)
    assert np.all(np.diff(phi) > 0) and np.all(np.diff(phi, 2) < 0)


# --- Z^v-step ------------------------------------------------------------------------------

@pytest.mark.parametrize("dims", [(5,), (30,)])  # d < n (Woodbury) and d > n (Gram factor)
def test_zv_step_matches_constrained_least_squares(dims):
    rng = np.random.default_rng(1)
    n, lam = 20, 0.7
    X = random_views(rng, n, dims)[0]
    Zs = sp.random(n, n, density=0.2, random_state=2, format="csc")
    Zs.setdiag(0)
    Zs.eliminate_zeros()
    view = solver.factorize_view(solver.gram_factor(X), lam)
    rep = solver.zv_step(view, solver.residual_operator(view, Zs))
    Z = Zs.toarray() - np.diag(rep.D) + view.R.T @ rep.Q
    # Brute force: column j solves min ||x_j - X z||^2 + lam ||z - z*_j||^2 with z_j = 0,
    # i.e. an unconstrained ridge problem over the other n - 1 coordinates.
    Xv, Zd = X.T, Zs.toarray()
    for j in range(n):
        keep = np.arange(n) != j
        A = Xv[:, keep]
        z = np.linalg.solve(A.T @ A + lam * np.eye(n - 1), A.T @ Xv[:, j] + lam * Zd[keep, j])
        assert np.allclose(Z[keep, j], z, atol=1e-10)
        assert abs(Z[j, j]) < 1e-12


def test_sample_losses_match_direct_computation():
    rng = np.random.default_rng(3)
    n, lam = 25, 0.4
    X = random_views(rng, n, (6,))[0]
    Zref = sp.random(n, n, density=0.3, random_state=4, format="csc")
    Zref.setdiag(0)
    Znow = sp.random(n, n, density=0.3, random_state=5, format="csc")
    Znow.setdiag(0)
    view = solver.factorize_view(solver.gram_factor(X), lam)
    rep = solver.zv_step(view, solver.residual_operator(view, Zref))
    Zv = Zref.toarray() - np.diag(rep.D) + view.R.T @ rep.Q
    delta = (Zref - Znow).toarray()
    recon, coupling = solver.sample_losses(
        view, rep, solver.residual_operator(view, Znow), (delta ** 2).sum(axis=0))
    assert np.allclose(recon, ((X.T - X.T @ Zv) ** 2).sum(axis=0), atol=1e-12)
    assert np.allclose(coupling, ((Zv - Znow.toarray()) ** 2).sum(axis=0), atol=1e-12)


# --- P-step --------------------------------------------------------------------------------

def test_p_step_sample_and_view_weighting():
    losses = np.array([[0.0, 0.5, 3.0], [1.0, 1.0, 1.0]])
    P = solver.p_step(losses, 0.01)
    assert np.allclose(P, 1 / np.sqrt(0.01 + losses))
    Pv = solver.p_step(losses, 0.01, weighting="view")
    assert np.allclose(Pv[0], 1 / np.sqrt(0.01 + 3.5))
    assert np.allclose(Pv[1], 1 / np.sqrt(0.01 + 3.0))


def test_initial_weights_are_one_per_sample_and_the_p_step_per_view():
    losses = np.array([[0.0, 0.5, 3.0], [1.0, 1.0, 1.0]])
    assert np.array_equal(solver.initial_weights(losses, 0.01), np.ones((2, 3)))
    assert np.allclose(solver.initial_weights(losses, 0.01, "view"),
                       solver.p_step(losses, 0.01, weighting="view"))


def test_rmsc_wv_first_consensus_is_as_sparse_as_its_beta_unit_says():
    # One weight per view is ~1/sqrt(n): starting RMSC-WV from P = 1 made its first Z*-step
    # threshold ~sqrt(n) too low, so the first Z* was nearly dense (13 GB at n = 20,000).
    from rmsc import RMSC
    from rmsc.datasets import make_multiview_subspaces
    d = make_multiview_subspaces(n_clusters=5, n_per_cluster=200, n_views=2, view_dims=(40, 60),
                                 subspace_dim=4, noise=0.05, random_state=0)
    first = RMSC(5, weighting="view", max_iter=1, tol=0, random_state=0).fit(d.views)
    last = RMSC(5, weighting="view", max_iter=30, random_state=0).fit(d.views)
    n = d.n_samples
    assert first.consensus_.nnz / n < 2 * last.consensus_.nnz / n < 0.2 * n
    assert first.beta_ == last.beta_


def test_p_step_with_gamma_zero_and_exact_sample_explains():
    with pytest.raises(ValueError, match="gamma = 0.*sample 1 in view 0.*gamma > 0"):
        solver.p_step(np.array([[0.2, 0.0]]), 0.0)


# --- Z*-step -------------------------------------------------------------------------------

def test_zstar_step_matches_entrywise_minimization():
    rng = np.random.default_rng(6)
    n, lam, beta = 15, 0.8, 0.3
    views = random_views(rng, n, (4, 9))
    facs = [solver.factorize_view(solver.gram_factor(X), lam) for X in views]
    Zref = sp.csc_matrix((n, n))
    reps = [solver.zv_step(v, v.R.copy()) for v in facs]
    P = rng.uniform(0.2, 3.0, size=(2, n))
    step = solver.zstar_step(facs, reps, Zref, P, lam, beta, block_size=4, with_beta_max=True)
    Zs, RZ, beta_max = step.Z, step.RZ, step.beta_max
    Zv = [-np.diag(r.D) + v.R.T @ r.Q for v, r in zip(facs, reps)]
    for i in range(n):
        for j in range(n):
            f = lambda z: lam * sum(P[v, j] * (z - Zv[v][i, j]) ** 2 for v in range(2)) + beta * abs(z)  # noqa: E731
            best = scipy.optimize.minimize_scalar(f, bounds=(-5, 5), method="bounded",
                                                  options={"xatol": 1e-12}).x
            assert Zs[i, j] == pytest.approx(best, abs=1e-7)
    for v, fac in enumerate(facs):
        assert np.allclose(RZ[v], fac.R @ Zs.toarray())
    # beta_max is exactly where the step empties Z*.
    assert solver.zstar_step(facs, reps, Zref, P, lam, beta_max * 1.0001).Z.nnz == 0
    assert solver.zstar_step(facs, reps, Zref, P, lam, beta_max * 0.99).Z.nnz > 0


# --- the whole algorithm -------------------------------------------------------------------

@pytest.mark.parametrize("precision", solver.PRECISIONS)
@pytest.mark.parametrize("weighting", ["sample", "view"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_solver_equals_paper_form(weighting, seed, precision):
    tol = TOLERANCE[precision]
    rng = np.random.default_rng(seed)
    n = 30 + 5 * seed
    views = random_views(rng, n, (4, 11, n + 7))  # includes a view with d > n
    lam, beta, gamma = (0.3, 1.0, 3.0)[seed], 0.05, 1e-5
    ref = solve_paper_form(views, lam, beta, gamma, weighting=weighting, max_iter=6)
    sol = solver.solve(_factors(views), lam, beta, gamma, weighting=weighting,
                       max_iter=6, tol=0, block_size=7, precision=precision)
    assert sol.Zstar.nnz > 0
    scale = 1.0 if precision == "float64" else np.abs(ref["Zstar"]).max()
    if precision == "auto" and sol.Zstar.nnz <= 0.1 * n * n:  # sparse Z*: float64 throughout
        assert np.abs(sol.Zstar.toarray() - ref["Zstar"]).max() < 1e-8
    assert np.abs(sol.Zstar.toarray() - ref["Zstar"]).max() < tol["zstar"] * scale
    assert np.abs(sol.P - ref["P"]).max() < tol["p"] * np.abs(ref["P"]).max()
    assert np.allclose(sol.objective, ref["objective"], rtol=tol["objective"],
                       atol=tol["objective"])
    assert sol.objective_init == pytest.approx(ref["objective_init"], rel=1e-10)


@pytest.mark.parametrize("precision", solver.PRECISIONS)
@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_objective_never_increases_on_many_random_problems(weighting, precision):
    for seed in range(25):
        rng = np.random.default_rng(100 + seed)
        n = int(rng.integers(8, 40))
        dims = tuple(int(d) for d in rng.integers(2, 50, size=rng.integers(1, 4)))
        views = random_views(rng, n, dims)
        lam = float(10 ** rng.uniform(-2, 1.5))
        beta = float(10 ** rng.uniform(-3, 0))
        gamma = float(10 ** rng.uniform(-6, 0))
        sol = solver.solve(_factors(views), lam, beta, gamma, weighting=weighting,
                           max_iter=12, tol=0, precision=precision)
        f = np.concatenate([[sol.objective_init], sol.objective])
        scale = np.abs(f).max() + 1.0
        assert np.all(np.diff(f) <= TOLERANCE[precision]["increase"] * scale), (
            seed, np.diff(f).max())


def test_objective_terms_add_up():
    rng = np.random.default_rng(9)
    views = random_views(rng, 20, (5, 7))
    sol = solver.solve(_factors(views), 1.0, 0.05, 1e-3, max_iter=4, tol=0)
    total = sum(sol.terms[k] for k in solver.OBJECTIVE_TERMS)
    assert np.allclose(total, sol.objective)
    assert np.allclose(sol.terms["sparsity"][-1], 0.05 * np.abs(sol.Zstar.data).sum())


def test_callback_sees_every_iteration_and_can_stop():
    rng = np.random.default_rng(10)
    views = random_views(rng, 20, (5, 7))
    seen = []

    def cb(it, f, P):
        seen.append((it, f, P.shape))
        return it == 3

    sol = solver.solve(_factors(views), 1.0, 0.05, 1e-5, max_iter=10, tol=0, callback=cb)
    assert [s[0] for s in seen] == [1, 2, 3]
    assert sol.n_iter == 3
    assert [s[1] for s in seen] == list(sol.objective)
    assert seen[0][2] == (2, 20)


def test_tolerance_stops_early():
    rng = np.random.default_rng(11)
    views = random_views(rng, 25, (5, 7))
    loose = solver.solve(_factors(views), 1.0, 0.05, 1e-5, max_iter=50, tol=1e-2)
    tight = solver.solve(_factors(views), 1.0, 0.05, 1e-5, max_iter=50, tol=0)
    assert loose.converged and loose.n_iter < 50
    assert tight.n_iter == 50 and not tight.converged


# --- streaming over column blocks changes nothing -------------------------------------------

@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_streamed_blocks_equal_one_in_memory_block_on_random_problems(weighting):
    for seed in range(5):
        rng = np.random.default_rng(200 + seed)
        n = int(rng.integers(20, 60))
        factors = _factors(random_views(rng, n, (3, 17, n + 5)))
        whole = solver.solve(factors, 0.4, 0.05, 1e-5, weighting=weighting, max_iter=8, tol=0,
                             block_size=n, precision="float64")
        for b in (1, 7, n - 1):
            streamed = solver.solve(factors, 0.4, 0.05, 1e-5, weighting=weighting, max_iter=8,
                                    tol=0, block_size=b, precision="float64")
            assert abs(streamed.Zstar - whole.Zstar).max() < 1e-8
            assert np.abs(streamed.P - whole.P).max() < 1e-8 * whole.P.max()
            assert np.allclose(streamed.objective, whole.objective, rtol=1e-10, atol=0)


@pytest.mark.slow
def test_streamed_blocks_equal_one_in_memory_block_on_digit():
    from rmsc import datasets
    from rmsc.preprocessing import normalize_l2

    data = datasets.load_digit()
    factors = _factors([normalize_l2(X) for X in data.views])
    n = data.n_samples
    whole = solver.solve(factors, 0.3, 0.3, 1e-5, max_iter=6, tol=0, block_size=n,
                         precision="float64")
    streamed = solver.solve(factors, 0.3, 0.3, 1e-5, max_iter=6, tol=0, block_size=97,
                            precision="float64")
    assert whole.Zstar.nnz > 0
    assert abs(streamed.Zstar - whole.Zstar).max() < 1e-8
    assert np.abs(streamed.P - whole.P).max() < 1e-8 * whole.P.max()
    assert np.allclose(streamed.objective, whole.objective, rtol=1e-10, atol=0)


@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_beta_max_is_where_the_consensus_stays_empty(weighting):
    for seed in range(4):
        rng = np.random.default_rng(300 + seed)
        factors = _factors(random_views(rng, 25, (4, 9)))
        lam, gamma = 0.5, 1e-3
        b = solver.beta_max(factors, lam, gamma, weighting=weighting)
        above = solver.solve(factors, lam, b * 1.001, gamma, weighting=weighting, max_iter=6,
                             tol=0)
        assert above.Zstar.nnz == 0
        assert not np.any(above.terms["sparsity"])
        # Just below, Z* is nonzero at the first or the second iteration.
        below = solver.solve(factors, lam, b * 0.999, gamma, weighting=weighting, max_iter=2,
                             tol=0)
        assert np.any(below.terms["sparsity"] > 0)


def test_view_representation_is_the_solvers_last_zv():
    rng = np.random.default_rng(4)
    views = random_views(rng, 30, (4, 11, 37))
    ref = solve_paper_form(views, 0.6, 0.05, 1e-5, max_iter=5)
    sol = solver.solve(_factors(views), 0.6, 0.05, 1e-5, max_iter=5, tol=0, precision="float64")
    for X, Zv in zip(views, ref["Zv"]):
        Z = solver.view_representation(solver.gram_factor(X), sol.Zstar, 0.6)
        assert np.abs(Z - Zv).max() < 1e-8
        assert np.all(np.diag(Z) == 0)


def test_consensus_gap_is_the_formed_zvs_distance_to_zstar():
    rng = np.random.default_rng(5)
    views = random_views(rng, 30, (3, 11, 37))  # one view with fewer features than samples
    sol = solver.solve(_factors(views), 0.6, 0.05, 1e-5, max_iter=5, tol=0, precision="float64")
    gaps = []
    for X in views:
        R = solver.gram_factor(X)
        formed = np.linalg.norm(solver.view_representation(R, sol.Zstar, 0.6)
                                - sol.Zstar.toarray())
        gaps.append(solver.consensus_gap(R, sol.Zstar, 0.6))
        assert gaps[-1] == pytest.approx(formed, rel=1e-8, abs=1e-10)
    assert gaps[0] < gaps[2]  # 3 features: more tables rebuild its samples, it follows Z*


def test_loss_of_weight_inverts_the_minimizer():
    loss = np.array([0.0, 1e-3, 0.5, 7.0])
    for gamma in (1e-5, 0.3):
        assert np.allclose(solver.loss_of_weight(solver.minimizer(loss, gamma), gamma), loss,
                           atol=1e-9)
    assert solver.loss_of_weight(0.0, 1e-5) == np.inf


def test_dense_and_sparse_consensus_storage_give_the_same_iterates(monkeypatch):
    # The solver holds Z* densely above DENSE_ZSTAR_DENSITY; storage must not change a digit
    # that matters, including the switches between the two within one solve.
    rng = np.random.default_rng(12)
    n = 40
    factors = _factors(random_views(rng, n, (5, 13, n + 3)))
    runs = {}
    for name, threshold in (("sparse", 2.0), ("dense", -1.0), ("auto", 0.1)):
        monkeypatch.setattr(solver._zstar_step, "DENSE_ZSTAR_DENSITY", threshold)
        runs[name] = [solver.solve(factors, lam, beta, 1e-5, max_iter=7, tol=0, block_size=9,
                                   with_beta_max=True, precision="float64")
                      for lam, beta in ((0.3, 0.01), (2.0, 0.2), (0.5, 0.05))]
    assert runs["sparse"][0].Zstar.nnz > 0.1 * n * n  # a dense consensus is among the cases
    for name in ("dense", "auto"):
        for a, b in zip(runs[name], runs["sparse"]):
            assert abs(a.Zstar - b.Zstar).max() < 1e-12
            assert np.allclose(a.objective, b.objective, rtol=1e-12, atol=0)
            assert np.allclose(a.P, b.P, rtol=1e-12, atol=0)
            assert a.beta_max == pytest.approx(b.beta_max, rel=1e-12)


def test_beta_max_from_the_solve_equals_the_separate_computation():
    rng = np.random.default_rng(13)
    factors = _factors(random_views(rng, 30, (4, 9, 35)))
    for weighting in ("sample", "view"):
        sol = solver.solve(factors, 0.7, 0.05, 1e-4, weighting=weighting, max_iter=3, tol=0,
                           with_beta_max=True)
        assert sol.beta_max == pytest.approx(
            solver.beta_max(factors, 0.7, 1e-4, weighting=weighting), rel=1e-12)


def test_eigen_factor_gives_a_diagonal_woodbury_and_the_same_zv_step():
    # A view with more features than samples is factored by its eigenvectors, whose K = R R^T
    # is diagonal: the Z^v-step then scales rows. Same result as the general Cholesky path.
    rng = np.random.default_rng(14)
    X = random_views(rng, 20, (45,))[0]
    R = solver.gram_factor(X)
    view = solver.factorize_view(R, 0.4)
    assert view.m_diag is not None
    general = solver.factorize_view(R + 0.0, 0.4)
    general.m_diag = None  # force the r x r product
    Zs = sp.random(20, 20, density=0.3, random_state=1, format="csc")
    Zs.setdiag(0)
    T = solver.residual_operator(view, Zs)
    a, b = solver.zv_step(view, T), solver.zv_step(general, T)
    assert np.allclose(a.Q, b.Q, atol=1e-12) and np.allclose(a.D, b.D, atol=1e-12)
    assert solver.factorize_view(X.T.copy(), 0.4).m_diag is None  # X^T rows are not orthogonal


@pytest.mark.parametrize("ref_dense", [False, True])
@pytest.mark.parametrize("out_dense", [False, True])
def test_threshold_columns_with_every_storage(ref_dense, out_dense):
    rng = np.random.default_rng(15)
    n, r = 23, 6
    R = rng.standard_normal((r, n))
    QW = rng.standard_normal((r, n))
    Zref = sp.random(n, n, density=0.4, random_state=3, format="csc")
    Zref.setdiag(0)
    Zref.eliminate_zeros()
    tau = rng.uniform(0.5, 2.0, n)
    out = solver.threshold_columns(R, QW, Zref.toarray() if ref_dense else Zref, tau,
                                   block_size=5, dense=out_dense, with_colmax=True)
    A = Zref.toarray() + R.T @ QW
    np.fill_diagonal(A, 0.0)
    Z = np.sign(A) * np.maximum(np.abs(A) - tau[None, :], 0.0)
    got = out.Z if out_dense else out.Z.toarray()
    assert isinstance(out.Z, np.ndarray) == out_dense
    assert np.allclose(got, Z, atol=1e-13)
    assert np.allclose(out.RZ, R @ Z, atol=1e-12)
    assert np.allclose(out.colmax, np.abs(A).max(axis=0))
    assert np.allclose(out.delta_sq, ((Zref.toarray() - Z) ** 2).sum(axis=0), atol=1e-12)


@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_kernel_form_gives_the_factor_forms_iterates(weighting, monkeypatch):
    # The kernel form (H_v = R_v^T M_v R_v, n x n) and the factor form are two ways to the
    # same Algorithm 1: same Z*, P, objective and beta_max, sparse and dense Z* alike.
    for seed, (lam, beta) in enumerate(((0.3, 0.01), (2.0, 0.2), (0.5, 0.05), (5.0, 0.5))):
        rng = np.random.default_rng(400 + seed)
        n = 25 + 4 * seed
        factors = _factors(random_views(rng, n, (3, n + 5, 2 * n)))
        kw = dict(weighting=weighting, max_iter=7, tol=0, block_size=6, with_beta_max=True,
                  precision="float64")
        k = solver.solve(factors, lam, beta, 1e-5, kernel=True, **kw)
        f = solver.solve(factors, lam, beta, 1e-5, kernel=False, **kw)
        assert abs(k.Zstar - f.Zstar).max() < 1e-10
        assert np.abs(k.P - f.P).max() < 1e-9 * f.P.max()
        assert np.allclose(k.objective, f.objective, rtol=1e-10, atol=1e-10)
        assert k.objective_init == pytest.approx(f.objective_init, rel=1e-12)
        assert k.beta_max == pytest.approx(f.beta_max, rel=1e-10)
        for term in solver.OBJECTIVE_TERMS:
            assert np.allclose(k.terms[term], f.terms[term], rtol=1e-9, atol=1e-9)


def test_kernel_form_equals_paper_form_and_is_chosen_for_text_like_views():
    rng = np.random.default_rng(17)
    n = 28
    views = random_views(rng, n, (n + 9, 2 * n, 40))   # every view has more features than samples
    factors = _factors(views)
    assert solver.use_kernel_form(factors)
    assert not solver.use_kernel_form(_factors(random_views(rng, n, (4, 6, 5))))
    ref = solve_paper_form(views, 0.4, 0.05, 1e-5, max_iter=6)
    sol = solver.solve(factors, 0.4, 0.05, 1e-5, max_iter=6, tol=0, block_size=5, kernel=True)
    assert sol.Zstar.nnz > 0
    assert np.abs(sol.Zstar.toarray() - ref["Zstar"]).max() < 1e-8
    assert np.abs(sol.P - ref["P"]).max() < 1e-8 * np.abs(ref["P"]).max()
    assert np.allclose(sol.objective, ref["objective"], rtol=1e-8, atol=1e-8)


def test_auto_precision_is_float64_for_a_sparse_consensus_and_float32_for_a_dense_one():
    rng = np.random.default_rng(18)
    factors = _factors(random_views(rng, 40, (5, 9)))
    for beta in (0.5, 0.005):  # a sparse and a dense Z*
        exact = solver.solve(factors, 1.0, beta, 1e-5, max_iter=5, tol=0, precision="float64")
        auto = solver.solve(factors, 1.0, beta, 1e-5, max_iter=5, tol=0, precision="auto")
        single = solver.solve(factors, 1.0, beta, 1e-5, max_iter=5, tol=0, precision="float32")
        diff_auto = abs(auto.Zstar - exact.Zstar).max()
        diff_single = abs(single.Zstar - exact.Zstar).max()
        if exact.Zstar.nnz < 0.05 * 40 * 40:
            assert diff_auto < 1e-12 < diff_single
        else:
            assert exact.Zstar.nnz > 0.2 * 40 * 40 and diff_auto > 1e-12
            assert diff_auto < 2e-6 * abs(exact.Zstar).max()
    with pytest.raises(ValueError, match="precision must be one of"):
        solver.solve(factors, 1.0, 0.5, 1e-5, precision="half")


def test_to_csc_matches_scipy():
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((9, 7)).astype(np.float32)
    Z[np.abs(Z) < 0.8] = 0
    for M in (np.asfortranarray(Z), np.ascontiguousarray(Z)):
        got = solver.to_csc(M)
        assert got.dtype == np.float64 and got.has_sorted_indices
        assert np.array_equal(got.toarray(), Z.astype(np.float64))
        assert np.array_equal(got.indptr, sp.csc_matrix(Z).indptr)
    assert solver.to_csc(np.zeros((3, 4))).nnz == 0
