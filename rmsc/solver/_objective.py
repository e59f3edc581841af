"""The objective (paper eq. proposed_model; appendix eq. rmsc_mv for RMSC-WV), term by term."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._weights import consensus_weights, regularizer
from ._zv_step import sample_losses


#: Names of the objective's terms, in the paper's order.
OBJECTIVE_TERMS = ("reconstruction", "coupling", "regularizer", "sparsity")


def objective_terms(views, reps, P, Zstar, beta, gamma, weighting="sample", scale=None,
                    factors=None):
    """The four terms of the objective right after a Z^v-step.

    sum_vj P_vj ||x_j - X z^v_j||^2 (reconstruction) + lam sum_vj P_vj
    ||z^v_j - z*_j||^2 (coupling) + sum psi(P) (regularizer; per sample and
    view, or per view for RMSC-WV) + beta ||Z*||_1 (sparsity). With ``scale`` and
    ``factors`` (the scaled model, :mod:`rmsc.solver._weights`) view v's three terms
    carry its factor c_v and its psi the unit s_v.

    Returns
    -------
    dict mapping each name of :data:`OBJECTIVE_TERMS` to a float.
    """
    recon = np.empty(P.shape)
    coupling = np.empty(P.shape)
    for v, (view, rep) in enumerate(zip(views, reps)):
        recon[v], coupling[v] = sample_losses(view, rep)
    return terms_from_losses(recon, coupling, views[0].lam, P, Zstar, beta, gamma, weighting,
                             scale, factors)


def terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma, weighting="sample",
                      scale=None, factors=None):
    """:func:`objective_terms` from the per-sample losses (each of shape (m, n)).

    ``coupling`` is ||z^v_j - z*_j||^2, not yet multiplied by lam.
    """
    W = consensus_weights(P, factors)
    return {
        "reconstruction": float(np.sum(W * recon)),
        "coupling": float(lam * np.sum(W * coupling)),
        "regularizer": regularizer(P, gamma, weighting, scale, factors),
        "sparsity": float(beta * l1_norm(Zstar)),
    }


def l1_norm(Z):
    """sum |Z_ij| of a sparse or dense matrix."""
    return float(np.abs(Z.data).sum()) if sp.issparse(Z) else float(np.abs(Z).sum())
