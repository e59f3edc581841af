"""The rule for samples that carry no information in a view (the weights study): all zero there, or
repeated exactly by another sample. Their weight is held at the view's typical weight at
the start instead of the cap a loss of 0 would give; every block step stays exact and the
objective never increases."""


import array_api_strict as xps
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp

import rmsc
from rmsc import solver
from rmsc.preprocessing import normalize_l2
from rmsc.rmsc import PAPER_MODEL, UNINFORMATIVE

from tests.support import random_views, union_of_subspaces  # noqa: E402


def test_uninformative_samples_are_the_zero_and_the_repeated_rows_dense_and_sparse():
    X = np.array([[0.0, 0.0], [1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [1.0, 2.5]])
    Y = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [0.0]])
    want = [[True, True, True, False, True, False], [False, False, False, False, False, True]]
    assert solver.uninformative_samples([X, Y]).tolist() == want
    # sparse rows, with an explicit zero stored and unsorted indices: the same answer
    S = sp.csr_matrix(X)
    S.data[S.data == 2.5] = 2.5
    S = sp.csr_matrix((np.append(S.data, 0.0), np.append(S.indices, 0),
                       np.r_[S.indptr[:-1], S.indptr[-1] + 1]), shape=X.shape)
    assert solver.uninformative_samples([S, sp.csc_matrix(Y)]).tolist() == want
    assert not solver.uninformative_samples([np.eye(4)]).any()


def test_fixed_weights_are_the_views_median_start_weight_over_its_informative_samples():
    losses = np.array([[0.0, 1.0, 3.0, 8.0], [0.5, 0.0, 0.0, 2.0]])
    mask = np.array([[True, False, False, False], [False, True, True, False]])
    fw = solver.fixed_weights(mask, losses, 1.0)
    # hand-worked: view 0's free weights 1/sqrt(1 + l) = 1/2, 1/3, 1/sqrt(2) -> median 1/2;
    # view 1's free weights 1/sqrt(1.5), 1/sqrt(3) -> median their mean
    assert fw.values == pytest.approx([0.5, (1 / np.sqrt(1.5) + 1 / np.sqrt(3)) / 2])
    # in the scaled model the losses count in the view's unit s_v
    fw = solver.fixed_weights(mask, losses, 1.0, scale=np.array([1.0, 0.5]))
    assert fw.values[1] == pytest.approx((1 / np.sqrt(2.0) + 1 / np.sqrt(5.0)) / 2)
    assert solver.fixed_weights(np.zeros((2, 4), bool), losses, 1.0) is None
    # a view with no informative sample: the weight of a sample at the unit loss
    all_masked = solver.fixed_weights(np.ones((2, 4), bool), losses, 0.5)
    assert all_masked.values == pytest.approx([1 / np.sqrt(1.5)] * 2)


@pytest.mark.parametrize("scale", [None, np.array([0.3, 2.0])])
def test_p_step_keeps_the_fixed_weights_and_minimises_over_the_others(scale):
    rng = np.random.default_rng(0)
    losses = rng.uniform(0, 2, (2, 7))
    losses[0, 2] = losses[1, 5] = 0.0
    mask = np.zeros((2, 7), bool)
    mask[0, 2] = mask[1, 5] = True
    gamma = 0.05
    fw = solver.fixed_weights(mask, losses, gamma, scale)
    P = solver.p_step(losses, gamma, scale=scale, fixed=fw)
    assert P[0, 2] == fw.values[0] and P[1, 5] == fw.values[1]
    # the fixed weights are not the cap the P-step alone gives a loss of 0
    assert P[0, 2] < solver.p_step(losses, gamma, scale=scale)[0, 2]
    # every free weight is the minimiser of its term (brute force)
    s = np.ones(2) if scale is None else scale
    for v, j in zip(*np.nonzero(~mask)):
        f = lambda p: p * losses[v, j] / s[v] + solver.psi(p, gamma)  # noqa: E731
        res = scipy.optimize.minimize_scalar(f, bounds=(1e-6, 1e3), method="bounded",
                                             options={"xatol": 1e-12})
        assert P[v, j] == pytest.approx(res.x, rel=1e-5)
    # the start: P = 1 but for the fixed weights
    P0 = solver.initial_weights(losses, gamma, fixed=fw)
    assert P0[0, 2] == fw.values[0] and np.all(P0[~mask] == 1.0)
    # RMSC-WV has no per-sample weight to fix
    Pv = solver.p_step(losses, gamma, "view", scale, fixed=fw)
    np.testing.assert_array_equal(Pv, solver.p_step(losses, gamma, "view", scale))


