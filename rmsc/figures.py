"""Every figure of rmsc: pure functions, data in, plotly Figure out.

Nothing here imports streamlit or fits a model; the dashboard's pages and the
``rmsc reproduce`` command call these with numbers they already have. Large
matrices are pooled or rendered as images before they are put in a figure, so
no figure carries more than about 600 x 600 cells as JSON.

Why one module of ~1,150 lines: the guide keeps every figure in one place
(DEVELOPERS.md, "Figures are pure functions ... in one module"), so that the
colours, pooling and layout conventions the figures share are defined once and
a reader finds any chart by name here. Each function is short and independent.
"""

from __future__ import annotations


# ---------------------------------------------------------------------------
# Dashboard figures (data, solver, weights, affinity, comparison, theory)
# ---------------------------------------------------------------------------

import numpy as np
import pandas as pd
import plotly.colors as pcolors
import plotly.express as px
import plotly.graph_objects as go
import scipy.sparse as sp
from plotly.subplots import make_subplots

#: Largest side of a matrix sent to the browser; bigger ones are pooled.
MAX_MATRIX_SIDE = 500

#: Colours of classes / clusters (cycled beyond 26).
CLASS_COLORS = px.colors.qualitative.Plotly + px.colors.qualitative.Alphabet
OUTLIER_COLOR = "black"


#: Many classes (e.g. 100 leaf species) must stay legible: above these counts a legend lists
#: ranges of classes ("classes 0–9") instead of each, bars lose their value labels, the
#: lines between groups on a matrix get thin and then are left out (the diagonal blocks
#: show the groups), and an axis names every k-th group only.
MAX_LEGEND_ENTRIES = 12
MAX_BAR_LABELS = 30
THIN_BOUNDARIES = 12
MAX_BOUNDARIES = 30
MAX_GROUP_TICKS = 20


def _class_color(i):
    return CLASS_COLORS[int(i) % len(CLASS_COLORS)]


