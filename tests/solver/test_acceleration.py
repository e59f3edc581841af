"""The safeguarded accelerations of Algorithm 1 (rmsc.solver._acceleration): the objective
never increases, every accepted point's objective is the model's exact objective there, the
accelerated fit lands where the plain one converges, and the option is checked."""

import numpy as np
import pytest
import scipy.sparse as sp

import rmsc
from rmsc import solver
from rmsc.solver import _acceleration
from rmsc.solver._objective import terms_from_losses
from tests.support import random_views

ACCELERATED = ("extrapolate", "anderson")


def _factors(views):
    return [solver.gram_factor(X) for X in views]


@pytest.mark.parametrize("acceleration", ACCELERATED)
@pytest.mark.parametrize("weighting", ["sample", "view"])
@pytest.mark.parametrize("how, power", [(None, 0.0), ("median", 1.0)])
@pytest.mark.parametrize("precision", ["float64", "auto"])
def test_objective_never_increases_with_acceleration(acceleration, weighting, how, power,
                                                     precision):
    increase = {"float64": 1e-10, "auto": 1e-6}[precision]
    accepted = 0
    for seed in range(8):
        rng = np.random.default_rng(900 + seed)
        n = int(rng.integers(10, 40))
        dims = tuple(int(d) for d in rng.integers(2, 50, size=rng.integers(2, 4)))
        views = random_views(rng, n, dims)
        lam = float(10 ** rng.uniform(-1, 1))
        beta = float(10 ** rng.uniform(-3, -1))
        gamma = float(10 ** rng.uniform(-6, 0))
        sol = solver.solve(_factors(views), lam, beta, gamma, weighting=weighting,
                           max_iter=25, tol=0, precision=precision, loss_scale=how,
                           scale_power=power, kernel=False, acceleration=acceleration)
        f = np.concatenate([[sol.objective_init], sol.objective])
        scale = np.abs(f).max() + 1.0
        assert np.all(np.diff(f) <= increase * scale), (seed, np.diff(f).max())
        accepted += sol.n_accelerated
    assert accepted > 0  # the accelerated steps were taken, not only the plain ones


def _objective_from_scratch(factors, Z, P, lam, beta, gamma, weighting, scale, fac):
    """F at (Z, P, Z^v(Z)), each Z^v formed densely by the Z^v-step's closed form."""
    m, n = len(factors), Z.shape[0]
    Zd = Z.toarray() if sp.issparse(Z) else np.asarray(Z, dtype=np.float64)
    recon, coupling = np.empty((m, n)), np.empty((m, n))
    for v, R in enumerate(factors):
        Zv = solver.view_representation(R, sp.csc_matrix(Zd), lam)
        recon[v] = np.sum((R - R @ Zv) ** 2, axis=0)
        coupling[v] = np.sum((Zv - Zd) ** 2, axis=0)
    f = sum(terms_from_losses(recon, coupling, lam, P, Zd, beta, gamma, weighting, scale,
                              fac).values())
    return f, solver.p_step(recon + lam * coupling, gamma, weighting, scale)


@pytest.mark.parametrize("acceleration", ACCELERATED)
@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_an_accepted_point_has_the_objective_the_model_gives_it(acceleration, weighting,
                                                                monkeypatch):
    # A candidate's Z^v come from T = the same combination of stored T's; here its
    # objective is recomputed from the candidate consensus alone, Z^v formed densely.
    seen = []
    step = _acceleration._Accelerator.step

    def spy(self, Zref, Zstar, P, f):
        out = step(self, Zref, Zstar, P, f)
        if out[3]:
            seen.append((out[0].copy(), out[1].copy(), out[2], self.model))
        return out

    monkeypatch.setattr(_acceleration._Accelerator, "step", spy)
    rng = np.random.default_rng(3)
    factors = _factors(random_views(rng, 30, (5, 12, 20)))
    lam, beta, gamma = 0.7, 0.02, 1e-2
    solver.solve(factors, lam, beta, gamma, weighting=weighting, max_iter=30, tol=0,
                 precision="float64", loss_scale="median", scale_power=1.0, kernel=False,
                 acceleration=acceleration)
    assert len(seen) >= 3
    for Z, P, f, model in seen:
        assert np.allclose(Z.diagonal(), 0.0)
        expected, P_step = _objective_from_scratch(factors, Z, P, lam, beta, gamma, weighting,
                                                   model.scale, model.factors)
        assert f == pytest.approx(expected, rel=1e-9, abs=1e-9)
        # and P is the P-step (eq. update_p) at that point
        assert np.allclose(P, P_step, rtol=1e-8, atol=0)


