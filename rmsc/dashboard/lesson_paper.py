"""The lesson's fit of the paper's model, and the weights and NMI on a claim step no closing
step sums up.

The lesson's closing step says the corrupted views count little in Z*; their share rests
on this software's per-view scale cᵥ, which the paper's model lacks. So the lesson fits
the paper's model (:data:`rmsc.rmsc.PAPER_MODEL`: every cᵥ = 1, γ = 1e-5) once more on the
clean data (:func:`paper_params`, :func:`clean_params`, in the warm set of
:func:`rmsc.dashboard.lesson.warm_work`), and the closing step's "Who counts in Z*"
gives the corrupted views' share there (:func:`rmsc.dashboard.lesson_summary.takeaway_sentences`).

A 'compare' step checking a claim on a run no 'summary' step sums up (the shipped lesson's
step 8) carries that step's evidence itself (:func:`claim_evidence`): whether the weights
found the corrupted samples and how much the corrupted views count in Z* (the closing
step's own sentences), and NMI's change beside ACC's (:func:`nmi_sentence`).
"""

from __future__ import annotations

import numpy as np

from ..metrics import accuracy_split
from ..rmsc import PAPER_MODEL
from .lesson_support import support_of, support_sentence
from .lesson_summary import as_acc, detection_kind, detection_of, step_takeaway
from .lesson_text import acc_spreads, beyond_words, claim_facts, within_spread
from .runs import SHOWN_DECIMALS, robustness_table


def paper_params(params):
    """``params`` with the paper's model (:data:`rmsc.rmsc.PAPER_MODEL`)."""
    return params.replace(**PAPER_MODEL)


def clean_params(step):
    """The Params a step fits on its clean data besides those of steps before it: the
    paper's model for a 'summary' step (its "Who counts in Z*" compares the two)."""
    return [paper_params(step.params)] if step.show == "summary" else []


def _spreads(table, metric):
    """Each method's ± of ``metric`` in points, rounded as shown (the lesson's one formula,
    :func:`~rmsc.dashboard.lesson_text.acc_spreads`, read on the metric's column)."""
    column = f"{metric}_std"
    return acc_spreads(table.assign(acc_std=table[column])) if column in table else {}


def _kind(change, spreads):
    """A change's verdict by the lesson's rule for noise: "lost" or "gained" beyond the ±
    spread, "noise" within it, None when a spread is unknown."""
    noise = within_spread(change, spreads)
    if noise is None:
        return None
    return "noise" if noise else ("lost" if change < 0 else "gained")


_KIND_WORDS = {"lost": "lost beyond the ± spread", "gained": "gained beyond the ± spread",
               "noise": "changed within the ± spread"}


VERDICT_WORDS = {"holds": "holds", "not borne out": "is not borne out",
                  "cannot be told": "cannot be told from the ± spread"}


def nmi_claim(tables, method):
    """The paper's claim for ``method`` judged on the NMI changes by the rule ACC's are
    judged by (:func:`~rmsc.dashboard.lesson_text.claim_facts`), and whether ACC's verdict is
    the same; None without a claim to check."""
    acc, nmi = claim_facts(tables, method), claim_facts(as_acc(tables, "nmi"), method)
    if acc is None or nmi is None:
        return None
    rival, changes, spread = nmi["rival"], nmi["changes"], nmi["spread"]
    pair = f"{method}'s change {changes[method]:+.2f}, {rival}'s {changes[rival]:+.2f}"
    if nmi["gap_words"]:
        why = f"{pair}: {abs(nmi['gap']):.2f} points apart, {nmi['gap_words']}"
    elif nmi["verdict"] == "cannot be told" and None not in (spread[method], spread[rival]):
        why = (f"{pair}, no further apart than their two ± added up ({spread[method]:.2f} + "
               f"{spread[rival]:.2f})")
    else:
        why = pair
    said = f"On the NMI changes the paper's claim {VERDICT_WORDS[nmi['verdict']]}: {why}."
    return said + " " + verdict_pair(nmi["verdict"], acc["verdict"])


def verdict_pair(on_nmi, on_acc):
    """How NMI's verdict on the claim stands to ACC's, by the pair: the same; one score goes
    further than the other (the other "cannot be told": no disagreement, one is too noisy to
    tell); or the two disagree (one holds, the other is not borne out)."""
    if on_nmi == on_acc:
        return "The same verdict as on the ACC changes."
    acc_said = f"On the ACC changes it {VERDICT_WORDS[on_acc]}"
    if "cannot be told" in (on_nmi, on_acc):
        further, other = ("NMI", "ACC") if on_acc == "cannot be told" else ("ACC", "NMI")
        return (f"{acc_said}. So ACC and NMI do not contradict each other, but only "
                f"{further} gives a verdict: {other} is too noisy here to tell.")
    return f"{acc_said}: the two scores disagree on the claim."


