"""The two-level model (docs/weights.md, "(B4) two levels"): one weight per view, RMSC-WV's,
times the view's balanced weights. Its (q, p)-step against a numeric minimisation and
against each block's brute force, the objective it reports against a hand-written one, the
objective never increasing on every form and model, the rule for uninformative samples and
the parameter's validation (the device path: tests/solver/test_view_balance.py)."""

import numpy as np
import pytest
import scipy.optimize

import rmsc
from rmsc import solver
from rmsc._validation import check_estimator

from tests.support import monotone_balanced_runs, random_views, views_with_uninformative_samples


def _view_terms(q, p, losses, gamma, s, c):
    """View v's weight-dependent part of eq. B4, written out: c [q sum_j (p_j l_j +
    s psi_centred(p_j)) + n s psi(q)], psi_centred(p) = psi(p) - psi(1) = gamma (p - 1) +
    1/p - 1."""
    n = p.size
    inner = np.sum(p * losses + s * (gamma * (p - 1) + 1 / p - 1))
    return c * (q * inner + n * s * (gamma * q + 1 / q - 2))


def _split(P):
    """The solver's weights P = q_v p_vj as (q, p): q_v = sum_j P_vj / n."""
    q = P.sum(axis=1) / P.shape[1]
    return q, P / q[:, None]


@pytest.mark.parametrize("scale", [None, np.array([0.3, 2.0, 1.0])])
@pytest.mark.parametrize("gamma", [1e-4, 0.05, 2.0])
def test_two_level_step_is_the_joint_minimiser(scale, gamma):
    rng = np.random.default_rng(11)
    m, n = 3, 8
    losses = rng.uniform(0, 2, (m, n)) ** 3
    losses[2] *= 1e-3                                  # one view nearly exact
    c = np.array([1.0, 4.0, 0.5])
    P = solver.p_step(losses, gamma, "two_level", scale)
    q, p = _split(P)
    np.testing.assert_allclose(p.sum(axis=1), n, rtol=1e-12)   # the balanced constraint
    # the within-view weights are the balanced P-step's, whatever q
    np.testing.assert_allclose(
        p, solver.p_step(losses, gamma, scale=scale,
                         target=solver.balance_targets("balanced", m, n)), rtol=1e-12)
    s = np.ones(m) if scale is None else scale
    for v in range(m):
        def f(x):
            return _view_terms(x[0], x[1:], losses[v], gamma, s[v], c[v])
        best = f(np.r_[q[v], p[v]])
        # a numeric solve over (q, p) jointly, from a feasible start away from the answer
        x0 = np.r_[1.0, np.full(n, 1.0)]
        res = scipy.optimize.minimize(
            f, x0, method="SLSQP", bounds=[(1e-8, None)] * (n + 1),
            constraints=[{"type": "eq", "fun": lambda x: x[1:].sum() - n}],
            options={"ftol": 1e-15, "maxiter": 2000})
        assert res.success
        assert best <= res.fun + 1e-9 * abs(res.fun)
        np.testing.assert_allclose(np.r_[q[v], p[v]], res.x, rtol=2e-3)
        # q alone: a bounded scalar minimisation at the closed-form p
        r = scipy.optimize.minimize_scalar(
            lambda t: _view_terms(t, p[v], losses[v], gamma, s[v], c[v]),
            bounds=(1e-6, 1e3), method="bounded", options={"xatol": 1e-12})
        assert q[v] == pytest.approx(r.x, rel=1e-5)
        # feasible perturbations of (q, p) never lower it
        for _ in range(40):
            d = rng.standard_normal(n)
            d -= d.mean()
            x = np.r_[q[v] * (1 + 1e-3 * rng.standard_normal()),
                      p[v] + 1e-3 * p[v].min() * d / np.abs(d).max()]
            assert f(x) >= best - 1e-12 * abs(best)


def test_view_weight_is_rmsc_wvs_step_of_the_views_mean_robust_loss():
    rng = np.random.default_rng(12)
    losses = rng.uniform(0, 1, (2, 6))
    s, gamma = np.array([0.5, 2.0]), 0.01
    q, p = _split(solver.p_step(losses, gamma, "two_level", s))
    u = np.mean(p * losses / s[:, None] + solver.psi_centred(p, gamma), axis=1)
    np.testing.assert_allclose(q, 1 / np.sqrt(gamma + u), rtol=1e-12)
    # psi_centred is negative somewhere, but its sum over weights of mean 1 never is
    assert solver.psi_centred(2.0, gamma) < 0
    for _ in range(20):
        w = rng.uniform(0.01, 5.0, 9)
        w *= 9 / w.sum()
        assert np.sum(solver.psi_centred(w, gamma)) >= 0
    # a view whose samples are alike (equal losses): flat weights, and q is RMSC-WV's weight
    flat = np.vstack([np.full(6, 0.4), losses[1]])
    q3, p3 = _split(solver.p_step(flat, gamma, "two_level", s))
    np.testing.assert_allclose(p3[0], 1.0, rtol=1e-12)
    assert q3[0] == pytest.approx(solver.p_step(flat, gamma, "view", s)[0, 0], rel=1e-12)
    # a view rebuilt better (its losses halved) gets the larger view weight
    q2, _ = _split(solver.p_step(losses * np.array([[0.5], [1.0]]), gamma, "two_level", s))
    assert q2[0] > q[0] and q2[1] == pytest.approx(q[1])


