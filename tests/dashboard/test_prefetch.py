"""Fits one slider step away on idle workers: which settings, when, and that they give way."""

import math

import pytest

from rmsc import dashboard as dash
from tests.support import THREAD_WAIT, Gate, _wait_until


@pytest.fixture(autouse=True)
def prefetch_on(monkeypatch):
    monkeypatch.setenv(dash.PREFETCH_ENV, "1")  # the test session turns it off elsewhere


def test_neighbors_are_one_slider_step_of_beta_then_lambda():
    p = dash.Params(beta=0.3, lam=1.0)
    got = [(q.beta, q.resolved_lam) for q in dash.slider_neighbors(p)]
    beta_opts, lam_opts = dash.beta_options(0.3), dash.options_with(dash.LAM_GRID, 1.0)
    i, j = beta_opts.index(0.3), lam_opts.index(1.0)
    assert got == [(beta_opts[i - 1], 1.0), (beta_opts[i + 1], 1.0),
                   (0.3, lam_opts[j - 1]), (0.3, lam_opts[j + 1])]
    assert got == [(0.2, 1.0), (0.5, 1.0), (0.3, 0.5), (0.3, 2.0)]
    # Every other parameter is kept.
    q = dash.Params(beta=0.3, gamma=1e-3, weighting="view", post="scale", seed=4)
    for n in dash.slider_neighbors(q):
        assert (n.gamma, n.weighting, n.post, n.seed) == (1e-3, "view", "scale", 4)


def test_neighbors_under_beta_auto_step_beta_rel_and_stop_at_the_ends():
    p = dash.Params()  # beta "auto" at the weighting's beta_rel
    rel = p.resolved_beta_rel
    opts = dash.options_with(dash.BETA_REL_GRID, rel)
    k = next(i for i, v in enumerate(opts) if math.isclose(v, rel))
    got = dash.slider_neighbors(p)
    assert [q.resolved_beta_rel for q in got[:2]] == [opts[k - 1], opts[k + 1]]
    assert all(q.beta == dash.AUTO for q in got)
    # The λ slider's last value has one neighbour, and so has the fixed β slider's first
    # value ("auto" is a way of setting β of its own, not a step of that slider).
    last = dash.Params(beta=0.3, lam=dash.LAM_GRID[-1])
    assert [q.resolved_lam for q in dash.slider_neighbors(last)[2:]] == [dash.LAM_GRID[-2]]
    first = dash.Params(beta=dash.BETA_GRID[0])
    assert [q.beta for q in dash.slider_neighbors(first)] == [dash.BETA_GRID[1], first.beta,
                                                              first.beta]


class FakeBackend:
    def __init__(self, workers, busy=0):
        self.workers, self.busy = workers, busy

    def limits(self):
        return {"workers": self.workers}

    def unfinished(self):
        return self.busy


def test_prefetches_run_one_at_a_time_on_an_idle_worker_and_are_joined_by_key():
    backend = FakeBackend(workers=2, busy=1)
    registry = dash.JobRegistry()
    done = set()
    pre = dash.Prefetcher(registry, lambda: backend, cached=done.__contains__)
    gates = {k: Gate(steps=1) for k in "abcd"}
    done.add("b")  # already kept: not fitted again
    (a,) = pre.prefetch(list(gates.items()))
    assert a.key == "a" and gates["a"].priority == dash.PREFETCH_PRIORITY
    assert pre.queued == ["b", "c", "d"]
    # A session moving onto "a" joins the run instead of starting another.
    slot = dash.JobSlot(registry)
    assert slot.submit("a", Gate()) is a and a.watchers == 2
    # When it ends, the next missing key starts ("b" is cached).
    gates["a"].go.release()
    assert a.wait(THREAD_WAIT) and a.state == dash.DONE and a.result == 1
    _wait_until(lambda: [j.key for j in pre.running] == ["c"])
    assert a.watchers == 1  # only the session's hold is left
    (c,) = pre.running
    # A fit asked for takes the worker back: the queue is dropped and the prefetch nobody
    # joined is cancelled.
    assert pre.yield_workers(keep="z") == 1 and c.cancelled and pre.queued == []
    gates["c"].go.release()  # the task's next step sees the cancel
    assert c.wait(THREAD_WAIT) and c.state == dash.CANCELLED
    _wait_until(lambda: len(registry) == 0)
    assert pre.running == []


