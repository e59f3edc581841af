"""The dashboard's heavy work on dask.distributed workers (processes), not in the server.

A :class:`Job` whose runner is a :class:`DaskRunner` runs its :class:`Remote` task on a
worker of a :class:`Backend`: a ``LocalCluster`` of worker processes started with the app (one
single-threaded worker per core), or an existing scheduler when ``RMSC_SCHEDULER``
(or ``rmsc dashboard --scheduler``) names one. The page's side does not change: the
job's progress, live curve, stop and cancel work as for a job in a thread.

How the two sides talk:

* worker -> server: the task's ``job`` argument is a :class:`WorkerJob`, whose
  ``report`` and ``record`` send events (``Worker.log_event``) on one topic that the
  server's client subscribes to (``Client.subscribe_topic``); the backend relays each
  event to its job (:func:`relay`).
* server -> worker: stop and cancel set a ``distributed.Event`` named after the job,
  which the task reads at most every :data:`CONTROL_POLL_SECONDS` (once per solver
  iteration or experiment step); a job still waiting for a worker is simply cancelled
  (``Future.cancel``), so it never starts.
* datasets are scattered once per fingerprint and shared by every job that uses them;
  any other argument holding more than :data:`SCATTER_BYTES` of arrays (a fitted model)
  is scattered for its job, so no task's graph is large (Dask warns about those);
* the warnings a task raises on its worker are sent to the server with its result and
  logged once each (:func:`log_warnings`), not printed by every worker for every fit:
  what they say is on the page (a fit's diagnostics, the data's notes).

A worker that dies mid-task (killed, out of memory) fails the job with a message that
says so (the scheduler does not retry: ``allowed-failures`` is 0 in the LocalCluster);
the page offers to run it again. Nothing here imports streamlit. Where the cluster is
(``RMSC_SCHEDULER``, the LocalCluster) and the workers' heap are :mod:`rmsc.cluster`'s,
shared with ``rmsc reproduce``.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from concurrent.futures import CancelledError

import numpy as np

from ..cluster import (
    CONNECT_TIMEOUT,
    SCHEDULER_ENV,
    connect,
    current_worker,
    local_cluster,
    reuse_heap,
    trim_memory,
)
from ..memory import BUDGET_ENV, available_bytes, format_bytes
from .jobs import Cancelled, WorkerDied

log = logging.getLogger("rmsc.dashboard")

#: The event topic of every job's progress.
TOPIC = "rmsc-dashboard-job"
#: How often (at most) a running task asks whether it should stop.
CONTROL_POLL_SECONDS = 0.2
#: Datasets kept scattered on the workers (least recently used dropped first).
MAX_SCATTERED = 8
#: Arguments holding more bytes of arrays than this are scattered, not sent in the graph.
SCATTER_BYTES = 64 << 10
#: Niceness of the LocalCluster's worker processes: on a machine that also serves the
#: pages, drawing a page and answering the health check come before a queued fit. Measured
#: with benchmarks/bench_load.py (README, "Serving a class").
WORKER_NICENESS = 5


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


def run_remote(fn, args, kwargs, job_id, stop_name, cancel_name):
    """What a worker runs for a :class:`Remote` (a module-level function: it pickles)."""
    job = WorkerJob(job_id, stop_name, cancel_name)
    reuse_heap()  # undoes what Dask's malloc setting costs a fit (see reuse_heap); on any cluster
    job.send("start", pid=os.getpid())
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


def _nbytes(value, depth=0):
    """Bytes of the arrays ``value`` holds (numpy, scipy.sparse; in sequences, dicts and
    objects' attributes, a few levels deep)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if hasattr(value, "nnz") and hasattr(value, "data"):  # scipy.sparse
        return sum(getattr(getattr(value, a, None), "nbytes", 0)
                   for a in ("data", "indices", "indptr", "row", "col", "offsets"))
    if depth >= 3:
        return 0
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return sum(_nbytes(v, depth + 1) for v in value.values())
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return sum(_nbytes(v, depth + 1) for v in vars(value).values())
    return 0


def worker_died_message(label):
    return (f"The worker process running this {label or 'task'} stopped before it finished "
            "(it was killed or ran out of memory). The server and other sessions are not "
            "affected: press Run to try again, or subsample the data if it happens again.")


def relay(job, msg):
    """An event from the worker running ``job``'s task, told to the job (the client's thread)."""
    kind = msg.get("kind")
    if kind in ("start", "report", "record"):
        job.mark_started()
    if kind == "report":
        job.set_progress(msg["done"], msg["total"], msg["message"])
    elif kind == "record":
        latest = msg.get("latest")
        job.record(tuple(msg["point"]),
                   latest=None if latest is None else np.asarray(latest, dtype=float))
    elif kind == "warnings":
        log_warnings(job.label, msg.get("messages") or ())


def _failure(exc, label):
    """The exception a job reports for ``exc`` raised by its remote task or by Dask."""
    try:
        from distributed.scheduler import KilledWorker
    except ImportError:  # pragma: no cover - distributed is a dependency
        KilledWorker = ()
    if isinstance(exc, (KilledWorker, CancelledError)) or type(exc).__name__ in (
            "KilledWorker", "FutureCancelledError", "CommClosedError"):
        return WorkerDied(worker_died_message(label))
    return exc


class DaskRunner:
    """A job's runner (:class:`rmsc.dashboard.Job`): its :class:`Remote` task on a Dask worker.

    Submits the task to ``backend`` (None: the process's :func:`default_backend`, started on
    first use), tells the job its place while it waits for a worker, relays a stop or a
    cancel to the task, and hands back the result (after ``Remote.after``) or the failure
    (a worker that died is :class:`rmsc.dashboard.WorkerDied`). A task that is not a
    :class:`Remote` runs in the job's thread.
    """

    #: Seconds between two looks at the job's stop and cancel while the task runs.
    POLL_SECONDS = 0.1

    def __init__(self, backend=None):
        self.backend = backend

    def run(self, job, task):
        if not isinstance(task, Remote):
            return task(job)
        backend = self.backend or default_backend()
        job_id, fut, (stop_event, cancel_event) = backend.submit(job, task)
        job.queued_at(lambda: backend.place(job_id))
        try:
            sent_stop = False
            while not fut.done():
                if job.cancelled:
                    cancel_event.set()  # a running task ends at its next check
                    fut.cancel()        # a waiting one never starts
                    raise Cancelled(job.label)
                if job.stop_requested and not sent_stop:
                    stop_event.set()
                    sent_stop = True
                job.wait_for_request(self.POLL_SECONDS, stop_seen=sent_stop)
            try:
                result = fut.result()
            except Cancelled:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                raise _failure(exc, job.label) from exc
        finally:
            backend.forget(job_id)
            clear_control_later(backend, stop_event, cancel_event)
        return task.after(result) if task.after is not None else result


class Backend:
    """A Dask client for the dashboard's jobs: a LocalCluster, or an existing scheduler.

    Parameters
    ----------
    address : str or None
        A scheduler's address (``tcp://host:8786``); None starts a LocalCluster of
        processes on this machine (loopback only).
    n_workers : int or None
        LocalCluster only: worker processes (default: one per core, at least 1).
    memory_limit : str or int
        LocalCluster only: per worker (default "auto": the machine's memory divided
        among the workers).
    """

    #: How long connecting to a scheduler may take (:data:`rmsc.cluster.CONNECT_TIMEOUT`).
    CONNECT_TIMEOUT = CONNECT_TIMEOUT

    def __init__(self, address=None, n_workers=None, memory_limit="auto"):
        from distributed import Client

        self.address = address
        self.cluster = None
        if address:
            self.client = connect(address, self.CONNECT_TIMEOUT)
        else:
            self.cluster = local_cluster(n_workers, memory_limit)
            self.client = Client(self.cluster, set_as_default=False)
            from ._worker_setup import WorkerSetup  # imports distributed (optional)

            self.client.register_plugin(WorkerSetup(WORKER_NICENESS), name="rmsc-worker-setup")
        self._lock = threading.Lock()
        self._jobs = {}          # job id -> Job (unfinished)
        self._waiting = OrderedDict()  # job id -> None, submitted and not started, in order
        self._scattered = OrderedDict()  # dataset fingerprint -> Future
        self._futures = {}       # job id -> (its task's Future, futures scattered for it)
        self.client.subscribe_topic(TOPIC, self._on_event)
        self.closed = False

    # -- limits --------------------------------------------------------------------------

    #: Seconds :meth:`limits` reuses its answer (every page draw shows it).
    LIMITS_TTL = 10.0

    def limits(self):
        """``{"workers", "threads", "memory_per_worker", "address"}`` of the cluster now."""
        cached = getattr(self, "_limits", None)
        if cached is not None and time.monotonic() - cached[0] < self.LIMITS_TTL:
            return cached[1]
        info = self.client.scheduler_info(n_workers=-1) if _takes_n_workers(self.client) \
            else self.client.scheduler_info()
        workers = info.get("workers", {})
        mems = [w.get("memory_limit") or 0 for w in workers.values()]
        out = {"workers": len(workers),
               "threads": sum(w.get("nthreads", 0) for w in workers.values()),
               "memory_per_worker": min(mems) if mems else 0,
               "address": self.address or "LocalCluster"}
        self._limits = (time.monotonic(), out)
        return out

    # -- jobs ----------------------------------------------------------------------------

    def _scatter(self, value, held):
        fp = getattr(value, "fingerprint", None)
        if fp is None or not hasattr(value, "views"):
            if _nbytes(value) <= SCATTER_BYTES:
                return value
            fut = self.client.scatter(value, hash=False)  # this job's: released with it
            held.append(fut)
            return fut
        with self._lock:
            fut = self._scattered.get(fp)
            if fut is not None and fut.status == "finished":
                self._scattered.move_to_end(fp)
                return fut
            # not sent yet, or lost with a worker that died: (re)send it
        fut = self.client.scatter(value, hash=False)
        with self._lock:
            self._scattered[fp] = fut
        return fut

    def _trim_scattered(self):
        """Drop the least recently used datasets beyond :data:`MAX_SCATTERED`. Called only
        after the task using them was submitted: a dataset released while the arguments of
        one task are still being sent (a robustness run has nine) is lost, and the task is
        cancelled for "lost dependencies" (seen as a flaky Compare test)."""
        with self._lock:
            dropped = []
            while len(self._scattered) > MAX_SCATTERED:
                dropped.append(self._scattered.popitem(last=False)[1])
        for fut in dropped:
            fut.release()

    def _pack(self, value, held):
        if isinstance(value, dict):
            return {k: self._scatter(v, held) for k, v in value.items()}
        return self._scatter(value, held)

    def submit(self, job, remote):
        """Send ``remote`` to the cluster for ``job``.

        Returns ``(job_id, future, (stop_event, cancel_event))``: the id the worker's
        events carry, the Dask future of the result, and the two ``distributed.Event``s
        the task reads.
        """
        from distributed import Event

        job_id = uuid.uuid4().hex
        stop_name, cancel_name = f"rmsc-stop-{job_id}", f"rmsc-cancel-{job_id}"
        held = []  # what is scattered for this job alone
        args = tuple(self._pack(a, held) for a in remote.args)
        kwargs = {k: self._pack(v, held) for k, v in remote.kwargs.items()}
        with self._lock:
            self._jobs[job_id] = job
            self._waiting[job_id] = None
        fut = self.client.submit(run_remote, remote.fn, args, kwargs, job_id, stop_name,
                                 cancel_name, key=f"rmsc-{job.label or 'job'}-{job_id}",
                                 pure=False, retries=0, priority=remote.priority)
        with self._lock:
            self._futures[job_id] = (fut, held)
        self._trim_scattered()
        control = (Event(stop_name, client=self.client), Event(cancel_name, client=self.client))
        return job_id, fut, control

    def unfinished(self):
        """This server's jobs submitted and not finished (running or waiting for a worker)."""
        with self._lock:
            return len(self._jobs)

    def forget(self, job_id):
        """The job's task has ended (or was cancelled): drop it and what was sent for it."""
        with self._lock:
            self._jobs.pop(job_id, None)
            self._waiting.pop(job_id, None)
            _, held = self._futures.pop(job_id, (None, ()))
        for fut in held:
            fut.release()

    def place(self, job_id):
        """Place (1 = next) among this server's jobs waiting for a worker, or None if started."""
        with self._lock:
            if job_id not in self._waiting:
                return None
            place = list(self._waiting).index(job_id) + 1
        return place

    def _on_event(self, event):
        _, msg = event
        job_id = msg.get("id") if isinstance(msg, dict) else None
        with self._lock:
            job = self._jobs.get(job_id)
            if msg.get("kind") == "start":
                self._waiting.pop(job_id, None)
        if job is not None:
            relay(job, msg)
        elif msg.get("kind") == "warnings":  # sent as the task ended: its job may be done
            log_warnings(msg.get("label"), msg.get("messages") or ())

    def trim_workers(self):
        """Every worker returns its freed heap to the OS (:func:`trim_memory`); how many."""
        try:
            return len(self.client.run(trim_memory))
        except Exception:  # noqa: BLE001 - housekeeping: a worker restarting is no error
            log.debug("trimming the workers failed", exc_info=True)
            return 0

    def release_data(self):
        """Drop the datasets sent to the workers (when no session is left); how many.

        The memory they free goes back to the OS at the next :meth:`trim_workers`.
        """
        with self._lock:
            scattered, self._scattered = list(self._scattered.values()), OrderedDict()
        for fut in scattered:
            fut.release()
        return len(scattered)

    def close(self):
        """Close in order: the tasks under way are cancelled and the data sent released,
        then the client closes, then the LocalCluster (which ends its workers). A worker
        ended before the client lets go of its data makes the scheduler report the data
        as lost."""
        if self.closed:
            return
        self.closed = True
        with self._lock:
            scattered, self._scattered = list(self._scattered.values()), OrderedDict()
            tasks, self._futures = list(self._futures.values()), {}
        try:
            futures = [fut for fut, _ in tasks]
            if futures:
                self.client.cancel(futures)
            for fut in [*scattered, *(f for _, held in tasks for f in held)]:
                fut.release()
            self.client.close(timeout=10)
        finally:
            if self.cluster is not None:
                self.cluster.close(timeout=20)


#: Seconds a finished job's stop and cancel events stay set on the scheduler (a cancelled
#: task may still be running until its next check), then they are cleared (freed).
CONTROL_LINGER_SECONDS = 30.0


def clear_control_later(backend, *events):
    """Clear (free on the scheduler) a finished job's control events, a little later."""
    def clear():
        if backend.closed:
            return
        for ev in events:
            try:
                ev.clear()
            except Exception:  # noqa: BLE001 - the cluster is gone: nothing to free
                pass

    timer = threading.Timer(CONTROL_LINGER_SECONDS, clear)
    timer.daemon = True
    timer.start()


def _takes_n_workers(client):
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters


_default = None
_default_lock = threading.Lock()


def default_backend():
    """The process's backend, started on first use (``RMSC_SCHEDULER`` or a LocalCluster)."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            address = os.environ.get(SCHEDULER_ENV) or None
            log.info("starting the dashboard's Dask backend (%s)", address or "LocalCluster")
            try:
                _default = Backend(address)
                # Exit handlers run last registered first: distributed's own (which close
                # every LocalCluster, the workers first) were registered as it was imported
                # for this backend; ours goes after them so that it runs before them and
                # closes the client before the cluster (Backend.close).
                atexit.unregister(shutdown)
                atexit.register(shutdown)
            except (OSError, TimeoutError) as exc:
                if address is None:
                    raise
                raise ValueError(
                    f"Cannot reach the Dask scheduler at {address} ({SCHEDULER_ENV} or "
                    f"rmsc dashboard --scheduler): {exc}. Start it (`dask scheduler`) and its "
                    f"workers (`dask worker {address}`), or unset {SCHEDULER_ENV} to run the "
                    "fits on this machine.") from None
        return _default


_starting = threading.Event()


def start_in_background():
    """Start the default backend in a thread (the first fit then finds it ready)."""
    if _default is not None or _starting.is_set():
        return
    _starting.set()

    def start():
        try:
            default_backend()
        except Exception:  # noqa: BLE001 - the first job reports the reason
            log.warning("the dashboard's Dask backend did not start", exc_info=True)
        finally:
            _starting.clear()

    threading.Thread(target=start, name="rmsc-backend-start", daemon=True).start()


def describe_limits(backend, results_bytes, upload_mb):
    """One line for the page: where fits run and what the server keeps."""
    if backend is None:
        return "Worker processes are starting…"
    lim = backend.limits()
    where = ("on this machine" if backend.address is None
             else f"on the cluster at {backend.address}")
    mem = (f" × {format_bytes(lim['memory_per_worker'])}" if lim["memory_per_worker"] else "")
    return (f"Fits run in {lim['workers']} worker process(es){mem} {where}, one at a time "
            f"per worker, queued in order. The server keeps at most "
            f"{format_bytes(results_bytes)} of results for all sessions; uploads up to "
            f"{upload_mb} MB.")


def running_backend():
    """The default backend if it was started, else None (no cluster is started)."""
    return None if _default is None or _default.closed else _default


def trim_everywhere():
    """Hand freed memory back to the OS in this process and in the running backend's
    workers (the server calls it while no session is left)."""
    trim_memory()
    backend = running_backend()
    if backend is not None:
        backend.trim_workers()


def shutdown():
    """Close the default backend (its LocalCluster's processes end)."""
    global _default
    with _default_lock:
        backend, _default = _default, None
    if backend is not None:
        backend.close()


atexit.register(shutdown)
