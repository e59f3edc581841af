"""What the Lesson page says about the numbers on screen, computed from them.

A comparison's lines (:func:`change_sentences`: each method's change with the outliers,
within the ± spread or not; :func:`claim_sentence`: the paper's claim checked on the same
tables), step 6's plain-words note on each view's part of the weights (:func:`weight_note`,
from :func:`rmsc.inspection.dominance_facts`, the numbers behind the Weights page's
sentence) with its table's columns (:data:`SHARE_COLUMNS`), and the words under a
comparison's lines and table, the weights heatmap and a ROC curve (:data:`SPREAD_RULE`,
:data:`POSTPROCESSING_NOTE`, :func:`heatmap_note`, :data:`ROC_NOTE`).
:mod:`rmsc.dashboard.lesson` re-exports them.
"""

from __future__ import annotations

import numpy as np

from ..inspection import (DARK_RELATIVE, SHARE_LABEL, other_features_text, ratio_text,
                          relative_weights)
from .runs import robustness_table


def change_sentences(tables):
    """One sentence per method of a comparison on the clean data and with the outliers,
    computed from its tables: its ACC on each and the change in points; where the tables
    have ``acc_std``, each ACC's ± spread (over the k-means runs) and whether the change is
    within the larger of the two spreads (noise) or beyond it."""
    names = list(tables)
    if len(names) != 2:
        return []
    table = robustness_table(tables)
    spreads = [_acc_spreads(tables[name]) for name in names]
    out = []
    for _, row in table.iterrows():
        clean, dirty, change = row[f"{names[0]} %"], row[f"{names[1]} %"], row["change (points)"]
        sd = [s.get(row["method"]) for s in spreads]
        # two decimals, as the table beside them ("gained 0.0 points" said nothing)
        verb = "lost" if change < 0 else "gained"
        if any(v is None for v in sd):
            out.append(f"{row['method']}: ACC {clean:.2f} % on the {names[0]} data, "
                       f"{dirty:.2f} % {names[1]}: {verb} {abs(change):.2f} points.")
            continue
        noise = "within" if within_spread(change, sd) else "more than"
        out.append(f"{row['method']}: ACC {clean:.2f} ± {sd[0]:.2f} % on the {names[0]} data, "
                   f"{dirty:.2f} ± {sd[1]:.2f} % {names[1]}: {verb} {abs(change):.2f} points, "
                   f"{noise} the ± spread.")
    return out


def claim_sentence(tables, method="RMSC"):
    """The paper's claim (``method``, weighting every sample in every view, loses the least
    to the outliers) checked on a comparison's tables, as one sentence computed from them:
    which method has the highest ACC with the outliers, whose change is the best (gained the
    most or lost the least), and whether the claim holds, is not borne out, or cannot be
    told from the ± spread. None unless the tables are a clean and an outliers variant
    holding ``method`` and at least one other method."""
    names = list(tables)
    if len(names) != 2:
        return None
    table = robustness_table(tables).dropna(subset=["change (points)"])
    if method not in set(table["method"]) or len(table) < 2:
        return None
    spreads = [_acc_spreads(tables[name]) for name in names]
    rows = {row["method"]: row for _, row in table.iterrows()}
    mine = rows[method]
    level = _highest(table, rows, method, names[1], spreads[1])
    others = table[table["method"] != method]
    rival = others.loc[others["change (points)"].idxmax(), "method"]
    gap = mine["change (points)"] - rows[rival]["change (points)"]
    # a change is a difference of two ACCs; the gap between two changes, of four
    noise = within_spread(gap, [s.get(m) for s in spreads for m in (method, rival)])
    mine_c, rival_c = mine["change (points)"], rows[rival]["change (points)"]
    if gap > 0:
        change = (f"the best change is {method}'s ({mine_c:+.2f} points; next {rival}, "
                  f"{rival_c:+.2f})")
    else:
        change = f"the best change is {rival}'s ({rival_c:+.2f} points, {method} {mine_c:+.2f})"
    if noise:
        verdict = "cannot be told from the ± spread here"
    else:
        verdict = "holds here" if gap > 0 else "is not borne out here"
    return (f"The paper's claim on these data: {level}; {change}. That {method} loses the "
            f"least {verdict}.")


def within_spread(difference, spreads):
    """The lesson's one rule for noise: a difference between ACCs (in points) is "within
    the ± spread" when it is no larger than the largest ± spread of the ACCs it is computed
    from (True), beyond it (False); None when one of those spreads is unknown.
    :data:`SPREAD_RULE` says it in words on the page."""
    if not spreads or any(s is None for s in spreads):
        return None
    return abs(difference) <= max(spreads)


