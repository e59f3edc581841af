"""Experiments on demand (Compare, Sensitivity pages): rmsc.experiments with a job's progress.

Each run comes two ways: ``run_compare``, ``run_sensitivity``, ``run_views`` fit one
setting after another (in one process), and ``compare_parts``, ``sensitivity_parts``,
``views_parts`` give the same run as a :class:`rmsc.dashboard.RemoteParts`, one part per
group of fits that share a solve (:func:`rmsc.experiments.plan_groups`: longest first),
which the Dask workers run side by side (the pages use these). Both give the same tables
(:func:`rmsc.experiments.compare_row` and the like). ``compare_fits``,
``sensitivity_fits`` and ``views_fits`` list a run's fits; the time estimates
(:mod:`rmsc.dashboard.estimates`) schedule the same groups.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import experiments, outliers
from ..experiments import Fit
from ..methods import MethodSpec, get_spec, register_missing, rmsc_method, specs
from .params import estimator_params
from ..experiments.grid import applies_postprocessing
from ..experiments.protocol import PAPER_AFFINITY, at_library_defaults, at_own_defaults
from .params import BETA_GRID, LAM_GRID, POSTPROCESSING_NAMES, nearest, post_of
from .remote import Remote, RemoteParts
from .words import page_words

#: The Compare page's default selection: RMSC against its ablation and the average.
DEFAULT_COMPARE = ("RMSC", "RMSC-WV", "SSC-AVG")


#: The Compare page's robustness preset: every injection kind at these fractions (the full
#: study with three seeds is benchmarks/bench_robustness.py, docs/robustness.md).
ROBUSTNESS_FRACTIONS = (0.1, 0.2)


#: The paper's Figure 1 compares these as views are added.
DEFAULT_VIEWS_METHODS = ("RMSC", "RMSC-WV", "SSC-AVG")


#: The sensitivity page's lambda axis: the current lambda times these (5 x 5 fits with beta).
SENSITIVITY_LAM_FACTORS = (0.1, 0.3, 1.0, 3.0, 10.0)


#: Its beta axis, as fractions of beta_max (Z* is empty from beta_max on): the range
#: rmsc.RMSC's own advice names (beta_max/100 to beta_max/5). beta_max grows with lambda,
#: so the grid's smallest lambda sees the last column nearer its own beta_max. How many
#: cells give no clustering, against the former fixed grid: docs/dashboard.md, "Datasets
#: at the edges".
SENSITIVITY_BETA_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2)


#: The axes when beta_max is not known yet (no fit of the current data): around the defaults.
DEFAULT_SENSITIVITY_LAMS = (0.03, 0.1, 0.3, 1.0, 3.0)


DEFAULT_SENSITIVITY_BETAS = (0.03, 0.1, 0.3, 1.0, 3.0)


def sensitivity_axes(lam, beta_max=None, beta=None):
    """The default (lambda, beta) grid of the sensitivity page, centred on the data.

    Parameters
    ----------
    lam : float
        The current lambda; the axis is ``lam * SENSITIVITY_LAM_FACTORS``.
    beta_max : float or None
        Where Z* empties for the data at ``lam`` (``rmsc.RMSC.beta_max_`` of the current
        fit). The beta axis is ``beta_max * SENSITIVITY_BETA_FRACTIONS``.
    beta : float, "auto" or None
        Without ``beta_max`` (no fit yet): the current (numeric) beta, assumed to work, takes the
        place of the fourth fraction (:data:`DEFAULT_SENSITIVITY_BETAS` when neither is
        given).

    Returns
    -------
    lams, betas : tuple of float
        Ascending values of the sliders' grids (:data:`LAM_GRID`, :data:`BETA_GRID`),
        duplicates dropped (at the grids' ends).
    """
    lams = _on_grid(LAM_GRID, [lam * f for f in SENSITIVITY_LAM_FACTORS])
    if beta_max is not None and beta_max > 0:
        betas = _on_grid(BETA_GRID, [beta_max * f for f in SENSITIVITY_BETA_FRACTIONS])
    elif isinstance(beta, (int, float)) and beta > 0:  # not "auto": its value is the fit's
        scale = beta / SENSITIVITY_BETA_FRACTIONS[3]
        betas = _on_grid(BETA_GRID, [scale * f for f in SENSITIVITY_BETA_FRACTIONS])
    else:
        betas = DEFAULT_SENSITIVITY_BETAS
    return lams, betas


def _on_grid(grid, values):
    return tuple(sorted({nearest(grid, v) for v in values}))


def rmsc_method_params(params, dataset):
    """``{method: {...}}`` for rmsc.experiments: the Solve page's settings for RMSC or RMSC-WV.

    The other of the two keeps its registry defaults (its useful beta differs).
    """
    est = estimator_params(params, dataset)
    est.pop("n_clusters")
    est.pop("random_state")
    return {params.method: at_library_defaults(params.method, est)}


def method_specs(names):
    """The registry's specs of the methods ``names``, for a task to send with them: a worker
    process then knows a method registered at run time in the server (a plug-in, a test),
    which it never imported (:func:`rmsc.methods.register_missing`)."""
    return [get_spec(m) for m in names]


def _names(methods):
    """Method names from names or specs, registering here the specs not known yet."""
    specs = [m for m in methods if isinstance(m, MethodSpec)]
    register_missing(specs)
    return [m.name if isinstance(m, MethodSpec) else m for m in methods]


#: The Solve page's settings a λ × β grid does not keep: those it moves, and those the
#: run sets itself (the number of clusters, the seed).
SENSITIVITY_MOVES = ("lam", "beta", "beta_rel", "n_clusters", "seed")


def sensitivity_settings(params, method):
    """The Solve page's settings a λ × β grid of ``method`` keeps fixed: every row of the
    parameters' table (:data:`~rmsc.dashboard.params.SETTINGS`) but
    :data:`SENSITIVITY_MOVES`, as the estimator takes it (γ, the iterations, the tolerance,
    the affinity post-processing, the placement), those the method takes."""
    base = {}
    for row in params.TABLE:
        if row.name not in SENSITIVITY_MOVES:
            base.update(row.estimator_kwargs(params, None))
    takes = get_spec(method).make().get_params()
    return at_library_defaults(method, {k: v for k, v in base.items() if k in takes})


def grid_methods():
    """The methods offered on the Sensitivity page's λ × β grid (their spec says so): RMSC
    first (the paper's Figure 4), then the others in the registry's order."""
    names = [spec.name for spec in specs() if spec.lam_beta_grid]
    return sorted(names, key=lambda name: name != rmsc_method("sample"))


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
    methods : list of str or MethodSpec
        Names, or specs (:func:`method_specs`) for a run on a worker.
    params : dict or None
        ``{method: {parameter: value}}``.
    job : Job or None
        Receives the progress of all variants as one bar; cancelling stops between fits.

    Returns
    -------
    dict of str -> pandas.DataFrame (one compare table per variant, same order).
    """
    if not methods:
        raise ValueError("Choose at least one method to compare.")
    methods = _names(methods)
    total = len(variants) * len(methods)
    out = {}
    for k, (name, data) in enumerate(variants.items()):
        prefix = f"{name} — " if len(variants) > 1 else ""
        out[name] = experiments.compare(
            data, list(methods), params=params, random_state=random_state,
            progress=_progress_into(job, k * len(methods), total, prefix))
    return out


def robustness_variants(clean, views, kinds=None, fractions=ROBUSTNESS_FRACTIONS,
                        random_state=0):
    """The Compare page's robustness preset: the clean data and one corrupted copy per case.

    Parameters
    ----------
    clean : MultiViewDataset
    views : list of str or int
        The views to corrupt (the same samples in each).
    kinds : sequence of str or None
        Injection kinds; None = every kind of :data:`rmsc.outliers.KINDS`.
    fractions : sequence of float
    random_state : int
        The injections' seed.

    Returns
    -------
    dict of str -> MultiViewDataset
        ``"clean"`` first, then ``"<kind> <percent>%"`` for every kind and fraction, in
        that order: the ``variants`` of :func:`run_compare`.
    """
    if not list(views):
        raise ValueError("Choose at least one view to corrupt for the robustness preset.")
    out = {"clean": clean}
    for kind in (outliers.KINDS if kinds is None else kinds):
        for f in fractions:
            out[f"{kind} {100 * f:g}%"] = outliers.inject(clean, list(views), f, kind=kind,
                                                          random_state=random_state)
    return out


def run_sensitivity(dataset, lams, betas, method="RMSC", params=None, random_state=0, job=None):
    """:func:`rmsc.experiments.sensitivity_grid` with progress reported to ``job`` (``method``
    a name, or its spec for a run on a worker)."""
    (method,) = _names([method])
    total = len(lams) * len(betas)
    return experiments.sensitivity_grid(dataset, list(lams), list(betas), method=method,
                                        params=params, random_state=random_state,
                                        progress=_progress_into(job, 0, total, ""))


def run_views(dataset, methods, params=None, random_state=0, job=None):
    """:func:`rmsc.experiments.accuracy_vs_views` with progress reported to ``job``
    (``methods``: names, or their specs for a run on a worker)."""
    if not methods:
        raise ValueError("Choose at least one method.")
    methods = _names(methods)
    total = len(methods) * dataset.n_views
    return experiments.accuracy_vs_views(dataset, list(methods), params=params,
                                         random_state=random_state,
                                         progress=_progress_into(job, 0, total, ""))


def compare_fits(variants, methods, params=None):
    """The fits of :func:`run_compare`: every method (Table 1 order) on every variant, as
    :class:`rmsc.experiments.Fit` (``data`` the variant's name, ``record`` its dataset's)."""
    plan = experiments.compare_plan(_names(methods), params)
    return [Fit(record=str(d.name), data=name, method=m, params=p)
            for name, d in variants.items() for m, p in plan]


def sensitivity_fits(dataset, lams, betas, method="RMSC", params=None):
    """The fits of :func:`run_sensitivity` (λ-major), as :class:`rmsc.experiments.Fit`."""
    return [Fit(record=str(dataset.name), data="data", method=m, params=p)
            for m, p in experiments.sensitivity_plan(lams, betas, _names([method])[0],
                                                     params)]


def views_fits(dataset, methods, params=None):
    """The fits of :func:`run_views` (on 1, 2, ... views), as :class:`rmsc.experiments.Fit`."""
    return [Fit(record=record, data="data", method=m, params=p, n_views=k)
            for record, m, p, k in experiments.views_plan(dataset, _names(methods), params)]


def run_fit_group(dataset, fits, random_state=0, methods=(), messages=(), job=None):
    """One part of a run on a worker: the ``fits`` of one group on ``dataset``, their
    shared solves solved once (:func:`rmsc.experiments.run_group`); their records.

    ``methods``: the specs of the methods used (a method registered in the server only
    is registered here too); ``messages``: what the progress says during each fit. Each
    fit is one step of ``job``'s progress; a cancel stops between fits.
    """
    register_missing(list(methods))
    fits = list(fits)

    def on_fit(k, rec):
        if job is not None:
            job.report(k + (rec is not None), len(fits),
                       messages[k] if k < len(messages) else fits[k].method)

    return experiments.run_group(list(dataset.views), np.asarray(dataset.labels), fits,
                                 random_state, str(getattr(dataset, "fingerprint", "") or ""),
                                 on_fit=on_fit)


def part_shares(datasets, fits):
    """``(groups, shares)``: the parts a run of ``fits`` goes in (groups that share a solve,
    :func:`rmsc.experiments.plan_groups`) and each one's share of the run's work by the
    cost model (None each when the model gives no work)."""
    groups = experiments.plan_groups(fits, datasets)
    costs = [sum(experiments.fit_cost(fits[i], datasets[fits[i].data]) for i in group)
             for group in groups]
    total = sum(costs)
    return groups, [c / total if total > 0 else None for c in costs]


def fit_parts(datasets, fits, messages, random_state):
    """``(parts, groups)``: the :class:`Remote` parts that run ``fits`` (on ``datasets``, by
    ``Fit.data``), one per group that shares a solve, longest first, and each part's group
    (indices into ``fits``); a part's result is its group's records, in order."""
    groups, shares = part_shares(datasets, fits)
    used = method_specs(sorted({f.method for f in fits}))
    parts = []
    for group, share in zip(groups, shares):
        part = Remote(run_fit_group, datasets[fits[group[0]].data], [fits[i] for i in group],
                      random_state, used, [messages[i] for i in group])
        part.steps = len(group)
        part.share = share
        parts.append(part)
    return parts, groups


def _parts(datasets, fits, messages, random_state, combine):
    """A :class:`RemoteParts` of ``fits`` (on ``datasets``, by ``Fit.data``): one part per
    group that shares a solve, longest first; ``combine(records)`` gets every fit's
    record in the fits' order."""
    parts, groups = fit_parts(datasets, fits, messages, random_state)

    def combine_records(results):
        records = [None] * len(fits)
        for group, recs in zip(groups, results):
            for i, rec in zip(group, recs):
                records[i] = rec
        return combine(records)

    return RemoteParts(parts, combine_records)


def compare_parts(variants, methods, params=None, random_state=0):
    """:func:`run_compare` for every worker at once (a :class:`RemoteParts`; see the
    module docstring): the same tables."""
    if not methods:
        raise ValueError("Choose at least one method to compare.")
    fits = compare_fits(variants, methods, params)
    several = len(variants) > 1
    messages = [f"{f.data} — {f.method}" if several else f.method for f in fits]

    def combine(records):
        return compare_tables(variants, fits, records)

    return _parts(variants, fits, messages, random_state, combine)


def compare_tables(variants, fits, records):
    """:func:`run_compare`'s tables from its fits (:func:`compare_fits`) and their records
    (:class:`rmsc.experiments.Record`, in the fits' order): one table per variant."""
    return {name: experiments.compare_frame(
        [experiments.compare_row(f.method, f.params, rec)
         for f, rec in zip(fits, records) if f.data == name]) for name in variants}


def sensitivity_parts(dataset, lams, betas, method="RMSC", params=None, random_state=0):
    """:func:`run_sensitivity` for every worker at once (one part per cell)."""
    fits = sensitivity_fits(dataset, lams, betas, method, params)
    messages = [f"{f.method} λ = {f.params['lam']:g}, β = {f.params['beta']:g}" for f in fits]

    def combine(records):
        return experiments.sensitivity_frame(
            [experiments.sensitivity_row(f.params, rec) for f, rec in zip(fits, records)])

    return _parts({"data": dataset}, fits, messages, random_state, combine)


def views_parts(dataset, methods, params=None, random_state=0):
    """:func:`run_views` for every worker at once."""
    if not methods:
        raise ValueError("Choose at least one method.")
    fits = views_fits(dataset, methods, params)
    names = list(dataset.view_names)
    used = ["+".join(names[:f.n_views]) for f in fits]
    messages = [f"{f.method} on {u}" for f, u in zip(fits, used)]

    def combine(records):
        return experiments.views_frame([experiments.views_row(f.method, f.n_views, u, rec)
                                        for f, u, rec in zip(fits, used, records)])

    return _parts({"data": dataset}, fits, messages, random_state, combine)


def _pm(mean, std):
    if mean is None or not np.isfinite(mean):
        return "—"
    return f"{100 * mean:.2f} ± {100 * std:.2f}"


def compare_display(df, view_names=None):
    """A compare table as the page shows it: ACC/NMI 'mean ± std' in %, ARI, purity, time,
    and a note in the pages' words: why a method failed, or which single view a best-view
    method scored (by name, from ``view_names``, with the one it picks without labels)."""
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
            "post-processing": postprocessing_used(rec["method"], rec.get("params")),
            "note": _note(rec, view_names),
        })
    return pd.DataFrame(rows)