def _views_with_uninformative_samples(seed=0):
    views, labels = union_of_subspaces(n_per=20, n_clusters=3, dims=(4, 12), seed=seed)
    views = [np.array(X) for X in views]
    views[0][[3, 25, 47]] = 0.0          # all zero in the small view
    views[1][10] = views[1][11]           # a repeated sample in the large one
    views[0][30] = views[0][31]
    return [normalize_l2(X) if not (X == 0).all(axis=1).any() else X for X in views], labels


@pytest.mark.parametrize("loss_scale", [None, "median"])
def test_objective_never_increases_with_the_rule_and_the_fixed_weights_stay(loss_scale):
    for seed in range(10):
        rng = np.random.default_rng(200 + seed)
        n = int(rng.integers(10, 40))
        dims = tuple(int(d) for d in rng.integers(2, 30, size=rng.integers(1, 4)))
        views = random_views(rng, n, dims)
        views[0][rng.choice(n, 3, replace=False)] = 0.0
        if len(views) > 1:
            views[1][1] = views[1][0]
        mask = solver.uninformative_samples(views)
        assert mask.any()
        lam = float(10 ** rng.uniform(-2, 1.5))
        beta = float(10 ** rng.uniform(-3, 0))
        gamma = float(10 ** rng.uniform(-4, 0))
        factors = [solver.gram_factor(X) for X in views]
        sol = solver.solve(factors, lam, beta, gamma, max_iter=12, tol=0, precision="float64",
                           loss_scale=loss_scale, scale_power=1.0, uninformative=mask)
        f = np.concatenate([[sol.objective_init], sol.objective])
        assert np.all(np.diff(f) <= 1e-10 * (np.abs(f).max() + 1.0)), (seed, np.diff(f).max())
        # the objective's terms are those of the weights returned (constants included)
        total = sum(sol.terms[k] for k in solver.OBJECTIVE_TERMS)
        np.testing.assert_allclose(total, sol.objective)
        for v in range(len(views)):
            assert np.all(sol.P[v, mask[v]] == sol.P[v, mask[v]][:1]), "one weight per view"


def test_rmsc_never_gives_an_uninformative_sample_its_views_highest_weight():
    views, labels = _views_with_uninformative_samples()
    assert UNINFORMATIVE == "typical"
    est = rmsc.RMSC(n_clusters=3, random_state=0).fit(views)
    mask = solver.uninformative_samples([normalize_l2(X) for X in views])
    assert mask[0, [3, 25, 47, 30, 31]].all() and mask[1, [10, 11]].all()
    P = est.weights_
    for v in range(2):
        held = P[v, mask[v]]
        assert np.all(held == held[0])
        # the start's typical weight: P-step at the view's median start loss (in its unit,
        # 1 for the scaled model): 1/sqrt(gamma + 1), not the cap 1/sqrt(gamma)
        assert held[0] == pytest.approx(1 / np.sqrt(est.gamma + 1), rel=0.05)
        assert held[0] < np.max(P[v, ~mask[v]])
    f = np.concatenate([[est.objective_init_], est.objective_])
    assert np.all(np.diff(f) <= 1e-6 * np.abs(f).max())
    # the paper's exact model keeps the P-step for every weight
    paper = rmsc.RMSC(n_clusters=3, random_state=0, **PAPER_MODEL).fit(views)
    assert not np.all(paper.weights_[0, mask[0]] == paper.weights_[0, mask[0]][0])
    with pytest.raises(ValueError, match="uninformative"):
        rmsc.RMSC(n_clusters=3, uninformative="cap").fit(views)


def test_the_rule_on_the_device_path_equals_the_numpy_path():
    views, _ = _views_with_uninformative_samples(1)
    mask = solver.uninformative_samples(views)
    host = solver.solve([solver.gram_factor(X) for X in views], 1.0, 0.05, 1e-2, max_iter=8,
                        tol=0, precision="float64", loss_scale="median", scale_power=1.0,
                        uninformative=mask)
    dev = xps.Device("device1")
    factors = [xps.asarray(np.asarray(solver.gram_factor(X)), device=dev) for X in views]
    got = solver.solve(factors, 1.0, 0.05, 1e-2, max_iter=8, tol=0, precision="float64",
                       loss_scale="median", scale_power=1.0, uninformative=mask)
    np.testing.assert_allclose(np.asarray(xps.asarray(got.P, device=xps.Device("CPU_DEVICE"))),
                               host.P, rtol=1e-8)
    np.testing.assert_allclose(got.objective, host.objective, rtol=1e-8)
