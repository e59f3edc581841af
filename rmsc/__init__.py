"""rmsc — Robust Localized Multi-view Subspace Clustering (Fan et al., IJCAI 2017).

Estimators take ``Xs``, a list of views, each ``(n_samples, n_features_v)``.
"""

from . import datasets
from .metrics import evaluate, evaluate_runs

__all__ = ["datasets", "evaluate", "evaluate_runs"]
__version__ = "0.1.0"
