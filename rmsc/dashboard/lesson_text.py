"""What the Lesson page says about the numbers on screen, computed from them.

A comparison's lines (:func:`change_sentences`: each method's change with the outliers,
within the ± spread or not; :func:`claim_sentence`: the paper's claim checked on the same
tables), step 6's plain-words note on each view's part of the weights (:func:`weight_note`,
from :func:`rmsc.dominance.dominance_facts`, the numbers behind the Weights page's
sentence) with its table's columns (:data:`SHARE_COLUMNS`), and the words under a
comparison's lines and table, the weights heatmap and a ROC curve (:data:`SPREAD_RULE`,
:data:`POSTPROCESSING_NOTE`, :func:`heatmap_note`, :data:`ROC_NOTE`), and the closing
step's "what this run shows" (:func:`takeaway_sentences`, over :func:`claim_facts`, with
:func:`detection_kind` and :func:`gain_sentence`); why ACC and NMI move apart
(:data:`SCORES_NOTE`), the methods spelled out (:func:`method_lines`), and
differing post-processing (:func:`postprocessing_difference`), a slider's largest ACC move
(:func:`slider_sentence`) and which fit step 6's share table is (:func:`shares_heading`).
Every difference a sentence states is one of the values as shown (two decimals,
:func:`rmsc.dashboard.runs.robustness_table`, :func:`acc_spreads`), judged by the rule for
noise of :mod:`rmsc.dashboard.lesson_rules` (what ± is, when a difference is noise, and how
it is worded).
:mod:`rmsc.dashboard.lesson` re-exports them.
"""

from __future__ import annotations

import numpy as np

from ..dominance import directions_text
from ..inspection import (DARK_RELATIVE, P_SHARE_LABEL, SHARE_LABEL, ratio_text,
                          relative_weights)
from ..methods import describe_method
from .fitting import PAGE_TRACE_EVERY, VIEW_SCALE_LABEL
from .lesson_rules import (  # noqa: F401 - NARROW, SPREAD_*: re-exported to rmsc.dashboard.lesson
    LITTLE_RULE, LITTLE_SHARE, NARROW, SPREAD_LIMIT, SPREAD_MEANING, SPREAD_NOTE, SPREAD_RULE,
    acc_spreads, beyond_words, change_spread, changes_within_spread, counts_little, gap_words,
    share_pct, within_spread)
from .runs import SHOWN_DECIMALS, robustness_table
from .tables import scale_plan


def change_sentences(tables):
    """One sentence per method of a comparison on the clean data and with the outliers,
    computed from its tables: its ACC on each and the change in points; where the tables
    have ``acc_std``, each ACC's ± spread (over the k-means runs) and whether the change is
    within the larger of the two spreads (noise) or beyond it."""
    names = list(tables)
    if len(names) != 2:
        return []
    table = robustness_table(tables)
    spreads = [acc_spreads(tables[name]) for name in names]
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
        noise = ("within the ± spread" if within_spread(change, sd)
                 else beyond_words(change, sd))
        out.append(f"{row['method']}: ACC {clean:.2f} ± {sd[0]:.2f} % on the {names[0]} data, "
                   f"{dirty:.2f} ± {sd[1]:.2f} % {names[1]}: {verb} {abs(change):.2f} points, "
                   f"{noise}.")
    return out