def legend_groups(values, noun="class"):
    """How a legend lists ``values`` (classes or clusters, in order): one entry each, or ranges.

    Returns
    -------
    list of (name, list of (index, value))
        ``index`` is the value's position in ``values`` (its colour). At most
        :data:`MAX_LEGEND_ENTRIES` entries by value; beyond that, about ten entries
        of consecutive values, named by their range ("classes 0–9").
    """
    values = list(values)
    if len(values) <= MAX_LEGEND_ENTRIES:
        return [(f"{noun} {v}", [(k, v)]) for k, v in enumerate(values)]
    size = -(-len(values) // 10)
    out = []
    for start in range(0, len(values), size):
        chunk = list(enumerate(values))[start:start + size]
        first, last = chunk[0][1], chunk[-1][1]
        plural = "classes" if noun == "class" else f"{noun}s"
        out.append((f"{plural} {first}–{last}" if len(chunk) > 1 else f"{noun} {first}", chunk))
    return out


def _group_scatter(x, y, groups, members, ids, noun, **trace):
    """One scatter trace for a legend entry: its members' points, each in its value's colour."""
    sel = np.isin(groups, [v for _, v in members])
    colours = {v: _class_color(k) for k, v in members}
    if len(members) == 1:
        colour = colours[members[0][1]]
        hover = f"<extra>{noun} {members[0][1]}</extra>"
        text = None
    else:
        colour = [colours[g] for g in groups[sel]]
        hover = "<extra>%{text}</extra>"
        text = [f"{noun} {g}" for g in groups[sel]]
    marker = dict(trace.pop("marker", {}), color=colour)
    return go.Scattergl(x=x[sel], y=y[sel], mode="markers", marker=marker, customdata=ids[sel],
                        text=text, hovertemplate="sample %{customdata}" + hover, **trace)


def _boundary_line(n_groups, color):
    """The line between groups of a matrix, or None when there are too many to draw."""
    if n_groups > MAX_BOUNDARIES:
        return None
    if n_groups > THIN_BOUNDARIES:
        return dict(color=color.replace("0.45", "0.25"), width=0.5)
    return dict(color=color, width=1)


#: At most this many group names on an axis of a small panel (:func:`view_affinities_figure`).
MAX_PANEL_TICKS = 8


def _group_ticks(centres, groups, max_ticks=MAX_GROUP_TICKS):
    """Tick positions and names for ``groups``: every k-th beyond ``max_ticks`` (k = 1, 2, 5,
    10, 20, 50, ...: the names of the usual 0..c-1 classes read 0, 5, 10, ...)."""
    need = len(groups) / max_ticks
    step = next(m * 10 ** e for e in range(12) for m in (1, 2, 5) if m * 10 ** e >= need)
    return list(np.asarray(centres)[::step]), [str(g) for g in list(groups)[::step]]


def class_counts_figure(counts):
    """Bar chart of samples per class.

    Parameters
    ----------
    counts : pandas.Series
        Samples per class, indexed by class label (``MultiViewDataset.describe()[1]``).
    """
    labels = [str(c) for c in counts.index]
    shown = len(labels) <= MAX_BAR_LABELS  # many classes: the hover gives the numbers
    fig = go.Figure(go.Bar(x=labels, y=counts.to_numpy(), marker_color=[
        _class_color(i) for i in range(len(labels))], text=counts.to_numpy() if shown else None,
        textposition="outside" if shown else None,
        hovertemplate="class %{x}: %{y} samples<extra></extra>"))
    fig.update_layout(title="Samples per class", xaxis_title="class", yaxis_title="samples",
                      xaxis_type="category", height=300, margin=dict(t=40, b=40, l=50, r=10))
    return fig


def views_scatter_figure(coords, view_names, labels=None, outlier_mask=None, *, indices=None,
                         explained=None, columns=3):
    """A 2-D projection of every view, coloured by class, injected outliers ringed.

    Parameters
    ----------
    coords : list of ndarray, each (n_shown, 2)
        One projection per view (e.g. :func:`rmsc.dashboard.project_2d`), rows
        already restricted to ``indices`` when given.
    view_names : list of str
    labels : ndarray of shape (n_samples,) or None
        Class labels of all samples (restricted with ``indices``).
    outlier_mask : ndarray of bool, shape (n_views, n_samples), or None
    indices : ndarray of int or None
        The samples shown (a subsample); None = all.
    explained : list of (2,) arrays or None
        Variance explained by each axis, shown in the subplot titles.
    """
    m = len(coords)
    cols = min(columns, m)
    rows = -(-m // cols)
    titles = []
    for v, name in enumerate(view_names):
        if explained is not None:
            e = explained[v]
            titles.append(f"{name} (PC1 {100 * e[0]:.0f}%, PC2 {100 * e[1]:.0f}%)")
        else:
            titles.append(str(name))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=titles,
                        horizontal_spacing=0.05, vertical_spacing=0.12 if rows > 1 else 0.1)
    n_shown = coords[0].shape[0]
    idx = np.arange(n_shown) if indices is None else np.asarray(indices)
    y = None if labels is None else np.asarray(labels)[idx]
    entries = None if y is None else legend_groups(np.unique(y))
    for v in range(m):
        r, c = v // cols + 1, v % cols + 1
        xy = np.asarray(coords[v], dtype=np.float32)
        if entries is None:
            fig.add_trace(go.Scattergl(
                x=xy[:, 0], y=xy[:, 1], mode="markers",
                marker=dict(size=4, color="#1f77b4", opacity=0.7), name="samples",
                legendgroup="samples", showlegend=(v == 0), customdata=idx,
                hovertemplate="sample %{customdata}<extra></extra>"), row=r, col=c)
            continue
        for name, members in entries:
            fig.add_trace(_group_scatter(
                xy[:, 0], xy[:, 1], y, members, idx, "class", name=name, legendgroup=name,
                showlegend=(v == 0), marker=dict(size=4, opacity=0.7)), row=r, col=c)
        if outlier_mask is not None:
            out = np.asarray(outlier_mask, bool)[v][idx]
            if out.any():
                fig.add_trace(go.Scattergl(
                    x=xy[out, 0], y=xy[out, 1], mode="markers",
                    marker=dict(size=9, symbol="circle-open", color=OUTLIER_COLOR,
                                line=dict(width=1.5)),
                    name="injected outlier", legendgroup="outlier",
                    showlegend=not any(t.name == "injected outlier" for t in fig.data),
                    customdata=idx[out],
                    hovertemplate="sample %{customdata} (injected)<extra></extra>"),
                    row=r, col=c)
    fig.update_xaxes(showticklabels=False)
    fig.update_yaxes(showticklabels=False)
    fig.update_layout(height=300 * rows + 40, margin=dict(t=40, b=10, l=10, r=10),
                      legend=dict(itemsizing="constant"))
    return fig


def sample_images_figure(images, titles, *, columns=10):
    """Small grey-scale pictures (e.g. Digit's PIX view) in a grid.

    Parameters
    ----------
    images : list of 2-D arrays with values in [0, 1]
    titles : list of str
    """
    k = len(images)
    cols = max(1, min(columns, k))
    rows = -(-k // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=list(titles),
                        horizontal_spacing=0.01, vertical_spacing=0.08)
    for i, img in enumerate(images):
        grey = np.clip(np.asarray(img, dtype=float), 0, 1)
        rgb = np.repeat((255 * (1 - grey))[..., None], 3, axis=2).astype(np.uint8)
        fig.add_trace(go.Image(z=rgb, hoverinfo="skip"), row=i // cols + 1, col=i % cols + 1)
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_annotations(font_size=11)
    fig.update_layout(height=110 * rows + 30, margin=dict(t=25, b=5, l=5, r=5))
    return fig


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
    return fig


def view_weights_figure(view_names, mean_weights, *, title="Mean weight per view"):
    """Bar chart of each view's mean weight (how much RMSC trusts the view)."""
    w = np.asarray(mean_weights, dtype=float)
    fig = go.Figure(go.Bar(x=list(view_names), y=w, marker_color="#4c78a8",
                           text=[f"{x:.3g}" for x in w], textposition="outside",
                           hovertemplate="%{x}: %{y:.4g}<extra></extra>"))
    fig.update_layout(title=title, yaxis_title="mean of P", height=320,
                      margin=dict(t=40, b=40, l=60, r=10))
    return fig


def _bin_columns(A, n_bins):
    """Average groups of adjacent columns so that at most ``n_bins`` remain."""
    n = A.shape[1]
    if n <= n_bins:
        return A, np.arange(n)
    edges = np.linspace(0, n, n_bins + 1).astype(int)
    sums = np.add.reduceat(A, edges[:-1], axis=1)
    counts = np.diff(edges)
    return sums / counts[None, :], edges[:-1]


#: Gap between the rows of the weights heatmap (px): the outlier marks sit in it.
WEIGHT_ROW_GAP = 10


def weights_heatmap_figure(weights, view_names, *, order=None, boundaries=None, groups=None,
                           outlier_mask=None, max_columns=2000, relative=False, placed=None):
    """Heatmap of P (views x samples), samples in ``order``, injected pairs marked beside their row.

    Parameters
    ----------
    weights : ndarray of shape (n_views, n_samples)
    view_names : list of str
    order : ndarray of int or None
        Column order (e.g. samples grouped by class); None = as stored.
    boundaries, groups : from :func:`rmsc.dashboard.order_by`
        Group starts (drawn as lines) and group labels (tick text).
    outlier_mask : ndarray of bool, shape (n_views, n_samples), or None
        Each injected (view, sample) pair gets a small red triangle in the gap just above
        its cell, pointing at it, so the cell itself stays visible (does it turn dark?).
    max_columns : int
        Wider matrices are averaged in adjacent bins (the marks stay exact).
    relative : bool
        Colour P divided by its view's median (views' weights differ in scale; this
        shows which samples each view trusts less than usual).
    placed : array of int or None
        Samples RMSC placed by their neighbours (``RMSC.placed_``): each gets a small
        black triangle below the last row, pointing up.

    Rows are at y = 0..n_views-1 (top to bottom, named by ``view_names``), separated by
    :data:`WEIGHT_ROW_GAP` pixels; a mark for view v is at y = v - 0.5.
    """
    P = np.asarray(weights, dtype=float)
    m, n = P.shape
    if relative:
        med = np.median(P, axis=1, keepdims=True)
        P = P / np.where(med > 0, med, 1.0)
    order = np.arange(n) if order is None else np.asarray(order)
    Po = P[:, order]
    Z, starts = _bin_columns(Po, max_columns)
    scale = Z.shape[1] / n
    names = [str(v) for v in view_names]
    fig = go.Figure(go.Heatmap(
        z=Z.astype(np.float32), y=list(range(m)), ygap=WEIGHT_ROW_GAP, colorscale="Viridis",
        colorbar=dict(title="P / median" if relative else "P"),
        zmin=0 if relative else None, zmax=2 if relative else None,
        customdata=np.broadcast_to(order[starts], Z.shape),
        text=np.broadcast_to(np.asarray(names, dtype=object)[:, None], Z.shape),
        hovertemplate="view %{text}<br>sample %{customdata}<br>" + (
            "P / median" if relative else "P") + " = %{z:.4g}<extra></extra>"))
    marked = False
    if outlier_mask is not None:
        mask = np.asarray(outlier_mask, bool)[:, order]
        vv, jj = np.nonzero(mask)
        if vv.size:
            marked = True
            fig.add_trace(go.Scattergl(
                x=(jj + 0.5) * scale - 0.5, y=vv - 0.5, mode="markers",
                marker=dict(symbol="triangle-down", size=7, color="red"),
                name="injected outlier (mark above its row)", customdata=order[jj],
                text=[names[v] for v in vv],
                hovertemplate="sample %{customdata} (injected in %{text})<extra></extra>"))
    has_placed = placed is not None and len(placed) > 0
    if has_placed:
        where = np.empty(n, dtype=np.int64)
        where[order] = np.arange(n)
        jj = where[np.asarray(placed, dtype=np.int64)]
        marked = True
        fig.add_trace(go.Scattergl(
            x=(jj + 0.5) * scale - 0.5, y=np.full(jj.size, m - 0.5), mode="markers",
            marker=dict(symbol="triangle-up", size=7, color="black"),
            name="placed by its neighbours (mark below the rows)", customdata=order[jj],
            hovertemplate="sample %{customdata}: placed by its neighbours<extra></extra>"))
    line = None if boundaries is None else _boundary_line(len(boundaries) + 1,
                                                          "rgba(255,255,255,0.45)")
    if line is not None:
        for b in np.asarray(boundaries):
            fig.add_vline(x=b * scale - 0.5, line=dict(line, color="white"))
    if groups is not None and boundaries is not None:
        starts_g = np.concatenate([[0], np.asarray(boundaries), [n]])
        vals, text = _group_ticks((starts_g[:-1] + starts_g[1:]) / 2 * scale - 0.5, groups)
        fig.update_xaxes(tickvals=vals, ticktext=text, title="samples grouped by class")
    else:
        fig.update_xaxes(title="sample")
    # the top row's marks need room above it: the axis starts a little before -0.5
    fig.update_yaxes(tickvals=list(range(m)), ticktext=names,
                     range=[m - 0.25 if has_placed else m - 0.5, -0.75],
                     zeroline=False, showgrid=False)
    fig.update_layout(title="Weights P (one per sample per view)" + (
        ", each view divided by its median" if relative else ""), height=140 + 44 * m,
                      margin=dict(t=60, b=40, l=60, r=10), showlegend=marked,
                      plot_bgcolor="white",
                      legend=dict(orientation="h", x=1, xanchor="right", y=1.02,
                                  yanchor="bottom"))
    return fig


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
    return fig


def roc_figure(curves, view_names, aucs=None):
    """Outlier-detection ROC per view (from ``rmsc.outliers.roc_curves``).

    Parameters
    ----------
    curves : list of (fpr, tpr) or None per view
    view_names : list of str
    aucs : list of float or None
    """
    fig = go.Figure()
    for v, (name, cur) in enumerate(zip(view_names, curves)):
        if cur is None:
            continue
        fpr, tpr = cur
        label = name if aucs is None or aucs[v] is None or np.isnan(aucs[v]) else (
            f"{name} (AUC {aucs[v]:.3f})")
        fig.add_trace(go.Scatter(x=np.asarray(fpr), y=np.asarray(tpr), mode="lines",
                                 name=label, line=dict(color=_class_color(v))))
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                             line=dict(dash="dot", color="grey")))
    fig.update_layout(title="Finding the injected outliers from low weights (ROC)",
                      xaxis_title="false positive rate", yaxis_title="true positive rate",
                      xaxis_range=[0, 1], yaxis_range=[0, 1.02], height=380,
                      margin=dict(t=40, b=40, l=60, r=10))
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

    Every score keeps its colour in every panel; a dotted diagonal is chance.
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
                line=dict(color=_class_color(i)), hovertemplate=f"{view_names[v]}: {label}"
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
    return fig


