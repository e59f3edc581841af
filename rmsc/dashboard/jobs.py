"""Background work of a session: a task run in a thread or elsewhere, observable and stoppable.

:class:`Job` runs one task (a fit, a comparison) with progress, a live curve,
stop (finish early) and cancel (abandon); :class:`JobSlot` runs one kind of
work per session, newest request first; :class:`JobRegistry` lets equal
requests of different sessions share one run.

Where a job's task runs is its *sender*'s business: without one, ``task(job)`` runs
in the job's own thread (light work, tests); the dashboard's slots are given a
:class:`rmsc.dashboard.sender.DaskSender`, which sends the task to a dask.distributed
worker and relays its progress back (the job's thread in the server only waits).
A sender is any object with ``run(job, task) -> result``; it reports through the
job's :meth:`Job.set_progress`, :meth:`Job.record`, :meth:`Job.mark_started` and
:meth:`Job.queued_at`, and waits for stop or cancel with :meth:`Job.wait_for_request`.
This module knows nothing of Dask.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

#: Timeline of the dashboard's background work (job start, end), at DEBUG level; the
#: dashboard's speed benchmark switches it on (``RMSC_DASHBOARD_TRACE``) to see where time goes.
log = logging.getLogger("rmsc.dashboard")


class Cancelled(Exception):
    """Raised inside a job's task when the job has been cancelled."""


#: Job states. "stopped": finished early on request (result kept); "cancelled":
#: abandoned (no result).
PENDING, RUNNING, DONE, STOPPED, FAILED, CANCELLED = (
    "pending", "running", "done", "stopped", "failed", "cancelled")


ACTIVE_STATES = (PENDING, RUNNING)


@dataclass(frozen=True)
class JobSnapshot:
    """A consistent copy of a job's progress, safe to read in the page's thread."""

    key: object
    label: str
    state: str
    done: int
    total: int
    message: str
    history: tuple
    latest: object
    result: object
    error: str | None
    elapsed: float
    #: Place in the cluster's queue (1 = next) while the task waits for a worker, else None.
    place: int | None = None
    #: Rows of a table the task sends as it goes (:meth:`Job.add_row`; e.g. the clustering
    #: along a fit's iterations), oldest first.
    rows: tuple = ()
    #: Steps done in each part of a task in parts (:class:`rmsc.dashboard.RemoteParts`),
    #: in the parts' order; () for a task in one piece.
    parts: tuple = ()

    @property
    def active(self):
        return self.state in ACTIVE_STATES

    @property
    def fraction(self):
        return min(1.0, self.done / self.total) if self.total else 0.0


