"""The paper's figures as the reproduction draws them.

Accuracy against the number of views (Figure 1), the objective's convergence (Figure 3),
the sensitivity to λ and β (Figure 4).
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._style import method_color, percent, require_columns


def accuracy_vs_views_figure(df, *, title=None):
    """ACC and NMI against the number of views used (the paper's Figure 1).

    Parameters
    ----------
    df : pandas.DataFrame
        As returned by :func:`rmsc.experiments.accuracy_vs_views`: method,
        n_views, views, acc_mean, acc_std, nmi_mean, nmi_std (fractions).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Two panels (ACC %, NMI %), one line per method with ± std error bars;
        the x ticks name the view added at each step. Rows without a score
        (a method that cannot run on that many views) leave a gap.
    """
    require_columns(df, ("method", "n_views", "acc_mean", "acc_std", "nmi_mean", "nmi_std"),
                     "accuracy_vs_views_figure")
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Accuracy", "NMI"),
                         horizontal_spacing=0.1)
    methods = list(dict.fromkeys(df["method"]))
    for i, method in enumerate(methods):
        d = df[df["method"] == method].sort_values("n_views")
        for col, metric in ((1, "acc"), (2, "nmi")):
            fig.add_trace(go.Scatter(
                x=d["n_views"].tolist(), y=percent(d[f"{metric}_mean"]).tolist(),
                error_y=dict(type="data", array=percent(d[f"{metric}_std"]).tolist(), visible=True),
                mode="lines+markers", name=method, legendgroup=method, showlegend=col == 1,
                line=dict(color=method_color(method, i)),
                hovertemplate=f"{method}<br>%{{x}} views: %{{y:.2f}} %<extra></extra>",
            ), row=1, col=col)
    ticks = sorted(df["n_views"].unique())
    labels = [str(k) for k in ticks]
    if "views" in df.columns:
        names = {int(k): str(v).split("+") for k, v in zip(df["n_views"], df["views"])}
        labels = [f"{k}<br>+{names[k][-1]}" if k > 1 else f"1<br>{names[k][0]}"
                  for k in (int(t) for t in ticks)]
    for col, metric in ((1, "Accuracy (%)"), (2, "NMI (%)")):
        fig.update_xaxes(title_text="number of views (view added)", tickvals=ticks,
                         ticktext=labels, row=1, col=col)
        fig.update_yaxes(title_text=metric, row=1, col=col)
    fig.update_layout(title=title or "Clustering performance against the number of views",
                      template="plotly_white", legend_title_text="method")
    return fig


def sensitivity_figure(df, *, title=None):
    """ACC and NMI over the (lambda, beta) grid (the paper's Figure 4), as two heatmaps.

    Parameters
    ----------
    df : pandas.DataFrame
        As returned by :func:`rmsc.experiments.sensitivity_grid`: lam, beta,
        acc_mean, nmi_mean (fractions); cells without a score (the setting
        failed, e.g. beta too large) are left blank and labelled "failed".
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Two heatmaps (ACC %, NMI %), lambda across, beta up, each cell
        annotated with its value; one shared color scale in %.
    """
    require_columns(df, ("lam", "beta", "acc_mean", "nmi_mean"), "sensitivity_figure")
    lams = sorted(df["lam"].unique())
    betas = sorted(df["beta"].unique())
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Accuracy (%)", "NMI (%)"),
                         horizontal_spacing=0.12)
    values = percent(df[["acc_mean", "nmi_mean"]].to_numpy())
    finite = values[np.isfinite(values)]
    zmin, zmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 100.0)
    for col, metric in ((1, "acc_mean"), (2, "nmi_mean")):
        grid = np.full((len(betas), len(lams)), np.nan)
        for lam, beta, v in zip(df["lam"], df["beta"], df[metric]):
            grid[betas.index(beta), lams.index(lam)] = 100.0 * float(v)
        text = [["failed" if np.isnan(v) else f"{v:.1f}" for v in row] for row in grid]
        fig.add_trace(go.Heatmap(
            z=grid.tolist(), x=[f"{v:g}" for v in lams], y=[f"{v:g}" for v in betas],
            text=text, texttemplate="%{text}", zmin=zmin, zmax=zmax, colorscale="Viridis",
            showscale=col == 2, colorbar=dict(title="%"),
            hovertemplate="λ=%{x}, β=%{y}: %{z:.2f} %<extra></extra>",
        ), row=1, col=col)
        fig.update_xaxes(title_text="λ", type="category", row=1, col=col)
        fig.update_yaxes(title_text="β", type="category", row=1, col=col)
    fig.update_layout(title=title or "Sensitivity to λ and β", template="plotly_white")
    return fig


def convergence_figure(objectives, *, relative=False, title=None):
    """The objective against the iterations (the paper's Figure 3).

    Parameters
    ----------
    objectives : dict of str -> array-like
        One objective history per curve (e.g. ``{"Digit": model.objective_}``);
        element 0 is plotted at iteration 0.
    relative : bool, default=False
        Divide each curve by its first value, so curves of different datasets
        share one axis.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        One line per entry.
    """
    if not objectives:
        raise ValueError("convergence_figure needs at least one objective history.")
    fig = go.Figure()
    for i, (name, values) in enumerate(objectives.items()):
        y = np.asarray(values, dtype=float).ravel()
        if y.size == 0:
            raise ValueError(f"The objective history of {name!r} is empty.")
        if relative:
            y = y / y[0]
        fig.add_trace(go.Scatter(
            x=list(range(y.size)), y=y.tolist(), mode="lines+markers", name=str(name),
            line=dict(color=method_color(str(name), i)),
            hovertemplate=f"{name}<br>iteration %{{x}}: %{{y:.6g}}<extra></extra>",
        ))
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="objective / initial objective" if relative else "objective")
    fig.update_layout(title=title or "Convergence of the objective", template="plotly_white",
                      legend_title_text="")
    return fig
