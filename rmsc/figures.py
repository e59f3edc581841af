"""Every figure of rmsc: pure functions, data in, plotly Figure out.

Nothing here imports streamlit or fits a model; the dashboard's pages and the
``rmsc reproduce`` command call these with numbers they already have. Large
matrices are pooled or rendered as images before they are put in a figure, so
no figure carries more than about 600 x 600 cells as JSON.
"""

from __future__ import annotations


# ---------------------------------------------------------------------------
# Dashboard figures (data, solver, weights, affinity, comparison, theory)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Reproduction figures (the paper's Figures 1, 3 and 4)
# ---------------------------------------------------------------------------

# Imports of this section are kept here, not at the top, so that the two sections of the
# module can grow independently.
import numpy as _np  # noqa: E402
import plotly.graph_objects as _go  # noqa: E402
from plotly.subplots import make_subplots as _make_subplots  # noqa: E402

#: One colour per method, the same in every reproduction figure (plotly's qualitative palette).
_METHOD_COLOURS = {
    "SC-BSV": "#636EFA", "MSC": "#EF553B", "Co-Pairwise": "#00CC96", "Co-Centroid": "#AB63FA",
    "Co-Training": "#FFA15A", "SSC-BSV": "#19D3F3", "SSC-AVG": "#FF6692", "DiMSC": "#B6E880",
    "RMSC-WV": "#FF97FF", "RMSC": "#1F2A44",
}


def _method_colour(name, i):
    fallback = ("#636EFA", "#EF553B", "#00CC96", "#AB63FA", "#FFA15A", "#19D3F3")
    return _METHOD_COLOURS.get(name, fallback[i % len(fallback)])


def _require_columns(df, columns, what):
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs the column(s) {', '.join(missing)}; got "
                         f"{', '.join(map(str, df.columns))}.")


def _pct(values):
    return 100.0 * _np.asarray(values, dtype=float)


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
    _require_columns(df, ("method", "n_views", "acc_mean", "acc_std", "nmi_mean", "nmi_std"),
                     "accuracy_vs_views_figure")
    fig = _make_subplots(rows=1, cols=2, subplot_titles=("Accuracy", "NMI"),
                         horizontal_spacing=0.1)
    methods = list(dict.fromkeys(df["method"]))
    for i, method in enumerate(methods):
        d = df[df["method"] == method].sort_values("n_views")
        for col, metric in ((1, "acc"), (2, "nmi")):
            fig.add_trace(_go.Scatter(
                x=d["n_views"].tolist(), y=_pct(d[f"{metric}_mean"]).tolist(),
                error_y=dict(type="data", array=_pct(d[f"{metric}_std"]).tolist(), visible=True),
                mode="lines+markers", name=method, legendgroup=method, showlegend=col == 1,
                line=dict(color=_method_colour(method, i)),
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
        annotated with its value; one shared colour scale in %.
    """
    _require_columns(df, ("lam", "beta", "acc_mean", "nmi_mean"), "sensitivity_figure")
    lams = sorted(df["lam"].unique())
    betas = sorted(df["beta"].unique())
    fig = _make_subplots(rows=1, cols=2, subplot_titles=("Accuracy (%)", "NMI (%)"),
                         horizontal_spacing=0.12)
    values = _pct(df[["acc_mean", "nmi_mean"]].to_numpy())
    finite = values[_np.isfinite(values)]
    zmin, zmax = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 100.0)
    for col, metric in ((1, "acc_mean"), (2, "nmi_mean")):
        grid = _np.full((len(betas), len(lams)), _np.nan)
        for lam, beta, v in zip(df["lam"], df["beta"], df[metric]):
            grid[betas.index(beta), lams.index(lam)] = 100.0 * float(v)
        text = [["failed" if _np.isnan(v) else f"{v:.1f}" for v in row] for row in grid]
        fig.add_trace(_go.Heatmap(
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
    fig = _go.Figure()
    for i, (name, values) in enumerate(objectives.items()):
        y = _np.asarray(values, dtype=float).ravel()
        if y.size == 0:
            raise ValueError(f"The objective history of {name!r} is empty.")
        if relative:
            y = y / y[0]
        fig.add_trace(_go.Scatter(
            x=list(range(y.size)), y=y.tolist(), mode="lines+markers", name=str(name),
            line=dict(color=_method_colour(str(name), i)),
            hovertemplate=f"{name}<br>iteration %{{x}}: %{{y:.6g}}<extra></extra>",
        ))
    fig.update_xaxes(title_text="iteration")
    fig.update_yaxes(title_text="objective / initial objective" if relative else "objective")
    fig.update_layout(title=title or "Convergence of the objective", template="plotly_white",
                      legend_title_text="")
    return fig


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
    _require_columns(df, ("method", "acc_mean", "acc_std", "nmi_mean", "nmi_std"),
                     "comparison_figure")
    methods = df["method"].tolist()
    fig = _go.Figure()
    for metric, label, colour in (("acc", "ACC", "#1F77B4"), ("nmi", "NMI", "#FF7F0E")):
        fig.add_trace(_go.Bar(
            x=methods, y=_pct(df[f"{metric}_mean"]).tolist(), name=f"{label} (ours)",
            error_y=dict(type="data", array=_pct(df[f"{metric}_std"]).tolist(), visible=True),
            marker_color=colour, offsetgroup=metric,
            hovertemplate=f"%{{x}}: {label} %{{y:.2f}} %<extra></extra>",
        ))
    if paper:
        for k, (label, symbol) in enumerate((("ACC", "diamond"), ("NMI", "x"))):
            ys = [paper[m][k] if m in paper else None for m in methods]
            fig.add_trace(_go.Scatter(
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
