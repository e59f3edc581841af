"""Whom each sample is rebuilt from in the consensus Z*: the share of its column on its own
class, split by a mask of samples (the corrupted ones).

Column j of Z* holds the coefficients that rebuild sample j from the others (row i: how much
sample i is used). :func:`class_support` says, for the samples outside a mask, how much of
their column's mass |Z*| sits on samples of their own class, on own-class samples inside the
mask, and on masked samples of any class: the lesson's step 8 compares RMSC's clean fit with
its fit on corrupted data by it (:func:`rmsc.dashboard.lesson_support.support_sentence`).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def class_support(consensus, labels, mask):
    """For the samples where ``mask`` is False, the mean over their columns of |Z*| of the
    share of the column's mass on: their own class (``"own"``), own-class samples where
    ``mask`` is True (``"own_masked"``), own-class samples where it is False
    (``"own_unmasked"``), and masked samples of any class (``"masked"``); shares in 0-1.
    ``consensus``: Z* (n × n, dense or sparse), column j rebuilding sample j; ``labels``: n
    class labels; ``mask``: n booleans. A column with no mass counts as zero everywhere.
    Raises ValueError when the shapes disagree or every sample is masked."""
    z = abs(sp.csr_matrix(consensus)).tocsc()
    y, m = np.asarray(labels), np.asarray(mask, dtype=bool)
    n = z.shape[0]
    if z.shape != (n, n) or y.shape != (n,) or m.shape != (n,):
        raise ValueError(f"Z* is {z.shape[0]} × {z.shape[1]}, with {y.size} labels and "
                         f"{m.size} mask entries: give a square Z* and one label and one "
                         "mask entry per sample.")
    if m.all():
        raise ValueError("Every sample is masked: there is no unmasked sample to measure.")
    coo = z.tocoo()
    same = y[coo.row] == y[coo.col]
    hit = m[coo.row]

    def per_column(keep):
        return np.bincount(coo.col[keep], weights=coo.data[keep], minlength=n)

    total = per_column(np.ones_like(same))
    safe = np.where(total > 0, total, 1.0)
    out = {"own": per_column(same), "own_masked": per_column(same & hit),
           "own_unmasked": per_column(same & ~hit), "masked": per_column(hit)}
    return {k: float((v / safe)[~m].mean()) for k, v in out.items()}