def test_no_idle_worker_queues_and_a_new_position_replaces_the_queue():
    backend = FakeBackend(workers=1, busy=1)
    pre = dash.Prefetcher(dash.JobRegistry(), lambda: backend)
    assert pre.prefetch([("a", Gate()), ("b", Gate())]) == [] and pre.queued == ["a", "b"]
    backend.busy = 0
    gate = Gate(steps=1)
    (job,) = pre.prefetch([("c", gate), ("d", Gate())])
    assert job.key == "c" and pre.queued == ["d"]
    assert pre.yield_workers(keep="c") == 0 and not job.cancelled  # the key asked for runs on
    gate.go.release()
    assert job.wait(THREAD_WAIT) and job.state == dash.DONE
    _wait_until(lambda: pre.running == [])
    assert job.watchers == 0 and pre.queued == []


def test_no_backend_or_prefetch_off_starts_nothing(monkeypatch):
    pre = dash.Prefetcher(dash.JobRegistry(), lambda: None)
    assert pre.idle_workers() == 0 and pre.prefetch([("a", Gate())]) == []
    pre = dash.Prefetcher(dash.JobRegistry(), lambda: FakeBackend(workers=2))
    monkeypatch.setenv(dash.PREFETCH_ENV, "0")
    assert not dash.prefetch_enabled() and pre.prefetch([("a", Gate())]) == []
    monkeypatch.setenv(dash.PREFETCH_ENV, "on")
    assert dash.prefetch_enabled()


@pytest.mark.parametrize("value", ["0", "off", "False", " no "])
def test_prefetch_env_values_that_turn_it_off(monkeypatch, value):
    monkeypatch.setenv(dash.PREFETCH_ENV, value)
    assert not dash.prefetch_enabled()


def ask(pre, slot, key, task):
    """A session asks for its own fit of ``key`` (the prefetches of ``pre`` give way)."""
    return dash.request_user_fit(slot, key, task, prefetcher=pre)


def test_a_joined_prefetch_goes_on_while_a_session_waits_for_it_and_gives_way_after():
    """The latest move wins: a session that moved onto the step being prefetched and moves
    on again leaves it to another session still on it, else it is cancelled."""
    backend = FakeBackend(workers=2)
    registry = dash.JobRegistry()
    pre = dash.Prefetcher(registry, lambda: backend)
    gate = Gate(steps=3)
    (p,) = pre.prefetch([("n", gate)])
    s1, s2 = dash.JobSlot(registry), dash.JobSlot(registry)
    assert ask(pre, s1, "n", Gate()) is p and ask(pre, s2, "n", Gate()) is p
    gate.go.release()  # it runs
    m1 = ask(pre, s1, "m1", Gate(steps=1))  # session 1 moves on; session 2 still waits
    assert not p.cancelled and p.watchers == 2 and s1.current is m1
    m2 = ask(pre, s2, "m2", Gate(steps=1))  # session 2 moves on too: nobody waits
    assert p.cancelled and s2.current is m2
    gate.go.release(2)  # the task's next step sees the cancel
    assert p.wait(THREAD_WAIT) and p.state == dash.CANCELLED
    for job in (m1, m2):
        job._task.go.release()
        assert job.wait(THREAD_WAIT) and job.state == dash.DONE


def test_a_prefetch_one_session_joined_gives_way_when_it_moves_on():
    backend = FakeBackend(workers=2)
    registry = dash.JobRegistry()
    pre = dash.Prefetcher(registry, lambda: backend)
    gate = Gate(steps=3)
    (p,) = pre.prefetch([("n", gate)])
    s = dash.JobSlot(registry)
    assert ask(pre, s, "n", Gate()) is p
    nxt = ask(pre, s, "m", Gate(steps=1))
    assert p.cancelled and pre.running == []
    gate.go.release(3)
    nxt._task.go.release()
    assert p.wait(THREAD_WAIT) and p.state == dash.CANCELLED
    assert nxt.wait(THREAD_WAIT) and nxt.state == dash.DONE
