"""The Theory page's figures: psi, the latent loss and the minimizer (the paper's Figure 2).

And a fit's (loss, weight) pairs on the minimizer.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..pooling import MAX_SCATTER_POINTS
from ..solver import latent_loss, minimizer, psi
from ._style import class_color, log_axis


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
    fig.update_xaxes(title_text="weight p", **log_axis(p[0], p[-1]), row=1, col=1)
    fig.update_xaxes(title_text="loss ℓ", row=1, col=2)
    fig.update_xaxes(title_text="loss ℓ", row=1, col=3)
    if sig.max() > 10 * sig.min():
        fig.update_yaxes(**log_axis(sig.min(), sig.max()), row=1, col=3)
    fig.update_layout(height=380, margin=dict(t=60, b=40, l=50, r=10),
                      title=f"γ = {gamma:g}", legend=dict(orientation="h", y=-0.22))
    return fig


def fitted_weights_figure(losses, weights, gamma, view_names, *, outlier_mask=None,
                          max_points=MAX_SCATTER_POINTS):
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
        color = class_color(v)
        clean = idx if mask is None else idx[~mask[v][idx]]
        fig.add_trace(go.Scattergl(x=np.maximum(L[v, clean], lo), y=P[v, clean], mode="markers",
                                   marker=dict(size=5, color=color, opacity=0.6),
                                   name=str(name), legendgroup=str(name)), row=1, col=1)
        bad = np.empty(0, int) if mask is None else np.flatnonzero(mask[v])
        if bad.size:
            fig.add_trace(go.Scattergl(
                x=np.maximum(L[v, bad], lo), y=P[v, bad], mode="markers",
                marker=dict(size=9, symbol="x", color=color, line=dict(width=1, color="black")),
                name=f"{name}: injected", legendgroup=str(name)), row=1, col=1)
        fig.add_trace(go.Box(x=np.maximum(L[v], lo), name=str(name), orientation="h",
                             marker_color=color, boxpoints=False, showlegend=False,
                             legendgroup=str(name)), row=2, col=1)
    xaxis = log_axis(lo, hi)
    fig.update_xaxes(**xaxis, row=1, col=1)
    fig.update_xaxes(**xaxis, title_text="loss ℓ of the sample in the view", row=2, col=1)
    fig.update_yaxes(title_text="weight P", **log_axis(
        float(P.min()) if P.size else 0.1, float(P.max()) if P.size else 10), row=1, col=1)
    fig.update_yaxes(autorange="reversed", row=2, col=1)
    fig.update_layout(title="Your fit: every (sample, view) on σ, and where each view's losses lie",
                      height=560, margin=dict(t=40, b=40, l=60, r=10))
    return fig
