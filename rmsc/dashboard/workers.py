"""Where the dashboard's heavy work runs: dask.distributed worker processes, not the server.

A :class:`DaskWorkers` is a Dask client: of a ``LocalCluster`` of worker processes started with
the app (one single-threaded worker per core), or of an existing scheduler when
``RMSC_SCHEDULER`` (or ``rmsc dashboard --scheduler``) names one. It submits a job's
task (:mod:`rmsc.dashboard.remote`: what runs there and how it reports back) and relays
the task's events to its job; :class:`rmsc.dashboard.sender.DaskSender` waits for it.

* datasets are scattered once per fingerprint and shared by every job that uses them;
  any other argument holding more than :data:`SCATTER_BYTES` of arrays (a fitted model)
  is scattered for its job, so no task's graph is large (Dask warns about those);
* the warnings a task raises on its worker come back with it and are logged once each
  (:func:`rmsc.dashboard.remote.log_warnings`), not printed by every worker for every
  fit: what they say is on the page (a fit's diagnostics, the data's notes);
* at exit it closes in order (tasks cancelled, data released, client, cluster), before
  distributed's own exit handlers; the LocalCluster's workers leave Ctrl-C to it
  (:func:`rmsc.dask_cluster.dask_setup`).

A worker that dies mid-task (killed, out of memory) fails the job with a message that
says so (the scheduler does not retry: ``allowed-failures`` is 0 in the LocalCluster);
the page offers to run it again. Nothing here imports streamlit. Where the cluster is
(``RMSC_SCHEDULER``, the LocalCluster) and the workers' heap are :mod:`rmsc.dask_cluster`'s,
shared with ``rmsc reproduce``.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import uuid
from collections import OrderedDict

import numpy as np

from ..backends import available_cores
from ..dask_cluster import (
    CONNECT_TIMEOUT,
    SCHEDULER_ENV,
    connect,
    local_cluster,
    trim_memory,
)
from ..memory import format_bytes
from .remote import TOPIC, log_warnings, relay, run_remote

log = logging.getLogger("rmsc.dashboard")

#: Datasets kept scattered on the workers (least recently used dropped first).
MAX_SCATTERED = 8
#: Arguments holding more bytes of arrays than this are scattered, not sent in the graph.
SCATTER_BYTES = 64 << 10
#: How much nicer than the server the LocalCluster's worker processes run, by default: on a
#: machine that also serves the pages, drawing a page and answering the health check come
#: before a queued fit. Measured with benchmarks/bench_load.py (docs/measurements.md, "Many
#: sessions at once").
WORKER_NICENESS = 5
#: Environment variable: the workers' niceness above the server's, an integer 0..19 (default
#: :data:`WORKER_NICENESS`; 0 runs them at the server's own priority).
NICENESS_ENV = "RMSC_WORKER_NICENESS"


def niceness_offset():
    """How much nicer than the server the workers run: ``$RMSC_WORKER_NICENESS`` (an integer
    0..19), else :data:`WORKER_NICENESS`. A value that is not one is logged, saying what to
    set, and the default is used (the server starts all the same)."""
    raw = os.environ.get(NICENESS_ENV)
    if raw is None or not raw.strip():
        return WORKER_NICENESS
    try:
        offset = int(raw.strip())
    except ValueError:
        offset = -1
    if 0 <= offset <= 19:
        return offset
    log.warning("%s=%r is not an integer from 0 to 19; the workers run %d nicer than the "
                "server. Set it to e.g. 0 (the server's priority) or 5, or unset it.",
                NICENESS_ENV, raw, WORKER_NICENESS)
    return WORKER_NICENESS


def worker_niceness():
    """The workers' niceness: :func:`niceness_offset` (:data:`WORKER_NICENESS` unless
    ``RMSC_WORKER_NICENESS`` says otherwise) above the server's own (at most 19, the lowest
    priority), so that a server started nice (``nice -n 10 make run``) still runs its
    workers below itself."""
    try:
        own = os.getpriority(os.PRIO_PROCESS, 0)
    except (AttributeError, OSError):  # not POSIX
        own = 0
    return min(19, own + niceness_offset())


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


class DaskWorkers:
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

    #: How long connecting to a scheduler may take (:data:`rmsc.dask_cluster.CONNECT_TIMEOUT`).
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

            self.client.register_plugin(WorkerSetup(worker_niceness()),
                                        name="rmsc-worker-setup")
        self._lock = threading.Lock()
        self._jobs = {}          # job id -> Job (unfinished)
        self._waiting = OrderedDict()  # job id -> None, submitted and not started, in order
        self._scattered = OrderedDict()  # dataset fingerprint -> Future
        self._futures = {}       # job id -> (its task's Future, futures scattered for it)
        # job id -> [worker address, when the server let go of it (None: not yet)], from
        # the task's start on its worker until it says it has left (its "end" event)
        self._where = {}
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
        hosts = {str(w.get("host") or addr.rsplit(":", 1)[0]) for addr, w in workers.items()}
        out = {"workers": len(workers), "hosts": len(hosts),
               "threads": sum(w.get("nthreads", 0) for w in workers.values()),
               "memory_per_worker": min(mems) if mems else 0,
               "address": self.address or "LocalCluster"}
        self._limits = (time.monotonic(), out)
        return out

    def slots(self):
        """How the parts of a run share the cluster: ``{"workers", "capacity", "cores"}``.

        ``workers`` run one part each at a time. On this machine's LocalCluster the workers
        share its ``cores``: the parts of a run share them out (their fits' threads,
        :class:`rmsc.dashboard.DaskSender`), each at its threads' share of the machine's
        speed (:func:`rmsc.costs.schedule`). On a scheduler elsewhere each fit uses every core of its
        machine (``cores`` None: not shared out) and the workers of one machine share it:
        ``capacity`` is the number of machines.
        """
        workers = max(1, self.limits()["workers"])
        if self.cluster is not None:
            return {"workers": workers, "capacity": workers, "cores": available_cores()}
        return {"workers": workers, "capacity": max(1, self.limits().get("hosts", 1)),
                "cores": None}

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
            self._waiting[job_id] = remote.priority
        placement = self._placement()
        fut = self.client.submit(run_remote, remote.fn, args, kwargs, job_id, stop_name,
                                 cancel_name, getattr(remote, "threads", None),
                                 key=f"rmsc-{job.label or 'job'}-{job_id}",
                                 pure=False, retries=0, priority=remote.priority, **placement)
        with self._lock:
            self._futures[job_id] = (fut, held)
        log.debug("task of %s %s submitted for %r", job.label or "job", job_id[:8],
                  getattr(job, "key", None))
        self._trim_scattered()
        control = (Event(stop_name, client=self.client), Event(cancel_name, client=self.client))
        return job_id, fut, control

    #: Seconds after the server let go of a task that its worker is still kept out of the
    #: next tasks' way while no "end" came from it (a worker that died sends none).
    WIND_DOWN_SECONDS = 60.0

    def winding_down(self):
        """Addresses of the workers still running a task the server has let go of (a
        cancelled fit runs on until its next check of the cancel: an iteration, or the
        set-up before the first)."""
        now = time.monotonic()
        with self._lock:
            for job_id in [j for j, (_, since) in self._where.items()
                           if since is not None and now - since >= self.WIND_DOWN_SECONDS]:
                del self._where[job_id]  # no "end" came: the worker died, or it is long over
            # let go of, or cancelled a moment ago (its sender has not let go of it yet)
            return {where for job_id, (where, since) in self._where.items()
                    if where and (since is not None or getattr(
                        self._jobs.get(job_id), "cancelled", False))}

    def _placement(self):
        """``client.submit``'s keywords that keep a new task off the workers still winding
        down a cancelled one, where another worker is up: Dask does not know they are
        busy (it forgot the cancelled task), and would send the new task where its data
        is, behind it. Loose (``allow_other_workers``): Dask may still use them."""
        busy = self.winding_down()
        if not busy:
            return {}
        try:
            info = self.client.scheduler_info(n_workers=-1) \
                if _takes_n_workers(self.client) else self.client.scheduler_info()
        except Exception:  # noqa: BLE001 - no placement then; the task runs anyway
            return {}
        with self._lock:  # workers running a task of this server's now
            running = {where for where, since in self._where.values() if since is None}
        running -= busy
        others = [w for w in info.get("workers", {}) if w not in busy and w not in running]
        if not others:  # no idle worker: Dask decides (a busy one is no better)
            return {}
        log.debug("new task kept off %d worker(s) winding down a cancelled task", len(busy))
        return {"workers": others, "allow_other_workers": True}

    def unfinished(self):
        """This server's jobs submitted and not finished (running or waiting for a worker)."""
        with self._lock:
            return len(self._jobs)

    def forget(self, job_id):
        """The job's task has ended (or was cancelled): drop it and what was sent for it."""
        with self._lock:
            self._jobs.pop(job_id, None)
            self._waiting.pop(job_id, None)
            fut, held = self._futures.pop(job_id, (None, ()))
            if fut is not None and fut.status in ("finished", "error"):
                self._where.pop(job_id, None)  # it has returned: its worker is free
            elif job_id in self._where:  # cancelled: on its worker until its next check
                self._where[job_id][1] = time.monotonic()
        for fut in held:
            fut.release()

    def place(self, job_id):
        """Place (1 = next) among this server's jobs waiting for a worker, or None if started:
        behind those of a higher priority, and of the same submitted earlier."""
        with self._lock:
            if job_id not in self._waiting:
                return None
            waiting = list(self._waiting.items())
        index = next(k for k, (other, _) in enumerate(waiting) if other == job_id)
        mine = waiting[index][1]
        ahead = sum(1 for k, (_, priority) in enumerate(waiting)
                    if priority > mine or (priority == mine and k < index))
        return ahead + 1

    def _on_event(self, event):
        _, msg = event
        job_id = msg.get("id") if isinstance(msg, dict) else None
        with self._lock:
            job = self._jobs.get(job_id)
            if msg.get("kind") == "start":
                self._waiting.pop(job_id, None)
                # a task already let go of (cancelled while it was sent) still occupies
                # its worker until it sees the cancel
                self._where[job_id] = [msg.get("worker"),
                                       None if job is not None else time.monotonic()]
                log.debug("task %s started on a worker (pid %s)", str(job_id)[:8],
                          msg.get("pid"))
            elif msg.get("kind") == "end":
                self._where.pop(job_id, None)
                log.debug("task %s has left its worker", str(job_id)[:8])
            elif msg.get("kind") == "report" and msg.get("done") == 1:
                log.debug("task %s: its first step done", str(job_id)[:8])
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
            # no more job events for this client first: a task still running reports until
            # it sees the cancel, and the scheduler logged a CRITICAL "Closed comm ...
            # while trying to write" event for a client that had closed meanwhile
            try:
                self.client.unsubscribe_topic(TOPIC)
            except Exception:  # noqa: BLE001 - closing anyway
                log.debug("unsubscribing from the job events failed", exc_info=True)
            futures = [fut for fut, _ in tasks]
            if futures:
                self.client.cancel(futures)
            for fut in [*scattered, *(f for _, held in tasks for f in held)]:
                fut.release()
            self.client.close(timeout=10)
        finally:
            if self.cluster is not None:
                self.cluster.close(timeout=20)


