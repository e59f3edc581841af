"""Fits one slider step away, run while workers are idle, so that the next move is answered at once.

A fit on Digit takes seconds even at the floor of its arithmetic (docs/measurements.md),
so a slider move cannot be answered in about a second by fitting after the move. While the user
looks at a result, though, the workers are usually idle. :class:`Prefetcher` uses that
time for the settings one step away on the λ and β (or β_rel) sliders
(:func:`slider_neighbors`): each is an ordinary fit of the same task, registered in
the :class:`rmsc.dashboard.JobRegistry` under its cache key, so a move onto it either
finds the result in the cache or joins the run under way. What is shown is the fit of
the setting itself, computed from scratch, so the numbers do not depend on what was
fitted before (nothing is warm-started).

It never delays a fit somebody asked for: prefetches start only on workers with
nothing else to do, their Dask tasks have a lower priority than every other job, and
:meth:`Prefetcher.yield_workers` cancels those nobody has joined when the user's own fit
is about to start (:func:`rmsc.dashboard.jobs.request_user_fit`, which submits that fit
itself: a prefetch of its key under way is joined, never the way it is submitted). ``RMSC_PREFETCH=0`` turns it off (:func:`prefetch_enabled`).
"""

from __future__ import annotations

import math
import os
import threading

from .jobs import DONE, Job
from .params import AUTO, BETA_REL_GRID, LAM_GRID, beta_options, options_with
from .sender import DaskSender

#: Dask priority of a prefetch's task (every other job has the default, 0).
PREFETCH_PRIORITY = -10
#: Environment variable: "0" (or "off", "false", "no") turns prefetching off.
PREFETCH_ENV = "RMSC_PREFETCH"


def prefetch_enabled():
    """Whether the server prefetches (:data:`PREFETCH_ENV`; on unless set to 0/off/false/no)."""
    return os.environ.get(PREFETCH_ENV, "1").strip().lower() not in ("0", "off", "false", "no")


def _steps(options, value):
    """The options one step left and right of ``value`` (nearest first: left, right)."""
    for i, option in enumerate(options):
        same = option == value if isinstance(option, str) or isinstance(value, str) else \
            math.isclose(option, value, rel_tol=1e-9)
        if same:
            return [options[j] for j in (i - 1, i + 1) if 0 <= j < len(options)]
    return []


def slider_neighbors(params):
    """The :class:`rmsc.dashboard.Params` one step of the β (β_rel while β is "auto") and λ
    sliders away from ``params``, in the order they are prefetched: β's two, then λ's."""
    out = []
    if params.beta == AUTO:
        rel = params.resolved_beta_rel
        out += [params.replace(beta_rel=v) for v in _steps(options_with(BETA_REL_GRID, rel), rel)]
    else:
        out += [params.replace(beta=v) for v in _steps(beta_options(params.beta), params.beta)]
    lam = params.resolved_lam
    out += [params.replace(lam=v) for v in _steps(options_with(LAM_GRID, lam), lam)]
    return out


class Prefetcher:
    """Runs fits nobody asked for yet, one at a time, on an idle worker; one per server.

    One at a time: a fit already uses every core of its worker's machine (its column
    blocks run on threads), so two prefetches side by side on a small machine would each
    take twice as long, and the first step would be ready no sooner. Each call of
    :meth:`prefetch` replaces the queue with the settings around the result now on
    screen; when a prefetch ends, the next one still missing starts.

    Parameters
    ----------
    registry : JobRegistry
        Where prefetches are registered under their key (a session asking for that
        key joins the run).
    dask_workers : callable returning the running workers (:class:`DaskWorkers`) or None
        Prefetches start only once the workers are up (no cluster is started for them).
    cached : callable(key) -> bool
        Whether a result is already kept (such keys are not fitted again).
    """

    #: Prefetches running at once (per server).
    AT_ONCE = 1

    def __init__(self, registry, dask_workers, cached=lambda key: False):
        self.registry = registry
        self._dask_workers = dask_workers
        self._cached = cached
        self._lock = threading.RLock()
        self._jobs = []   # unfinished prefetches the prefetcher holds
        self._queue = []  # (key, task) still to start, in order

    def idle_workers(self):
        """Workers with no job of this server running or queued on them (0 without workers)."""
        dask_workers = self._dask_workers()
        if dask_workers is None:
            return 0
        return max(0, dask_workers.limits()["workers"] - dask_workers.unfinished())

    def prefetch(self, candidates):
        """Queue ``candidates`` (``(key, task)`` pairs, in order), replacing the queue, and
        start the first missing one if a worker is idle. Keys cached or running somewhere
        (the registry) are skipped. Returns the jobs started now."""
        if not prefetch_enabled():
            return []
        with self._lock:
            self._queue = list(candidates)
        return self._pump()

    def _pump(self):
        started = []
        with self._lock:
            while self._queue and len(self._jobs) < self.AT_ONCE and self.idle_workers() > 0:
                key, task = self._queue.pop(0)
                if self._cached(key) or self.registry.find(key) is not None:
                    continue
                task.priority = PREFETCH_PRIORITY
                job = Job(key, task, label="prefetch", sender=DaskSender(self._dask_workers()))
                job.acquire()  # the prefetcher's hold: a session joining and leaving keeps it
                self.registry.add(job)
                self._jobs.append(job)
                job.add_done_callback(self._finished)
                started.append(job)
        for job in started:
            job.start()
        return started

    def yield_workers(self, keep=None):
        """A fit was asked for: drop the queue and cancel the prefetches no session has
        joined, except the one for ``keep``. Returns how many were cancelled."""
        with self._lock:
            self._queue = []
            jobs = [j for j in self._jobs if j.key != keep and j.watchers <= 1 and j.active]
            for job in jobs:
                self._jobs.remove(job)
        for job in jobs:
            job.release()  # the last hold: the job is cancelled
        return len(jobs)

    def _finished(self, job):
        with self._lock:
            held = job in self._jobs
            if held:
                self._jobs.remove(job)
        if held:
            job.release()
        if job.state == DONE:
            self._pump()

    @property
    def running(self):
        with self._lock:
            return list(self._jobs)

    @property
    def queued(self):
        """Keys still to prefetch, in order."""
        with self._lock:
            return [key for key, _ in self._queue]
