"""What RMSC's weights P say, in numbers and plain words (the Weights page).

Pure functions on a fit's arrays (no plotting, no streamlit):

* :func:`at_cap` — which weights sit at the cap 1/sqrt(gamma) of the P-step;
* :func:`view_weight_shares` — each view's share of the consensus weight (c_v P) and
  its share of ΣP (P alone), its mean weight, the share of its samples at the cap and
  its median loss;
* :func:`view_quality` — how informative each view is on its own (SC-BSV's per-view
  clusterings: their ACC and NMI when labels exist, the eigengap of the view's own
  graph always), and :func:`trust_vs_quality` — whether RMSC's trust follows that
  quality (a Spearman correlation and one sentence computed from the numbers);
* :func:`weight_change` — P of a fit on corrupted data over P of the clean fit, cell by
  cell (what the injection did), and :func:`weight_change_summary`;
* :func:`heatmap_pool` — an order and a pooling of P for a heatmap of at most a few
  hundred columns that keeps a low weight visible (within each class by weight, each
  pooled column the minimum or a low quantile of its samples), with
  :func:`pooled_columns` to find the columns that hold given samples.

What is measured about a view that carries most of the weight, and the sentence that says
it, are :mod:`rmsc.dominance`'s.

"At the cap", precisely: the P-step gives P = 1/sqrt(gamma + l) (l the sample's loss, in
its view's unit under the scaled model), which cannot exceed 1/sqrt(gamma). A weight is
*at the cap* when l <= gamma, i.e. P >= 1/sqrt(2 gamma) (71 % of the cap or more): its
weight is then set by gamma more than by its loss, so samples at the cap are no longer
told apart by how well they are reconstructed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scipy.stats import spearmanr

from .methods import get_method
from .metrics import evaluate_runs
from .pooling import MAX_WEIGHT_COLUMNS
from .solver import consensus_weights, loss_of_weight


#: The two shares of the weights, as the pages' tables label them: of the consensus weight
#: (sum_vj c_v P_vj: what the Z*-step averages the views with) and of P alone.
SHARE_LABEL = "share of ΣcᵥP"  # cᵥ: a subscript v, as the page prints it
P_SHARE_LABEL = "share of ΣP"


def at_cap(weights, gamma):
    """Boolean mask of the weights at the cap (loss <= gamma, P >= 1/sqrt(2 gamma)).

    Parameters
    ----------
    weights : ndarray of shape (n_views, n_samples)
        P (``RMSC.weights_``).
    gamma : float > 0

    Returns
    -------
    ndarray of bool, same shape
    """
    P = np.asarray(weights, dtype=float)
    if not gamma > 0:
        return np.zeros(P.shape, dtype=bool)
    return P >= 1.0 / np.sqrt(2.0 * gamma)


def view_weight_shares(weights, *, gamma, view_names=None, factors=None, scale=None,
                       n_features=None):
    """Each view's part of the weights.

    Parameters
    ----------
    weights : ndarray of shape (n_views, n_samples)
        P (``RMSC.weights_``).
    gamma : float
    view_names : list of str or None
    factors : ndarray of shape (n_views,) or None
        The scaled model's view factors c_v (``RMSC.view_factors_``): the consensus
        averages the views with the weights c_v P_vj. None: the paper's model.
    scale : ndarray of shape (n_views,) or None
        The scaled model's units s_v (``RMSC.loss_scale_``), to state losses in the
        data's units. None: the paper's model (losses are absolute already).
    n_features : sequence of int or None

    Returns
    -------
    list of dict, one per view: ``view``, ``share`` (of the consensus weight
    sum_vj c_v P_vj, 0-1: how much the view counts in Z*), ``p_share`` (of ΣP,
    sum_j P_vj / sum_vj P_vj, 0-1; equal to ``share`` under the paper's model, where
    c_v = 1), ``mean_weight`` (mean of P_v), ``at_cap`` (share of its
    samples at the cap, 0-1), ``median_loss`` (median over its samples of the loss
    behind the weight, l = 1/P^2 - gamma, times s_v under the scaled model),
    ``n_features`` (or None), ``factor`` (the view's c_v; 1 under the paper's model).
    """
    P = np.asarray(weights, dtype=float)
    m = P.shape[0]
    names = list(view_names) if view_names is not None else [f"view {v + 1}" for v in range(m)]
    W = consensus_weights(P, factors)
    total = float(W.sum())
    p_total = float(P.sum())
    cap = at_cap(P, gamma)
    loss = loss_of_weight(P, gamma)
    if scale is not None:
        loss = loss * np.asarray(scale, dtype=float)[:, None]
    out = []
    for v in range(m):
        out.append({
            "view": names[v],
            "share": float(W[v].sum() / total) if total > 0 else 0.0,
            "p_share": float(P[v].sum() / p_total) if p_total > 0 else 0.0,
            "mean_weight": float(P[v].mean()),
            "at_cap": float(cap[v].mean()),
            "median_loss": float(np.median(loss[v])),
            "n_features": None if n_features is None else int(n_features[v]),
            "factor": 1.0 if factors is None else float(np.asarray(factors)[v]),
        })
    return out


def _signed(x):
    """A correlation with its sign, a true minus for negative values."""
    return f"{x:+.2f}".replace("-", "−")


def ratio_text(ratio):
    """A ratio in words' digits: 3 significant digits, whole numbers from 1000 up."""
    return f"{ratio:,.0f}" if ratio >= 1000 else f"{ratio:.3g}"