def test_accelerations_reach_the_point_the_plain_solver_creeps_towards():
    # The plain iteration needs ~10,000 iterations here to come within 1e-3 of its limit;
    # both accelerations converge (relative change of Z* <= 1e-8) in a few hundred, to the
    # same point, and the plain iterates approach that point all along.
    rng = np.random.default_rng(11)
    factors = _factors(random_views(rng, 40, (6, 15, 25)))
    kw = dict(weighting="sample", precision="float64", loss_scale="median", scale_power=1.0,
              kernel=False, stop_on="zstar")
    ext = solver.solve(factors, 1.0, 0.05, 1e-2, max_iter=3000, tol=1e-8,
                       acceleration="extrapolate", **kw)
    anderson = solver.solve(factors, 1.0, 0.05, 1e-2, max_iter=3000, tol=1e-8,
                            acceleration="anderson", **kw)
    assert ext.converged and anderson.converged
    limit = anderson.Zstar.toarray()
    size = np.abs(limit).max()
    assert np.abs(ext.Zstar.toarray() - limit).max() <= 1e-3 * size
    assert ext.objective[-1] == pytest.approx(anderson.objective[-1], rel=1e-9)

    distance = {}

    def watch(it, f, P, consensus):
        if it in (100, 300, 1000, 3000):
            Z = consensus.toarray() if sp.issparse(consensus) else consensus
            distance[it] = (np.abs(Z - limit).max() / size, f - anderson.objective[-1])

    watch.needs_consensus = True
    plain = solver.solve(factors, 1.0, 0.05, 1e-2, max_iter=3000, tol=0, acceleration="none",
                         callback=watch, **kw)
    assert not plain.converged or plain.n_iter > max(ext.n_iter, anderson.n_iter)
    steps = [distance[k] for k in (100, 300, 1000, 3000)]
    assert all(b[0] < a[0] and b[1] < a[1] for a, b in zip(steps, steps[1:]))
    assert steps[-1][0] < 0.1 and 0 <= steps[-1][1] < 0.05
    assert max(ext.n_iter, anderson.n_iter) < 1500


def test_accelerated_fit_clusters_like_the_plain_converged_fit():
    d = rmsc.datasets.make_multiview_subspaces(
        n_clusters=4, n_per_cluster=25, n_views=3, view_dims=(10, 14, 18), subspace_dim=3,
        noise=0.2, random_state=1)
    views = list(d.views)
    plain = rmsc.RMSC(n_clusters=4, random_state=0, acceleration="none", stop_on="objective",
                      tol=1e-8, max_iter=2000).fit(views)
    fast = rmsc.RMSC(n_clusters=4, random_state=0, acceleration="extrapolate").fit(views)
    assert fast.n_accelerated_ > 0 and fast.n_iter_ < plain.n_iter_
    from sklearn.metrics import adjusted_rand_score
    assert adjusted_rand_score(plain.labels_, fast.labels_) >= 0.99


def test_kernel_form_runs_the_plain_iteration():
    rng = np.random.default_rng(7)
    n = 26
    factors = _factors(random_views(rng, n, (3, n + 5, 2 * n)))
    kw = dict(max_iter=8, tol=0, precision="float64", kernel=True)
    plain = solver.solve(factors, 1.0, 0.05, 1e-2, **kw)
    fast = solver.solve(factors, 1.0, 0.05, 1e-2, acceleration="extrapolate", **kw)
    assert fast.n_accelerated == 0
    assert abs(fast.Zstar - plain.Zstar).max() == 0
    assert np.array_equal(fast.objective, plain.objective)


def test_plain_is_the_default_unless_the_study_says_otherwise():
    assert solver.ACCELERATION in solver.ACCELERATIONS
    assert rmsc.RMSC().get_params()["acceleration"] == solver.ACCELERATION


@pytest.mark.parametrize("bad", ["fast", None, 1, "Anderson"])
def test_acceleration_option_is_checked(bad):
    with pytest.raises(ValueError, match="acceleration"):
        solver.solve(_factors(random_views(np.random.default_rng(0), 10, (3, 4))), 1.0, 0.1,
                     1e-2, acceleration=bad)
    with pytest.raises((ValueError, TypeError), match="acceleration"):
        rmsc.RMSC(n_clusters=2, acceleration=bad).fit(
            random_views(np.random.default_rng(0), 10, (3, 4)))
