"""The Dask backend runs the Z*-step's column blocks on a cluster and changes nothing."""

import numpy as np
import pytest

import rmsc
from rmsc import backends, solver
from rmsc import dask_cluster
from tests.support import random_views, union_of_subspaces


def test_local_backend_runs_blocks_in_order():
    runner = backends.get_runner("local")
    assert runner.map(lambda shared, a, b: shared + a * b, 10, [(1, 2), (3, 4)]) == [12, 22]


def test_unknown_backend_and_missing_client_are_explained():
    with pytest.raises(ValueError, match="backend must be one of 'local', 'dask'"):
        backends.get_runner("spark")
    with pytest.raises(ValueError, match="backend must be one of"):
        rmsc.RMSC(n_clusters=2, backend="gpu").fit(union_of_subspaces()[0])


@pytest.fixture(scope="module")
def client():
    import distributed  # the dask extra, which `make test` installs
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_dask_blocks_give_identical_solutions(client):
    rng = np.random.default_rng(0)
    factors = [solver.gram_factor(X) for X in random_views(rng, 60, (5, 12, 70))]
    for weighting in ("sample", "view"):
        here = solver.solve(factors, 0.5, 0.05, 1e-5, weighting=weighting, max_iter=5, tol=0,
                            block_size=16, precision="float64")
        there = solver.solve(factors, 0.5, 0.05, 1e-5, weighting=weighting, max_iter=5, tol=0,
                             block_size=16, runner=backends.DaskBlocks(client),
                             precision="float64")
        # Equal up to the summation order of BLAS (the workers run one thread each).
        assert there.Zstar.nnz == here.Zstar.nnz > 0
        assert abs(there.Zstar - here.Zstar).max() < 1e-12
        assert np.allclose(there.P, here.P, rtol=1e-12, atol=0)
        assert np.allclose(there.objective, here.objective, rtol=1e-12, atol=0)


def test_estimator_with_dask_backend_matches_local(client):
    views, labels = union_of_subspaces(n_per=25)
    local = rmsc.RMSC(n_clusters=3, random_state=0, block_size=20).fit(views)
    dask = rmsc.RMSC(n_clusters=3, random_state=0, block_size=20, backend="dask").fit(views)
    assert np.array_equal(dask.labels_, local.labels_)
    assert np.allclose(dask.objective_, local.objective_, rtol=1e-12, atol=0)
    assert rmsc.evaluate(labels, dask.labels_)["acc"] == 1.0


def test_dask_equals_local_on_text_like_views(client):
    # Locally, views with more features than samples run the kernel form (float64); on a
    # cluster the factor form runs in float64 too, so the two agree to round-off.
    rng = np.random.default_rng(3)
    factors = [solver.gram_factor(X) for X in random_views(rng, 40, (50, 60, 45))]
    assert solver.use_kernel_form(factors)
    here = solver.solve(factors, 0.5, 0.05, 1e-5, max_iter=5, tol=0, block_size=16)
    there = solver.solve(factors, 0.5, 0.05, 1e-5, max_iter=5, tol=0, block_size=16,
                         runner=backends.DaskBlocks(client))
    assert here.Zstar.nnz > 0
    assert abs(there.Zstar - here.Zstar).max() < 1e-10
    assert np.allclose(there.objective, here.objective, rtol=1e-10, atol=0)


def _listening(pids):
    import psutil

    out = set()
    for pid in pids:
        for c in psutil.Process(pid).net_connections(kind="inet"):
            if c.status == psutil.CONN_LISTEN:
                out.add((pid, c.laddr.ip, c.laddr.port))
    return out


@pytest.mark.parametrize("dashboard", [False, True])
def test_a_local_cluster_listens_on_loopback_only(dashboard):
    """Scheduler (and its HTTP server), nannies and workers: every socket on 127.0.0.1, the
    diagnostics pages served only when asked for. Dask's dashboard used to listen on every
    interface (":0"), where anyone on the network could read the cluster's tasks and logs."""
    import os
    import urllib.error
    import urllib.request

    import psutil

    me = os.getpid()
    before = _listening([me])
    with dask_cluster.local_cluster(1, dashboard=dashboard) as cluster:
        workers = [p.pid for p in psutil.Process(me).children(recursive=True)]
        opened = _listening([me, *workers]) - before
        assert len({port for _, _, port in opened}) >= 4  # scheduler, its HTTP, nanny, worker
        assert {ip for _, ip, _ in opened} == {"127.0.0.1"}, opened
        link = cluster.dashboard_link
        assert link.startswith("http://127.0.0.1:") and link.endswith("/status")
        assert 8787 not in {port for _, _, port in opened}  # a free port, never Dask's default
        with urllib.request.urlopen(link.replace("/status", "/health"), timeout=30) as r:
            assert r.read() == b"ok"
        if dashboard:
            with urllib.request.urlopen(link, timeout=30) as r:
                assert r.status == 200
        else:
            with pytest.raises(urllib.error.HTTPError, match="404"):
                urllib.request.urlopen(link, timeout=30)


def _profiling():
    import dask

    return dask.config.get("distributed.worker.profile.enabled")


@pytest.mark.parametrize("dashboard", [False, True])
def test_a_local_cluster_quietens_the_diagnostics_only_dasks_dashboard_shows(dashboard):
    """Without Dask's dashboard, the workers' profiler is off (QUIET_DIAGNOSTICS: an idle
    cluster cost three times the CPU with it); with the dashboard, Dask's settings stay
    (here switched on around the call, whatever the suite's conftest quietened)."""
    import dask
    from distributed import Client

    profiling = {"distributed.worker.profile.enabled": True}
    with dask.config.set(profiling), dask_cluster.local_cluster(1, dashboard=dashboard) as cl, \
            Client(cl, set_as_default=False) as client:
        assert set(client.run(_profiling).values()) == {dashboard}
