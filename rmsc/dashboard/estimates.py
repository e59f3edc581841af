"""How long a Compare / Sensitivity run will take: what was measured, else the cost model.

A button that starts many fits says how long they will take. Two sources, the better first:

1. **Measured** (:class:`CostBook`): every finished Compare / Sensitivity / views run reports
   each fit's duration (the ``fit_time`` column of :mod:`rmsc.experiments.tables`); the
   dashboard records them by dataset fingerprint, method and parameters. A fit of the same
   method on the same data with the same parameters is predicted by its own duration; with
   other parameters (a sensitivity grid, another seed) by the median of that method's
   durations on those data, or of a method of the same ``cost_group`` (the same solves),
   each scaled to this setting: by how that method's fits on these data grew with λ where
   the book spans λ (:func:`lam_slope`), else by the cost model's ratio of the two settings
   (:func:`scaled_durations`).
2. **Modelled** (:func:`rmsc.costs.predict`): the method's cost model, in multiply-adds at
   this machine's measured speed.

Solve's "Suggest λ and β" is eight RMSC fits, one after another, each followed by what the
suggestion adds to it: its graph criterion and the agreement of its k-means runs, which no
fit's recorded duration holds; it is estimated setting by setting as the fit plus that
criterion (:func:`suggestion_estimates`, the criterion's cost model
:func:`rmsc.costs.predict_criterion`), then the chosen setting's scoring once, and a
finished suggestion records each setting's fit in the book (:func:`record_suggestion`).

A method with neither (no cost model in its spec, not measured yet) counts as a fit of
unknown duration (:meth:`rmsc.costs.Estimate.not_known`): the button says so instead of
failing. An estimate with nothing measured in it is the model's guess, and says so.

A run's fits go to the workers side by side, in groups that share a solve
(:class:`rmsc.dashboard.RemoteParts`), each group's fits on its share of the cores of a
machine the workers share: its estimate schedules the groups' estimates the same way over
the cluster's workers (:func:`estimate_run`, :func:`rmsc.costs.schedule`). Durations are
kept as those of a fit with its machine's every core (as the model's and the Solve page's
fit, and Suggest's): a fit measured on fewer threads is recorded at its time times its
measured speed on them against every core (:func:`fit_speeds`,
:func:`rmsc.costs.thread_speed`: only the share of a fit its threads split speeds up).
"""

from __future__ import annotations

import functools
import json
import threading

import numpy as np

from .. import _costs
from ..costs import (ZERO, Estimate, data_shape, fastest_probe_seconds, has_model,
                     parallel_fraction, predict, predict_criterion, predict_scoring, schedule,
                     thread_speed)
from ..methods import find_spec, specs
from .fitting import FitResult
from .remote import share_threads
from .runs import compare_fits, part_shares, rmsc_method_params, sensitivity_fits, views_fits
from .suggest import SUGGEST_BETA_RELS, SUGGEST_LAMS, suggestion_settings


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

    def settings(self, fingerprint, method):
        """``[(params, seconds)]``: every setting of ``method`` measured on the data
        ``fingerprint`` (oldest first; the parameters as recorded, JSON's values)."""
        key = (str(fingerprint), str(method).upper())
        with self._lock:
            rows = list(self._items.get(key, {}).items())
        return [(json.loads(pk), seconds) for pk, seconds in rows]

    def __len__(self):
        with self._lock:
            return sum(len(v) for v in self._items.values())


def _same_cost(method):
    """The other methods of ``method``'s ``cost_group`` (their solves cost the same)."""
    spec = find_spec(method)
    if spec is None or spec.cost_group is None:
        return []
    return [o.name for o in specs() if o.cost_group == spec.cost_group and o is not spec]


