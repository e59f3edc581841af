"""The array-API (device) path equals the NumPy path, proven without a GPU.

Every fit here runs on array_api_strict arrays placed on its simulated non-CPU device,
``array_api_strict.Device("device1")``, which refuses any conversion to NumPy as a GPU
array does: code that passes here touches the host only through the explicit
``rmsc._array_api.to_numpy`` (the n x c embedding, the emptying betas, the views of
samples to place), and array_api_strict refuses anything outside the standard, so the
same code runs on CuPy and torch. The NumPy side runs at ``precision="float64"`` (the
paper form to round-off), the device side on float64 arrays; they agree to 1e-6 relative.
"""

import functools
import sys
import tracemalloc
import warnings

import array_api_strict as xps
import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from scipy.sparse.csgraph import connected_components
from sklearn.metrics import adjusted_rand_score

import rmsc
from rmsc import device, solver
from rmsc._array_api import to_numpy
from rmsc.datasets import load_bundled
from rmsc.memory import MemoryBudgetError, format_bytes
from rmsc.preprocessing import normalize_l2
from rmsc.rmsc import DegenerateSolutionError, beta_scale
from rmsc.spectral import (
    affinity_from_coefficients,
    count_pieces,
    empty_rows,
    spectral_embedding,
)

from tests.support import union_of_subspaces  # noqa: E402

DEV = xps.Device("device1")


def on_device(views, dtype=xps.float64):
    return [xps.asarray(np.ascontiguousarray(np.asarray(X.toarray() if sp.issparse(X) else X)),
                        dtype=dtype, device=DEV) for X in views]


@pytest.fixture
def dispatch():
    with device.dispatch():
        yield


@pytest.fixture
def float64_numpy_path(monkeypatch):
    """The NumPy path's solve at precision="float64" (its default "auto" runs the Z*-step's
    products in float32 while Z* is dense)."""
    monkeypatch.setattr(solver, "solve", functools.partial(solver.solve, precision="float64"))


def digit_subset(n, seed=0):
    data = load_bundled("Digit")
    idx = np.sort(np.random.default_rng(seed).choice(data.n_samples, n, replace=False))
    return [np.asarray(X)[idx] for X in data.views], np.asarray(data.labels)[idx]


def assert_close(device_array, host_array, rel=1e-6):
    got = (device_array.toarray() if sp.issparse(device_array) else to_numpy(device_array))
    want = host_array.toarray() if sp.issparse(host_array) else np.asarray(host_array)
    scale = max(np.abs(want).max(), np.finfo(float).tiny)
    assert np.abs(got - want).max() <= rel * scale


def same_subspace_residual(emb_a, emb_b):
    """How far emb_b is from emb_a times the best orthogonal matrix (Procrustes)."""
    u, _, vt = np.linalg.svd(emb_a.T @ emb_b)
    return np.abs(emb_a @ (u @ vt) - emb_b).max()


# ---------------------------------------------------------------------------------------
# The solver: every weighting, both stopping situations


#: The default scaled model with its stopping rule on the consensus's change, and the
#: paper's model with the former rule on the objective's decrease.
MODELS = {
    "scaled": dict(gamma=1e-2, loss_scale="median", scale_power=1.0, stop_on="zstar", tol=3e-3),
    "paper": dict(gamma=1e-5, loss_scale=None, stop_on="objective", tol=1e-3),
}