def pool_matrix(S, order=None, max_side=MAX_MATRIX_SIDE):
    """Reorder a square matrix and average it in square blocks so its side is <= max_side.

    Parameters
    ----------
    S : ndarray or sparse matrix of shape (n, n)
    order : ndarray of int or None
        Row and column order.
    max_side : int

    Returns
    -------
    pooled : ndarray of shape (s, s), s = ceil(n / f)
        Mean of |S| over every f x f block (edge blocks over their real size).
    f : int
        Block side (1 when no pooling was needed).
    """
    n = S.shape[0]
    if S.shape != (n, n):
        raise ValueError(f"pool_matrix needs a square matrix; got shape {S.shape}.")
    f = max(1, -(-n // int(max_side)))
    s = -(-n // f)
    pos = np.empty(n, dtype=np.int64)
    pos[np.arange(n) if order is None else np.asarray(order)] = np.arange(n)
    if sp.issparse(S):
        C = sp.coo_matrix(S)
        r, c, val = pos[C.row] // f, pos[C.col] // f, np.abs(C.data)
        sums = np.bincount(r * s + c, weights=val, minlength=s * s).reshape(s, s)
    else:
        A = np.abs(np.asarray(S, dtype=float))
        inv = np.argsort(pos)
        A = A[np.ix_(inv, inv)]
        pad = s * f - n
        A = np.pad(A, ((0, pad), (0, pad)))
        sums = A.reshape(s, f, s, f).sum(axis=(1, 3))
    sizes = np.full(s, f, dtype=float)
    sizes[-1] = n - f * (s - 1)
    return sums / np.outer(sizes, sizes), f


def _colormap(values, scale="Blues"):
    lut = np.array([[int(x) for x in c[4:-1].split(",")]
                    for c in pcolors.sample_colorscale(scale, np.linspace(0, 1, 256))],
                   dtype=np.uint8)
    idx = np.clip(np.round(values * 255), 0, 255).astype(np.int64)
    return lut[idx]


def _affinity_rgb(pooled):
    """Pooled |S| as RGB: scaled by its 99th percentile with a square root (weak links show)."""
    nz = pooled[pooled > 0]
    top = float(np.quantile(nz, 0.99)) if nz.size else 1.0
    return _colormap(np.sqrt(np.clip(pooled / (top or 1.0), 0, 1)))


def _group_lines(fig, boundaries, groups, n, f, s, max_ticks=MAX_GROUP_TICKS, **where):
    """Class/cluster boundaries as thin lines and group names as ticks (pooled coordinates).

    Many groups: thinner lines, then none (:data:`MAX_BOUNDARIES`), and every k-th name.
    """
    line = None if boundaries is None else _boundary_line(len(boundaries) + 1,
                                                          "rgba(228,87,86,0.45)")
    if line is not None:
        for b in np.asarray(boundaries):
            x = b / f - 0.5
            fig.add_shape(type="line", x0=x, x1=x, y0=-0.5, y1=s - 0.5, line=line, **where)
            fig.add_shape(type="line", y0=x, y1=x, x0=-0.5, x1=s - 0.5, line=line, **where)
    if groups is not None and boundaries is not None:
        st = np.concatenate([[0], np.asarray(boundaries), [n]])
        vals, text = _group_ticks(((st[:-1] + st[1:]) / 2) / f - 0.5, groups, max_ticks)
        fig.update_xaxes(tickvals=vals, ticktext=text, **where)
        fig.update_yaxes(tickvals=vals, ticktext=text, **where)
    else:
        fig.update_xaxes(showticklabels=False, **where)
        fig.update_yaxes(showticklabels=False, **where)


def affinity_figure(S, *, order=None, boundaries=None, groups=None, title="Affinity",
                    max_side=MAX_MATRIX_SIDE, axis_title="samples", pool=None, n_samples=None):
    """A square affinity as an image (pooled when large), with group boundaries.

    The matrix is reordered by ``order``, averaged in blocks so its side is at
    most ``max_side``, scaled by its 99th percentile with a square root (weak
    links stay visible) and sent as one PNG: never more than max_side² cells.

    Parameters
    ----------
    S : ndarray or sparse matrix of shape (n, n)
        Or, with ``pool``, a matrix already ordered and pooled by :func:`pool_matrix`.
    order : ndarray of int or None
    boundaries, groups : from :func:`rmsc.dashboard.order_by`
    pool, n_samples : int or None
        For an already pooled ``S``: its block side and the original number of samples.
    """
    if pool is None:
        n = S.shape[0]
        pooled, f = pool_matrix(S, order, max_side)
    else:
        pooled, f = np.asarray(S, dtype=float), int(pool)
        n = int(n_samples) if n_samples is not None else pooled.shape[0] * f
    fig = px.imshow(_affinity_rgb(pooled), binary_string=True)
    fig.data[0].hovertemplate = "block (%{y}, %{x})<extra></extra>"
    s = pooled.shape[0]
    _group_lines(fig, boundaries, groups, n, f, s)
    sub = f" — pooled {f}×{f}" if f > 1 else ""
    fig.update_layout(title=f"{title}{sub}", height=460, margin=dict(t=40, b=30, l=40, r=10),
                      xaxis_title=axis_title)
    fig.layout.meta = {"pool": f, "side": s}
    return fig


#: Side of every panel of :func:`view_affinities_figure` (six 250² PNGs: about 1 MB).
PANEL_SIDE = 250


def view_affinities_figure(pooled, view_names, *, pool=1, n_samples=None, boundaries=None,
                           groups=None, columns=3, max_side=PANEL_SIDE,
                           title="Every view's affinity (|Zᵛ|+|Zᵛᵀ|)/2 at the fitted consensus"):
    """Small multiples: one image per view of its (already ordered and pooled) affinity.

    Parameters
    ----------
    pooled : list of ndarray of shape (s, s)
        One matrix per view, from :func:`pool_matrix` with the same order and block side.
    view_names : list of str
    pool : int
        The block side the matrices were pooled with.
    n_samples : int or None
        Samples before pooling (for the group ticks).
    boundaries, groups : from :func:`rmsc.dashboard.order_by`
    max_side : int
        Matrices larger than this are averaged in blocks once more (small panels).

    Every panel is one PNG of at most max_side² pixels, each scaled on its own
    (views differ in magnitude; the block structure is what is compared).
    """
    if len(pooled) != len(view_names):
        raise ValueError(f"{len(pooled)} matrices for {len(view_names)} view names.")
    if not pooled:
        raise ValueError("view_affinities_figure needs at least one view.")
    if pooled[0].shape[0] > max_side:
        again = [pool_matrix(np.asarray(P, dtype=float), None, max_side) for P in pooled]
        pooled, pool = [P for P, _ in again], int(pool) * again[0][1]
    s = pooled[0].shape[0]
    n = int(n_samples) if n_samples is not None else s * int(pool)
    cols = max(1, min(int(columns), len(pooled)))
    rows = -(-len(pooled) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[str(v) for v in view_names],
                        horizontal_spacing=0.03, vertical_spacing=0.14)
    for i, P in enumerate(pooled):
        r, c = i // cols + 1, i % cols + 1
        trace = px.imshow(_affinity_rgb(np.asarray(P, dtype=float)), binary_string=True).data[0]
        trace.hovertemplate = f"{view_names[i]}: block (%{{y}}, %{{x}})<extra></extra>"
        fig.add_trace(trace, row=r, col=c)
        _group_lines(fig, boundaries, groups, n, int(pool), s, MAX_PANEL_TICKS, row=r, col=c)
        if c > 1:  # the same order in every panel: names on the first column only
            fig.update_yaxes(showticklabels=False, row=r, col=c)
        fig.update_yaxes(autorange="reversed", scaleanchor=f"x{i + 1 if i else ''}",
                         row=r, col=c)
    sub = f" — pooled {pool}×{pool}" if pool > 1 else ""
    fig.update_layout(title=f"{title}{sub}", height=60 + 320 * rows,
                      margin=dict(t=60, b=20, l=30, r=10), showlegend=False)
    fig.layout.meta = {"pool": int(pool), "side": s, "views": len(pooled)}
    return fig


def embedding_figure(coords, clusters, *, wrong=None, sample_ids=None,
                     title="Spectral embedding (2-D PCA)"):
    """The spectral embedding in 2-D coloured by cluster, misclustered samples crossed.

    Parameters
    ----------
    coords : ndarray of shape (n_shown, 2)
    clusters : ndarray of shape (n_shown,)
    wrong : ndarray of bool of shape (n_shown,) or None
        Samples whose (aligned) cluster differs from their class.
    sample_ids : ndarray of int or None
        Sample numbers for the hover text (default 0..n_shown-1).
    """
    xy = np.asarray(coords, dtype=np.float32)
    cl = np.asarray(clusters)
    ids = np.arange(cl.size) if sample_ids is None else np.asarray(sample_ids)
    fig = go.Figure()
    for name, members in legend_groups(np.unique(cl), "cluster"):
        fig.add_trace(_group_scatter(xy[:, 0], xy[:, 1], cl, members, ids, "cluster", name=name,
                                     marker=dict(size=5, opacity=0.75)))
    if wrong is not None:
        w = np.asarray(wrong, bool)
        fig.add_trace(go.Scattergl(x=xy[w, 0], y=xy[w, 1], mode="markers",
                                   marker=dict(symbol="x", size=7, color=OUTLIER_COLOR),
                                   name=f"misclustered ({int(w.sum())})", customdata=ids[w],
                                   hovertemplate="sample %{customdata} (misclustered)"
                                   "<extra></extra>"))
    fig.update_layout(title=title, height=460, margin=dict(t=40, b=30, l=40, r=10),
                      legend=dict(itemsizing="constant"))
    return fig


def _log_axis(lo, hi):
    """Axis settings for a log axis over [lo, hi] with 1-3-10 ticks labelled plainly."""
    vals = _log_ticks(lo, hi)
    return dict(type="log", tickvals=vals, ticktext=[f"{v:g}" for v in vals])


def _log_ticks(lo, hi):
    """1-3-10 tick values covering [lo, hi] (readable labels on a log axis)."""
    lo, hi = max(float(lo), 1e-300), max(float(hi), float(lo))
    out = []
    for e in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1):
        for m in (1, 3):
            v = m * 10.0 ** e
            if lo / 1.0001 <= v <= hi * 1.0001:
                out.append(v)
    return out


def latent_loss_figure(gamma, *, loss_max=4.0):
    """psi(p), the latent loss phi(l) and the minimizer sigma(l) (the paper's Figure 2).

    Parameters
    ----------
    gamma : float >= 0
    loss_max : float
        Right end of the loss axis.

    Returns
    -------
    plotly Figure with three panels: psi over the weight p (log axis, its
    minimum at p = 1/sqrt(gamma) when that is in reach), phi next to the
    unweighted loss l, and sigma.
    """
    from .solver import latent_loss, minimizer, psi

    gamma = float(gamma)
    lo = 1e-4 if gamma == 0 else 0.0
    ell = np.linspace(lo, float(loss_max), 400)
    p_hi = min(1e3, max(3.0, 3.0 / np.sqrt(gamma))) if gamma > 0 else 1e3
    p = np.geomspace(0.05, p_hi, 400)
    fig = make_subplots(rows=1, cols=3, subplot_titles=(
        "regulariser ψ(p) = γp + 1/p − 2", "latent loss φ(ℓ) = 2(√(γ+ℓ) − 1)",
        "minimizer σ(ℓ) = 1/√(γ+ℓ)"), horizontal_spacing=0.08)
    fig.add_trace(go.Scatter(x=p, y=psi(p, gamma), name="ψ(p)", line=dict(color="#4c78a8")),
                  row=1, col=1)
    fig.add_trace(go.Scatter(x=ell, y=latent_loss(ell, gamma), name="φ(ℓ)",
                             line=dict(color="#f58518", width=3)), row=1, col=2)
    fig.add_trace(go.Scatter(x=ell, y=ell, name="ℓ itself (unweighted)",
                             line=dict(color="grey", dash="dot")), row=1, col=2)
    sig = minimizer(ell, gamma)
    fig.add_trace(go.Scatter(x=ell, y=sig, name="σ(ℓ)", line=dict(color="#54a24b", width=3)),
                  row=1, col=3)
    fig.update_xaxes(title_text="weight p", **_log_axis(p[0], p[-1]), row=1, col=1)
    fig.update_xaxes(title_text="loss ℓ", row=1, col=2)
    fig.update_xaxes(title_text="loss ℓ", row=1, col=3)
    if sig.max() > 10 * sig.min():
        fig.update_yaxes(**_log_axis(sig.min(), sig.max()), row=1, col=3)
    fig.update_layout(height=380, margin=dict(t=60, b=40, l=50, r=10),
                      title=f"γ = {gamma:g}", legend=dict(orientation="h", y=-0.22))
    return fig


def fitted_weights_figure(losses, weights, gamma, view_names, *, outlier_mask=None,
                          max_points=3000):
    """Every (sample, view) of a fit as (loss, weight) on sigma, with each view's losses below.

    Parameters
    ----------
    losses, weights : ndarray of shape (n_views, n_samples)
        The P-step's losses and the weights P = sigma(loss).
    gamma : float
    view_names : list of str
    outlier_mask : ndarray of bool, shape (n_views, n_samples), or None
        Injected pairs are drawn as crosses.
    max_points : int
        Points per view drawn in the top panel (evenly spaced subsample beyond that).

    Returns
    -------
    Figure with two rows sharing the log loss axis: sigma with the points on
    it, and one box plot of the losses per view (where each view's samples sit).
    """
    from .solver import minimizer

    L = np.asarray(losses, dtype=float)
    P = np.asarray(weights, dtype=float)
    pos = L[L > 0]
    lo = float(pos.min()) if pos.size else 1e-6
    hi = float(L.max()) if L.size else 1.0
    lo, hi = lo / 2, max(hi * 2, lo * 10)
    mask = None if outlier_mask is None else np.asarray(outlier_mask, bool)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.6, 0.4],
                        vertical_spacing=0.04)
    grid = np.geomspace(lo, hi, 300)
    fig.add_trace(go.Scatter(x=grid, y=minimizer(grid, gamma), name=f"σ(ℓ), γ = {gamma:g}",
                             line=dict(color="#888", width=2)), row=1, col=1)
    n = L.shape[1]
    idx = np.arange(n) if n <= max_points else np.linspace(0, n - 1, max_points).astype(int)
    for v, name in enumerate(view_names):
        colour = _class_color(v)
        clean = idx if mask is None else idx[~mask[v][idx]]
        fig.add_trace(go.Scattergl(x=np.maximum(L[v, clean], lo), y=P[v, clean], mode="markers",
                                   marker=dict(size=5, color=colour, opacity=0.6),
                                   name=str(name), legendgroup=str(name)), row=1, col=1)
        bad = np.empty(0, int) if mask is None else np.flatnonzero(mask[v])
        if bad.size:
            fig.add_trace(go.Scattergl(
                x=np.maximum(L[v, bad], lo), y=P[v, bad], mode="markers",
                marker=dict(size=9, symbol="x", color=colour, line=dict(width=1, color="black")),
                name=f"{name}: injected", legendgroup=str(name)), row=1, col=1)
        fig.add_trace(go.Box(x=np.maximum(L[v], lo), name=str(name), orientation="h",
                             marker_color=colour, boxpoints=False, showlegend=False,
                             legendgroup=str(name)), row=2, col=1)
    xaxis = _log_axis(lo, hi)
    fig.update_xaxes(**xaxis, row=1, col=1)
    fig.update_xaxes(**xaxis, title_text="loss ℓ of the sample in the view", row=2, col=1)
    fig.update_yaxes(title_text="weight P", **_log_axis(
        float(P.min()) if P.size else 0.1, float(P.max()) if P.size else 10), row=1, col=1)
    fig.update_yaxes(autorange="reversed", row=2, col=1)
    fig.update_layout(title="Your fit: every (sample, view) on σ, and where each view's losses lie",
                      height=560, margin=dict(t=40, b=40, l=60, r=10))
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
            name=method, line=dict(color=_class_color(i)),
            hovertemplate="%{x}: %{y:.2f}%<extra>" + method + "</extra>"))
    fig.update_layout(title=f"{metric.upper()} (%) on the clean data and under every injection",
                      yaxis_title=f"{metric.upper()} %", height=400,
                      margin=dict(t=40, b=80, l=60, r=10))
    return fig


