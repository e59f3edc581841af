"""The Affinity page's figures: affinities as images (pooled when large), the spectral embedding."""

from __future__ import annotations

import numpy as np
import plotly.colors as pcolors
import plotly.express as px
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..pooling import MAX_MATRIX_SIDE, pool_matrix
from ._style import (
    MAX_GROUP_TICKS,
    MAX_PANEL_TICKS,
    OUTLIER_COLOR,
    boundary_line,
    group_scatter,
    group_ticks,
    legend_groups,
    plain_numbers,
)


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
    line = None if boundaries is None else boundary_line(len(boundaries) + 1,
                                                          "rgba(228,87,86,0.45)")
    if line is not None:
        for b in np.asarray(boundaries):
            x = b / f - 0.5
            fig.add_shape(type="line", x0=x, x1=x, y0=-0.5, y1=s - 0.5, line=line, **where)
            fig.add_shape(type="line", y0=x, y1=x, x0=-0.5, x1=s - 0.5, line=line, **where)
    if groups is not None and boundaries is not None:
        st = np.concatenate([[0], np.asarray(boundaries), [n]])
        vals, text = group_ticks(((st[:-1] + st[1:]) / 2) / f - 0.5, groups, max_ticks)
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
        fig.add_trace(group_scatter(xy[:, 0], xy[:, 1], cl, members, ids, "cluster", name=name,
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
    return plain_numbers(fig)
