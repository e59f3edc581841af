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

#: Most parameter settings any method is tried with.
SEARCH_BUDGET = 12

#: The grid of every method (parameters not named keep the method's registry default).
SEARCH = {
    "SC-BSV": {"n_neighbors": [5], "bandwidth": ["mean_knn", "self_tuning"]},
    "MSC": {"r": [1.5, 2, 3, 5, 10, 30]},
    "Co-Pairwise": {"lam": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0]},
    "Co-Centroid": {"lam": [0.003, 0.01, 0.03, 0.1, 0.3, 1.0]},
    "Co-Training": {"max_iter": [1, 3, 10]},
    "SSC-BSV": {"beta": ["auto", 0.01, 0.03, 0.1, 0.3]},
    "SSC-AVG": {"beta": ["auto", 0.01, 0.03, 0.1, 0.3]},
    "DiMSC": {"beta": [0.01, 0.03, 0.1], "lam": [0.01, 0.1, 1.0]},
    "RMSC-WV": {"lam": [0.1, 0.3, 1.0, 3.0], "beta": [0.001, 0.003, 0.01]},
    "RMSC": {"lam": [0.1, 0.3, 1.0, 3.0], "beta": [0.03, 0.1, 0.3]},
}


def settings(method):
    """Every parameter setting of ``method``'s grid, as a list of dicts."""
    grid = SEARCH.get(method, {})
    keys = list(grid)
    out = [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]
    return out or [{}]


def _key(dataset, method, params, seed=0):
    key = f"{dataset}|{method}|{json.dumps(params, sort_keys=True)}"
    return key if seed == 0 else f"{key}|seed={seed}"


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

    def as_dict(self):
        return dict(self.__dict__)

    @property
    def key(self):
        return _key(self.dataset, self.method, self.params, self.seed)


class Cache:
    """Results of finished runs, kept in a JSON file (or in memory with ``path=None``)."""

    def __init__(self, path=None):
        self.path = Path(path) if path else None
        self.records = {}
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

    def get(self, dataset, method, params, seed=0):
        return self.records.get(_key(dataset, method, params, seed))

    def put(self, rec):
        self.records[rec.key] = rec
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
                     random_state=0):
    """:func:`run_one` as a :class:`Record`, looked up in / stored to ``cache``.

    A setting the method cannot fit (see :data:`FIT_FAILURES`) gives a record
    whose ``error`` holds the explanation and whose scores are None.
    """
    rec = cache.get(dataset_name, method, params, random_state) if cache is not None else None
    if rec is not None:
        return rec
    rec = Record(dataset=dataset_name, method=method, params=dict(params), seed=random_state)
    try:
        scores, _ = run_one(method, params, views, labels, random_state=random_state)
        for k, v in scores.items():
            setattr(rec, k, v)
    except FIT_FAILURES as exc:  # degenerate settings are part of the answer
        rec.error = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ValueError) else str(exc)
    if cache is not None:
        cache.put(rec)
    return rec


def search(dataset_name, views, labels, methods, cache, *, progress=None, random_state=0):
    """Run every grid setting of every method on one dataset (cached runs are skipped).

    Parameters
    ----------
    dataset_name : str
    views : list of (n_samples, n_features_v) arrays
    labels : ndarray of shape (n_samples,)
    methods : list of str
    cache : Cache
    progress : callable(done, total, message) or None

    Returns
    -------
    list of Record, one per (method, setting)
    """
    jobs = [(m, p) for m in methods for p in settings(m)]
    out = []
    for i, (method, params) in enumerate(jobs):
        if progress and cache.get(dataset_name, method, params, random_state) is None:
            progress(i, len(jobs), f"{dataset_name} {method} {_fmt_params(params)}")
        out.append(evaluate_setting(dataset_name, method, params, views, labels, cache=cache,
                                    random_state=random_state))
    if progress:
        progress(len(jobs), len(jobs), f"{dataset_name} done")
    return out


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


def table1(chosen_by_dataset, methods):
    """Table 1 as Markdown: ours beside the paper's, with the difference (percentage points).

    Parameters
    ----------
    chosen_by_dataset : dict dataset -> dict method -> Record
    methods : list of str
    """
    lines = []
    for metric in ("acc", "nmi"):
        title = "Accuracy (%)" if metric == "acc" else "NMI (%)"
        lines.append(f"**{title}** — ours (paper; difference)\n")
        header = "| method | " + " | ".join(DATASETS) + " |"
        lines += [header, "|---|" + "---|" * len(DATASETS)]
        for method in methods:
            cells = []
            for ds in DATASETS:
                paper = PAPER_TABLE1.get(method, {}).get(ds)
                p_mean, p_std = (paper[0], paper[1]) if metric == "acc" else (
                    (paper[2], paper[3]) if paper else (None, None))
                rec = chosen_by_dataset.get(ds, {}).get(method)
                if DATASETS[ds] is None:
                    cells.append(f"n/a (paper {p_mean:.2f} ± {p_std:.2f})" if paper else "n/a")
                elif rec is None:
                    cells.append("not run" + (f" (paper {p_mean:.2f})" if paper else ""))
                else:
                    m, s = getattr(rec, f"{metric}_mean"), getattr(rec, f"{metric}_std")
                    diff = 100 * m - p_mean if paper else None
                    cells.append(f"{_pm(m, s)} ({p_mean:.2f}; {diff:+.2f})" if paper
                                 else _pm(m, s))
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
    data = datasets.load(path, name=name)
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