#: The method whose per-view runs measure how informative each view is on its own: the
#: registry's SC-BSV (spectral clustering of every view's k-NN graph, one view at a time).
QUALITY_METHOD = "SC-BSV"

#: |Spearman rho| above which trust is said to follow (rho > it) or to run against
#: (rho < -it) the views' quality; in between it "hardly follows" (with three views a
#: single swap of two neighbours gives rho = 0.5, which is not enough to say either).
FOLLOWS_RHO = 0.5


def view_quality(Xs, n_clusters, labels=None, *, view_names=None, random_state=0, **params):
    """How informative each view is on its own, from :data:`QUALITY_METHOD`'s per-view runs.

    Each view's k-NN graph is clustered alone (the registry's SC-BSV with its defaults,
    ``params`` overriding them): with ``labels``, the view's own ACC and NMI (means over
    its k-means runs, :func:`rmsc.metrics.evaluate_runs`); always, the eigengap of the
    view's own normalised graph between eigenvalues c and c+1 (label-free: larger = a
    clearer c-cluster structure).

    Parameters
    ----------
    Xs : list of array-like, each (n_samples, n_features_v)
    n_clusters : int
    labels : array-like of shape (n_samples,) or None
    view_names : list of str or None
    random_state : int or None
    **params
        SC-BSV parameters (``n_neighbors``, ``bandwidth``, ``n_init``, ...).

    Returns
    -------
    list of dict, one per view: ``view``, ``eigengap``, ``acc`` and ``nmi`` (0-1, None
    without labels).
    """
    est = get_method(QUALITY_METHOD, n_clusters=n_clusters, random_state=random_state,
                     **params).fit(list(Xs))
    m = len(est.view_eigengaps_)
    names = list(view_names) if view_names is not None else [f"view {v + 1}" for v in range(m)]
    out = []
    for v in range(m):
        row = {"view": names[v], "eigengap": float(est.view_eigengaps_[v]), "acc": None,
               "nmi": None}
        if labels is not None:
            scores = evaluate_runs(labels, est.view_label_runs_[v])
            row.update(acc=scores["acc_mean"], nmi=scores["nmi_mean"])
        out.append(row)
    return out


def quality_measure(quality):
    """The measure :func:`trust_vs_quality` ranks the views by: "acc" when every view has
    an ACC (labels), else "eigengap"."""
    return "acc" if quality and all(q["acc"] is not None for q in quality) else "eigengap"


#: Each quality measure in the pages' words, and how its value is written.
MEASURE_WORDS = {"acc": ("own ACC", lambda x: f"{100 * x:.1f} %"),
                 "eigengap": ("own graph's eigengap", lambda x: f"{x:.3g}")}