def nmi_sentence(tables, claim=None):
    """NMI's change for each method of a comparison on the clean data and with the
    outliers, judged by the same rule for noise as ACC's (:func:`within_spread` on NMI's ±),
    where the two scores' verdicts differ, that they do, and with a ``claim`` the claim on
    NMI (:func:`nmi_claim`). None unless the tables are two variants with NMI."""
    names = list(tables)
    if len(names) != 2 or not all("nmi_mean" in t for t in tables.values()):
        return None
    acc, nmi = robustness_table(tables), robustness_table(tables, metric="nmi")
    acc_sd = [acc_spreads(tables[n]) for n in names]
    nmi_sd = [_spreads(tables[n], "nmi") for n in names]
    acc_change = dict(zip(acc["method"], acc["change (points)"]))
    parts, differ = [], {}  # (NMI's verdict, ACC's) -> the methods where they differ
    for _, row in nmi.iterrows():
        m, change = row["method"], row["change (points)"]
        if change != change:  # a method missing on one variant
            continue
        sd = [s.get(m) for s in nmi_sd]
        kind = _kind(change, sd)
        verb = "lost" if change < 0 else "gained"
        pm = ["" if s is None else f" ± {s:.2f}" for s in sd]
        words = (f"{m} {row[f'{names[0]} %']:.2f}{pm[0]} % → {row[f'{names[1]} %']:.2f}"
                 f"{pm[1]} %, {verb} {abs(change):.2f} points")
        if kind is None:
            parts.append(words + " (no ± spread known)")
            continue
        parts.append(words + (", within the ± spread" if kind == "noise"
                              else ", " + beyond_words(change, sd)))
        by_acc = _kind(acc_change[m], [s.get(m) for s in acc_sd])
        if by_acc is not None and by_acc != kind:
            differ.setdefault((kind, by_acc), []).append(f"{m}'s")
    if not parts:
        return None
    said = "**NMI beside ACC** (the orange bars of the charts): " + "; ".join(parts) + "."
    if differ:
        def clause(n, a, ms):
            who = ' and '.join(ms) if len(ms) < 3 else ', '.join(ms[:-1]) + ' and ' + ms[-1]
            return (f"{who} NMI {_KIND_WORDS[n]}, {'its' if len(ms) == 1 else 'their'} ACC "
                    f"{_KIND_WORDS[a]}")
        one = [clause(n, a, ms) for (n, a), ms in differ.items() if "noise" in (n, a)]
        both = [clause(n, a, ms) for (n, a), ms in differ.items() if "noise" not in (n, a)]
        if one:
            said += " Beyond the ± spread on one score only: " + "; ".join(one) + "."
        if both:
            said += (" The two scores moved opposite ways, each beyond its ± spread: "
                     + "; ".join(both) + ".")
        said = said[:-1] + (" (NMI scores the groups' agreement with the classes another "
                            "way, and can move apart from ACC).")
    else:
        said += " For every method NMI's verdict is ACC's."
    on_claim = None if claim is None else nmi_claim(tables, claim)
    return said if on_claim is None else f"{said} {on_claim}"


def split_acc(result, labels, mask):
    """A fit's ACC on the digits in ``mask`` and on the others, in points as shown, mean ±
    std over its k-means runs (the lesson's ±, :func:`~rmsc.dashboard.lesson_text.acc_spreads`),
    each run's groups matched to the classes once over all digits
    (:func:`rmsc.metrics.accuracy_split`): ``{"corrupted": (mean, sd), "other": (mean, sd)}``."""
    runs = np.atleast_2d(np.asarray(result.label_runs))
    parts = 100 * np.array([accuracy_split(labels, run, mask) for run in runs])
    return {name: (round(float(parts[:, i].mean()), SHOWN_DECIMALS),
                   round(float(parts[:, i].std()), SHOWN_DECIMALS))
            for i, name in enumerate(("corrupted", "other"))}


