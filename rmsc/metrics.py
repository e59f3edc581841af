"""Clustering metrics of the paper's protocol: ACC, NMI, ARI and purity."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
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


def accuracy_split(labels_true, labels_pred, mask):
    """ACC on the samples in ``mask`` and on the others, each under the one matching of
    clusters to classes of the whole labelling (:func:`match_clusters`), so that the two
    add up, weighted by their sizes, to :func:`clustering_accuracy`. NaN for an empty part.

    Returns
    -------
    (float, float)
        The share of the ``mask`` samples whose cluster is matched to their class, and
        the same share of the other samples.
    """
    y, p = _check_labels(labels_true, labels_pred)
    mask = np.asarray(mask, dtype=bool)
    if mask.shape != y.shape:
        raise ValueError(f"The mask has {mask.size} entries for {y.size} samples.")
    classes, clusters, pairs, _ = match_clusters(y, p)
    class_of = np.full(clusters.size, -1)  # the class index each cluster is matched to
    class_of[pairs[:, 1]] = pairs[:, 0]
    right = class_of[np.searchsorted(clusters, p)] == np.searchsorted(classes, y)
    return tuple(float(right[part].mean()) if part.any() else float("nan")
                 for part in (mask, ~mask))


def purity(labels_true, labels_pred):
    """Fraction of samples that belong to the majority class of their cluster."""
    y, p = _check_labels(labels_true, labels_pred)
    C = contingency_matrix(y, p)
    return C.max(axis=0).sum() / y.size


def evaluate(labels_true, labels_pred):
    """ACC, NMI (geometric normalisation, as in the paper), ARI and purity.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)

    Returns
    -------
    dict with keys ``"acc"``, ``"nmi"``, ``"ari"``, ``"purity"``, each in [0, 1]
    (ARI may be negative).
    """
    y, p = _check_labels(labels_true, labels_pred)
    return {
        "acc": float(clustering_accuracy(y, p)),
        "nmi": float(normalized_mutual_info_score(y, p, average_method="geometric")),
        "ari": float(adjusted_rand_score(y, p)),
        "purity": float(purity(y, p)),
    }


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
    if runs.ndim == 2 and runs.shape[0] > 1 and runs.dtype.kind in "biu":
        # equal labellings score alike: each distinct one is scored once (a fit's k-means
        # restarts often agree; sklearn's checks cost milliseconds a call), one score per run
        distinct, which = np.unique(runs, axis=0, return_inverse=True)
        scored = [evaluate(labels_true, r) for r in distinct]
        scores = [scored[i] for i in np.ravel(which)]
    else:
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
