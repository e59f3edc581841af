"""Models whose view shares follow informativeness (docs/weights.md, "Models whose view
shares follow informativeness"): the balanced P-step (every view's weights sum to n, eq.
B1), its version on the consensus weights c_v P_vj (eq. B2) and the unit of each view's
degrees of freedom (eq. B3). Each closed form against a numeric solve, the constraint, the
objective never increasing on every form, the rule for uninformative samples, the device
path, and the parameter's validation."""


import array_api_strict as xps
import numpy as np
import pytest
import scipy.optimize

import rmsc
import rmsc.inspection
from rmsc import solver
from rmsc.rmsc import PAPER_MODEL, VIEW_BALANCE

from tests.support import monotone_balanced_runs, random_views, views_with_uninformative_samples


def _view_objective(p, losses, gamma, s, c):
    """One view's part of the objective, c sum_j [p_j l_j + s psi(p_j)] (the scaled model's;
    s = c = 1 is the paper's)."""
    return c * np.sum(p * losses + s * solver.psi(p, gamma))


@pytest.mark.parametrize("scale", [None, np.array([0.3, 2.0, 1.0])])
def test_balanced_p_step_is_the_constrained_minimiser(scale):
    rng = np.random.default_rng(1)
    m, n, gamma = 3, 9, 0.05
    losses = rng.uniform(0, 2, (m, n)) ** 3      # spread out, one view nearly exact
    losses[2] *= 1e-3
    target = solver.balance_targets("balanced", m, n)
    P = solver.p_step(losses, gamma, scale=scale, target=target)
    np.testing.assert_allclose(P.sum(axis=1), n, rtol=1e-12)       # the constraint
    s = np.ones(m) if scale is None else scale
    for v in range(m):
        f = lambda p: _view_objective(p, losses[v], gamma, s[v], 1.0)  # noqa: E731
        # a numeric constrained solve from the unconstrained P-step, rescaled to the sum
        p0 = solver.p_step(losses, gamma, scale=scale)[v]
        res = scipy.optimize.minimize(
            f, p0 * n / p0.sum(), method="SLSQP", bounds=[(1e-8, None)] * n,
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - n}],
            options={"ftol": 1e-14, "maxiter": 1000})
        assert res.success
        assert f(P[v]) <= res.fun + 1e-9 * abs(res.fun)
        np.testing.assert_allclose(P[v], res.x, rtol=1e-3)
        # feasible perturbations (zero-sum directions) never lower the objective
        for _ in range(50):
            d = rng.standard_normal(n)
            d -= d.mean()
            q = P[v] + 1e-3 * P[v].min() * d / np.abs(d).max()
            assert f(q) >= f(P[v]) - 1e-12 * abs(f(P[v]))
    # gamma only shifts mu: the balanced weights do not depend on it
    np.testing.assert_allclose(solver.p_step(losses, 1.0, scale=scale, target=target), P,
                               rtol=1e-9)


def test_consensus_balance_constrains_the_consensus_weights():
    rng = np.random.default_rng(2)
    m, n, gamma = 3, 8, 0.01
    losses = rng.uniform(0, 1, (m, n))
    s = np.array([0.05, 0.5, 2.0])
    c = solver.view_factors(s, 1.0)
    target = solver.balance_targets("consensus", m, n, c)
    P = solver.p_step(losses, gamma, scale=s, target=target)
    np.testing.assert_allclose((c[:, None] * P).sum(axis=1), n, rtol=1e-12)
    for v in range(m):
        f = lambda p: _view_objective(p, losses[v], gamma, s[v], c[v])  # noqa: E731
        res = scipy.optimize.minimize(
            f, np.full(n, n / c[v] / n), method="SLSQP", bounds=[(1e-8, None)] * n,
            constraints=[{"type": "eq", "fun": lambda p: c[v] * p.sum() - n}],
            options={"ftol": 1e-15, "maxiter": 1000})
        assert res.success
        assert f(P[v]) <= res.fun + 1e-9 * abs(res.fun)
        np.testing.assert_allclose(P[v], res.x, rtol=1e-3)
    # the paper's model (c_v = 1): "consensus" is "balanced"
    np.testing.assert_array_equal(solver.balance_targets("consensus", m, n),
                                  solver.balance_targets("balanced", m, n))
    assert solver.balance_targets(None, m, n) is None
    assert solver.balance_targets("dof", m, n) is None


