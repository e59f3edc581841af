"""Outlier scores, and their evaluation against an injected mask.

Three scores, each of shape (n_views, n_samples), higher = more suspicious:

* :func:`scores` - from a fitted RMSC's weights P (the loss behind each
  weight). Finds samples a view reconstructs badly (``replace``, ``noise``,
  ``features``); blind to view-inconsistent samples, which their view
  reconstructs well.
* :func:`inconsistency_scores` - disagreement between the clusters of a
  sample's neighbours in one view and in the other views. Finds
  view-inconsistent samples (``inconsistent``): clean-looking in every view,
  but each view says they belong elsewhere.
* :func:`knn_distance_scores` - the baseline: distance to the k-th nearest
  neighbour within the view. Whatever P finds beyond it, P found.

:func:`evaluate` and :func:`roc_curves` compare scores with the mask that
:func:`inject` (:mod:`rmsc.datasets`, re-exported here) records.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve
from sklearn.neighbors import NearestNeighbors

from ._validation import check_positive_int, check_views
from .datasets._outliers import FEATURE_FRACTION, FEATURE_SHIFT, KINDS, inject
from .preprocessing import normalize_l2
from .solver import loss_of_weight

__all__ = ["FEATURE_FRACTION", "FEATURE_SHIFT", "KINDS", "N_NEIGHBORS", "SCORES", "all_scores",
           "compare", "evaluate", "inconsistency_scores", "inject", "knn_distance_scores",
           "roc_curves", "scores", "view_neighbors"]

#: Neighbours per view behind :func:`inconsistency_scores` and :func:`knn_distance_scores`.
N_NEIGHBORS = 10


def scores(model):
    """Outlier scores of every (view, sample) pair from a fitted RMSC.

    RMSC's P-step sets ``P[v, j] = 1 / sqrt(gamma + l_vj)``, where ``l_vj`` is
    the sample's loss in that view (reconstruction error plus ``lam`` times
    the distance of its representation from the consensus), measured in the
    view's unit (its median loss at the start) under the default scaled model
    (``loss_scale="median"``), absolute under the paper's. The score is that
    loss, recovered from the weight: ``1 / P**2 - gamma`` - a low weight gives
    a high score. Within a view the score orders samples exactly as the
    weight does (in reverse).

    Parameters
    ----------
    model : fitted RMSC
        Anything with ``weights_`` of shape (n_views, n_samples) and ``gamma``.
        With ``weighting="view"`` (RMSC-WV) every sample of a view has the same
        weight, so its scores are flat and cannot single out samples.

    Returns
    -------
    ndarray of shape (n_views, n_samples)
        Higher = more suspicious.
    """
    P = getattr(model, "weights_", None)
    if P is None:
        raise ValueError(
            f"{type(model).__name__} has no fitted weights_: fit an RMSC model first "
            "(outlier scores come from its per-sample, per-view weights)."
        )
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 2:
        raise ValueError(f"weights_ has shape {P.shape}; expected (n_views, n_samples).")
    return loss_of_weight(P, float(getattr(model, "gamma", 0.0) or 0.0))


def _prepared_views(Xs, normalize, n_neighbors):
    views = check_views(Xs)
    n = views[0].shape[0]
    k = check_positive_int("n_neighbors", n_neighbors)
    if k >= n:
        raise ValueError(f"n_neighbors={k} needs at least {k + 1} samples; the data have {n}. "
                         "Lower n_neighbors.")
    if normalize:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # all-zero rows: the estimators warn
            views = [normalize_l2(X) for X in views]
    return views, k


def view_neighbors(Xs, n_neighbors=N_NEIGHBORS, *, normalize=True, return_distance=False):
    """Each sample's nearest neighbours within every view (itself excluded).

    Parameters
    ----------
    Xs : list of array-like or sparse matrices
        One per view, each of shape (n_samples, n_features_v).
    n_neighbors : int, default=10
    normalize : bool, default=True
        Scale every sample to unit L2 norm per view first (as the estimators
        do), so that distances compare directions.
    return_distance : bool, default=False

    Returns
    -------
    neighbors : ndarray of shape (n_views, n_samples, n_neighbors)
        Indices, nearest first.
    distances : ndarray of the same shape
        Only with ``return_distance=True``; Euclidean.
    """
    views, k = _prepared_views(Xs, normalize, n_neighbors)
    n = views[0].shape[0]
    idx = np.empty((len(views), n, k), dtype=np.int64)
    dist = np.empty((len(views), n, k))
    for v, X in enumerate(views):
        d, i = NearestNeighbors(n_neighbors=k + 1).fit(X).kneighbors(X)
        # Drop each sample itself; with exact duplicates it may not come first.
        own = i == np.arange(n)[:, None]
        drop = np.where(own.any(axis=1), own.argmax(axis=1), k)
        keep = np.ones_like(own)
        keep[np.arange(n), drop] = False
        idx[v] = i[keep].reshape(n, k)
        dist[v] = d[keep].reshape(n, k)
    return (idx, dist) if return_distance else idx


def knn_distance_scores(Xs, n_neighbors=N_NEIGHBORS, *, normalize=True):
    """Baseline outlier score: distance to the k-th nearest neighbour in each view.

    A sample far from every other sample of its view is suspicious. It needs
    no model, so it is the bar RMSC's :func:`scores` must clear to have
    learned anything about outliers.

    Parameters
    ----------
    Xs : list of array-like or sparse matrices
        One per view, each of shape (n_samples, n_features_v).
    n_neighbors : int, default=10
        k.
    normalize : bool, default=True
        Unit-L2 samples per view first (the estimators' preprocessing).

    Returns
    -------
    ndarray of shape (n_views, n_samples)
        Higher = more suspicious.
    """
    _, dist = view_neighbors(Xs, n_neighbors, normalize=normalize, return_distance=True)
    return dist[:, :, -1]


def inconsistency_scores(Xs, labels, n_neighbors=N_NEIGHBORS, *, normalize=True):
    """Score of view-inconsistent outliers: a view disagrees with the others about a sample.

    For sample j and view v, ``h_v(j)`` is the share of each cluster among its
    ``n_neighbors`` nearest neighbours in view v (clusters from ``labels``,
    e.g. a fitted model's ``labels_``); ``h_-v(j)`` is the mean of ``h_u(j)``
    over the other views u. The score is one minus their cosine similarity:
    0 when view v puts the sample among the same clusters as the other views,
    1 when it puts it among entirely different ones. A sample whose features
    in one view come from another class looks normal in that view (so its
    weight stays high and its k-NN distance small), but its neighbours there
    belong to the other class.

    Parameters
    ----------
    Xs : list of array-like or sparse matrices
        One per view, each of shape (n_samples, n_features_v). Needs at least
        two views.
    labels : array-like of shape (n_samples,)
        Cluster (or class) of every sample; any integer or string coding.
    n_neighbors : int, default=10
    normalize : bool, default=True
        Unit-L2 samples per view first (the estimators' preprocessing).

    Returns
    -------
    ndarray of shape (n_views, n_samples)
        In [0, 1]; higher = more suspicious. Within a view, a sample scored
        high disagrees with the other views; which view is the corrupted one
        is seen by comparing a sample's scores across views (the corrupted
        view disagrees with all the others, a clean view only with it).
    """
    views = check_views(Xs)
    if len(views) < 2:
        raise ValueError("inconsistency_scores compares views with each other: it needs at "
                         f"least two views; got {len(views)}.")
    _check_labels(labels, views[0].shape[0])
    return _inconsistency(view_neighbors(views, n_neighbors, normalize=normalize), labels)


def _check_labels(labels, n):
    y = np.asarray(labels).ravel()
    if y.shape[0] != n:
        raise ValueError(f"labels has {y.shape[0]} entries for {n} samples; "
                         "pass one cluster label per sample.")
    return y


def _inconsistency(N, labels):
    """:func:`inconsistency_scores` from the views' neighbour indices ``N`` (n_views, n, k)."""
    _, codes = np.unique(_check_labels(labels, N.shape[1]), return_inverse=True)
    onehot = np.eye(codes.max() + 1)[codes]
    H = onehot[N].mean(axis=2)  # (n_views, n_samples, n_clusters)
    total = H.sum(axis=0)
    out = np.empty(H.shape[:2])
    for v in range(len(H)):
        other = (total - H[v]) / (len(H) - 1)
        cos = (H[v] * other).sum(axis=1) / (np.linalg.norm(H[v], axis=1)
                                             * np.linalg.norm(other, axis=1))
        out[v] = 1.0 - cos
    return np.clip(out, 0.0, 1.0)


#: The scores :func:`all_scores` computes: key -> name shown to people.
SCORES = {
    "weights": "RMSC weights P",
    "inconsistency": "view inconsistency",
    "knn": f"distance to {N_NEIGHBORS}th neighbour",
}


def all_scores(Xs, model, labels, n_neighbors=N_NEIGHBORS, *, normalize=True):
    """The three outlier scores of a fit, keyed as :data:`SCORES`.

    Parameters
    ----------
    Xs : list of array-like or sparse matrices
        The views the model was fitted on, each (n_samples, n_features_v).
    model : fitted RMSC
        Anything :func:`scores` accepts (``weights_``, ``gamma``).
    labels : array-like of shape (n_samples,)
        The model's clusters (``labels_``), for :func:`inconsistency_scores`.
    n_neighbors : int, default=10
    normalize : bool, default=True

    Returns
    -------
    dict of str -> ndarray of shape (n_views, n_samples)
        ``"inconsistency"`` is absent for a single view (nothing to compare).
    """
    out = {"weights": scores(model)}
    # One neighbour search per view serves both neighbour-based scores.
    N, dist = view_neighbors(Xs, n_neighbors, normalize=normalize, return_distance=True)
    if len(N) > 1:
        out["inconsistency"] = _inconsistency(N, labels)
    out["knn"] = dist[:, :, -1]
    return out


def compare(scores_by_name, mask, view_names=None):
    """:func:`evaluate` for several scores, in one table with a ``score`` column first.

    Parameters
    ----------
    scores_by_name : dict of str -> array of shape (n_views, n_samples)
        E.g. from :func:`all_scores`; keys of :data:`SCORES` are shown by their names.
    mask : bool array of shape (n_views, n_samples)
    view_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame
        ``score``, ``view``, ``outliers``, ``roc_auc``, ``average_precision``:
        one row per score and view.
    """
    tables = []
    for key, S in scores_by_name.items():
        t = evaluate(S, mask, view_names)
        t.insert(0, "score", SCORES.get(key, key))
        tables.append(t)
    return pd.concat(tables, ignore_index=True)


def _check_scores_mask(scores_, mask):
    if mask is None:
        raise ValueError("There is no outlier mask to evaluate against: inject outliers first "
                         "(rmsc.outliers.inject).")
    S = np.asarray(scores_, dtype=np.float64)
    M = np.asarray(mask, dtype=bool)
    if S.ndim != 2 or S.shape != M.shape:
        raise ValueError(
            f"scores have shape {S.shape} but the mask has shape {M.shape}; both must be "
            "(n_views, n_samples) for the same data."
        )
    if not np.all(np.isfinite(S)):
        raise ValueError("The scores contain NaN or infinite values; they cannot be ranked.")
    return S, M


def evaluate(scores, mask, view_names=None):
    """ROC-AUC and average precision of the scores against the mask, per view.

    Parameters
    ----------
    scores : array of shape (n_views, n_samples)
        Higher = more suspicious (:func:`scores`).
    mask : bool array of shape (n_views, n_samples)
        True where a pair was corrupted (``dataset.outlier_mask``).
    view_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame
        One row per view: ``view``, ``outliers`` (count), ``roc_auc``,
        ``average_precision`` (NaN where a view has no outliers or only
        outliers: nothing to rank).
    """
    S, M = _check_scores_mask(scores, mask)
    names = list(view_names) if view_names is not None else [f"view {v}" for v in range(len(S))]
    if len(names) != len(S):
        raise ValueError(f"{len(names)} view names for {len(S)} views of scores.")
    rows = []
    for name, s, m in zip(names, S, M):
        k = int(m.sum())
        if 0 < k < m.size:
            auc = float(roc_auc_score(m, s))
            ap = float(average_precision_score(m, s))
        else:
            auc = ap = float("nan")
        rows.append({"view": name, "outliers": k, "roc_auc": auc, "average_precision": ap})
    return pd.DataFrame(rows, columns=["view", "outliers", "roc_auc", "average_precision"])


def roc_curves(scores, mask):
    """ROC curve of every view: a list of (fpr, tpr) arrays, or None where undefined."""
    S, M = _check_scores_mask(scores, mask)
    out = []
    for s, m in zip(S, M):
        if 0 < m.sum() < m.size:
            fpr, tpr, _ = roc_curve(m, s)
            out.append((fpr, tpr))
        else:
            out.append(None)
    return out