def test_gamma_zero_and_an_exact_view_is_a_clear_error():
    losses = np.array([[0.0, 0.0, 0.0], [0.2, 0.5, 1.0]])
    with pytest.raises(ValueError, match="gamma = 0 and view 0"):
        solver.p_step(losses, 0.0, "two_level")
    P = solver.p_step(losses, 0.0, "two_level", check=False)      # the device path's call
    assert not np.isfinite(P[0]).any() and np.isfinite(P[1]).all()
    assert np.isfinite(solver.p_step(losses, 1e-5, "two_level")).all()


def test_reported_regulariser_is_the_models():
    """The objective's weight term at any two-level P equals eq. B4 written out."""
    rng = np.random.default_rng(13)
    m, n, gamma = 3, 7, 0.03
    q = rng.uniform(0.2, 2.0, m)
    p = rng.uniform(0.1, 3.0, (m, n))
    p *= n / p.sum(axis=1, keepdims=True)
    P = q[:, None] * p
    s, c = np.array([0.2, 1.0, 3.0]), np.array([5.0, 1.0, 0.3])
    want = sum(_view_terms(q[v], p[v], np.zeros(n), gamma, s[v], c[v]) for v in range(m))
    assert solver.regularizer(P, gamma, "two_level", s, c) == pytest.approx(want, rel=1e-12)
    want = sum(_view_terms(q[v], p[v], np.zeros(n), gamma, 1.0, 1.0) for v in range(m))
    assert solver.regularizer(P, gamma, "two_level") == pytest.approx(want, rel=1e-12)
    # the whole objective: P l (the Z*-step's weights c_v P_vj) plus those terms
    recon, coupling = rng.uniform(0, 1, (m, n)), rng.uniform(0, 1, (m, n))
    terms = solver.terms_from_losses(recon, coupling, 2.0, P, np.zeros((n, n)), 0.1, gamma,
                                     "two_level", s, c)
    assert terms["reconstruction"] == pytest.approx(np.sum(c[:, None] * P * recon))
    assert terms["coupling"] == pytest.approx(2.0 * np.sum(c[:, None] * P * coupling))


@pytest.mark.parametrize("kernel", [False, True])
def test_objective_never_increases(kernel):
    for sol, views, mask, weighting, seen in monotone_balanced_runs("two_level", kernel, 400):
        if weighting == "view":
            continue
        n = views[0].shape[0]
        for P in seen:                        # within-view weights sum to n
            _, p = _split(P)
            np.testing.assert_allclose(p.sum(axis=1), n, rtol=1e-12)
            if mask is not None:              # the held ones at the view's mean
                np.testing.assert_allclose(p[mask], 1.0, rtol=1e-12)


def test_extrapolation_keeps_the_objective_falling():
    rng = np.random.default_rng(7)
    views = random_views(rng, 30, (5, 20))
    factors = [solver.gram_factor(X) for X in views]
    for acceleration in ("extrapolate", "anderson"):
        sol = solver.solve(factors, 1.0, 0.02, 1e-2, max_iter=12, tol=0, precision="float64",
                           loss_scale="median", scale_power=1.0, view_balance="two_level",
                           acceleration=acceleration)
        f = np.concatenate([[sol.objective_init], sol.objective])
        assert np.all(np.diff(f) <= 1e-10 * np.abs(f).max()), acceleration


def test_rmsc_wv_is_unchanged():
    rng = np.random.default_rng(5)
    views = random_views(rng, 20, (4, 15))
    factors = [solver.gram_factor(X) for X in views]
    kw = dict(weighting="view", max_iter=5, tol=0, precision="float64")
    base = solver.solve(factors, 3.0, 0.05, 1e-2, **kw)
    got = solver.solve(factors, 3.0, 0.05, 1e-2, view_balance="two_level", **kw)
    np.testing.assert_array_equal(got.P, base.P)
    assert solver.solver_weighting("view", "two_level") == "view"
    assert solver.solver_weighting("sample", "balanced") == "sample"


@pytest.mark.parametrize("params", [{}, {"loss_scale": None, "gamma": 1e-5}])
def test_uninformative_samples_get_the_views_mean_weight(params):
    views, _ = views_with_uninformative_samples()
    est = rmsc.RMSC(n_clusters=3, random_state=0, view_balance="two_level",
                    **params).fit(views)
    mask = solver.uninformative_samples(views)
    assert mask[0, [3, 25, 47]].all() and mask[1, [10, 11]].all()
    P = np.asarray(est.weights_)
    for v in range(2):
        held = P[v, mask[v]]
        np.testing.assert_allclose(held, P[v].mean(), rtol=1e-12)   # the view's weight q_v
        np.testing.assert_allclose(held, est.view_weights_[v], rtol=1e-12)
        assert held[0] < np.max(P[v, ~mask[v]])      # not the view's highest weight
    f = np.concatenate([[est.objective_init_], est.objective_])
    assert np.all(np.diff(f) <= 1e-6 * np.abs(f).max())


# The device path against NumPy: tests/solver/test_view_balance.py, with every model.


def test_the_value_is_accepted_and_others_are_not():
    assert "two_level" in solver.VIEW_BALANCES
    assert "two_level" in rmsc.RMSC._parameter_constraints["view_balance"].what
    check_estimator(rmsc.RMSC(n_clusters=3, view_balance="two_level"))
    views, _ = views_with_uninformative_samples()
    for bad in ("two-level", "Two_level", 2):
        with pytest.raises(ValueError, match="view_balance"):
            rmsc.RMSC(n_clusters=3, view_balance=bad).fit(views)
