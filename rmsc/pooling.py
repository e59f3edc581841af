"""What a page sends of large data: matrices pooled, and the size limits.

A figure of the whole data would be too large to send or draw above a few thousand
samples (a 2000 x 2000 float heatmap is tens of MB of JSON), so every figure and page
keeps to the limits defined here once: :data:`MAX_MATRIX_SIDE`, :data:`MAX_WEIGHT_COLUMNS`
and :data:`MAX_SCATTER_POINTS`. The pooling itself is plain numpy (no plotly), shared by
:mod:`rmsc.figures` and :mod:`rmsc.dashboard`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


#: Largest side of a matrix sent to the browser; bigger ones are pooled (:func:`pool_matrix`).
MAX_MATRIX_SIDE = 500


#: Most columns of the weights heatmap (:func:`rmsc.inspection.heatmap_pool`: each column
#: the lowest weight of the samples it holds): about one per two pixels of a heatmap at
#: 1280 px, so that a column is never thinner than a screen pixel.
MAX_WEIGHT_COLUMNS = 600


#: Most points of a scatter plot; more samples are subsampled.
MAX_SCATTER_POINTS = 3000


def pool_matrix(S, order=None, max_side=MAX_MATRIX_SIDE):
    """Reorder a square matrix and average it in square blocks so its side is <= max_side.

    Parameters
    ----------
    S : ndarray or sparse matrix of shape (n, n)
    order : ndarray of int or None
        Row and column order.
    max_side : int

    Returns
    -------
    pooled : ndarray of shape (s, s), s = ceil(n / f)
        Mean of |S| over every f x f block (edge blocks over their real size).
    f : int
        Block side (1 when no pooling was needed).
    """
    n = S.shape[0]
    if S.shape != (n, n):
        raise ValueError(f"pool_matrix needs a square matrix; got shape {S.shape}.")
    f = max(1, -(-n // int(max_side)))
    s = -(-n // f)
    pos = np.empty(n, dtype=np.int64)
    pos[np.arange(n) if order is None else np.asarray(order)] = np.arange(n)
    if sp.issparse(S):
        C = sp.coo_matrix(S)
        r, c, val = pos[C.row] // f, pos[C.col] // f, np.abs(C.data)
        sums = np.bincount(r * s + c, weights=val, minlength=s * s).reshape(s, s)
    else:
        A = np.abs(np.asarray(S, dtype=float))
        inv = np.argsort(pos)
        A = A[np.ix_(inv, inv)]
        pad = s * f - n
        A = np.pad(A, ((0, pad), (0, pad)))
        sums = A.reshape(s, f, s, f).sum(axis=(1, 3))
    sizes = np.full(s, f, dtype=float)
    sizes[-1] = n - f * (s - 1)
    return sums / np.outer(sizes, sizes), f
