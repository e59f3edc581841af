"""The reproduction's fits on Dask workers: same records as in one process, shared solves
kept together, the cache filled and used."""

import io

import pytest

from rmsc import experiments
from rmsc.experiments import Cache, Fit, run_fits, share_key


@pytest.fixture(scope="module")
def client():
    from distributed import Client

    from rmsc.dask_cluster import local_cluster

    with local_cluster(2) as cluster, Client(cluster, set_as_default=False) as c:
        yield c


@pytest.fixture
def two_datasets(subspaces, monkeypatch):
    """'Digit' and '3-Sources' replaced by small subspace data, grids cut to 2-3 settings."""
    from rmsc.datasets import MultiViewDataset

    views, y = subspaces
    monkeypatch.setattr(experiments.reproduce, "load_for_reproduction",
                        lambda name, path: MultiViewDataset(
                            name=name, views=views if name == "Digit" else views[::-1],
                            labels=y, view_names=("A", "B")))
    monkeypatch.setitem(experiments.SEARCH, "RMSC", {"lam": [0.3, 1.0], "beta": [0.02]})
    monkeypatch.setitem(experiments.SEARCH, "SSC-BSV", {"beta": [0.01, 0.05]})
    monkeypatch.setitem(experiments.SEARCH, "SSC-AVG", {"beta": [0.01, 0.05]})
    monkeypatch.setitem(experiments.SEARCH, "DiMSC", {"lam": [0.01, 100.0], "beta": [0.01]})
    monkeypatch.setitem(experiments.SEARCH, "MSC", {"r": [2, 5]})


def _scores(cache):
    return {k: (r.acc_mean, r.acc_std, r.nmi_mean, r.nmi_std, r.error, r.objective, r.view)
            for k, r in cache.records.items()}


def test_workers_give_the_records_of_a_run_in_one_process(two_datasets, client):
    methods = ["MSC", "SSC-BSV", "SSC-AVG", "DiMSC", "RMSC"]
    kw = dict(postprocessing=("none", "colmax"), lams=(0.3, 1.0), betas=(0.05,))
    here, there = Cache(), Cache()
    local = experiments.run(["Digit", "3-Sources"], methods, cache=here, **kw)
    seen = []
    remote = experiments.run(["Digit", "3-Sources"], methods, cache=there, client=client,
                             progress=lambda d, t, m: seen.append((d, t, m)), **kw)
    # Every fit of the search, the sensitivity grids and the views figure, and nothing else.
    assert set(there.records) == set(here.records)
    assert _scores(there) == _scores(here)
    for a, b in zip(local.datasets, remote.datasets):
        assert {v: {m: r.key for m, r in c.items()} for v, c in a.chosen.items()} == \
               {v: {m: r.key for m, r in c.items()} for v, c in b.chosen.items()}
    assert remote.views["Digit"].equals(local.views["Digit"].assign(
        fit_time=remote.views["Digit"]["fit_time"]))
    # One overall count of fits that only grows and ends full.
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and seen[-1][0] == seen[-1][1] == seen[0][1]
    assert any("fits to run on 2 Dask worker(s)" in m for _, _, m in seen)


def test_a_second_run_on_workers_computes_nothing(two_datasets, client, monkeypatch):
    cache = Cache()
    experiments.run(["Digit"], ["MSC", "RMSC"], cache=cache, client=client,
                    postprocessing=("none",), views=False, sensitivity=False)
    n = len(cache.records)
    assert n == 4
    data = experiments.reproduce.load_for_reproduction("Digit", None)
    fits = [Fit("Digit", "Digit", r.method, r.params) for r in cache.records.values()]
    assert run_fits(client, fits, {"Digit": data}, cache) == 0
    # A fit the cache lacks is computed and stored; the ones it has are not redone.
    fits.append(Fit("Digit", "Digit", "MSC", {"r": 3}))
    fits.append(Fit("Digit[A]", "Digit", "RMSC", {"lam": 1.0, "beta": 0.02}, n_views=1))
    assert run_fits(client, fits, {"Digit": data}, cache) == 2
    assert len(cache.records) == n + 2
    one_view = cache.get("Digit[A]", "RMSC", {"lam": 1.0, "beta": 0.02},
                         data_id=data.fingerprint)
    # The fit saw the first view only, as the views figure asks.
    alone, _ = experiments.run_one("RMSC", {"lam": 1.0, "beta": 0.02}, data.views[:1],
                                   data.labels)
    assert (one_view.acc_mean, one_view.objective) == (alone["acc_mean"], alone["objective"])


def test_shared_solves_stay_in_one_group():
    def key(method, params, record="Digit", n_views=None):
        return share_key(Fit(record, "Digit", method, params, n_views))

    # SSC-BSV, SSC-AVG and DiMSC from the same SSC problem, any affinity variant.
    assert key("SSC-BSV", {"beta": 0.01}) == key("SSC-AVG", {"beta": 0.01, "top_k": 10}) \
        == key("DiMSC", {"lam": 100.0, "beta": 0.01, "scale_columns": True})
    assert key("SSC-AVG", {"beta": 0.01}) != key("SSC-AVG", {"beta": 0.02})
    assert key("SSC-AVG", {"beta": 0.01}) != key("SSC-AVG", {"beta": 0.01, "alpha": 5.0})
    # RMSC's variants share its solve; another lambda, view subset or method does not.
    rmsc = {"lam": 1.0, "beta": "auto", "beta_rel": 0.25}
    assert key("RMSC", rmsc) == key("RMSC", {**rmsc, "keep_mass": 0.7, "scale_columns": True})
    assert key("RMSC", rmsc) != key("RMSC", {**rmsc, "lam": 3.0})
    assert key("RMSC", rmsc) != key("RMSC", rmsc, "Digit[A]", 1)
    assert key("RMSC", rmsc) != key("RMSC-WV", rmsc)


def test_cli_workers_option(monkeypatch):
    from rmsc import dask_cluster as cluster
    from rmsc.cli import main

    out, err = io.StringIO(), io.StringIO()
    assert main(["reproduce", "--workers", "0"], out=out, err=err) == 2
    assert err.getvalue() == ("rmsc: error: --workers takes a positive number of processes; "
                              "got 0.\n")
    # --workers 1: the fits run in this process; no cluster is started.
    monkeypatch.setattr(cluster, "local_cluster",
                        lambda *a, **k: pytest.fail("a cluster was started"))
    monkeypatch.setitem(experiments.SEARCH, "MSC", {"r": [3.0]})
    out, err = io.StringIO(), io.StringIO()
    code = main(["reproduce", "--datasets", "3-Sources", "--methods", "MSC", "--workers", "1",
                 "--postprocessing", "none", "--no-figures", "--quiet"], out=out, err=err)
    assert code == 0, err.getvalue()
    assert "| MSC |" in out.getvalue()


def test_cli_unreachable_scheduler_is_a_message(monkeypatch):
    import distributed

    from rmsc.cli import main

    def refuse(address, **kwargs):
        raise OSError(f"Timed out trying to connect to {address}")

    monkeypatch.setattr(distributed, "Client", refuse)
    out, err = io.StringIO(), io.StringIO()
    code = main(["reproduce", "--datasets", "3-Sources", "--methods", "MSC", "--no-figures",
                 "--scheduler", "tcp://10.0.0.5:8786"], out=out, err=err)
    assert code == 2 and out.getvalue() == ""
    assert err.getvalue() == (
        "rmsc: error: cannot reach the Dask scheduler at tcp://10.0.0.5:8786 (Timed out trying "
        "to connect to tcp://10.0.0.5:8786); start it, or leave --scheduler out to run on this "
        "machine.\n")