def suggestion_figure(table, best, *, n_clusters=None, title=None):
    """The label-free criterion against λ (one line per ``beta_rel``), the suggestion marked.

    Parameters
    ----------
    table : list of dict
        One row per setting tried, as :attr:`rmsc.selection.Suggestion.table`: lam,
        beta_rel, and either eigengap, isolated, pieces or error (no clustering).
    best : int
        Index of the suggested row (:attr:`rmsc.selection.Suggestion.best`).
    n_clusters : int or None
        c: settings whose graph has more pieces than c are drawn as open markers.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Top: the eigengap at c per λ (log axis), one line per ``beta_rel``; each point
        labelled with its isolated samples when it has any; settings that gave no
        clustering as crosses on the axis; the suggestion as a star. Bottom: the isolated
        samples per λ, the same lines.
    """
    if not table:
        raise ValueError("suggestion_figure needs at least one setting.")
    if not 0 <= best < len(table):
        raise ValueError(f"best={best} is not a row of the table ({len(table)} rows).")
    rels = sorted({float(r["beta_rel"]) for r in table})
    lams = sorted({float(r["lam"]) for r in table})
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.68, 0.32],
                        vertical_spacing=0.08,
                        subplot_titles=("Eigengap at c (larger: clearer c groups)",
                                        "Isolated samples (fewer is better; ranked first)"))
    for i, rel in enumerate(rels):
        rows = sorted((r for r in table if float(r["beta_rel"]) == rel), key=lambda r: r["lam"])
        ok = ["error" not in r for r in rows]
        x = [float(r["lam"]) for r in rows]
        gap = [float(r["eigengap"]) if good else None for r, good in zip(rows, ok)]
        iso = [int(r["isolated"]) if good else None for r, good in zip(rows, ok)]
        pieces = [int(r["pieces"]) if good else None for r, good in zip(rows, ok)]
        poor = [good and (n_iso > 0 or (n_clusters is not None and n_p > n_clusters))
                for good, n_iso, n_p in zip(ok, iso, pieces)]
        colour = _class_color(i)
        name = f"β_rel = {rel:g}"
        fig.add_trace(go.Scatter(
            x=x, y=gap, mode="lines+markers+text", name=name, legendgroup=name,
            line=dict(color=colour), connectgaps=False,
            marker=dict(size=9, symbol=["circle-open" if p else "circle" for p in poor]),
            text=[f"{n} isolated" if good and n else "" for good, n in zip(ok, iso)],
            textposition="top center",
            customdata=[[n if n is not None else -1, p if p is not None else -1]
                        for n, p in zip(iso, pieces)],
            hovertemplate=(f"λ = %{{x:g}}, {name}<br>eigengap %{{y:.4f}}<br>"
                           "%{customdata[0]} isolated, %{customdata[1]} piece(s)<extra></extra>"),
        ), row=1, col=1)
        fig.add_trace(go.Scatter(
            x=x, y=iso, mode="lines+markers", name=name, legendgroup=name, showlegend=False,
            line=dict(color=colour), connectgaps=False,
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
        x=[float(chosen["lam"])], y=[float(chosen["eigengap"])], mode="markers",
        name=f"suggested: λ = {float(chosen['lam']):g}, β_rel = {float(chosen['beta_rel']):g}",
        marker=dict(symbol="star", size=18, color="gold", line=dict(color="black", width=1)),
        hovertemplate="suggested: λ = %{x:g}, eigengap %{y:.4f}<extra></extra>",
    ), row=1, col=1)
    ticks = dict(type="log", tickvals=lams, ticktext=[f"{v:g}" for v in lams])
    fig.update_xaxes(**ticks, row=1, col=1)
    fig.update_xaxes(**ticks, title_text="λ", row=2, col=1)
    fig.update_yaxes(title_text="eigengap", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="samples", rangemode="tozero", row=2, col=1)
    fig.update_layout(title=title or "Label-free criterion against λ and β_rel", height=520,
                      margin=dict(t=60, b=40, l=60, r=10), legend_title_text="",
                      legend=dict(orientation="h", yanchor="top", y=-0.16, x=0))
    return fig


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