def _text(value):
    """A table cell's text, or None (a missing cell is NaN or None)."""
    return value if isinstance(value, str) and value else None


def _note(rec, view_names):
    if _text(rec.get("error")):
        return page_words(rec["error"])
    view, blind = rec.get("view"), rec.get("nolabel_view")
    if view_names is not None and _is_index(view) and _is_index(blind):
        # short: at 1280 px the whole table fits its column (the page's caption says how
        # the view is chosen)
        return f"best view {view_names[int(view)]} (without labels: {view_names[int(blind)]})"
    return page_words(_text(rec.get("note")) or "")


def _is_index(value):
    return value is not None and not (isinstance(value, float) and np.isnan(value))


#: The decimals a score in points of % is shown with (:func:`robustness_table`, the lesson).
SHOWN_DECIMALS = 2


def robustness_table(tables, metric="acc"):
    """One row per method: the metric on each variant and the change (points of %).

    Each metric is rounded to the two decimals every page shows it with, and the change is
    the difference of the rounded values, so that a difference a sentence states is the one
    a reader works out from the numbers on screen (84.45 − 76.72 = 7.73)."""
    names = list(tables)
    merged = None
    for name in names:
        part = tables[name][["method", f"{metric}_mean"]].rename(
            columns={f"{metric}_mean": f"{name} %"})
        part[f"{name} %"] = (100 * part[f"{name} %"]).round(SHOWN_DECIMALS)
        merged = part if merged is None else merged.merge(part, on="method", how="outer")
    if len(names) == 2:
        merged["change (points)"] = (merged[f"{names[1]} %"]
                                     - merged[f"{names[0]} %"]).round(SHOWN_DECIMALS)
    return merged


