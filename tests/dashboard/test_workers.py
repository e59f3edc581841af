"""The dashboard's jobs on dask.distributed worker processes (a small LocalCluster).

Every test here runs real tasks in real worker processes: results equal the in-process
ones exactly, progress streams back, stop and cancel reach the running task, a session
waiting for a worker sees its place, a worker that dies gives a message (and the next job
runs), and a fit too large for a worker's memory is refused before it starts.
"""

import os
import sys
import time

import cloudpickle
import numpy as np
import pytest
import scipy.sparse as sp

from rmsc import dashboard as dash
from rmsc import datasets
from rmsc.dashboard import remote, workers

# The tasks below are defined in this test module, which the workers cannot import.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

#: Upper bound of every wait (the machine is shared; nothing here is timed).
WAIT = 180


@pytest.fixture(scope="module")
def dask_workers():
    # the product's niceness (tests/conftest.py runs the other tests' workers at offset 0)
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(workers.NICENESS_ENV, raising=False)
        b = workers.DaskWorkers(n_workers=2, memory_limit="1.5GB")
    yield b
    b.close()


@pytest.fixture(scope="module")
def small():
    return datasets.load_bundled("Digit-small")


def run(dask_workers, task, key="k", label="t", **kw):
    return dash.Job(key, task, label=label, sender=dash.DaskSender(dask_workers), **kw).start()


def wait_until(cond, what):
    deadline = time.monotonic() + WAIT
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def count_until_stopped(n, job):
    """A task that reports n steps, 50 ms apart, and ends early when asked to stop."""
    for i in range(n):
        job.report(i, n, f"step {i}")
        job.record((i, float(n - i)), latest=[i, 2 * i])
        if job.stop_requested:
            return ("stopped", i)
        time.sleep(0.05)
    return ("done", n)


def die(job):
    job.report(1, 2, "about to die")
    os._exit(1)


def executing(dask_workers):
    return sum(dask_workers.client.run(lambda dask_worker: dask_worker.state.executing_count)
               .values())


def test_a_remote_fit_equals_the_in_process_fit_exactly(dask_workers, small):
    params = dash.Params(max_iter=8, tol=0.0)
    kept = []
    job = run(dask_workers, dash.Remote(dash.fit_rmsc, small, params,
                                   after=lambda out: kept.append(out) or out), label="fit")
    assert job.wait(WAIT)
    assert job.state == dash.DONE, job.error
    remote = job.result
    assert kept == [remote]  # after() ran in this process, on the result
    local = dash.fit_rmsc(small, params)
    assert remote.key == local.key
    for name in ("labels", "label_runs", "weights", "embedding", "objective"):
        np.testing.assert_array_equal(getattr(remote, name), getattr(local, name))
    for name in ("consensus", "affinity"):
        assert (getattr(remote, name) != getattr(local, name)).nnz == 0
    assert remote.scores == local.scores and remote.chosen_scores == local.chosen_scores
    assert remote.diagnostics == local.diagnostics
    # the live curve came back from the worker, point by point
    snap = job.snapshot()
    assert [h[0] for h in snap.history] == list(range(1, 9))
    np.testing.assert_array_equal([h[1] for h in snap.history], local.objective)
    np.testing.assert_array_equal(snap.latest, local.weights.mean(axis=1))


def test_experiments_run_on_a_worker_with_progress_and_equal_results(dask_workers, small):
    methods = ["RMSC-WV", "SSC-AVG"]
    # a few iterations each: the test is that the worker computes what this process does
    # (the parameters travel with the task), not the methods' converged scores
    params = {m: {"max_iter": 5} for m in methods}
    job = run(dask_workers, dash.Remote(dash.run_compare, {"data": small}, methods, params, 0),
              label="compare")
    assert job.wait(WAIT) and job.state == dash.DONE, job.error
    local = dash.run_compare({"data": small}, methods, params, 0)
    cols = ["method", "acc_mean", "acc_std", "nmi_mean", "ari_mean", "purity_mean"]
    assert job.result["data"][cols].equals(local["data"][cols])
    snap = job.snapshot()
    assert (snap.done, snap.total) == (2, 2)


