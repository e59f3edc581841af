"""The Solve page's downloads: labels, weights, affinity and the run's configuration."""

from __future__ import annotations

import dataclasses
import io
import json

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .. import __version__
from .params import estimator_params


def labels_csv(result, labels_true=None):
    """CSV text: sample, cluster (the chosen run) and class when known."""
    df = pd.DataFrame({"sample": np.arange(result.labels.size), "cluster": result.labels})
    if labels_true is not None:
        df["class"] = np.asarray(labels_true)
    return df.to_csv(index=False)


def weights_csv(result, view_names):
    """CSV text of P: one row per sample, one column per view."""
    df = pd.DataFrame(result.weights.T, columns=list(view_names))
    df.insert(0, "sample", np.arange(df.shape[0]))
    return df.to_csv(index=False)


def affinity_npz(result):
    """The consensus affinity as a scipy.sparse .npz file (bytes)."""
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_matrix(result.affinity))
    return buf.getvalue()


def config_json(result, dataset, outlier_spec=None):
    """The run's configuration and headline numbers as JSON text (reproducible with rmsc)."""
    params = result.params
    est = estimator_params(params, dataset)
    cfg = {
        "rmsc_version": __version__,
        "method": params.method,
        "estimator_params": est,
        "dataset": {"name": dataset.name, "fingerprint": dataset.fingerprint,
                    "n_samples": dataset.n_samples, "views": list(dataset.view_names),
                    "n_features": list(dataset.n_features)},
        "outliers": None if outlier_spec is None else dataclasses.asdict(outlier_spec),
        "result": {"n_iter": result.n_iter, "converged": result.converged,
                   "stopped_early": result.stopped_early, "fit_time_s": result.fit_time,
                   "objective_final": float(result.objective[-1]) if result.objective.size
                   else None,
                   "consensus_density": result.density, "beta_max": result.beta_max,
                   "scores": result.scores},
        "python": f"rmsc.get_method({params.method!r}, **estimator_params).fit(views)",
    }
    return json.dumps(cfg, indent=2, default=_json_default)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, tuple):
        return list(obj)
    return str(obj)
