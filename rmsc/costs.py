"""How long a fit will take: the per-method cost model (a floor below the dashboard and the reproduction).

The dashboard's buttons say how long their fits will take (:mod:`rmsc.dashboard.estimates`
prefers measured durations and falls back on this model), and the reproduction sends its
longest groups of fits first (:mod:`rmsc.experiments.parallel`). Each method's cost follows
from its algorithm (:func:`predict`), in multiply-adds at this machine's measured speed
(:func:`probe_seconds`: a small single-threaded matrix product, timed now, so a slower or
busier machine gives longer estimates). With n samples, views of d_v features (factor rank
r_v = min(d_v, n)) and c clusters, the models of :data:`COST_MODELS`, which a method's
:class:`rmsc.methods.MethodSpec` names (``cost``):

* ``"rmsc"`` (RMSC, RMSC-WV): iterations x n^2 (sum_v r_v + const) (the Z*-step's dense
  product and its element-wise passes; placement searches neighbors only for the few
  samples the consensus isolates, left out);
* ``"ssc"`` (SSC-AVG, SSC-BSV): per view, ADMM iterations (``max_iter``: on Digit every
  view runs them all) x n^2 (r_v + const);
* ``"dimsc"``: the SSC start plus its diversity sweeps (dense n x n ADMMs per view; between
  one and ``outer_iter`` sweeps, the geometric mean of the two in the middle);
* ``"graph"`` (SC-BSV, MSC, Co-*): k-NN graphs (n^2 sum_v d_v) and their eigensolvers
  (n^3 below 600 samples, else Lanczos);
* every method: the spectral step (eigenvectors plus k-means 20 times), once per view for
  the methods that cluster every view (``per_view``).

The constants multiplying those counts live in :mod:`rmsc._costs`, written by
``tools/calibrate_costs.py`` (on synthetic data, so that the bundled sets check the
model out of sample: ``benchmarks/bench_estimates.py --per-method``): first each kernel alone (one
iteration, the spectral step, ...), then one scale and offset per method so that the sum
matches whole fits as the Compare page runs them (validation, scaling, the protocol's
scoring). Iteration counts the model cannot know (RMSC stops on a tolerance) give a range:
from typical to ``max_iter``. RMSC's come from its stopping rule as set (:func:`rmsc_iterations`:
counts measured on the bundled datasets for each model, rule and tolerance, times how they
move with λ, :func:`lam_iteration_ratio`, capped by ``max_iter``; docs/measurements.md). A method without a model (``cost=None``, a name not in
:data:`COST_MODELS`, or a model that does not cover it: :meth:`CostModel.covers`) raises
here (:func:`has_model` says so beforehand); the dashboard then estimates it from measured
durations only.

:class:`Estimate` carries a low / middle / high number of seconds and whether all of it
was measured; :meth:`Estimate.text` says it in words ("about 40 s", or "about 1–3 min" when
part is modelled).

Why one module past 600 lines: the speed probe, the work counts, the iteration counts and
the models that combine them are one calculation with one set of constants
(:mod:`rmsc._costs`), read top to bottom beside ``tools/calibrate_costs.py``, which fits it.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

from . import _costs
from .methods import find_spec
from .rmsc import default_lam
from .spectral import _DENSE_EIGH_MAX, N_KMEANS_RUNS  # the spectral step's eigensolver switch

#: Side of the square matrices of the speed probe (one product: PROBE_SIZE^3 multiply-adds).
PROBE_SIZE = 256

#: A probe result is reused this long (s); the probe itself takes a few milliseconds.
PROBE_TTL = 30.0


_probe_lock = threading.Lock()
_probe_cache = {"t": -1e9, "seconds": None}


def probe_seconds(refresh=False):
    """Seconds of one single-threaded PROBE_SIZE^3 float64 product on this machine, now.

    The median of five repetitions, so a busy machine (fits running beside) reads slower,
    as its fits will run. Reused for :data:`PROBE_TTL` seconds.
    """
    with _probe_lock:
        now = time.monotonic()
        if not refresh and _probe_cache["seconds"] is not None \
                and now - _probe_cache["t"] < PROBE_TTL:
            return _probe_cache["seconds"]
        rng = np.random.default_rng(0)
        a = rng.standard_normal((PROBE_SIZE, PROBE_SIZE))
        b = rng.standard_normal((PROBE_SIZE, PROBE_SIZE))
        times = []
        with threadpool_limits(limits=1):
            a @ b  # warm-up
            for _ in range(5):
                t0 = time.perf_counter()
                a @ b
                times.append(time.perf_counter() - t0)
        seconds = float(np.median(times))
        _probe_cache.update(t=time.monotonic(), seconds=seconds)
        return seconds


#: Ratios of fits' measured idle seconds to the model's at the fastest probe (newest last):
#: the model's speed as this machine's fits showed it (:func:`calibrate_speed`).
_speed_ratios = []
SPEED_RATIOS = 8


def calibrate_speed(ratio):
    """Remember that a fit took ``ratio`` times the model's seconds at the fastest probe
    (on an idle machine: its duration divided by the load's slowdown); the newest
    :data:`SPEED_RATIOS` count (:func:`fastest_probe_seconds`)."""
    ratio = float(ratio)
    if ratio > 0 and np.isfinite(ratio):
        with _probe_lock:
            _speed_ratios.append(ratio)
            del _speed_ratios[:-SPEED_RATIOS]


def fastest_probe_seconds(calibrated=True):
    """The fastest :func:`probe_seconds` this process has read (one taken now if due): the
    machine's speed when its cores are free; ``calibrated``: times the median of the fits'
    ratios to the model (:func:`calibrate_speed`), so that the model speaks in the fits'
    seconds. The dashboard counts the load apart (:func:`rmsc.dashboard.plan`), so a probe
    slowed by a busy moment would count it twice, and noisily."""
    now = probe_seconds()
    with _probe_lock:
        fastest = _probe_cache.get("fastest")
        if fastest is None or now < fastest:
            _probe_cache["fastest"] = fastest = now
        scale = float(np.median(_speed_ratios)) if calibrated and _speed_ratios else 1.0
        return fastest * scale


def unit_seconds(probe=None):
    """Seconds of one multiply-add at the probe's speed (``probe`` s per PROBE_SIZE^3)."""
    probe = probe_seconds() if probe is None else float(probe)
    return probe / float(PROBE_SIZE) ** 3


# ---------------------------------------------------------------------------
# The data's shape
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DataShape:
    """What a method's cost depends on in the data.

    Attributes
    ----------
    n_samples : int
    n_features : tuple of int
        d_v per view.
    nnz : tuple of int
        Stored entries per view (n x d_v for a dense view).
    n_clusters : int
    fingerprint : str
        The dataset's fingerprint ("" when unknown): the key of measured durations.
    """

    n_samples: int
    n_features: tuple
    nnz: tuple
    n_clusters: int
    fingerprint: str = ""

    @property
    def n_views(self):
        return len(self.n_features)

    @property
    def ranks(self):
        """r_v = min(d_v, n): the rows of each view's Gram factor (at most)."""
        return tuple(min(d, self.n_samples) for d in self.n_features)


def data_shape(dataset, n_views=None, n_clusters=None):
    """:class:`DataShape` of a :class:`rmsc.datasets.MultiViewDataset` (its first
    ``n_views`` views when given; then the fingerprint names that subset)."""
    views = list(dataset.views)[:n_views] if n_views else list(dataset.views)
    n = int(views[0].shape[0])
    if n_clusters is None:
        n_clusters = getattr(dataset, "n_clusters", None) or 2
    fp = str(getattr(dataset, "fingerprint", "") or "")
    if fp and n_views and n_views < len(dataset.views):
        fp = f"{fp}[{n_views}]"
    return DataShape(
        n_samples=n, n_features=tuple(int(X.shape[1]) for X in views),
        nnz=tuple(int(X.nnz) if sp.issparse(X) else int(X.shape[0] * X.shape[1]) for X in views),
        n_clusters=int(n_clusters), fingerprint=fp)


# ---------------------------------------------------------------------------
# Work counts (the algorithms' scaling) and the model
# ---------------------------------------------------------------------------


def spectral_terms(n, c):
    """Work of the shared spectral step: eigenvectors, then k-means 20 times."""
    return {
        "const": 1.0,
        "eigh": float(n) ** 3 if n <= _DENSE_EIGH_MAX else 0.0,
        "lanczos": float(n) ** 2 * (c + 1) if n > _DENSE_EIGH_MAX else 0.0,
        "kmeans": float(N_KMEANS_RUNS) * n * c * c,
    }


def criterion_terms(n, c):
    """Work of what a suggestion adds to each setting's fit (:func:`rmsc.selection.suggest_parameters`):
    its graph criterion (connected pieces, then the eigenvectors again: the spectral
    step's eigensolver without its k-means) and the agreement of the fit's k-means runs
    (one adjusted Rand index per run, each a pass over the n samples)."""
    return {
        "const": 1.0,
        "eigh": float(n) ** 3 if n <= _DENSE_EIGH_MAX else 0.0,
        "lanczos": float(n) ** 2 * (c + 1) if n > _DENSE_EIGH_MAX else 0.0,
        "runs": float(N_KMEANS_RUNS),
        "ari": float(N_KMEANS_RUNS) * n,
    }


def scoring_terms(n, c):
    """Work of scoring a fit's k-means runs against the labels (:func:`rmsc.evaluate_runs`,
    after the fit and outside its recorded duration; a suggestion scores its chosen setting
    once): per run, passes over the n samples (ACC's confusion matrix, NMI, ARI, purity)
    and the assignment of c clusters (c^3)."""
    return {"const": 1.0, "runs": float(N_KMEANS_RUNS),
            "samples": float(N_KMEANS_RUNS) * n, "assign": float(N_KMEANS_RUNS) * c ** 3}


def gram_terms(shape):
    """Work of the views' Gram factors: an eigendecomposition per view with d_v > n."""
    n = shape.n_samples
    wide = [d > n for d in shape.n_features]
    return {
        "eigh": sum(float(n) ** 3 for w in wide if w),
        "cov": sum(float(z) * n for z, w in zip(shape.nnz, wide) if w),
    }


def rmsc_iteration_terms(shape):
    """Work of one RMSC iteration: the Z*-step's (n x sum r)(sum r x n) product and n^2 passes."""
    n = float(shape.n_samples)
    return {"const": 1.0, "product": n * n * sum(shape.ranks), "passes": n * n,
            "views": n * sum(shape.ranks)}


def ssc_iteration_terms(n, r):
    """Work of one SSC-ADMM iteration on a view of rank r: one (n x r)(r x n) product, n^2 passes."""
    n = float(n)
    return {"const": 1.0, "product": n * n * r, "passes": n * n}


def knn_terms(shape):
    """Work of every view's neighbor search (distances n^2 d_v)."""
    n = float(shape.n_samples)
    return {"knn": n * n * sum(float(min(z / n, d)) for z, d in zip(shape.nnz, shape.n_features))}


def graph_terms(shape):
    """Work of a graph method beyond its spectral step: k-NN graphs and eigensolvers per view."""
    n = float(shape.n_samples)
    m = shape.n_views
    return {
        "const": 1.0,
        **knn_terms(shape),
        "eigh": m * n ** 3 if n <= _DENSE_EIGH_MAX else 0.0,
        "sparse_eig": m * n * n if n > _DENSE_EIGH_MAX else 0.0,
    }


def _dot(coefs, terms):
    return sum(float(coefs.get(k, 0.0)) * float(v) for k, v in terms.items())


@dataclass(frozen=True)
class Estimate:
    """Seconds a run will take: ``low <= mid <= high``; ``measured`` when every part was.

    ``unknown`` counts fits of the run that were neither measured nor modelled (a method
    without a cost model, before its first run): they are not in the seconds. ``guess``:
    no part was measured, the seconds are the cost model's alone (:func:`predict`).
    """

    low: float
    mid: float
    high: float
    measured: bool = False
    unknown: int = 0
    guess: bool = False

    @classmethod
    def exact(cls, seconds):
        s = float(seconds)
        return cls(s, s, s, True)

    @classmethod
    def not_known(cls):
        """One fit of unknown duration (no measurement, no model)."""
        return cls(0.0, 0.0, 0.0, False, 1, True)

    def __add__(self, other):
        return Estimate(self.low + other.low, self.mid + other.mid, self.high + other.high,
                        self.measured and other.measured, self.unknown + other.unknown,
                        self.guess and other.guess)

    def text(self):
        """The estimate in words: "about 40 s"; with a modelled part that may be far off,
        "about 40 s–2 min" (its range); fits of unknown duration are counted apart
        ("about 40 s + 1 fit of unknown time"); nothing measured yet, the cost model's
        alone: "a guess: about 40 s–2 min"."""
        if self.unknown and self.high <= 0:
            return "time unknown until it has run once"
        words = self._words()
        return f"a guess: {words}" if self.guess else words

    def _words(self):
        extra = ""
        if self.unknown:
            extra = f" + {self.unknown} fit{'s' if self.unknown > 1 else ''} of unknown time"
        if self.measured or self.high <= 1.5 * max(self.low, 1e-9):
            return f"about {format_duration(self.mid)}{extra}"
        return f"about {join_span(format_duration(self.low), format_duration(self.high))}{extra}"


#: Nothing to run (the sum of no estimates: measured and a guess alike, for ``and``).
ZERO = Estimate(0.0, 0.0, 0.0, True, 0, True)


def parallel_fraction(method):
    """The share of one fit of ``method`` that its threads split (its column blocks or views
    on :class:`rmsc.backends.LocalBlocks`), measured: ``COSTS["parallel"]``
    (``tools/calibrate_costs.py --parallel-only``); 0 for a method not in it (a fit that
    runs on one thread whatever it is given)."""
    table = _costs.COSTS.get("parallel") or {}
    return float(table.get(str(method).upper(), 0.0))


def thread_speed(threads, cores, parallel):
    """How fast a fit runs on ``threads`` threads against on ``cores`` (1: as fast), alone
    on its machine, when ``parallel`` of its one-thread time is split among its threads and
    the rest is not (Amdahl's law). A fit of which little is split is barely slower on one
    thread than on two; one split wholly takes twice as long. Seconds measured on
    ``threads`` threads times this are those on ``cores``."""
    p = min(1.0, max(0.0, float(parallel)))

    def one_thread_share(t):
        return (1.0 - p) + p / max(1, int(t))

    return one_thread_share(cores) / one_thread_share(threads)


def schedule(parts, workers=1, capacity=None, threads=None, cores=None, parallel=None):
    """The :class:`Estimate` of ``parts`` (an Estimate each: fits run one after another, e.g.
    a group that shares a solve) run side by side on ``workers`` workers.

    Longest first, each part goes to the worker that frees first (what Dask does with
    parts of equal priority submitted longest first, :class:`rmsc.dashboard.RemoteParts`).
    Every estimate is in seconds of a fit that has its machine's every core (its column
    blocks run on threads). Two ways the running parts share the machines:

    * ``threads`` (one per part) and ``cores`` given: the workers share one machine of
      ``cores`` cores and each part runs its fits on its own ``threads``
      (:func:`rmsc.dashboard.share_threads`), so a part runs at :func:`thread_speed` of its
      speed alone (``parallel``: the share of its fits its threads split, one per part,
      :func:`parallel_fraction`; required with ``threads``), and all of them slower in
      proportion when the running parts' threads outnumber the cores.
    * else ``capacity``: how many parts run at full speed at once (None: ``workers``;
      the machines of a cluster elsewhere, whose fits use every core of theirs): with
      ``k`` parts running each runs at ``min(1, capacity / k)`` of its speed.

    The run ends with its last part. Low, middle and high are scheduled each on their own;
    ``measured``, ``unknown`` and ``guess`` are those of the sum.
    """
    parts = list(parts)
    workers = max(1, int(workers))
    capacity = float(workers if capacity is None else min(max(capacity, 1), workers))
    shared = threads is not None and cores
    widths = [max(1, int(t)) for t in threads] if shared else [1] * len(parts)
    if shared and (parallel is None or len(parallel) != len(parts)):
        raise ValueError("schedule: parts on shared cores need their parallel fractions "
                         "(rmsc.costs.parallel_fraction), one per part")
    alone = ([thread_speed(w, cores, f) for w, f in zip(widths, parallel)] if shared
             else [1.0] * len(parts))

    def rates(running):
        if shared:
            total = sum(w for _, w, _ in running)
            return [a * min(1.0, cores / total) for _, w, a in running]
        return [min(1.0, capacity / len(running))] * len(running)

    def makespan(seconds):
        # (seconds of work at full speed, threads, speed alone) per part, longest first
        waiting = sorted(((s, w, a) for s, w, a in zip(seconds, widths, alone) if s > 0),
                         key=lambda p: -p[0])
        running, now = [], 0.0
        while waiting or running:
            while waiting and len(running) < workers:
                running.append(waiting.pop(0))
            rate = rates(running)
            step = min(r / v for (r, _, _), v in zip(running, rate))
            now += step
            running = [(r - step * v, w, a) for (r, w, a), v in zip(running, rate)
                       if r - step * v > 1e-12]
        return now

    total = sum(parts, ZERO)
    return Estimate(makespan([p.low for p in parts]), makespan([p.mid for p in parts]),
                    makespan([p.high for p in parts]), total.measured, total.unknown,
                    total.guess)


def format_duration(seconds):
    """Seconds as a rounded duration: "3 s", "40 s", "2 min", "1.5 h"."""
    s = max(float(seconds), 0.0)
    if s < 10:
        return f"{max(s, 1):.0f} s"
    if s < 90:
        return f"{round(s / 5) * 5:.0f} s" if s >= 20 else f"{s:.0f} s"
    if s < 90 * 60:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def join_span(low, high):
    """Two durations in words as one range, the unit said once where both share it:
    ("3 min", "6 min") -> "3–6 min", ("40 s", "2 min") -> "40 s–2 min", equal ones once."""
    if low == high:
        return low
    lo_unit, hi_unit = low.split()[-1], high.split()[-1]
    if lo_unit == hi_unit:
        low = low[: -len(lo_unit) - 1]
    return f"{low}–{high}"


# ---------------------------------------------------------------------------
# The cost models a method's spec names
# ---------------------------------------------------------------------------


def lam_iteration_ratio(lam, weighting="sample"):
    """How many times the iterations of RMSC at its default λ (of ``weighting``:
    :func:`rmsc.rmsc.default_lam`) a fit at ``lam`` takes.

    ``COSTS["rmsc_lam_iters"]`` (``tools/calibrate_costs.py --lam-only``: {λ / default: the
    median ratio of the iterations measured on the bundled datasets}), interpolated in
    log(λ / default) between the measured factors and held at the nearest one outside
    them; 1 for ``lam`` None (the default) or without that table. β is left out (not
    measured yet).
    """
    table = _costs.COSTS.get("rmsc_lam_iters")
    if lam is None or not table:
        return 1.0
    ref = default_lam(weighting)
    if not (float(lam) > 0 and ref > 0):
        return 1.0
    factors = sorted(table)
    x = np.log(np.clip(float(lam) / ref, factors[0], factors[-1]))
    return float(np.interp(x, np.log(factors), [table[f] for f in factors]))


def rmsc_iterations(params):
    """``(low, typical, high)`` iterations of an RMSC fit with these parameters.

    The counts measured by ``tools/calibrate_costs.py`` (``COSTS["rmsc_iters"]``:
    per model, "paper" when ``loss_scale`` is None else "scaled", per stopping rule
    ``stop_on`` and per tolerance, the fewest and the median iterations of RMSC and
    RMSC-WV on the bundled datasets), interpolated in log ``tol`` between the measured
    tolerances (held at the nearest one outside them), times the λ's
    :func:`lam_iteration_ratio` (the counts are the default λ's), each capped by
    ``max_iter``, which is the high end. ``tol <= 0`` never stops early: ``max_iter`` all
    three.
    """
    max_iter = int(params["max_iter"])
    tol = float(params["tol"])
    if tol <= 0:
        return max_iter, max_iter, max_iter
    model = "paper" if params.get("loss_scale") is None else "scaled"
    table = _costs.COSTS["rmsc_iters"][model][params.get("stop_on") or "zstar"]
    tols = sorted(table)
    x = np.log(np.clip(tol, tols[0], tols[-1]))
    xs = np.log(tols)
    ratio = lam_iteration_ratio(params.get("lam"), params.get("weighting") or "sample")
    low, typical = (ratio * float(np.interp(x, xs, [table[t][k] for t in tols]))
                    for k in ("min", "typical"))
    return min(max_iter, low), min(max_iter, typical), max_iter


class CostModel:
    """What a cost model answers (a spec's ``cost`` may be any object that does).

    ``parts(spec, shape, params, defaults)``: the work of one fit in multiply-add units,
    ``{part: (low, mid, high)}``; ``calibration(spec)``: the key of its whole-fit scale and
    offset in ``COSTS["fit"]`` (none: 1 and 0); ``covers(spec)``: whether it can model that
    method at all (a model whose constants are per method has none for a method registered
    after the calibration: :func:`has_model` is then False, and the estimates use measured
    durations only).
    """

    def covers(self, spec):
        return True

    def calibration(self, spec):
        return spec.name.upper()


class RMSCCost(CostModel):
    """Algorithm 1: its iterations (a range: the tolerance stop, :func:`rmsc_iterations`),
    the Gram factors, the spectral step."""

    def parts(self, spec, shape, params, defaults):
        c = _costs.COSTS
        low, typical, max_iter = rmsc_iterations(params)
        per_iter = _dot(c["rmsc_iter"], rmsc_iteration_terms(shape))
        extra = c["rmsc_extra_iters"]  # the initialization and beta_max's product
        return {"iterations": tuple(per_iter * (i + extra) for i in (low, typical, max_iter)),
                "setup": (_gram(shape),) * 3,
                "spectral": (_spectral(shape, spec),) * 3}


class SSCCost(CostModel):
    """SSC's ADMM on every view (a range: the tolerance stop), the Gram factors, the
    spectral step."""

    def parts(self, spec, shape, params, defaults):
        c = _costs.COSTS
        n = shape.n_samples
        max_iter = int(params["max_iter"])
        per_iter = sum(_dot(c["ssc_iter"], ssc_iteration_terms(n, r)) for r in shape.ranks)
        extra = c["ssc_extra_iters"]  # coherence (auto beta) and the factorizations
        low = c["ssc_low_fraction"] if float(params["tol"]) > 0 else 1.0
        return {"ssc": (per_iter * (max_iter * low + extra), per_iter * (max_iter + extra),
                        per_iter * (max_iter + extra)),
                "setup": (_gram(shape),) * 3,
                "spectral": (_spectral(shape, spec),) * 3}


class DiMSCCost(SSCCost):
    """DiMSC: the SSC start, then its diversity sweeps (between one and ``outer_iter``)."""

    def parts(self, spec, shape, params, defaults):
        parts = super().parts(spec, shape, params, defaults)
        lam = float(params["lam"])
        if lam > 0 and shape.n_views > 1:
            n, sweeps = shape.n_samples, int(params["outer_iter"])
            per_sweep = sum(_dot(_costs.COSTS["dimsc_sweep"], ssc_iteration_terms(n, r))
                            for r in shape.ranks) * int(params["max_iter"]) / 200.0
            # sweeps: between one and outer_iter; the middle is their geometric mean
            parts["diversity"] = tuple(per_sweep * s for s in (1, np.sqrt(sweeps), sweeps))
        return parts

    def calibration(self, spec):
        """DiMSC's SSC start is SSC-AVG's fit without its clustering: SSC-AVG's whole-fit
        terms."""
        return "SSC-AVG"


class GraphCost(CostModel):
    """The graph methods: k-NN graphs and eigensolvers per view (constants per method, for
    its default ``max_iter`` when it iterates), the spectral step. A method without
    constants of its own (registered after ``tools/calibrate_costs.py`` ran) is not
    covered."""

    def covers(self, spec):
        return spec.name.upper() in _costs.COSTS.get("graph", {})

    def parts(self, spec, shape, params, defaults):
        c = _costs.COSTS
        coefs = c["graph"][spec.name.upper()]
        work = _dot(coefs, graph_terms(shape))
        if "max_iter" in defaults:  # the constants are for the default number of rounds
            ratio = int(params["max_iter"]) / defaults["max_iter"]
            work = coefs.get("const", 0.0) + (work - coefs.get("const", 0.0)) * ratio
        spread = c["graph_spread"]
        return {"graph": (work / spread, work, work * spread),
                "spectral": (_spectral(shape, spec),) * 3}


#: The cost models a :class:`rmsc.methods.MethodSpec` may name (``cost="rmsc"``, ...).
COST_MODELS = {"rmsc": RMSCCost(), "ssc": SSCCost(), "dimsc": DiMSCCost(),
               "graph": GraphCost()}


def _spectral(shape, spec):
    """The spectral step's work: once, or once per view (``spec.per_view``)."""
    work = _dot(_costs.COSTS["spectral"], spectral_terms(shape.n_samples, shape.n_clusters))
    return work * (shape.n_views if spec.per_view else 1)


def _gram(shape):
    return _dot(_costs.COSTS["gram"], gram_terms(shape))


def _model(method):
    """``(spec, cost model)`` of ``method``; ValueError when there is no model: the spec
    names none, a name not in :data:`COST_MODELS`, or a model that does not cover it
    (:meth:`CostModel.covers`)."""
    spec = find_spec(method)
    model = None if spec is None else spec.cost
    if isinstance(model, str):
        model = COST_MODELS.get(model)
    if model is None:
        raise ValueError(f"No cost model for the method {method!r}.")
    covers = getattr(model, "covers", None)
    if covers is not None and not covers(spec):
        raise ValueError(f"The cost model of {method!r} has no constants for it (run "
                         "tools/calibrate_costs.py --write to measure them).")
    return spec, model


def has_model(method):
    """Whether :func:`predict` can model ``method`` (its spec names a cost model)."""
    try:
        _model(method)
    except ValueError:
        return False
    return True


#: Parameters for which None is a setting, not "the default": ``loss_scale=None`` is the
#: paper's model (:data:`rmsc.rmsc.PAPER_MODEL`), whose iteration counts differ.
NONE_IS_A_SETTING = ("loss_scale",)


def model_parts(method, shape, params=None):
    """The model's cost of one fit in multiply-add units, as ``{part: (low, mid, high)}``.

    ``low``/``high`` differ from ``mid`` where an iteration count is not known before
    the fit (RMSC's tolerance stop, MSC, DiMSC's sweeps); see the module docstring.
    Parameters not given (or None, except those of :data:`NONE_IS_A_SETTING`) are the
    method's registry defaults.
    """
    spec, model = _model(method)
    defaults = spec.make().get_params()
    given = {k: v for k, v in (params or {}).items()
             if v is not None or (k in NONE_IS_A_SETTING and k in defaults)}
    return model.parts(spec, shape, {**defaults, **given}, defaults)


def predict_criterion(shape, probe=None):
    """The model's :class:`Estimate` of what a suggestion adds to each setting's fit on data
    of ``shape`` (:func:`criterion_terms`, constants ``COSTS["criterion"]`` from
    ``tools/calibrate_costs.py --criterion-only``): 0 s without those constants.
    ``probe`` as :func:`predict`'s."""
    return _predict_extra("criterion", criterion_terms(shape.n_samples, shape.n_clusters),
                          probe)


def predict_scoring(shape, probe=None, times=1):
    """The model's :class:`Estimate` of scoring a fit's k-means runs ``times`` times (once,
    or once per view for a method that clusters every view) on data of ``shape``
    (:func:`scoring_terms`, constants ``COSTS["scoring"]``, from the same run of
    ``tools/calibrate_costs.py --criterion-only``): 0 s without those constants."""
    return _predict_extra("scoring", scoring_terms(shape.n_samples, shape.n_clusters),
                          probe, times)


def _predict_extra(name, terms, probe, times=1):
    """Seconds of a part beside a fit (``COSTS[name]`` times ``terms``), as an
    :class:`Estimate` with :data:`ZERO`'s flags: added to a fit's estimate it keeps that
    estimate's ``measured`` and ``guess`` (what the fit rests on, which the button's learned
    pace is filed under)."""
    coefs = _costs.COSTS.get(name)
    s = unit_seconds(probe) * _dot(coefs, terms) * times if coefs else 0.0
    return Estimate(s, s, s, ZERO.measured, ZERO.unknown, ZERO.guess)


def predict(method, shape, params=None, probe=None):
    """The model's :class:`Estimate` of one fit of ``method`` on data of ``shape``.

    Parameters
    ----------
    method : str
        A name of :func:`rmsc.available_methods` whose spec names a cost model.
    shape : DataShape
    params : dict or None
        The method's parameters where they matter (``max_iter``, ``placement``, ...).
    probe : float or None
        :func:`probe_seconds` (measured now when None).

    Raises
    ------
    ValueError
        When the method has no cost model (:func:`has_model`).
    """
    unit = unit_seconds(probe)
    spec, model = _model(method)
    parts = model_parts(method, shape, params)
    calibration = getattr(model, "calibration", None)
    key = calibration(spec) if calibration is not None else spec.name.upper()
    fit = _costs.COSTS.get("fit", {}).get(key, {})
    scale, offset = fit.get("scale", 1.0), fit.get("offset", 0.0)
    diversity = parts.pop("diversity", (0.0, 0.0, 0.0))
    low, mid, high = (unit * (offset + scale * sum(p[i] for p in parts.values())
                              + diversity[i]) for i in range(3))
    return Estimate(low, mid, high, False, guess=True)
