"""The dashboard's logic that is not a figure: parameters, background runs, caches, tables.

Everything a dashboard page computes lives here, so it can be tested without
a browser; the pages (``app.py``, ``pages/``) only compose widgets, session
state and calls into this module and :mod:`rmsc.figures`. Nothing here
imports streamlit: the worker threads receive plain objects and report through
:class:`Job`, which a page reads from a ``st.fragment(run_every=...)``.

Contents
--------
* :class:`Params` — the RMSC parameters a page shows, their defaults (the
  estimator's own), log-scale grids, URL (query-string) round trip, cache key.
* :class:`OutlierSpec` — what outliers were injected, for the sidebar and URL.
* :class:`Job`, :class:`JobSlot` — a task in a worker thread with progress,
  stop (finish early) and cancel (abandon), and a slot that runs one task at
  a time and queues the newest request.
* :class:`ResultCache` — a thread-safe LRU bounded by entries and bytes.
* :func:`fit_rmsc` and :class:`FitResult` / :class:`FitFailure`.
* Tables and helpers for the pages: 2-D projections, orderings, cluster
  alignment, least-trusted samples, downloads, the large-data plan.
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .metrics import evaluate, evaluate_runs, match_clusters
from .methods import get_method
from .rmsc import RMSC, WEIGHTINGS
from .solver import loss_of_weight

#: Timeline of the dashboard's background work (job start, end), at DEBUG level; the
#: dashboard's speed benchmark switches it on (``RMSC_DASHBOARD_TRACE``) to see where time goes.
log = logging.getLogger("rmsc.dashboard")

# ---------------------------------------------------------------------------
# Parameters
# ---------------------------------------------------------------------------


def log_grid(low, high, mantissas=(1, 2, 3, 5)):
    """Values ``m * 10**e`` between ``low`` and ``high`` (inclusive), ascending.

    The 1-2-3-5 ladder contains the paper's and the estimators' defaults
    (0.3, 0.005, 1e-5), and gives log-scale sliders about four steps a decade.
    """
    if not (0 < low <= high):
        raise ValueError(f"log_grid needs 0 < low <= high; got low={low}, high={high}.")
    out = []
    for e in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1):
        for m in mantissas:
            v = float(f"{m}e{e}")
            if low * (1 - 1e-9) <= v <= high * (1 + 1e-9):
                out.append(v)
    return sorted(set(out))


#: Slider ranges (log scale). Wide enough to reach both failure modes:
#: beta large empties Z*, lam small decouples the views.
LAM_GRID = log_grid(1e-3, 100)
BETA_GRID = log_grid(1e-4, 10)
GAMMA_GRID = log_grid(1e-8, 1)
MAX_ITER_RANGE = (1, 200)

#: Affinity post-processing choices shown to the user: name -> (top_k?, scale_columns)
POSTPROCESSING = {
    "none": "the paper's (|Z*| + |Z*ᵀ|)/2",
    "scale": "scale each column of |Z*| by its maximum",
    "top_k": "keep each column's top-k coefficients",
    "top_k+scale": "keep the top-k, then scale columns (SSC's)",
}
DEFAULT_TOP_K = 10


def options_with(grid, value):
    """``grid`` with ``value`` inserted in order (so a value from a URL stays selectable)."""
    if value is None:
        return list(grid)
    if any(math.isclose(value, g, rel_tol=1e-9) for g in grid):
        return list(grid)
    return sorted([*grid, float(value)])


def nearest(grid, value):
    """The grid value closest to ``value`` on a log scale."""
    return min(grid, key=lambda g: abs(math.log10(g) - math.log10(value)))


def _estimator_defaults():
    return RMSC().get_params()


@dataclass(frozen=True)
class Params:
    """The parameters of one RMSC run as the dashboard shows them.

    Defaults are the estimator's own (``rmsc.RMSC()``), so the dashboard and
    the library can never disagree. ``weighting="view"`` is RMSC-WV.
    ``n_clusters=None`` means "the number of classes in the labels".
    """

    lam: float = field(default_factory=lambda: _estimator_defaults()["lam"])
    beta: float = field(default_factory=lambda: _estimator_defaults()["beta"])
    gamma: float = field(default_factory=lambda: _estimator_defaults()["gamma"])
    weighting: str = field(default_factory=lambda: _estimator_defaults()["weighting"])
    max_iter: int = field(default_factory=lambda: _estimator_defaults()["max_iter"])
    tol: float = field(default_factory=lambda: _estimator_defaults()["tol"])
    post: str = "none"
    top_k: int = DEFAULT_TOP_K
    n_clusters: int | None = None
    seed: int = 0

    def __post_init__(self):
        for name in ("lam", "beta", "gamma", "tol"):
            value = getattr(self, name)
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{name} must be a number; got {value!r}.") from None
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0; got {value!r}.")
            object.__setattr__(self, name, value)
        if self.lam <= 0:
            raise ValueError(
                "lam must be positive: lam = 0 cuts every view off from the consensus. "
                "Typical values are 0.1 to 10."
            )
        if self.weighting not in WEIGHTINGS:
            raise ValueError(
                f"weighting must be 'sample' (RMSC) or 'view' (RMSC-WV); got {self.weighting!r}."
            )
        if self.post not in POSTPROCESSING:
            raise ValueError(
                f"Unknown affinity post-processing {self.post!r}; choose one of "
                f"{', '.join(POSTPROCESSING)}."
            )
        for name, lo in (("max_iter", 1), ("top_k", 1), ("seed", 0)):
            object.__setattr__(self, name, _as_int(name, getattr(self, name), lo))
        if self.n_clusters is not None:
            object.__setattr__(self, "n_clusters", _as_int("n_clusters", self.n_clusters, 2))

    # -- derived ---------------------------------------------------------------------------

    @property
    def method(self):
        """The registry name: "RMSC" or "RMSC-WV"."""
        return "RMSC" if self.weighting == "sample" else "RMSC-WV"

    @property
    def postprocessing(self):
        """``(top_k, scale_columns)`` for the estimator."""
        top_k = self.top_k if self.post.startswith("top_k") else None
        return top_k, self.post in ("scale", "top_k+scale")

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)

    def resolved_clusters(self, dataset):
        """The number of clusters to ask for: explicit, else the number of classes."""
        if self.n_clusters is not None:
            return self.n_clusters
        if dataset is not None and dataset.n_clusters is not None:
            return dataset.n_clusters
        raise ValueError(
            "This dataset has no labels, so the number of clusters is unknown; "
            "set 'clusters' on the Solve page."
        )

    def estimator_params(self, dataset):
        """Keyword arguments of ``rmsc.get_method(self.method, ...)``."""
        top_k, scale = self.postprocessing
        return {
            "n_clusters": self.resolved_clusters(dataset),
            "lam": self.lam,
            "beta": self.beta,
            "gamma": self.gamma,
            "max_iter": self.max_iter,
            "tol": self.tol,
            "top_k": top_k,
            "scale_columns": scale,
            "random_state": self.seed,
        }

    def key(self, dataset):
        """A small hashable cache key: dataset fingerprint plus every parameter."""
        return ("fit", dataset.fingerprint, self.resolved_clusters(dataset), self.lam,
                self.beta, self.gamma, self.weighting, self.max_iter, self.tol,
                *self.postprocessing, self.seed)

    def summary(self):
        """Short text lines for the sidebar."""
        post = self.post if not self.post.startswith("top_k") else self.post.replace(
            "top_k", f"top-{self.top_k}")
        return [
            f"{self.method}: λ = {self.lam:g}, β = {self.beta:g}, γ = {self.gamma:g}",
            f"max {self.max_iter} iterations, tol {self.tol:g}, seed {self.seed}",
            f"affinity post-processing: {post}",
        ]

    def as_dict(self):
        return dataclasses.asdict(self)

    # -- URL round trip --------------------------------------------------------------------

    def to_query(self):
        """Query-string parameters (str -> str) of the values that differ from the defaults."""
        base = Params()
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value != getattr(base, f.name) and value is not None:
                out[f.name] = _fmt(value)
        return out

    @classmethod
    def from_query(cls, query):
        """Parse query-string parameters; unknown keys are ignored.

        Returns
        -------
        params : Params
            Defaults for every missing or invalid entry.
        problems : list of str
            One message per invalid entry, saying what was ignored.
        """
        fields = {f.name: f for f in dataclasses.fields(cls)}
        params = cls()
        problems = []
        for name in fields:
            if name not in query:
                continue
            raw = query[name]
            raw = raw[-1] if isinstance(raw, (list, tuple)) else raw
            try:
                value = _parse_field(name, raw)
                params = params.replace(**{name: value})
            except ValueError as exc:
                problems.append(f"Ignored {name}={raw!r} from the URL: {exc}")
        return params, problems


def _as_int(name, value, lo):
    try:
        as_float = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer >= {lo}; got {value!r}.") from None
    if not as_float.is_integer() or as_float < lo:
        raise ValueError(f"{name} must be an integer >= {lo}; got {value!r}.")
    return int(as_float)


def _fmt(value):
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _parse_field(name, raw):
    if name in ("weighting", "post"):
        return str(raw)
    if name in ("max_iter", "top_k", "seed", "n_clusters"):
        return _as_int(name, raw, 0)
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number.") from None


def method_default_beta(weighting):
    """The registry's default beta for RMSC (per sample) or RMSC-WV (per view)."""
    name = "RMSC" if weighting == "sample" else "RMSC-WV"
    return float(get_method(name).get_params()["beta"])


