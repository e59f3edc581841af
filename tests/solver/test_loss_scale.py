"""The scaled model (the stability study, ``loss_scale="median"``): its P-step against brute force,
its objective never increasing, the fast solver against the paper form, and the paper's
model unchanged when the option is off."""

import numpy as np
import pytest
import scipy.optimize

import rmsc
from rmsc import solver
from rmsc._reference import solve_paper_form
from tests.support import random_views

MODELS = [("median", 0.0), ("median", 0.5), ("median", 1.0)]


def _factors(views):
    return [solver.gram_factor(X) for X in views]


def _brute_weight(f):
    res = scipy.optimize.minimize_scalar(f, bounds=(1e-9, 1e4), method="bounded",
                                         options={"xatol": 1e-12, "maxiter": 2000})
    return res.x


@pytest.mark.parametrize("gamma", [1e-5, 1e-2, 1.0])
@pytest.mark.parametrize("power", [0.0, 0.5, 1.0])
def test_scaled_p_step_minimises_the_scaled_objective_per_sample(gamma, power):
    # For fixed Z^v and Z*, the model's terms in P_vj are c_v (P l + s_v psi(P)); its
    # minimiser is the P-step's closed form sigma(l / s_v), whatever c_v > 0.
    rng = np.random.default_rng(0)
    losses = rng.uniform(0, 2, size=(3, 5)) * np.array([[1e-3], [0.1], [1.0]])
    losses[0, 0] = 0.0
    s = solver.loss_scale(losses)
    c = solver.view_factors(s, power)
    P = solver.p_step(losses, gamma, "sample", scale=s)
    for v in range(3):
        for j in range(5):
            f = lambda p: c[v] * (p * losses[v, j] + s[v] * solver.psi(p, gamma))  # noqa: E731
            assert P[v, j] == pytest.approx(_brute_weight(f), rel=1e-4)


@pytest.mark.parametrize("power", [0.0, 1.0])
def test_scaled_p_step_minimises_the_scaled_objective_per_view(power):
    # RMSC-WV: one weight per view; its terms are c_v (p sum_j l_vj + n s_v psi(p)).
    rng = np.random.default_rng(1)
    n = 7
    losses = rng.uniform(0, 1, size=(3, n)) * np.array([[1e-2], [1.0], [5.0]])
    s = solver.loss_scale(losses)
    c = solver.view_factors(s, power)
    P = solver.p_step(losses, 1e-5, "view", scale=s)
    assert np.all(P == P[:, :1])
    for v in range(3):
        f = lambda p: c[v] * (p * losses[v].sum() + n * s[v] * solver.psi(p, 1e-5))  # noqa: E731
        assert P[v, 0] == pytest.approx(_brute_weight(f), rel=1e-4)


def test_regularizer_is_the_models_weight_term():
    rng = np.random.default_rng(2)
    P = rng.uniform(0.2, 3, size=(3, 6))
    s, c = np.array([0.1, 1.0, 2.0]), np.array([3.0, 1.0, 0.5])
    g = 1e-3
    expect = sum(c[v] * s[v] * solver.psi(P[v], g).sum() for v in range(3))
    assert solver.regularizer(P, g, "sample", s, c) == pytest.approx(expect, rel=1e-12)
    Pv = np.repeat(P[:, :1], 6, axis=1)
    expect_v = sum(c[v] * 6 * s[v] * solver.psi(Pv[v, 0], g) for v in range(3))
    assert solver.regularizer(Pv, g, "view", s, c) == pytest.approx(expect_v, rel=1e-12)
    # the paper's model: no unit, no factor
    assert solver.regularizer(P, g, "sample") == pytest.approx(solver.psi(P, g).sum())


def test_loss_scale_is_each_views_median_loss_with_fallbacks():
    losses = np.array([[0.1, 0.2, 0.9, 0.3, 0.5],
                       [0.0, 0.0, 0.0, 0.4, 0.6],    # median 0: the mean instead
                       [0.0, 0.0, 0.0, 0.0, 0.0]])   # all exact: 1
    assert np.allclose(solver.loss_scale(losses), [0.3, 0.2, 1.0])
    assert np.allclose(solver.loss_scale(losses, None), 1.0)
    with pytest.raises(ValueError, match="loss_scale must be one of"):
        solver.loss_scale(losses, "mean")