def claim_facts(tables, method="RMSC"):
    """The numbers behind the paper's claim (``method``, weighting every sample in every
    view, loses the least to the outliers) on a comparison's tables: a dict with
    ``method``, ``rival`` (the other method with the best change), ``changes`` (method ->
    change in points), ``noise`` (method -> whether its change is within the ± spread,
    :func:`within_spread`; None without spreads), ``spread`` (method -> its change's ±,
    :func:`change_spread`), ``gap`` (``method``'s change minus the rival's), ``verdict``
    ("holds", "not borne out" or "cannot be told": the gap within the two changes' ±
    added up, :func:`changes_within_spread`), ``worst`` (the lowest change's method and
    those level with it, lowest first), ``between`` (each of those but the lowest that is
    also level with a method apart from the lowest -> those methods), ``highest`` (the
    claim's first part in words) and ``variants`` (the two tables' names). None unless the tables are a clean and
    an outliers variant holding ``method`` and at least one other method."""
    names = list(tables)
    if len(names) != 2:
        return None
    table = robustness_table(tables).dropna(subset=["change (points)"])
    if method not in set(table["method"]) or len(table) < 2:
        return None
    spreads = [acc_spreads(tables[name]) for name in names]
    rows = {row["method"]: row for _, row in table.iterrows()}
    others = table[table["method"] != method]
    rival = others.loc[others["change (points)"].idxmax(), "method"]
    changes = {m: float(r["change (points)"]) for m, r in rows.items()}
    spread = {m: change_spread([s.get(m) for s in spreads]) for m in changes}
    gap = round(changes[method] - changes[rival], SHOWN_DECIMALS)  # of the shown changes
    # each change carries its own ±: two changes are apart when their ranges do not overlap
    noise = changes_within_spread(gap, spread[method], spread[rival])
    verdict = ("cannot be told" if noise else "holds" if gap > 0 else "not borne out")

    def level(a, b):  # two changes within their two ± added up
        return changes_within_spread(changes[a] - changes[b], spread[a], spread[b]) is True

    order = sorted(changes, key=changes.get)
    worst = [order[0]] + [m for m in order[1:] if level(m, order[0])]
    apart = [m for m in order if m not in worst]
    return {"method": method, "rival": rival, "changes": changes, "gap": gap,
            "spread": spread, "gap_words": None if noise is not False else gap_words(
                gap, spread[method], spread[rival]),
            "worst": worst,
            # level is not transitive: a tied method can be level with one the lowest is not
            "between": {m: [r for r in apart if level(m, r)] for m in worst[1:]
                        if any(level(m, r) for r in apart)},
            "noise": {m: within_spread(c, [s.get(m) for s in spreads])
                      for m, c in changes.items()},
            "verdict": verdict, "variants": names,
            "highest": _highest(table, rows, method, names[1], spreads[1])}


def claim_sentence(tables, method="RMSC", closing=True):
    """The paper's claim (``method``, weighting every sample in every view, loses the least
    to the outliers) checked on a comparison's tables, in short sentences computed from them
    (:func:`claim_facts`): which method has the highest ACC with the outliers, whose change
    is the best (gained the most or lost the least), and whether the claim holds, is not
    borne out, or cannot be told from the ± spread. Worded for gains as well as losses
    ("changes least for the worse"); ``closing``: a later closing step sums this run up
    (:data:`CLAIM_ASKS_MORE` said). None where :func:`claim_facts` is None."""
    f = claim_facts(tables, method)
    if f is None:
        return None
    rival = f["rival"]
    mine_c, rival_c = f["changes"][method], f["changes"][rival]
    if f["gap"] > 0:
        change = (f"The best change is {method}'s ({mine_c:+.2f} points; next {rival}, "
                  f"{rival_c:+.2f}).")
    else:
        change = f"The best change is {rival}'s ({rival_c:+.2f} points, {method} {mine_c:+.2f})."
    verdict = {"cannot be told": "cannot be told from the ± spread here",
               "holds": "holds here", "not borne out": "is not borne out here"}[f["verdict"]]
    apart = ""
    if f["gap_words"]:
        apart = f" The two changes are {abs(f['gap']):.2f} points apart, {f['gap_words']}."
    luck = ""
    if f["verdict"] == "not borne out" and rival in gainers(tables):
        luck = (f" This rests on {rival}'s gain, which the line above says can be the luck "
                f"of this one draw: another seed may not repeat it.")
    worst = worst_words(f)
    return (f"**The paper's claim, judged on the ACC changes alone.** {f['highest']} "
            f"{change} {worst[0].upper()}{worst[1:]}. The claim, that {method}'s ACC fares "
            f"best under the outliers (the smallest loss, or the largest gain), "
            f"{verdict}.{apart}{luck}"
            + (f" {CLAIM_ASKS_MORE}" if closing else ""))


#: What the claim's line on the ACC alone leaves to the closing step (said after it).
CLAIM_ASKS_MORE = ("Whether this run could show the claim at all (did the corrupted views "
                   "count in Z*?) is the closing step's question.")


