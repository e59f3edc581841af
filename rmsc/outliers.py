"""Outlier scores from a fitted model, and their evaluation against an injected mask.

:func:`scores` turns a fitted RMSC's weights P into per-(view, sample) outlier
scores; :func:`evaluate` and :func:`roc_curves` compare scores with the mask
that :func:`inject` (:mod:`rmsc.datasets`, re-exported here) records.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve

from .datasets._outliers import FEATURE_FRACTION, FEATURE_SHIFT, KINDS, inject
from .solver import loss_of_weight

__all__ = ["FEATURE_FRACTION", "FEATURE_SHIFT", "KINDS", "evaluate", "inject", "roc_curves",
           "scores"]


def scores(model):
    """Outlier scores of every (view, sample) pair from a fitted RMSC.

    RMSC's P-step sets ``P[v, j] = 1 / sqrt(gamma + l_vj)``, where ``l_vj`` is
    the sample's loss in that view (reconstruction error plus ``lam`` times
    the distance of its representation from the consensus). The score is that
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