def estimate_fit(method, shape, params=None, book=None, probe=None):
    """One fit's :class:`Estimate`: measured when ``book`` has this method on these data, else
    the model's, else (no cost model) one fit of unknown duration.

    A duration with the same parameters counts as measured. Those with other parameters
    (another λ, β or seed), or of a method of the same ``cost_group`` (the same solves),
    each scaled by the model's ratio of this setting to theirs (:func:`scaled_durations`:
    λ moves RMSC's iterations, :func:`rmsc.costs.lam_iteration_ratio`), give by their
    median the middle of a range that also spans the model's; without a model, the median
    of the durations as they are.
    """
    seconds, rows = None, []
    if book is not None and shape.fingerprint:
        seconds, exact = book.lookup(shape.fingerprint, method, params)
        if seconds is not None and exact:
            return Estimate.exact(seconds)
        rows = [(method, q, t) for q, t in book.settings(shape.fingerprint, method)]
        for other in ([] if rows else _same_cost(method)):
            rows = [(other, q, t) for q, t in book.settings(shape.fingerprint, other)]
            if rows:
                seconds = float(np.median([t for _, _, t in rows]))
                break
    if not has_model(method):
        return Estimate.not_known() if seconds is None else Estimate(seconds, seconds, seconds)
    model = predict(method, shape, params, probe)
    if not rows:
        return model
    seconds = float(np.median(scaled_durations(method, shape, params, rows)))
    return Estimate(min(seconds, model.low), seconds, max(seconds, model.high), False)


def scaled_durations(method, shape, params, rows):
    """Each measured ``(method, params, seconds)`` of ``rows`` (on data of ``shape``) as a
    fit of ``method`` with ``params``: its seconds times the model's middle for that
    setting over the model's for its own (unchanged where the model has none for it);
    where the rows of ``method`` itself span λ (:func:`lam_slope`), times
    ``(λ / its λ) ** slope`` instead: how these data's fits grew with λ on this server."""
    want = _model_mid(method, shape, params_key(params))
    slope = lam_slope([(q, t) for m, q, t in rows if m == method])
    lam = _lam(params)
    out = []
    for other, q, seconds in rows:
        if slope is not None and other == method and lam and _lam(q):
            out.append(seconds * (lam / _lam(q)) ** slope)
            continue
        had = _model_mid(other, shape, params_key(q)) if has_model(other) else 0.0
        out.append(seconds * want / had if had > 0 and want > 0 else seconds)
    return out


#: The fewest settings, and the widest λ span (largest / smallest), of a learned slope.
SLOPE_SETTINGS = 3
SLOPE_SPAN = 3.0


def _lam(params):
    try:
        lam = float((params or {}).get("lam"))
    except (TypeError, ValueError):
        return None
    return lam if lam > 0 and np.isfinite(lam) else None


def lam_slope(rows):
    """How one method's fits on one dataset grew with λ, measured: the least-squares slope
    of log seconds on log λ over ``rows`` (``(params, seconds)``, e.g.
    :meth:`CostBook.settings`: the Solve page's fits, its prefetches one λ step away, a
    grid's or a suggestion's fits), held within [0, 1.5]; None with fewer than
    :data:`SLOPE_SETTINGS` settings or λ spanning less than :data:`SLOPE_SPAN` x (then the
    cost model's ratio counts, :func:`rmsc.costs.lam_iteration_ratio`)."""
    pts = [(np.log(_lam(q)), np.log(t)) for q, t in rows if _lam(q) and t > 0]
    if len(pts) < SLOPE_SETTINGS:
        return None
    x, y = np.array(pts).T
    if x.max() - x.min() < np.log(SLOPE_SPAN):
        return None
    slope = float(np.polyfit(x, y, 1)[0])
    return min(1.5, max(0.0, slope))


def _model_mid(method, shape, key):
    """The model's middle of ``method`` with the parameters of ``key`` (:func:`params_key`)
    at a probe of 1 s (a ratio of two is the same at any speed), kept: a page asks the same
    settings on every rerun, a grid each for every measured one."""
    return _model_mid_cached(method, shape, key, id(_costs.COSTS))


@functools.lru_cache(maxsize=4096)
def _model_mid_cached(method, shape, key, costs):
    return float(predict(method, shape, json.loads(key), 1.0).mid)


