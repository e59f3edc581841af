"""The objective (paper eq. proposed_model; appendix eq. rmsc_mv for RMSC-WV), term by term.

:func:`terms_from_losses` and :func:`l1_norm` also take the arrays of another array-API
namespace (the device path, :mod:`rmsc.solver._dense`): the same sums, there, each
returned as a Python float. A device consensus's l1 norm is summed a row block at a time
in its own dtype (float32: as the NumPy path sums a float32 Z*), the blocks in float64.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._array_api import namespace, row_blocks
from ._weights import consensus_weights, regularizer


#: Names of the objective's terms, in the paper's order.
OBJECTIVE_TERMS = ("reconstruction", "coupling", "regularizer", "sparsity")


def terms_from_losses(recon, coupling, lam, P, Zstar, beta, gamma, weighting="sample",
                      scale=None, factors=None):
    """The four terms of the objective from the per-sample losses (each of shape (m, n)).

    sum_vj P_vj ||x_j - X z^v_j||^2 (reconstruction) + lam sum_vj P_vj
    ||z^v_j - z*_j||^2 (coupling) + sum psi(P) (regularizer; per sample and
    view, or per view for RMSC-WV) + beta ||Z*||_1 (sparsity). ``recon`` and
    ``coupling`` are the per-sample losses of :func:`rmsc.solver.sample_losses`
    (``coupling`` is ||z^v_j - z*_j||^2, not yet multiplied by lam). With ``scale``
    and ``factors`` (the scaled model, :mod:`rmsc.solver._weights`) view v's three
    terms carry its factor c_v and its psi the unit s_v.

    Returns
    -------
    dict mapping each name of :data:`OBJECTIVE_TERMS` to a float.
    """
    values = term_values(recon, coupling, lam, P, l1_norm(Zstar), beta, gamma, weighting,
                         scale, factors)
    return {name: float(value) for name, value in zip(OBJECTIVE_TERMS, values)}


def term_values(recon, coupling, lam, P, l1, beta, gamma, weighting="sample", scale=None,
                factors=None):
    """The four terms in the order of :data:`OBJECTIVE_TERMS`, left in P's namespace:
    NumPy floats, or 0-d arrays on P's device, so that the device path
    (:mod:`rmsc.solver._dense`) brings them to the host with one transfer an iteration.

    ``l1`` is ||Z*||_1 (:func:`l1_norm`, or :func:`l1_norm_array` on a device);
    ``scale`` and ``factors`` as for :func:`terms_from_losses` (on P's device for a device
    P, as the device path holds them, else copied there).
    """
    xp = namespace(P)
    W = consensus_weights(P, factors)
    return (xp.sum(W * recon), lam * xp.sum(W * coupling),
            regularizer(P, gamma, weighting, scale, factors), beta * l1)


def l1_norm(Z):
    """sum |Z_ij| of a sparse or dense matrix (of any array-API namespace)."""
    if sp.issparse(Z):
        return float(np.abs(Z.data).sum())
    xp = namespace(Z)
    if xp is np:
        return float(np.abs(Z).sum())
    return float(l1_norm_array(Z))


def l1_norm_array(Z):
    """sum |Z_ij| of a dense array on a device, as a 0-d float64 array there: a block of
    rows at a time by ``vector_norm(ord=1)``, in Z's dtype, one read of Z and no temporary
    (|Z| and a float64 copy of it were two more passes over n x n an iteration, ~15 % of
    an iteration at n = 50,000), the blocks summed in float64."""
    xp = namespace(Z)
    total = None
    for a, b in row_blocks(*Z.shape):
        part = xp.astype(xp.linalg.vector_norm(Z[a:b, :], ord=1), xp.float64)
        total = part if total is None else total + part
    return total
