"""Fitting RMSC for a page: what a page's settings mean to the estimator, the fit's cache
key, the fit itself (the result every page reads) and plain-words diagnostics.

:func:`~rmsc.dashboard.params.estimator_params` translates the pages'
:class:`~rmsc.dashboard.params.Params` into the estimator's keyword arguments and
:func:`~rmsc.dashboard.params.fit_key` into the small key of its result (both derived from the
parameters' table, :data:`~rmsc.dashboard.params.SETTINGS`); :func:`fit_rmsc` (on a worker)
fits with them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from .._array_api import to_numpy
from .._deferred import Deferred
from ..device import DEVICE_ENV, device_from_env, fit_on
from ..dominance import dominance_facts, dominance_message
from ..inspection import P_SHARE_LABEL, SHARE_LABEL, view_quality, view_weight_shares
from ..methods import get_method
from ..metrics import evaluate, evaluate_runs
from ..rmsc import DegenerateSolutionError
from ..tracking import ClusteringTrace
from .params import Params, fit_request
from .tables import markdown_table, scoring_labels
from .words import page_words

#: Iterations between two clusterings the Solve page records along a fit
#: (:class:`rmsc.tracking.ClusteringTrace`): each costs a spectral embedding and two k-means
#: runs, so only every 10th iteration is recorded (what one cost on Digit: docs/measurements.md,
#: "Measured once, by hand").
PAGE_TRACE_EVERY = 10

#: How many of the last recorded clusterings :func:`trace_summary` reports on.
SETTLED_ROWS = 3


@dataclass(frozen=True)
class FitResult(Deferred):
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
    #: The absolute β of the fit (``rmsc.RMSC.beta_``; differs from ``params.beta`` for "auto").
    beta: float | None = None
    #: Where the fit ran, for people (:attr:`rmsc.device.DeviceChoice.description`): the
    #: worker's ``RMSC_DEVICE`` (a GPU when one is present, by default).
    device: str = "CPU (NumPy)"
    #: The clustering along the iterations (:attr:`rmsc.tracking.ClusteringTrace.rows`, the
    #: fit's own clustering last); empty in made-up results.
    trace: tuple = ()
    #: What the stopping rule measured after every iteration (``rmsc.RMSC.changes_``).
    changes: np.ndarray | None = None
    #: The stopping rule (``rmsc.RMSC.stop_on``): "zstar" or "objective".
    stop_on: str | None = None
    #: Z*'s number of nonzero entries, so that :attr:`density` reads no Z* (a result read
    #: from disk reads its large arrays only when touched); None: counted in ``consensus``.
    consensus_nnz: int | None = None

    @property
    def weights_(self):
        """P under the estimator's attribute name, so ``rmsc.outliers.scores(result)`` works."""
        return self.weights

    @property
    def gamma(self):
        """The fit's gamma (with ``weights_``, what ``rmsc.outliers.scores`` reads)."""
        return self.params.gamma

    @property
    def placed(self):
        """Samples placed by their neighbours in the views (``RMSC.placed_``); empty if none."""
        return np.asarray(getattr(self.model, "placed_", ()), dtype=np.int64)

    @property
    def density(self):
        """Fraction of nonzero entries of Z*."""
        nnz = self.consensus.nnz if self.consensus_nnz is None else self.consensus_nnz
        n = len(self.labels)
        return nnz / float(n * n)

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

    def metrics_text(self):
        """:meth:`metrics_table` as the Solve page draws it: Markdown, every percentage to
        0.01 (:func:`~rmsc.dashboard.tables.markdown_table`); None without scores."""
        table = self.metrics_table()
        if table is None:
            return None
        return markdown_table(table, {c: ".2f" for c in ("mean %", "std %", "chosen run %")})