def method_params(params, method):
    """The parameters for ``method`` in a ``{method: {...}}`` dict (case-insensitive)."""
    for key, value in (params or {}).items():
        if str(key).lower() == str(method).lower():
            return dict(value or {})
    return {}


def part_threads_of(datasets, fits, cores=None):
    """``(groups, threads)``: the parts a run of ``fits`` goes in and the threads each
    part's fits get when the workers share ``cores`` (None each when they do not), as
    :class:`rmsc.dashboard.DaskSender` gives them."""
    groups, shares = part_shares(datasets, fits)
    return groups, [share_threads(s, len(groups), cores) for s in shares]


def fit_speeds(datasets, fits, cores=None):
    """Per fit of a run in parts: how fast it ran on its part's threads against on its
    machine's every ``cores`` (:func:`rmsc.costs.thread_speed` with the share of the
    method's fit its threads split, :func:`rmsc.costs.parallel_fraction`; 1 when the cores
    are not shared out). A fit's duration times its speed is its duration with every core:
    a one-thread fit of which little is split is kept at nearly its time, not at its share
    of the cores (the measured shares: docs/dashboard.md, "Threads and scoring")."""
    out = [1.0] * len(fits)
    if not cores:
        return out
    groups, threads = part_threads_of(datasets, fits, cores)
    for group, t in zip(groups, threads):
        for i in group:
            out[i] = 1.0 if t is None else thread_speed(t, cores,
                                                        parallel_fraction(fits[i].method))
    return out


def run_fit_estimate(fit, datasets, book=None, probe=None):
    """One fit of a Compare / Sensitivity / views run (a :class:`rmsc.experiments.Fit` on
    ``datasets[fit.data]``) as the run spends it: the fit (:func:`estimate_fit`), then its
    k-means runs scored against the labels (:func:`rmsc.costs.predict_scoring`; once per
    view for a method that clusters every view, its spec's ``per_view``), which its
    recorded ``fit_time`` does not hold. A fit of unknown duration stays one (its scoring
    in it)."""
    shape = data_shape(datasets[fit.data], n_views=fit.n_views)
    spec = find_spec(fit.method)
    times = shape.n_views if spec is not None and spec.per_view else 1
    est = estimate_fit(fit.method, shape, fit.params, book, probe)
    return est if est.unknown else est + predict_scoring(shape, probe, times)


def estimate_run(datasets, fits, book=None, probe=None, workers=1, capacity=None, cores=None):
    """The :class:`Estimate` of ``fits`` (:class:`rmsc.experiments.Fit`, on ``datasets`` by
    ``Fit.data``) run as the pages run them: in groups that share a solve
    (:func:`rmsc.experiments.plan_groups`), one group per worker at a time, longest first
    (:class:`rmsc.dashboard.RemoteParts`), on ``workers`` workers; on a LocalCluster the
    workers share ``cores`` and each group's fits run on its share of them
    (:func:`part_threads_of`), elsewhere ``capacity`` groups run at full speed at once
    (:func:`rmsc.costs.schedule`; :func:`rmsc.dashboard.worker_slots` gives all three).

    Each fit counts with its scoring (:func:`run_fit_estimate`). A fit that needs more
    views than it is given (its spec's ``min_views``) refuses at once: it is not counted.
    """
    probe = fastest_probe_seconds() if probe is None else probe
    groups, threads = part_threads_of(datasets, fits, cores)
    parts = []
    # the share its threads split, of a part's first fit (a part's fits share a solve)
    parallel = [parallel_fraction(fits[g[0]].method) if g else 0.0 for g in groups]
    for group in groups:
        part = ZERO
        for i in group:
            fit = fits[i]
            spec = find_spec(fit.method)
            if fit.n_views is not None and spec is not None and fit.n_views < spec.min_views:
                continue  # it refuses so few views at once
            part = part + run_fit_estimate(fit, datasets, book, probe)
        parts.append(part)
    shared = cores and all(t is not None for t in threads)
    return schedule(parts, workers, capacity, threads if shared else None,
                    cores if shared else None, parallel if shared else None)


