"""How long a Compare / Sensitivity run will take: a cost model per method, and what was measured.

A button that starts many fits says how long they will take. Two sources, the better first:

1. **Measured** (:class:`CostBook`): every finished Compare / Sensitivity / views run reports
   each fit's duration (the ``fit_time`` column of :mod:`rmsc.experiments.tables`); the
   dashboard records them by dataset fingerprint, method and parameters. A fit of the same
   method on the same data with the same parameters is predicted by its own duration; with
   other parameters (a sensitivity grid, another seed) by the median of that method's
   durations on those data.
2. **Modelled** (:func:`predict`): each method's cost follows from its algorithm, in
   multiply-adds at this machine's measured speed (:func:`probe_seconds`: a small
   single-threaded matrix product, timed in the server now, so a slower or busier machine
   gives longer estimates). With n samples, views of d_v features (factor rank
   r_v = min(d_v, n)) and c clusters:

   * RMSC / RMSC-WV: iterations x n^2 (sum_v r_v + const) (the Z*-step's dense product and
     its element-wise passes; placement searches neighbours only for the few samples the
     consensus isolates, left out);
   * SSC-AVG / SSC-BSV: per view, ADMM iterations (``max_iter``: on Digit every view runs
     them all) x n^2 (r_v + const);
   * DiMSC: the SSC start plus its diversity sweeps (dense n x n ADMMs per view; between one
     and ``outer_iter`` sweeps, the geometric mean of the two in the middle);
   * the graph methods (SC-BSV, MSC, Co-*): k-NN graphs (n^2 sum_v d_v) and their
     eigensolvers (n^3 below 600 samples, else Lanczos);
   * every method: the spectral step (eigenvectors plus k-means 20 times).

   The constants multiplying those counts live in :mod:`rmsc.dashboard._costs`, written by
   ``benchmarks/calibrate_costs.py`` (on synthetic data, so that the bundled sets check the
   model out of sample: ``benchmarks/bench_estimates.py``): first each kernel alone (one
   iteration, the spectral step, ...), then one scale and offset per method so that the
   sum matches whole fits as the Compare page runs them (validation, scaling, the
   protocol's scoring). Iteration counts the model
   cannot know (RMSC stops on a tolerance) give a range: from typical to ``max_iter``.

:class:`Estimate` carries a low / middle / high number of seconds and whether all of it
was measured; :meth:`Estimate.text` says it in words ("about 40 s", or "about 1–3 min" when
part is modelled).
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..spectral import _DENSE_EIGH_MAX  # where the spectral step switches eigensolvers
from . import _costs

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
    from threadpoolctl import threadpool_limits

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
    from ..spectral import N_KMEANS_RUNS

    return {
        "const": 1.0,
        "eigh": float(n) ** 3 if n <= _DENSE_EIGH_MAX else 0.0,
        "lanczos": float(n) ** 2 * (c + 1) if n > _DENSE_EIGH_MAX else 0.0,
        "kmeans": float(N_KMEANS_RUNS) * n * c * c,
    }


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
    """Work of every view's neighbour search (distances n^2 d_v)."""
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


def _param(params, name, method):
    """``params[name]``, else the method's registry default (one source for defaults)."""
    from ..methods import get_method

    value = (params or {}).get(name)
    return get_method(method).get_params()[name] if value is None else value


@dataclass(frozen=True)
class Estimate:
    """Seconds a run will take: ``low <= mid <= high``; ``measured`` when every part was."""

    low: float
    mid: float
    high: float
    measured: bool = False

    @classmethod
    def exact(cls, seconds):
        s = float(seconds)
        return cls(s, s, s, True)

    def __add__(self, other):
        return Estimate(self.low + other.low, self.mid + other.mid, self.high + other.high,
                        self.measured and other.measured)

    def text(self):
        """The estimate in words: "about 40 s"; with a modelled part that may be far off,
        "about 40 s–2 min" (its range)."""
        if self.measured or self.high <= 1.5 * max(self.low, 1e-9):
            return f"about {format_duration(self.mid)}"
        low, high = format_duration(self.low), format_duration(self.high)
        if low == high:
            return f"about {low}"
        lo_unit, hi_unit = low.split()[-1], high.split()[-1]
        if lo_unit == hi_unit:
            low = low[: -len(lo_unit) - 1]
        return f"about {low}–{high}"


