"""The Solve page's figures: the objective curve, the views' mean weights, the suggestion."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._style import class_color, plain_numbers


def objective_figure(history, *, max_iter=None, title="Objective per iteration"):
    """The RMSC objective after every iteration (the live curve of the Solve page).

    Parameters
    ----------
    history : sequence of (iteration, objective)
    max_iter : int or None
        Fixes the x range to [1, max_iter] so the curve grows into it.
    """
    pts = np.asarray(list(history), dtype=float).reshape(-1, 2)
    fig = go.Figure(go.Scatter(x=pts[:, 0], y=pts[:, 1], mode="lines+markers",
                               name="objective",
                               hovertemplate="iteration %{x}: %{y:.6g}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title="iteration", yaxis_title="objective",
                      height=320, margin=dict(t=40, b=40, l=60, r=10))
    if max_iter:
        fig.update_xaxes(range=[0.5, max(float(max_iter), pts[:, 0].max(initial=1)) + 0.5])
    return plain_numbers(fig)


def view_weights_figure(view_names, mean_weights, *, title="Mean weight per view"):
    """Bar chart of each view's mean weight (how much RMSC trusts the view)."""
    w = np.asarray(mean_weights, dtype=float)
    fig = go.Figure(go.Bar(x=list(view_names), y=w, marker_color="#4c78a8",
                           text=[f"{x:.3g}" for x in w], textposition="outside",
                           hovertemplate="%{x}: %{y:.4g}<extra></extra>"))
    fig.update_layout(title=title, yaxis_title="mean of P", height=320,
                      margin=dict(t=40, b=40, l=60, r=10))
    return plain_numbers(fig)


def _number(value):
    """A float, or None for a value not measured (a criterion that skips the agreement)."""
    return None if value is None else float(value)


def suggestion_figure(table, best, *, n_clusters=None, title=None):
    """The label-free criterion against λ (one line per ``beta_rel``), the suggestion marked.

    Parameters
    ----------
    table : list of dict
        One row per setting tried, as :attr:`rmsc.selection.Suggestion.table`: lam,
        beta_rel, and either agreement, eigengap, isolated, pieces or error (no clustering).
    best : int
        Index of the suggested row (:attr:`rmsc.selection.Suggestion.best`).
    n_clusters : int or None
        c: settings whose graph has more pieces than c are drawn as open markers.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        What the suggestion ranks by. Top: the agreement of the k-means runs (their mean
        ARI, the third rule) per λ (log axis), one line per ``beta_rel``; each point
        labelled with its isolated samples when it has any (the first rule) and drawn open
        when it has isolated samples or more pieces than c (the second); settings that
        gave no clustering as crosses on the axis; the suggestion as a star. Bottom: the
        isolated samples per λ, the same lines. The eigengap is on hover.
    """
    if not table:
        raise ValueError("suggestion_figure needs at least one setting.")
    if not 0 <= best < len(table):
        raise ValueError(f"best={best} is not a row of the table ({len(table)} rows).")
    rels = sorted({float(r["beta_rel"]) for r in table})
    lams = sorted({float(r["lam"]) for r in table})
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32],
                        vertical_spacing=0.14,  # the lower title clear of the upper axis
                        subplot_titles=("Agreement of the k-means runs (ARI; ranked third)",
                                        "Isolated samples (fewer is better; ranked first)"))
    for i, rel in enumerate(rels):
        rows = sorted((r for r in table if float(r["beta_rel"]) == rel), key=lambda r: r["lam"])
        ok = ["error" not in r for r in rows]
        x = [float(r["lam"]) for r in rows]
        agree = [_number(r.get("agreement")) if good else None for r, good in zip(rows, ok)]
        gap = [float(r["eigengap"]) if good else -1.0 for r, good in zip(rows, ok)]
        iso = [int(r["isolated"]) if good else None for r, good in zip(rows, ok)]
        pieces = [int(r["pieces"]) if good else None for r, good in zip(rows, ok)]
        poor = [good and (n_iso > 0 or (n_clusters is not None and n_p > n_clusters))
                for good, n_iso, n_p in zip(ok, iso, pieces)]
        color = class_color(i)
        name = f"β_rel = {rel:g}"
        fig.add_trace(go.Scatter(
            x=x, y=agree, mode="lines+markers+text", name=name, legendgroup=name,
            line=dict(color=color), connectgaps=False,
            marker=dict(size=9, symbol=["circle-open" if p else "circle" for p in poor]),
            text=[f"{n} isolated" if good and n else "" for good, n in zip(ok, iso)],
            textposition="top center",
            customdata=[[n if n is not None else -1, p if p is not None else -1, g]
                        for n, p, g in zip(iso, pieces, gap)],
            hovertemplate=(f"λ = %{{x:g}}, {name}<br>agreement (ARI) %{{y:.3f}}<br>"
                           "%{customdata[0]} isolated, %{customdata[1]} piece(s), "
                           "eigengap %{customdata[2]:.4f}<extra></extra>"),
        ), row=1, col=1)
        fig.add_trace(go.Scatter(
            x=x, y=iso, mode="lines+markers", name=name, legendgroup=name, showlegend=False,
            line=dict(color=color), connectgaps=False,
            hovertemplate=f"λ = %{{x:g}}, {name}: %{{y}} isolated<extra></extra>",
        ), row=2, col=1)
    failed = [r for r in table if "error" in r]
    if failed:
        fig.add_trace(go.Scatter(
            x=[float(r["lam"]) for r in failed], y=[0.0] * len(failed), mode="markers",
            name="no clustering", marker=dict(symbol="x", size=10, color="#888888"),
            text=[f"β_rel = {float(r['beta_rel']):g}" for r in failed],
            hovertemplate="λ = %{x:g}, %{text}: no clustering<extra></extra>",
        ), row=1, col=1)
    chosen = table[best]
    fig.add_trace(go.Scatter(
        x=[float(chosen["lam"])], y=[_number(chosen.get("agreement"))], mode="markers",
        name=f"suggested: λ = {float(chosen['lam']):g}, β_rel = {float(chosen['beta_rel']):g}",
        marker=dict(symbol="star", size=18, color="gold", line=dict(color="black", width=1)),
        hovertemplate="suggested: λ = %{x:g}, agreement (ARI) %{y:.3f}<extra></extra>",
    ), row=1, col=1)
    # Points on the range's ends (the best eigengap, no isolated sample) and their labels
    # are drawn whole, not cut in half by the axes.
    fig.update_traces(cliponaxis=False)
    ticks = dict(type="log", tickvals=lams, ticktext=[f"{v:g}" for v in lams])
    fig.update_xaxes(**ticks, row=1, col=1)
    fig.update_xaxes(**ticks, title_text="λ", row=2, col=1)
    fig.update_yaxes(title_text="ARI", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="samples", rangemode="tozero", row=2, col=1)
    fig.update_layout(title=title or "Label-free criterion against λ and β_rel", height=520,
                      margin=dict(t=60, b=40, l=60, r=10), legend_title_text="",
                      legend=dict(orientation="h", yanchor="top", y=-0.16, x=0))
    return fig