class Job:
    """A task run for a daemon thread, observable from other threads.

    ``task(job)`` does the work and returns the result, in the job's thread, or where
    ``sender.run(job, task)`` sends it (see the module docstring). With ``delay`` the
    worker first waits that long, or until :meth:`hurry` but at least
    ``min_delay``; cancelling during the wait means the task never runs. It reports with
    :meth:`report` (progress) and :meth:`record` (one point of a live curve),
    and polls :attr:`stop_requested` (finish early, keep what you have) or
    :meth:`check` (raises :class:`Cancelled` once :meth:`cancel` was called).
    Exceptions become ``state="failed"`` with a readable :attr:`error`, never
    a traceback.
    """

    def __init__(self, key, task, *, label="", delay=0.0, min_delay=0.0, sender=None):
        self.key = key
        #: Where the task runs (None: ``task(job)`` in the job's own thread).
        self.sender = sender
        self._started = False      # the task has sent news (it is running, not queued)
        self._queue_place = None   # the sender's place-in-queue function, while queued
        self.label = label
        self._task = task
        self._delay = float(delay)
        self._min_delay = min(float(min_delay), self._delay)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._cancel = threading.Event()
        self._hurry = threading.Event()
        self._finished = threading.Event()
        self._state = PENDING
        self._done, self._total, self._message = 0, 0, ""
        self._history = []
        self._latest = None
        self._rows = []
        self._parts = ()
        self._result = None
        self._error = None
        self._t0 = None
        self._t1 = None
        self._thread = None
        self._on_finish = []
        self._watchers = 0

    # -- control (page side) -----------------------------------------------------------

    def start(self):
        with self._lock:
            if self._thread is not None or self._state != PENDING:
                return self
            self._t0 = time.perf_counter()
            self._thread = threading.Thread(target=self._run, name=f"rmsc-job-{self.label}",
                                            daemon=True)
            if self._cancel.is_set():
                self._state = CANCELLED
                self._t1 = self._t0
                self._finished.set()
                callbacks = list(self._on_finish)
            else:
                self._state = RUNNING
                callbacks = None
        if callbacks is not None:
            for cb in callbacks:
                cb(self)
            return self
        self._thread.start()
        return self

    def acquire(self):
        """One more watcher (a session's slot) of this job."""
        with self._lock:
            self._watchers += 1

    def release(self):
        """One watcher fewer; with none left an unfinished job is cancelled."""
        with self._lock:
            self._watchers -= 1
            orphaned = self._watchers <= 0 and self._state in ACTIVE_STATES
        if orphaned:
            self.cancel()

    @property
    def watchers(self):
        return self._watchers

    @property
    def runs_apart(self):
        """True when the task runs where a cancelled run winds down without the job's
        thread: its sender says so (``sender.runs_apart(task)``; a
        :class:`~rmsc.dashboard.DaskSender`'s task on a Dask worker). False for a task
        run in the job's own thread."""
        check = getattr(self.sender, "runs_apart", None)
        return bool(check is not None and check(self._task))

    def hurry(self):
        """Skip what is left of the start delay (someone is waiting for the result)."""
        self._hurry.set()

    def request_stop(self):
        """Ask the task to finish early and keep its partial result."""
        self._stop.set()
        self._hurry.set()

    def cancel(self):
        """Ask the task to abandon its work (its result is discarded).

        A job that was never started is finished at once, as cancelled.
        """
        self._cancel.set()
        self._stop.set()
        self._hurry.set()
        with self._lock:
            if self._thread is not None or self._state != PENDING:
                return
            self._state = CANCELLED
            self._t0 = self._t1 = time.perf_counter()
            self._finished.set()
            callbacks = list(self._on_finish)
        for cb in callbacks:
            cb(self)

    def wait(self, timeout=None):
        """Block until the job has finished; True if it has."""
        return self._finished.wait(timeout)

    def add_done_callback(self, fn, *, call_if_done=True):
        """Call ``fn(job)`` when the job finishes (in the thread that finishes it).

        On a job that has already finished ``fn`` is called at once, unless
        ``call_if_done`` is False. Returns True when ``fn`` was registered.
        """
        with self._lock:
            if not self._finished.is_set():
                self._on_finish.append(fn)
                return True
        if call_if_done:
            fn(self)
        return False

    # -- state (any thread) ------------------------------------------------------------

    @property
    def state(self):
        return self._state

    @property
    def active(self):
        return self._state in ACTIVE_STATES

    @property
    def cancelled(self):
        return self._cancel.is_set()

    @property
    def stop_requested(self):
        return self._stop.is_set()

    @property
    def result(self):
        return self._result

    @property
    def error(self):
        return self._error

    def snapshot(self):
        place = None
        queue_place = self._queue_place
        if queue_place is not None and not self._started and self.active:
            place = queue_place()
        with self._lock:
            t_end = self._t1 if self._t1 is not None else time.perf_counter()
            message = self._message
            if place is not None:
                message = f"waiting for a free worker ({_ordinal(place)} in the queue)"
            return JobSnapshot(
                key=self.key, label=self.label, state=self._state, done=self._done,
                total=self._total, message=message, history=tuple(self._history),
                latest=self._latest, result=self._result, error=self._error,
                elapsed=0.0 if self._t0 is None else t_end - self._t0, place=place,
                rows=tuple(self._rows), parts=self._parts,
            )

    # -- reporting (task side) ---------------------------------------------------------

    def check(self):
        """Raise :class:`Cancelled` if the job was cancelled."""
        if self._cancel.is_set():
            raise Cancelled(self.label)

    def report(self, done, total, message=""):
        """Progress callback ``(done, total, message)``; raises Cancelled when cancelled."""
        with self._lock:
            self._done, self._total, self._message = int(done), int(total), str(message)
        self.check()

    def record(self, point, latest=None):
        """Append one point to the live curve (and keep ``latest`` as the newest state)."""
        with self._lock:
            self._history.append(point)
            if latest is not None:
                self._latest = latest

    def add_row(self, row):
        """Append one row (a dict of plain values) to the task's table of news."""
        with self._lock:
            self._rows.append(dict(row))

    # -- news from a sender (any thread) ---------------------------------------------------

    def set_progress(self, done, total, message=""):
        """Progress as :meth:`report` keeps it, without checking for a cancel (a sender
        relaying the task's news from another thread)."""
        with self._lock:
            self._done, self._total, self._message = int(done), int(total), str(message)

    def set_parts(self, done):
        """Steps done in each part of a task in parts (the snapshot's ``parts``)."""
        with self._lock:
            self._parts = tuple(int(d) for d in done)

    def mark_started(self):
        """The task has started where it runs (it no longer waits in a queue)."""
        self._started = True

    def queued_at(self, place):
        """While the task waits to start, ``place()`` gives its place in the queue
        (1 = next; None once started): :meth:`snapshot` shows it."""
        self._queue_place = place

    def wait_for_request(self, timeout, *, stop_seen=False):
        """Block up to ``timeout`` seconds for a cancel, or a stop unless ``stop_seen``
        (a sender polling for what to relay); True when one came."""
        return (self._cancel if stop_seen else self._stop).wait(timeout)

    # -- the thread ----------------------------------------------------------------------

    def _run(self):
        result, error = None, None
        try:
            if self._delay > 0:
                # A wait before heavy work: a page being drawn is not slowed down by a
                # fit nobody looks at yet (hurry() ends the wait), and quick successive
                # requests (a slider moved several steps) replace each other without
                # starting (min_delay is waited even when hurried).
                t0 = time.perf_counter()
                self._hurry.wait(self._delay)
                rest = self._min_delay - (time.perf_counter() - t0)
                if rest > 0 and not self._stop.is_set():
                    self._cancel.wait(rest)
            self.check()
            log.debug("job %s started %r", self.label, self.key)
            if self.sender is None:
                result = self._task(self)
            else:
                result = self.sender.run(self, self._task)
            # a stop that came after the task had run to its end changes nothing: a result
            # that says it is complete (stopped_early False) is DONE, not STOPPED
            stopped = self._stop.is_set() and getattr(result, "stopped_early", True)
            state = STOPPED if stopped else DONE
            if self._cancel.is_set():
                state, result = CANCELLED, None
        except Cancelled:
            state = CANCELLED
        except Exception as exc:  # noqa: BLE001 - every failure becomes a message
            state, error = FAILED, describe_error(exc)
        with self._lock:
            self._state, self._result, self._error = state, result, error
            self._t1 = time.perf_counter()
            self._finished.set()
            callbacks = list(self._on_finish)
        log.debug("job %s %s after %.3f s %r", self.label, state, self._t1 - self._t0, self.key)
        for cb in callbacks:
            cb(self)


