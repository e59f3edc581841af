"""The reproduction as JSON (docs/results.json): scores, parameters, every search record."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .grid import POSTPROCESSING, SEARCH, SEARCH_BUDGET
from .paper import PAPER_TABLE1


def _json_safe(obj):
    """NaN/inf -> None, numpy scalars -> Python, recursively (strict JSON)."""
    if isinstance(obj, dict):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not np.isfinite(obj):
        return None
    return obj


def to_json(result):
    """A JSON-ready dict: per dataset, variant and method the chosen scores, parameters, fit
    time, and every search record; the views and sensitivity tables."""
    def rec_dict(rec):
        return {"acc_mean": rec.acc_mean, "acc_std": rec.acc_std, "nmi_mean": rec.nmi_mean,
                "nmi_std": rec.nmi_std, "ari_mean": rec.ari_mean,
                "purity_mean": rec.purity_mean, "params": rec.params,
                "fit_time": rec.fit_time, "note": rec.note, "nolabel": rec.nolabel}

    out = {"protocol": {"unit_l2": True, "kmeans_runs": 20, "selection": "highest mean ACC",
                        "search_budget": SEARCH_BUDGET, "search": SEARCH,
                        "dataset_budget": {ds.name: ds.budget for ds in result.datasets
                                           if ds.budget is not None},
                        "postprocessing": POSTPROCESSING, "seed": result.random_state,
                        "scores": "fractions in [0, 1]"},
           "paper_table1": PAPER_TABLE1, "datasets": {}}
    for ds in result.datasets:
        # the file name only (no machine path); None: the copy bundled with rmsc
        entry = {"path": Path(ds.path).name if ds.path else None, "error": ds.error, "n_samples": ds.n_samples,
                 "budget": ds.budget, "excluded": list(ds.excluded),
                 "view_names": list(ds.view_names), "n_clusters": ds.n_clusters}
        if ds.chosen is not None:
            entry["results"] = {v: {m: rec_dict(r) for m, r in ds.chosen[v].items()}
                                for v in result.variants}
            entry["search"] = {v: [r.as_dict() for r in recs] for v, recs in ds.records.items()}
        out["datasets"][ds.name] = entry
    out["accuracy_vs_views"] = {k: df.to_dict(orient="records") for k, df in result.views.items()}
    out["sensitivity"] = {k: df.to_dict(orient="records") for k, df in result.sensitivity.items()}
    return _json_safe(out)
