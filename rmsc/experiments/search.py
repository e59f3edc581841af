"""Run every grid setting of every method on one dataset; pick each method's best.

That choice uses the true labels — an oracle, as any paper's tuned table
implicitly is — so the whole search is reported too
(:func:`rmsc.experiments.report.search_table`).
"""

from __future__ import annotations

import json

from ..methods import paper_methods, run_order
from .grid import _fmt_params, settings
from .protocol import evaluate_setting

#: The order the paper's methods are fitted in within a dataset (reports keep Table 1's
#: order): their specs' ``run_rank`` (:func:`rmsc.methods.run_order`): cheapest first, so
#: that an interrupted run has the quick methods done; the methods sharing per-view SSC
#: solves (:class:`SharedSolves`) back to back. A method registered later takes its place
#: by its own rank.
RUN_ORDER = tuple(run_order(paper_methods()))


def search(dataset_name, views, labels, methods, cache, *, postprocessing="none",
           progress=None, random_state=0, data_id="", budget=None):
    """Run every grid setting of every method on one dataset (cached runs are skipped).

    Parameters
    ----------
    dataset_name : str
    views : list of (n_samples, n_features_v) arrays
    labels : ndarray of shape (n_samples,)
    methods : list of str
    cache : Cache
    postprocessing : str or tuple of str
        One variant of :data:`POSTPROCESSING` or several; with several, each
        setting's variants run back to back (so :class:`SharedSolves` re-uses
        the representation) and methods they do not apply to run once.
    progress : callable(done, total, message) or None
    budget : int or None
        Settings per method (:func:`thin`); None: the whole grid.

    Returns
    -------
    list of Record (one variant) or dict variant -> list of Record
    """
    variants = (postprocessing,) if isinstance(postprocessing, str) else tuple(postprocessing)
    per_variant = {v: [] for v in variants}
    jobs = search_plan(methods, variants, budget)
    for i, (method, params, vs) in enumerate(jobs):
        if progress and cache.get(dataset_name, method, params, random_state, data_id) is None:
            progress(i, len(jobs), f"{dataset_name} {method} {_fmt_params(params)}")
        rec = evaluate_setting(dataset_name, method, params, views, labels, cache=cache,
                               random_state=random_state, data_id=data_id)
        for v in vs:
            per_variant[v].append(rec)
    if progress:
        progress(len(jobs), len(jobs), f"{dataset_name} done")
    order = {m: i for i, m in enumerate(methods)}
    for v in per_variant:  # records in the caller's method order (stable within a method)
        per_variant[v].sort(key=lambda r: order[r.method])
    return per_variant[variants[0]] if isinstance(postprocessing, str) else per_variant


def search_plan(methods, postprocessing=("none",), budget=None):
    """The fits :func:`search` makes, in its running order: a list of
    ``(method, params, [variants the fit serves])`` (a method the variants do not
    apply to is fitted once for all of them)."""
    variants = (postprocessing,) if isinstance(postprocessing, str) else tuple(postprocessing)
    jobs = []
    for m in run_order(methods):
        grids = [settings(m, v, budget) for v in variants]
        for i in range(len(grids[0])):
            seen = {}
            for v, grid in zip(variants, grids):
                key = json.dumps(grid[i], sort_keys=True)
                seen.setdefault(key, (grid[i], []))[1].append(v)
            jobs += [(m, p, vs) for p, vs in seen.values()]
    return jobs


def count_jobs(methods, postprocessing=("none",), budget=None):
    """Number of distinct fits :func:`search` makes for these methods and variants."""
    variants = (postprocessing,) if isinstance(postprocessing, str) else tuple(postprocessing)
    keys = {(m, json.dumps(p, sort_keys=True)) for m in methods for v in variants
            for p in settings(m, v, budget)}
    return len(keys)


def best(records):
    """The record of highest mean ACC per method (records without a score are skipped)."""
    chosen = {}
    for rec in records:
        if rec.acc_mean is None:
            continue
        cur = chosen.get(rec.method)
        if cur is None or rec.acc_mean > cur.acc_mean:
            chosen[rec.method] = rec
    return chosen
