"""Sentences about the numbers on a page, computed from those numbers: what happened here.

A page never states as a fact what the numbers beside it can contradict ("fusing the
views is better", "more views help"): it says what to look for, and these functions say
what the numbers on screen show (Affinity's within-class shares, Sensitivity's
number-of-views chart, Solve's clustering trace against the fit's own result).
"""

from __future__ import annotations

import math


def _pct(x):
    return f"{x:.1f} %"


def fusion_sentence(consensus, singles):
    """What the Affinity page's within-class shares say about fusing the views.

    Parameters
    ----------
    consensus : float
        The consensus affinity's within-class share, in %.
    singles : dict of str -> float
        Each single-view affinity's share (a view's Zᵛ, its k-NN graph), in %.

    Returns
    -------
    str
        Whether the consensus is above every single-view affinity here, or which are above
        it; "" without any finite share.
    """
    singles = {k: float(v) for k, v in singles.items() if v is not None and math.isfinite(v)}
    if consensus is None or not math.isfinite(consensus) or not singles:
        return ""
    above = {k: v for k, v in singles.items() if v > consensus}
    if not above:
        return (f"Here the consensus keeps more of its weight within classes "
                f"({_pct(consensus)}) than every single-view affinity of the table "
                f"(best {_pct(max(singles.values()))}).")
    best = max(above, key=above.get)
    return (f"Here {len(above)} of the {len(singles)} single-view affinities keep more of "
            f"their weight within classes than the consensus ({_pct(consensus)}; best: "
            f"{best}, {_pct(above[best])}). A within-class share is not the whole story: "
            "spectral clustering also needs each class connected, and the consensus's ACC "
            "(in the sidebar, and under the spectral embedding) says how it clustered.")


def views_sentence(table, tolerance=0.5):
    """What the number-of-views chart shows, method by method.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`rmsc.experiments.accuracy_vs_views`' table (``method``, ``n_views``,
        ``acc_mean`` as fractions; failed points NaN).
    tolerance : float
        Points of ACC within which a change does not count as a rise or a fall.

    Returns
    -------
    str
        One clause per method: whether its ACC rose with every view added, and if not,
        how many added views lowered it and where it was best.
    """
    parts = []
    for method, rows in table.groupby("method", sort=False):
        rows = rows.dropna(subset=["acc_mean"]).sort_values("n_views")
        if len(rows) < 2:
            continue
        acc = (100 * rows["acc_mean"]).tolist()
        n = rows["n_views"].tolist()
        falls = sum(b < a - tolerance for a, b in zip(acc, acc[1:]))
        best = max(range(len(acc)), key=acc.__getitem__)
        if falls == 0:
            parts.append(f"{method} never lost more than {tolerance:g} points when a view was "
                         f"added ({_pct(acc[0])} with {n[0]} view{'s' * (n[0] > 1)}, "
                         f"{_pct(acc[-1])} with {n[-1]})")
        else:
            parts.append(f"{method} lost ACC on {falls} of the {len(acc) - 1} views added; "
                         f"best with {n[best]} view{'s' * (n[best] > 1)} ({_pct(acc[best])}), "
                         f"{_pct(acc[-1])} with all {n[-1]}")
    return ("Here: " + "; ".join(parts) + ".") if parts else ""


def trace_sentence(rows, placement):
    """Why the Solve page's clustering trace may sit under the fit's own result.

    Parameters
    ----------
    rows : list of dict
        :attr:`rmsc.tracking.ClusteringTrace.rows`, the last one the fit's own (``final``).
    placement : bool
        Whether the fit placed the samples its consensus isolates.

    Returns
    -------
    str
        The last recorded clustering's ACC against the fit's, and the two procedures'
        difference; "" without labels or without a recorded clustering.
    """
    final = [r for r in rows if r.get("final")]
    steps = [r for r in rows if not r.get("final") and r.get("acc") is not None]
    if not final or final[-1].get("acc") is None or not steps:
        return ""
    last, own = steps[-1], final[-1]
    gap = own["acc"] - last["acc"]
    how = ("one k-means run on the plain spectral embedding; the fit's own result (the "
           "stars) is the mean of its 20 k-means runs"
           + (", after placing the samples its consensus isolates" if placement else ""))
    if abs(gap) < 1:
        return (f"The last recorded clustering (iteration {last['iteration']}) scores "
                f"{_pct(last['acc'])} ACC, within a point of the fit's {_pct(own['acc'])}. "
                f"Each recorded point is {how}.")
    return (f"The last recorded clustering (iteration {last['iteration']}) scores "
            f"{_pct(last['acc'])} ACC, {abs(gap):.1f} points "
            f"{'under' if gap > 0 else 'over'} the fit's {_pct(own['acc'])}: each recorded "
            f"point is {how}. The gap is the two procedures', not a change of the consensus.")

