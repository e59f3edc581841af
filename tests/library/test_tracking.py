"""rmsc.tracking: the clustering recorded along the iterations."""

import numpy as np
import pytest

import rmsc
from rmsc import solver
from rmsc.tracking import TRACE_COLUMNS, ClusteringTrace, agreement, quick_clustering


@pytest.fixture(scope="module")
def data():
    d = rmsc.datasets.make_multiview_subspaces(n_clusters=3, n_per_cluster=20, n_views=2,
                                               view_dims=(15, 20), noise=0.05, random_state=1)
    return list(d.views), np.asarray(d.labels)


def test_agreement_on_hand_worked_cases():
    assert agreement([0, 0, 1, 1], [1, 1, 0, 0]) == (1.0, 0)   # renamed clusters
    ari, changed = agreement([0, 0, 1, 1], [0, 1, 1, 1])
    assert changed == 1 and ari < 1
    ari, changed = agreement([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2])
    assert changed == 4 and ari < 0  # best matching keeps 2 of 6


def test_trace_records_every_few_iterations_and_the_fits_own_result(data):
    views, y = data
    seen = []
    trace = ClusteringTrace(3, every=4, labels=y, callback=lambda it, f, P: seen.append(it),
                            on_record=lambda row: seen.append(("row", row["iteration"])))
    model = rmsc.RMSC(3, max_iter=13, tol=0, random_state=0, callback=trace).fit(views)
    assert [r["iteration"] for r in trace.rows] == [1, 4, 8, 12]
    assert set(trace.rows[0]) == set(TRACE_COLUMNS)
    assert trace.rows[0]["ari_previous"] is None and trace.rows[1]["ari_previous"] is not None
    assert [s for s in seen if not isinstance(s, tuple)] == list(range(1, 14))  # forwarded
    assert ("row", 8) in seen
    # each row's objective is the fit's at that iteration
    assert [r["objective"] for r in trace.rows] == [model.objective_[i - 1] for i in (1, 4, 8, 12)]
    final = trace.finish(model)
    s = rmsc.evaluate_runs(y, model.label_runs_)
    assert final["final"] and final["iteration"] == 13
    assert final["acc"] == pytest.approx(100 * s["acc_mean"])
    assert final["nmi"] == pytest.approx(100 * s["nmi_mean"])


def test_trace_row_is_the_quick_clustering_of_that_iterate(data):
    # The row recorded at iteration 8 equals a quick clustering of the Z* a solve stopped
    # at 8 iterations returns (the iterates do not depend on where the solve stops).
    views, y = data
    trace = ClusteringTrace(3, every=4, labels=y)
    rmsc.RMSC(3, max_iter=8, tol=0, random_state=0, callback=trace).fit(views)
    stopped = rmsc.RMSC(3, max_iter=8, tol=0, random_state=0).fit(views)
    row4_labels = None
    # rebuild the chain: the quick clustering at 8 starts from the one at 4
    four = rmsc.RMSC(3, max_iter=4, tol=0, random_state=0).fit(views)
    q1 = quick_clustering(rmsc.RMSC(3, max_iter=1, tol=0, random_state=0).fit(views).consensus_, 3)
    row4_labels = quick_clustering(four.consensus_, 3, previous=q1)
    q8 = quick_clustering(stopped.consensus_, 3, previous=row4_labels)
    e = rmsc.evaluate(y, q8)
    assert trace.rows[-1]["acc"] == pytest.approx(100 * e["acc"])
    assert trace.rows[-1]["nmi"] == pytest.approx(100 * e["nmi"])
    assert trace.rows[-1]["density"] == pytest.approx(stopped.consensus_.nnz / 60 ** 2)


def test_trace_without_labels_and_a_stop_request(data):
    views, _ = data
    trace = ClusteringTrace(3, every=2, callback=lambda it, f, P: it == 6)
    model = rmsc.RMSC(3, max_iter=50, tol=0, random_state=0, callback=trace).fit(views)
    assert model.n_iter_ == 6
    assert [r["iteration"] for r in trace.rows] == [1, 2, 4, 6]
    assert all(r["acc"] is None and r["nmi"] is None for r in trace.rows)
    assert all(0 <= r["changed"] <= 60 for r in trace.rows[1:])


def test_solver_hands_the_consensus_only_to_callbacks_that_ask():
    rng = np.random.default_rng(0)
    X = [rng.standard_normal((20, 6)), rng.standard_normal((20, 9))]
    factors = [solver.gram_factor(x / np.linalg.norm(x, axis=1, keepdims=True)) for x in X]
    got = []

    def plain(it, f, P):
        got.append(("plain", it))

    class Wants:
        needs_consensus = True

        def __call__(self, it, f, P, consensus=None):
            got.append(("wants", it, consensus.shape))

    solver.solve(factors, 1.0, 0.05, 1e-5, max_iter=2, tol=0, callback=plain)
    solver.solve(factors, 1.0, 0.05, 1e-5, max_iter=2, tol=0, callback=Wants())
    assert got == [("plain", 1), ("plain", 2), ("wants", 1, (20, 20)), ("wants", 2, (20, 20))]


def test_trace_checks_its_interval():
    with pytest.raises(ValueError, match="every must be"):
        ClusteringTrace(3, every=0)
