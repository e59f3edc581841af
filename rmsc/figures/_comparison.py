"""Methods side by side: scores as bars (with the paper's markers), robustness across injections."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ._style import class_color, percent, require_columns


def comparison_figure(df, *, paper=None, title=None):
    """ACC and NMI of every method as grouped bars with ± std error bars.

    Parameters
    ----------
    df : pandas.DataFrame
        As returned by :func:`rmsc.experiments.compare`: method, acc_mean,
        acc_std, nmi_mean, nmi_std (fractions). Methods without a score
        (their ``error`` is set) get no bar; their name stays on the axis.
    paper : dict of method -> (acc %, nmi %), optional
        Published values, drawn as markers beside the bars.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
    """
    require_columns(df, ("method", "acc_mean", "acc_std", "nmi_mean", "nmi_std"),
                     "comparison_figure")
    methods = df["method"].tolist()
    fig = go.Figure()
    for metric, label, color in (("acc", "ACC", "#1F77B4"), ("nmi", "NMI", "#FF7F0E")):
        fig.add_trace(go.Bar(
            # "(ours)" only beside the paper's markers: alone, the bars need no qualifier
            x=methods, y=percent(df[f"{metric}_mean"]).tolist(),
            name=f"{label} (ours)" if paper else label,
            error_y=dict(type="data", array=percent(df[f"{metric}_std"]).tolist(), visible=True),
            marker_color=color, offsetgroup=metric,
            hovertemplate=f"%{{x}}: {label} %{{y:.2f}} %<extra></extra>",
        ))
    if paper:
        for k, (label, symbol) in enumerate((("ACC", "diamond"), ("NMI", "x"))):
            ys = [paper[m][k] if m in paper else None for m in methods]
            fig.add_trace(go.Scatter(
                x=methods, y=ys, mode="markers", name=f"{label} (paper)",
                marker=dict(symbol=symbol, size=10, color="black"),
                offsetgroup="acc" if k == 0 else "nmi",
                hovertemplate=f"%{{x}}: paper {label} %{{y:.2f}} %<extra></extra>",
            ))
        fig.update_layout(scattermode="group")  # markers over their own bar
    fig.update_layout(title=title or "Clustering performance (mean ± std over k-means runs)",
                      barmode="group", template="plotly_white", legend_title_text="")
    fig.update_xaxes(title_text="method")
    fig.update_yaxes(title_text="score (%)", range=[0, 105])
    return fig


def robustness_figure(tables, metric="acc"):
    """Grouped bars of one metric per method, one group per dataset variant.

    Parameters
    ----------
    tables : dict of str -> pandas.DataFrame
        E.g. {"clean": df, "with outliers": df}; each with columns method,
        ``{metric}_mean`` and ``{metric}_std`` in [0, 1] (as
        ``rmsc.experiments.compare`` returns), NaN for failed methods.
    metric : str
    """
    fig = go.Figure()
    palette = ["#4c78a8", "#e45756", "#54a24b", "#f58518"]
    for k, (name, df) in enumerate(tables.items()):
        fig.add_trace(go.Bar(
            x=df["method"], y=100 * df[f"{metric}_mean"],
            error_y=dict(type="data", array=100 * df[f"{metric}_std"].fillna(0)),
            name=name, marker_color=palette[k % len(palette)],
            hovertemplate="%{x}: %{y:.2f}%<extra>" + name + "</extra>"))
    fig.update_layout(barmode="group", title=f"{metric.upper()} (%) — mean ± std over k-means runs",
                      yaxis_title=f"{metric.upper()} %", yaxis_range=[0, 105], height=380,
                      margin=dict(t=40, b=40, l=60, r=10))
    return fig


def robustness_cases_figure(tables, metric="acc"):
    """One line per method across dataset variants (clean, then every injection case).

    Parameters
    ----------
    tables : dict of str -> pandas.DataFrame
        Variant name -> compare table (columns method, ``{metric}_mean``,
        ``{metric}_std`` in [0, 1]), e.g. from the Compare page's robustness preset.
    metric : str
    """
    names = list(tables)
    methods = list(dict.fromkeys(m for df in tables.values() for m in df["method"]))
    fig = go.Figure()
    for i, method in enumerate(methods):
        y, err = [], []
        for name in names:
            row = tables[name][tables[name]["method"] == method]
            y.append(100 * float(row[f"{metric}_mean"].iloc[0]) if len(row) else np.nan)
            err.append(100 * float(row[f"{metric}_std"].fillna(0).iloc[0]) if len(row) else 0)
        fig.add_trace(go.Scatter(
            x=names, y=y, error_y=dict(type="data", array=err), mode="lines+markers",
            name=method, line=dict(color=class_color(i)),
            hovertemplate="%{x}: %{y:.2f}%<extra>" + method + "</extra>"))
    fig.update_layout(title=f"{metric.upper()} (%) on the clean data and under every injection",
                      yaxis_title=f"{metric.upper()} %", height=400,
                      margin=dict(t=40, b=80, l=60, r=10))
    return fig