def worst_words(facts):
    """Which method fared worst under the outliers (:func:`claim_facts`' ``worst``), said
    as the question asks it: the one that lost the most, or, when every change is a gain,
    gained the least ("worst" of two gains read odd, the seventeenth cold reading). When
    other changes are level with the lowest by :func:`changes_within_spread` (no further
    apart than their two ± added up), that they are within noise of it, so none of them
    fared worse; when every change is, that none fared worst beyond the noise. Level is
    not transitive: where a tied method is also level with a method the lowest is apart
    from (``between``), the pairs within noise are named, and which changes alone are told
    apart (RMSC-WV's +0.85, level with RMSC's +0.02, is level with SSC-AVG's +7.73 too)."""
    worst, changes = facts["worst"], facts["changes"]
    low = worst[0]
    did = (f"{low} gained the least" if changes[low] >= 0 else f"{low} lost the most") + (
        f" ({changes[low]:+.2f})")
    if len(worst) == 1:
        known = all(s is not None for s in facts["spread"].values())  # no ±: no noise
        return f"{did}: it fared worst" + (", beyond the noise" if known else "")
    if len(worst) == len(changes):  # the best change among them too ("tie for the worst" read odd)
        return (f"no method fared worst beyond the noise: {listing(worst, changes)} are each "
                "no further from the lowest change than their two ± added up")
    others = worst[1:]
    text = (f"{did}, but the {_noun(others, changes)} of {listing(others, changes)} "
            f"{'is' if len(others) == 1 else 'are'} within noise of it (no further apart "
            "than their two ± added up), so "
            + ("neither fared worse than the other" if len(others) == 1
               else "none of them fared worse than the others"))
    between = facts.get("between") or {}
    if not between:
        return text
    also = "; ".join(f"{m}'s {_noun([m], changes)} is also within noise of "
                     f"{_owned(rs, changes)}"
                     for m, rs in between.items())
    upper = list(dict.fromkeys(r for rs in between.values() for r in rs))
    alone = [m for m in worst if not set(between.get(m, ())) & set(upper)]
    return (f"{text}. {also}: only {_owned(alone)} "
            f"{'change is' if len(alone) == 1 else 'changes are'} told apart from "
            f"{_owned(upper)}")


def _noun(methods, changes):
    """"gain", "loss" or "change" (plural for several ``methods``): what their changes are."""
    kind = ("gain" if all(changes[m] >= 0 for m in methods) else
            "loss" if all(changes[m] < 0 for m in methods) else "change")
    return kind if len(methods) == 1 else {"gain": "gains", "loss": "losses"}.get(kind, "changes")


def _owned(methods, changes=None):
    """Methods as owners ("SSC-AVG's", "A's and B's"), each with its change in points
    when ``changes`` are given ("SSC-AVG's (+7.73)")."""
    items = [f"{m}'s" + ("" if changes is None else f" ({changes[m]:+.2f})") for m in methods]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def listing(methods, changes):
    """Methods with their changes in points, in words ("A (+1.00) and B (−2.00)")."""
    items = [f"{m} ({changes[m]:+.2f})" for m in methods]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def comparison_sentences(tables, claim=None, first=None, closing=True):
    """A 'compare' step's lines: each method's change (:func:`change_sentences`), then,
    when some method gained beyond the ± spread under the outliers, what that can mean
    (:func:`gain_sentence`, the closing step's own line), then on a step with a ``claim``
    the paper's claim for that method (:func:`claim_sentence`, with ``closing``). The
    gain's line is said in full on the first step on the run (``first``; None: a step
    without a claim), briefly on a later one (:func:`gain_reminder`); the lesson's page
    takes both from :func:`rmsc.dashboard.lesson_summary.run_context`."""
    out = change_sentences(tables)
    gained = gainers(tables)
    if gained:
        full = claim is None if first is None else first
        out.append(gain_sentence(gained) if full else gain_reminder(gained))
    if claim is not None and (line := claim_sentence(tables, claim, closing)):
        out.append(line)
    return out


