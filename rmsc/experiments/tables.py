"""The paper's experiments as functions returning tables: shared by ``rmsc reproduce`` and the dashboard.

* :func:`compare` — every method under the same protocol (Table 1, one dataset);
* :func:`accuracy_vs_views` — ACC/NMI as views are added in the dataset's order
  (the paper's Figure 1);
* :func:`sensitivity_grid` — ACC/NMI over a (lambda, beta) grid (the paper's Figure 4).

Every fit goes through :func:`rmsc.experiments.protocol.run_one` (via
:func:`rmsc.experiments.protocol.evaluate_setting`), the one implementation of the
paper's protocol: raw views in, unit-L2 scaling inside each estimator,
spectral clustering with k-means 20 times, ACC/NMI/ARI/purity as mean ± std
over those runs. Best-single-view methods (SC-BSV, SSC-BSV) are scored like
the paper, on the view of highest mean ACC (chosen with the labels); the
view chosen without labels is kept in the ``nolabel_*`` columns.

A method or setting that cannot produce a clustering (for instance a beta
that empties the representation, or a multi-view method given one view) does
not stop the others: its row has NaN scores and the reason in ``error``.

``progress(done, total, message)`` is called before each fit and once at the
end with ``done == total``. ``cache`` (a :class:`rmsc.experiments.Cache`, optional)
makes a run resumable: fits already in it are not repeated.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .grid import check_methods
from .protocol import evaluate_setting

#: Scores every experiment reports (fractions).
SCORE_COLUMNS = ("acc_mean", "acc_std", "nmi_mean", "nmi_std")


COMPARE_COLUMNS = ("method", "acc_mean", "acc_std", "nmi_mean", "nmi_std", "ari_mean",
                   "purity_mean", "fit_time", "error", "params", "note", "view",
                   "nolabel_acc_mean", "nolabel_acc_std", "nolabel_nmi_mean", "nolabel_nmi_std",
                   "nolabel_view")


VIEWS_COLUMNS = ("method", "n_views", "views", "acc_mean", "acc_std", "nmi_mean", "nmi_std",
                 "fit_time", "error")


SENSITIVITY_COLUMNS = ("lam", "beta", "acc_mean", "acc_std", "nmi_mean", "nmi_std",
                       "fit_time", "error")


def _parts(dataset):
    """(name, views, labels, view names) of a labelled multi-view dataset."""
    labels = getattr(dataset, "labels", None)
    if labels is None:
        raise ValueError(
            f"The dataset {getattr(dataset, 'name', '')!r} has no labels, so accuracy and NMI "
            "cannot be computed; the experiments need a labelled dataset."
        )
    views = list(dataset.views)
    names = list(getattr(dataset, "view_names", ()) or [f"view {v}" for v in range(len(views))])
    return str(getattr(dataset, "name", "data")), views, np.asarray(labels), names


def _data_id(dataset):
    return str(getattr(dataset, "fingerprint", "") or "")


def _method_params(params, method):
    """The parameters given for ``method`` in ``params`` (keys matched case-insensitively)."""
    if not params:
        return {}
    if not isinstance(params, dict):
        raise ValueError("params must be a dict mapping a method name to its parameters, "
                         "e.g. {'RMSC': {'lam': 0.3, 'beta': 0.3}}.")
    for key, value in params.items():
        if str(key).lower() == method.lower():
            if not isinstance(value, dict):
                raise ValueError(f"params[{key!r}] must be a dict of parameter values.")
            return dict(value)
    return {}


def _scores(rec, columns):
    row = {}
    for col in columns:
        value = getattr(rec, col, None)
        row[col] = np.nan if value is None else float(value)
    return row


def _notify(progress, done, total, message):
    if progress is not None:
        progress(done, total, message)


def compare(dataset, methods, params=None, random_state=0, progress=None, *, cache=None):
    """Every method in ``methods`` on ``dataset`` under the paper's protocol.

    Parameters
    ----------
    dataset : rmsc.datasets.MultiViewDataset
        Must have labels.
    methods : list of str
        Names of :func:`rmsc.available_methods` (case-insensitive); run in the
        paper's Table 1 order.
    params : dict, optional
        ``{method: {parameter: value}}``; methods not named keep their defaults.
    random_state : int
    progress : callable(done, total, message) or None
    cache : rmsc.experiments.Cache, optional

    Returns
    -------
    pandas.DataFrame
        One row per method: method, acc_mean, acc_std, nmi_mean, nmi_std,
        ari_mean, purity_mean (fractions), fit_time (s), error (None when it
        ran), params (the parameters passed), note, view and the
        ``nolabel_*`` scores (best-single-view methods only; NaN otherwise).
    """
    name, views, labels, _ = _parts(dataset)
    jobs = compare_plan(methods, params)
    rows = []
    for i, (method, p) in enumerate(jobs):
        _notify(progress, i, len(jobs), f"{name}: {method}")
        rec = evaluate_setting(name, method, p, views, labels, cache=cache,
                               random_state=random_state, data_id=_data_id(dataset))
        rows.append(compare_row(method, p, rec))
    _notify(progress, len(jobs), len(jobs), f"{name}: done")
    return compare_frame(rows)


def compare_plan(methods, params=None):
    """The fits of :func:`compare`, in its order (the paper's Table 1 order): a list of
    ``(method, params)``."""
    return [(m, _method_params(params, m)) for m in check_methods(methods)]


def compare_row(method, params, rec):
    """One row of :func:`compare`'s table: ``method`` fitted with ``params``, its
    :class:`rmsc.experiments.Record` ``rec``."""
    row = {"method": method,
           **_scores(rec, ("acc_mean", "acc_std", "nmi_mean", "nmi_std", "ari_mean",
                           "purity_mean", "fit_time")),
           "error": rec.error, "params": params, "note": rec.note, "view": rec.view}
    nolabel = rec.nolabel or {}
    for k in SCORE_COLUMNS:
        row[f"nolabel_{k}"] = float(nolabel[k]) if k in nolabel else np.nan
    row["nolabel_view"] = nolabel.get("view")  # the view chosen without labels
    return row


def compare_frame(rows):
    """:func:`compare`'s table from its rows (:func:`compare_row`)."""
    return pd.DataFrame(rows, columns=list(COMPARE_COLUMNS))


def accuracy_vs_views(dataset, methods, params=None, random_state=0, progress=None, *,
                      cache=None):
    """ACC and NMI of each method on the first 1, 2, ..., m views (the paper's Figure 1).

    Views are added in the dataset's order (Digit: PIX, FOU, FAC, ZER, KAR, MOR;
    Reuter: EN, FR, DE, ES, IT — the paper's order).

    Parameters
    ----------
    dataset : rmsc.datasets.MultiViewDataset
        Must have labels.
    methods : list of str
    params : dict, optional
        ``{method: {parameter: value}}``, used for every number of views.
    random_state : int
    progress : callable(done, total, message) or None
    cache : rmsc.experiments.Cache, optional

    Returns
    -------
    pandas.DataFrame
        One row per (method, number of views): method, n_views, views (the
        view names used, joined by "+"), acc_mean, acc_std, nmi_mean, nmi_std,
        fit_time, error. A method that needs two views has an error row at
        n_views = 1.
    """
    name, views, labels, names = _parts(dataset)
    jobs = views_plan(dataset, methods, params)
    rows = []
    for i, (record_name, method, p, k) in enumerate(jobs):
        used = "+".join(names[:k])
        _notify(progress, i, len(jobs), f"{name}: {method} on {used}")
        rec = evaluate_setting(record_name, method, p, views[:k], labels, cache=cache,
                               random_state=random_state, data_id=_data_id(dataset))
        rows.append(views_row(method, k, used, rec))
    _notify(progress, len(jobs), len(jobs), f"{name}: done")
    return views_frame(rows)


def views_row(method, n_views, used, rec):
    """One row of :func:`accuracy_vs_views`' table: ``method`` on the first ``n_views``
    views (named ``used``), its record ``rec``."""
    return {"method": method, "n_views": n_views, "views": used,
            **_scores(rec, SCORE_COLUMNS + ("fit_time",)), "error": rec.error}


def views_frame(rows):
    """:func:`accuracy_vs_views`' table from its rows (:func:`views_row`)."""
    return pd.DataFrame(rows, columns=list(VIEWS_COLUMNS))


def views_plan(dataset, methods, params=None):
    """The fits of :func:`accuracy_vs_views`, in its order: a list of
    ``(record name, method, params, number of views)``; the record name is the
    dataset's with the views used, e.g. ``"Digit[PIX+FOU]"``."""
    name, views, _, names = _parts(dataset)
    methods = check_methods(methods)
    return [(f"{name}[{'+'.join(names[:k])}]", m, _method_params(params, m), k)
            for k in range(1, len(views) + 1) for m in methods]


def sensitivity_plan(lams, betas, method="RMSC", params=None):
    """The fits of :func:`sensitivity_grid`, lam-major: a list of ``(method, params)``."""
    (method,) = check_methods([method])
    lams, betas = [float(x) for x in lams], [float(x) for x in betas]
    if not lams or not betas:
        raise ValueError("Give at least one lam and one beta for the sensitivity grid.")
    base = dict(params or {})
    if "lam" in base or "beta" in base:
        raise ValueError("lam and beta are the grid's axes; leave them out of params.")
    return [(method, {**base, "lam": lam, "beta": beta}) for lam in lams for beta in betas]


def sensitivity_grid(dataset, lams, betas, method="RMSC", params=None, random_state=0,
                     progress=None, *, cache=None):
    """ACC and NMI of ``method`` over every (lam, beta) pair (the paper's Figure 4).

    Parameters
    ----------
    dataset : rmsc.datasets.MultiViewDataset
        Must have labels.
    lams, betas : sequences of float
    method : str, default="RMSC"
        A method with ``lam`` and ``beta`` parameters (RMSC, RMSC-WV, DiMSC).
    params : dict, optional
        Other parameters of ``method`` (flat: ``{"gamma": 1e-5, "top_k": 10}``),
        the same for every cell.
    random_state : int
    progress : callable(done, total, message) or None
    cache : rmsc.experiments.Cache, optional

    Returns
    -------
    pandas.DataFrame
        One row per (lam, beta), lam-major: lam, beta, acc_mean, acc_std,
        nmi_mean, nmi_std, fit_time, error (the reason when a cell could not
        be clustered, e.g. beta too large; its scores are NaN).
    """
    name, views, labels, _ = _parts(dataset)
    jobs = sensitivity_plan(lams, betas, method, params)
    rows = []
    for i, (method, p) in enumerate(jobs):
        lam, beta = p["lam"], p["beta"]
        _notify(progress, i, len(jobs), f"{name}: {method} lam={lam:g}, beta={beta:g}")
        rec = evaluate_setting(name, method, p, views, labels,
                               cache=cache, random_state=random_state, data_id=_data_id(dataset))
        rows.append(sensitivity_row(p, rec))
    _notify(progress, len(jobs), len(jobs), f"{name}: done")
    return sensitivity_frame(rows)


def sensitivity_row(params, rec):
    """One cell of :func:`sensitivity_grid`: the setting ``params`` (its ``lam`` and
    ``beta``), its record ``rec``."""
    return {"lam": params["lam"], "beta": params["beta"],
            **_scores(rec, SCORE_COLUMNS + ("fit_time",)), "error": rec.error}


def sensitivity_frame(rows):
    """:func:`sensitivity_grid`'s table from its rows (:func:`sensitivity_row`)."""
    return pd.DataFrame(rows, columns=list(SENSITIVITY_COLUMNS))