def test_balance_shift_roots_and_its_clear_error():
    a = np.array([0.0, 0.3, 1.0, 4.0])
    for total in (0.5, 4.0, 400.0):
        t = solver.balance_shift(a, total)
        assert np.sum(1 / np.sqrt(a - a.min() + t)) == pytest.approx(total, rel=1e-12)
    # equal a: every weight total / k
    assert solver.balance_shift(np.full(5, 0.2), 5.0) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="uninformative=None"):
        solver.balance_shift(a, 0.0)


def test_balanced_p_step_with_held_weights_shares_the_rest_among_the_free_ones():
    rng = np.random.default_rng(3)
    losses = rng.uniform(0, 2, (2, 7))
    losses[0, 2] = losses[1, 5] = 0.0
    mask = np.zeros((2, 7), bool)
    mask[0, 2] = mask[1, 5] = True
    gamma, target = 0.05, solver.balance_targets("balanced", 2, 7)
    fw = solver.fixed_weights(mask, losses, gamma, target=target)
    # the typical weight of a balanced view is its mean weight, target / n
    np.testing.assert_allclose(fw.values, target / 7)
    P = solver.p_step(losses, gamma, fixed=fw, target=target)
    np.testing.assert_allclose(P.sum(axis=1), 7, rtol=1e-12)
    assert P[0, 2] == fw.values[0] and P[1, 5] == fw.values[1]
    assert P[0, 2] < P[0, ~mask[0]].max()
    for v in range(2):
        free = ~mask[v]
        f = lambda p: np.sum(p * losses[v, free] + solver.psi(p, gamma))  # noqa: E731
        rest = 7 - fw.values[v]
        res = scipy.optimize.minimize(
            f, np.full(free.sum(), rest / free.sum()), method="SLSQP",
            bounds=[(1e-8, None)] * int(free.sum()),
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - rest}],
            options={"ftol": 1e-15, "maxiter": 1000})
        assert f(P[v, free]) <= res.fun + 1e-9 * abs(res.fun)


def _ridge_start_losses(X, lam):
    """Brute force: l_j = min_z ||x_j - X z||^2 + lam ||z||^2 with z_j = 0 (samples as rows)."""
    n = X.shape[0]
    out = np.empty(n)
    for j in range(n):
        others = np.delete(np.arange(n), j)
        A = X[others].T                                  # features x (n - 1)
        z = np.linalg.solve(A.T @ A + lam * np.eye(n - 1), A.T @ X[j])
        out[j] = np.sum((X[j] - A @ z) ** 2) + lam * np.sum(z ** 2)
    return out


def test_dof_unit_is_the_start_loss_at_the_views_average_leverage():
    rng = np.random.default_rng(4)
    lam = 0.7
    views = random_views(rng, 25, (3, 12, 60))
    losses = np.stack([_ridge_start_losses(X, lam) for X in views])
    s = solver.dof_scale(losses, lam)
    for v, X in enumerate(views):
        K = X @ X.T
        df = np.trace(K @ np.linalg.inv(K + lam * np.eye(25)))
        assert df <= np.linalg.matrix_rank(X) + 1e-9
        rho = df / 25
        assert s[v] == pytest.approx(lam * rho / (1 - rho), rel=1e-9)
    # the solver's start takes this unit, and view factor 1
    sol = solver.solve([solver.gram_factor(X) for X in views], lam, 0.05, 1e-2, max_iter=1,
                       precision="float64", view_balance="dof", loss_scale="median")
    np.testing.assert_allclose(sol.scale, s, rtol=1e-8)
    assert sol.factors is None


@pytest.mark.parametrize("kernel", [False, True])
@pytest.mark.parametrize("view_balance", ["balanced", "consensus", "dof"])
def test_objective_never_increases_and_the_constraint_holds(view_balance, kernel):
    for sol, views, _, weighting, seen in monotone_balanced_runs(view_balance, kernel, 300):
        if weighting == "view" or view_balance == "dof":
            continue
        n = views[0].shape[0]
        c = np.ones(len(views)) if sol.factors is None else sol.factors
        want = n / c if view_balance == "consensus" else np.full(len(views), n)
        for P in seen:
            np.testing.assert_allclose(P.sum(axis=1), want, rtol=1e-10)


