"""Every clustering method of the paper, by its paper name.

Each entry is a scikit-learn-style estimator taking ``Xs`` (a list of
``(n_samples, n_features_v)`` views) and exposing, after ``fit``:
``labels_`` (the k-means run of lowest inertia) and ``label_runs_``
(shape ``(n_runs, n_samples)``, one labelling per k-means restart, for the
paper's mean ± std protocol).
"""

from __future__ import annotations

from .dimsc import DiMSC
from .multiview_spectral import MSC, SCBSV, CoRegCentroid, CoRegPairwise, CoTraining
from .rmsc import RMSC
from .ssc import SSCAVG, SSCBSV

#: name -> (factory, default parameters, one-line description)
_REGISTRY = {
    "SC-BSV": (SCBSV, {},
               "Spectral clustering of every view's k-NN Gaussian graph; best single view reported"),
    "MSC": (MSC, {}, "Multiview spectral embedding with closed-form view weights (Xia et al. 2010)"),
    "Co-Pairwise": (CoRegPairwise, {},
                    "Pairwise co-regularised spectral clustering (Kumar, Rai & Daume 2011)"),
    "Co-Centroid": (CoRegCentroid, {},
                    "Centroid co-regularised spectral clustering (Kumar, Rai & Daume 2011)"),
    "Co-Training": (CoTraining, {}, "Co-trained multi-view spectral clustering (Kumar & Daume 2011)"),
    "SSC-BSV": (SSCBSV, {}, "SSC on every view separately; best single view reported"),
    "SSC-AVG": (SSCAVG, {}, "Spectral clustering on the average of per-view SSC affinities"),
    "DiMSC": (DiMSC, {},
              "Diversity-induced multi-view subspace clustering, sparse form (Cao et al. 2015)"),
    "RMSC-WV": (RMSC, {"weighting": "view"},
                "RMSC with one weight per view (paper appendix)"),
    "RMSC": (RMSC, {"weighting": "sample"},
             "Robust localized multi-view subspace clustering (per-sample, per-view weights)"),
}


def available_methods():
    """Names accepted by :func:`get_method`, in the paper's Table 1 order."""
    return list(_REGISTRY)


def describe_method(name):
    """One-line description of a method."""
    return _lookup(name)[2]


def get_method(name, **params):
    """Return an unfitted estimator for the method called ``name`` in the paper.

    Parameters
    ----------
    name : str
        One of :func:`available_methods` (case-insensitive).
    **params
        Estimator parameters; they override the method's defaults.
    """
    factory, defaults, _ = _lookup(name)
    return factory(**{**defaults, **params})


def _lookup(name):
    for key, entry in _REGISTRY.items():
        if key.lower() == str(name).lower():
            return entry
    raise ValueError(
        f"Unknown method {name!r}; available methods: {', '.join(_REGISTRY)}."
    )
