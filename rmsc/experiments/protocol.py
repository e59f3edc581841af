"""The paper's protocol, in one place: fit a method, spectral clustering, k-means 20 times, scores.

Every sample scaled to unit L2 norm per view (inside each estimator), spectral
clustering of the method's result, k-means 20 times, ACC/NMI/ARI/purity as
mean ± std over those runs. The reproduction's search and every table of
:mod:`rmsc.experiments.tables` score methods through :func:`run_one`.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from ..methods import get_method
from ..metrics import best_view, evaluate_runs
from ..rmsc import FORMER_STOPPING, PAPER_MODEL
from .cache import Record


#: The paper's affinity (|Z| + |Z^T|)/2, which the protocol uses unless ``params`` say
#: otherwise: RMSC's own default divides the columns by their maxima first
#: (docs/defaults.md), but the paper's tables are scored on the plain affinity (the
#: reproduction's "none" variant). Likewise the paper's spectral step clusters every
#: sample from that affinity: RMSC's default placement of the samples the consensus
#: isolates (docs/robustness.md) is left out unless ``params`` ask for it. No thresholding
#: of the columns either (``keep_mass``, ``top_k``).
PAPER_AFFINITY = {"keep_mass": None, "top_k": None, "scale_columns": False, "placement": None}


#: The paper's model and its stopping, which the protocol fits RMSC and RMSC-WV with unless
#: ``params`` say otherwise: absolute losses with the paper's gamma
#: (:data:`rmsc.rmsc.PAPER_MODEL`) and the objective's relative decrease as the stopping
#: rule (:data:`rmsc.rmsc.FORMER_STOPPING`). The library's defaults (a scaled model that
#: stops on the consensus's change, docs/stability.md) are a choice beyond the paper; its
#: tables are the paper's model's.
PAPER_SOLVER = {**PAPER_MODEL, **FORMER_STOPPING}


#: The parameters of RMSC's model and stopping (what :data:`PAPER_SOLVER` sets, and the
#: scaled model's power).
SOLVER_KEYS = (*PAPER_SOLVER, "scale_power")


def at_library_defaults(method, params):
    """``params`` with ``method``'s own defaults for the model and stopping parameters
    (:data:`SOLVER_KEYS`) they leave out, so that :func:`run_one` fits the library's model
    (as the dashboard's Solve page does), not the paper's (:data:`PAPER_SOLVER`): the
    dashboard's Compare and Sensitivity pass their settings through this. Methods without
    those parameters get ``params`` unchanged."""
    takes = get_method(method).get_params()
    if not _has_rmsc_model(takes):
        return dict(params)
    fill = {k: takes[k] for k in SOLVER_KEYS if k not in params}
    return {**fill, **dict(params)}


def at_own_defaults(method, params):
    """``params`` with ``method``'s own (registry) defaults for every parameter the protocol
    would otherwise set the paper's way: the affinity post-processing and placement
    (:data:`PAPER_AFFINITY`) and RMSC's model and stopping (:data:`SOLVER_KEYS`). Through
    :func:`run_one` the method is then fitted exactly as ``rmsc.get_method(method,
    **params)`` (and ``rmsc fit --method``) fits it: the Compare page's default, each
    method at its own post-processing, and the number-of-views chart use this."""
    takes = get_method(method).get_params()
    keys = [k for k in PAPER_AFFINITY if k in takes]
    if _has_rmsc_model(takes):
        keys += [k for k in SOLVER_KEYS if k in takes]
    return {**{k: takes[k] for k in keys if k not in params}, **dict(params)}


def _has_rmsc_model(takes):
    """Whether an estimator with parameters ``takes`` is RMSC's (RMSC, RMSC-WV): it has
    the model's ``loss_scale``. Other methods' ``tol`` and ``max_iter`` are their own."""
    return "loss_scale" in takes




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
        Estimator parameters (``n_clusters`` and ``random_state`` are set here; the
        affinity is :data:`PAPER_AFFINITY` and RMSC's model and stopping
        :data:`PAPER_SOLVER` unless they set those parameters).
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
    takes = est.get_params()
    paper = {k: v for k, v in PAPER_AFFINITY.items() if k in takes}
    if _has_rmsc_model(takes):
        paper.update(PAPER_SOLVER)
    est.set_params(**{**paper, **params, "n_clusters": n_clusters,
                      "random_state": random_state})
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