#: The Compare page's ways of choosing each method's affinity post-processing; the first is
#: the default: each method as its registry (the library, ``rmsc fit``) fits it.
COMPARE_POSTPROCESSING = {
    "own": "each method's own default",
    "same": "the same for every self-representation method (the Solve page's)",
}

#: What "the same" does to the methods it was not made for (the Compare page says it).
SAME_POSTPROCESSING_NOTE = (
    "A post-processing suits the scale of its method's coefficients: RMSC's column scaling "
    "lifts the weak columns of its sparse consensus, but SSC's and DiMSC's coefficients live "
    "on other scales, where the same scaling can cost them many points of ACC (the "
    "post-processing column says what each ran).")

#: The affinity parameters a post-processing sets (:attr:`Params.postprocessing`).
_AFFINITY_KEYS = ("keep_mass", "top_k", "scale_columns")


def compare_params(params, dataset, methods, *, use_solve=True, postprocessing="own"):
    """``{method: {...}}`` for :func:`run_compare`, with each method's affinity post-processing.

    ``postprocessing="own"`` (the default, the paper's protocol) fits every method as its
    registry does (:func:`rmsc.experiments.at_own_defaults`: the same as
    ``rmsc.get_method(method)`` and ``rmsc fit --method``); ``"same"`` gives every
    self-representation method (:func:`rmsc.experiments.applies_postprocessing`) the Solve
    page's post-processing (``params.postprocessing``) instead, see
    :data:`SAME_POSTPROCESSING_NOTE`. With ``use_solve`` the Solve page's method also gets
    its other settings (:func:`rmsc_method_params`), its post-processing included.
    """
    if postprocessing not in COMPARE_POSTPROCESSING:
        raise ValueError(f"postprocessing must be one of {', '.join(COMPARE_POSTPROCESSING)}; "
                         f"got {postprocessing!r}.")
    base = rmsc_method_params(params, dataset) if use_solve else {}
    out = {}
    for method in _names(methods):
        own = dict(base.get(method, {}))
        if postprocessing == "same" and applies_postprocessing(method):
            own.update(params.postprocessing)
        own = at_own_defaults(method, own)  # the rest as the library fits it
        if own:
            out[method] = own
    return out


def compare_caption(methods):
    """The note under the Compare page's tables, about the ``methods`` that ran only: how a
    best-single-view method scored, and what a '—' under post-processing means."""
    best_view = [m for m in methods if get_spec(m).per_view]
    parts = []
    if best_view:
        parts.append(f"{' and '.join(best_view)} report{'s' if len(best_view) == 1 else ''} "
                     "the best single view chosen with the labels, as the paper does (an "
                     "oracle choice); the note names it, and the view chosen without labels.")
    if any(not applies_postprocessing(m) for m in methods):
        parts.append("A '—' under post-processing: the method clusters no "
                     "self-representation.")
    return " ".join(parts)


def postprocessing_used(method, params):
    """The affinity post-processing a compare row used, in the Solve page's names: its
    ``params`` over the protocol's (the paper's affinity where they say nothing), or "—"
    for a method that clusters no self-representation."""
    if not applies_postprocessing(method):
        return "—"
    p = {**{k: PAPER_AFFINITY[k] for k in _AFFINITY_KEYS}, **(params or {})}
    return POSTPROCESSING_NAMES.get(post_of(p), ", ".join(f"{k}={p[k]}" for k in _AFFINITY_KEYS))