def _takes_n_workers(client):
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters


_default = None
_default_lock = threading.Lock()


def default_workers():
    """The process's Dask workers (:class:`DaskWorkers`), started on first use (``RMSC_SCHEDULER`` or a LocalCluster)."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            address = os.environ.get(SCHEDULER_ENV) or None
            log.info("starting the dashboard's Dask workers (%s)", address or "LocalCluster")
            try:
                _default = DaskWorkers(address)
                # Exit handlers run last registered first: distributed's own (which close
                # every LocalCluster, the workers first) were registered as it was imported
                # for these workers; ours goes after them so that it runs before them and
                # closes the client before the cluster (DaskWorkers.close).
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
    """Start the default workers in a thread (the first fit then finds it ready)."""
    if _default is not None or _starting.is_set():
        return
    _starting.set()

    def start():
        try:
            default_workers()
        except Exception:  # noqa: BLE001 - the first job reports the reason
            log.warning("the dashboard's Dask workers did not start", exc_info=True)
        finally:
            _starting.clear()

    threading.Thread(target=start, name="rmsc-workers-start", daemon=True).start()


def describe_limits(dask_workers, results_bytes, upload_mb):
    """One line for the page: where fits run and what the server keeps."""
    if dask_workers is None:
        return "Worker processes are starting…"
    lim = dask_workers.limits()
    where = ("on this machine" if dask_workers.address is None
             else f"on the cluster at {dask_workers.address}")
    mem = (f" × {format_bytes(lim['memory_per_worker'])}" if lim["memory_per_worker"] else "")
    return (f"Fits run in {lim['workers']} worker process(es){mem} {where}, one at a time "
            f"per worker, queued in order. The server keeps at most "
            f"{format_bytes(results_bytes)} of results for all sessions; uploads up to "
            f"{upload_mb} MB.")


def worker_slots():
    """``{"workers", "capacity", "cores"}`` of :meth:`DaskWorkers.slots` for the running workers
    (what a run's time estimate schedules its parts on); before it has started, what the
    LocalCluster it will start gives, or one worker when a scheduler elsewhere is named
    (its workers are not known yet)."""
    dask_workers = running_workers()
    slots = None
    if dask_workers is not None:
        try:
            slots = dask_workers.slots()
        except Exception:  # noqa: BLE001 - the cluster is unreachable: the jobs will say so
            slots = None
    if slots is None and os.environ.get(SCHEDULER_ENV):
        slots = {"workers": 1, "capacity": 1, "cores": None}
    if slots is None:
        workers = available_cores()  # local_cluster's default: one worker per core
        slots = {"workers": workers, "capacity": workers, "cores": workers}
    return {"workers": slots["workers"], "capacity": slots["capacity"],
            "cores": slots["cores"]}


def running_workers():
    """The default workers if they were started, else None (no cluster is started)."""
    return None if _default is None or _default.closed else _default


def trim_everywhere():
    """Hand freed memory back to the OS in this process and in the running workers'
    workers (the server calls it while no session is left)."""
    trim_memory()
    dask_workers = running_workers()
    if dask_workers is not None:
        dask_workers.trim_workers()


def shutdown():
    """Close the default workers (their LocalCluster's processes end)."""
    global _default
    with _default_lock:
        dask_workers, _default = _default, None
    if dask_workers is not None:
        dask_workers.close()


atexit.register(shutdown)
