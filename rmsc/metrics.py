"""Clustering metrics of the paper's protocol: ACC, NMI, ARI and purity."""

from __future__ import annotations

from math import log

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

#: Metric names, in reporting order.
METRICS = ("acc", "nmi", "ari", "purity")


def _check_labels(labels_true, labels_pred):
    y = np.asarray(labels_true).ravel()
    p = np.asarray(labels_pred).ravel()
    if y.shape != p.shape:
        raise ValueError(
            f"labels_true has {y.size} entries but labels_pred has {p.size}; "
            "they must describe the same samples."
        )
    if y.size == 0:
        raise ValueError("Cannot evaluate an empty labelling.")
    return y, p


def match_clusters(labels_true, labels_pred):
    """The one-to-one matching of clusters to classes that agrees on the most samples.

    Hungarian algorithm (``scipy.optimize.linear_sum_assignment``) on the
    contingency table.

    Returns
    -------
    classes : ndarray
        The distinct true labels (sorted).
    clusters : ndarray
        The distinct predicted labels (sorted).
    pairs : ndarray of shape (n_matched, 2)
        Rows ``(i, j)``: cluster ``clusters[j]`` is matched to class ``classes[i]``.
        Clusters left without a class (more clusters than classes) are absent.
    agree : int
        Samples whose cluster is matched to their class.
    """
    y, p = _check_labels(labels_true, labels_pred)
    classes, y_idx = np.unique(y, return_inverse=True)
    clusters, p_idx = np.unique(p, return_inverse=True)
    C = contingency_matrix(y_idx, p_idx)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return classes, clusters, np.column_stack([rows, cols]), int(C[rows, cols].sum())


def clustering_accuracy(labels_true, labels_pred):
    """Accuracy under the best one-to-one matching of clusters to classes.

    The matching maximises the number of agreeing samples
    (:func:`match_clusters`); clusters left without a class (more clusters
    than classes) count as wrong.
    """
    return match_clusters(labels_true, labels_pred)[3] / np.asarray(labels_true).size


def purity(labels_true, labels_pred):
    """Fraction of samples that belong to the majority class of their cluster."""
    y, p = _check_labels(labels_true, labels_pred)
    C = contingency_matrix(y, p)
    return C.max(axis=0).sum() / y.size


def evaluate(labels_true, labels_pred):
    """ACC, NMI (geometric normalisation, as in the paper), ARI and purity.

    All four from one contingency table: NMI and ARI are
    ``sklearn.metrics.normalized_mutual_info_score(..., average_method="geometric")`` and
    ``adjusted_rand_score`` to the last bit (their formulas, special cases included, on the
    table those functions build), without their input checks repeated for each metric
    (most of their time: docs/measurements.md, "How long the suite takes").

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)

    Returns
    -------
    dict with keys ``"acc"``, ``"nmi"``, ``"ari"``, ``"purity"``, each in [0, 1]
    (ARI may be negative).
    """
    y, p = _check_labels(labels_true, labels_pred)
    C = _contingency(y, p)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return {
        "acc": float(int(C[rows, cols].sum()) / y.size),
        "nmi": _nmi_geometric(C),
        "ari": _ari(C),
        "purity": float(C.max(axis=0).sum() / y.size),
    }


def adjusted_rand(labels_true, labels_pred):
    """The adjusted Rand index of two labellings: ``sklearn.metrics.adjusted_rand_score``
    to the last bit, from one contingency table (as :func:`evaluate` takes it)."""
    return _ari(_contingency(*_check_labels(labels_true, labels_pred)))


def _contingency(y, p):
    """The contingency table of two labellings (classes x clusters, int64, both in sorted
    order), as sklearn's ``contingency_matrix``."""
    classes, y_idx = np.unique(y, return_inverse=True)
    clusters, p_idx = np.unique(p, return_inverse=True)
    return np.bincount(y_idx.ravel() * clusters.size + p_idx.ravel(),
                       minlength=classes.size * clusters.size
                       ).reshape(classes.size, clusters.size).astype(np.int64, copy=False)


def _entropy(counts):
    """The entropy (natural log) of a labelling whose clusters hold ``counts`` samples, in
    the terms and order of sklearn's."""
    if counts.size == 1:
        return 0.0
    pi = counts.astype(np.float64)
    pi_sum = np.sum(pi)
    return float(-np.sum((pi / pi_sum) * (np.log(pi) - log(pi_sum))))


def _nmi_geometric(C):
    """sklearn's NMI with ``average_method="geometric"`` of the two labellings whose
    contingency table is ``C``."""
    if C.shape[0] == C.shape[1] == 1:  # neither splits the data: a perfect match
        return 1.0
    mi = mutual_info_score(None, None, contingency=C)
    if mi == 0:
        return 0.0
    return float(mi / np.sqrt(_entropy(C.sum(axis=1)) * _entropy(C.sum(axis=0))))


def _ari(C):
    """sklearn's adjusted Rand index from the contingency table ``C``: its pair confusion
    matrix (sample pairs together or apart in each labelling), in integers."""
    n = int(C.sum())
    sum_squares = int((C * C).sum())
    fp = int((C @ C.sum(axis=0)).sum()) - sum_squares
    fn = int((C.T @ C.sum(axis=1)).sum()) - sum_squares
    tp = sum_squares - n
    tn = n * n - fp - fn - sum_squares
    if fn == 0 and fp == 0:
        return 1.0
    return float(2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)))


def evaluate_runs(labels_true, runs):
    """Mean and standard deviation of every metric over repeated clusterings.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
    runs : array-like of shape (n_runs, n_samples)
        One labelling per k-means run (e.g. an estimator's ``label_runs_``).

    Returns
    -------
    dict
        ``{"acc_mean", "acc_std", "nmi_mean", ..., "n_runs"}``; std is the
        population standard deviation over runs.
    """
    runs = np.atleast_2d(np.asarray(runs))
    scores = [evaluate(labels_true, r) for r in runs]
    out = {}
    for name in METRICS:
        vals = np.array([s[name] for s in scores])
        out[f"{name}_mean"] = float(vals.mean())
        out[f"{name}_std"] = float(vals.std())
    out["n_runs"] = int(runs.shape[0])
    return out


def best_view(labels_true, view_label_runs):
    """The paper's "best single view": the view with the highest mean ACC.

    This choice uses the true labels (an oracle), as the paper's SC-BSV and
    SSC-BSV rows do; report it as such.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
    view_label_runs : array-like of shape (n_views, n_runs, n_samples)

    Returns
    -------
    best : int
    per_view : list of dict
        :func:`evaluate_runs` of every view.
    """
    per_view = [evaluate_runs(labels_true, runs) for runs in view_label_runs]
    best = int(np.argmax([s["acc_mean"] for s in per_view]))
    return best, per_view