def test_stop_reaches_the_running_task_which_keeps_its_partial_result(dask_workers):
    job = run(dask_workers, dash.Remote(count_until_stopped, 100_000))
    wait_until(lambda: len(job.snapshot().history) >= 3, "three steps")
    snap = job.snapshot()
    assert snap.message.startswith("step ") and snap.total == 100_000 and snap.place is None
    job.request_stop()
    assert job.wait(WAIT)
    assert job.state == dash.STOPPED
    kind, steps = job.result
    assert kind == "stopped" and 3 <= steps < 100_000


def test_cancel_ends_the_running_task_on_its_worker(dask_workers):
    job = run(dask_workers, dash.Remote(count_until_stopped, 100_000))
    wait_until(lambda: job.snapshot().history, "the first step")
    assert executing(dask_workers) == 1
    job.cancel()
    assert job.wait(WAIT) and job.state == dash.CANCELLED and job.result is None
    wait_until(lambda: executing(dask_workers) == 0, "the worker to be free")


def test_a_job_waiting_for_a_worker_sees_its_place_and_never_runs_when_cancelled(dask_workers):
    wait_until(lambda: executing(dask_workers) == 0, "the workers to be free at the start")
    busy = [run(dask_workers, dash.Remote(count_until_stopped, 100_000), key=i) for i in range(2)]
    waiting = []
    try:
        wait_until(lambda: all(j.snapshot().history for j in busy), "both workers busy")
        # Each job submits from its own thread: the second starts once the first is queued,
        # so that the order of the queue is the order of the starts.
        for i in (2, 3):
            waiting.append(run(dask_workers, dash.Remote(count_until_stopped, 100_000), key=i))
            wait_until(lambda: waiting[-1].snapshot().place, f"job {i} in the queue")
        assert [j.snapshot().place for j in waiting] == [1, 2]
        assert waiting[1].snapshot().message == "waiting for a free worker (2nd in the queue)"
        waiting[1].cancel()
        busy[0].request_stop()  # frees a worker: the first in the queue starts
        wait_until(lambda: waiting[0].snapshot().history, "the first in the queue to start")
        assert waiting[0].snapshot().place is None
        assert waiting[1].state == dash.CANCELLED and not waiting[1].snapshot().history
    finally:  # a failure here must not leave the module's workers busy for the next tests
        for j in busy + waiting:
            j.cancel()
    for j in busy + waiting:
        assert j.wait(WAIT)
    wait_until(lambda: executing(dask_workers) == 0, "the workers to be free")


def slow_to_cancel(data, path, job):
    """A task whose first step ignores a cancel until the file ``path`` exists (as a fit's
    set-up does until its first iteration), then checks."""
    job.report(0, 1, f"started with {data.n_samples} samples")
    deadline = time.monotonic() + WAIT
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    job.check()
    return "done"


def test_a_new_task_does_not_wait_behind_a_cancelled_one_still_on_its_worker(
        dask_workers, small, tmp_path):
    """A cancelled task runs on until its next check; Dask has forgotten it and would send
    the next task of the same data to that worker, behind it: it goes to the idle one."""
    wait_until(lambda: executing(dask_workers) == 0, "the workers to be free at the start")
    release = tmp_path / "release"
    first = run(dask_workers, dash.Remote(slow_to_cancel, small, str(release)), key="a")
    try:
        wait_until(lambda: first.snapshot().message.startswith("started"), "the first task")
        first.cancel()
        assert first.wait(WAIT) and first.state == dash.CANCELLED
        assert executing(dask_workers) == 1  # still on its worker, not at its check yet
        assert len(dask_workers.winding_down()) == 1
        second = run(dask_workers, dash.Remote(slow_to_cancel, small, str(release)), key="b")
        wait_until(lambda: second.snapshot().message.startswith("started"),
                   "the second task to start beside the first")
        assert executing(dask_workers) == 2
    finally:
        release.touch()
    assert second.wait(WAIT) and second.state == dash.DONE and second.result == "done"
    wait_until(lambda: executing(dask_workers) == 0, "the workers to be free")
    wait_until(lambda: not dask_workers.winding_down(), "the cancelled task's end")