@pytest.mark.parametrize("weighting", ["sample", "view"])
@pytest.mark.parametrize("how, power", MODELS)
def test_scaled_model_fast_solver_equals_the_paper_form_written_out(weighting, how, power):
    rng = np.random.default_rng(3)
    n = 30
    views = random_views(rng, n, (3, 12, n + 5))
    beta = 0.05 if weighting == "sample" else 0.005
    ref = solve_paper_form(views, 1.0, beta, 1e-4, weighting=weighting, max_iter=8,
                           loss_scale=how, scale_power=power)
    sol = solver.solve(_factors(views), 1.0, beta, 1e-4, weighting=weighting, max_iter=8,
                       tol=0, precision="float64", loss_scale=how, scale_power=power)
    assert sol.Zstar.nnz > 0
    assert np.abs(sol.Zstar.toarray() - ref["Zstar"]).max() < 1e-8
    assert np.abs(sol.P - ref["P"]).max() < 1e-8 * np.abs(ref["P"]).max()
    assert np.allclose(sol.objective, ref["objective"], rtol=1e-9, atol=1e-9)
    assert sol.objective_init == pytest.approx(ref["objective_init"], rel=1e-10)


@pytest.mark.parametrize("precision", ["float64", "auto"])
@pytest.mark.parametrize("weighting", ["sample", "view"])
@pytest.mark.parametrize("how, power", MODELS)
def test_scaled_objective_never_increases_on_many_random_problems(weighting, how, power,
                                                                   precision):
    increase = {"float64": 1e-10, "auto": 1e-6}[precision]
    for seed in range(12):
        rng = np.random.default_rng(500 + seed)
        n = int(rng.integers(8, 40))
        dims = tuple(int(d) for d in rng.integers(2, 50, size=rng.integers(2, 4)))
        views = random_views(rng, n, dims)
        lam = float(10 ** rng.uniform(-1, 1))
        beta = float(10 ** rng.uniform(-3, -1))
        gamma = float(10 ** rng.uniform(-6, 0))
        sol = solver.solve(_factors(views), lam, beta, gamma, weighting=weighting,
                           max_iter=15, tol=0, precision=precision, loss_scale=how,
                           scale_power=power)
        f = np.concatenate([[sol.objective_init], sol.objective])
        scale = np.abs(f).max() + 1.0
        assert np.all(np.diff(f) <= increase * scale), (seed, np.diff(f).max())


def test_scaled_model_in_the_kernel_form_gives_the_factor_forms_iterates():
    rng = np.random.default_rng(7)
    n = 26
    factors = _factors(random_views(rng, n, (3, n + 5, 2 * n)))
    kw = dict(max_iter=6, tol=0, with_beta_max=True, precision="float64",
              loss_scale="median", scale_power=1.0)
    k = solver.solve(factors, 1.0, 0.05, 1e-2, kernel=True, **kw)
    f = solver.solve(factors, 1.0, 0.05, 1e-2, kernel=False, **kw)
    assert abs(k.Zstar - f.Zstar).max() < 1e-10
    assert np.abs(k.P - f.P).max() < 1e-9 * f.P.max()
    assert np.allclose(k.objective, f.objective, rtol=1e-10, atol=1e-10)
    assert k.beta_max == pytest.approx(f.beta_max, rel=1e-10)


@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_paper_model_is_the_scaled_model_with_unit_scales_bit_for_bit(weighting, monkeypatch):
    # loss_scale=None runs the paper's model; forcing the scaled code path to a unit of 1
    # (s_v = 1 per sample; for RMSC-WV, whose unit is n s_v, s_v = 1/n), so that c_v = 1
    # and the P-step's loss is the paper's, must give the very same iterates, bit for bit:
    # the option adds nothing to the paper's arithmetic when it is off.
    rng = np.random.default_rng(8)
    views = random_views(rng, 40, (4, 15, 30))
    kw = dict(weighting=weighting, max_iter=10, tol=0, with_beta_max=True)
    beta = 0.05 if weighting == "sample" else 0.004
    paper = solver.solve(_factors(views), 1.0, beta, 1e-5, **kw)
    n = 40
    unit_s = 1.0 if weighting == "sample" else 1.0 / n
    assert unit_s * n == 1.0 or weighting == "sample"
    monkeypatch.setattr(solver._solution, "loss_scale",
                        lambda losses, how: np.full(losses.shape[0], unit_s))
    unit = solver.solve(_factors(views), 1.0, beta, 1e-5, loss_scale="median", **kw)
    assert np.array_equal(paper.Zstar.toarray(), unit.Zstar.toarray())
    assert np.array_equal(paper.P, unit.P)
    assert paper.beta_max == unit.beta_max
    assert np.allclose(paper.objective, unit.objective, rtol=1e-14)
    assert paper.scale is None and np.array_equal(unit.scale, np.full(3, unit_s))