# ---------------------------------------------------------------------------
# Injected outliers
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class OutlierSpec:
    """The arguments of one ``rmsc.outliers.inject`` call, as shown and shared."""

    views: tuple
    fraction: float = 0.1
    kind: str = "replace"
    severity: float = 1.0
    same_samples: bool = True
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "views", tuple(str(v) for v in self.views))
        if not self.views:
            raise ValueError("Choose at least one view to corrupt.")
        fraction = float(self.fraction)
        if not 0 < fraction <= 1:
            raise ValueError(f"The outlier fraction must be in (0, 1]; got {self.fraction!r}.")
        object.__setattr__(self, "fraction", fraction)
        object.__setattr__(self, "severity", float(self.severity))
        object.__setattr__(self, "seed", _as_int("seed", self.seed, 0))

    def inject(self, dataset):
        """Apply to a (clean) dataset with :func:`rmsc.outliers.inject`."""
        unknown = [v for v in self.views if v not in dataset.view_names]
        if unknown:
            raise ValueError(
                f"View(s) {', '.join(unknown)} not in {dataset.name} "
                f"(views: {', '.join(dataset.view_names)})."
            )
        from . import outliers

        return outliers.inject(dataset, list(self.views), self.fraction, kind=self.kind,
                               severity=self.severity, same_samples=self.same_samples,
                               random_state=self.seed)

    def summary(self):
        return (f"{self.fraction:.0%} '{self.kind}' (severity {self.severity:g}) in "
                f"{', '.join(self.views)}")

    def to_query(self):
        return {"outliers": ":".join([",".join(self.views), f"{self.fraction:g}", self.kind,
                                      f"{self.severity:g}", str(int(self.same_samples)),
                                      str(self.seed)])}

    @classmethod
    def from_query(cls, text):
        parts = str(text).split(":")
        if len(parts) != 6:
            raise ValueError(
                "expected views:fraction:kind:severity:same_samples:seed, e.g. "
                "'PIX,FOU:0.1:replace:1:1:0'."
            )
        views, fraction, kind, severity, same, seed = parts
        try:
            return cls(tuple(v for v in views.split(",") if v), float(fraction), kind,
                       float(severity), bool(int(same)), int(seed))
        except (TypeError, ValueError) as exc:
            raise ValueError(str(exc)) from None


