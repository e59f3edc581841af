"""The Solve page's fit without a browser (rmsc.dashboard.fitting): everything the pages
show, its device, stop and cancel, failures as messages, the diagnosis of a degenerate result."""

import numpy as np
import pytest
import scipy.sparse as sp

import rmsc
from rmsc import dashboard as dash


def test_fit_rmsc_returns_everything_the_pages_show(small):
    job = dash.Job("k", lambda j: None)
    r = dash.fit_rmsc(small, dash.Params(max_iter=8, tol=0.0, beta=0.01), job)
    assert isinstance(r, dash.FitResult)
    n = small.n_samples
    assert r.labels.shape == (n,) and r.label_runs.shape == (20, n)
    assert r.weights.shape == (2, n) and r.consensus.shape == (n, n)
    assert r.n_iter == 8 and not r.stopped_early and r.n_clusters == 3
    assert np.all(np.diff(r.objective) <= 1e-9 * np.abs(r.objective[:-1]))
    # the live curve is the objective, point by point
    hist = job.snapshot().history
    assert [h[0] for h in hist] == list(range(1, 9))
    np.testing.assert_allclose([h[1] for h in hist], r.objective)
    np.testing.assert_allclose(job.snapshot().latest, r.weights.mean(axis=1))
    # scores are the paper protocol's
    expect = rmsc.evaluate_runs(small.labels, r.label_runs)
    assert r.scores == expect
    assert r.chosen_scores == rmsc.evaluate(small.labels, r.labels)
    assert r.density == pytest.approx(r.consensus.nnz / n ** 2)
    table = r.metrics_table()
    assert list(table["metric"]) == ["ACC", "NMI", "ARI", "PURITY"]
    assert table["mean %"].iloc[0] == pytest.approx(100 * expect["acc_mean"])
    # the page's text form of the same table: a row per metric, its numbers to 0.01
    lines = r.metrics_text().splitlines()
    assert lines[0] == "| metric | mean % | std % | chosen run % |"
    assert lines[2] == (f"| ACC | {100 * expect['acc_mean']:.2f} | {100 * expect['acc_std']:.2f} "
                        f"| {100 * r.chosen_scores['acc']:.2f} |")
    assert len(lines) == 2 + 4
    assert r.key == dash.fit_key(dash.Params(max_iter=8, tol=0.0, beta=0.01), small)
    assert r.weights_ is r.weights
    assert r.device == "CPU (NumPy)"


def test_the_fits_device_comes_from_rmsc_device(small, monkeypatch):
    # no GPU on this machine whatever is installed: both probes say so
    monkeypatch.setattr(rmsc.device, "_torch_gpu", lambda index: (None, "torch sees no GPU"))
    monkeypatch.setattr(rmsc.device, "_cupy_gpu", lambda index: (None, "CuPy is not installed"))
    monkeypatch.delenv("RMSC_DEVICE", raising=False)
    assert dash.device_text() == ("CPU (NumPy) (no GPU found (torch sees no GPU; CuPy is not "
                                  "installed))")
    monkeypatch.setenv("RMSC_DEVICE", "cpu")
    assert dash.device_text() == "CPU (NumPy)"
    for bad, words in (("cuda", "asks for a CUDA GPU, but none can be used: torch sees no GPU"),
                       ("tpu", "device must be one of auto, cpu, cuda")):
        monkeypatch.setenv("RMSC_DEVICE", bad)
        text = dash.device_text()
        assert text.startswith("RMSC_DEVICE cannot be used: ") and words in text
        # a fit asked for on that device fails with the same words (a Job shows them)
        with pytest.raises(ValueError, match=words.split(":")[0]):
            dash.fit_rmsc(small, dash.Params(max_iter=2, beta=0.01))


def test_fit_rmsc_stops_early_on_request(small):
    class StopAt3:
        stop_requested = False

        def check(self):
            pass

        def record(self, point, latest=None):
            if point[0] >= 3:
                self.stop_requested = True

        def report(self, *a):
            pass

    r = dash.fit_rmsc(small, dash.Params(max_iter=20, tol=0.0, beta=0.01), StopAt3())
    assert r.n_iter == 3 and r.stopped_early
    assert any("stopped after 3" in msg for _, msg in r.diagnostics)


def test_fit_rmsc_cancelled_raises(small):
    job = dash.Job("k", lambda j: None)
    job.cancel()
    with pytest.raises(dash.Cancelled):
        dash.fit_rmsc(small, dash.Params(max_iter=5), job)


def test_fit_rmsc_too_large_beta_is_a_failure_with_the_estimators_message(small):
    out = dash.fit_rmsc(small, dash.Params(beta=1e4, max_iter=3))
    assert isinstance(out, dash.FitFailure) and out.degenerate
    # the estimator's message, in the pages' words
    assert out.message.startswith("β = 10000 is so large") and "all zero" in out.message
    # where Z* empties, for the Sensitivity page's grid: the estimator's own beta_max_
    est = rmsc.RMSC(n_clusters=3, beta=1e4, max_iter=3)
    with pytest.raises(ValueError):
        est.fit(list(small.views))
    assert out.beta_max == pytest.approx(est.beta_max_)


def test_fit_rmsc_without_labels_has_no_scores(small):
    data = small.replace(labels=None)
    r = dash.fit_rmsc(data, dash.Params(n_clusters=3, max_iter=5, beta=0.01))
    assert r.scores is None and r.metrics_table() is None and r.metrics_text() is None
    assert r.labels.shape == (45,)


def test_diagnose_names_isolated_samples_pieces_and_one_big_cluster(small):
    r = dash.fit_rmsc(small, dash.Params(max_iter=5, beta=0.01))
    n = small.n_samples
    # hand-made affinity: two linked pairs, the rest isolated
    S = sp.csr_matrix(([1.0] * 4, ([0, 1, 2, 3], [1, 0, 3, 2])), shape=(n, n))
    bad = dataclasses_replace(r, affinity=S, labels=np.zeros(n, dtype=int))
    text = [msg for level, msg in dash.diagnose(bad) if level == "warning"]
    assert any(f"{n - 4} sample(s) have no link" in m for m in text)
    assert any(f"falls into {n - 2} disconnected pieces" in m for m in text)
    assert any(f"One cluster holds {n} of {n}" in m for m in text)


def test_placed_samples_are_reported_not_called_arbitrary(small):
    import types

    r = dash.fit_rmsc(small, dash.Params(max_iter=5, beta=0.01))
    np.testing.assert_array_equal(r.placed, r.model.placed_)
    n = small.n_samples
    S = sp.csr_matrix(([1.0] * 4, ([0, 1, 2, 3], [1, 0, 3, 2])), shape=(n, n))
    placed = dataclasses_replace(r, affinity=S,
                                 model=types.SimpleNamespace(placed_=np.arange(4, n)))
    notes = dash.diagnose(placed)
    assert not any("have no link" in m for level, m in notes if level == "warning")
    assert any(f"{n - 4} sample(s) have no link" in m and "placed by their nearest neighbours"
               in m for level, m in notes if level == "info")
    assert dataclasses_replace(r, model=None).placed.size == 0  # made-up results


def dataclasses_replace(obj, **kw):
    import dataclasses

    return dataclasses.replace(obj, **kw)


def test_describe_error_is_one_readable_sentence():
    assert dash.describe_error(ValueError("beta too large")) == "beta too large"
    assert "Not enough memory" in dash.describe_error(MemoryError())
    assert dash.describe_error(ZeroDivisionError("x")).startswith("Unexpected ZeroDivisionError")
