"""Parameters suggested without labels: RMSC's lambda and beta from the graph it builds.

Users clustering their own data have no labels to tune with. :func:`suggest_parameters`
fits RMSC over a small grid (lambda x ``beta_rel``, beta in the data's own unit, see
:class:`rmsc.RMSC`) and keeps the setting whose clustering looks most settled
(:func:`graph_criterion`, :data:`CRITERIA`):

1. connectivity first: the fewest isolated samples (no link in Z*), then no more
   connected pieces than clusters;
2. then (``criterion="agreement"``, the default) the largest agreement of the 20 k-means
   runs with the one kept (their mean adjusted Rand index, :func:`clustering_agreement`):
   k-means on an embedding with c clear groups lands on the same partition from any
   start; or (``criterion="eigengap"``, the criterion before the stability study) the largest
   eigengap of the normalised Laplacian at c, lambda_{c+1} - lambda_c of
   I - D^{-1/2} S D^{-1/2} (Ng, Jordan & Weiss 2002, von Luxburg 2007).

**It is not a recommendation.** The stability study chose the criterion by leave-one-dataset-out
(LODO) over every dataset of the repository (docs/stability.md, "7. The suggestion: leave
one dataset out"): of five label-free criteria (the eigengap, the relative gap, the
relaxed cut, the k-means runs' agreement, gap x agreement), LODO chose the k-means
agreement on most folds, hence the default; but the criterion LODO picks did not beat
the defaults' mean regret, there or on public datasets the repository does not hold.
It is offered to explore, saying which
setting it chose and why; the defaults stay the default.
On the dashboard: the Solve page's "Suggest λ and β (no labels)"
(:mod:`rmsc.dashboard.suggest`).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse.csgraph import connected_components

from ._validation import check_n_clusters, check_views
from .spectral import eigengap, spectral_embedding

#: The lambdas :func:`suggest_parameters` tries: the two defaults (RMSC's 1, RMSC-WV's 3),
#: the grid of the stability study (docs/stability.md).
SUGGEST_LAMS = (1.0, 3.0)


#: The ``beta_rel`` values it tries (beta in units of the data's scale, rmsc.RMSC; the
#: grid of the stability study).
SUGGEST_BETA_RELS = (0.125, 0.25, 0.5, 1.0)


#: The criteria :func:`suggest_parameters` can rank the settings by (after connectivity).
CRITERIA = ("agreement", "eigengap")


#: The default criterion: the one leave-one-dataset-out chose (docs/stability.md).
SUGGEST_CRITERION = "agreement"


def clustering_agreement(labels, runs):
    """Mean adjusted Rand index of k-means runs with the labelling kept (1: all agree).

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The run kept (an estimator's ``labels_``).
    runs : array-like of shape (n_runs, n_samples)
        Every run (``label_runs_``).
    """
    from sklearn.metrics import adjusted_rand_score

    runs = np.atleast_2d(np.asarray(runs))
    return float(np.mean([adjusted_rand_score(labels, r) for r in runs]))


@dataclass(frozen=True)
class GraphCriterion:
    """How well an affinity graph supports ``n_clusters`` clusters, without labels.

    Attributes
    ----------
    eigengap : float
        lambda_{c+1} - lambda_c of the normalised Laplacian (0 to 1; larger is better).
    isolated : int
        Samples with no link to any other.
    pieces : int
        Connected components of the graph.
    n_clusters : int
    agreement : float or None
        :func:`clustering_agreement` of the fit's k-means runs (None when not measured).
    """

    eigengap: float
    isolated: int
    pieces: int
    n_clusters: int
    agreement: float | None = None

    def rank_key(self, criterion="eigengap"):
        """Sort key, best first: fewest isolated samples, no excess pieces, then the
        largest eigengap (``criterion="eigengap"``) or k-means agreement (``"agreement"``)."""
        if criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {', '.join(map(repr, CRITERIA))}; "
                             f"got {criterion!r}.")
        last = self.eigengap if criterion == "eigengap" else (self.agreement or 0.0)
        return (self.isolated, max(0, self.pieces - self.n_clusters), -last)


def graph_criterion(S, n_clusters, *, random_state=0):
    """:class:`GraphCriterion` of a symmetric affinity ``S`` (n x n, sparse or dense)."""
    n = S.shape[0]
    check_n_clusters(n_clusters, n)
    isolated = int(np.count_nonzero(np.asarray(abs(S).sum(axis=1)).ravel() <= 0))
    pieces = int(connected_components(S, directed=False)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # isolated samples: counted above
        _, w = spectral_embedding(S, n_clusters, random_state=random_state,
                                  return_eigenvalues=True)
    return GraphCriterion(eigengap=max(eigengap(w, n_clusters), 0.0), isolated=isolated, pieces=pieces,
                          n_clusters=int(n_clusters))


@dataclass(frozen=True)
class Suggestion:
    """What :func:`suggest_parameters` returns.

    Attributes
    ----------
    params : dict
        The chosen ``lam``, ``beta`` ("auto") and ``beta_rel``: pass them to
        ``rmsc.RMSC`` (or ``get_method``) with the same ``weighting``.
    beta : float
        The chosen setting's absolute beta on these data (``RMSC.beta_``).
    table : list of dict
        One row per setting tried: lam, beta_rel, beta, eigengap, isolated, pieces,
        agreement (or error), in the order tried.
    best : int
        Index of the chosen row in ``table``.
    model : rmsc.RMSC
        The chosen setting's fitted estimator.
    timings : list of dict
        Seconds of each setting tried (the order of ``table``): ``seconds`` its whole
        turn (the estimator built and fitted, then its criterion), ``fit`` the estimator's
        ``fit`` (its ``fit_time_`` and the spectral step), ``fit_time`` the estimator's
        ``fit_time_``, ``criterion`` :func:`graph_criterion`, ``agreement``
        :func:`clustering_agreement` (the last two 0 when the fit failed).
    """

    params: dict
    beta: float
    table: list = field(default_factory=list)
    best: int = 0
    model: object = None
    timings: list = field(default_factory=list)


def suggest_parameters(Xs, n_clusters, *, weighting="sample", lams=SUGGEST_LAMS,
                       beta_rels=SUGGEST_BETA_RELS, criterion=SUGGEST_CRITERION,
                       random_state=0, progress=None, **params):
    """Choose RMSC's lambda and beta without labels (see the module docstring).

    Without labels, this tries 8 settings and keeps the one whose clustering looks most
    settled (every sample linked, k-means agreeing with itself). Tested on every dataset
    in this repository by leaving each one out, no such criterion chose better settings
    than the defaults (mean regret 1.47 against the defaults' 1.10 ACC points for RMSC,
    1.42 against 0.61 for RMSC-WV; docs/stability.md): use it to explore, not as a
    recommendation — the defaults stay the default.

    Parameters
    ----------
    Xs : list of array-like or sparse matrices
        One per view, each of shape (n_samples, n_features_v).
    n_clusters : int
    weighting : {"sample", "view"}, default="sample"
        RMSC or RMSC-WV.
    lams : sequence of float, default=SUGGEST_LAMS
    beta_rels : sequence of float, default=SUGGEST_BETA_RELS
        beta in units of the data's own scale (``RMSC.beta_scale_``).
    criterion : {"agreement", "eigengap"}, default=SUGGEST_CRITERION
        What ranks the connected settings (see the module docstring).
    random_state : int, default=0
    progress : callable(done, total, message) or None
        Called before each setting (``done`` settings finished, ``total`` in the grid,
        e.g. "setting 3 of 8: lam=1, beta_rel=0.25") and once at the end. It may raise
        to stop between settings (the dashboard's job does when it is cancelled).
    **params
        Other ``rmsc.RMSC`` parameters (e.g. ``max_iter``, ``scale_columns``), the same
        for every setting.

    Returns
    -------
    Suggestion

    Raises
    ------
    rmsc.DegenerateSolutionError
        When no setting of the grid gives a usable clustering.
    """
    from .rmsc import RMSC, DegenerateSolutionError

    views = check_views(Xs)
    check_n_clusters(n_clusters, views[0].shape[0])
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {', '.join(map(repr, CRITERIA))}; "
                         f"got {criterion!r}.")
    table, timings = [], []
    best = None  # (rank key, row of the table, fitted estimator) of the best setting so far
    grid = [(lam, rel) for lam in lams for rel in beta_rels]
    for k, (lam, rel) in enumerate(grid):
        if progress is not None:
            progress(k, len(grid), f"setting {k + 1} of {len(grid)}: lam={lam:g}, "
                                   f"beta_rel={rel:g}")
        t0 = time.perf_counter()
        est = RMSC(n_clusters=n_clusters, lam=lam, beta="auto", beta_rel=rel,
                   weighting=weighting, random_state=random_state, **params)
        row = {"lam": float(lam), "beta_rel": float(rel)}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                est.fit(views)
        except DegenerateSolutionError as exc:
            row.update(beta=getattr(est, "beta_", float("nan")), error=str(exc))
            table.append(row)
            seconds = time.perf_counter() - t0
            timings.append({"seconds": seconds, "fit": seconds,
                            "fit_time": float(getattr(est, "fit_time_", seconds)),
                            "criterion": 0.0, "agreement": 0.0})
            continue
        t1 = time.perf_counter()
        crit = graph_criterion(est.affinity_matrix_, n_clusters, random_state=random_state)
        t2 = time.perf_counter()
        crit = GraphCriterion(crit.eigengap, crit.isolated, crit.pieces, crit.n_clusters,
                              clustering_agreement(est.labels_, est.label_runs_))
        t3 = time.perf_counter()
        timings.append({"seconds": t3 - t0, "fit": t1 - t0, "fit_time": float(est.fit_time_),
                        "criterion": t2 - t1, "agreement": t3 - t2})
        row.update(beta=float(est.beta_), eigengap=crit.eigengap, isolated=crit.isolated,
                   pieces=crit.pieces, agreement=crit.agreement)
        table.append(row)
        key = crit.rank_key(criterion)
        if best is None or key < best[0]:  # ties: the first setting tried
            best = (key, len(table) - 1, est)
    if progress is not None:
        progress(len(grid), len(grid), "done")
    if best is None:
        raise DegenerateSolutionError(
            f"None of the {len(table)} settings (lam in {list(lams)}, beta_rel in "
            f"{list(beta_rels)}) gave a usable clustering; try smaller beta_rels or larger lams."
        )
    _, index, est = best
    row = table[index]
    return Suggestion(params={"lam": row["lam"], "beta": "auto", "beta_rel": row["beta_rel"]},
                      beta=row["beta"], table=table, best=index, model=est, timings=timings)
