"""The whole reproduction, as ``rmsc reproduce`` runs it: search, figures' data, one result.

Reproduce the experiments of Fan et al. (IJCAI 2017): Table 1 and Figures 1,
3 and 4. Results are cached per (dataset, method, parameters) in a JSON file
(:class:`rmsc.experiments.cache.Cache`), so an interrupted run resumes where it
stopped and adding a method reruns only that method. Given a Dask client, the fits
run on its workers first (:mod:`rmsc.experiments.parallel`) and the walk through
the searches and figures then reads them from the cache; ``rmsc reproduce`` does
this on a LocalCluster of one worker per core.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from .. import datasets
from .cache import Cache
from .grid import DATASET_BUDGET, POSTPROCESSING, check_budgets, check_methods, settings
from .paper import (
    DATASETS,
    SENSITIVITY_BETAS,
    SENSITIVITY_DATASETS,
    SENSITIVITY_LAMS,
    VIEWS_DATASETS,
    VIEWS_METHODS,
    input_weighting,
)
from .parallel import Fit, run_fits
from .search import best, count_jobs, search, search_plan
from .shared import SharedSolves
from .tables import accuracy_vs_views, sensitivity_grid, sensitivity_plan, views_plan

def resolve_datasets(specs, data_dir=None):
    """Map dataset names or .mat paths to (name, path or None).

    A paper name (case-insensitive: Digit, Reuter, Animal, 3-Sources) is the
    copy bundled with rmsc (path None), or its .mat file in ``data_dir`` when
    one is given; ``NAME+tfidf`` or ``NAME+log1p`` is that dataset with its count
    views so weighted (:data:`rmsc.experiments.paper.INPUT_WEIGHTINGS`); any other
    spec is taken as a path to a multi-view file and named after its stem.
    """
    data_dir = Path(data_dir) if data_dir else None
    names = {n.lower(): n for n in DATASETS}
    out = []
    for spec in specs:
        key = str(spec).lower()
        base, weighting = input_weighting(key)
        if weighting and base in names:
            (name, path), = resolve_datasets([names[base]], data_dir)
            out.append((f"{name}+{weighting}", path))
        elif key in names:
            name = names[key]
            fname = DATASETS[name]
            out.append((name, None if fname is None or data_dir is None else data_dir / fname))
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
    """Load one dataset; it must have labels.

    ``path`` None: the copy of a paper dataset bundled with rmsc
    (:func:`rmsc.datasets.load_bundled`). A path: :func:`rmsc.datasets.load`;
    for a paper dataset's .mat file (which stores no view names) the views
    take the bundled copy's names, so both sources give the same dataset.
    """
    base, weighting = input_weighting(name)
    if weighting:
        data = load_for_reproduction(base, path)
        try:
            weighted = datasets.preprocess(data, weighting)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc} (its views must be counts)") from None
        return weighted.replace(name=name)
    bundled = {n.lower(): n for n in datasets.bundled_names()}
    if path is None:
        if name.lower() not in bundled:
            raise ValueError(f"The {name} dataset is not available here (see the results "
                             "document).")
        return datasets.load_bundled(name)
    if not Path(path).exists():
        raise ValueError(
            f"{name}: {path} does not exist. Point --data-dir at the folder holding the paper's "
            ".mat files, or leave --data-dir out to use the copies bundled with rmsc."
        )
    data = datasets.load(path, name=name)
    if name in DATASETS and name.lower() in bundled and \
            all(v.startswith("view ") for v in data.view_names):
        names = datasets.load_bundled(name).view_names
        if len(names) == data.n_views:
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


def _views_params(chosen, views_methods):
    """The views figure's setting per method: the one its search chose (first variant)."""
    return {m: chosen[m].params for m in views_methods if m in chosen}