def test_equal_requests_of_two_sessions_share_one_remote_run(dask_workers):
    registry = dash.JobRegistry()
    sender = dash.DaskSender(dask_workers)
    s1, s2 = dash.JobSlot(registry, sender), dash.JobSlot(registry, sender)
    j1 = s1.submit("same", dash.Remote(count_until_stopped, 5))
    j2 = s2.submit("same", dash.Remote(count_until_stopped, 5))
    assert j1 is j2
    assert j1.wait(WAIT) and j1.result == ("done", 5)


def test_a_worker_that_dies_gives_a_message_and_the_next_job_runs(dask_workers, small):
    job = run(dask_workers, dash.Remote(die), label="fit")
    assert job.wait(WAIT)
    assert job.state == dash.FAILED
    assert "worker process running this fit stopped" in job.error
    assert "press Run to try again" in job.error
    again = run(dask_workers, dash.Remote(count_until_stopped, 3))
    assert again.wait(WAIT) and again.result == ("done", 3)
    dask_workers.client.wait_for_workers(2, timeout=WAIT)  # the nanny restarted the dead worker


def _niceness():
    import os

    return os.getpriority(os.PRIO_PROCESS, 0)


def test_the_workers_run_below_the_servers_priority_restarted_ones_too(dask_workers):
    # after the test above, one of the two workers is a process the nanny restarted
    dask_workers.client.wait_for_workers(2, timeout=WAIT)
    server = _niceness()  # this process (0, or more when the suite runs under nice)
    want = min(19, server + workers.WORKER_NICENESS)
    assert set(dask_workers.client.run(_niceness).values()) == {want}
    assert want > server or server == 19  # below the server, unless it is the lowest already
    assert _niceness() == server  # the server keeps its priority


def test_the_workers_niceness_is_relative_to_a_nice_server(monkeypatch):
    monkeypatch.delenv(workers.NICENESS_ENV, raising=False)
    for server, want in ((0, workers.WORKER_NICENESS), (10, 10 + workers.WORKER_NICENESS),
                         (17, 19), (19, 19)):
        monkeypatch.setattr(workers.os, "getpriority", lambda which, who, n=server: n)
        assert workers.worker_niceness() == want


def test_the_niceness_offset_is_read_from_the_environment(monkeypatch, caplog):
    monkeypatch.setattr(workers.os, "getpriority", lambda which, who: 10)
    for raw, offset in (("0", 0), ("3", 3), (" 7 ", 7), ("19", 19), ("", workers.WORKER_NICENESS)):
        monkeypatch.setenv(workers.NICENESS_ENV, raw)
        assert workers.niceness_offset() == offset
        assert workers.worker_niceness() == min(19, 10 + offset)
    assert not caplog.records
    monkeypatch.delenv(workers.NICENESS_ENV)
    assert workers.niceness_offset() == workers.WORKER_NICENESS == 5


@pytest.mark.parametrize("raw", ["-1", "20", "2.5", "low"])
def test_a_bad_niceness_offset_is_logged_and_the_default_used(monkeypatch, caplog, raw):
    monkeypatch.setenv(workers.NICENESS_ENV, raw)
    with caplog.at_level("WARNING", logger="rmsc.dashboard"):
        assert workers.niceness_offset() == workers.WORKER_NICENESS
    [record] = caplog.records
    message = record.getMessage()
    assert f"RMSC_WORKER_NICENESS={raw!r} is not an integer from 0 to 19" in message
    assert f"the workers run {workers.WORKER_NICENESS} nicer than the server" in message
    assert "unset it" in message


def test_the_worker_setup_sets_the_niceness_it_is_given(monkeypatch):
    from rmsc.dashboard import _worker_setup

    calls = []
    monkeypatch.setattr(_worker_setup, "reuse_heap", lambda: calls.append("heap"))
    monkeypatch.setattr(_worker_setup.os, "setpriority",
                        lambda which, who, n: calls.append((which, who, n)))
    monkeypatch.setenv(workers.NICENESS_ENV, "0")
    monkeypatch.setattr(workers.os, "getpriority", lambda which, who: 2)
    _worker_setup.WorkerSetup(workers.worker_niceness()).setup(worker=None)
    assert calls == ["heap", (os.PRIO_PROCESS, 0, 2)]  # the server's own: offset 0