@dataclass(frozen=True)
class TrustVsQuality:
    """What :func:`trust_vs_quality` returns.

    Attributes
    ----------
    measure : str
        "acc" or "eigengap" (:func:`quality_measure`).
    rho : float
        Spearman's rank correlation between the views' shares of the consensus weight
        and their quality; NaN when it is not defined (fewer than 2 views, or every view
        with the same share or the same quality).
    verdict : str
        "follows" (rho > :data:`FOLLOWS_RHO`), "hardly follows", "runs against"
        (rho < -:data:`FOLLOWS_RHO`) or "undefined".
    most_trusted, best : int
        The view with the largest share; the view with the best quality (first of ties).
    sentence : str
        The plain-words statement, every number in it taken from the inputs.
    """

    measure: str
    rho: float
    verdict: str
    most_trusted: int
    best: int
    sentence: str


def trust_vs_quality(shares, quality):
    """Does RMSC's trust in the views follow how informative each is on its own?

    Parameters
    ----------
    shares : list of dict
        :func:`view_weight_shares` (``view``, ``share``: of the consensus weight c_v P).
    quality : list of dict
        :func:`view_quality`, same views in the same order.

    Returns
    -------
    TrustVsQuality
    """
    if len(shares) != len(quality):
        raise ValueError(f"shares and quality must describe the same views; got "
                         f"{len(shares)} and {len(quality)}.")
    if not shares:
        raise ValueError("trust_vs_quality needs at least one view.")
    measure = quality_measure(quality)
    word, fmt = MEASURE_WORDS[measure]
    share = np.array([float(s["share"]) for s in shares])
    value = np.array([float(q[measure]) for q in quality])
    names = [str(s["view"]) for s in shares]
    m = len(shares)
    top, best = int(np.argmax(share)), int(np.argmax(value))
    # equal shares up to round-off (view_balance="consensus" makes them equal): no ranking
    same_share = m >= 2 and np.ptp(share) <= 1e-9
    if m < 2 or same_share or np.ptp(value) == 0:
        rho = float("nan")
    else:
        rho = float(spearmanr(share, value).statistic)
    if not np.isfinite(rho):
        verdict = "undefined"
    elif rho > FOLLOWS_RHO:
        verdict = "follows"
    elif rho < -FOLLOWS_RHO:
        verdict = "runs against"
    else:
        verdict = "hardly follows"
    rank = 1 + int(np.sum(value > value[top]))
    if verdict == "undefined":
        same = "the same share" if same_share else f"the same {word}"
        text = (f"Whether RMSC's trust follows the views' quality cannot be said here: "
                f"{'there is one view' if m < 2 else f'every view has {same}'}.")
    else:
        text = (f"On these data RMSC's trust {verdict} the views' quality: the rank "
                f"correlation (Spearman) between a view's share of the consensus weight and "
                f"its {word} is {_signed(rho)} (+1: trust in exactly the order of quality, −1: "
                f"the reverse); ")
        if top == best or value[top] == value[best]:
            text += (f"the most trusted view, {names[top]} ({share[top]:.0%} of the weight), "
                     f"is also the best on its own ({word} {fmt(value[top])}).")
        else:
            text += (f"the most trusted view, {names[top]} ({share[top]:.0%} of the weight), "
                     f"ranks {rank} of {m} on its own ({word} {fmt(value[top])}), while the "
                     f"best, {names[best]} ({word} {fmt(value[best])}), gets "
                     f"{share[best]:.0%}.")
    return TrustVsQuality(measure=measure, rho=rho, verdict=verdict, most_trusted=top,
                          best=best, sentence=text)


def weight_change(weights, clean_weights):
    """P of a fit on corrupted data divided, cell by cell, by P of the same fit on the
    clean data: 1 where the injection changed nothing, below 1 where it lowered a weight.

    Parameters
    ----------
    weights, clean_weights : ndarray of shape (n_views, n_samples)
        The same samples, views and parameters; only the data differ.

    Returns
    -------
    ndarray of shape (n_views, n_samples)
    """
    P = np.asarray(weights, dtype=float)
    C = np.asarray(clean_weights, dtype=float)
    if P.shape != C.shape:
        raise ValueError(f"The clean fit's weights have shape {C.shape}, this fit's {P.shape}: "
                         "they must be fits of the same samples and views.")
    if not np.all(C > 0):
        raise ValueError("The clean fit has weights of 0; the change P / P_clean is not "
                         "defined there.")
    return P / C


