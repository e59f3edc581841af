"""The objective (paper eq. proposed_model; appendix eq. rmsc_mv for RMSC-WV), term by term.

:func:`terms_from_losses` and :func:`l1_norm` also take the arrays of another array-API
namespace (the device path, :mod:`rmsc.solver._dense`): the same sums, there, each
returned as a Python float. A float32 consensus is summed in float64 there.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._array_api import namespace
from ._weights import psi


#: Names of the objective's terms, in the paper's order.
OBJECTIVE_TERMS = ("reconstruction", "coupling", "regularizer", "sparsity")


def terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma, weighting="sample"):
    """The four terms of the objective from the per-sample losses (each of shape (m, n)).

    sum_vj P_vj ||x_j - X z^v_j||^2 (reconstruction) + lam sum_vj P_vj
    ||z^v_j - z*_j||^2 (coupling) + sum psi(P) (regularizer; per sample and
    view, or per view for RMSC-WV) + beta ||Z*||_1 (sparsity). ``recon`` and
    ``coupling`` are the per-sample losses of :func:`rmsc.solver.sample_losses`
    (``coupling`` is ||z^v_j - z*_j||^2, not yet multiplied by lam).

    Returns
    -------
    dict mapping each name of :data:`OBJECTIVE_TERMS` to a float.
    """
    xp = namespace(P)
    if weighting == "view":
        reg = float(xp.sum(psi(P[:, 0], gamma)))
    else:
        reg = float(xp.sum(psi(P, gamma)))
    return {
        "reconstruction": float(xp.sum(P * recon)),
        "coupling": float(lam * xp.sum(P * coupling)),
        "regularizer": reg,
        "sparsity": float(beta * l1_norm(Zstar)),
    }


def l1_norm(Z):
    """sum |Z_ij| of a sparse or dense matrix (of any array-API namespace)."""
    if sp.issparse(Z):
        return float(np.abs(Z.data).sum())
    xp = namespace(Z)
    if xp is np:
        return float(np.abs(Z).sum())
    # on a device: in float64, a block of rows at a time (no n x n temporary)
    n_rows, n_cols = Z.shape
    rows = max(1, 2**24 // max(n_cols, 1))
    total = xp.zeros((), dtype=xp.float64, device=Z.device)
    for a in range(0, n_rows, rows):
        total = total + xp.sum(xp.abs(Z[a:min(a + rows, n_rows), :]), dtype=xp.float64)
    return float(total)
