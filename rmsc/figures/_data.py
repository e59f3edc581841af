"""The Data page's figures: samples per class, each view in 2-D, sample pictures."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ._style import (MAX_BAR_LABELS, OUTLIER_COLOR, TICK_FONT, class_color, group_scatter,
                     legend_groups, plain_numbers)


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
        class_color(i) for i in range(len(labels))], text=counts.to_numpy() if shown else None,
        textposition="outside" if shown else None, cliponaxis=False,
        hovertemplate="class %{x}: %{y} samples<extra></extra>"))
    # Room above the tallest bar for its count, inside the plot area (the counts are not
    # clipped by the axes either way, but above the range they would meet the title).
    top = float(counts.max()) if len(counts) else 1.0
    fig.update_layout(title="Samples per class", xaxis_title="class", yaxis_title="samples",
                      xaxis_type="category", height=300, margin=dict(t=40, b=40, l=50, r=10),
                      yaxis_range=[0, top * (1.15 if shown else 1.05)])
    return fig


#: Size of a sample's marker in :func:`views_scatter_figure` (px): its shape (the class's,
#: :data:`~rmsc.figures._style.CLASS_SYMBOLS`) must be told at a glance.
SCATTER_MARKER_SIZE = 8

#: The legend above the panels: a row's height, the width it may take at 1280 px (the
#: page's width) and an entry's width besides its name's letters (px).
LEGEND_ROW_PX = 26
LEGEND_ROW_WIDTH_PX = 760
LEGEND_ENTRY_PX = 40


def views_scatter_figure(coords, view_names, labels=None, outlier_mask=None, *, indices=None,
                         explained=None, columns=3):
    """A 2-D projection of every view, coloured and shaped by class, injected outliers ringed.

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
            fig.add_trace(group_scatter(
                xy[:, 0], xy[:, 1], y, members, idx, "class", name=name, legendgroup=name,
                showlegend=(v == 0), symbols=True,
                marker=dict(size=SCATTER_MARKER_SIZE, opacity=0.9)),
                row=r, col=c)
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
    # tick values on both axes, a few, legible, as plain numbers: each panel's axes are
    # stretched to fill it, and only its numbers say by how much
    fig.update_xaxes(showticklabels=True, nticks=5, tickfont=TICK_FONT)
    fig.update_yaxes(showticklabels=True, nticks=5, tickfont=TICK_FONT)
    plain_numbers(fig)
    # one legend for all panels, in a row above them (beside one panel, the panels of the
    # other rows were read against it from afar: the seventh cold reading of the lesson)
    rows_px = 300 * rows
    names = [t.name for t in fig.data if t.showlegend]
    wide = sum(LEGEND_ENTRY_PX + 6.5 * len(name) for name in names)  # about, at 12 px
    top = 40 + LEGEND_ROW_PX * max(1, int(np.ceil(wide / LEGEND_ROW_WIDTH_PX)))
    fig.update_layout(height=rows_px + top + 20, margin=dict(t=top, b=20, l=40, r=10),
                      legend=dict(itemsizing="constant", orientation="h", x=0.5,
                                  xanchor="center", yanchor="bottom", y=1 + (24 / rows_px),
                                  font=dict(size=12)))
    return fig


def sample_images_figure(images, titles, *, columns=10):
    """Small grey-scale pictures (e.g. Digit's PIX view) in a grid, drawn as one picture.

    The tiles are put side by side into one image (white between them) with each title
    above its tile: one trace on one pair of axes however many pictures, each picture in its
    own proportions (docs/lesson.md, "The server's part, the browser's part, and the same
    charts with no server", says what it costs a browser).

    Parameters
    ----------
    images : list of 2-D arrays with values in [0, 1]
        Pictures of different shapes are each placed top-left in a tile of the largest.
    titles : list of str
    columns : int
        Tiles per row.
    """
    k = len(images)
    cols = max(1, min(columns, k))
    rows = max(1, -(-k // cols))
    h = max((np.shape(img)[0] for img in images), default=1)
    w = max((np.shape(img)[1] for img in images), default=1)
    gap_x, gap_y = max(2, w // 2), max(2, h // 3)  # room for a title between two tiles
    height, width = rows * (h + gap_y) - gap_y, cols * (w + gap_x) - gap_x
    ink = np.zeros((height, width))  # 0: white paper
    annotations = []
    for i, (img, title) in enumerate(zip(images, titles)):
        r, c = divmod(i, cols)
        top, left = r * (h + gap_y), c * (w + gap_x)
        grey = np.clip(np.asarray(img, dtype=float), 0, 1)
        ink[top:top + grey.shape[0], left:left + grey.shape[1]] = grey
        annotations.append(dict(x=left + (w - 1) / 2, y=top - 0.5, xref="x", yref="y",
                                text=str(title), showarrow=False, yanchor="bottom",
                                font_size=11))
    rgb = np.repeat((255 * (1 - ink))[..., None], 3, axis=2).astype(np.uint8)
    fig = go.Figure(go.Image(z=rgb, hoverinfo="skip"))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    fig.update_layout(height=110 * rows + 30, margin=dict(t=25, b=5, l=5, r=5),
                      annotations=annotations)
    return fig
