"""When one view carries most of RMSC's consensus weight: what is measured about it, and
the sentence that says it (the Weights page's message, the lesson's step 6 note).

* :func:`dominance_threshold` — the share from which one view is said to dominate;
* :func:`dominance_facts` — the numbers measured on the fit: the view's share against an
  equal one, its samples at the cap, its median loss against the others', under the
  scaled model its unit and its factor, and, given the views' spread
  (:func:`rmsc.preprocessing.spread_directions`), how few directions its samples spread
  along against the others' when they are the fewest;
* :func:`directions_text` — the one wording of why such a view is easy to rebuild (its
  samples spread along few directions: docs/lesson.md, "Few features or few directions?",
  ``docs/studies/study_view_dimension.py``; not its number of features), shared by
  :func:`dominance_message` and :func:`rmsc.dashboard.lesson.weight_note`;
* :func:`dominance_message` — the Weights page's plain-words message.
"""

from __future__ import annotations

import numpy as np

from .inspection import ratio_text, view_weight_shares


def dominance_threshold(n_views):
    """The share of the consensus weight from which one view is said to dominate:
    half of it, and at least 1.5 times an equal share (0.75 for two views)."""
    return max(0.5, min(0.75, 1.5 / n_views))


def dominance_facts(weights, *, gamma, view_names=None, factors=None, scale=None,
                    n_features=None, spread=None):
    """What is measured about the view that carries most of the consensus weight, or None
    when none does (its share below :func:`dominance_threshold`).

    One source for the numbers of :func:`dominance_message` (the Weights page's sentence)
    and of the lesson's plain-words note (:func:`rmsc.dashboard.lesson.weight_note`).

    Parameters
    ----------
    weights, gamma, view_names, factors, scale, n_features : see
        :func:`rmsc.inspection.view_weight_shares`.
    spread : list of dict or None
        :func:`rmsc.preprocessing.spread_directions` of each view, in the weights' order.

    Returns
    -------
    dict or None
        ``view``, ``share`` (of the consensus weight, 0-1), ``n_views``, ``equal``
        (1 / n_views), ``at_cap`` (share of its samples at the cap, 0-1), ``gamma``,
        ``cap`` (1/sqrt(gamma)), ``median_loss`` (its median loss), ``other_loss`` (the
        median of the other views' median losses), ``loss_ratio`` (other_loss /
        median_loss, or None unless its losses are the smaller), ``unit`` and
        ``unit_ratio`` (its scaled model's unit s_v and the others' median over it, or
        None unless the scaled model gives it the smaller unit), ``factor_ratio`` (its
        view factor c_v over the others' median, or None unless it is the larger),
        ``n_features`` (or None), and ``directions``, ``pc1`` (its participation ratio and
        PC1 share, 0-1), ``other_directions``, ``other_pc1`` ((lowest, highest) of the
        others'): all four None unless ``spread`` is given and its participation ratio is
        the lowest of all the views'.
    """
    rows = view_weight_shares(weights, gamma=gamma, view_names=view_names, factors=factors,
                              scale=scale, n_features=n_features)
    m = len(rows)
    if m < 2:
        return None
    top = max(range(m), key=lambda v: rows[v]["share"])
    r = rows[top]
    if r["share"] < dominance_threshold(m):
        return None
    others = [rows[v] for v in range(m) if v != top]
    other_loss = float(np.median([o["median_loss"] for o in others]))
    facts = {"view": r["view"], "share": r["share"], "n_views": m, "equal": 1 / m,
             "at_cap": r["at_cap"], "gamma": float(gamma), "cap": float(1 / np.sqrt(gamma)),
             "median_loss": r["median_loss"], "other_loss": other_loss,
             "loss_ratio": (other_loss / r["median_loss"]
                            if 0 < r["median_loss"] < other_loss else None),
             "unit": None, "unit_ratio": None, "factor_ratio": None,
             "n_features": r["n_features"], "directions": None, "pc1": None,
             "other_directions": None, "other_pc1": None}
    if scale is not None and factors is not None:
        s = np.asarray(scale, dtype=float)
        rest = float(np.median(np.delete(s, top)))
        if s[top] < rest:
            facts["unit"], facts["unit_ratio"] = float(s[top]), rest / float(s[top])
    if factors is not None:
        c = np.asarray(factors, dtype=float)
        rest = float(np.median(np.delete(c, top)))
        if c[top] > rest > 0:
            facts["factor_ratio"] = float(c[top]) / rest
    if spread is not None:
        rest = [spread[v] for v in range(m) if v != top]
        dirs = [float(s["directions"]) for s in rest]
        if spread[top]["directions"] < min(dirs):
            pc1 = [float(s["pc1"]) for s in rest]
            facts.update(directions=float(spread[top]["directions"]),
                         pc1=float(spread[top]["pc1"]),
                         other_directions=(min(dirs), max(dirs)),
                         other_pc1=(min(pc1), max(pc1)))
    return facts


