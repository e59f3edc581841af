"""rmsc — Robust Localized Multi-view Subspace Clustering (Fan et al., IJCAI 2017).

Estimators take ``Xs``, a list of views, each ``(n_samples, n_features_v)``.

``import rmsc`` imports no submodule: each public name is imported on first use
(PEP 562), so that ``rmsc --help`` and the file reader's child program
(:mod:`rmsc.datasets._isolate`) start without loading every estimator.
"""

from ._lazy import lazy_attributes

#: Public name -> the module defining it (a module's own name: the module itself).
_WHERE = {
    "datasets": "datasets",
    "inspection": "inspection",
    "memory": "memory",
    "outliers": "outliers",
    "tracking": "tracking",
    "available_methods": "methods",
    "describe_method": "methods",
    "get_method": "methods",
    "evaluate": "metrics",
    "evaluate_runs": "metrics",
    "DiMSC": "dimsc",
    "MSC": "multiview_spectral",
    "SCBSV": "multiview_spectral",
    "CoRegCentroid": "multiview_spectral",
    "CoRegPairwise": "multiview_spectral",
    "CoTraining": "multiview_spectral",
    "RMSC": "rmsc",
    "DegenerateSolutionError": "rmsc",
    "suggest_parameters": "selection",
    "SSC": "ssc",
    "SSCAVG": "ssc",
    "SSCBSV": "ssc",
}


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
    "inspection",
    "memory",
    "outliers",
    "tracking",
    "describe_method",
    "evaluate",
    "evaluate_runs",
    "get_method",
    "suggest_parameters",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE, __all__)
__version__ = "0.1.0"