@dataclass(frozen=True)
class FitFailure:
    """A fit that ran and failed with a message the user can act on."""

    key: tuple
    params: Params
    #: What went wrong and what to try, in the pages' words (:func:`page_words`).
    message: str
    degenerate: bool
    #: Where Z* empties for these data (``rmsc.RMSC.beta_max_``), when the fit got that far.
    beta_max: float | None = None


def fit_rmsc(dataset, params, job=None, *, request=None):
    """Fit RMSC (or RMSC-WV) to ``dataset`` with ``params``, reporting to ``job``.

    Every iteration records ``(iteration, objective)`` on the job's live curve,
    with the mean weight of every view as its latest state; every
    :data:`PAGE_TRACE_EVERY` iterations the clustering of the current Z* is recorded
    (:class:`rmsc.tracking.ClusteringTrace`) and its row sent to the job
    (``job.add_row``); a stop request
    finishes the iterations early (the clustering still runs), a cancel
    abandons the fit. ``request``: ``(key, kwargs)`` of :func:`fit_request`, when the
    server computed them already (they are computed here otherwise).

    Returns
    -------
    FitResult, or FitFailure when the estimator raises
    :class:`rmsc.DegenerateSolutionError` (its message says what to change).
    Other errors propagate (a :class:`Job` turns them into messages).
    """
    key, kwargs = request if request is not None else fit_request(params, dataset)
    method = key[2]  # the registry's name (fit_request's key), computed where it was asked for
    max_iter = kwargs["max_iter"]
    stopped = {"early": False}

    def callback(iteration, objective, weights):
        if job is None:
            return False
        job.check()
        job.record((int(iteration), float(objective)), latest=to_numpy(weights).mean(axis=1))
        job.report(iteration, max_iter, f"iteration {iteration} of at most {max_iter}")
        if job.stop_requested:
            stopped["early"] = iteration < max_iter
            return True
        return False

    labels = scoring_labels(dataset)
    send_row = getattr(job, "add_row", None)  # a job that keeps no table gets none
    trace = ClusteringTrace(kwargs["n_clusters"], every=PAGE_TRACE_EVERY, labels=labels,
                            keep_mass=kwargs["keep_mass"], top_k=kwargs["top_k"],
                            scale_columns=kwargs["scale_columns"],
                            random_state=kwargs["random_state"],
                            callback=callback,
                            on_record=send_row)
    est = get_method(method, callback=trace, **kwargs)
    try:
        # on the worker's device (RMSC_DEVICE; a GPU fit's attributes come back as NumPy)
        choice = fit_on(est, list(dataset.views), device_from_env())
    except DegenerateSolutionError as exc:
        beta_max = getattr(est, "beta_max_", None)
        return FitFailure(key=key, params=params, message=page_words(str(exc)), degenerate=True,
                          beta_max=None if beta_max is None else float(beta_max))
    trace.finish(est)  # on_record sends the final row too
    scores = chosen = None
    if labels is not None:
        scores = evaluate_runs(labels, est.label_runs_)
        chosen = evaluate(labels, est.labels_)
    consensus = sp.csr_matrix(est.consensus_)
    result = FitResult(
        key=key, params=params, dataset_name=dataset.name, n_clusters=kwargs["n_clusters"],
        labels=np.asarray(est.labels_), label_runs=np.asarray(est.label_runs_),
        weights=np.asarray(est.weights_), consensus=consensus,
        affinity=sp.csr_matrix(est.affinity_matrix_), embedding=np.asarray(est.embedding_),
        objective=np.asarray(est.objective_), terms=dict(est.objective_terms_),
        objective_init=float(est.objective_init_), n_iter=int(est.n_iter_),
        converged=bool(est.converged_), stopped_early=stopped["early"],
        fit_time=float(est.fit_time_), spectral_time=float(est.spectral_time_),
        beta_max=float(est.beta_max_), scores=scores, chosen_scores=chosen, diagnostics=(),
        model=est.set_params(callback=None), beta=float(est.beta_),
        device=choice.description,
        trace=tuple(trace.rows), changes=np.asarray(est.changes_, dtype=float),
        stop_on=est.stop_on, consensus_nnz=int(consensus.nnz),
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
    if isolated and np.isin(np.flatnonzero(result.affinity.getnnz(axis=1) == 0),
                            result.placed).all():
        out.append(("info",
            f"{isolated} sample(s) have no link to any other sample in Z* (typically outliers, "
            f"whose columns the weights shrink); they and {result.placed.size - isolated} "
            "weakly linked one(s) were placed by their nearest neighbours in the views that "
            "still trust them (placement='neighbors')."
        ))
    elif isolated:
        out.append(("warning",
            f"{isolated} sample(s) have no link to any other sample in Z*, so their cluster "
            "is arbitrary. A smaller β keeps more coefficients."
        ))
    pieces = connected_components(result.affinity, directed=False)[0]
    if pieces > result.n_clusters:
        out.append(("warning",
            f"The consensus graph falls into {pieces} disconnected pieces, more than the "
            f"{result.n_clusters} clusters asked for, so spectral clustering merges pieces "
            f"arbitrarily. A smaller β (now {_beta_of(result):g}; Z* empties at "
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
        measured = ""
        if result.changes is not None and len(result.changes):
            measured = f" was {result.changes[-1]:.3g} at the last iteration,"
        out.append(("info",
            f"Not converged within {result.n_iter} iterations: "
            f"{STOP_MEASURES.get(result.stop_on, 'the stopping rule’s measure')}{measured} "
            f"above tol = {result.params.tol:g}."
        ))
    settled = trace_summary(result.trace)
    if settled:
        out.append(("info", settled))
    return out


#: What each stopping rule (``rmsc.RMSC.stop_on``) measures, in words.
STOP_MEASURES = {"zstar": "the relative change of Z* in one iteration",
                 "objective": "the objective’s relative decrease in one iteration"}


def trace_summary(rows, last=SETTLED_ROWS):
    """A measured sentence on how settled the clustering was at the end of a fit, or None.

    ``rows`` are :attr:`rmsc.tracking.ClusteringTrace.rows` (the fit's own clustering,
    ``final``, is left out: it comes from 20 k-means runs, not the quick clustering the
    other rows compare). Reports the lowest adjusted Rand index with the previous recorded
    clustering and the most samples that changed cluster over the ``last`` recorded ones.
    """
    rows = [r for r in rows if not r.get("final") and r.get("ari_previous") is not None]
    if not rows:
        return None
    tail = rows[-last:]
    ari = min(float(r["ari_previous"]) for r in tail)
    changed = max(int(r["changed"]) for r in tail)
    first, end = tail[0]["iteration"], tail[-1]["iteration"]
    span = f"iteration {end}" if len(tail) == 1 else f"iterations {first}–{end}"
    count = "The last recorded clustering" if len(tail) == 1 else (
        f"The last {len(tail)} recorded clusterings")
    return (f"{count} ({span}) agreed with the one recorded before at ARI ≥ {ari:.3f}; "
            f"at most {changed} sample(s) changed cluster between two of them.")


def _beta_of(result):
    """The absolute β of a fit (the params' own when the result does not record it)."""
    return result.beta if result.beta is not None else result.params.beta


def device_text():
    """Where the dashboard's fits run, in one line for the sidebar: the device
    ``RMSC_DEVICE`` names (``auto``: a GPU when one is present), resolved here, with why
    when ``auto`` fell back to the CPU; or what is wrong with the variable."""
    try:
        choice = device_from_env()
    except ValueError as exc:
        return f"{DEVICE_ENV} cannot be used: {exc}"
    return choice.description + (f" ({choice.reason})" if choice.reason else "")


def weight_shares(result, dataset, spread=None):
    """Each view's part of a fit's weights, and the plain-words message when one dominates.

    :func:`rmsc.inspection.view_weight_shares` and :func:`rmsc.dominance.dominance_message`
    of the fit (its P, γ, and under the scaled model its view factors and units), with the
    views' names and numbers of features, and ``spread``
    (:func:`rmsc.preprocessing.spread_directions` of each view of ``dataset``, or None: the
    message then says nothing of why the top view is easy to rebuild).

    Returns
    -------
    shares : list of dict
        One per view (keys of :func:`rmsc.inspection.view_weight_shares`).
    message : str or None
    """
    kwargs = _share_arguments(result, dataset)
    return (view_weight_shares(result.weights, **kwargs),
            dominance_message(result.weights, **kwargs, spread=spread))


def weight_dominance(result, dataset, spread=None):
    """:func:`rmsc.dominance.dominance_facts` of a fit (the numbers behind
    :func:`weight_shares`' message, ``spread`` as there; None when no view carries most of
    the weight): without ``spread``, enough to know whether the spread is needed."""
    return dominance_facts(result.weights, **_share_arguments(result, dataset), spread=spread)


def _share_arguments(result, dataset):
    """The fit's γ, and under the scaled model its view factors and units, with the views'
    names and numbers of features: what the weights' shares are computed from."""
    model = result.model
    return dict(gamma=float(getattr(model, "gamma", result.params.gamma)),
                view_names=list(dataset.view_names),
                factors=getattr(model, "view_factors_", None),
                scale=getattr(model, "loss_scale_", None),
                n_features=[int(X.shape[1]) for X in dataset.views])


#: The weights table's column of each view's scale c_v (1 under the paper's model).
VIEW_SCALE_LABEL = "view scale cᵥ"


def weight_shares_table(shares):
    """:func:`weight_shares`' rows as the Weights page's table (percentages): each view's
    share of the consensus weight Σc_vP (how much it counts in Z*) and its share of ΣP
    (P alone), two different quantities under the scaled model."""
    return pd.DataFrame([{
        "view": s["view"], "features": s["n_features"],
        f"{SHARE_LABEL} %": 100 * s["share"], f"{P_SHARE_LABEL} %": 100 * s["p_share"],
        "samples at the cap %": 100 * s["at_cap"],
        "mean weight": s["mean_weight"], "median loss": s["median_loss"],
        VIEW_SCALE_LABEL: s["factor"],
    } for s in shares])


def view_quality_key(params, dataset):
    """A small cache key of :func:`run_view_quality` on ``dataset``: its fingerprint, the
    number of clusters and the seed (the per-view runs depend on nothing else)."""
    return ("quality", dataset.fingerprint, params.resolved_clusters(dataset), params.seed)


def run_view_quality(dataset, params, job=None):
    """How informative each view of ``dataset`` is on its own
    (:func:`rmsc.inspection.view_quality`, scored against the labels when they are
    usable), with the pages' number of clusters and seed: a worker's task.

    Returns
    -------
    list of dict
        One per view: ``view``, ``eigengap``, ``acc``, ``nmi`` (None without labels).
    """
    if job is not None:
        job.report(0, 1, "clustering every view on its own")
    out = view_quality(list(dataset.views), params.resolved_clusters(dataset),
                       scoring_labels(dataset), view_names=list(dataset.view_names),
                       random_state=params.seed)
    if job is not None:
        job.report(1, 1, "done")
    return out


def trust_quality_table(shares, quality):
    """Each view's share of the consensus weight beside its own quality, as the Weights
    page's table (percentages; the ACC and NMI columns only with labels)."""
    rows = []
    for s, q in zip(shares, quality, strict=True):
        row = {"view": s["view"], f"{SHARE_LABEL} %": 100 * s["share"]}
        if q["acc"] is not None:
            row.update({"own ACC %": 100 * q["acc"], "own NMI %": 100 * q["nmi"]})
        row["own eigengap"] = q["eigengap"]
        rows.append(row)
    return pd.DataFrame(rows)