def directions_text(facts, *, pct=lambda share: f"{share:.0%}",
                    pc1="its first principal direction"):
    """Why the top view of ``facts`` (:func:`dominance_facts`) is easy to rebuild, from its
    spread: said only when its samples spread along the fewest directions of all the
    views (else None). The participation ratio is said in plain words (the number of
    directions, each holding an equal part, its whole spread would fit in: the twelfth cold
    reading could not read "participation ratio of its spectrum", the seventeenth only half
    followed "as spread as that many equally spread directions"). ``pct`` writes a share
    (0-1) the way the text around it does; ``pc1`` names the first principal direction (the lesson points at the Data page's
    PC1)."""
    if facts is None or facts["directions"] is None:
        return None
    view = facts["view"]
    lo, hi = facts["other_directions"]
    plo, phi = facts["other_pc1"]
    others = f"{lo:.1f}" if lo == hi else f"{lo:.1f} to {hi:.1f}"
    other_pc1 = pct(plo) if pct(plo) == pct(phi) else f"{pct(plo)} to {pct(phi)}"
    features = ("" if facts["n_features"] is None else
                f" (it has {facts['n_features']} features)")
    views = f"the other view{'s' if facts['n_views'] > 2 else ''}"
    return (f"{view}'s samples spread along few directions{features}: {pc1} keeps "
            f"{pct(facts['pc1'])} of its spread, against {other_pc1} in {views}, and its "
            f"whole spread would fit in {facts['directions']:.1f} directions each holding "
            f"an equal part, against {others} for {views}. Along so few directions almost "
            "any sample is "
            f"nearly an exact mix of a few others, whatever its class. So {view}'s large "
            f"weight says it is easy to rebuild, not that it tells the classes apart.")


def dominance_message(weights, *, gamma, view_names=None, factors=None, scale=None,
                      n_features=None, spread=None):
    """A plain-words message when one view carries most of the consensus weight, else None.

    Every number in it is measured on the fit (:func:`dominance_facts`, whose parameters
    these are): the view's share against an equal share, the share of its samples at the
    cap (see :mod:`rmsc.inspection`), its median loss against the other views', under the
    scaled model its unit of loss, and, given ``spread``, why it is easy to rebuild
    (:func:`directions_text`, only when its spread is the narrowest).
    """
    f = dominance_facts(weights, gamma=gamma, view_names=view_names, factors=factors,
                        scale=scale, n_features=n_features, spread=spread)
    if f is None:
        return None
    text = (f"{f['view']} carries {f['share']:.0%} of the consensus weight "
            f"(an equal share would be {f['equal']:.0%} of {f['n_views']} views).")
    if f["at_cap"] > 0:
        text += (f" {f['at_cap']:.0%} of its samples are at the weight cap "
                 f"1/√γ = {f['cap']:.3g} (their loss is at most γ = {gamma:g}).")
    if f["loss_ratio"] is not None:
        text += (f" Its median loss is {f['median_loss']:.3g}, "
                 f"{ratio_text(f['loss_ratio'])} times below the other views' "
                 f"median ({f['other_loss']:.3g}).")
    if f["unit_ratio"] is not None:
        text += (f" The scaled model measures each view's losses in its own unit (its "
                 f"median loss at the start): {f['view']}'s unit, {f['unit']:.3g}, is "
                 f"{ratio_text(f['unit_ratio'])} times below the others' median, so its "
                 f"factor 1/s_v, and with it its share, is that much larger.")
    reason = directions_text(f)
    if reason is not None:
        text += " " + reason
    return text