class WorkerDied(RuntimeError):
    """The worker process running a job's task died (killed, out of memory)."""


def _ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


class JobRegistry:
    """The unfinished jobs of every session by key, so that equal requests share one run.

    A browser tab that opens while a fit is under way (or a second user asking
    for the same thing) watches the running job instead of starting another.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._jobs = {}

    def find(self, key):
        """The unfinished, not cancelled job for ``key``, or None."""
        with self._lock:
            job = self._jobs.get(key)
        if job is not None and job.active and not job.cancelled:
            return job
        return None

    def add(self, job):
        with self._lock:
            self._jobs[job.key] = job
        job.add_done_callback(self._remove)

    def _remove(self, job):
        with self._lock:
            if self._jobs.get(job.key) is job:
                del self._jobs[job.key]

    def __len__(self):
        with self._lock:
            return len(self._jobs)


class JobSlot:
    """One kind of background work of one session (e.g. "the fit"): its newest job.

    A new request supersedes the running job: the slot releases it (it is
    cancelled unless another session still watches it) and, while it winds
    down, queues the new job; only the newest request is queued, so moving a
    slider quickly never builds up a backlog. A cancelled job whose task runs
    apart (:attr:`Job.runs_apart`: on a Dask worker) is not waited for: the new
    job starts at once. With a :class:`JobRegistry`,
    a request for a key some session is already running joins that run.
    """

    def __init__(self, registry=None, sender=None):
        # Re-entrant: releasing a job may finish it at once and call back into the slot.
        self._lock = threading.RLock()
        self.registry = registry
        #: Where the slot's tasks run (see :class:`Job`; None: in the job's thread).
        self.sender = sender
        self.current = None
        self.queued = None

    @property
    def latest(self):
        """The job that will (or did) produce the slot's newest result."""
        return self.queued or self.current

    @property
    def latest_key(self):
        job = self.latest
        return None if job is None else job.key

    def submit(self, key, task, *, label="", force=False, delay=0.0, min_delay=0.0):
        """Run ``task`` for ``key`` unless it is already running or queued.

        With ``force`` a finished job of the same key is run again; ``delay`` and
        ``min_delay`` (seconds) postpone the start of a new job (see :class:`Job`).
        Returns the job that will produce the result for ``key``.
        """
        with self._lock:
            cur, queued = self.current, self.queued
            if queued is not None and queued.key == key:
                return queued
            if cur is not None and cur.key == key and cur.active and not cur.cancelled:
                if queued is not None:
                    queued.release()
                    self.queued = None
                return cur
            if (not force and queued is None and cur is not None and cur.key == key
                    and not cur.active and cur.state != CANCELLED):
                return cur
            job = self.registry.find(key) if self.registry is not None else None
            adopted = job is not None
            if not adopted:
                job = Job(key, task, label=label, delay=delay, min_delay=min_delay,
                          sender=self.sender)
                if self.registry is not None:
                    self.registry.add(job)
            job.acquire()
            job.add_done_callback(self._finished)
            if queued is not None:
                queued.release()
                self.queued = None
            wait = False
            if cur is not None and cur.active:
                cur.release()
                # Wait for a run we just cancelled to wind down (one fit at a time in this
                # process), unless it runs apart: a Dask worker runs one task at a time (a
                # cancelled one counts until it returns) and the new task is kept off it
                # where another worker is free (DaskWorkers' placement), so waiting here
                # would only wait for the cancel's round trips to the scheduler. A run
                # other sessions still watch keeps going, so do not wait for it either.
                wait = cur.cancelled and not adopted and not cur.runs_apart
            if wait:
                self.queued = job
                return job
            self.current = job
        if not adopted:
            job.start()
        return job

    def stop(self):
        """Finish the running job early (keeping its partial result); drop the queue."""
        with self._lock:
            if self.queued is not None:
                self.queued.release()
                self.queued = None
            if self.current is not None:
                self.current.request_stop()

    def cancel(self):
        """Stop watching the running and queued jobs (cancelled unless others watch them)."""
        with self._lock:
            for job in (self.current, self.queued):
                if job is not None:
                    job.release()
            self.queued = None

    def clear(self):
        """Cancel (as :meth:`cancel`) and drop the slot's jobs with their results.

        For a session that has gone: what it held is freed; if it comes back, its
        slot is empty and the page runs what it needs again.
        """
        with self._lock:
            self.cancel()
            self.current = None

    def _finished(self, job):
        start = None
        with self._lock:
            if job is self.current and self.queued is not None:
                self.current, self.queued = self.queued, None
                start = self.current
        if start is not None:
            start.start()


