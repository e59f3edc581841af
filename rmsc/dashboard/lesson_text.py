"""What the Lesson page says about the numbers on screen, computed from them.

A comparison's lines (:func:`change_sentences`: each method's change with the outliers,
within the ± spread or not; :func:`claim_sentence`: the paper's claim checked on the same
tables), step 6's plain-words note on each view's part of the weights (:func:`weight_note`,
from :func:`rmsc.inspection.dominance_facts`, the numbers behind the Weights page's
sentence) with its table's columns (:data:`SHARE_COLUMNS`), and the words under a
comparison's table and a ROC curve (:data:`POSTPROCESSING_NOTE`, :data:`ROC_NOTE`).
:mod:`rmsc.dashboard.lesson` re-exports them.
"""

from __future__ import annotations

from ..inspection import SHARE_LABEL, ratio_text
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
        noise = "within" if abs(change) <= max(sd) else "more than"
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
    dirty = f"{names[1]} %"
    top = table.loc[table[dirty].idxmax(), "method"]
    level = (f"{method} has the highest ACC {names[1]} ({mine[dirty]:.2f} %)" if top == method
             else f"{top} has the highest ACC {names[1]} ({rows[top][dirty]:.2f} %, "
                  f"{method} {mine[dirty]:.2f} %)")
    others = table[table["method"] != method]
    rival = others.loc[others["change (points)"].idxmax(), "method"]
    gap = mine["change (points)"] - rows[rival]["change (points)"]
    sd = [s.get(m) for s in spreads for m in (method, rival)]
    noise = None if any(v is None for v in sd) else max(sd)
    mine_c, rival_c = mine["change (points)"], rows[rival]["change (points)"]
    if gap > 0:
        change = (f"the best change is {method}'s ({mine_c:+.2f} points; next {rival}, "
                  f"{rival_c:+.2f})")
    else:
        change = f"the best change is {rival}'s ({rival_c:+.2f} points, {method} {mine_c:+.2f})"
    if noise is not None and abs(gap) <= noise:
        verdict = "cannot be told from the ± spread here"
    else:
        verdict = "holds here" if gap > 0 else "is not borne out here"
    return (f"The paper's claim on these data: {level}; {change}. That {method} loses the "
            f"least {verdict}.")


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
        lo, hi = f["other_features"]
        rest = (f"the other {lo}" if f["n_views"] == 2 else
                f"the others {lo}" if lo == hi else f"the others {lo}–{hi}")
        text.append(f"{view} has the fewest features ({f['n_features']}; {rest}): with so "
                    f"few numbers per sample, almost any sample is nearly an exact mix of a "
                    f"few others, whatever its class. So {view}'s large weight says it is "
                    f"easy to rebuild, not that it tells the classes apart.")
    return " ".join(text)


def _pct(share):
    """A share (0-1) as the lesson writes percentages: whole, with a space ("89 %")."""
    return f"{100 * share:.0f} %"
