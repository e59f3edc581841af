"""beta relative to the data: a quantile of the per-sample emptying betas, and the rule using it.

The useful absolute beta moves by orders of magnitude with n and the data. Every sample j
has a beta above which its column of Z* starts empty (:func:`rmsc.solver.column_betas`,
measured from the same factorization as the solve); a quantile of those is the data's own
unit of beta (:func:`beta_scale`). :class:`RelativeBeta` is the rule "beta = beta_rel times
that unit" that an estimator hands to :func:`rmsc.solver.solve` in place of a number: the
solver measures the emptying betas and applies the rule itself, before the iterations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def beta_scale(column_betas, quantile):
    """beta's unit: the ``quantile`` quantile of ``column_betas`` (the beta above which that
    share of the samples starts with an empty column of Z*; for 1.0, beta_max)."""
    return float(np.quantile(np.asarray(column_betas, dtype=float), quantile))


@dataclass(frozen=True)
class RelativeBeta:
    """The rule beta = ``beta_rel`` x :func:`beta_scale` (``column_betas``, ``quantile``).

    Callable on the emptying betas (``rule(column_betas) -> float``), which is how
    :func:`rmsc.solver.solve` applies it; ``RMSC(beta="auto")`` passes one.
    """

    beta_rel: float
    quantile: float

    def __call__(self, column_betas):
        return self.beta_rel * beta_scale(column_betas, self.quantile)
