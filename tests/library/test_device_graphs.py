"""The device iteration captured as one CUDA graph, proven without a GPU.

:meth:`rmsc.solver._dense.DenseForm.iterate` captures the repeated iteration once and
replays it. Here the capture is a stand-in that hands back the step itself as its
"replay" (a CUDA graph replays the same kernels on the same arrays; rerunning the step
over the same buffers is what that does), on array_api_strict's simulated device: the
state threading, the buffers, the values the loop fetches and the copies handed on are
the GPU's code, and the iterates must be those of the launched steps exactly.
:func:`rmsc._array_api.graph_capture` itself is driven with a stand-in ``torch``.
"""

import sys
import types

import array_api_strict as xps
import numpy as np
import pytest

import rmsc
from rmsc import _array_api, device, solver
from rmsc._array_api import to_numpy
from rmsc.datasets import load_bundled
from rmsc.preprocessing import normalize_l2
from rmsc.rmsc import beta_scale
from rmsc.solver import _dense

DEV = xps.Device("device1")


def device_factors(n=240, seed=0):
    data = load_bundled("Digit")
    idx = np.sort(np.random.default_rng(seed).choice(data.n_samples, n, replace=False))
    views = [xps.asarray(np.ascontiguousarray(np.asarray(X)[idx]), dtype=xps.float64,
                         device=DEV) for X in data.views]
    return [solver.gram_factor(normalize_l2(X)) for X in views]


class StandInCapture:
    """capture(body) -> replay: records the capture, and replays by rerunning ``body``."""

    def __init__(self):
        self.captures = 0
        self.replays = 0

    def __call__(self, body):
        self.captures += 1

        def replay():
            self.replays += 1
            body()

        return replay


@pytest.fixture
def dispatch():
    with device.dispatch():
        yield


def solve(factors, weighting="sample", **kw):
    lam = rmsc.rmsc.default_lam(weighting)
    settings = dict(gamma=1e-2, loss_scale="median", scale_power=1.0, stop_on="zstar",
                    tol=3e-3, max_iter=60)
    settings.update(kw)
    gamma = settings.pop("gamma")
    return solver.solve(factors, lam, lambda cb: 0.25 * beta_scale(cb), gamma,
                        weighting=weighting, with_beta_max=True, **settings)


@pytest.mark.parametrize("weighting,stop_on", [("sample", "zstar"), ("view", "objective")])
def test_replayed_iterations_equal_the_launched_ones(weighting, stop_on, dispatch,
                                                     monkeypatch):
    factors = device_factors()
    want = solve(factors, weighting, stop_on=stop_on)
    stand_in = StandInCapture()
    monkeypatch.setattr(_dense, "graph_capture", lambda xp, dev: stand_in)
    seen = []
    got = solve(factors, weighting, stop_on=stop_on,
                callback=lambda it, f, P: seen.append(to_numpy(P)))
    # the first two iterations run as launched, the rest are one capture's replays
    assert want.n_iter > 4
    assert stand_in.captures == 1 and stand_in.replays == got.n_iter - 2
    assert got.n_iter == want.n_iter and got.converged == want.converged
    np.testing.assert_array_equal(got.objective, want.objective)
    np.testing.assert_array_equal(to_numpy(got.Zstar), to_numpy(want.Zstar))
    np.testing.assert_array_equal(to_numpy(got.P), to_numpy(want.P))
    assert got.beta_max == want.beta_max
    assert np.all(np.diff(got.objective) <= 1e-12 * np.abs(got.objective[:-1]))
    # each iteration's P handed to the callback is its own: a later replay changes none
    assert len(seen) == got.n_iter
    assert not any(np.array_equal(a, b) for a, b in zip(seen[1:], seen[2:]))
    np.testing.assert_array_equal(seen[-1], to_numpy(got.P))


def test_a_solve_that_stops_before_the_capture_never_captures(dispatch, monkeypatch):
    stand_in = StandInCapture()
    monkeypatch.setattr(_dense, "graph_capture", lambda xp, dev: stand_in)
    got = solve(device_factors(), max_iter=2, tol=0.0)
    assert got.n_iter == 2 and stand_in.captures == 0 and stand_in.replays == 0


def test_graphs_only_where_the_iteration_is_launch_bound_and_fits(monkeypatch):
    stand_in = StandInCapture()
    monkeypatch.setattr(_dense, "graph_capture", lambda xp, dev: stand_in)
    monkeypatch.setattr(_dense, "free_bytes", lambda xp, dev: 10**9)
    assert _dense._graphs(xps, DEV, 2000, 10**8) is stand_in
    assert _dense._graphs(xps, DEV, _dense.GRAPH_MAX_SAMPLES + 1, 10**8) is None
    assert _dense._graphs(xps, DEV, 2000, 2 * 10**9) is None  # more than is free
    monkeypatch.setattr(_dense, "graph_capture", lambda xp, dev: None)
    assert _dense._graphs(xps, DEV, 2000, 10**8) is None


@pytest.fixture
def graphing_torch(monkeypatch):
    """A stand-in torch with what graph_capture uses: CUDAGraph and the graph context."""
    torch = types.ModuleType("torch")
    events = []

    class CUDAGraph:
        def replay(self):
            events.append("replay")

    class graph:
        def __init__(self, g):
            events.append(("graph", type(g).__name__))

        def __enter__(self):
            events.append("enter")

        def __exit__(self, *exc):
            events.append("exit")

    torch.cuda = types.SimpleNamespace(CUDAGraph=CUDAGraph, graph=graph)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(_array_api, "library", lambda xp: "torch")
    monkeypatch.delenv(_array_api.GRAPHS_ENV, raising=False)
    return events


def test_graph_capture_on_a_torch_cuda_device(graphing_torch):
    cuda = types.SimpleNamespace(type="cuda", index=0)
    capture = _array_api.graph_capture(object(), cuda)
    replay = capture(lambda: graphing_torch.append("body"))
    # the body runs once, inside the capture; the replay runs the graph, not the body
    assert graphing_torch == [("graph", "CUDAGraph"), "enter", "body", "exit"]
    replay()
    assert graphing_torch[-1] == "replay" and graphing_torch.count("body") == 1


def test_no_graph_off_cuda_or_when_turned_off(graphing_torch, monkeypatch):
    assert _array_api.graph_capture(object(), types.SimpleNamespace(type="cpu")) is None
    monkeypatch.setenv(_array_api.GRAPHS_ENV, "0")
    assert _array_api.graph_capture(object(), types.SimpleNamespace(type="cuda")) is None
    monkeypatch.setattr(_array_api, "library", lambda xp: "cupy")
    monkeypatch.delenv(_array_api.GRAPHS_ENV)
    assert _array_api.graph_capture(object(), types.SimpleNamespace(type="cuda")) is None


def test_a_refused_capture_falls_back_to_launched_steps(dispatch, monkeypatch):
    factors = device_factors()
    want = solve(factors)

    def refusing(body):
        # a refused capture ran no device work: the buffers hold the state it started from
        raise RuntimeError("operation not permitted when stream is capturing")

    monkeypatch.setattr(_dense, "graph_capture", lambda xp, dev: refusing)
    with pytest.warns(RuntimeWarning, match="could not be captured as a CUDA graph"):
        got = solve(factors)
    assert got.n_iter == want.n_iter
    np.testing.assert_array_equal(got.objective, want.objective)
    np.testing.assert_array_equal(to_numpy(got.Zstar), to_numpy(want.Zstar))