def gainers(tables):
    """The methods whose ACC rose beyond the ± spread from a comparison's clean table to
    its outliers table (:func:`within_spread`); empty for any other comparison."""
    names = list(tables)
    if len(names) != 2:
        return []
    spreads = [acc_spreads(tables[name]) for name in names]
    table = robustness_table(tables).dropna(subset=["change (points)"])
    return [m for m, c in zip(table["method"], table["change (points)"])
            if c > 0 and within_spread(c, [s.get(m) for s in spreads]) is False]




def method_lines(methods):
    """Each method's name spelled out, one line each, from the registry's one description
    (:func:`rmsc.methods.describe_method`): what the lesson says under a comparison."""
    return [f"**{m}**: {describe_method(m)}" for m in methods]


def _highest(table, rows, method, variant, spreads):
    """The claim's first part: which method has the highest ACC on ``variant`` (with
    ``method``'s beside it), or, when the top one is not ahead of the next by more than
    the ± spread (:func:`within_spread`), that the two are level."""
    col = f"{variant} %"
    order = table.sort_values(col, ascending=False, kind="stable")["method"].tolist()
    top, runner = order[0], order[1]
    a, b = rows[top][col], rows[runner][col]  # as shown (robustness_table rounds them)
    lead = within_spread(a - b, [spreads.get(top), spreads.get(runner)])
    mine = ("" if method in (top, runner) else
            f" {method} has {rows[method][col]:.2f} % {variant}.")
    if lead:
        return (f"{top} and {runner} are level on the highest ACC {variant}: {top}'s "
                f"{a:.2f} ± {spreads[top]:.2f} % is {a - b:.2f} points above {runner}'s "
                f"{b:.2f} ± {spreads[runner]:.2f} %, within the ± spread.{mine}")
    if lead is None:  # no spreads to tell a lead from noise
        return (f"{method} has the highest ACC {variant} ({a:.2f} %)." if top == method else
                f"{top} has the highest ACC {variant} ({a:.2f} %). {method} has "
                f"{rows[method][col]:.2f} % {variant}.")
    beyond = beyond_words(a - b, [spreads[top], spreads[runner]])
    return (f"{top} has the highest ACC {variant} ({a:.2f} %), {a - b:.2f} points above "
            f"{runner}'s {b:.2f} %, {beyond}.{mine}")




#: What the comparison table's "post-processing" column means, in words (under the table).
POSTPROCESSING_NOTE = (
    "**post-processing**: what is done to the table of who resembles whom (Z*, or SSC-AVG's "
    "average) before the last grouping step. \"scale columns\" divides each digit's links "
    "by its strongest one, so that every digit's links are on the same scale, whether it "
    "resembles the others strongly or weakly; \"none (the paper's)\" uses the table as it "
    "is; \"—\": the method has no such table.")

def postprocessing_difference(shown):
    """A line for the step's main text when the methods of a comparison table (``shown``:
    its "method" and "post-processing" columns, :func:`rmsc.dashboard.runs.compare_display`,
    from each method's parameters) did not all post-process their tables alike: which did
    what, and that the comparison is then not like for like. None when they agree, or only
    one has a table."""
    used = postprocessing_by_method(shown)
    if used is None:
        return None
    said = "; ".join(f"{m}'s \"{p}\"" for m, p in used.items())
    return (f"**Not like for like.** The methods' tables are post-processed differently here "
            f"({said}; the note under the table says what each does): each method runs as "
            "the library ships it, so part of a gap between them can come from this step "
            "rather than from how they use the views. The Compare page can give every "
            "method the same post-processing.")


def postprocessing_by_method(shown):
    """``{method: post-processing}`` of the methods in ``shown`` that have a table, or None
    when they all post-process alike (or only one has a table)."""
    used = {m: p for m, p in zip(shown["method"], shown["post-processing"]) if p != "—"}
    return used if len(set(used.values())) >= 2 else None


#: What a comparison table's time is, beside the sidebar's (under the table and in the time
#: column's tooltip): two separate runs of RMSC, timed each on its own.
TIME_NOTE = (
    "**time s (this run)**: the seconds each method's fit took in this comparison's run. The "
    "sidebar's \"Fit\" box times another run: RMSC's own fit for the other pages, which also "
    f"groups Z* every {PAGE_TRACE_EVERY} iterations to draw the Solve page's curve and may "
    "run while other fits share the machine; the same data, parameters and seed give the "
    "same ACC, not the same seconds.")


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
    "and about the share of corrupted digits by chance. The two can differ a lot: AUC "
    "counts, for each corrupted digit, how many clean ones it comes before, so a few clean "
    "digits with very low weights barely lower it, while average precision drops as soon "
    "as clean digits head the list; with few corrupted digits, average precision is the "
    "stricter of the two.")