_SURVIVORS = []


def fragment_heap(job):
    """400 MB of heap blocks freed behind small survivors (the heap cannot shrink from its
    top): free() alone keeps every page resident."""
    import gc

    blocks = []
    for _ in range(6400):
        blocks.append(bytearray(64 * 1024))
        _SURVIVORS.append(bytearray(2000))
    del blocks
    gc.collect()
    return len(_SURVIVORS)


def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def page_faults_of_arrays(job=None):
    """Minor page faults while 100 arrays of 8 MB are made and dropped, one after another."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(100):
        a = np.ones((1000, 1000))
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_workers_reuse_their_heap_and_hand_freed_memory_back(dask_workers):
    from distributed import LocalCluster

    # Another cluster's worker as Dask starts it (MALLOC_TRIM_THRESHOLD_ set by its nanny):
    # outside our tasks every array is mapped and page-faulted afresh; our task sets the
    # heap's reuse first (reuse_heap), so its arrays reuse memory
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        b = workers.DaskWorkers(address=cluster.scheduler_address)
        try:
            assert set(b.client.run(os.environ.get, "MALLOC_TRIM_THRESHOLD_").values()) == {
                "65536"}
            plain = b.client.submit(page_faults_of_arrays, pure=False).result(timeout=WAIT)
            job = run(b, dash.Remote(page_faults_of_arrays))
            assert job.wait(WAIT)
            assert job.result < 0.1 * plain, (plain, job.result)
            b.trim_workers()
            before = next(iter(b.client.run(_rss).values()))
            job = run(b, dash.Remote(fragment_heap))
            assert job.wait(WAIT) and job.result == 6400
            after = next(iter(b.client.run(_rss).values()))
            assert after - before < 100 * 2**20  # not the 400 MB the task had freed
            assert b.trim_workers() == 1
        finally:
            b.close()
    # the dashboard's own LocalCluster sets it up when a worker starts: any code reuses
    ours = dask_workers.client.submit(page_faults_of_arrays, pure=False).result(timeout=WAIT)
    assert ours < 0.1 * plain, (plain, ours)


def test_trim_everywhere_trims_this_process_and_the_running_workers(dask_workers,
                                                                             monkeypatch):
    calls = []
    monkeypatch.setattr(workers, "trim_memory", lambda: calls.append("server"))
    monkeypatch.setattr(dask_workers, "trim_workers", lambda: calls.append("workers"))
    monkeypatch.setattr(workers, "_default", None)
    dash.trim_everywhere()  # no workers started: the server alone
    assert calls == ["server"]
    monkeypatch.setattr(workers, "_default", dask_workers)
    dash.trim_everywhere()
    assert calls == ["server", "server", "workers"]


def test_a_fit_too_large_for_a_workers_memory_is_refused_before_it_starts(dask_workers):
    n = 4000  # RMSC keeps about 8 dense (8000 x 4000) arrays: 2 GB > the 1.5 GB worker
    rng = np.random.default_rng(0)
    views = tuple(sp.random(n, n, density=2e-4, format="csr", random_state=rng) +
                  sp.eye(n, format="csr") for _ in range(2))
    data = datasets.MultiViewDataset("big", views, labels=np.arange(n) % 3)
    job = run(dask_workers, dash.Remote(dash.fit_rmsc, data, dash.Params()), label="fit")
    assert job.wait(WAIT)
    assert job.state == dash.FAILED
    assert "RMSC on 4000 samples" in job.error and "Subsample" in job.error
    assert not job.snapshot().history  # refused before the first iteration


def test_limits_name_the_workers_and_their_memory(dask_workers):
    lim = dask_workers.limits()
    assert lim["workers"] == 2 and lim["threads"] == 2
    assert lim["memory_per_worker"] == pytest.approx(1.5e9, rel=0.01)
    line = workers.describe_limits(dask_workers, 1 << 30, 500)
    assert "2 worker process(es)" in line and "1.0 GB of results" in line
    assert "uploads up to 500 MB" in line


def test_an_unreachable_scheduler_is_a_message_that_says_what_to_do(monkeypatch):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    monkeypatch.setenv(workers.SCHEDULER_ENV, address)
    monkeypatch.setattr(workers, "_default", None)
    monkeypatch.setattr(dash.DaskWorkers, "CONNECT_TIMEOUT", "2s")
    job = dash.Job("k", dash.Remote(count_until_stopped, 3), label="fit",
                   sender=dash.DaskSender()).start()
    assert job.wait(WAIT)
    assert job.state == dash.FAILED
    assert f"Cannot reach the Dask scheduler at {address}" in job.error
    assert "dask scheduler" in job.error and "unset RMSC_SCHEDULER" in job.error
    assert workers.running_workers() is None


def test_release_data_drops_the_scattered_datasets_and_jobs_still_run(dask_workers, small):
    job = run(dask_workers, dash.Remote(dash.fit_rmsc, small, dash.Params(max_iter=2, tol=0.0)),
              key="before-release")
    assert job.wait(WAIT) and job.state == dash.DONE, job.error
    assert small.fingerprint in dask_workers._scattered
    assert dask_workers.release_data() >= 1
    assert len(dask_workers._scattered) == 0
    wait_until(lambda: not any(dask_workers.client.run(
        lambda dask_worker: len(dask_worker.data)).values()), "the workers to drop the data")
    again = run(dask_workers, dash.Remote(dash.fit_rmsc, small, dash.Params(max_iter=2, tol=0.0)),
                key="after-release")
    assert again.wait(WAIT) and again.state == dash.DONE, again.error
    assert np.array_equal(again.result.labels, job.result.labels)


def sample_counts(variants, job):
    return {name: int(d.n_samples) for name, d in variants.items()}


def test_a_task_with_more_datasets_than_are_kept_scattered_gets_them_all(dask_workers, small,
                                                                         monkeypatch):
    """A robustness Compare sends nine datasets in one task. Datasets beyond
    MAX_SCATTERED are dropped only after the task is submitted: dropping one while the
    task's arguments were still being sent lost it, and the task was cancelled ("lost
    dependencies", reported as a dead worker; a flaky Compare test in fresh clones)."""
    monkeypatch.setattr(workers, "MAX_SCATTERED", 2)
    variants = {f"v{i}": small.replace(name=f"small {i}", labels=np.roll(small.labels, i))
                for i in range(5)}
    assert len({d.fingerprint for d in variants.values()}) == 5
    for attempt in range(3):
        job = run(dask_workers, dash.Remote(sample_counts, variants), key=("many", attempt))
        assert job.wait(WAIT) and job.state == dash.DONE, job.error
        assert job.result == {name: small.n_samples for name in variants}
    assert len(dask_workers._scattered) == 2