# ---------------------------------------------------------------------------
# Background jobs
# ---------------------------------------------------------------------------


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

    @property
    def active(self):
        return self.state in ACTIVE_STATES

    @property
    def fraction(self):
        return min(1.0, self.done / self.total) if self.total else 0.0


class Job:
    """A task run in a daemon worker thread, observable from other threads.

    ``task(job)`` does the work and returns the result. With ``delay`` the
    worker first waits that long, or until :meth:`hurry` but at least
    ``min_delay``; cancelling during the wait means the task never runs. It reports with
    :meth:`report` (progress) and :meth:`record` (one point of a live curve),
    and polls :attr:`stop_requested` (finish early, keep what you have) or
    :meth:`check` (raises :class:`Cancelled` once :meth:`cancel` was called).
    Exceptions become ``state="failed"`` with a readable :attr:`error`, never
    a traceback.
    """

    def __init__(self, key, task, *, label="", delay=0.0, min_delay=0.0):
        self.key = key
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
        with self._lock:
            t_end = self._t1 if self._t1 is not None else time.perf_counter()
            return JobSnapshot(
                key=self.key, label=self.label, state=self._state, done=self._done,
                total=self._total, message=self._message, history=tuple(self._history),
                latest=self._latest, result=self._result, error=self._error,
                elapsed=0.0 if self._t0 is None else t_end - self._t0,
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
            result = self._task(self)
            state = STOPPED if self._stop.is_set() else DONE
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
    slider quickly never builds up a backlog. With a :class:`JobRegistry`,
    a request for a key some session is already running joins that run.
    """

    def __init__(self, registry=None):
        # Re-entrant: releasing a job may finish it at once and call back into the slot.
        self._lock = threading.RLock()
        self.registry = registry
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
                job = Job(key, task, label=label, delay=delay, min_delay=min_delay)
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
                # Wait for a run we just cancelled to wind down (one fit at a time);
                # a run other sessions still watch keeps going, so do not wait for it.
                wait = cur.cancelled and not adopted
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

    def _finished(self, job):
        start = None
        with self._lock:
            if job is self.current and self.queued is not None:
                self.current, self.queued = self.queued, None
                start = self.current
        if start is not None:
            start.start()


# ---------------------------------------------------------------------------
# Result cache
# ---------------------------------------------------------------------------


def nbytes(obj):
    """Approximate memory of a result: numpy arrays, sparse matrices, containers."""
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if sp.issparse(obj):
        obj = obj.tocsr() if not hasattr(obj, "data") else obj
        return sum(getattr(obj, a).nbytes for a in ("data", "indices", "indptr")
                   if hasattr(obj, a))
    if isinstance(obj, pd.DataFrame):
        return int(obj.memory_usage(deep=True).sum())
    if isinstance(obj, dict):
        return sum(nbytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(nbytes(v) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return sum(nbytes(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if hasattr(obj, "get_params"):  # a fitted estimator: its fitted attributes
        return 64 + sum(nbytes(v) for k, v in vars(obj).items() if k.endswith("_"))
    return 64


class ResultCache:
    """A thread-safe least-recently-used cache bounded by entries and by bytes."""

    def __init__(self, max_entries=24, max_bytes=1 << 30):
        self.max_entries = int(max_entries)
        self.max_bytes = int(max_bytes)
        self._lock = threading.Lock()
        self._items = OrderedDict()
        self._sizes = {}

    def get(self, key, default=None):
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def __contains__(self, key):
        with self._lock:
            return key in self._items

    def __len__(self):
        with self._lock:
            return len(self._items)

    @property
    def total_bytes(self):
        with self._lock:
            return sum(self._sizes.values())

    def put(self, key, value):
        size = nbytes(value)
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            self._sizes[key] = size
            while len(self._items) > 1 and (len(self._items) > self.max_entries
                                            or sum(self._sizes.values()) > self.max_bytes):
                old, _ = self._items.popitem(last=False)
                self._sizes.pop(old, None)
        return value

    def clear(self):
        with self._lock:
            self._items.clear()
            self._sizes.clear()


# ---------------------------------------------------------------------------
# Fitting RMSC for a page
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FitResult:
    """Everything the pages show about one RMSC fit (plain arrays, and the small estimator)."""

    key: tuple
    params: Params
    dataset_name: str
    n_clusters: int
    labels: np.ndarray
    label_runs: np.ndarray
    weights: np.ndarray
    consensus: sp.csr_matrix
    affinity: sp.csr_matrix
    embedding: np.ndarray
    objective: np.ndarray
    terms: dict
    objective_init: float
    n_iter: int
    converged: bool
    stopped_early: bool
    fit_time: float
    spectral_time: float
    beta_max: float
    scores: dict | None
    chosen_scores: dict | None
    diagnostics: tuple
    #: The fitted estimator (its callback removed), for what is formed on demand only:
    #: every view's dense Z^v (:func:`view_representation_affinities`). None in made-up results.
    model: object = field(default=None, repr=False, compare=False)

    @property
    def weights_(self):
        """P under the estimator's attribute name, so ``rmsc.outliers.scores(result)`` works."""
        return self.weights

    @property
    def gamma(self):
        """The fit's gamma (with ``weights_``, what ``rmsc.outliers.scores`` reads)."""
        return self.params.gamma

    @property
    def density(self):
        """Fraction of nonzero entries of Z*."""
        n = self.consensus.shape[0]
        return self.consensus.nnz / float(n * n)

    def metrics_table(self):
        """ACC/NMI/ARI/purity as mean ± std over the k-means runs (paper protocol)."""
        if self.scores is None:
            return None
        rows = []
        for name in ("acc", "nmi", "ari", "purity"):
            rows.append({"metric": name.upper(),
                         "mean %": 100 * self.scores[f"{name}_mean"],
                         "std %": 100 * self.scores[f"{name}_std"],
                         "chosen run %": 100 * self.chosen_scores[name]})
        return pd.DataFrame(rows)


@dataclass(frozen=True)
class FitFailure:
    """A fit that ran and failed with a message the user can act on."""

    key: tuple
    params: Params
    message: str
    degenerate: bool


def fit_rmsc(dataset, params, job=None):
    """Fit RMSC (or RMSC-WV) to ``dataset`` with ``params``, reporting to ``job``.

    Every iteration records ``(iteration, objective)`` on the job's live curve,
    with the mean weight of every view as its latest state; a stop request
    finishes the iterations early (the clustering still runs), a cancel
    abandons the fit.

    Returns
    -------
    FitResult, or FitFailure when the estimator raises
    :class:`rmsc.DegenerateSolutionError` (its message says what to change).
    Other errors propagate (a :class:`Job` turns them into messages).
    """
    from .rmsc import DegenerateSolutionError

    kwargs = params.estimator_params(dataset)
    key = params.key(dataset)
    stopped = {"early": False}

    def callback(iteration, objective, weights):
        if job is None:
            return False
        job.check()
        job.record((int(iteration), float(objective)), latest=np.asarray(weights).mean(axis=1))
        job.report(iteration, params.max_iter, f"iteration {iteration} of at most {params.max_iter}")
        if job.stop_requested:
            stopped["early"] = iteration < params.max_iter
            return True
        return False

    est = get_method(params.method, callback=callback, **kwargs)
    try:
        est.fit(list(dataset.views))
    except DegenerateSolutionError as exc:
        return FitFailure(key=key, params=params, message=str(exc), degenerate=True)
    scores = chosen = None
    if dataset.labels is not None:
        scores = evaluate_runs(dataset.labels, est.label_runs_)
        chosen = evaluate(dataset.labels, est.labels_)
    result = FitResult(
        key=key, params=params, dataset_name=dataset.name, n_clusters=kwargs["n_clusters"],
        labels=np.asarray(est.labels_), label_runs=np.asarray(est.label_runs_),
        weights=np.asarray(est.weights_), consensus=sp.csr_matrix(est.consensus_),
        affinity=sp.csr_matrix(est.affinity_matrix_), embedding=np.asarray(est.embedding_),
        objective=np.asarray(est.objective_), terms=dict(est.objective_terms_),
        objective_init=float(est.objective_init_), n_iter=int(est.n_iter_),
        converged=bool(est.converged_), stopped_early=stopped["early"],
        fit_time=float(est.fit_time_), spectral_time=float(est.spectral_time_),
        beta_max=float(est.beta_max_), scores=scores, chosen_scores=chosen, diagnostics=(),
        model=est.set_params(callback=None),
    )
    return dataclasses.replace(result, diagnostics=tuple(diagnose(result)))


def diagnose(result):
    """Plain-words remarks about a fit that ran: ``(level, message)`` pairs.

    ``level`` is "warning" when the clustering may not mean much (isolated
    samples, more graph pieces than clusters, nearly one cluster) and "info"
    for facts worth knowing (stopped early, not converged).
    """
    out = []
    n = result.affinity.shape[0]
    isolated = int(np.count_nonzero(result.affinity.getnnz(axis=1) == 0))
    if isolated:
        out.append(("warning",
            f"{isolated} sample(s) have no link to any other sample in Z*, so their cluster "
            "is arbitrary. A smaller β keeps more coefficients."
        ))
    pieces = connected_components(result.affinity, directed=False)[0]
    if pieces > result.n_clusters:
        out.append(("warning",
            f"The consensus graph falls into {pieces} disconnected pieces, more than the "
            f"{result.n_clusters} clusters asked for, so spectral clustering merges pieces "
            f"arbitrarily. A smaller β (now {result.params.beta:g}; Z* empties at "
            f"β ≈ {result.beta_max:.3g}) links more samples."
        ))
    sizes = np.bincount(result.labels, minlength=result.n_clusters)
    if sizes.max() > 0.9 * n and result.n_clusters > 1:
        out.append(("warning",
            f"One cluster holds {sizes.max()} of {n} samples: the result is close to "
            "a single cluster. Try a smaller β or a larger λ."
        ))
    if result.stopped_early:
        out.append(("info", f"The run was stopped after {result.n_iter} iteration(s); the "
                             "clustering uses Z* as it was then."))
    elif not result.converged:
        out.append(("info",
            f"Not converged within {result.n_iter} iterations (relative decrease still above "
            f"tol = {result.params.tol:g}); more iterations may change the result slightly."
        ))
    return out


def describe_error(exc):
    """One readable sentence for any exception (no traceback)."""
    if isinstance(exc, MemoryError):
        return ("Not enough memory for this computation. Subsample the data (fewer samples) "
                "or use fewer views.")
    if isinstance(exc, ValueError):
        return str(exc)
    return (f"Unexpected {type(exc).__name__}: {exc}. This is a bug in rmsc; please report it "
            "with the configuration JSON from the Solve page.")


# ---------------------------------------------------------------------------
# Tables and helpers for the pages
# ---------------------------------------------------------------------------


def dataset_summary(dataset):
    """The sidebar's facts about the current dataset, as (label, value) pairs."""
    if dataset is None:
        return [("dataset", "none loaded")]
    rows = [
        ("dataset", dataset.name),
        ("samples n", f"{dataset.n_samples:,}"),
        ("views", f"{dataset.n_views} ({', '.join(dataset.view_names)})"),
        ("classes", "unlabelled" if dataset.labels is None else str(dataset.n_clusters)),
    ]
    if dataset.outlier_mask is not None and dataset.outlier_mask.any():
        per_view = dataset.outlier_mask.sum(axis=1)
        parts = [f"{name} {int(k)}" for name, k in zip(dataset.view_names, per_view) if k]
        rows.append(("injected outliers",
                     f"{int(dataset.outlier_mask.any(axis=0).sum())} samples ({', '.join(parts)})"))
    else:
        rows.append(("injected outliers", "none"))
    return rows


@dataclass(frozen=True)
class ScalePlan:
    """How the interactive pages adapt to the dataset's size (issue 6)."""

    n_samples: int
    scatter_points: int
    heatmap_cells: int
    weight_columns: int
    notices: tuple
    #: Whether the views' dense n x n Z^v are formed (Affinity page).
    dense_views: bool = True

    @property
    def large(self):
        return bool(self.notices)


#: Above these sizes the pages subsample / pool instead of drawing every sample.
MAX_SCATTER_POINTS = 3000
MAX_HEATMAP_SIDE = 500
MAX_WEIGHT_COLUMNS = 2000
#: Above this many samples every view's dense n x n Z^v is not formed (the k-NN graphs are
#: shown instead): 4,000 samples and 6 views already hold 0.8 GB while they are pooled.
MAX_DENSE_VIEW_SAMPLES = 4000


def scale_plan(n_samples):
    """What the pages draw for ``n_samples``: scatter points, heatmap side, weight columns."""
    notices = []
    scatter = min(n_samples, MAX_SCATTER_POINTS)
    if scatter < n_samples:
        notices.append(f"Scatter plots show a random {scatter:,} of the {n_samples:,} samples "
                       "(every injected outlier included).")
    if n_samples > MAX_HEATMAP_SIDE:
        notices.append(f"Affinity matrices ({n_samples:,}²) are pooled to "
                       f"{MAX_HEATMAP_SIDE}×{MAX_HEATMAP_SIDE} blocks and sent as images.")
    dense_views = n_samples <= MAX_DENSE_VIEW_SAMPLES
    if not dense_views:
        notices.append(f"Each view's own Zᵛ ({n_samples:,}² dense) is not formed above "
                       f"{MAX_DENSE_VIEW_SAMPLES:,} samples: the views are shown by their "
                       "k-NN graphs.")
    weight_cols = min(n_samples, MAX_WEIGHT_COLUMNS)
    if weight_cols < n_samples:
        notices.append(f"The weight heatmap averages samples in {weight_cols:,} bins.")
    return ScalePlan(n_samples, scatter, MAX_HEATMAP_SIDE, weight_cols, tuple(notices),
                     dense_views)


def subsample(n_samples, max_points, *, keep=None, random_state=0):
    """Sorted indices of at most ``max_points`` samples, always including ``keep`` (bool mask).

    Returns all indices when ``n_samples <= max_points``.
    """
    if n_samples <= max_points:
        return np.arange(n_samples)
    rng = np.random.default_rng(random_state)
    keep_idx = np.flatnonzero(keep) if keep is not None else np.empty(0, dtype=int)
    keep_idx = keep_idx[:max_points]
    rest = np.setdiff1d(np.arange(n_samples), keep_idx)
    extra = rng.choice(rest, size=max_points - keep_idx.size, replace=False)
    return np.sort(np.concatenate([keep_idx, extra]))


def project_2d(X, random_state=0):
    """A 2-D PCA projection of one view after the paper's unit-L2 scaling.

    Dense views use PCA (covariance eigenvectors when features are fewer than
    samples, ARPACK otherwise); sparse views TruncatedSVD (no centring, which
    would densify them). Views with one feature get a zero second coordinate.

    Returns
    -------
    coords : ndarray of shape (n_samples, 2)
    explained : ndarray of shape (2,)
        Fraction of variance explained by each axis (NaN for TruncatedSVD
        on a rank-deficient view is replaced by 0).
    """
    import warnings

    from sklearn.decomposition import PCA, TruncatedSVD

    from .preprocessing import normalize_l2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        Xn = normalize_l2(X)
    n, d = Xn.shape
    k = min(2, d, n - 1)
    if sp.issparse(Xn):
        if d <= 2:
            Xn = Xn.toarray()
        else:
            svd = TruncatedSVD(n_components=2, random_state=random_state)
            coords = svd.fit_transform(Xn)
            return coords, np.nan_to_num(svd.explained_variance_ratio_)
    # Few features (the usual multi-view case): eigenvectors of the d x d covariance,
    # much faster than an SVD of the data; many features: ARPACK for the top two.
    solver = "covariance_eigh" if d <= min(n, 2000) or k >= min(n, d) else "arpack"
    pca = PCA(n_components=k, svd_solver=solver, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant view: 0/0 explained variance
        coords = pca.fit_transform(np.asarray(Xn))
    explained = np.nan_to_num(pca.explained_variance_ratio_)
    if k < 2:
        coords = np.hstack([coords, np.zeros((n, 2 - k))])
        explained = np.concatenate([explained, np.zeros(2 - k)])
    return coords, explained


def align_clusters(labels_true, labels_pred):
    """Relabel clusters to the classes they best match (Hungarian on the contingency table).

    The matching is the one :func:`rmsc.metrics.clustering_accuracy` scores, so
    ``np.mean(align_clusters(y, p) == y)`` equals the accuracy. Clusters
    left unmatched (more clusters than classes) get labels after the classes.

    Returns
    -------
    ndarray of shape (n_samples,), in the label values of ``labels_true``.
    """
    classes, clusters, pairs, _ = match_clusters(labels_true, labels_pred)
    p_idx = np.unique(np.asarray(labels_pred).ravel(), return_inverse=True)[1]
    mapping = {}
    for r, c in pairs:
        mapping[c] = classes[r]
    extra = (classes.max() + 1) if np.issubdtype(classes.dtype, np.number) else None
    for c in range(clusters.size):
        if c not in mapping:
            mapping[c] = extra
            extra = extra + 1 if extra is not None else None
    lut = np.array([mapping[c] for c in range(clusters.size)])
    return lut[p_idx]


def mistakes(labels_true, labels_pred):
    """Boolean mask of samples whose aligned cluster differs from their class."""
    return align_clusters(labels_true, labels_pred) != np.asarray(labels_true).ravel()


def order_by(labels, secondary=None):
    """A stable ordering of samples that groups equal labels (then by ``secondary``).

    Returns
    -------
    order : ndarray of int
    boundaries : ndarray of int
        Positions in the ordered sequence where a new group starts (excluding 0).
    groups : ndarray
        The label of each group, in order.
    """
    labels = np.asarray(labels).ravel()
    if secondary is None:
        order = np.argsort(labels, kind="stable")
    else:
        order = np.lexsort((np.asarray(secondary).ravel(), labels))
    sorted_labels = labels[order]
    change = np.flatnonzero(sorted_labels[1:] != sorted_labels[:-1]) + 1
    groups = sorted_labels[np.concatenate([[0], change])] if labels.size else sorted_labels
    return order, change, groups


def within_group_mass(S, labels):
    """Fraction of the affinity's total weight that links samples of the same label.

    1.0 is perfect block structure; for c balanced random groups it is about 1/c.
    """
    labels = np.asarray(labels).ravel()
    if not sp.issparse(S):
        A = np.abs(np.asarray(S))
        total = float(A.sum())
        if total == 0:
            return float("nan")
        same = float(sum(A[np.ix_(idx, idx)].sum()
                         for idx in (np.flatnonzero(labels == g) for g in np.unique(labels))))
        return same / total
    S = sp.coo_matrix(S)
    total = float(np.abs(S.data).sum())
    if total == 0:
        return float("nan")
    same = labels[S.row] == labels[S.col]
    return float(np.abs(S.data[same]).sum() / total)


def view_affinity(X, n_neighbors=None):
    """One view's own graph: the k-NN Gaussian affinity the spectral baselines use."""
    from .graphs import N_NEIGHBORS, knn_affinity
    from .preprocessing import normalize_l2
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        Xn = normalize_l2(X)
    return sp.csr_matrix(knn_affinity(Xn, n_neighbors or N_NEIGHBORS))


def view_representation_affinities(model, views, orders, *, labels=None,
                                   max_side=MAX_HEATMAP_SIDE):
    """Every view's affinity (|Zᵛ| + |Zᵛᵀ|)/2 of a fitted RMSC, pooled, with its within-class share.

    The views' Zᵛ come from :meth:`rmsc.RMSC.view_representations` (dense,
    n x n each); every one is reordered and averaged in blocks by
    :func:`rmsc.figures.pool_matrix` for each order, then dropped.

    Parameters
    ----------
    model : fitted :class:`rmsc.RMSC` (either weighting)
    views : list of array-like
        The views the model was fitted on.
    orders : dict of name -> ndarray of int
        Sample orders (e.g. ``{"class": ..., "cluster": ...}``).
    labels : ndarray of shape (n_samples,) or None
    max_side : int

    Returns
    -------
    pooled : dict of name -> list of ndarray (float32, side <= max_side), one per view
    pool : int
        The block side.
    shares : list of float
        Within-class share of every view's affinity (NaN without labels).
    """
    from .figures import pool_matrix

    Zs = model.view_representations(list(views))
    pooled = {name: [] for name in orders}
    shares, pool = [], 1
    for v in range(len(Zs)):
        S = np.abs(Zs[v])
        Zs[v] = None  # one dense n x n view at a time beyond the solver's output
        S += S.T
        S *= 0.5
        for name, order in orders.items():
            P, pool = pool_matrix(S, order, max_side)
            pooled[name].append(P.astype(np.float32))
        shares.append(float("nan") if labels is None else within_group_mass(S, labels))
        del S
    return pooled, pool, shares


def least_trusted(weights, view_names, *, labels=None, outlier_mask=None, top=20):
    """The samples with the lowest weight in any view, lowest first.

    Parameters
    ----------
    weights : ndarray of shape (n_views, n_samples)
        P of a fitted RMSC.

    Returns
    -------
    pandas.DataFrame with columns sample, lowest weight, in view, mean weight,
    relative (lowest weight over that view's median), class (when labels are
    known), injected (when a mask exists: the views in which the sample was
    corrupted, "" otherwise).
    """
    P = np.asarray(weights, dtype=float)
    m, n = P.shape
    medians = np.median(P, axis=1)
    rel = P / np.where(medians > 0, medians, 1.0)[:, None]
    worst_view = rel.argmin(axis=0)
    worst_rel = rel[worst_view, np.arange(n)]
    order = np.argsort(worst_rel, kind="stable")[: int(top)]
    df = pd.DataFrame({
        "sample": order,
        "lowest weight": P[worst_view[order], order],
        "in view": [view_names[v] for v in worst_view[order]],
        "relative to view median": worst_rel[order],
        "mean weight": P[:, order].mean(axis=0),
    })
    if labels is not None:
        df["class"] = np.asarray(labels)[order]
    if outlier_mask is not None:
        mask = np.asarray(outlier_mask, dtype=bool)
        df["injected in"] = [", ".join(view_names[v] for v in np.flatnonzero(mask[:, j]))
                             for j in order]
    return df


def sample_weights(weights, view_names, j):
    """One sample's weight in every view next to the view's median and its rank there."""
    P = np.asarray(weights, dtype=float)
    if not 0 <= int(j) < P.shape[1]:
        raise ValueError(f"Sample {j} does not exist; choose 0 to {P.shape[1] - 1}.")
    j = int(j)
    ranks = (P < P[:, [j]]).sum(axis=1)
    return pd.DataFrame({
        "view": list(view_names),
        "weight": P[:, j],
        "view median": np.median(P, axis=1),
        "percentile in view": 100.0 * ranks / P.shape[1],
    })


def weight_losses(weights, gamma):
    """The losses behind weights ``P = 1/sqrt(gamma + loss)`` (the P-step inverted).

    Per (view, sample) for RMSC; for RMSC-WV (one weight per view) every entry
    of a view's row is that view's total loss.
    """
    return loss_of_weight(weights, gamma)


def image_tiles(images, indices, *, vmax=None):
    """Sample pictures scaled to [0, 1] for ``st.image`` (a list of 2-D arrays)."""
    imgs = np.asarray(images, dtype=float)
    hi = float(vmax) if vmax is not None else float(imgs.max()) or 1.0
    lo = float(min(imgs.min(), 0.0))
    return [np.clip((imgs[int(i)] - lo) / (hi - lo), 0.0, 1.0) for i in indices]


def class_examples(labels, per_class=1, *, exclude=None):
    """The first ``per_class`` samples of every class (skipping ``exclude``), in class order."""
    labels = np.asarray(labels)
    skip = np.zeros(labels.size, dtype=bool) if exclude is None else np.asarray(exclude, bool)
    out = []
    for c in np.unique(labels):
        idx = np.flatnonzero((labels == c) & ~skip)[:per_class]
        out.extend(int(i) for i in idx)
    return out


# ---------------------------------------------------------------------------
# Downloads
# ---------------------------------------------------------------------------


def labels_csv(result, labels_true=None):
    """CSV text: sample, cluster (the chosen run) and class when known."""
    df = pd.DataFrame({"sample": np.arange(result.labels.size), "cluster": result.labels})
    if labels_true is not None:
        df["class"] = np.asarray(labels_true)
    return df.to_csv(index=False)


def weights_csv(result, view_names):
    """CSV text of P: one row per sample, one column per view."""
    df = pd.DataFrame(result.weights.T, columns=list(view_names))
    df.insert(0, "sample", np.arange(df.shape[0]))
    return df.to_csv(index=False)


def affinity_npz(result):
    """The consensus affinity as a scipy.sparse .npz file (bytes)."""
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_matrix(result.affinity))
    return buf.getvalue()


def config_json(result, dataset, outlier_spec=None):
    """The run's configuration and headline numbers as JSON text (reproducible with rmsc)."""
    params = result.params
    est = params.estimator_params(dataset)
    cfg = {
        "rmsc_version": _version(),
        "method": params.method,
        "estimator_params": est,
        "dataset": {"name": dataset.name, "fingerprint": dataset.fingerprint,
                    "n_samples": dataset.n_samples, "views": list(dataset.view_names),
                    "n_features": list(dataset.n_features)},
        "outliers": None if outlier_spec is None else dataclasses.asdict(outlier_spec),
        "result": {"n_iter": result.n_iter, "converged": result.converged,
                   "stopped_early": result.stopped_early, "fit_time_s": result.fit_time,
                   "objective_final": float(result.objective[-1]) if result.objective.size
                   else None,
                   "consensus_density": result.density, "beta_max": result.beta_max,
                   "scores": result.scores},
        "python": f"rmsc.get_method({params.method!r}, **estimator_params).fit(views)",
    }
    return json.dumps(cfg, indent=2, default=_json_default)


def _version():
    from . import __version__

    return __version__


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, tuple):
        return list(obj)
    return str(obj)


