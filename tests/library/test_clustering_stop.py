"""rmsc.tracking.ClusteringStop: stop the solver once the clustering of Z* has settled."""

import numpy as np
import pytest

import rmsc
from rmsc.tracking import ClusteringStop, agreement


def _blocks(groups):
    """A consensus linking the samples of each group to each other (block diagonal)."""
    groups = np.asarray(groups)
    Z = (groups[:, None] == groups[None, :]).astype(float)
    np.fill_diagonal(Z, 0.0)
    return Z


A = np.repeat([0, 1, 2], 10)                 # three groups of ten
B = np.array([0] * 5 + [1] * 15 + [2] * 10)  # another partition of the same 30 samples


def test_stops_after_times_agreeing_checks_in_a_row_and_resets_on_a_change():
    assert agreement(A, B)[0] < 0.9
    stop = ClusteringStop(3, every=5, ari=0.99, times=2)
    calls = [(it, _blocks(g)) for it, g in ((5, A), (10, A), (15, B), (20, B), (25, B))]
    answers = [stop(it, 0.0, None, consensus=Z) for it, Z in calls]
    # 10: one agreeing check; 15: the partition changed, the streak restarts; 20, 25: two
    assert answers == [False, False, False, False, True]
    assert [it for it, _ in stop.agreements] == [10, 15, 20, 25]
    assert stop.agreements[0][1] == pytest.approx(1.0)
    assert stop.agreements[1][1] < 0.9
    assert stop.stopped_at == 25


def test_only_every_few_iterations_and_only_with_the_consensus():
    stop = ClusteringStop(3, every=5, times=1)
    assert not stop(3, 0.0, None, consensus=_blocks(A))   # not a check's iteration
    assert not stop(5, 0.0, None)                        # no consensus passed
    assert stop.agreements == []
    assert not stop(5, 0.0, None, consensus=_blocks(A))   # the first check: nothing to compare
    assert stop(10, 0.0, None, consensus=_blocks(A))


@pytest.fixture(scope="module")
def data():
    d = rmsc.datasets.make_multiview_subspaces(n_clusters=3, n_per_cluster=20, n_views=2,
                                               view_dims=(15, 20), noise=0.05, random_state=1)
    return list(d.views), np.asarray(d.labels)


@pytest.mark.parametrize("acceleration", ["none", "extrapolate"])
def test_a_fit_stops_where_the_clustering_settled(data, acceleration):
    views, y = data
    stop = ClusteringStop(3)
    model = rmsc.RMSC(3, tol=0, max_iter=200, acceleration=acceleration, random_state=0,
                      callback=stop).fit(views)
    # tol=0 never stops the plain rule: the callback did, at its second agreeing check
    assert stop.stopped_at == model.n_iter_ < 200 and not model.converged_
    assert model.n_iter_ % 5 == 0
    assert len(stop.agreements) >= 2 and all(a >= 0.99 for _, a in stop.agreements[-2:])
    assert np.all(np.diff(model.objective_) <= 1e-9 * np.abs(model.objective_[:-1]))
    assert rmsc.evaluate(y, model.labels_)["acc"] == 1.0


def test_an_agreement_never_reached_runs_to_max_iter(data):
    views, _ = data
    stop = ClusteringStop(3, every=4, ari=1.01)
    model = rmsc.RMSC(3, tol=0, max_iter=13, random_state=0, callback=stop).fit(views)
    assert model.n_iter_ == 13 and stop.stopped_at is None
    assert [it for it, _ in stop.agreements] == [8, 12]


@pytest.mark.parametrize("kw", [{"every": 0}, {"every": 2.5}, {"times": 0}])
def test_bad_settings_are_refused(kw):
    with pytest.raises(ValueError, match="whole number"):
        ClusteringStop(3, **kw)