#: What the four scores are, and why ACC and NMI can move apart (under a comparison's table).
SCORES_NOTE = (
    "**ARI** (adjusted Rand index) asks, for every pair of digits, whether the groups and "
    "the classes agree on putting them together or apart, corrected so that random groups "
    "score 0; **purity** gives each group its most common class and counts the digits of "
    "that class. **ACC and NMI**: ACC counts digits in a group matched to the wrong class, so two "
    "classes merged into one group cost it a whole class; NMI asks how much a digit's group "
    "tells about its class without matching groups to classes one to one, so the same "
    "merge costs it much less. That is why ACC can differ by many points where NMI barely "
    "moves.")

def heatmap_note(weights, outlier_mask, view_names):
    """How to read the weights heatmap (:func:`rmsc.figures.pooled_weights_heatmap_figure`
    of :func:`rmsc.inspection.heatmap_pool`), in words under it: the columns are sorted
    lowest weight first within each class, so compare marked columns with unmarked ones
    of the same class; and, computed from ``weights`` (n_views x n_samples) and
    ``outlier_mask``, whether a column is one digit or pools a few (the page's
    :func:`rmsc.dashboard.tables.scale_plan`), and that a clean view's row can be dark: the
    clean view with the largest
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
    n, columns = P.shape[1], scale_plan(P.shape[1]).weight_columns  # as the page draws it
    text += (f" Here each column is one digit (all {n:,} are drawn)." if n <= columns else
             f" Here, with {n:,} digits and {columns:,} columns, a column stands for about "
             f"{n / columns:.0f} digits of one class, drawn at the lowest of their weights.")
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
    f"{SHARE_LABEL} %": "the view's weight in the average of the views' tables that Z* is "
                        "made from (it caps how far its table can move Z*): its samples' "
                        "weights P, times the view's scale cᵥ, as a share of all views' total",
    f"{P_SHARE_LABEL} %": "this fit's weights P alone, this software's view scale cᵥ "
                          "left out, as a share of all views' total (not a fit of the "
                          "paper's model, whose weights differ: step 7)",
    "samples at the cap %": "the share of the view's samples whose weight is at (or near) its "
                            "ceiling 1/√γ: rebuilt from the other samples almost exactly",
    "median loss": "the typical error left over at the fit's end when the view's samples are "
                   "rebuilt from the others (the smaller, the larger the weight)",
    VIEW_SCALE_LABEL: "the per-view scale cᵥ each of the view's weights is multiplied by in "
                      "Z*, set from the size of the view's errors at the start of the fit, not "
                      "from its median loss at the end (1 for every view in the paper's "
                      "model)",
}


def weight_note(shares, facts):
    """The lesson's plain-words note on each view's part of the weights, from the table
    beside it (``shares``, :func:`rmsc.inspection.view_weight_shares`) and
    :func:`rmsc.dominance.dominance_facts` of the same fit (``facts``; None when no view has
    most of the weight): what a weight is, the top view's share against an equal one, and
    where they hold why: the easiest samples to rebuild, many at the ceiling, the largest
    c_v, the spread along the fewest directions (:func:`rmsc.dominance.directions_text`,
    when ``facts`` were measured with the views' spread)."""
    what = ("A weight says how well the other samples rebuild a sample in a view: the "
            "smaller the error left over (\"median loss\" gives each view's typical one at the "
            "fit's end), "
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
        text.append(f"On top of that, this software's RMSC gives each view a scale cᵥ from "
                    f"the size of its errors at the start, before anything is learned (1 over "
                    f"its median loss then, not the \"median loss\" at the fit's end; the "
                    f"paper's model has none: cᵥ = 1), and {view}'s is "
                    f"{ratio_text(f['factor_ratio'])} times the other views' median "
                    f"(\"{VIEW_SCALE_LABEL}\"): each of "
                    f"its weights counts that many times more.")
    reason = directions_text(f, pct=_pct, pc1="its first principal direction (the Data "
                             "page's PC1)")
    if reason is not None:  # why it is easy to rebuild, where the view's spread says so
        text.append(reason)
    return " ".join(text)


#: A view's table "follows" Z* when it differs from it by less than this share of Z*'s size
#: (:meth:`rmsc.RMSC.consensus_gaps`).
FOLLOWS_GAP = 0.1

#: A table's size (:meth:`rmsc.RMSC.consensus_gaps`' norm) in plain words.
SIZE_WORDS = "size: the square root of the sum of all entries squared, for the difference as for Z*"


def echo_note(facts, gap, alone, acc, shares=None):
    """Why the top view's large share of ΣcᵥP (``facts``:
    :func:`rmsc.dominance.dominance_facts`) does not make Z* that view's picture, in at
    most three plain sentences computed from the fit (the seventeenth cold reading only
    half followed a denser paragraph): ``gap``, how far that view's own table Zᵛ inside the
    fit is from Z* (:meth:`rmsc.RMSC.consensus_gaps`, a share of Z*'s size: below
    :data:`FOLLOWS_GAP` it sits on Z*, and a copy of an average, however heavily weighted,
    leaves the average where it is); ``alone``, the view's ACC clustered on its own
    (:func:`rmsc.inspection.view_quality`, 0-1); ``acc``, RMSC's ACC (0-1); ``shares``
    (:func:`rmsc.inspection.view_weight_shares` of the fit), to name the views that shape
    Z*. Each part is said only when its number is at hand; None without ``facts`` or with
    neither number."""
    if facts is None or (gap is None and alone is None):
        return None
    view = facts["view"]
    text = [f"**Why {view}'s {_pct(facts['share'])} share does not make Z\\* what "
            f"{view} alone shows.**"]
    if gap is not None:
        own = (f"{view}'s own table (who resembles whom in {view} alone, pulled towards Z* "
               "by λ)")
        far = f"{100 * gap:.1f} % of Z*'s size ({SIZE_WORDS})"
        if gap < FOLLOWS_GAP:
            text.append(f"Z* is made from an average of the views' tables, weighted by these "
                        f"shares, and at the fit's end {own} sits on Z*: it differs from Z* "
                        f"by only {far}. Averaging in a copy of the average leaves the "
                        "average where it is, however large its weight, so what Z* looks "
                        "like comes from the tables that differ from it"
                        f"{rest_words(shares, view)}.")
            little = little_words(shares, view)
            if little:
                text.append(little)
        else:
            text.append(f"At the fit's end {own} differs from Z* by {far}.")
    if alone is not None and acc is not None:
        how = "much less well" if acc - alone > 0.1 else (
            "less well" if alone < acc else "as well or better")
        text.append(f"On its own {view} tells the classes apart {how}: its data alone, "
                    f"clustered as SC-BSV clusters each view, reach ACC {100 * alone:.2f} %, "
                    f"against RMSC's {100 * acc:.2f} % with all views.")
    return " ".join(text)


def rest_words(shares, top):
    """The views other than ``top`` with their shares of ΣcᵥP, largest first, as the end
    of :func:`echo_note`'s sentence (", the other views' (FAC 7.5 %, ZER 2.2 % ...)");
    "" without ``shares``."""
    rest = sorted((s for s in shares or [] if s["view"] != top), key=lambda s: -s["share"])
    if not rest:
        return ""
    return (", the other views' ("
            + ", ".join(f"{s['view']} {100 * s['share']:.1f} %" for s in rest) + ")")


def little_words(shares, top):
    """One sentence reconciling :func:`echo_note` with the rule steps 5, 7 and 8 judge
    shares by (:data:`LITTLE_RULE`): which views but ``top`` count little by it, and that
    the views but ``top`` shape Z* together all the same, since ``top``'s table adds
    nothing new: each by its part of what they carry together (the second yardstick,
    :func:`rmsc.dashboard.lesson_rules.rest_part`). None when none of them counts little
    or without ``shares``."""
    by_view = {s["view"]: s["share"] for s in shares or []}
    rest = sorted((v for v in by_view if v != top), key=lambda v: -by_view[v])
    little = [v for v in rest if counts_little(by_view[v], 1, len(by_view))]
    if not little:
        return None
    who = (f"every view but {top} counts" if little == rest else
           (", ".join(little[:-1]) + " and " if len(little) > 1 else "") + little[-1]
           + (" count" if len(little) > 1 else " counts"))
    return (f"By the rule steps 5, 7 and 8 judge shares by ({LITTLE_RULE}: under "
            f"{share_pct(LITTLE_SHARE / len(by_view))} here), {who} little; yet, as "
            f"{top}'s table adds nothing new, the views other than {top} shape Z* together, "
            f"each by its part of the {share_pct(sum(by_view[v] for v in rest))} they carry.")


def _pct(share):
    """A share (0-1) as the lesson writes percentages: whole, with a space ("89 %")."""
    return f"{100 * share:.0f} %"


def gain_reminder(gained):
    """:func:`gain_sentence` in one line, for a step after the one that said it in full."""
    return (f"**A gain from corrupted data?** {' and '.join(gained)}'s ACC rose beyond the ± "
            "spread with the outliers; as the first step on this run says, corruption adds "
            "nothing about the classes, so that can be the luck of this one draw.")


def gain_sentence(gained):
    """What a gain beyond the ± spread under the outliers can and cannot mean (``gained``:
    the methods that gained so, :func:`within_spread`), in words true of any run: the
    corruption adds no information about the classes; the ± covers only the k-means runs
    of the last grouping step within each fit (:data:`SPREAD_MEANING`), not the draw of
    the outliers nor how far the clean result would move on other samples, so the gain can
    be this draw's luck (or a side effect one run cannot tell from luck); another seed
    tells."""
    who = " and ".join(gained)
    return (f"**A gain from corrupted data?** The ACC of {who} rose by more than the ± "
            "spread with the outliers. Corrupting samples takes information about the classes away "
            "and adds none, so this cannot mean that the outliers told the method more about "
            f"the classes. But {SPREAD_LIMIT}, nor how far the clean result itself would "
            "move on other samples of the same kind. So a gain "
            "beyond it can be the luck of this one draw (or a side effect of the corruption "
            "that one run cannot tell apart from luck). To see whether it comes back, change "
            "the injection's seed on the Data page and run again.")


def slider_sentence(table):
    """What moving a slider does most, from its table as the page shows it
    (:func:`rmsc.dashboard.lesson.slider_table_text`: ACC to 0.1, the density of Z* to
    0.01): between which two neighbouring stops ACC changes most, by how many points, and
    the density of Z* at both; when ACC falls as Z* thins, that too sparse a Z* keeps too
    few neighbours. None with fewer than two fitted stops."""
    name = table.columns[0]
    done = [r for _, r in table.iterrows() if r["ACC %"] != "—" and r["density of Z* %"] != "—"]
    if len(done) < 2:
        return None
    pairs = list(zip(done, done[1:]))
    a, b = max(pairs, key=lambda p: abs(float(p[1]["ACC %"]) - float(p[0]["ACC %"])))
    change = float(b["ACC %"]) - float(a["ACC %"])
    text = (f"**Where ACC moves most**: from {name} = {a[name]} to {b[name]}, ACC goes from "
            f"{a['ACC %']} % to {b['ACC %']} % ({change:+.1f} points) while the density of Z* "
            f"goes from {a['density of Z* %']} % to {b['density of Z* %']} %")
    if change < 0 and float(b["density of Z* %"]) < float(a["density of Z* %"]):
        text += (": too sparse a Z* keeps too few neighbours for each digit to hold its "
                 "class together.")
    else:
        text += "."
    return text


def shares_heading(symbol, value):
    """The heading of a 'solve' step's table of each view's part of the weights: which fit
    it belongs to (``symbol`` = ``value``, the slider's parameter where it has one)."""
    shown = f"{value:g}" if isinstance(value, (int, float)) else str(value)
    return (f"**Each view's part of the weights**, in the fit at {symbol} = {shown} (the "
            "slider's current value: the table follows it)")