# ---------------------------------------------------------------------------
# Experiments on demand (Compare and Sensitivity pages), via rmsc.experiments
# ---------------------------------------------------------------------------

#: The Compare page's default selection (issue 5): RMSC against its ablation and the average.
DEFAULT_COMPARE = ("RMSC", "RMSC-WV", "SSC-AVG")
#: The paper's Figure 1 compares these as views are added.
DEFAULT_VIEWS_METHODS = ("RMSC", "RMSC-WV", "SSC-AVG")
#: Default (lambda, beta) grid of the sensitivity page (around the defaults; 5 x 5 fits).
DEFAULT_SENSITIVITY_LAMS = (0.03, 0.1, 0.3, 1.0, 3.0)
DEFAULT_SENSITIVITY_BETAS = (0.03, 0.1, 0.3, 1.0, 3.0)


def rmsc_method_params(params, dataset):
    """``{method: {...}}`` for rmsc.experiments: the Solve page's settings for RMSC or RMSC-WV.

    The other of the two keeps its registry defaults (its useful beta differs).
    """
    est = params.estimator_params(dataset)
    est.pop("n_clusters")
    est.pop("random_state")
    return {params.method: est}


def _progress_into(job, offset, total, prefix):
    if job is None:
        return None

    def progress(done, _total, message):
        job.report(offset + done, total, f"{prefix}{message}")

    return progress