ZERO = Estimate(0.0, 0.0, 0.0, True)


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


def model_parts(method, shape, params=None):
    """The model's cost of one fit in multiply-add units, as ``{part: (low, mid, high)}``.

    ``low``/``high`` differ from ``mid`` where an iteration count is not known before
    the fit (RMSC's tolerance stop, MSC, DiMSC's sweeps); see the module docstring.
    """
    name = str(method).upper()
    c = _costs.COSTS
    n, k = shape.n_samples, shape.n_clusters
    spectral = _dot(c["spectral"], spectral_terms(n, k))
    gram = _dot(c["gram"], gram_terms(shape))
    parts = {}
    if name in ("RMSC", "RMSC-WV"):
        max_iter = int(_param(params, "max_iter", name))
        if float(_param(params, "tol", name)) > 0:
            low, typical = min(max_iter, c["rmsc_min_iters"]), min(max_iter,
                                                                    c["rmsc_typical_iters"])
        else:  # no tolerance stop: every iteration runs
            low = typical = max_iter
        per_iter = _dot(c["rmsc_iter"], rmsc_iteration_terms(shape))
        extra = c["rmsc_extra_iters"]  # the initialisation and beta_max's product
        parts["iterations"] = tuple(per_iter * (i + extra) for i in (low, typical, max_iter))
        parts["setup"] = (gram,) * 3
        parts["spectral"] = (spectral,) * 3
    elif name in ("SSC-AVG", "SSC-BSV", "DIMSC"):
        max_iter = int(_param(params, "max_iter", name))
        per_iter = sum(_dot(c["ssc_iter"], ssc_iteration_terms(n, r)) for r in shape.ranks)
        extra = c["ssc_extra_iters"]  # coherence (auto beta) and the factorisations
        low = c["ssc_low_fraction"] if float(_param(params, "tol", name)) > 0 else 1.0
        parts["ssc"] = (per_iter * (max_iter * low + extra),
                        per_iter * (max_iter + extra), per_iter * (max_iter + extra))
        parts["setup"] = (gram,) * 3
        n_spectral = shape.n_views if name == "SSC-BSV" else 1
        parts["spectral"] = (spectral * n_spectral,) * 3
        if name == "DIMSC":
            lam = float(_param(params, "lam", name))
            if lam > 0 and shape.n_views > 1:
                sweeps = int(_param(params, "outer_iter", name))
                per_sweep = sum(_dot(c["dimsc_sweep"], ssc_iteration_terms(n, r))
                                for r in shape.ranks) * max_iter / 200.0
                # sweeps: between one and outer_iter; the middle is their geometric mean
                parts["diversity"] = tuple(per_sweep * s for s in (1, np.sqrt(sweeps), sweeps))
    elif name in ("SC-BSV", "MSC", "CO-PAIRWISE", "CO-CENTROID", "CO-TRAINING"):
        coefs = c["graph"][name]
        work = _dot(coefs, graph_terms(shape))
        if name in ("MSC", "CO-PAIRWISE", "CO-CENTROID", "CO-TRAINING"):
            default = _param(None, "max_iter", name)  # the constants are for the default
            ratio = int(_param(params, "max_iter", name)) / default
            work = coefs.get("const", 0.0) + (work - coefs.get("const", 0.0)) * ratio
        spread = c["graph_spread"]
        parts["graph"] = (work / spread, work, work * spread)
        n_spectral = shape.n_views if name == "SC-BSV" else 1
        parts["spectral"] = (spectral * n_spectral,) * 3
    else:
        raise ValueError(f"No cost model for the method {method!r}.")
    return parts


def predict(method, shape, params=None, probe=None):
    """The model's :class:`Estimate` of one fit of ``method`` on data of ``shape``.

    Parameters
    ----------
    method : str
        A name of :func:`rmsc.available_methods`.
    shape : DataShape
    params : dict or None
        The method's parameters where they matter (``max_iter``, ``placement``, ...).
    probe : float or None
        :func:`probe_seconds` (measured now when None).
    """
    unit = unit_seconds(probe)
    parts = model_parts(method, shape, params)
    name = str(method).upper()
    # DiMSC's SSC start is SSC-AVG's fit without its clustering: SSC-AVG's whole-fit terms
    fit = _costs.COSTS.get("fit", {}).get("SSC-AVG" if name == "DIMSC" else name, {})
    scale, offset = fit.get("scale", 1.0), fit.get("offset", 0.0)
    diversity = parts.pop("diversity", (0.0, 0.0, 0.0))
    low, mid, high = (unit * (offset + scale * sum(p[i] for p in parts.values())
                              + diversity[i]) for i in range(3))
    return Estimate(low, mid, high, False)


