"""The two sides of a dashboard task on a Dask worker: what the server sends, what the worker
runs, the news it sends back.

* :class:`Remote`: one function call for a worker (a fit, a suggestion);
  :class:`RemoteParts`: many such calls that the cluster spreads over its workers (the
  fits of a Compare or Sensitivity run, one part per fit or per group of fits that
  share a solve), combined in the server when all are back;
* :func:`run_remote`: what a worker runs for a part or a task: the function, with a
  :class:`WorkerJob` as its ``job``, whose ``report`` and ``record`` send events
  (``Worker.log_event``) on :data:`TOPIC`, and which reads the job's stop and cancel
  (``distributed.Event``) at most every :data:`CONTROL_POLL_SECONDS`; the warnings the
  function raises go back in one event;
* :func:`relay`: such an event told to the server's :class:`rmsc.dashboard.Job` (or to
  anything with its reporting methods); :func:`log_warnings` logs each warning once.

Where the tasks run is :mod:`rmsc.dashboard.workers`' (the :class:`DaskWorkers`); how a job
waits for them, :mod:`rmsc.dashboard.sender`'s. Nothing here imports streamlit.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings

import numpy as np

from ..backends import FIT_THREADS_ENV
from ..dask_cluster import current_worker, reuse_heap, trim_memory
from ..memory import BUDGET_ENV, available_bytes
from .jobs import Cancelled

log = logging.getLogger("rmsc.dashboard")

#: The event topic of every job's progress.
TOPIC = "rmsc-dashboard-job"
#: How often (at most) a running task asks whether it should stop.
CONTROL_POLL_SECONDS = 0.2
#: Dask priority of the parts of a :class:`RemoteParts` (higher first): after a fit somebody
#: waits for (a :class:`Remote`'s 0), before a prefetch (-10).
PARTS_PRIORITY = -1


class Remote:
    """A task for a worker: ``fn(*args, job=<WorkerJob>, **kwargs)``.

    ``fn`` and its arguments are pickled to the worker (``fn`` must be importable
    there, e.g. a function of :mod:`rmsc.dashboard`). Datasets among the arguments
    (objects with a ``fingerprint``, directly or as values of a dict) are scattered once
    and shared. ``after(result)`` runs in the server when the result has arrived (e.g.
    to cache it) and returns what the job keeps.
    """

    def __init__(self, fn, *args, after=None, **kwargs):
        self.fn, self.args, self.kwargs, self.after = fn, args, kwargs, after
        #: The Dask task's priority (higher first; prefetches run below everything else).
        self.priority = 0
        #: Steps it counts for in a :class:`RemoteParts` job's progress (e.g. its fits).
        self.steps = 1
        #: Threads its fits may use on the worker (None: every core of the worker's machine;
        #: the sender gives parts that share a machine their share).
        self.threads = None
        #: Its share of its run's work (the cost model's), for the sender's split of the
        #: cores; None: an equal share.
        self.share = None


def share_threads(share, n_parts, cores):
    """Threads for the fits of a part that is ``share`` of its run's work (None: an equal
    share of ``n_parts``) when the workers share ``cores`` (None: not shared out, None).

    The cores go to the parts in proportion to their share of the run's work, at least
    one each: a part that is most of the run (Compare's SSC-AVG on Digit) keeps the cores
    it can use, while many small parts (a Sensitivity grid) run one thread each, side by
    side, instead of every fit starting a thread per core and all of them waiting for each
    other. The sender gives the parts these threads; the run's estimate schedules them so
    (:func:`rmsc.costs.schedule`).
    """
    if not cores:
        return None
    if share is None:
        share = 1.0 / max(1, int(n_parts))
    return max(1, min(int(cores), round(cores * share)))


class RemoteParts:
    """A task in parts that the cluster runs side by side: each part a :class:`Remote`
    (one fit, or a group of fits that share a solve), the job's result
    ``combine([each part's result, in the parts' order])``, made in the server once every
    part is back, then ``after(result)`` as for a :class:`Remote`.

    Dask schedules the parts over every worker; of equal priority they start in the
    order given: put the longest first (no long part then starts last while the other
    workers idle). The job's progress counts the parts' steps (``Remote.steps``, e.g. a
    part's fits) as they report them; a cancel reaches every part. Called as
    ``parts(job)`` (a job without a sender) it runs the parts one after another here.
    """

    def __init__(self, parts, combine, *, after=None):
        self.parts = list(parts)
        self.combine, self.after = combine, after
        self.priority = PARTS_PRIORITY
        for part in self.parts:
            part.priority = self.priority

    @property
    def steps(self):
        return sum(part.steps for part in self.parts)

    def __call__(self, job):
        progress = PartsProgress(job, self.parts)
        results = []
        for i, part in enumerate(self.parts):
            job.check()
            results.append(part.fn(*part.args, job=progress.part(i), **part.kwargs))
            progress.finished(i)
        result = self.combine(results)
        return self.after(result) if self.after is not None else result


class PartsProgress:
    """One progress bar over the parts of a :class:`RemoteParts` job: each part reports its
    own steps (:meth:`part` gives it a job-like reporter); the job shows their sum, with
    the latest part's message. A part that has ended counts all its steps."""

    def __init__(self, job, parts):
        self.job = job
        self.steps = [part.steps for part in parts]
        self.done = [0] * len(parts)
        self.total = sum(self.steps)
        self.message = ""
        self._lock = threading.Lock()

    def part(self, i):
        return _PartReporter(self, i)

    def _update(self, i, done, message=None):
        with self._lock:
            self.done[i] = min(max(int(done), self.done[i]), self.steps[i])
            if message:
                self.message = str(message)
            done_all, message, parts = sum(self.done), self.message, tuple(self.done)
        set_parts = getattr(self.job, "set_parts", None)
        if set_parts is not None:  # the ETA weighs each part's fits (rmsc.dashboard.pace)
            set_parts(parts)
        self.job.set_progress(done_all, self.total, message)

    def finished(self, i):
        self._update(i, self.steps[i])


class _PartReporter:
    """What one part reports through (:class:`PartsProgress`): the reporting methods of a
    :class:`rmsc.dashboard.Job` (task side, and the sender's relay)."""

    def __init__(self, progress, i):
        self._progress, self._i = progress, i
        self.label = progress.job.label

    # task side (a part run in the job's thread)
    def report(self, done, total, message=""):
        self.set_progress(done, total, message)
        self.check()

    def record(self, point, latest=None):
        pass  # the parts of a job draw no live curve

    def check(self):
        self._progress.job.check()

    @property
    def stop_requested(self):
        return self._progress.job.stop_requested

    @property
    def cancelled(self):
        return self._progress.job.cancelled

    # the sender's relay (a part run on a worker)
    def set_progress(self, done, total, message=""):
        self._progress._update(self._i, done, message)

    def mark_started(self):
        self._progress.job.mark_started()


class WorkerJob:
    """The ``job`` a remote task receives: the reporting half of :class:`Job`, on a worker."""

    def __init__(self, job_id, stop_name, cancel_name):
        self.id = job_id
        self._stop_name, self._cancel_name = stop_name, cancel_name
        self._stop = self._cancel = False
        self._polled = 0.0

    def send(self, kind, **msg):
        current_worker().log_event(TOPIC, {"id": self.id, "kind": kind, **msg})

    def _poll(self, force=False):
        now = time.monotonic()
        if self._cancel or (not force and now - self._polled < CONTROL_POLL_SECONDS):
            return
        self._polled = now
        from distributed import Event

        try:
            self._cancel = Event(self._cancel_name).is_set()
            self._stop = self._cancel or Event(self._stop_name).is_set()
        except Exception:  # noqa: BLE001 - the scheduler is unreachable: keep working
            log.debug("could not read the control of job %s", self.id, exc_info=True)

    @property
    def stop_requested(self):
        self._poll()
        return self._stop

    @property
    def cancelled(self):
        self._poll()
        return self._cancel

    def check(self):
        self._poll()
        if self._cancel:
            raise Cancelled(self.id)

    def report(self, done, total, message=""):
        self.send("report", done=int(done), total=int(total), message=str(message))
        self.check()

    def record(self, point, latest=None):
        self.send("record", point=[float(v) for v in point],
                  latest=None if latest is None else np.asarray(latest, float).tolist())

    def add_row(self, row):
        self.send("row", row=dict(row))


def _memory_room():
    """Bytes this worker may still allocate: its memory limit minus what it holds."""
    try:
        import psutil

        limit = current_worker().memory_manager.memory_limit
        if not limit:
            return None
        return max(int(limit - psutil.Process().memory_info().rss), 0)
    except Exception:  # noqa: BLE001 - no limit known: the machine's memory applies
        return None


def run_remote(fn, args, kwargs, job_id, stop_name, cancel_name, threads=None):
    """What a worker runs for a :class:`Remote` (a module-level function: it pickles);
    ``threads``: its fits' share of the machine's cores (:data:`rmsc.backends.FIT_THREADS_ENV`),
    None for all of them."""
    job = WorkerJob(job_id, stop_name, cancel_name)
    reuse_heap()  # undoes what Dask's malloc setting costs a fit (see reuse_heap); on any cluster
    job.send("start", pid=os.getpid(), worker=current_worker().address)
    try:
        return _run_remote(job, fn, args, kwargs, threads)
    finally:
        # the task has left its worker (a cancelled one only at its next check): the
        # server stops keeping its next tasks off that worker (DaskWorkers.winding_down)
        job.send("end")


def _run_remote(job, fn, args, kwargs, threads):
    job.check()
    # The memory guards of rmsc (rmsc.memory.check_dense_fits) refuse before allocating,
    # with a message; on a worker they count against the worker's own memory limit (the
    # nanny kills a worker that exceeds it), unless the user set a budget.
    room = _memory_room()
    user_budget = os.environ.get(BUDGET_ENV)
    set_budget = room is not None and not user_budget
    if set_budget:
        have = available_bytes()
        os.environ[BUDGET_ENV] = str(room if have is None else min(room, have))
    if threads:
        os.environ[FIT_THREADS_ENV] = str(int(threads))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                return fn(*args, job=job, **kwargs)
            finally:
                said = list(dict.fromkeys(f"{w.category.__name__}: {w.message}"
                                          for w in caught))
                if said:
                    job.send("warnings", messages=said)
    finally:
        if set_budget:
            os.environ.pop(BUDGET_ENV, None)
        if threads:
            os.environ.pop(FIT_THREADS_ENV, None)
        trim_memory()  # the task's freed temporaries go back to the OS


#: Warnings already logged by this server (each is logged once).
_logged_warnings = set()
_logged_lock = threading.Lock()
MAX_LOGGED_WARNINGS = 1024


def log_warnings(label, messages):
    """Log the warnings a task raised on its worker, each text once per server (INFO, on
    the ``rmsc.dashboard`` logger). Returns the ones logged now."""
    new = []
    with _logged_lock:
        for msg in messages:
            if msg not in _logged_warnings and len(_logged_warnings) < MAX_LOGGED_WARNINGS:
                _logged_warnings.add(msg)
                new.append(msg)
    for msg in new:
        log.info("a %s on a worker warned: %s", label or "task", msg)
    return new


def worker_died_message(label):
    return (f"The worker process running this {label or 'task'} stopped before it finished "
            "(it was killed or ran out of memory). The server and other sessions are not "
            "affected: press Run to try again, or subsample the data if it happens again.")


def relay(job, msg):
    """An event from the worker running ``job``'s task, told to the job (the client's thread)."""
    kind = msg.get("kind")
    if kind in ("start", "report", "record", "row"):
        job.mark_started()
    if kind == "report":
        job.set_progress(msg["done"], msg["total"], msg["message"])
    elif kind == "record":
        latest = msg.get("latest")
        job.record(tuple(msg["point"]),
                   latest=None if latest is None else np.asarray(latest, dtype=float))
    elif kind == "row":
        job.add_row(msg["row"])
    elif kind == "warnings":
        log_warnings(job.label, msg.get("messages") or ())