#: :func:`within_spread` in words, under a comparison's lines.
SPREAD_RULE = (
    "**Within the ± spread**: each ACC's ± is how much it varies over repeated runs of the "
    "last grouping step. A difference between ACCs counts as noise (\"within the ± "
    "spread\") when it is no larger than the largest ± of the ACCs it is computed from: a "
    "change, of the method's two; a lead, of the two methods'.")


def _highest(table, rows, method, variant, spreads):
    """The claim's first part: which method has the highest ACC on ``variant`` (with
    ``method``'s beside it), or, when the top one is not ahead of the next by more than
    the ± spread (:func:`within_spread`), that the two are level."""
    col = f"{variant} %"
    order = table.sort_values(col, ascending=False, kind="stable")["method"].tolist()
    top, runner = order[0], order[1]
    a, b = rows[top][col], rows[runner][col]
    lead = within_spread(a - b, [spreads.get(top), spreads.get(runner)])
    mine = "" if method in (top, runner) else f"; {method} {rows[method][col]:.2f} %"
    if lead:
        return (f"{top} and {runner} are level on the highest ACC {variant}: {top}'s "
                f"{a:.2f} ± {spreads[top]:.2f} % is {a - b:.2f} points above {runner}'s "
                f"{b:.2f} ± {spreads[runner]:.2f} %, within the ± spread{mine}")
    if lead is None:  # no spreads to tell a lead from noise
        return (f"{method} has the highest ACC {variant} ({a:.2f} %)" if top == method else
                f"{top} has the highest ACC {variant} ({a:.2f} %, {method} "
                f"{rows[method][col]:.2f} %)")
    beyond = "more than the ± spread"
    if runner == method:
        return (f"{top} has the highest ACC {variant} ({a:.2f} %, {a - b:.2f} points above "
                f"{method}'s {b:.2f} %, {beyond})")
    return (f"{top} has the highest ACC {variant} ({a:.2f} %, {a - b:.2f} points above "
            f"{runner}'s {b:.2f} %, {beyond}{mine})")


def _acc_spreads(table):
    """Each method's ACC spread (std over the k-means runs) in points, by method name;
    empty when the table has none."""
    if "acc_std" not in table:
        return {}
    return {m: 100 * float(s) for m, s in zip(table["method"], table["acc_std"])
            if s == s}  # NaN: no spread known


#: What the comparison table's "post-processing" column means, in words (under the table).
POSTPROCESSING_NOTE = (
    "**post-processing**: what is done to the table of who resembles whom (Z*, or SSC-AVG's "
    "average) before the last grouping step. \"scale columns\" divides each digit's links "
    "by its strongest one, so that every digit's links are on the same scale, whether it "
    "resembles the others strongly or weakly; \"none (the paper's)\" uses the table as it "
    "is; \"—\": the method has no such table.")

#: How to read the ROC curve and the table beside it, in words (under them).
ROC_NOTE = (
    "**Reading the ROC curve.** Sort a view's digits from the lowest weight up and flag them "
    "one by one. Each point of the curve says, at some place in that list, what share of "
    "the corrupted digits has been flagged (up: *true positive rate*) against what share of "
    "the clean digits has been flagged by mistake (right: *false positive rate*). A good "
    "curve climbs straight up first and hugs the top-left corner (AUC near 1); the dotted "
    "diagonal is what a random order would give (AUC 0.5). **Average precision** asks the "
    "same list another way: at each corrupted digit, the share of corrupted ones among all "
    "flagged so far, averaged; 1 when every corrupted digit comes before every clean one, "
    "and about the share of corrupted digits by chance.")

