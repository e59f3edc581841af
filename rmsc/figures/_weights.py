"""The Weights page's figures: P as a heatmap (pooled to keep low weights visible), each
view's share of the weights, their distribution, the outlier ROC curves."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..inspection import DARK_RELATIVE, SHARE_LABEL, pooled_columns  # noqa: F401 - re-exported
from ._style import PLAIN_NUMBERS, boundary_line, class_color, group_ticks, plain_numbers


#: Gap between the rows of the weights heatmap (px): the outlier marks sit in it.
WEIGHT_ROW_GAP = 16

#: Size of a mark in that gap (px): as tall as the gap, so that a mark stands out above
#: columns one or two pixels wide (at 6 px they vanished above 300 columns at 1280 px);
#: each mark is outlined in white, so neighbouring marks stay apart.
OUTLIER_MARK_SIZE = 14


def weight_distribution_figure(weights, view_names, outlier_mask=None, *, relative=False):
    """Per-view distribution of the weights (box plots), injected pairs apart.

    ``relative`` divides each view's weights by their median.
    """
    P = np.asarray(weights, dtype=float)
    if relative:
        med = np.median(P, axis=1, keepdims=True)
        P = P / np.where(med > 0, med, 1.0)
    fig = go.Figure()
    names = np.repeat(np.asarray(view_names, dtype=object), P.shape[1])
    flat = P.ravel()
    if outlier_mask is None:
        fig.add_trace(go.Box(x=names, y=flat, name="samples", marker_color="#4c78a8",
                             boxpoints="outliers"))
    else:
        mask = np.asarray(outlier_mask, bool).ravel()
        fig.add_trace(go.Box(x=names[~mask], y=flat[~mask], name="clean",
                             marker_color="#4c78a8", boxpoints="outliers"))
        fig.add_trace(go.Box(x=names[mask], y=flat[mask], name="injected outliers",
                             marker_color="#e45756", boxpoints="all", jitter=0.4))
        fig.update_layout(boxmode="group")
    fig.update_layout(title="Weight distribution per view",
                      yaxis_title="P / view median" if relative else "P", height=340,
                      margin=dict(t=40, b=40, l=60, r=10))
    return plain_numbers(fig)


#: The ROC figure's axes run from -ROC_PAD to 1 + ROC_PAD, so that a curve along an edge
#: (x = 0, y = 1: a perfect one) shows; its curves' width (px), and their dashes in the
#: order drawn: where two curves run together (both reach the top), the later one, dashed,
#: on top of the earlier one, lets the earlier one's colour show between its dashes (a wider
#: first curve under a thin second one hid the second: the eighth cold reading).
ROC_PAD = 0.04
ROC_LINE_WIDTH = 2.5
ROC_DASHES = ("solid", "dash", "dashdot", "longdash", "longdashdot")


def roc_figure(curves, view_names, aucs=None):
    """Outlier-detection ROC per view (from ``rmsc.outliers.roc_curves``).

    Parameters
    ----------
    curves : list of (fpr, tpr) or None per view
    view_names : list of str
    aucs : list of float or None
    """
    fig = go.Figure()
    drawn = [v for v, cur in enumerate(curves) if cur is not None]
    for rank, v in enumerate(drawn):
        fpr, tpr = curves[v]
        name = view_names[v]
        label = name if aucs is None or aucs[v] is None or np.isnan(aucs[v]) else (
            f"{name} (AUC {aucs[v]:.3f})")
        # one width, each later curve dashed over the earlier ones (ROC_DASHES)
        dash = ROC_DASHES[rank % len(ROC_DASHES)]
        fig.add_trace(go.Scatter(x=np.asarray(fpr), y=np.asarray(tpr), mode="lines",
                                 name=label, line=dict(color=class_color(v),
                                                       width=ROC_LINE_WIDTH, dash=dash)))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                             line=dict(dash="dot", color="grey")))
    # the axes a little beyond [0, 1]: a perfect curve runs up x = 0 and along y = 1, and on
    # the axes' own edges it was hidden under the axis line and the frame (the seventh cold
    # reading of the lesson saw only a stub of the AUC-1 curve)
    fig.update_layout(title="Finding the injected outliers from low weights (ROC)",
                      xaxis_title="false positive rate", yaxis_title="true positive rate",
                      xaxis_range=[-ROC_PAD, 1 + ROC_PAD], yaxis_range=[-ROC_PAD, 1 + ROC_PAD],
                      height=380, margin=dict(t=40, b=40, l=60, r=10))
    fig.update_xaxes(zeroline=False, tickvals=[0, 0.25, 0.5, 0.75, 1])
    fig.update_yaxes(zeroline=False, tickvals=[0, 0.25, 0.5, 0.75, 1])
    return fig


def score_roc_figure(curves_by_score, view_names, aucs_by_score=None):
    """ROC of several outlier scores, one panel per view that has outliers.

    Parameters
    ----------
    curves_by_score : dict of str -> list of (fpr, tpr) or None per view
        Score name -> ``rmsc.outliers.roc_curves(score, mask)``.
    view_names : list of str
    aucs_by_score : dict of str -> list of float, optional
        Score name -> ROC-AUC per view; shown in the legend (first panel) and on hover.

    Every score keeps its color in every panel; a dotted diagonal is chance.
    """
    names = list(curves_by_score)
    shown = [v for v in range(len(view_names))
             if any(curves_by_score[k][v] is not None for k in names)]
    fig = make_subplots(rows=1, cols=max(len(shown), 1),
                        subplot_titles=[str(view_names[v]) for v in shown] or ["no outliers"])
    for col, v in enumerate(shown, start=1):
        for i, key in enumerate(names):
            cur = curves_by_score[key][v]
            if cur is None:
                continue
            auc = None if aucs_by_score is None else aucs_by_score[key][v]
            label = key if auc is None or np.isnan(auc) else f"{key} (AUC {auc:.3f})"
            fig.add_trace(go.Scatter(
                x=np.asarray(cur[0]), y=np.asarray(cur[1]), mode="lines",
                name=key, legendgroup=key, showlegend=col == 1,
                line=dict(color=class_color(i)), hovertemplate=f"{view_names[v]}: {label}"
                "<br>FPR %{x:.3f}, TPR %{y:.3f}<extra></extra>"), row=1, col=col)
        fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                                 legendgroup="chance", showlegend=col == 1,
                                 line=dict(dash="dot", color="grey")), row=1, col=col)
        fig.update_xaxes(range=[0, 1], title="false positive rate", row=1, col=col)
        fig.update_yaxes(range=[0, 1.02], row=1, col=col)
    fig.update_yaxes(title="true positive rate", row=1, col=1)
    fig.update_layout(title="Which score finds the injected outliers (ROC per corrupted view)",
                      height=380, margin=dict(t=60, b=40, l=60, r=10),
                      legend=dict(orientation="h", y=-0.25))
    return fig


def sample_weights_figure(table, *, title="Weights of one sample", relative=False):
    """A sample's weight in every view next to that view's median.

    Parameters
    ----------
    table : pandas.DataFrame from :func:`rmsc.dashboard.sample_weights`
    relative : bool
        Show weight / view median (the median becomes 1 in every view).
    """
    w = table["weight"].to_numpy(dtype=float)
    med = table["view median"].to_numpy(dtype=float)
    if relative:
        w = w / np.where(med > 0, med, 1.0)
        med = np.ones_like(med)
    fig = go.Figure([
        go.Bar(x=table["view"], y=w, name="this sample", marker_color="#e45756",
               hovertemplate="%{x}: %{y:.4g}<extra></extra>"),
        go.Scatter(x=table["view"], y=med, mode="markers", name="view median",
                   marker=dict(symbol="line-ew", size=30, line=dict(width=3, color="black"))),
    ])
    fig.update_layout(title=title, yaxis_title="P / view median" if relative else "P",
                      height=300, margin=dict(t=40, b=40, l=60, r=10))
    return plain_numbers(fig)


def view_shares_figure(shares, *, cap=None, title="Each view's part of the weights"):
    """Each view's share of the consensus weight c_v P and the share of its samples at the cap.

    Parameters
    ----------
    shares : list of dict
        :func:`rmsc.inspection.view_weight_shares`: ``view``, ``share`` (of the consensus
        weight) and ``at_cap`` (fractions).
    cap : float or None
        The cap 1/√γ, named in the legend when given.

    Returns
    -------
    plotly.graph_objects.Figure
        Two bars per view (in %), each labelled with its value; a dotted line at an
        equal share (100 / number of views), named in the right margin, beside the bars
        rather than behind them.
    """
    if not shares:
        raise ValueError("view_shares_figure needs at least one view.")
    names = [str(s["view"]) for s in shares]
    share = [100 * float(s["share"]) for s in shares]
    capped = [100 * float(s["at_cap"]) for s in shares]
    at = "samples at the cap" + ("" if cap is None else f" 1/√γ = {cap:.3g}")
    fig = go.Figure([
        go.Bar(x=names, y=share, name=SHARE_NAME, marker_color="#4c78a8",
               text=[f"{v:.0f}%" for v in share], textposition="outside", cliponaxis=False,
               hovertemplate="%{x}: %{y:.1f}% of the consensus weight c_v P<extra></extra>"),
        go.Bar(x=names, y=capped, name=at, marker_color="#e45756",
               text=[f"{v:.0f}%" for v in capped], textposition="outside", cliponaxis=False,
               hovertemplate="%{x}: %{y:.1f}% of its samples at the cap<extra></extra>"),
    ])
    equal = 100 / len(shares)
    fig.add_hline(y=equal, line=dict(dash="dot", color="grey"))
    fig.add_annotation(x=1.0, xref="paper", xanchor="left", y=equal, yref="y",
                       text=f"equal<br>share<br>{equal:.0f}%", showarrow=False,
                       font=dict(size=11, color="grey"), align="left")
    fig.update_layout(title=title, barmode="group", yaxis_title="%", yaxis_range=[0, 110],
                      height=340, margin=dict(t=60, b=40, l=60, r=55),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=1,
                                  xanchor="right"))
    return fig


#: The name of the consensus-weight share in the figures (the tables' is
#: :data:`rmsc.inspection.SHARE_LABEL`).
SHARE_NAME = f"{SHARE_LABEL} (consensus weight)"


def trust_quality_figure(shares, quality, measure, *,
                         title="Trust against each view's own quality"):
    """Each view's share of the consensus weight against how well it clusters on its own.

    Parameters
    ----------
    shares : list of dict
        :func:`rmsc.inspection.view_weight_shares` (``view``, ``share``, 0-1).
    quality : list of dict
        :func:`rmsc.inspection.view_quality` (``acc`` 0-1 or ``eigengap``), same views.
    measure : {"acc", "eigengap"}
        Which quality is on the y axis (:func:`rmsc.inspection.quality_measure`).

    Returns
    -------
    plotly.graph_objects.Figure
        One labelled point per view: x its share (%), y its own ACC (%) or its own graph's
        eigengap; a dotted vertical line at an equal share. Trust that follows quality
        runs from the lower left to the upper right.
    """
    if not shares or len(shares) != len(quality):
        raise ValueError("trust_quality_figure needs the same views (at least one) in "
                         "shares and quality.")
    if measure not in ("acc", "eigengap"):
        raise ValueError(f"measure must be 'acc' or 'eigengap'; got {measure!r}.")
    names = [str(s["view"]) for s in shares]
    x = [100 * float(s["share"]) for s in shares]
    scale = 100.0 if measure == "acc" else 1.0
    y = [scale * float(q[measure]) for q in quality]
    ytitle = "its own ACC (%, SC-BSV on the view alone)" if measure == "acc" else \
        "its own graph's eigengap (no labels)"
    fig = go.Figure(go.Scatter(
        x=x, y=y, mode="markers+text", text=names, textposition="top center",
        marker=dict(size=12, color="#4c78a8"), cliponaxis=False, name="view",
        hovertemplate="%{text}: share %{x:.1f}%, " +
                      ("own ACC %{y:.1f}%" if measure == "acc" else "eigengap %{y:.3g}") +
                      "<extra></extra>"))
    fig.add_vline(x=100 / len(shares), line=dict(dash="dot", color="grey"))
    fig.update_layout(title=title, height=340, margin=dict(t=60, b=50, l=60, r=20),
                      xaxis_title=SHARE_NAME + " (%)", yaxis_title=ytitle,
                      xaxis_range=[0, 105], showlegend=False)
    return fig


#: The top of the colour scale of relative weights (P / view median).
RELATIVE_ZMAX = 1.2

#: The colour scale of :func:`pooled_weights_heatmap_figure` for P / view median on
#: [0, :data:`RELATIVE_ZMAX`]: black to purple below :data:`DARK_RELATIVE` (three quarters
#: of the median), then a step to orange, pale from 0.96: a cell is dark exactly when the
#: lesson's words count it dark (:func:`rmsc.dashboard.lesson.heatmap_note`), and the colour
#: bar marks the step (the tenth cold reading found "drawn dark below 0.75 × median" on a
#: scale that ran on without a mark). (On Digit with 10 % replaced samples in PIX and FOU
#: the pooled cells of the injected samples lie at 0.4-0.7 of the median, their neighbours'
#: at 0.8-1.1.) Its colours avoid #000001-#000040: Streamlit's frontend replaces those
#: strings anywhere in a figure (its theme's placeholder colours, also with ``theme=None``),
#: so magma's #000004 at 0 became plotly's light purple #ab63fa in the colour bar and in the
#: cells near 0.
LOW_END_COLORSCALE = [
    [0.0, "#000000"], [0.5, "#3b0f70"], [DARK_RELATIVE / RELATIVE_ZMAX, "#8c2981"],
    [DARK_RELATIVE / RELATIVE_ZMAX, "#fe9f6d"], [0.8, "#fcfdbf"], [1.0, "#ffffff"],
]

def relative_ticks(quantity=None):
    """The colour bar's ticks on the relative scale: 0, 0.5, :data:`DARK_RELATIVE` (where the
    colours step from dark to light, labelled so) and 1 (the median, or "as before" for
    another ratio ``quantity``)."""
    one = "1 as before" if quantity is not None else "1 median"
    return dict(tickvals=[0, 0.5, DARK_RELATIVE, 1],
                ticktext=["0", "0.5", f"{DARK_RELATIVE:g} dark below", one])


#: The heatmap's background, in the gaps between its rows, and its frame: a cell at the
#: scale's white end must show as a cell inside the plot, not as the page around it (the
#: eighth cold reading took white cells for rows ending early).
HEATMAP_BACKGROUND = "#d4d4d4"
HEATMAP_FRAME = "#555555"

#: Room above the heatmap's title (px) for plotly's toolbar, drawn in the figure's top right
#: corner: on the title's line it hid the title's end ("than usual, white = more").
MODEBAR_ROOM_PX = 30


def column_runs(columns):
    """Runs of adjacent columns in sorted, unique ``columns``: a list of (first, last)."""
    cols = np.asarray(columns, dtype=np.int64)
    if cols.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(cols) > 1)
    firsts = np.r_[cols[0], cols[breaks + 1]]
    lasts = np.r_[cols[breaks], cols[-1]]
    return [(int(a), int(b)) for a, b in zip(firsts, lasts)]


#: The share of the heatmap's width a mark and its "×n" take: runs of marked columns closer
#: than that share one mark (:func:`mark_groups`), else one mark hid the next one's label
#: (the seventh cold reading read "▼▼5" for a single mark beside a "×5"). At 1280 px the
#: heatmap is about 680 px wide and a mark with its label about 30.
MARK_REACH = 0.045


def mark_groups(columns, reach=1, breaks=()):
    """Runs of marked ``columns`` (sorted, unique; :func:`column_runs`) joined when the next
    begins at most ``reach`` columns after the last ends, unless a column of ``breaks`` (a
    class's first) lies between them: a list of ``(first, last, count)``, ``count`` the marked
    columns among first..last, and ``runs``, the runs each group joined."""
    groups = []
    starts = np.sort(np.asarray(breaks, dtype=np.int64))
    for a, b in column_runs(columns):
        if groups:
            first, last, runs = groups[-1]
            split = np.any((starts > last) & (starts <= a))
            if a - last <= reach and not split:
                groups[-1] = (first, b, runs + [(a, b)])
                continue
        groups.append((a, b, [(a, b)]))
    return [(first, last, sum(y - x + 1 for x, y in runs), runs)
            for first, last, runs in groups]


def pooled_weights_heatmap_figure(heatmap, view_names, *, outlier_mask=None, placed=None,
                                  relative=True, axis_title="samples grouped by class",
                                  quantity=None):
    """P as a heatmap pooled to keep a low weight visible (:func:`rmsc.inspection.heatmap_pool`).

    Parameters
    ----------
    heatmap : rmsc.inspection.PooledHeatmap
        Its ``values`` (n_views x n_columns) are drawn as they are: every column the
        minimum (or a low quantile) of its samples, classes in ``groups``.
    view_names : list of str
    outlier_mask : ndarray of bool, shape (n_views, n_samples), or None
        Each column holding an injected (view, sample) pair gets a red triangle in the gap
        just above its cell in that view's row; a run of adjacent such columns, or runs
        closer than a mark and its label (:data:`MARK_REACH` of the width, within one
        class), get one triangle over their middle with "×n" beside it, n the marked
        columns (:func:`mark_groups`).
    placed : array of int or None
        Samples placed by their neighbours: a black triangle below the last row.
    relative : bool
        Whether ``values`` are P / view median (the heatmap was pooled with
        ``relative=True``): then the colours are :data:`LOW_END_COLORSCALE` on
        [0, :data:`RELATIVE_ZMAX`], dark below :data:`DARK_RELATIVE` of the median, the step
        marked on the colour bar (:func:`relative_ticks`).
    axis_title : str
    quantity : str or None
        What ``values`` are, for the colour bar, the hover and the title, when they are
        another ratio with 1 as "as usual" (drawn on the relative colour scale), e.g.
        "P / P clean" (:func:`rmsc.inspection.weight_change`). None: "P / median" or "P".

    Rows are at y = 0..n_views-1, columns at x = 0..n_columns-1; a mark for view v is at
    (column, v - 0.5).
    """
    Z = np.asarray(heatmap.values, dtype=float)
    m, k = Z.shape
    names = [str(v) for v in view_names]
    if quantity is not None:
        relative = True
    label = quantity or ("P / median" if relative else "P")
    first = heatmap.order[heatmap.bounds[:-1]]
    count = np.diff(heatmap.bounds)
    fig = go.Figure(go.Heatmap(
        z=Z.astype(np.float32), x=np.arange(k), y=list(range(m)), ygap=WEIGHT_ROW_GAP,
        colorscale=LOW_END_COLORSCALE if relative else "Viridis",
        zmin=0 if relative else None, zmax=RELATIVE_ZMAX if relative else None,
        colorbar=dict(title=label, tickformat=PLAIN_NUMBERS, **(relative_ticks(quantity)
                                                               if relative else {})),
        customdata=np.broadcast_to(np.stack([first, count], axis=-1), (m, k, 2)),
        text=np.broadcast_to(np.asarray(names, dtype=object)[:, None], Z.shape),
        hovertemplate="view %{text}<br>%{customdata[1]} sample(s) from #%{customdata[0]}<br>"
                      f"{heatmap.pool} of {label} = %{{z:.3g}}<extra></extra>"))
    marked = False
    if outlier_mask is not None:
        mask = np.asarray(outlier_mask, bool)
        xs, ys, counts, spans = [], [], [], []
        for v in range(m):
            # one mark per run of adjacent marked columns, with their number beside it:
            # a mark is wider than a column, so side by side they piled into a smear that
            # could not be counted (the sixth cold reading of the lesson)
            # and runs closer than a mark with its label share one (MARK_REACH)
            for a, b, n, runs in mark_groups(
                    pooled_columns(heatmap, np.flatnonzero(mask[v])),
                    reach=max(1, int(np.ceil(MARK_REACH * k))),
                    breaks=[g[1] for g in heatmap.groups[1:]]):
                xs.append((a + b) / 2)
                ys.append(v - 0.5)
                counts.append(f"×{n}" if n > 1 else "")
                spans.append(", ".join(f"column {x}" if x == y else f"columns {x}-{y}"
                                       for x, y in runs))
        if xs:
            marked = True
            fig.add_trace(go.Scatter(
                x=xs, y=ys, mode="markers+text", text=counts, textposition="middle right",
                textfont=dict(color="red", size=11), cliponaxis=False, customdata=spans,
                name="injected outlier (mark above its row; ×n: n marked columns under it)",
                marker=dict(symbol="triangle-down", size=OUTLIER_MARK_SIZE, color="red",
                            line=dict(color="white", width=1)),
                hovertemplate="%{customdata}: injected sample(s)<extra></extra>"))
    has_placed = placed is not None and len(placed) > 0
    if has_placed:
        cols = pooled_columns(heatmap, np.asarray(placed, dtype=np.int64))
        marked = True
        fig.add_trace(go.Scatter(
            x=cols, y=np.full(cols.size, m - 0.5), mode="markers",
            name="placed by its neighbours (mark below the rows)",
            marker=dict(symbol="triangle-up", size=OUTLIER_MARK_SIZE, color="black",
                        line=dict(color="white", width=1)),
            hovertemplate="column %{x}: holds a placed sample<extra></extra>"))
    groups = [g for g in heatmap.groups if g[0] is not None]
    if groups:
        line = boundary_line(len(groups), "rgba(255,255,255,0.45)")
        if line is not None:
            # between two classes' columns, drawn under the cells: it shows in the gaps
            # between the rows and never covers a column (on top, a 1-px line hid most of
            # a 2-px column, the darkest of its class; the sixth cold reading of the lesson)
            for _, start, _ in groups[1:]:
                fig.add_vline(x=start - 0.5, line=dict(line, color="#1f77b4"), layer="below")
        vals, text = group_ticks([(a + b) / 2 - 0.5 for _, a, b in groups],
                                 [g[0] for g in groups])
        fig.update_xaxes(tickvals=vals, ticktext=text)
    # the order and, when columns pool samples, the pooling, in words under the axis (a line
    # under the title would run into the legend)
    how = ["lowest weight first within each group"] if groups else []
    if count.size and count.max() > 1:
        how.append("each column the " + ("lowest" if heatmap.pool == "min" else heatmap.pool)
                   + " of the samples it holds")
    fig.update_xaxes(title="; ".join([axis_title + (", " + how[0] if groups else ""),
                                      *how[1 if groups else 0:]]),
                     range=[-0.5, k - 0.5], showgrid=False, zeroline=False)
    # automargin: the left margin grows to the longest view name ("view 1 (20-d)" was cut
    # to "w 1 (20-d)" at 1280 px in the fixed 60 px)
    fig.update_yaxes(tickvals=list(range(m)), ticktext=names,
                     range=[m - 0.25 if has_placed else m - 0.5, -0.75],
                     zeroline=False, showgrid=False, automargin=True)
    # a frame round the cells (and the background between the rows, HEATMAP_BACKGROUND)
    fig.update_xaxes(showline=True, mirror=True, linecolor=HEATMAP_FRAME, linewidth=1)
    fig.update_yaxes(showline=True, mirror=True, linecolor=HEATMAP_FRAME, linewidth=1)
    # the title in plain words: what a cell's colour says
    if quantity is not None:
        what = f"Change of the weights, {quantity}: dark = lower than before"
    elif relative:
        what = ("Each sample's weight in each view ÷ the view's median: dark = under "
                f"{DARK_RELATIVE:g} of usual, white = more")
    else:
        what = "Each sample's weight P in each view (dark = low)"
    # the title below the toolbar's row (MODEBAR_ROOM_PX), the legend below the title
    height = 160 + 50 * m
    fig.update_layout(
        title=dict(text=what, yref="container", yanchor="top", y=1 - MODEBAR_ROOM_PX / height),
        height=height, margin=dict(t=80, b=40, l=60, r=10), showlegend=marked,
        plot_bgcolor=HEATMAP_BACKGROUND,
        legend=dict(orientation="h", x=1, xanchor="right", y=1.02, yanchor="bottom"))
    return fig
