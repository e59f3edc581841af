"""Background jobs and their slots without a browser (rmsc.dashboard.jobs): progress,
stop and cancel, a delayed job, the slot that reuses or replaces its job, the shared registry."""

import threading
import time

import pytest

from rmsc import dashboard as dash

from tests.support import THREAD_WAIT as WAIT, ElsewhereSender, Gate, _wait_until


def test_job_runs_reports_and_finishes():
    gate = Gate(steps=3)
    job = dash.Job("k", gate, label="t").start()
    assert job.active
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    snap = job.snapshot()
    assert snap.history == ((1, 10.0),) and snap.latest == 0 and snap.fraction == pytest.approx(1 / 3)
    gate.go.release(2)
    assert job.wait(WAIT)
    assert job.state == dash.DONE and job.result == 3 and job.error is None
    assert job.snapshot().history == ((1, 10.0), (2, 9.0), (3, 8.0))


def test_job_failure_becomes_a_message_not_an_exception():
    gate = Gate(steps=1, fail=True)
    job = dash.Job("k", gate).start()
    gate.go.release()
    assert job.wait(WAIT)
    assert job.state == dash.FAILED and job.error == "bad parameter: try another"
    assert job.result is None

    def crash(job):
        raise KeyError("x")

    job = dash.Job("k", crash).start()
    job.wait(WAIT)
    assert job.state == dash.FAILED and "Unexpected KeyError" in job.error


def test_stop_keeps_the_partial_result_cancel_discards_it():
    gate = Gate(steps=10)
    job = dash.Job("k", gate).start()
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    job.request_stop()
    gate.go.release()
    assert job.wait(WAIT)
    assert job.state == dash.STOPPED and job.result == 2

    gate = Gate(steps=10)
    job = dash.Job("k", gate).start()
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    job.cancel()
    gate.go.release()
    assert job.wait(WAIT)
    assert job.state == dash.CANCELLED and job.result is None


def test_a_stop_after_the_task_ran_to_its_end_leaves_it_done():
    class Complete:
        stopped_early = False

    def task(job):
        job.request_stop()  # arrives while the task finishes on its own
        return Complete()

    job = dash.Job("k", task).start()
    assert job.wait(WAIT) and job.state == dash.DONE
    Complete.stopped_early = True
    job = dash.Job("k", task).start()
    assert job.wait(WAIT) and job.state == dash.STOPPED


def test_done_callbacks_run_once_when_the_job_finishes():
    gate = Gate(steps=1)
    job = dash.Job("k", gate).start()
    seen = []
    assert job.add_done_callback(lambda j: seen.append(("a", j.state)), call_if_done=False)
    gate.go.release()
    assert job.wait(WAIT)
    _wait_until(lambda: len(seen) == 1)
    assert seen == [("a", dash.DONE)]
    # on a finished job: called at once, unless asked not to
    assert not job.add_done_callback(lambda j: seen.append(("b", j.state)))
    assert not job.add_done_callback(lambda j: seen.append(("c", j.state)), call_if_done=False)
    assert seen == [("a", dash.DONE), ("b", dash.DONE)]


def test_a_job_cancelled_before_it_starts_never_runs():
    ran = []
    job = dash.Job("k", lambda j: ran.append(1))
    job.cancel()
    job.start()
    assert job.wait(WAIT) and job.state == dash.CANCELLED and ran == []


def test_a_delayed_job_waits_unless_hurried_and_never_runs_if_cancelled_meanwhile():
    ran = []
    job = dash.Job("k", lambda j: ran.append(time.perf_counter()), delay=30, min_delay=0.2)
    t0 = time.perf_counter()
    job.start()
    assert ran == [] and job.active
    job.hurry()
    assert job.wait(WAIT) and job.state == dash.DONE
    # hurried (long before its delay of 30 s), but not before min_delay
    assert 0.2 <= ran[0] - t0 < 30
    job = dash.Job("k", lambda j: ran.append(1), delay=30)
    job.start()
    job.cancel()
    assert job.wait(WAIT) and job.state == dash.CANCELLED and len(ran) == 1


def test_a_slider_moved_quickly_starts_only_the_last_fit():
    slot = dash.JobSlot()
    ran = []
    # A start delay no pause of a loaded machine between two moves outlasts (with 0.3 s, a
    # thread held back that long let "a" run before "b" replaced it); the page hurries the
    # fit it shows, as here the last one (min_delay still waited).
    jobs = [slot.submit(k, (lambda k: lambda j: ran.append(k))(k), delay=30, min_delay=0.3)
            for k in "abcd"]
    jobs[-1].hurry()
    assert jobs[-1].wait(WAIT)
    for j in jobs[:-1]:
        assert j.wait(WAIT) and j.state == dash.CANCELLED
    assert ran == ["d"]


def test_slot_reuses_a_running_job_for_the_same_key():
    slot = dash.JobSlot()
    gate = Gate(steps=1)
    a = slot.submit("a", gate)
    assert slot.submit("a", Gate()) is a and slot.latest_key == "a"
    gate.go.release()
    assert a.wait(WAIT)
    assert slot.submit("a", Gate()) is a  # finished: not rerun unless forced
    g2 = Gate(steps=1)
    b = slot.submit("a", g2, force=True)
    assert b is not a
    g2.go.release()
    assert b.wait(WAIT) and b.result == 1