def run_compare(variants, methods, params=None, random_state=0, job=None):
    """:func:`rmsc.experiments.compare` on every dataset variant (e.g. clean / with outliers).

    Parameters
    ----------
    variants : dict of str -> MultiViewDataset
    methods : list of str
    params : dict or None
        ``{method: {parameter: value}}``.
    job : Job or None
        Receives the progress of all variants as one bar; cancelling stops between fits.

    Returns
    -------
    dict of str -> pandas.DataFrame (one compare table per variant, same order).
    """
    from . import experiments

    if not methods:
        raise ValueError("Choose at least one method to compare.")
    total = len(variants) * len(methods)
    out = {}
    for k, (name, data) in enumerate(variants.items()):
        prefix = f"{name} — " if len(variants) > 1 else ""
        out[name] = experiments.compare(
            data, list(methods), params=params, random_state=random_state,
            progress=_progress_into(job, k * len(methods), total, prefix))
    return out


def run_sensitivity(dataset, lams, betas, method="RMSC", params=None, random_state=0, job=None):
    """:func:`rmsc.experiments.sensitivity_grid` with progress reported to ``job``."""
    from . import experiments

    total = len(lams) * len(betas)
    return experiments.sensitivity_grid(dataset, list(lams), list(betas), method=method,
                                        params=params, random_state=random_state,
                                        progress=_progress_into(job, 0, total, ""))