def test_scaled_p_compares_each_sample_with_its_views_peers():
    # A view with tiny losses gets weights of order 1/sqrt(loss) under the paper's model
    # but, under the scaled model, its typical sample weighs about 1, as in every view.
    rng = np.random.default_rng(9)
    losses = np.vstack([rng.uniform(0.5, 1.5, 50) * 1e-4, rng.uniform(0.5, 1.5, 50)])
    paper = solver.p_step(losses, 1e-5)
    scaled = solver.p_step(losses, 1e-5, scale=solver.loss_scale(losses))
    assert np.median(paper[0]) / np.median(paper[1]) > 50
    assert np.allclose(np.median(scaled, axis=1), 1.0, rtol=0.01)


def test_estimator_reports_the_models_units_and_checks_the_option():
    d = rmsc.datasets.make_multiview_subspaces(n_clusters=3, n_per_cluster=15, n_views=2,
                                               view_dims=(8, 20), random_state=0)
    est = rmsc.RMSC(3, loss_scale="median", scale_power=1.0, random_state=0,
                    max_iter=5).fit(d.views)
    assert est.loss_scale_.shape == (2,) and np.all(est.loss_scale_ > 0)
    assert np.allclose(est.view_factors_, 1.0 / est.loss_scale_)
    paper = rmsc.RMSC(3, loss_scale=None, random_state=0, max_iter=5).fit(d.views)
    assert paper.loss_scale_ is None and paper.view_factors_ is None
    with pytest.raises(ValueError, match="loss_scale must be .median. .* or None"):
        rmsc.RMSC(3, loss_scale="mad").fit(d.views)
    with pytest.raises(ValueError, match="scale_power"):
        rmsc.RMSC(3, loss_scale="median", scale_power=-1).fit(d.views)


# --- the stopping rules -------------------------------------------------------------------

@pytest.mark.parametrize("precision", ["float64", "auto"])
def test_zstar_change_is_the_consensus_relative_change(precision):
    # The iterates do not depend on where the solve stops, so Z* after t - 1 and after t
    # iterations come from two solves; the rule's measure at t is their relative distance.
    rng = np.random.default_rng(20)
    factors = _factors(random_views(rng, 35, (4, 12, 20)))
    kw = dict(max_iter=6, tol=0, precision=precision, loss_scale="median", scale_power=1.0,
              stop_on="zstar")
    sol = solver.solve(factors, 1.0, 0.02, 1e-2, **kw)
    prev = solver.solve(factors, 1.0, 0.02, 1e-2, **{**kw, "max_iter": 5})
    d = sol.Zstar.toarray() - prev.Zstar.toarray()
    direct = np.linalg.norm(d) / np.linalg.norm(sol.Zstar.toarray())
    assert sol.changes[-1] == pytest.approx(direct, rel={"float64": 1e-8, "auto": 1e-4}[precision])
    assert sol.changes[0] == pytest.approx(1.0)  # from Z* = 0


def test_each_rule_stops_where_its_measure_first_reaches_tol():
    rng = np.random.default_rng(21)
    factors = _factors(random_views(rng, 30, (5, 9)))
    full = {rule: solver.solve(factors, 1.0, 0.05, 1e-5, max_iter=60, tol=0, stop_on=rule)
            for rule in solver.STOPPINGS}
    for rule in solver.STOPPINGS:
        tol = full[rule].changes[9]  # the measure at iteration 10: the rule stops by then
        first = int(np.argmax(full[rule].changes <= tol)) + 1
        assert first <= 10
        stopped = solver.solve(factors, 1.0, 0.05, 1e-5, max_iter=60, tol=tol, stop_on=rule)
        assert stopped.converged and stopped.n_iter == first
        assert np.array_equal(stopped.objective, full[rule].objective[:first])
    # the objective rule measures |f_prev - f| / |f_prev|
    f = np.r_[full["objective"].objective_init, full["objective"].objective]
    assert np.allclose(full["objective"].changes, np.abs(np.diff(f)) / np.abs(f[:-1]))
    with pytest.raises(ValueError, match="stop_on must be"):
        solver.solve(factors, 1.0, 0.05, 1e-5, stop_on="labels")
