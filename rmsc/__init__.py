"""rmsc — Robust Localized Multi-view Subspace Clustering (Fan et al., IJCAI 2017).

Estimators take ``Xs``, a list of views, each ``(n_samples, n_features_v)``.
"""

from . import datasets, inspection, memory, outliers, tracking
from .methods import available_methods, describe_method, get_method
from .metrics import evaluate, evaluate_runs
from .dimsc import DiMSC
from .multiview_spectral import MSC, SCBSV, CoRegCentroid, CoRegPairwise, CoTraining
from .rmsc import RMSC, DegenerateSolutionError
from .selection import suggest_parameters
from .ssc import SSC, SSCAVG, SSCBSV

__all__ = [
    "MSC",
    "RMSC",
    "SCBSV",
    "CoRegCentroid",
    "CoRegPairwise",
    "CoTraining",
    "DiMSC",
    "SSC",
    "SSCAVG",
    "SSCBSV",
    "DegenerateSolutionError",
    "available_methods",
    "datasets",
    "memory",
    "outliers",
    "describe_method",
    "evaluate",
    "evaluate_runs",
    "get_method",
    "suggest_parameters",
]
__version__ = "0.1.0"