def estimate_compare(variants, methods, params=None, book=None, probe=None, workers=1,
                     capacity=None, cores=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.compare_parts` (every method on every
    variant; :func:`estimate_run`).

    Parameters
    ----------
    variants : dict of str -> MultiViewDataset
    methods : list of str
    params : dict or None
        ``{method: {parameter: value}}`` as passed to the run.
    book : CostBook or None
    probe : float or None
    workers, capacity, cores : int
        The cluster's (:func:`rmsc.dashboard.worker_slots`); 1: the fits one after another.
    """
    return estimate_run(variants, compare_fits(variants, methods, params), book, probe,
                        workers, capacity, cores)


def estimate_sensitivity(dataset, lams, betas, method="RMSC", params=None, book=None,
                         probe=None, workers=1, capacity=None, cores=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.sensitivity_parts` (one fit per (λ, β))."""
    return estimate_run({"data": dataset},
                        sensitivity_fits(dataset, lams, betas, method, params), book, probe,
                        workers, capacity, cores)


def estimate_views(dataset, methods, params=None, book=None, probe=None, workers=1,
                   capacity=None, cores=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.views_parts` (each method on 1..m views;
    one that needs more views (its spec's ``min_views``) refuses fewer at once: not counted)."""
    return estimate_run({"data": dataset}, views_fits(dataset, methods, params), book, probe,
                        workers, capacity, cores)


def _unique(values):
    return list(dict.fromkeys(values))


def record_compare(book, variants, tables, params=None, cores=None):
    """Record the durations of a finished :func:`rmsc.dashboard.compare_parts` (or
    :func:`rmsc.dashboard.run_compare`) in ``book``.

    ``params`` (``{method: {...}}``) and ``cores``: the run's and the cores its workers
    shared (:func:`rmsc.dashboard.worker_slots`; None: every fit had every core), for the
    share of the cores each fit ran on (:func:`fit_speeds`)."""
    methods = _unique(m for df in (tables.get(n) for n in variants if hasattr(tables, "get"))
                      if df is not None for m in df["method"])
    fits = compare_fits(variants, methods, params) if cores and methods else []
    speed = {(f.data, f.method): s for f, s in zip(fits, fit_speeds(variants, fits, cores))}
    for name, data in variants.items():
        df = tables.get(name) if hasattr(tables, "get") else None
        if df is None:
            continue
        fp = str(getattr(data, "fingerprint", "") or "")
        for rec in df.to_dict("records"):  # a failed fit's time is part of the run too
            seconds = _scaled(rec.get("fit_time"), speed.get((name, rec["method"]), 1.0))
            book.record(fp, rec["method"], rec.get("params") or {}, seconds)


def _scaled(seconds, speed):
    try:
        return float(seconds) * speed
    except (TypeError, ValueError):
        return seconds


def record_sensitivity(book, dataset, method, params, df, cores=None):
    """Record the durations of a finished :func:`rmsc.dashboard.sensitivity_parts` (or
    :func:`rmsc.dashboard.run_sensitivity`) in ``book`` (``cores``: see
    :func:`record_compare`)."""
    fp = str(getattr(dataset, "fingerprint", "") or "")
    speed = {}
    if cores and len(df):
        fits = sensitivity_fits(dataset, _unique(float(x) for x in df["lam"]),
                                _unique(float(x) for x in df["beta"]), method, params)
        speed = {(float(f.params["lam"]), float(f.params["beta"])): s
                 for f, s in zip(fits, fit_speeds({"data": dataset}, fits, cores))}
    for rec in df.to_dict("records"):
        lam, beta = float(rec["lam"]), float(rec["beta"])
        p = {**dict(params or {}), "lam": lam, "beta": beta}
        book.record(fp, method, p, _scaled(rec.get("fit_time"), speed.get((lam, beta), 1.0)))


def record_views(book, dataset, params, df, cores=None):
    """Record the durations of a finished :func:`rmsc.dashboard.views_parts` (or
    :func:`rmsc.dashboard.run_views`) in ``book`` (``cores``: see :func:`record_compare`)."""
    speed = {}
    if cores and len(df):
        fits = views_fits(dataset, _unique(df["method"]), params)
        speed = {(f.method, f.n_views): s
                 for f, s in zip(fits, fit_speeds({"data": dataset}, fits, cores))}
    for rec in df.to_dict("records"):
        shape = data_shape(dataset, n_views=int(rec["n_views"]))
        seconds = _scaled(rec.get("fit_time"),
                          speed.get((rec["method"], int(rec["n_views"])), 1.0))
        book.record(shape.fingerprint, rec["method"], method_params(params, rec["method"]),
                    seconds)


def record_solve_fit(book, result, dataset):
    """Record the Solve page's fit (a :class:`rmsc.dashboard.FitResult`) when it is of
    ``dataset``, under the parameters the Compare page runs that method with
    (:func:`rmsc.dashboard.rmsc_method_params`)."""
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


def suggestion_fits(params, dataset):
    """``[(λ, β_rel, parameters)]``: the settings of :func:`rmsc.dashboard.run_suggestion` in
    the order it fits them (λ-major), each with the parameters its fit is recorded and
    estimated under (:func:`record_suggestion`, :func:`suggestion_estimates`)."""
    settings = suggestion_settings(params, dataset)
    return [(float(lam), float(rel),
             {**settings, "lam": float(lam), "beta": "auto", "beta_rel": float(rel)})
            for lam in SUGGEST_LAMS for rel in SUGGEST_BETA_RELS]


def suggestion_estimates(dataset, params, book=None, probe=None):
    """Each setting's :class:`Estimate` in a suggestion run, in the order it fits them: its
    fit (:func:`estimate_fit`: measured where the book has it, else scaled or modelled)
    plus what the suggestion adds to it, the graph criterion and the k-means runs'
    agreement (:func:`rmsc.costs.predict_criterion`, never in a fit's recorded duration).
    """
    probe = fastest_probe_seconds() if probe is None else probe
    shape = data_shape(dataset)
    criterion = predict_criterion(shape, probe)
    return [estimate_fit(params.method, shape, p, book, probe) + criterion
            for _, _, p in suggestion_fits(params, dataset)]


def estimate_suggestion(dataset, params, book=None, probe=None):
    """The :class:`Estimate` of :func:`rmsc.dashboard.run_suggestion` (one fit per (λ, β_rel),
    each with its criterion: :func:`suggestion_estimates`), then the suggested setting's
    scoring against the labels, once (:func:`rmsc.costs.predict_scoring`).

    ``params`` is the Solve page's :class:`rmsc.dashboard.Params`; a measured duration of
    the method on these data (another λ, β) centres each fit's range.
    """
    probe = fastest_probe_seconds() if probe is None else probe
    total = sum(suggestion_estimates(dataset, params, book, probe), ZERO)
    return total + predict_scoring(data_shape(dataset), probe)


def record_suggestion(book, dataset, params, run):
    """Record the fits of a finished :func:`rmsc.dashboard.run_suggestion` (a
    :class:`rmsc.dashboard.SuggestionRun` with ``params``, the Solve page's, on ``dataset``)
    in ``book``: each setting's ``fit`` seconds (:attr:`rmsc.selection.Suggestion.timings`:
    the estimator's ``fit``, as the other buttons record theirs) under the parameters
    :func:`suggestion_estimates` looks up; its criterion stays with the model. A run of
    another method or grid than ``params`` gives is not recorded."""
    fp = str(getattr(dataset, "fingerprint", "") or "")
    s = getattr(run, "suggestion", None)
    if not fp or s is None or getattr(run, "method", None) != params.method:
        return
    fits = suggestion_fits(params, dataset)
    timings = getattr(s, "timings", None) or []  # none in a run kept before they were
    if len(timings) != len(fits) or len(s.table) != len(fits):
        return
    for (lam, rel, p), row, t in zip(fits, s.table, timings):
        if (row["lam"], row["beta_rel"]) == (lam, rel):
            book.record(fp, params.method, p, t["fit"])