# ---------------------------------------------------------------------------
# Measured durations
# ---------------------------------------------------------------------------


def params_key(params):
    """A stable text key for a parameter dict (None and {} are the same)."""
    return json.dumps(dict(params or {}), sort_keys=True, default=str)


class CostBook:
    """Durations of finished fits, by (dataset fingerprint, method, parameters); thread-safe.

    The dashboard keeps one for the server (every session's runs teach every estimate).
    At most ``max_per_method`` durations are kept per (fingerprint, method), newest last.
    """

    def __init__(self, max_per_method=64):
        self.max_per_method = int(max_per_method)
        self._lock = threading.Lock()
        self._items = {}

    def record(self, fingerprint, method, params, seconds):
        """Remember that ``method`` with ``params`` took ``seconds`` on the data ``fingerprint``.

        A newer duration of the same setting replaces the older one."""
        try:
            seconds = float(seconds)
        except (TypeError, ValueError):
            return
        if not fingerprint or not np.isfinite(seconds) or seconds < 0:
            return
        key = (str(fingerprint), str(method).upper())
        pk = params_key(params)
        with self._lock:
            rows = self._items.setdefault(key, {})
            rows.pop(pk, None)
            rows[pk] = seconds
            while len(rows) > self.max_per_method:
                rows.pop(next(iter(rows)))

    def lookup(self, fingerprint, method, params=None):
        """``(seconds, exact)``: the duration with these parameters (exact=True), else the
        median over the method's settings measured on these data (exact=False), else
        ``(None, False)``."""
        key = (str(fingerprint), str(method).upper())
        with self._lock:
            rows = dict(self._items.get(key, {}))
        if not rows:
            return None, False
        pk = params_key(params)
        if pk in rows:
            return rows[pk], True
        return float(np.median(list(rows.values()))), False

    def __len__(self):
        with self._lock:
            return sum(len(v) for v in self._items.values())


#: Methods that run the same solves, so that one's measured duration on some data stands
#: for the other's until that one is measured too: RMSC and RMSC-WV (the same block
#: descent; the weighting changes the P-step only), SSC-AVG and SSC-BSV (the same per-view
#: SSC solves; BSV clusters each view).
SAME_COST = {"RMSC": "RMSC-WV", "RMSC-WV": "RMSC", "SSC-AVG": "SSC-BSV", "SSC-BSV": "SSC-AVG"}


def estimate_fit(method, shape, params=None, book=None, probe=None):
    """One fit's :class:`Estimate`: measured when ``book`` has this method on these data, else
    the model's.

    A duration with the same parameters counts as measured. One with other parameters
    (another λ, β or seed), or of a method that runs the same solves (:data:`SAME_COST`),
    is the middle of a range that also spans the model's, since iteration counts move with
    the parameters.
    """
    if book is not None and shape.fingerprint:
        seconds, exact = book.lookup(shape.fingerprint, method, params)
        if seconds is None and str(method).upper() in SAME_COST:
            seconds, _ = book.lookup(shape.fingerprint, SAME_COST[str(method).upper()])
            exact = False
        if seconds is not None:
            if exact:
                return Estimate.exact(seconds)
            model = predict(method, shape, params, probe)
            return Estimate(min(seconds, model.low), seconds, max(seconds, model.high), False)
    return predict(method, shape, params, probe)


def method_params(params, method):
    """The parameters for ``method`` in a ``{method: {...}}`` dict (case-insensitive)."""
    for key, value in (params or {}).items():
        if str(key).lower() == str(method).lower():
            return dict(value or {})
    return {}