def run_views(dataset, methods, params=None, random_state=0, job=None):
    """:func:`rmsc.experiments.accuracy_vs_views` with progress reported to ``job``."""
    from . import experiments

    if not methods:
        raise ValueError("Choose at least one method.")
    total = len(methods) * dataset.n_views
    return experiments.accuracy_vs_views(dataset, list(methods), params=params,
                                         random_state=random_state,
                                         progress=_progress_into(job, 0, total, ""))


def _pm(mean, std):
    if mean is None or not np.isfinite(mean):
        return "—"
    return f"{100 * mean:.2f} ± {100 * std:.2f}"


def compare_display(df):
    """A compare table as the page shows it: ACC/NMI 'mean ± std' in %, ARI, purity, time."""
    rows = []
    for rec in df.to_dict("records"):
        rows.append({
            "method": rec["method"],
            "ACC %": _pm(rec["acc_mean"], rec["acc_std"]),
            "NMI %": _pm(rec["nmi_mean"], rec["nmi_std"]),
            "ARI %": np.nan if not np.isfinite(rec["ari_mean"]) else 100 * rec["ari_mean"],
            "purity %": (np.nan if not np.isfinite(rec["purity_mean"])
                         else 100 * rec["purity_mean"]),
            "time s": rec["fit_time"],
            "note": rec.get("error") or rec.get("note") or "",
        })
    return pd.DataFrame(rows)


def robustness_table(tables, metric="acc"):
    """One row per method: the metric on each variant and the change (points of %)."""
    names = list(tables)
    merged = None
    for name in names:
        part = tables[name][["method", f"{metric}_mean"]].rename(
            columns={f"{metric}_mean": f"{name} %"})
        part[f"{name} %"] = 100 * part[f"{name} %"]
        merged = part if merged is None else merged.merge(part, on="method", how="outer")
    if len(names) == 2:
        merged["change (points)"] = merged[f"{names[1]} %"] - merged[f"{names[0]} %"]
    return merged


def estimate_seconds(n_fits, fit_seconds):
    """A rough duration for ``n_fits`` fits, each about ``fit_seconds`` long, as text."""
    total = n_fits * max(float(fit_seconds), 0.1)
    if total < 90:
        return f"about {total:.0f} s"
    return f"about {total / 60:.0f} min"