#: A cell's weight "fell" when it is below this fraction of its clean value.
FELL_BELOW = 0.5


def weight_change_summary(change, outlier_mask, view_names=None):
    """What the injection did to the weights, in numbers and one sentence.

    Parameters
    ----------
    change : ndarray of shape (n_views, n_samples)
        :func:`weight_change`.
    outlier_mask : ndarray of bool, same shape
        The injected (view, sample) pairs.
    view_names : list of str or None

    Returns
    -------
    dict
        ``injected_median`` and ``clean_median`` (the median change over the injected
        cells and over the others), ``injected_fell`` and ``clean_fell`` (the share of
        each whose weight fell below :data:`FELL_BELOW` of its clean value), ``sentence``.
    """
    R = np.asarray(change, dtype=float)
    mask = np.asarray(outlier_mask, dtype=bool)
    if mask.shape != R.shape or not mask.any():
        raise ValueError("weight_change_summary needs an outlier mask of the weights' shape "
                         "with at least one injected pair.")
    hit, rest = R[mask], R[~mask]
    out = {
        "injected_median": float(np.median(hit)),
        "clean_median": float(np.median(rest)) if rest.size else float("nan"),
        "injected_fell": float(np.mean(hit < FELL_BELOW)),
        "clean_fell": float(np.mean(rest < FELL_BELOW)) if rest.size else float("nan"),
    }
    views = np.flatnonzero(mask.any(axis=1))
    names = list(view_names) if view_names is not None else [f"view {v + 1}" for v in
                                                              range(R.shape[0])]
    where = ", ".join(names[v] for v in views)
    out["sentence"] = (
        f"Against the clean fit, the injected cells ({int(mask.sum())}, in {where}) kept a "
        f"median {out['injected_median']:.2f} of their weight and "
        f"{out['injected_fell']:.0%} of them fell below {FELL_BELOW:g} of it; the other "
        f"cells kept a median {out['clean_median']:.2f}, and {out['clean_fell']:.1%} of "
        f"them fell below {FELL_BELOW:g}.")
    return out


#: Columns of :func:`heatmap_pool` by default (the pages' limit, one source).
HEATMAP_COLUMNS = MAX_WEIGHT_COLUMNS


@dataclass(frozen=True)
class PooledHeatmap:
    """What :func:`heatmap_pool` returns.

    Attributes
    ----------
    values : ndarray of shape (n_views, n_columns)
        The pooled weights (relative to each view's median when asked).
    order : ndarray of shape (n_samples,)
        Sample indices in display order: class by class, within a class by weight
        (lowest first).
    bounds : ndarray of shape (n_columns + 1,)
        Column k pools the samples ``order[bounds[k]:bounds[k + 1]]``.
    groups : list of tuple
        ``(label, first_column, end_column)`` per class, in display order (one group
        labelled None without labels).
    pool : str
        "min" or "quantile q".
    """

    values: np.ndarray
    order: np.ndarray
    bounds: np.ndarray
    groups: list
    pool: str


#: Relative weights (P / the view's median) below this are "dark" in the weights heatmap:
#: :data:`rmsc.figures.LOW_END_COLORSCALE` draws them black to purple (a test checks that
#: the scale agrees); the words under the lesson's heatmap count them.
DARK_RELATIVE = 0.75


def relative_weights(P):
    """Each view's weights (the rows of ``P``) over their median; 0 where that median is 0."""
    med = np.median(P, axis=1, keepdims=True)
    return np.divide(P, med, out=np.zeros_like(P), where=med > 0)