@pytest.mark.parametrize("weighting,stopping,model", [
    ("sample", "tol", "scaled"), ("view", "tol", "scaled"), ("sample", "tol", "paper"),
    ("view", "tol", "paper"), ("sample", "max_iter", "scaled"), ("view", "max_iter", "paper"),
])
def test_dense_solve_equals_the_numpy_solve(weighting, stopping, model, dispatch):
    views, _ = digit_subset(300)
    host = [normalize_l2(X) for X in views]
    dev = [normalize_l2(X) for X in on_device(views)]
    factors_host = solver.gram_factors(host)
    factors_dev = [solver.gram_factor(X) for X in dev]
    assert all(R.device == DEV for R in factors_dev)
    lam = rmsc.rmsc.default_lam(weighting)
    rule = lambda cb: 0.25 * beta_scale(cb)  # noqa: E731  (the default beta="auto")
    settings = dict(MODELS[model])
    gamma = settings.pop("gamma")
    if stopping == "tol":
        kw = dict(settings, max_iter=200)
    else:
        kw = dict(settings, tol=0.0, max_iter=6)
    seen = []
    want = solver.solve(factors_host, lam, rule, gamma, weighting=weighting, with_beta_max=True,
                        precision="float64", **kw)
    got = solver.solve(factors_dev, lam, rule, gamma, weighting=weighting, with_beta_max=True,
                       callback=lambda it, f, P: seen.append((it, f, P.device)), **kw)
    if stopping == "tol":
        assert want.converged and got.converged and got.n_iter < 200
    else:
        assert not want.converged and not got.converged and got.n_iter == 6
    assert got.n_iter == want.n_iter and [s[0] for s in seen] == list(range(1, got.n_iter + 1))
    assert all(s[2] == DEV for s in seen)
    assert got.Zstar.device == DEV and got.P.device == DEV
    assert_close(got.Zstar, want.Zstar)
    assert_close(got.P, want.P)
    np.testing.assert_allclose(got.objective, want.objective, rtol=1e-6)
    for name in solver.OBJECTIVE_TERMS:
        np.testing.assert_allclose(got.terms[name], want.terms[name], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(got.column_betas, want.column_betas, rtol=1e-6)
    assert got.beta == pytest.approx(want.beta, rel=1e-6)
    assert got.beta_max == pytest.approx(want.beta_max, rel=1e-6)
    assert got.objective_init == pytest.approx(want.objective_init, rel=1e-9)
    # the stopping rule measured the same changes; the scaled model's units alike
    np.testing.assert_allclose(got.changes, want.changes, rtol=1e-5, atol=1e-12)
    if model == "scaled":
        np.testing.assert_allclose(got.scale, want.scale, rtol=1e-9)
        np.testing.assert_allclose(got.factors, want.factors, rtol=1e-9)
    else:
        assert got.scale is None and want.scale is None
    # every block update is an exact minimisation: the objective never increases
    f = np.concatenate([[got.objective_init], got.objective])
    assert np.all(np.diff(f) <= 1e-12 * np.abs(f[:-1]))


@pytest.mark.parametrize("weighting,model", [("sample", "scaled"), ("view", "paper")])
def test_column_betas_and_beta_max_on_the_device_equal_the_numpy_ones(weighting, model,
                                                                      dispatch):
    # the device path shares the NumPy path's prelude: the same emptying betas, on the host
    views, _ = digit_subset(120, seed=2)
    factors_host = solver.gram_factors([normalize_l2(X) for X in views])
    factors_dev = [solver.gram_factor(normalize_l2(X)) for X in on_device(views)]
    settings = {k: v for k, v in MODELS[model].items() if k in ("loss_scale", "scale_power")}
    kw = dict(settings, weighting=weighting)
    gamma, lam = MODELS[model]["gamma"], rmsc.rmsc.default_lam(weighting)
    want = solver.column_betas(factors_host, lam, gamma, precision="float64", **kw)
    got = solver.column_betas(factors_dev, lam, gamma, **kw)
    assert isinstance(got, np.ndarray) and got.shape == (120,)
    np.testing.assert_allclose(got, want, rtol=1e-9)
    b = solver.beta_max(factors_dev, lam, gamma, **kw)
    assert b == pytest.approx(solver.beta_max(factors_host, lam, gamma, precision="float64",
                                              **kw), rel=1e-9)
    assert b >= got.max()


def test_dense_solve_in_float32_follows_the_float32_numpy_solve(dispatch):
    views, _ = digit_subset(250, seed=1)
    factors_host = solver.gram_factors([normalize_l2(X) for X in views])
    factors_dev = [solver.gram_factor(normalize_l2(X)) for X in on_device(views, xps.float32)]
    want = solver.solve(factors_host, 1.0, 0.02, 1e-5, max_iter=8, tol=0, precision="float32")
    got = solver.solve(factors_dev, 1.0, 0.02, 1e-5, max_iter=8, tol=0)
    assert got.Zstar.dtype == xps.float32 and got.P.dtype == xps.float64
    assert_close(got.Zstar, want.Zstar, rel=1e-4)
    np.testing.assert_allclose(got.objective, want.objective, rtol=1e-5)
    # float64 asked for on float32 factors: the n x n arrays follow precision
    got64 = solver.solve(factors_dev, 1.0, 0.02, 1e-5, max_iter=2, tol=0, precision="float64")
    assert got64.Zstar.dtype == xps.float64


# ---------------------------------------------------------------------------------------
# The estimator: RMSC and RMSC-WV, their spectral step on the device


@pytest.mark.parametrize("weighting", ["sample", "view"])
def test_rmsc_fit_on_the_device_equals_the_numpy_fit(weighting, dispatch, float64_numpy_path):
    # 650 > 600 samples: the spectral step takes the Krylov path on the device (eigsh on
    # the host). 30 iterations of the defaults (they stop at 154 here): every iteration runs
    # the same code, the stopping measure included, so the two fits are compared step for
    # step at a fifth of the cost; the defaults' stop firing on the device, at the same
    # iteration as on the host, is test_text_views_with_more_features_than_samples's (3-Sources
    # converges in 12).
    views, _ = digit_subset(650)
    params = dict(n_clusters=10, weighting=weighting, random_state=0, max_iter=30)
    want = rmsc.RMSC(**params).fit(views)
    got = rmsc.RMSC(**params).fit(on_device(views))
    assert adjusted_rand_score(want.labels_, got.labels_) == 1.0
    assert np.array_equal(want.label_runs_, got.label_runs_)
    # where things are: n x n and P on the device, the clustering on the host
    for name in ("consensus_", "affinity_matrix_", "weights_", "view_weights_"):
        assert getattr(got, name).device == DEV, name
    for name in ("labels_", "label_runs_", "embedding_", "placed_", "objective_",
                 "column_betas_"):
        assert isinstance(getattr(got, name), np.ndarray), name
    assert got.fit_device_ == f"{DEV} (array_api_strict)" and want.fit_device_ == "cpu (NumPy)"
    assert got.n_iter_ == want.n_iter_ and got.converged_ == want.converged_
    assert_close(got.consensus_, want.consensus_)
    assert_close(got.affinity_matrix_, want.affinity_matrix_)
    assert_close(got.weights_, want.weights_)
    assert_close(got.view_weights_, want.view_weights_)
    np.testing.assert_allclose(got.objective_, want.objective_, rtol=1e-6)
    for name in ("beta_", "beta_scale_", "beta_max_", "lam_"):
        assert getattr(got, name) == pytest.approx(getattr(want, name), rel=1e-6), name
    assert same_subspace_residual(want.embedding_, got.embedding_) < 1e-6
    # the dashboard's and the CLI's view of it: a CPU fit's types
    device.fitted_to_host(got)
    assert sp.issparse(got.consensus_) and isinstance(got.weights_, np.ndarray)
    assert_close(got.consensus_, want.consensus_)


def test_placement_and_stopping_by_tol_on_the_device(dispatch, float64_numpy_path):
    views, _ = union_of_subspaces(n_per=60, n_clusters=3, dims=(8, 12), noise=0.01, seed=1)
    rng = np.random.default_rng(0)
    out = rng.choice(180, 12, replace=False)
    for X in views:
        X[out] = 3 * rng.standard_normal((12, X.shape[1]))
    # the paper's model and former stopping rule, whose sparse consensus leaves samples
    # to place (the default scaled model links these ones)
    params = dict(n_clusters=3, lam=0.3, beta=0.3, random_state=0, **rmsc.rmsc.PAPER_MODEL,
                  **rmsc.rmsc.FORMER_STOPPING)
    want = rmsc.RMSC(**params).fit(views)
    got = rmsc.RMSC(**params).fit(on_device(views))
    assert want.converged_ and got.converged_ and got.n_iter_ == want.n_iter_ < 30
    assert want.placed_.size > 0 and np.array_equal(got.placed_, want.placed_)
    assert np.array_equal(got.labels_, want.labels_)
    # the anchors' graph has one piece a cluster: eigenvalue 1 three times, so the
    # eigenvectors are any basis of that space (the same rotation for the placed rows)
    assert same_subspace_residual(want.embedding_, got.embedding_) < 1e-6


def test_text_views_with_more_features_than_samples(dispatch, float64_numpy_path):
    # 3-Sources: 169 samples, thousands of features a view: the host path's kernel form, the
    # device's eigen-factor of the Gram matrix; and the dense eigh of n <= 600
    data = load_bundled("3-Sources")
    want = rmsc.RMSC(n_clusters=6, random_state=0).fit(data.views)
    got = rmsc.RMSC(n_clusters=6, random_state=0).fit(on_device(data.views))
    # the defaults' stop fires on the device at the host's iteration
    assert want.converged_ and got.converged_ and got.n_iter_ == want.n_iter_
    assert np.array_equal(got.labels_, want.labels_)
    assert_close(got.consensus_, want.consensus_)
    np.testing.assert_allclose(got.objective_, want.objective_, rtol=1e-6)


def test_degenerate_fits_fail_the_same_way(dispatch, float64_numpy_path):
    # the paper's model empties Z* at this beta; the default scaled model leaves most
    # samples unlinked: either way the device says what the host says
    views, _ = union_of_subspaces(n_per=40, n_clusters=3, seed=2)
    params = dict(n_clusters=3, lam=0.3, beta=5.0, weighting="view", random_state=0)
    for model, words in ((rmsc.rmsc.PAPER_MODEL, "consensus Z* is all zero"),
                         ({}, "with no link to any other sample in Z*")):
        with pytest.raises(DegenerateSolutionError) as want:
            rmsc.RMSC(**params, **model).fit(views)
        with pytest.raises(DegenerateSolutionError) as got:
            rmsc.RMSC(**params, **model).fit(on_device(views))
        assert str(got.value).split(".")[0] == str(want.value).split(".")[0]
        assert words in str(got.value)


def test_sklearn_config_context_turns_it_on(monkeypatch):
    """The convention itself: SCIPY_ARRAY_API=1 (scikit-learn checks it) and
    sklearn.config_context(array_api_dispatch=True); float32 input fits in float32."""
    monkeypatch.setenv("SCIPY_ARRAY_API", "1")
    views, _ = union_of_subspaces(n_per=30, seed=3)
    with sklearn.config_context(array_api_dispatch=True):
        got = rmsc.RMSC(n_clusters=3, random_state=0).fit(on_device(views, xps.float32))
    assert got.consensus_.dtype == xps.float32 and got.weights_.dtype == xps.float64
    want = rmsc.RMSC(n_clusters=3, random_state=0).fit(views)
    assert adjusted_rand_score(want.labels_, got.labels_) == 1.0


def test_dispatch_sets_and_restores_scipy_array_api(monkeypatch):
    monkeypatch.delenv("SCIPY_ARRAY_API", raising=False)
    assert not device.dispatch_enabled()
    with device.dispatch():
        assert device.dispatch_enabled()
        import os

        assert os.environ["SCIPY_ARRAY_API"] == "1"
    import os

    assert "SCIPY_ARRAY_API" not in os.environ and not device.dispatch_enabled()


def test_device_inputs_are_checked_with_messages():
    views, _ = union_of_subspaces(n_per=20, seed=4)
    # dispatch off: a device array cannot become NumPy; the error says how to fit it there
    with pytest.raises(ValueError, match=r"array_api_dispatch=True.*docs/device.md"):
        rmsc.RMSC(n_clusters=3).fit(on_device(views))
    with device.dispatch():
        with pytest.raises(ValueError, match="mix array libraries"):
            rmsc.RMSC(n_clusters=3).fit([views[0], *on_device(views[1:])])
        with pytest.raises(ValueError, match="not a single array"):
            rmsc.RMSC(n_clusters=3).fit(on_device(views)[0])
        bad = views[1].copy()
        bad[[4, 7], 0] = np.nan
        with pytest.raises(ValueError, match=r"View 1 contains NaN .* sample\(s\) 4, 7"):
            rmsc.RMSC(n_clusters=3).fit(on_device([views[0], bad]))
        with pytest.raises(ValueError, match="different numbers of samples"):
            rmsc.RMSC(n_clusters=3).fit(on_device([views[0], views[1][:-1]]))
        with pytest.raises(ValueError, match="2-D"):
            rmsc.RMSC(n_clusters=3).fit([xps.reshape(on_device(views)[0], (-1,))])


# ---------------------------------------------------------------------------------------
# The spectral step's parts against the host's


@pytest.mark.parametrize("n", [400, 700])
def test_spectral_embedding_on_the_device_agrees_with_eigsh(n, float64_numpy_path):
    # n = 700: block Krylov against eigsh; n = 400: a dense eigh on both sides
    views, _ = digit_subset(n, seed=5)
    S = rmsc.RMSC(n_clusters=10, random_state=0, max_iter=5).fit(views).affinity_matrix_
    rng_host, rng_dev = np.random.RandomState(7), np.random.RandomState(7)
    emb, w = spectral_embedding(S, 10, random_state=rng_host, return_eigenvalues=True)
    emb_dev, w_dev = spectral_embedding(on_device([S])[0], 10, random_state=rng_dev,
                                        return_eigenvalues=True)
    assert isinstance(emb_dev, np.ndarray) and isinstance(w_dev, np.ndarray)
    np.testing.assert_allclose(w_dev, w, atol=1e-9)
    assert same_subspace_residual(emb, emb_dev) < 1e-7
    # the same draws of random_state: the k-means seeds after it are the same
    assert rng_host.randint(2**31) == rng_dev.randint(2**31)


def test_block_krylov_finds_the_leading_eigenpairs():
    from rmsc.device_spectral import leading_eigenvectors

    rng = np.random.default_rng(0)
    n, k = 800, 6
    Q = np.linalg.qr(rng.standard_normal((n, n)))[0]
    # a cluster of leading eigenvalues, a small gap, then the bulk
    values = np.concatenate([[1.0, 0.999, 0.99, 0.98, 0.97, 0.95], rng.uniform(-1, 0.9, n - k)])
    A = (Q * values) @ Q.T
    Ad = on_device([A])[0]
    w, U, info = leading_eigenvectors(lambda V: Ad @ V, rng.uniform(-1, 1, (n, k + 8)), k, xps,
                                      DEV, xps.float64)
    np.testing.assert_allclose(to_numpy(w), np.sort(values)[-k:], atol=1e-10)
    U = to_numpy(U)
    assert np.abs(A @ U - U * to_numpy(w)).max() <= 1e-10
    assert same_subspace_residual(Q[:, np.argsort(values)[-k:]], U) < 1e-8
    assert info["products"] < 200


def test_block_krylov_with_float32_products_goes_below_their_tolerance():
    """An affinity-like operator whose products are float32 (a float32 fit's S): the
    small work is float64, so the residual's floor is that of the products (~2e-8
    here), not of float32 QRs and Ritz pairs (1.2e-6 to 2e-6 here, at the float32
    tolerance 2e-6, where an H200 fit's eigensolver ran to its last restart)."""
    from rmsc.device_spectral import TOL, leading_eigenvectors

    rng = np.random.default_rng(0)
    n, k = 2000, 10
    label = rng.integers(0, k, n)
    A = rng.uniform(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.05)
    A *= np.where(label[:, None] == label[None, :], 1.0, 0.02)
    S = (A + A.T) / 2
    np.fill_diagonal(S, 0)
    d = 1 / np.sqrt(S.sum(axis=1))
    S32 = on_device([S * d[:, None] * d[None, :]], xps.float32)[0]
    matvec = lambda V: xps.astype(S32 @ xps.astype(V, xps.float32), xps.float64)  # noqa: E731
    start = rng.uniform(-1, 1, (n, k + 8))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w, U, info = leading_eigenvectors(matvec, start, k, xps, DEV, xps.float32)
        assert info["residual"] <= TOL["float32"] and info["restarts"] <= 4, info
        _, _, info = leading_eigenvectors(matvec, start, k, xps, DEV, xps.float32,
                                          tol=TOL["float32"] / 10)
    assert info["residual"] <= TOL["float32"] / 10 and info["restarts"] <= 6, info
    assert U.dtype == xps.float64
    # a floor above the tolerance stops the iteration early, with a warning
    with pytest.warns(UserWarning, match="did not improve it"):
        _, _, info = leading_eigenvectors(matvec, start, k, xps, DEV, xps.float32, tol=1e-12)
    assert info["restarts"] < 20


def test_affinity_post_processing_on_the_device_equals_the_host():
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((60, 60)) * (rng.uniform(size=(60, 60)) < 0.4)
    Z[:5, 7] = Z[5, 7]  # ties within a column: kept in row order by keep_mass on both sides
    np.fill_diagonal(Z, 0.0)
    Zd = on_device([Z])[0]
    for kw in (dict(), dict(scale_columns=True), dict(keep_mass=0.7),
               dict(keep_mass=0.7, scale_columns=True), dict(top_k=5),
               dict(keep_mass=0.9, top_k=8, scale_columns=True)):
        want = affinity_from_coefficients(Z, **kw)
        got = affinity_from_coefficients(Zd, **kw)
        assert got.device == DEV
        np.testing.assert_array_equal(to_numpy(got), want, err_msg=str(kw))
    assert empty_rows(on_device([want])[0]) == empty_rows(sp.csr_matrix(want))


def test_connected_pieces_on_the_device_equal_scipys():
    rng = np.random.default_rng(2)
    for trial in range(5):
        n = 120
        A = sp.random(n, n, density=0.015, random_state=trial, format="csr")
        S = ((A + A.T) / 2).toarray()
        exclude = np.sort(rng.choice(n, 10, replace=False))
        kept = np.setdiff1d(np.arange(n), exclude)
        assert count_pieces(on_device([S])[0]) == connected_components(S, directed=False)[0]
        assert (count_pieces(on_device([S])[0], exclude)
                == connected_components(S[np.ix_(kept, kept)], directed=False)[0]
                == count_pieces(sp.csr_matrix(S), exclude))
    assert empty_rows(on_device([S])[0]) == empty_rows(sp.csr_matrix(S))


# ---------------------------------------------------------------------------------------
# The memory rule


def test_refuses_before_starting_when_the_device_memory_is_short(monkeypatch, dispatch):
    views, _ = union_of_subspaces(n_per=100, seed=6)
    monkeypatch.setenv(device.DEVICE_MEMORY_ENV, "1M")
    calls = []
    with pytest.raises(MemoryBudgetError) as info:
        rmsc.RMSC(n_clusters=3, callback=lambda *a: calls.append(a)).fit(on_device(views))
    text = str(info.value)
    need = solver.dense_form_bytes(300, 20, 8)
    assert calls == []  # refused before the first iteration
    assert rmsc.memory.format_bytes(need) in text and "1.0 MB is free" in text
    assert "samples would fit" in text and "float32 input halves" in text
    # the samples it says would fit do fit that budget
    fit_n = int(text.split("About ")[1].split(" samples")[0])
    assert solver.dense_form_bytes(fit_n, 20, 8) <= 2**20 < solver.dense_form_bytes(
        fit_n + 1, 20, 8)
    monkeypatch.setenv(device.DEVICE_MEMORY_ENV, "1G")
    rmsc.RMSC(n_clusters=3, random_state=0).fit(on_device(views))


def cuda_like_count_nonzero(x, /, *, axis=None, keepdims=False):
    """torch's CUDA count_nonzero: (x != 0).sum(), whose sum goes through an int64 copy
    (9 bytes an entry of temporaries)."""
    nonzero = x if x.dtype == xps.bool else x != 0
    return xps.sum(xps.astype(nonzero, xps.int64), axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("n, dims, block_fraction",
                         [(900, (20, 30, 40), 16), (1500, (2, 2, 2), 64)])
def test_the_memory_rule_covers_the_measured_peak(n, dims, block_fraction, monkeypatch, dispatch):
    """array_api_strict's arrays are NumPy's underneath, so tracemalloc sees every device
    allocation of a whole fit; the rule must cover that peak, and not by a wide margin.
    (Row blocks of a small fraction of n x n, so that the n x n arrays dominate at this
    small n; the rule adds the solve's and the affinity step's peaks, which do not
    coincide.) count_nonzero costs here what it costs on a CUDA device, 9 bytes an
    entry: counted whole, the n x n consensus took the H200 fit 1.1 bytes per n^2 over
    the rule, and the second case here (two features a view: the n x n arrays are nearly
    all of the rule) 0.3 over it."""
    import rmsc._array_api as aa

    monkeypatch.setattr(aa, "BLOCK_ENTRIES", n * n // block_fraction)
    monkeypatch.setattr(xps, "count_nonzero", cuda_like_count_nonzero)
    rng = np.random.default_rng(0)
    views = [rng.standard_normal((n, d)) for d in dims]
    for dtype, size in ((xps.float64, 8), (xps.float32, 4)):
        dev = on_device(views, dtype)
        tracemalloc.start()
        try:
            rmsc.RMSC(n_clusters=3, random_state=0, max_iter=4).fit(dev)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        rule = solver.dense_form_bytes(n, sum(dims), size)
        assert peak <= rule <= 2 * peak, (dtype, peak, rule)


def test_count_nonzero_of_a_device_matrix_goes_by_row_blocks(monkeypatch):
    import rmsc._array_api as aa

    rng = np.random.default_rng(3)
    Z = rng.standard_normal((50, 40)) * (rng.uniform(size=(50, 40)) < 0.3)
    seen = []

    def counting(x, /, **kw):
        seen.append(x.shape)
        return cuda_like_count_nonzero(x, **kw)

    monkeypatch.setattr(aa, "BLOCK_ENTRIES", 7 * 40)
    monkeypatch.setattr(xps, "count_nonzero", counting)
    assert aa.count_nonzero(on_device([Z])[0]) == np.count_nonzero(Z)
    assert seen == [(7, 40)] * 7 + [(1, 40)]
    assert aa.count_nonzero(on_device([np.zeros((3, 4))])[0]) == 0
    assert aa.count_nonzero(Z) == np.count_nonzero(Z) and aa.count_nonzero(sp.csr_matrix(Z)) == \
        np.count_nonzero(Z)


# ---------------------------------------------------------------------------------------
# Choosing a device; the CLI


def test_resolve_device():
    cpu = device.resolve_device("cpu")
    assert cpu.name == "cpu" and not cpu.on_device and cpu.description == "CPU (NumPy)"
    auto = device.resolve_device("auto")
    if auto.on_device:  # a machine with a GPU: auto and cuda agree
        assert auto.name.startswith("cuda") and device.resolve_device("cuda") == auto
    else:  # no GPU here: auto says why it took the CPU, cuda refuses
        assert auto.name == "cpu" and "no GPU found" in auto.reason
        with pytest.raises(ValueError, match="asks for a CUDA GPU, but none can be used"):
            device.resolve_device("cuda")
    with pytest.raises(ValueError, match="device must be one of auto, cpu, cuda"):
        device.resolve_device("tpu")
    with pytest.raises(ValueError, match="cuda:N"):
        device.resolve_device("cuda:x")


def test_cli_fit_device(monkeypatch):
    import io

    from rmsc.cli import main

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        return main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()

    code, cpu_out, err = run("fit", "--data", "Subspaces", "--quiet", "--device", "cpu")
    assert code == 0 and "device: CPU (NumPy)" in err
    # a device fit through the CLI, on array_api_strict's device standing in for a GPU
    fake = device.DeviceChoice("device1", "array_api_strict", "simulated device1")
    monkeypatch.setattr(device, "resolve_device", lambda spec=None: fake)
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--device", "cuda",
                         "--weights", "-")
    assert code == 0, err
    assert "device: simulated device1" in err and "ACC     100.00" in err
    assert out.splitlines()[0].startswith("sample,")  # the weights, from host arrays
    code, _, err = run("fit", "--data", "Subspaces", "--quiet", "--device", "cuda",
                       "--method", "SSC-AVG")
    assert code == 2 and "only RMSC and RMSC-WV run on a GPU" in err
    code, out, err = run("fit", "--data", "Subspaces", "--quiet", "--device", "auto",
                         "--method", "SSC-AVG")
    assert code == 0 and "device: CPU (NumPy) (SSCAVG runs on the CPU only)" in err


# ---------------------------------------------------------------------------------------
# A CUDA GPU through torch, without one: tests/fake_torch.py stands in for torch


def test_auto_resolves_to_the_cuda_gpu_torch_reports(fake_cuda_torch):
    from tests import fake_torch

    want = (f"{fake_torch.NAME} (cuda:0 through torch {fake_torch.VERSION}, "
            f"{format_bytes(fake_torch.TOTAL)})")
    auto = device.resolve_device("auto")
    assert auto == device.DeviceChoice("cuda:0", "torch", want) and auto.on_device
    assert ("get_device_properties", (0,)) in fake_cuda_torch.calls  # the driver was asked
    assert device.resolve_device("cuda") == auto == device.resolve_device(None)
    assert device.resolve_device("cuda:0") == auto
    with pytest.raises(ValueError, match=r"torch sees 1 CUDA GPU\(s\), no cuda:1"):
        device.resolve_device("cuda:1")
    assert device.resolve_device("cpu").name == "cpu"


def test_auto_falls_back_to_the_cpu_when_torch_sees_no_gpu(monkeypatch):
    from tests import fake_torch

    monkeypatch.setitem(sys.modules, "torch", fake_torch.make(count=0))
    auto = device.resolve_device("auto")
    assert auto.name == "cpu" and not auto.on_device
    assert f"torch {fake_torch.VERSION} sees no CUDA GPU" in auto.reason
    with pytest.raises(ValueError, match="asks for a CUDA GPU, but none can be used"):
        device.resolve_device("cuda")


def test_the_dashboard_device_line_names_the_gpu(fake_cuda_torch, monkeypatch):
    from tests import fake_torch

    from rmsc.dashboard.fitting import device_text

    monkeypatch.delenv(device.DEVICE_ENV, raising=False)  # auto
    assert device_text().startswith(f"{fake_torch.NAME} (cuda:0 through torch ")
    monkeypatch.setenv(device.DEVICE_ENV, "cuda:3")
    assert device_text().startswith(f"{device.DEVICE_ENV} cannot be used: device 'cuda:3'")


def test_free_memory_of_a_torch_cuda_device(fake_cuda_torch, monkeypatch):
    from tests import fake_torch

    from rmsc._array_api import free_bytes

    monkeypatch.delenv(device.DEVICE_MEMORY_ENV, raising=False)
    # free on the card, plus what torch's allocator holds but does not use
    want = fake_torch.FREE + fake_torch.RESERVED - fake_torch.ALLOCATED
    assert free_bytes(fake_cuda_torch, fake_torch.FakeDevice(0)) == want
    assert [name for name, _ in fake_cuda_torch.calls] == [
        "mem_get_info", "memory_reserved", "memory_allocated"]
    monkeypatch.setenv(device.DEVICE_MEMORY_ENV, "20G")  # a shared GPU: the variable wins
    assert free_bytes(fake_cuda_torch, fake_torch.FakeDevice(0)) == 20 * 2**30


def test_cli_fit_device_auto_takes_the_cuda_gpu(fake_cuda_torch, monkeypatch):
    """``rmsc fit --device auto`` with torch reporting a GPU: the CLI names the GPU, copies
    the views to cuda:0 through torch and fits there. The copy is the one step a fake torch
    cannot take: here it puts the views on array_api_strict's simulated device instead, so
    that the fit after it runs the device path too."""
    import io

    from tests import fake_torch

    from rmsc.cli import main

    copied = []

    def to_simulated_device(views, choice, dtype="float32"):
        copied.append((choice.name, choice.library, dtype))
        return on_device(views, dtype=getattr(xps, dtype))

    monkeypatch.setattr(device, "to_device", to_simulated_device)
    out, err = io.StringIO(), io.StringIO()
    code = main(["fit", "--data", "Subspaces", "--quiet", "--device", "auto"], out=out, err=err)
    assert code == 0, err.getvalue()
    assert copied == [("cuda:0", "torch", "float32")]
    assert f"device: {fake_torch.NAME} (cuda:0 through torch {fake_torch.VERSION}" in err.getvalue()
    assert "ACC     100.00" in out.getvalue()  # the summary, of the fit on the device


def test_torch_cpu_tensors_take_the_same_path(dispatch):
    """The same path on torch, where torch is installed (CPU tensors here); the tests
    above cover it on array_api_strict, which CI always has."""
    torch = pytest.importorskip("torch")
    views, _ = union_of_subspaces(n_per=30, seed=8)
    want = rmsc.RMSC(n_clusters=3, random_state=0).fit(on_device(views))
    got = rmsc.RMSC(n_clusters=3, random_state=0).fit(
        [torch.as_tensor(np.ascontiguousarray(X)) for X in views])
    assert isinstance(got.consensus_, torch.Tensor) and got.fit_device_ == "cpu (torch)"
    assert np.array_equal(got.labels_, want.labels_)
    assert_close(got.consensus_, to_numpy(want.consensus_), rel=1e-9)


def test_the_clustering_trace_follows_a_device_fit(dispatch, float64_numpy_path):
    # the Solve page's trace (rmsc.tracking) reads the consensus where it lives
    from rmsc.tracking import ClusteringTrace

    views, _ = union_of_subspaces(n_per=30, n_clusters=3, seed=3)
    params = dict(n_clusters=3, random_state=0, max_iter=6, tol=0.0)
    on_host, on_dev = ClusteringTrace(3, every=2), ClusteringTrace(3, every=2)
    want = rmsc.RMSC(callback=on_host, **params).fit(views)
    got = rmsc.RMSC(callback=on_dev, **params).fit(on_device(views))
    on_host.finish(want)
    on_dev.finish(got)
    assert [r["iteration"] for r in on_dev.rows] == [r["iteration"] for r in on_host.rows]
    assert len(on_dev.rows) >= 3
    for a, b in zip(on_dev.rows, on_host.rows):
        assert a["density"] == pytest.approx(b["density"], abs=1e-3)
        assert a["ari_previous"] == pytest.approx(b["ari_previous"]) or (
            a["ari_previous"] is None and b["ari_previous"] is None)