def _run_on_workers(client, runs, loaded, run_methods, variants, sens_sets, lams, betas,
                    views_sets, views_methods, cache, random_state, progress, views_progress):
    """:func:`run`'s fits on ``client``'s workers, into ``cache``: the searches and the
    sensitivity grids, then the views figure (whose settings the searches choose)."""
    fits = []
    for ds in runs:
        if ds.name not in loaded:
            continue
        fits += [Fit(ds.name, ds.name, m, p)
                 for m, p, _ in search_plan(run_methods[ds.name], variants, ds.budget)]
        if ds.name in sens_sets:
            fits += [Fit(ds.name, ds.name, m, p) for m, p in sensitivity_plan(
                lams, betas, "RMSC", POSTPROCESSING[variants[0]])]
    run_fits(client, fits, loaded, cache, random_state=random_state, progress=progress)
    fits = []
    for ds in runs:
        if ds.name not in views_sets:
            continue
        data = loaded[ds.name]
        records = search(ds.name, list(data.views), data.labels, run_methods[ds.name], cache,
                         postprocessing=variants, random_state=random_state,
                         data_id=data.fingerprint, budget=ds.budget)
        params = _views_params(best(records[variants[0]]), views_methods)
        fits += [Fit(record, ds.name, m, p, k)
                 for record, m, p, k in views_plan(data, list(params), params)]
    run_fits(client, fits, loaded, cache, random_state=random_state, progress=views_progress)


def run(specs, methods, *, data_dir=None, cache=None, postprocessing=tuple(POSTPROCESSING),
        progress=None, random_state=0, views=True, sensitivity=True,
        lams=SENSITIVITY_LAMS, betas=SENSITIVITY_BETAS, budgets=None, exclude=(),
        require_all=False, client=None):
    """Run the reproduction: every method's search on every dataset, then the figures' data.

    Parameters
    ----------
    specs : list of str
        Paper dataset names or paths (:func:`resolve_datasets`).
    methods : list of str
    data_dir : path, optional
        Folder of the paper's .mat files; default: the copies bundled with rmsc.
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
    require_all : bool, default=False
        Raise ``ValueError`` (before any fit) when a dataset cannot be loaded,
        instead of reporting it as "not run" (``rmsc reproduce`` does this).
    client : distributed.Client or None
        Run the fits on this Dask cluster's workers, grouped by the solves they
        share (:mod:`rmsc.experiments.parallel`; ``rmsc reproduce`` starts a
        ``LocalCluster`` of one worker per core). The records are the ones a run
        in this process (None) makes.

    Returns
    -------
    Reproduction
    """
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
            if require_all:
                raise ValueError(f"{exc} (nothing was run)") from None
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
    if client is not None:
        # Every fit computed on the workers first; the walk below then reads the cache.
        n_views_fits = sum(len(views_methods) * loaded[d].n_views for d in views_sets)
        _run_on_workers(client, runs, loaded, run_methods, variants, sens_sets, lams, betas,
                        views_sets, views_methods, cache, random_state,
                        bar.phase(total - n_views_fits), bar.phase(n_views_fits))
        bar = _Overall(None, total)
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
                params = _views_params(ds.chosen[variants[0]], views_methods)
                view_tables[ds.name] = accuracy_vs_views(
                    data, [m for m in views_methods if m in params], params=params,
                    random_state=random_state, cache=cache,
                    progress=bar.phase(len(views_methods) * data.n_views))
            if ds.name in sens_sets:
                sens_tables[ds.name] = sensitivity_grid(
                    data, lams, betas, method="RMSC", params=POSTPROCESSING[variants[0]],
                    random_state=random_state, cache=cache,
                    progress=bar.phase(len(lams) * len(betas)))
    if progress is not None:
        progress(total, total, "done")
    return Reproduction(methods=methods, variants=variants, datasets=runs, views=view_tables,
                        sensitivity=sens_tables, random_state=random_state,
                        elapsed=time.perf_counter() - start,
                        fit_seconds=sum(cache.records[k].fit_time or 0.0 for k in cache.used))