def test_rmsc_wv_is_unchanged_by_the_balanced_models():
    rng = np.random.default_rng(5)
    views = random_views(rng, 20, (4, 15))
    factors = [solver.gram_factor(X) for X in views]
    base = solver.solve(factors, 3.0, 0.05, 1e-2, weighting="view", max_iter=5, tol=0,
                        precision="float64")
    for vb in ("balanced", "consensus"):
        got = solver.solve(factors, 3.0, 0.05, 1e-2, weighting="view", max_iter=5, tol=0,
                           precision="float64", view_balance=vb)
        np.testing.assert_array_equal(got.P, base.P)


@pytest.mark.parametrize("view_balance", ["balanced", "consensus", "dof"])
def test_uninformative_samples_keep_the_typical_weight(view_balance):
    views, _ = views_with_uninformative_samples()
    est = rmsc.RMSC(n_clusters=3, random_state=0, view_balance=view_balance).fit(views)
    mask = solver.uninformative_samples(views)
    assert mask[0, [3, 25, 47]].all() and mask[1, [10, 11]].all()
    P = est.weights_
    for v in range(2):
        held = P[v, mask[v]]
        assert np.all(held == held[0])
        assert held[0] < np.max(P[v, ~mask[v]])      # not the view's highest weight
    f = np.concatenate([[est.objective_init_], est.objective_])
    assert np.all(np.diff(f) <= 1e-6 * np.abs(f).max())
    if view_balance == "balanced":
        np.testing.assert_allclose(P.sum(axis=1), P.shape[1], rtol=1e-9)


@pytest.mark.parametrize("view_balance", ["balanced", "consensus", "dof", "two_level"])
def test_device_path_equals_the_numpy_path(view_balance):
    views, _ = views_with_uninformative_samples()
    mask = solver.uninformative_samples(views)
    kw = dict(max_iter=6, tol=0, precision="float64", loss_scale="median", scale_power=1.0,
              uninformative=mask, view_balance=view_balance)
    host = solver.solve([solver.gram_factor(X) for X in views], 1.0, 0.05, 1e-2, **kw)
    dev = xps.Device("device1")
    factors = [xps.asarray(np.asarray(solver.gram_factor(X)), device=dev) for X in views]
    got = solver.solve(factors, 1.0, 0.05, 1e-2, **kw)
    np.testing.assert_allclose(np.asarray(xps.asarray(got.P, device=xps.Device("CPU_DEVICE"))),
                               host.P, rtol=1e-8)
    np.testing.assert_allclose(got.objective, host.objective, rtol=1e-8)
    f = np.concatenate([[got.objective_init], got.objective])
    assert np.all(np.diff(f) <= 1e-10 * np.abs(f).max())


def test_the_paper_model_and_the_default_keep_the_papers_p_step():
    assert PAPER_MODEL["view_balance"] is None
    assert VIEW_BALANCE is None and rmsc.RMSC().view_balance is None
    views, _ = views_with_uninformative_samples()
    for bad in ("even", 1, "Balanced"):
        with pytest.raises(ValueError, match="view_balance"):
            rmsc.RMSC(n_clusters=3, view_balance=bad).fit(views)


def test_equal_consensus_shares_rank_nothing():
    """Under "consensus" every view's share is 1/m up to round-off: no trust ranking."""
    rng = np.random.default_rng(6)
    P = rng.uniform(0.5, 2.0, (3, 10))
    c = np.array([4.0, 1.0, 0.2])
    P = P * (10 / (c[:, None] * P).sum(axis=1, keepdims=True)) * (1 + 1e-13 * rng.uniform(
        -1, 1, (3, 1)))
    shares = rmsc.inspection.view_weight_shares(P, gamma=1e-2, factors=c)
    quality = [{"view": s["view"], "acc": a, "nmi": a, "eigengap": a}
               for s, a in zip(shares, (0.9, 0.5, 0.7))]
    out = rmsc.inspection.trust_vs_quality(shares, quality)
    assert not np.isfinite(out.rho) and "the same share" in out.sentence


def test_a_view_whose_every_weight_is_held_keeps_the_constraint():
    losses = np.array([[0.0, 0.0, 0.0], [0.2, 0.5, 1.0]])
    mask = np.array([[True, True, True], [False, False, False]])
    target = solver.balance_targets("balanced", 2, 3)
    fw = solver.fixed_weights(mask, losses, 0.01, target=target)
    P = solver.p_step(losses, 0.01, fixed=fw, target=target)
    np.testing.assert_allclose(P[0], 1.0)
    np.testing.assert_allclose(P.sum(axis=1), 3, rtol=1e-12)