def heatmap_note(weights, outlier_mask, view_names):
    """How to read the weights heatmap (:func:`rmsc.figures.pooled_weights_heatmap_figure`
    of :func:`rmsc.inspection.heatmap_pool`), in words under it: the columns are sorted
    lowest weight first within each class, so compare marked columns with unmarked ones
    of the same class; and, computed from ``weights`` (n_views x n_samples) and
    ``outlier_mask``, that a clean view's row can be dark: the clean view with the largest
    share of samples drawn dark (relative weight below
    :data:`rmsc.inspection.DARK_RELATIVE`), with that share. None without outliers."""
    if outlier_mask is None or not np.asarray(outlier_mask).any():
        return None
    P = np.asarray(weights, dtype=float)
    mask = np.asarray(outlier_mask, bool)
    dark = relative_weights(P) < DARK_RELATIVE
    text = ("**Reading the heatmap.** Within each class the columns are sorted by the digit's "
            "lowest weight in any view, lowest first, so every row tends to be darker at the "
            "left of each class: compare a marked column with the unmarked columns of the "
            "same class, not the left of the heatmap with the right.")
    clean = [v for v in range(P.shape[0]) if not mask[v].any()]
    if clean:
        v = max(clean, key=lambda v: dark[v].mean())
        if dark[v].any():
            text += (f" A row can be dark where nothing was corrupted: {view_names[v]} is "
                     f"clean, yet {_pct(dark[v].mean())} of its digits have a weight below "
                     f"{DARK_RELATIVE:g} × its median (drawn dark): digits {view_names[v]} "
                     "rebuilds less well than its usual one, corrupted or not.")
    return text


#: The Lesson page's table of each view's part of the weights: the columns of
#: :func:`rmsc.dashboard.fitting.weight_shares_table` that :func:`weight_note` speaks of, each
#: with what it means in plain words (the heading's tooltip).
SHARE_COLUMNS = {
    "view": "the view (one way of describing the digits)",
    "features": "how many numbers the view uses to describe each sample",
    f"{SHARE_LABEL} %": "how much the view counts in Z*: its samples' weights P, times the "
                        "view's scale c_v, as a share of all views' total",
    "samples at the cap %": "the share of the view's samples whose weight is at (or near) its "
                            "ceiling 1/√γ: rebuilt from the other samples almost exactly",
    "median loss": "the typical error left over when the view's samples are rebuilt from the "
                   "others (the smaller, the larger the weight)",
}


def weight_note(shares, facts):
    """The lesson's plain-words note on each view's part of the weights, computed from the
    numbers of the table beside it (``shares``, :func:`rmsc.inspection.view_weight_shares`)
    and :func:`rmsc.inspection.dominance_facts` of the same fit (``facts``; None when no
    view carries most of the weight): what a weight is, how much the top view counts
    against an equal share, and, where they hold, why: its samples are the easiest to
    rebuild, many sit at the ceiling, its view scale c_v is the largest, it has the fewest
    features (so its weight says it is easy to rebuild, not that it tells the classes
    apart). The Weights page says the same facts in the library's terms
    (:func:`rmsc.inspection.dominance_message`)."""
    what = ("A weight says how well the other samples rebuild a sample in a view: the "
            "smaller the error left over (\"median loss\" gives each view's typical one), "
            "the larger the weight, up to a ceiling set by γ.")
    if facts is None:
        if not shares:
            return None
        top = max(shares, key=lambda r: r["share"])
        return (f"{what} No view has most of the say in Z* here: the largest "
                f"\"{SHARE_LABEL}\" is {top['view']}'s, {_pct(top['share'])} (an equal "
                f"share would be {_pct(1 / len(shares))}).")
    f = facts
    view = f["view"]
    text = [what,
            f"{view} has {_pct(f['share'])} of the say in Z* (\"{SHARE_LABEL}\"), where an "
            f"equal share would be {_pct(f['equal'])} of {f['n_views']} views."]
    cap = (f"{_pct(f['at_cap'])} of its samples are rebuilt so well that their weight sits "
           "at the ceiling (\"samples at the cap\")")
    if f["loss_ratio"] is not None:
        text.append(f"Its samples are the easiest to rebuild: its median loss, "
                    f"{f['median_loss']:.3g}, is {ratio_text(f['loss_ratio'])} times below "
                    f"the other views' median ({f['other_loss']:.3g})"
                    + (f", and {cap}." if f["at_cap"] > 0 else "."))
    elif f["at_cap"] > 0:
        text.append(f"{cap}.")
    if f["factor_ratio"] is not None:
        text.append(f"On top of that, RMSC gives each view a scale c_v from the size of its "
                    f"errors at the start, and {view}'s is "
                    f"{ratio_text(f['factor_ratio'])} times the other views' median: each of "
                    f"its weights counts that many times more.")
    if f["other_features"] is not None:
        rest = other_features_text(f)
        text.append(f"{view} has the fewest features ({f['n_features']}; {rest}): with so "
                    f"few numbers per sample, almost any sample is nearly an exact mix of a "
                    f"few others, whatever its class. So {view}'s large weight says it is "
                    f"easy to rebuild, not that it tells the classes apart.")
    return " ".join(text)


def _pct(share):
    """A share (0-1) as the lesson writes percentages: whole, with a space ("89 %")."""
    return f"{100 * share:.0f} %"