def test_slot_cancels_the_running_job_and_queues_only_the_newest():
    slot = dash.JobSlot()
    ga, gb, gc = Gate(steps=100), Gate(steps=1), Gate(steps=1)
    a = slot.submit("a", ga)
    ga.go.release()
    _wait_until(lambda: a.snapshot().done == 1)
    b = slot.submit("b", gb)
    c = slot.submit("c", gc)
    assert a.cancelled and slot.queued is c and b.cancelled
    assert slot.latest is c and slot.latest_key == "c"
    ga.go.release()  # a sees the cancel at its next step
    assert a.wait(WAIT) and a.state == dash.CANCELLED
    gc.go.release()
    assert c.wait(WAIT) and c.state == dash.DONE and c.result == 1
    assert b.state == dash.CANCELLED and b.result is None
    assert slot.current is c and slot.queued is None


class ApartSender(ElsewhereSender):
    """A sender whose tasks run apart, as rmsc.dashboard.DaskSender's on a Dask worker: the
    task in a thread of its own (a worker standing in), the job's thread relaying. A cancel
    is relayed slowly: the job's thread holds until ``relayed`` is set (the cancel's round
    trips to the scheduler), while the task winds down at its next step on its own."""

    def __init__(self):
        self.relayed = threading.Event()

    @staticmethod
    def runs_apart(task):
        return True

    def relay(self):
        assert self.relayed.wait(30)


def test_slot_starts_the_next_job_at_once_when_the_cancelled_one_runs_apart():
    """A slider move while a fit runs on a worker: the new fit starts without waiting for
    the cancelled one's cancel to be relayed (a worker runs one task at a time anyway)."""
    sender = ApartSender()
    slot = dash.JobSlot(sender=sender)
    ga, gb = Gate(steps=100), Gate(steps=1)
    a = slot.submit("a", ga)
    ga.go.release()
    _wait_until(lambda: a.snapshot().done == 1)
    assert a.runs_apart
    b = slot.submit("b", gb)
    assert a.cancelled and slot.current is b and slot.queued is None
    gb.go.release()
    assert b.wait(5) and b.state == dash.DONE and b.result == 1
    assert a.active  # its cancel still being relayed meanwhile
    sender.relayed.set()
    ga.go.release()  # its task sees the cancel at its next step
    assert a.wait(5) and a.state == dash.CANCELLED and a.result is None
    assert slot.current is b and slot.latest_key == "b"


def test_a_task_in_the_jobs_own_thread_does_not_run_apart():
    """The slot waits for such a cancelled run (test above: it queues the next), and only a
    Remote task runs apart with DaskSender (anything else runs in the job's thread)."""
    assert not dash.Job("k", Gate()).runs_apart
    sender = dash.DaskSender(dask_workers=object())  # nothing is sent here
    assert not dash.Job("k", Gate(), sender=sender).runs_apart
    assert dash.Job("k", dash.Remote(len, [1]), sender=sender).runs_apart


def test_slot_going_back_to_the_running_key_drops_the_queue():
    slot = dash.JobSlot()
    ga = Gate(steps=2)
    a = slot.submit("a", ga)
    b = slot.submit("b", Gate())
    assert a.cancelled
    # a is cancelled, so asking for "a" again queues a fresh run of "a" (replacing b)
    g2 = Gate(steps=1)
    a2 = slot.submit("a", g2)
    assert a2 is not a and b.cancelled and slot.queued is a2
    assert b.state == dash.CANCELLED  # never started, finished at once
    ga.go.release(2)
    assert a.wait(WAIT)
    _wait_until(lambda: slot.current is a2)
    slot.cancel()
    g2.go.release()
    assert a2.wait(WAIT) and a2.state == dash.CANCELLED


def test_slot_stop_finishes_the_current_job_early():
    slot = dash.JobSlot()
    gate = Gate(steps=10)
    job = slot.submit("a", gate)
    gate.go.release()
    _wait_until(lambda: job.snapshot().done == 1)
    slot.stop()
    gate.go.release()
    assert job.wait(WAIT) and job.state == dash.STOPPED and job.result == 2


def test_registry_shares_one_run_between_sessions():
    registry = dash.JobRegistry()
    s1, s2 = dash.JobSlot(registry), dash.JobSlot(registry)
    gate = Gate(steps=2)
    a = s1.submit("a", gate)
    assert s2.submit("a", Gate()) is a and a.watchers == 2
    # session 1 moves on: the run continues for session 2
    gb = Gate(steps=1)
    b = s1.submit("b", gb)
    assert not a.cancelled and s1.current is b
    gate.go.release(2)
    gb.go.release()
    assert a.wait(WAIT) and a.state == dash.DONE and b.wait(WAIT) and b.state == dash.DONE
    assert len(registry) == 0
    # once nobody watches an unfinished job, it is cancelled
    gc = Gate(steps=3)
    c = s1.submit("c", gc)
    s1.cancel()
    gc.go.release(3)
    assert c.wait(WAIT) and c.state == dash.CANCELLED


def test_a_long_job_is_polled_less_often_than_a_young_one():
    young = [dash.live_poll_seconds(t) for t in (0.0, 1.0, dash.LIVE_FAST_FOR_SECONDS - 0.01)]
    old = [dash.live_poll_seconds(t) for t in (dash.LIVE_FAST_FOR_SECONDS, 60.0, 3600.0)]
    assert set(young) == {dash.LIVE_POLL_SECONDS} and set(old) == {dash.LIVE_SLOW_POLL_SECONDS}
    assert dash.LIVE_SLOW_POLL_SECONDS > dash.LIVE_POLL_SECONDS
    # the pages' fast poll is this one (one source)
    from ui.fitting import POLL_SECONDS

    assert POLL_SECONDS == dash.LIVE_POLL_SECONDS
