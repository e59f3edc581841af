"""The objective (paper eq. proposed_model; appendix eq. rmsc_mv for RMSC-WV), term by term."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

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
    if weighting == "view":
        reg = float(np.sum(psi(P[:, 0], gamma)))
    else:
        reg = float(np.sum(psi(P, gamma)))
    return {
        "reconstruction": float(np.sum(P * recon)),
        "coupling": float(lam * np.sum(P * coupling)),
        "regularizer": reg,
        "sparsity": float(beta * l1_norm(Zstar)),
    }


def l1_norm(Z):
    """sum |Z_ij| of a sparse or dense matrix."""
    return float(np.abs(Z.data).sum()) if sp.issparse(Z) else float(np.abs(Z).sum())
