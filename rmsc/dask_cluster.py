"""The Dask plumbing that the dashboard and the reproduction share: a floor below both.

Neither :mod:`rmsc.dashboard` nor :mod:`rmsc.experiments` imports the other for it
(as scipy's ``_miobase`` sits under ``_mio4`` and ``_mio5``):

* where the cluster is: :data:`SCHEDULER_ENV` (an existing scheduler's address),
  :func:`connect` within :data:`CONNECT_TIMEOUT`, or :func:`local_cluster`;
* the workers' heap: :func:`reuse_heap` (undoes what a Dask nanny's malloc setting costs
  a fit) and :func:`trim_memory` (freed memory back to the OS);
* :func:`current_worker`: the Dask worker running this code, or None;
* :func:`dask_setup`: what every worker process of :func:`local_cluster` does first (it
  leaves Ctrl-C to the program that owns the cluster).

Dask is an optional dependency (``pip install rmsc[dask]``): it is imported where a
cluster is used, never when this module is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

from .backends import available_cores

#: Environment variable naming an existing Dask scheduler (e.g. ``tcp://10.0.0.5:8786``),
#: for the dashboard's fits and ``rmsc reproduce`` alike.
SCHEDULER_ENV = "RMSC_SCHEDULER"


#: How long connecting to a scheduler may take before it counts as unreachable.
CONNECT_TIMEOUT = "20s"


def connect(address, timeout=CONNECT_TIMEOUT):
    """A ``distributed.Client`` of the scheduler at ``address`` (not the default client).

    Raises ``OSError`` or ``TimeoutError`` when it cannot be reached within ``timeout``;
    each caller says what to do in its own words.
    """
    import distributed

    return distributed.Client(address, set_as_default=False, timeout=timeout)


#: Dask's diagnostics that only its diagnostics dashboard shows, quietened in a LocalCluster
#: that does not serve it: each worker's statistical profiler (a sample every 10 ms, off),
#: the event loop's blocked-loop check (every 20 ms, every second here) and the system
#: monitor's CPU and memory readings (every 500 ms, every 2 s here; a worker's memory limit
#: reads its own memory on its own interval, left as it is). An idle LocalCluster of two
#: workers used about 2.8 CPU s per 20 s with Dask's defaults and 0.8 with these, on a
#: 2-core machine where the dashboard's workers are up all the time (docs/measurements.md,
#: "How long the suite takes").
QUIET_DIAGNOSTICS = {"distributed.worker.profile.enabled": False,
                     "distributed.admin.tick.interval": "1s",
                     "distributed.admin.system-monitor.interval": "2s"}


def local_cluster(n_workers=None, memory_limit="auto", dashboard=False):
    """A ``dask.distributed`` ``LocalCluster`` of single-threaded worker processes.

    The scheduler (and its HTTP server: health and metrics), the nannies and the
    workers listen on the loopback address only, and Dask's diagnostics dashboard
    (pages with the cluster's task names, logs and state) is not served unless asked
    for: nothing of the cluster can be reached from another machine. Without it, the
    diagnostics only it shows are quietened (:data:`QUIET_DIAGNOSTICS`). The scheduler does
    not retry a task whose worker died (``allowed-failures`` 0: a fit that ran a
    worker out of memory fails once, with a message, instead of killing every
    worker in turn). The dashboard's workers (``rmsc.dashboard.DaskWorkers``) and
    ``rmsc reproduce`` both start theirs here.

    Parameters
    ----------
    n_workers : int or None
        Worker processes; None: one per core available to this process.
    memory_limit : str or int
        Per worker ("auto": the machine's memory divided among the workers).
    dashboard : bool, default=False
        Serve Dask's diagnostics dashboard (``cluster.dashboard_link``, on 127.0.0.1;
        its pages need the ``bokeh`` package).
    """
    import logging

    import dask
    from distributed import LocalCluster

    n = int(n_workers) if n_workers else available_cores()
    config = {"distributed.scheduler.allowed-failures": 0, "distributed.worker.daemon": True}
    with dask.config.set({**config, **({} if dashboard else QUIET_DIAGNOSTICS)}):
        return LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                            host="127.0.0.1",
                            # The scheduler always serves HTTP (health, metrics): on
                            # loopback, a free port (Dask's default is 8787 on its host)
                            dashboard_address="127.0.0.1:0",
                            scheduler_kwargs={"dashboard": bool(dashboard)},
                            memory_limit=memory_limit, silence_logs=logging.ERROR,
                            preload=[__name__])  # dask_setup below, in every worker process


def dask_setup(worker):
    """Dask's preload hook, run in every worker process of :func:`local_cluster` as it starts:
    the process ignores SIGINT.

    Ctrl-C in a terminal sends SIGINT to every process of its group, the workers
    included. A worker that the signal kills takes the data scattered to it along and the
    scheduler reports the loss as an error ("... caused the cluster to lose scattered
    data"), while the program that owns the cluster is still closing it. Ignoring the
    signal leaves the shutdown to that program (the dashboard's
    :func:`rmsc.dashboard.workers.shutdown`, ``rmsc reproduce``'s ``finally``): the client
    first, then the cluster, which ends its workers.
    """
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():  # where signals can be set
        signal.signal(signal.SIGINT, signal.SIG_IGN)


_libc = None


def _glibc():
    """glibc through ctypes, or None (another C library)."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc.malloc_trim, _libc.mallopt  # noqa: B018 - glibc has both
        except (OSError, AttributeError):
            _libc = False
    return _libc or None


#: glibc's mallopt parameters, and the mmap threshold :func:`reuse_heap` sets: arrays
#: below it are reused from the heap instead of being mapped (and page-faulted) afresh;
#: the smallest threshold that gives the whole speed-up at about the memory of Dask's
#: setting (docs/measurements.md, "The workers' heap").
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD, M_ARENA_MAX = -1, -3, -8
HEAP_MMAP_THRESHOLD = 8 * 2**20


def reuse_heap():
    """Let this process reuse freed heap memory for its next arrays (glibc ``mallopt``).

    A Dask nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_`` set, which turns off
    glibc's adaptive thresholds: every array over 128 KiB is then a fresh mmap, and every
    free shrinks the heap, so the next array page-faults its memory in again. This sets
    the mmap threshold to :data:`HEAP_MMAP_THRESHOLD` and the trim threshold to twice
    that; :func:`trim_memory` returns the memory when the work is done. It also keeps
    threads started afterwards on glibc's main arena (``M_ARENA_MAX`` 1), which
    ``malloc_trim`` empties where a task thread's own arena stayed resident
    (docs/measurements.md). Returns True when all were set (False off glibc).
    """
    libc = _glibc()
    if libc is None:
        return False
    return all(bool(libc.mallopt(param, value)) for param, value in (
        (M_MMAP_THRESHOLD, HEAP_MMAP_THRESHOLD), (M_TRIM_THRESHOLD, 2 * HEAP_MMAP_THRESHOLD),
        (M_ARENA_MAX, 1)))


def trim_memory():
    """Collect garbage and return freed heap pages to the OS (glibc ``malloc_trim``).

    Python frees the arrays of a dropped result, but glibc keeps the pages for reuse,
    so a process's resident size stays at its peak; ``malloc_trim(0)`` gives them
    back. Returns True when the trim ran (False off glibc). The dashboard's workers call
    it after every task (see :func:`reuse_heap`).
    """
    gc.collect()
    libc = _glibc()
    return False if libc is None else bool(libc.malloc_trim(0))


def current_worker():
    """The ``distributed.Worker`` running this code, or None (not in a Dask task)."""
    from distributed import get_worker

    try:
        return get_worker()
    except ValueError:
        return None
