"""rmsc — Robust Localized Multi-view Subspace Clustering (Fan et al., IJCAI 2017).

Estimators take ``Xs``, a list of views, each ``(n_samples, n_features_v)``.

``import rmsc`` imports no submodule: each public name is imported on first use
(PEP 562), so that ``rmsc --help`` and the file reader's child program
(:mod:`rmsc.datasets._isolate`) start without loading every estimator.
"""

import importlib
import importlib.util

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


def __getattr__(name):
    where = _WHERE.get(name, name)
    if where == name and not _is_submodule(name):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{where}")
    value = module if where == name else getattr(module, name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def _is_submodule(name):
    """True for a module of this package (``rmsc.solver`` works as it did when this package
    imported everything)."""
    return not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}") is not None


def __dir__():
    return sorted(set(globals()) | set(__all__))


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
__version__ = "0.1.0"