def estimate_compare(variants, methods, params=None, book=None, probe=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.run_compare` (every method on every variant).

    Parameters
    ----------
    variants : dict of str -> MultiViewDataset
    methods : list of str
    params : dict or None
        ``{method: {parameter: value}}`` as passed to the run.
    book : CostBook or None
    probe : float or None
    """
    probe = probe_seconds() if probe is None else probe
    total = ZERO
    for data in variants.values():
        shape = data_shape(data)
        for m in methods:
            total = total + estimate_fit(m, shape, method_params(params, m), book, probe)
    return total


def estimate_sensitivity(dataset, lams, betas, method="RMSC", params=None, book=None,
                         probe=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.run_sensitivity` (one fit per (λ, β))."""
    probe = probe_seconds() if probe is None else probe
    shape = data_shape(dataset)
    total = ZERO
    for lam in lams:
        for beta in betas:
            p = {**dict(params or {}), "lam": float(lam), "beta": float(beta)}
            total = total + estimate_fit(method, shape, p, book, probe)
    return total


#: Methods that refuse a single view (rmsc.multiview_spectral: co-regularisation and
#: co-training combine two views or more).
NEEDS_TWO_VIEWS = ("CO-PAIRWISE", "CO-CENTROID", "CO-TRAINING")


def estimate_views(dataset, methods, params=None, book=None, probe=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.run_views` (each method on 1..m views;
    :data:`NEEDS_TWO_VIEWS` from 2)."""
    probe = probe_seconds() if probe is None else probe
    total = ZERO
    for k in range(1, dataset.n_views + 1):
        shape = data_shape(dataset, n_views=k)
        for m in methods:
            if k == 1 and str(m).upper() in NEEDS_TWO_VIEWS:
                continue  # it refuses one view at once
            total = total + estimate_fit(m, shape, method_params(params, m), book, probe)
    return total


def record_compare(book, variants, tables):
    """Record the durations of a finished :func:`rmsc.dashboard.run_compare` in ``book``."""
    for name, data in variants.items():
        df = tables.get(name) if hasattr(tables, "get") else None
        if df is None:
            continue
        fp = str(getattr(data, "fingerprint", "") or "")
        for rec in df.to_dict("records"):  # a failed fit's time is part of the run too
            book.record(fp, rec["method"], rec.get("params") or {}, rec.get("fit_time"))


def record_sensitivity(book, dataset, method, params, df):
    """Record the durations of a finished :func:`rmsc.dashboard.run_sensitivity` in ``book``."""
    fp = str(getattr(dataset, "fingerprint", "") or "")
    for rec in df.to_dict("records"):
        p = {**dict(params or {}), "lam": float(rec["lam"]), "beta": float(rec["beta"])}
        book.record(fp, method, p, rec.get("fit_time"))


def record_views(book, dataset, params, df):
    """Record the durations of a finished :func:`rmsc.dashboard.run_views` in ``book``."""
    for rec in df.to_dict("records"):
        shape = data_shape(dataset, n_views=int(rec["n_views"]))
        book.record(shape.fingerprint, rec["method"], method_params(params, rec["method"]),
                    rec.get("fit_time"))


def record_solve_fit(book, result, dataset):
    """Record the Solve page's fit (a :class:`rmsc.dashboard.FitResult`) when it is of
    ``dataset``, under the parameters the Compare page runs that method with
    (:func:`rmsc.dashboard.rmsc_method_params`)."""
    from .fitting import FitResult
    from .runs import rmsc_method_params

    if not isinstance(result, FitResult):
        return
    key = result.key
    fp = str(getattr(dataset, "fingerprint", "") or "")
    if not fp or not key or len(key) < 2 or key[1] != fp:
        return
    try:
        params = rmsc_method_params(result.params, dataset)
    except ValueError:
        return
    method = result.params.method
    book.record(fp, method, params[method], result.fit_time + result.spectral_time)


def estimate_suggestion(dataset, params, book=None, probe=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.run_suggestion` (one fit per (λ, β_rel)).

    ``params`` is the Solve page's :class:`rmsc.dashboard.Params`; a measured duration of
    the method on these data (another λ, β) centres each fit's range.
    """
    from .suggest import SUGGEST_BETA_RELS, SUGGEST_LAMS, suggestion_settings

    probe = probe_seconds() if probe is None else probe
    shape = data_shape(dataset)
    settings = suggestion_settings(params, dataset)
    total = ZERO
    for lam in SUGGEST_LAMS:
        for beta_rel in SUGGEST_BETA_RELS:
            p = {**settings, "lam": float(lam), "beta": "auto", "beta_rel": float(beta_rel)}
            total = total + estimate_fit(params.method, shape, p, book, probe)
    return total
