"""The RMSC block coordinate descent (Fan et al., IJCAI 2017, Algorithm 1).

This module holds the model's formulas, one function each, named after the
paper. The weight regulariser (paper eq. ``l1_l2_regularizer``) and the
functions derived from it by convex conjugacy (Lemma 1, Figure 2):

* ``psi(p) = gamma * p + 1/p - 2``               — regulariser on a weight
* ``latent_loss(l) = 2 * (sqrt(gamma + l) - 1)`` — phi(l) = min_p p*l + psi(p)
* ``minimizer(l) = 1 / sqrt(gamma + l)``         — sigma(l) = argmin_p, the P-step
"""

from __future__ import annotations

import numpy as np


def psi(p, gamma):
    """Weight regulariser psi(p) = gamma*p + 1/p - 2 (paper eq. l1_l2_regularizer).

    Parameters
    ----------
    p : array-like, positive
    gamma : float >= 0
    """
    p = np.asarray(p, dtype=np.float64)
    return gamma * p + 1.0 / p - 2.0


def latent_loss(loss, gamma):
    """Latent loss phi(l) = min_{p>=0} p*l + psi(p) = 2(sqrt(gamma + l) - 1) (Lemma 1)."""
    return 2.0 * (np.sqrt(gamma + np.asarray(loss, dtype=np.float64)) - 1.0)


def minimizer(loss, gamma):
    """Minimizer function sigma(l) = 1/sqrt(gamma + l): the optimal weight for loss l."""
    return 1.0 / np.sqrt(gamma + np.asarray(loss, dtype=np.float64))