def errors_sentence(method, corrupted, counts, clean, after, found, lost, measured=False):
    """Where ``method``'s errors fall on a run with outliers: its ACC on the corrupted digits
    and on the others (:func:`split_acc` of its ``clean`` fit and of the fit with the
    outliers, ``after``), each change judged by the lesson's rule for noise, and what that
    shows and does not: whether finding the corrupted digits kept them in their classes
    (``found``: "found" where the weights single them out in every corrupted view,
    "ranked" where they at least rank most of them low, else None); ``lost``:
    the scores (e.g. ["NMI"]) the method lost beyond the ± spread. ``counts``: how many
    digits are corrupted and how many not. ``measured``: a line on whom the other digits
    are rebuilt from follows (:func:`~rmsc.dashboard.lesson_support.support_sentence`);
    without one, this line ends saying the lesson does not measure what put the errors
    there."""
    kinds, parts, digits = {}, [], {}
    for name, n, where in (("corrupted", counts[0], f"on the {counts[0]} digits corrupted in "
                            f"{' and '.join(corrupted)}"),
                           ("other", counts[1], f"on the other {counts[1]}")):
        (m0, s0), (m1, s1) = clean[name], after[name]
        change = round(m1 - m0, SHOWN_DECIMALS)
        kinds[name] = _kind(change, [s0, s1])
        digits[name] = -change * n / 100  # digits lost, on average over the runs
        verb = "lost" if change < 0 else "gained"
        judged = (" (no ± spread known)" if kinds[name] is None else ", within the ± spread"
                  if kinds[name] == "noise" else ", " + beyond_words(change, [s0, s1]))
        parts.append(f"{where}, {m0:.2f} ± {s0:.2f} % → {m1:.2f} ± {s1:.2f} %, {verb} "
                     f"{abs(change):.2f} points{judged}")
    head = f"**Where {method}'s errors fall.** "
    did = {"found": "singled out the corrupted digits",
           "ranked": "ranked most corrupted digits low"}.get(found)
    them = {"found": "singled them out", "ranked": "ranked most of them low"}.get(found)
    if did and lost:
        head += (f"{method}'s weights {did}, yet it lost "
                 f"{' and '.join(lost)} beyond the ± spread. ")
    said = (head + f"{method}'s ACC (NMI cannot be split by digit) on the clean data → with "
            "the outliers, each fit's groups matched to the classes once over all digits: "
            + "; ".join(parts) + ".")
    hit, rest = kinds["corrupted"], kinds["other"]
    if hit == "lost" and rest != "lost":
        said += (" Per digit, the corrupted ones lost the most, and only theirs is beyond the "
                 "± spread" + (f": the weights {them}, and that did not keep them in their "
                               "classes." if did else "."))
        if digits["other"] > digits["corrupted"]:
            said += (f" Counted in digits, most of the loss is among the others all the same "
                     f"(about {digits['other']:.1f} digits against "
                     f"{digits['corrupted']:.1f}): spread over {counts[1]}, it stays within "
                     "the ± spread.")
    elif hit == "lost" and rest == "lost":
        said += " Both lost: the corruption cost the digits it did not touch as well."
    elif rest == "lost":
        said += " The loss falls on the digits the corruption did not touch."
    elif None not in (hit, rest):
        said += " Neither part lost ACC beyond its ± spread."
    if measured:  # the next line says what was measured (lesson_support)
        return said
    return said + (" Why, this lesson does not measure: it shows where the errors fall, not "
                   "what in the fit put them there.")


def _lost_scores(tables, method):
    """The scores (ACC, NMI) ``method`` lost beyond the ± spread from the clean data to the
    outliers, by the lesson's rule (:func:`_kind`)."""
    names = list(tables)
    out = []
    for metric in ("acc", "nmi"):
        if len(names) != 2 or not all(f"{metric}_mean" in t for t in tables.values()):
            continue
        row = robustness_table(tables, metric=metric).set_index("method").loc[method]
        if _kind(row["change (points)"], [_spreads(tables[n], metric).get(method)
                                          for n in names]) == "lost":
            out.append(metric.upper())
    return out


def claim_evidence(step, tables, result, data, clean_result=None):
    """What a 'compare' step checking a claim with outliers shows besides the ACC changes
    when no 'summary' step sums its run up: the closing step's sentences on whether the
    weights found the corrupted samples and how much the corrupted views count in Z*
    (:func:`~rmsc.dashboard.lesson_summary.step_takeaway`, one source), then
    :func:`nmi_sentence`, where the method's errors fall, and the title's question on this
    run. Empty where the step checks no claim or the fit is not at hand."""
    if step.claim is None or step.outliers is None or result is None:
        return []
    said = step_takeaway(step, tables, result, data, clean_result) or []
    out = [s for s in said if s.startswith(("**Finding the outliers.**",
                                            "**Who counts in Z\\*.**"))]
    nmi = nmi_sentence(tables, step.claim)
    out += [nmi] if nmi else []
    if clean_result is not None and getattr(data, "labels", None) is not None:
        hit = data.outlier_mask.any(axis=0)
        corrupted, detection = detection_of(result, data)
        kinds = {detection_kind(*d) for d in detection.values()}
        found = ("found" if kinds == {"found"} else "ranked" if kinds and kinds <= {
            "found", "ranked"} else None)
        out.append(errors_sentence(
            step.claim, corrupted, (int(hit.sum()), int((~hit).sum())),
            split_acc(clean_result, data.labels, hit), split_acc(result, data.labels, hit),
            found, _lost_scores(tables, step.claim), measured=True))
        out.append(support_sentence(*support_of(clean_result, result, data.labels, hit),
                                    int((~hit).sum())))
    # last, as on the closing step: the lesson's title question, on this run
    return out + [s for s in said if s.startswith("**The title's question**")]