def clustering_trace_figure(rows, *, max_iter=None,
                            title="The clustering along the iterations"):
    """The clustering of Z* recorded along a fit (:class:`rmsc.tracking.ClusteringTrace`).

    Parameters
    ----------
    rows : sequence of dict
        :attr:`rmsc.tracking.ClusteringTrace.rows`: ``iteration``, ``ari_previous``,
        ``changed``, ``acc``, ``nmi`` (None without labels), ``final``.
    max_iter : int or None
        Fixes the x range to [1, max_iter], as :func:`objective_figure` does, so the two
        curves line up.
    title : str

    Returns
    -------
    plotly.graph_objects.Figure
        Top: the adjusted Rand index of each recorded clustering with the previous one (a
        label-free agreement; 1 = the same partition), samples that changed cluster on
        hover. Bottom, when the rows have ACC/NMI: ACC and NMI (%) of each recorded
        clustering; the fit's own result (20 k-means runs, the ``final`` row) as stars.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("clustering_trace_figure needs at least one recorded row.")
    scored = any(r.get("acc") is not None for r in rows)
    quick = [r for r in rows if not r.get("final")]
    final = [r for r in rows if r.get("final")]
    fig = make_subplots(rows=2 if scored else 1, cols=1, shared_xaxes=True,
                        vertical_spacing=0.16, row_heights=[0.5, 0.5] if scored else None,
                        subplot_titles=(("ARI with the previous clustering",
                                         "Scores against the labels")
                                        if scored else None))
    agree = [r for r in rows if r.get("ari_previous") is not None]
    fig.add_trace(go.Scatter(
        x=[r["iteration"] for r in agree], y=[r["ari_previous"] for r in agree],
        mode="lines+markers", name="ARI with the previous", line=dict(color="#4c78a8"),
        marker=dict(symbol=["star" if r.get("final") else "circle" for r in agree],
                    size=[12 if r.get("final") else 7 for r in agree]),
        customdata=[r["changed"] for r in agree],
        hovertemplate="iteration %{x}: ARI %{y:.4f}, %{customdata} sample(s) changed "
                      "cluster<extra></extra>"), row=1, col=1)
    if scored:
        for key, name, color in (("acc", "ACC %", "#e45756"), ("nmi", "NMI %", "#54a24b")):
            fig.add_trace(go.Scatter(
                x=[r["iteration"] for r in quick], y=[r[key] for r in quick],
                mode="lines+markers", name=name, legendgroup=key, line=dict(color=color),
                hovertemplate=f"iteration %{{x}}: {name} %{{y:.2f}} (one k-means)"
                              "<extra></extra>"), row=2, col=1)
            if final:
                fig.add_trace(go.Scatter(
                    x=[r["iteration"] for r in final], y=[r[key] for r in final],
                    mode="markers", name=f"{name} of the fit", legendgroup=key,
                    marker=dict(symbol="star", size=13, color=color,
                                line=dict(color="black", width=1)),
                    hovertemplate=f"the fit's result: {name} %{{y:.2f}} (mean of its "
                                  "k-means runs)<extra></extra>"), row=2, col=1)
        fig.update_yaxes(title_text="%", row=2, col=1)
    fig.update_yaxes(title_text="ARI", range=[min(0.0, *(r["ari_previous"] for r in agree))
                                              if agree else 0.0, 1.05], row=1, col=1)
    fig.update_xaxes(title_text="iteration", row=2 if scored else 1, col=1)
    if max_iter:
        last = max(r["iteration"] for r in rows)
        fig.update_xaxes(range=[0.5, max(float(max_iter), last) + 0.5])
    fig.update_traces(cliponaxis=False)
    fig.update_layout(title=title, height=420 if scored else 280,
                      margin=dict(t=60, b=40, l=60, r=10),
                      # below the x axis's title, not over it
                      legend=dict(orientation="h", yanchor="top", y=-0.3, x=0))
    return fig