def array_sum(a, job):
    return float(a.sum())


def test_a_large_argument_is_scattered_not_sent_in_the_tasks_graph(dask_workers):
    """Dask warns in the server's terminal about a task whose graph is large (the Affinity
    page sent a fitted Digit model: 'Sending large graph of size 28.87 MiB')."""
    import warnings

    import dask

    big = np.arange(4 * workers.SCATTER_BYTES // 8, dtype=float)  # 4 x the scatter bound
    threshold = f"{2 * workers.SCATTER_BYTES}B"
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": threshold}), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        job = run(dask_workers, dash.Remote(array_sum, {"a": big}["a"]), key="big")
        assert job.wait(WAIT) and job.state == dash.DONE, job.error
    assert job.result == big.sum()
    assert not [w for w in caught if "large graph" in str(w.message)]
    assert not dask_workers._futures  # what was scattered for the job was released with it


def warn_twice(job):
    import warnings

    warnings.warn("7 sample(s) in view 1 are all zero", UserWarning)
    warnings.warn("7 sample(s) in view 1 are all zero", UserWarning)
    return 1


def test_a_tasks_warnings_are_logged_once_by_the_server_not_printed_by_workers(
        dask_workers, caplog, monkeypatch):
    import logging

    monkeypatch.setattr(remote, "_logged_warnings", set())
    caplog.set_level(logging.INFO, logger="rmsc.dashboard")
    # Every task's warnings come as one event, which may arrive after its job has ended:
    # the test waits until the server has had all three (not a fixed second, which a loaded
    # machine can outlast, and the check of 'once' would pass before the repeats came).
    received = []
    real = remote.log_warnings

    def counted(label, messages):
        if any("all zero" in m for m in messages):
            received.append(list(messages))
        return real(label, messages)

    monkeypatch.setattr(remote, "log_warnings", counted)  # a job's events (relay)
    monkeypatch.setattr(workers, "log_warnings", counted)  # those of a job already let go
    for attempt in range(3):
        job = run(dask_workers, dash.Remote(warn_twice), key=("warn", attempt), label="fit")
        assert job.wait(WAIT) and job.state == dash.DONE, job.error

    def logged():
        return [r.getMessage() for r in caplog.records if "all zero" in r.getMessage()]

    wait_until(lambda: len(received) >= 3, "every task's warnings at the server")
    # each task sent its repeated warning once, and the server logged it once in all
    assert received == [["UserWarning: 7 sample(s) in view 1 are all zero"]] * 3
    assert logged() == ["a fit on a worker warned: UserWarning: 7 sample(s) in view 1 are all "
                        "zero"]


def test_worker_processes_leave_ctrl_c_to_the_program_that_owns_them(dask_workers):
    import signal

    ignored = dask_workers.client.run(lambda: signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
    assert set(ignored.values()) == {True}


EXIT_SCRIPT = """
import time
from rmsc import dashboard as dash, datasets
from rmsc.dashboard import remote, workers
data = datasets.load_bundled("Digit-small")
job = dash.Job("k", dash.Remote(dash.fit_rmsc, data, dash.Params(max_iter=200, tol=0.0)),
               label="fit", sender=dash.DaskSender()).start()
while not job.snapshot().history:  # the fit is running on a worker, its dataset scattered
    time.sleep(0.05)
print("exiting", flush=True)
"""


def test_the_process_exits_cleanly_with_a_fit_running_and_data_scattered():
    """At exit the dashboard's workers close before distributed's own exit handlers close
    the LocalCluster: the client lets go of its data first, so the scheduler reports no
    loss ('... caused the cluster to lose scattered data') and no task is failed."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], capture_output=True, text=True,
                         timeout=WAIT, env={**os.environ, "RMSC_PREFETCH": "0"})
    assert out.returncode == 0, out.stderr
    assert "exiting" in out.stdout
    assert out.stderr.strip() == "", out.stderr


TWO_FITS_SCRIPT = """
import time
from rmsc import dashboard as dash, datasets
from rmsc.dashboard import workers
data = datasets.load_bundled("Digit-small")
for max_iter in (2, 3):  # two fits of the same data, on the dashboard's own cluster
    job = dash.Job(("fit", max_iter), dash.Remote(dash.fit_rmsc, data,
                                                  dash.Params(max_iter=max_iter, tol=0.0)),
                   label="fit", sender=dash.DaskSender()).start()
    assert job.wait(WAIT) and job.state == dash.DONE, job.error
dask_workers = workers.running_workers()
print("scattered", len(dask_workers._scattered), flush=True)
try:  # Ctrl-C comes as soon as the test reads "fitted": the print is inside the try
    print("fitted", flush=True)
    time.sleep(WAIT)  # until Ctrl-C
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def as_from_a_terminal():
    """In the child before it runs: Ctrl-C (SIGINT) at its default and not blocked, as a
    shell starts a program. A child inherits an ignored or blocked signal across exec, and
    in the whole suite the test process had SIGINT so (alone it had not): the child then
    never saw the Ctrl-C and slept out its 180 s."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def test_two_fits_of_one_dataset_send_it_once_and_ctrl_c_closes_quietly():
    """The dashboard's cluster path (``DaskSender()`` starts the default workers, a
    LocalCluster) runs two fits of one dataset, then gets Ctrl-C as a terminal sends it (to
    the whole process group): the data went to the workers once (no 'Sending large graph';
    Dask's bound lowered so that Digit-small's 0.6 MB would trip it), and the shutdown
    loses nothing ('... caused the cluster to lose scattered data')."""
    import signal
    import subprocess

    env = {**os.environ, "RMSC_PREFETCH": "0",
           "DASK_DISTRIBUTED__ADMIN__LARGE_GRAPH_WARNING_THRESHOLD": "256kB"}
    proc = subprocess.Popen([sys.executable, "-c", f"WAIT = {WAIT}\n" + TWO_FITS_SCRIPT],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True, preexec_fn=as_from_a_terminal)
    try:
        lines = []
        while "fitted" not in lines:  # blocks until the script prints (or exits)
            line = proc.stdout.readline()
            assert line, (lines, proc.stderr.read())
            lines.append(line.strip())
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert "scattered 1" in lines  # one dataset, sent once, kept for both fits
    assert "interrupted" in out and proc.returncode == 0, err
    assert "Sending large graph" not in err, err
    assert "lose scattered data" not in err, err
    assert "ERROR" not in err and "Traceback" not in err, err


def meet(i, others, steps, job):
    """A part that reports its steps and waits (up to WAIT s) until every other part has
    started: it ends only if the parts run side by side, on different workers."""
    from distributed import Event, get_worker

    Event(f"meet-{i}").set()
    job.report(0, steps, f"part {i} started")
    met = all(Event(f"meet-{j}").wait(WAIT) for j in others)
    for k in range(steps):
        job.report(k + 1, steps, f"part {i} step {k + 1}")
    return {"part": i, "met": met, "worker": get_worker().address}


def test_the_parts_of_a_task_run_side_by_side_on_every_worker(dask_workers):
    parts = []
    for i in range(2):
        part = dash.Remote(meet, i, [1 - i], 3)
        part.steps = 3
        parts.append(part)
    task = dash.RemoteParts(parts, combine=lambda results: results)
    job = run(dask_workers, task, key="parts", label="compare")
    assert job.wait(WAIT) and job.state == dash.DONE, job.error
    first, second = job.result  # in the parts' order
    assert (first["part"], second["part"]) == (0, 1)
    assert first["met"] and second["met"]  # each saw the other start: both ran at once
    assert first["worker"] != second["worker"]
    snap = job.snapshot()
    assert (snap.done, snap.total) == (6, 6)  # every part's steps, one bar


def part_that(kind, job):
    if kind == "fails":
        raise ValueError("this setting cannot be fitted: try another")
    for k in range(400):  # about 20 s unless cancelled
        job.report(k, 400, "working")
        time.sleep(0.05)
    return kind


def test_a_cancel_reaches_every_part_and_a_failing_part_fails_the_task(dask_workers):
    task = dash.RemoteParts([dash.Remote(part_that, "slow") for _ in range(3)],
                            combine=lambda results: results)
    job = run(dask_workers, task, key="cancel-parts", label="compare")
    wait_until(lambda: job.snapshot().message == "working", "the parts to start")
    job.cancel()
    assert job.wait(WAIT) and job.state == dash.CANCELLED
    wait_until(lambda: executing(dask_workers) == 0, "the parts to end on the workers")
    assert not dask_workers._futures
    task = dash.RemoteParts([dash.Remote(part_that, "slow"), dash.Remote(part_that, "fails")],
                            combine=lambda results: results)
    job = run(dask_workers, task, key="failing-parts", label="compare")
    assert job.wait(WAIT) and job.state == dash.FAILED
    assert job.error == "this setting cannot be fitted: try another"
    wait_until(lambda: executing(dask_workers) == 0, "the other part to be cancelled")


def test_parts_run_in_the_jobs_thread_without_a_sender():
    parts = [dash.Remote(lambda i, job: job.report(1, 1, f"p{i}") or i * 10, i)
             for i in range(3)]
    job = dash.Job("k", dash.RemoteParts(parts, combine=sum, after=lambda r: r + 1)).start()
    assert job.wait(WAIT) and job.state == dash.DONE and job.result == 31
    assert (job.snapshot().done, job.snapshot().total) == (3, 3)