def request_user_fit(slot, key, task, *, prefetcher=None, **kwargs):
    """The user's own fit of ``key``: the session's ``slot`` submits it
    (``slot.submit(key, task, **kwargs)``; returns its job), and the latest request wins.

    A run of ``key`` under way (another session's, or a prefetch guessed at before) is
    joined through the slot's registry. A fit asked for comes before fits guessed at: the
    ``prefetcher``'s prefetches nobody joined give way first (but ``key``'s own, which the
    slot joins); the slot then lets go of its earlier request, which is cancelled unless
    another session watches it, and a prefetch this session had joined and has now left
    gives way too unless another session waits for it.
    """
    if prefetcher is not None:
        prefetcher.yield_workers(keep=key)
    job = slot.submit(key, task, **kwargs)
    if prefetcher is not None:
        prefetcher.yield_workers(keep=key)
    return job


#: How often a page asks a running job for news to draw (its live curve, progress): every
#: LIVE_POLL_SECONDS during its first LIVE_FAST_FOR_SECONDS, then every
#: LIVE_SLOW_POLL_SECONDS (:func:`live_poll_seconds`).
LIVE_POLL_SECONDS = 1.0
LIVE_SLOW_POLL_SECONDS = 3.0
LIVE_FAST_FOR_SECONDS = 10.0


def live_poll_seconds(elapsed):
    """Seconds between two looks at a job's news once it has run ``elapsed`` seconds.

    Each look redraws the page's live charts, in the server and in the browser; on a small
    machine that serves the page and runs the fit, they take CPU from the fit itself, and
    ahead of it (the workers run nicer than the server). A short job is watched closely;
    a long one, whose curve changes little from one second to the next, less often.
    """
    return LIVE_POLL_SECONDS if elapsed < LIVE_FAST_FOR_SECONDS else LIVE_SLOW_POLL_SECONDS


def describe_error(exc):
    """One readable sentence for any exception (no traceback)."""
    if isinstance(exc, WorkerDied):
        return str(exc)
    if isinstance(exc, MemoryError):
        return ("Not enough memory for this computation. Subsample the data (fewer samples) "
                "or use fewer views.")
    if isinstance(exc, ValueError):
        return str(exc)
    return (f"Unexpected {type(exc).__name__}: {exc}. This is a bug in rmsc; please report it "
            "with the configuration JSON from the Solve page.")
