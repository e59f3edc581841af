"""Placing the samples the consensus (nearly) isolates, by evidence from the views.

RMSC shrinks the columns of Z* that belong to outliers (the paper's point:
their weights are low, so the consensus stops representing them). Their rows
of the affinity S = (|Z*| + |Z*^T|)/2 are then nearly empty, and normalised
spectral clustering handles such samples badly twice over: a sample (or a
small group) with almost no links forms a nearly disconnected piece of the
graph, which takes one of the leading eigenvectors that should describe a
cluster, and an isolated sample gets a zero (or meaningless) row of the
embedding, so k-means puts it anywhere. On Digit with samples replaced or made
view-inconsistent in two views, this cost RMSC points of accuracy (measured:
docs/robustness.md).

The remedy here, in three steps:

1. :func:`weak_samples` - a sample is *weak* when its affinity degree is below
   :data:`WEAK_DEGREE` times the median degree.
2. The spectral embedding is computed on the graph of the other samples
   (the *anchors*) only, so that weak samples cannot take eigenvectors.
3. :func:`evidence_rows` - each weak sample gets the embedding of its nearest
   anchors in every view, averaged over the views with each view weighted by
   how much it still trusts the sample (its weight P relative to the view's
   median, so a view that reconstructs the sample badly has little say).

:func:`place_weak_samples` runs all three; :class:`rmsc.RMSC` calls it when
``placement="neighbors"``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from ._array_api import is_device_array, median, namespace, to_numpy
from .device_spectral import submatrix_xp
from .spectral import spectral_embedding

#: A sample whose affinity degree is below this fraction of the median degree is
#: placed by evidence. Chosen by hand among 0.05-0.5 on Digit, seed 0, clean and with 10 %
#: and 20 % replaced or inconsistent samples in PIX and FOU; not tuned further. Its effect
#: over three seeds and every injection kind: docs/robustness.md.
WEAK_DEGREE = 0.3

#: Nearest anchors per view whose embedding a weak sample takes.
N_NEIGHBORS = 10

#: Names accepted by ``RMSC(placement=...)``.
PLACEMENTS = ("neighbors", None)


def weak_samples(S, fraction=WEAK_DEGREE):
    """Samples with an affinity degree below ``fraction`` times the median degree.

    Parameters
    ----------
    S : ndarray or sparse matrix of shape (n_samples, n_samples)
        Symmetric non-negative affinity.
    fraction : float, default=WEAK_DEGREE

    Returns
    -------
    ndarray of bool, shape (n_samples,)
        True for weak samples; isolated samples (degree 0) are always weak. (A bool array
        on the device for an ``S`` of another array-API library.)
    """
    xp = namespace(S)
    if xp is not np:
        deg = xp.sum(S, axis=1)
        return (deg <= 0) | (deg < fraction * median(deg, xp))
    deg = np.asarray(S.sum(axis=1)).ravel()
    return (deg <= 0) | (deg < fraction * np.median(deg))


def relative_trust(weights):
    """Each view's weight of each sample divided by that view's median weight.

    Parameters
    ----------
    weights : ndarray of shape (n_views, n_samples)
        P of a fitted RMSC (or any non-negative per-view, per-sample trust).

    Returns
    -------
    ndarray of shape (n_views, n_samples)
        1 = as trusted as a typical sample of that view.
    """
    P = np.asarray(weights, dtype=np.float64)
    med = np.median(P, axis=1, keepdims=True)
    return np.divide(P, med, out=np.ones_like(P), where=med > 0)


def evidence_rows(views, anchor_embedding, anchors, targets, trust, n_neighbors=N_NEIGHBORS):
    """Embedding rows for ``targets`` from their nearest anchors in every view.

    Row of target j: ``sum_v trust[v, j] * mean(anchor_embedding[N_v(j)])``,
    scaled to unit length, where N_v(j) are the ``n_neighbors`` anchors
    nearest to j in view v.

    Parameters
    ----------
    views : list of ndarray or sparse matrices, each (n_samples, n_features_v)
    anchor_embedding : ndarray of shape (n_anchors, n_components)
    anchors, targets : ndarray of int
        Indices of the anchor and the target samples.
    trust : ndarray of shape (n_views, n_samples)
        How much each view counts for each sample (:func:`relative_trust`).
    n_neighbors : int, default=N_NEIGHBORS

    Returns
    -------
    ndarray of shape (len(targets), n_components)
        Unit rows (a zero row only if every view's trust in the sample is 0).
    """
    k = min(int(n_neighbors), len(anchors))
    rows = np.zeros((len(targets), anchor_embedding.shape[1]))
    if len(targets) == 0 or k == 0:
        return rows
    for v, X in enumerate(views):
        X = sp.csr_matrix(X) if sp.issparse(X) else np.asarray(X)
        idx = NearestNeighbors(n_neighbors=k).fit(X[anchors]).kneighbors(
            X[targets], return_distance=False)
        rows += trust[v, targets][:, None] * anchor_embedding[idx].mean(axis=1)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return np.divide(rows, norms, out=np.zeros_like(rows), where=norms > 0)


def place_weak_samples(S, views, weights, n_components, *, fraction=WEAK_DEGREE,
                       n_neighbors=N_NEIGHBORS, random_state=None):
    """Spectral embedding with weak samples placed by evidence from the views.

    Parameters
    ----------
    S : ndarray or sparse matrix of shape (n_samples, n_samples)
        The consensus affinity.
    views : list of ndarray or sparse matrices, each (n_samples, n_features_v)
        The views as the model saw them (after its preprocessing).
    weights : ndarray of shape (n_views, n_samples)
        P.
    n_components : int
        Embedding dimension (the number of clusters).
    fraction : float, default=WEAK_DEGREE
        See :func:`weak_samples`.
    n_neighbors : int, default=N_NEIGHBORS
    random_state : int, RandomState or None
        Seeds the eigensolver.

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_components)
        Row-normalised: the anchors' spectral embedding, the weak samples'
        evidence rows.
    placed : ndarray of int
        Indices of the samples placed by evidence (sorted). Empty when no
        sample is weak (the embedding is then the ordinary one), and when so
        many are weak that fewer than ``n_components + 1`` anchors remain
        (nothing to place them by).

    Notes
    -----
    An ``S`` of another array-API library (a device fit) is reduced and embedded on its
    device; the views and weights go to the host only when there are samples to place,
    for the neighbour search.
    """
    weak = to_numpy(weak_samples(S, fraction))
    anchors, targets = np.flatnonzero(~weak), np.flatnonzero(weak)
    if targets.size == 0 or anchors.size <= n_components:
        return spectral_embedding(S, n_components, random_state=random_state), np.array(
            [], dtype=np.int64)
    if is_device_array(S):
        S_anchor = submatrix_xp(S, anchors)
        views = [to_numpy(X) for X in views]
        weights = to_numpy(weights)
    else:
        S_anchor = (sp.csr_matrix(S)[anchors][:, anchors] if sp.issparse(S)
                    else np.asarray(S)[np.ix_(anchors, anchors)])
    emb_anchor = spectral_embedding(S_anchor, n_components, random_state=random_state)
    del S_anchor
    embedding = np.zeros((S.shape[0], n_components))
    embedding[anchors] = emb_anchor
    embedding[targets] = evidence_rows(views, emb_anchor, anchors, targets,
                                       relative_trust(weights), n_neighbors)
    return embedding, targets