def heatmap_pool(weights, labels=None, *, max_columns=HEATMAP_COLUMNS, pool="min", quantile=0.1,
                 relative=True):
    """Order and pool P for a heatmap that keeps a low weight visible.

    Samples are grouped by class (``labels``; one group without), ordered within each
    class by their lowest weight over the views (relative to the view's median when
    ``relative``), lowest first, so the samples some view distrusts come first in their
    class. With more samples than ``max_columns`` each class gets a number of columns in
    proportion to its size (at least one; a column never spans two classes) and every
    column pools its consecutive samples by their minimum (``pool="min"``) or their
    ``quantile`` (``pool="quantile"``): a low weight stays as low in the pooled column,
    where a mean would average it away.

    Parameters
    ----------
    weights : ndarray of shape (n_views, n_samples)
    labels : array-like of shape (n_samples,) or None
    max_columns : int, default=600
    pool : {"min", "quantile"}
    quantile : float in [0, 1], default=0.1
    relative : bool, default=True
        Divide each view's weights by their median first (1 = the view's typical
        sample), so views of different scale share one colour scale.

    Returns
    -------
    PooledHeatmap
    """
    P = np.asarray(weights, dtype=float)
    if P.ndim != 2 or P.shape[1] == 0:
        raise ValueError(f"weights must be (n_views, n_samples) with samples; got {P.shape}.")
    if pool not in ("min", "quantile"):
        raise ValueError(f"pool must be 'min' or 'quantile'; got {pool!r}.")
    if pool == "quantile" and not 0.0 <= quantile <= 1.0:
        raise ValueError(f"quantile must be in [0, 1]; got {quantile!r}.")
    if int(max_columns) != max_columns or max_columns < 1:
        raise ValueError(f"max_columns must be a whole number >= 1; got {max_columns!r}.")
    m, n = P.shape
    if relative:
        P = relative_weights(P)
    y = np.zeros(n, dtype=int) if labels is None else np.asarray(labels)
    if y.shape != (n,):
        raise ValueError(f"labels must have one entry per sample ({n}); got shape {y.shape}.")
    classes = [None] if labels is None else list(np.unique(y))
    members = [np.arange(n)] if labels is None else [np.flatnonzero(y == c) for c in classes]
    low = P.min(axis=0)
    budget = max(int(max_columns), len(classes))
    sizes = np.array([len(idx) for idx in members])
    cols = _columns_per_class(sizes, budget) if n > budget else sizes
    order, bounds, groups, pooled = [], [0], [], []
    for c, idx, k in zip(classes, members, cols):
        idx = idx[np.argsort(low[idx], kind="stable")]
        first = len(bounds) - 1
        edges = np.linspace(0, len(idx), int(k) + 1).round().astype(int)
        for a, b in zip(edges[:-1], edges[1:]):
            block = P[:, idx[a:b]]
            pooled.append(block.min(axis=1) if pool == "min"
                          else np.quantile(block, quantile, axis=1))
            bounds.append(len(order) + b)
        order.extend(idx.tolist())
        groups.append((None if c is None else c.item() if hasattr(c, "item") else c,
                       first, len(bounds) - 1))
    return PooledHeatmap(values=np.column_stack(pooled), order=np.asarray(order),
                         bounds=np.asarray(bounds),
                         groups=groups, pool="min" if pool == "min" else f"quantile {quantile:g}")


def _columns_per_class(sizes, budget):
    """Columns per class, in proportion to the sizes, at least one each, summing to
    ``budget`` (largest remainders first)."""
    sizes = np.asarray(sizes, dtype=float)
    spare = budget - len(sizes)
    share = sizes / sizes.sum() * spare
    cols = np.floor(share).astype(int)
    rest = spare - cols.sum()
    if rest > 0:
        cols[np.argsort(-(share - cols), kind="stable")[:rest]] += 1
    cols += 1
    return np.minimum(cols, sizes.astype(int))


def pooled_columns(heatmap, samples):
    """The columns of a :class:`PooledHeatmap` that hold the given sample indices
    (sorted, unique): where to draw marks for, e.g., the injected outliers."""
    position = np.empty(heatmap.order.size, dtype=np.int64)
    position[heatmap.order] = np.arange(heatmap.order.size)
    where = position[np.asarray(samples, dtype=np.int64)]
    return np.unique(np.searchsorted(heatmap.bounds, where, side="right") - 1)
