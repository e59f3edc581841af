"""Shared look of every figure: class and method colors, legends, group ticks, log axes."""

from __future__ import annotations

import numpy as np
import plotly.express as px
import plotly.graph_objects as go

from ..methods import find_spec


#: Colors of classes / clusters: the first ten from D3's qualitative palette, whose colours
#: stay apart at a glance (plotly's own default put classes 0/3 and 4/9 in near shades),
#: then Alphabet's (cycled beyond 36).
CLASS_COLORS = px.colors.qualitative.D3 + px.colors.qualitative.Alphabet
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


#: The tick format of an axis of unitless numbers (d3's "~g": 0.0005, 1e-07, 12000): plotly's
#: default writes SI prefixes, and "500µ" on the lesson's MOR panel read as a unit (the
#: eighth cold reading).
PLAIN_NUMBERS = "~g"

#: Tick labels of small panels: 11 px in a dark grey (9 px in the theme's light grey were
#: hard to read at 1280 px, the eighth cold reading).
TICK_FONT = dict(size=11, color="#31333f")


def plain_numbers(fig, colorbars=False):
    """``fig`` with every x and y axis (and, with ``colorbars``, every heatmap's colour
    bar) labelled in :data:`PLAIN_NUMBERS`, never SI prefixes; axes whose ticks are given as
    text (a log axis's, a category's names) read that text as before. Returns ``fig``."""
    fig.update_xaxes(tickformat=PLAIN_NUMBERS)
    fig.update_yaxes(tickformat=PLAIN_NUMBERS)
    if colorbars:
        fig.update_traces(colorbar_tickformat=PLAIN_NUMBERS, selector=dict(type="heatmap"))
    return fig


def class_color(i):
    """The color of the i-th class or cluster (cycled)."""
    return CLASS_COLORS[int(i) % len(CLASS_COLORS)]


#: Marker shapes of classes in a scatter, beside their colours (a reader who cannot tell
#: red from green, or two shades in a crowd of small dots, can tell the shapes): ten that
#: WebGL scatter draws and that stay apart at 6-8 px, cycled beyond ten. A pentagon and a
#: hexagon read as circles at that size (the seventh cold reading of the lesson took class 0's
#: circle and class 9's hexagon for one class): the hourglass and the open square do not.
CLASS_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down",
                 "star", "hourglass", "square-open")

#: Width of the outline an open marker is drawn with (px): it is all there is of it.
OPEN_MARKER_LINE = 1.5


def class_symbol(i):
    """The marker shape of the i-th class or cluster (cycled)."""
    return CLASS_SYMBOLS[int(i) % len(CLASS_SYMBOLS)]


def legend_groups(values, noun="class"):
    """How a legend lists ``values`` (classes or clusters, in order): one entry each, or ranges.

    Returns
    -------
    list of (name, list of (index, value))
        ``index`` is the value's position in ``values`` (its color). At most
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


def group_scatter(x, y, groups, members, ids, noun, symbols=False, **trace):
    """One scatter trace for a legend entry: its members' points, each in its value's color
    (and with ``symbols``, its marker shape, :func:`class_symbol`)."""
    sel = np.isin(groups, [v for _, v in members])
    colors = {v: class_color(k) for k, v in members}
    shapes = {v: class_symbol(k) for k, v in members}
    if len(members) == 1:
        color = colors[members[0][1]]
        shape = shapes[members[0][1]]
        hover = f"<extra>{noun} {members[0][1]}</extra>"
        text = None
    else:
        color = [colors[g] for g in groups[sel]]
        shape = [shapes[g] for g in groups[sel]]
        hover = "<extra>%{text}</extra>"
        text = [f"{noun} {g}" for g in groups[sel]]
    marker = dict(trace.pop("marker", {}), color=color)
    if symbols:
        marker["symbol"] = shape
        # an open shape is only its outline, in its class's colour
        opened = [str(v).endswith("-open") for v in np.atleast_1d(shape)]
        if any(opened):
            width = [OPEN_MARKER_LINE if o else 0 for o in opened]
            marker["line"] = dict(color=color, width=width[0] if isinstance(shape, str)
                                  else width)
    return go.Scattergl(x=x[sel], y=y[sel], mode="markers", marker=marker, customdata=ids[sel],
                        text=text, hovertemplate="sample %{customdata}" + hover, **trace)


def boundary_line(n_groups, color):
    """The line between groups of a matrix, or None when there are too many to draw."""
    if n_groups > MAX_BOUNDARIES:
        return None
    if n_groups > THIN_BOUNDARIES:
        return dict(color=color.replace("0.45", "0.25"), width=0.5)
    return dict(color=color, width=1)


#: At most this many group names on an axis of a small panel (:func:`view_affinities_figure`).
MAX_PANEL_TICKS = 8


def group_ticks(centers, groups, max_ticks=MAX_GROUP_TICKS):
    """Tick positions and names for ``groups``: every k-th beyond ``max_ticks`` (k = 1, 2, 5,
    10, 20, 50, ...: the names of the usual 0..c-1 classes read 0, 5, 10, ...)."""
    need = len(groups) / max_ticks
    step = next(m * 10 ** e for e in range(12) for m in (1, 2, 5) if m * 10 ** e >= need)
    return list(np.asarray(centers)[::step]), [str(g) for g in list(groups)[::step]]


def log_axis(lo, hi):
    """Axis settings for a log axis over [lo, hi] with 1-3-10 ticks labelled plainly."""
    vals = log_ticks(lo, hi)
    return dict(type="log", tickvals=vals, ticktext=[f"{v:g}" for v in vals])


def log_ticks(lo, hi):
    """1-3-10 tick values covering [lo, hi] (readable labels on a log axis)."""
    lo, hi = max(float(lo), 1e-300), max(float(hi), float(lo))
    out = []
    for e in range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1):
        for m in (1, 3):
            v = m * 10.0 ** e
            if lo / 1.0001 <= v <= hi * 1.0001:
                out.append(v)
    return out


#: Colors for curves that are not a registered method's (a dataset's convergence, say).
FALLBACK_COLORS = ("#636EFA", "#EF553B", "#00CC96", "#AB63FA", "#FFA15A", "#19D3F3")


def method_color(name, i):
    """The color of a method, the same in every figure (its spec's); the i-th of
    :data:`FALLBACK_COLORS` for any other name or a method without one."""
    spec = find_spec(name)
    if spec is not None and spec.color:
        return spec.color
    return FALLBACK_COLORS[i % len(FALLBACK_COLORS)]


def require_columns(df, columns, what):
    """Raise a ValueError naming the columns ``df`` lacks for the figure ``what``."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} needs the column(s) {', '.join(missing)}; got "
                         f"{', '.join(map(str, df.columns))}.")


def percent(values):
    """Fractions as percentages (a float array)."""
    return 100.0 * np.asarray(values, dtype=float)
