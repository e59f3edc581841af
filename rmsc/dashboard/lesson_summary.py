"""The closing step of a lesson, "what this run shows", computed from the run's numbers.

:func:`step_takeaway` gathers them (step 4's AUC and average precision, step 5's comparison,
the corrupted views' share of Z* in RMSC's fits with and without the outliers) and
:func:`takeaway_sentences` says them: how the weights found the corrupted samples
(:func:`detection_kind`), what the outliers did to each method's ACC, how much the corrupted
views count in Z* before and after the corruption, the paper's claim, and the title's
question, per-sample against per-view weights (:func:`per_view_sentence`). A later
comparison step recalls an earlier step's post-processing caveat in one line
(:func:`postprocessing_reminder`, naming the step from :func:`earlier_comparison`), and
says a gain or leaves the claim to a closing step by where it stands (:func:`run_context`). The rule
for noise and the comparison's words are :mod:`rmsc.dashboard.lesson_text`'s.
"""

from __future__ import annotations

from .. import outliers as scoring
from ..inspection import P_SHARE_LABEL, SHARE_LABEL
from .fitting import weight_shares
from .runs import SHOWN_DECIMALS
from .lesson_rules import (  # noqa: F401 - the little rule, re-exported (rmsc.dashboard.lesson)
    LITTLE_RULE, LITTLE_SHARE, counts_little, parts_add_up, rest_yardstick, share_pct)
from .lesson_text import (CLAIM_ASKS_MORE, acc_spreads, beyond_words, claim_facts,
                          gain_reminder, listing, postprocessing_by_method,
                          postprocessing_difference, within_spread)

#: The AUC from which the lesson says the weights "single out" a view's corrupted samples
#: (with the average precision at :data:`AP_FOUND` or above) or rank most of them below the
#: clean ones (average precision below it), and the one below which it says they do not
#: (between: "only partly").
AUC_FOUND, AUC_MISSED = 0.9, 0.7

#: The average precision from which, with the AUC at :data:`AUC_FOUND` or above, the lesson
#: says the weights "single out" a view's corrupted samples. The AUC alone can be near 1
#: while clean samples with very low weights head the list (:data:`ROC_NOTE`), so "single
#: out" needs both; by chance the average precision is about the share of corrupted samples.
AP_FOUND = 0.9

#: What the weights do with a view's corrupted samples, by :func:`detection_kind`, in words.
_DETECTION_WORDS = {
    "found": "single out the corrupted samples",
    "ranked": "rank most corrupted samples below most clean ones (AUC), but clean samples "
              "with low weights come among the first (average precision)",
    "partly": "only partly rank the corrupted samples below the clean ones",
    "missed": "do not single out the corrupted samples",
}


def detection_kind(auc, ap):
    """How well a view's weights find its corrupted samples, from the AUC and the average
    precision of step 4's table (:func:`rmsc.outliers.evaluate`): "found" (both at least
    :data:`AUC_FOUND` / :data:`AP_FOUND`), "ranked" (the AUC at least :data:`AUC_FOUND`,
    the average precision below :data:`AP_FOUND`), "partly" (the AUC from
    :data:`AUC_MISSED` up) or "missed"."""
    if auc >= AUC_FOUND:
        return "found" if ap >= AP_FOUND else "ranked"
    return "partly" if auc >= AUC_MISSED else "missed"


def overall_detection(pairs):
    """What the weights did over several views, from each view's (AUC, average precision)
    in ``pairs``: "found" where every view's are "found" (:func:`detection_kind`),
    "ranked" where each is at least "ranked", None otherwise or without a view."""
    kinds = {detection_kind(*p) for p in pairs}
    return ("found" if kinds == {"found"} else
            "ranked" if kinds and kinds <= {"found", "ranked"} else None)


def _finding_sentence(method, detection, views):
    """The takeaway's first sentence: for each kind of :func:`detection_kind` among
    ``views``, what the weights do there, with the AUC and average precision as step 4's
    table shows them (three decimals)."""
    kinds = {}
    for v in views:
        kinds.setdefault(detection_kind(*detection[v]), []).append(v)

    def numbers(vs, named=True):
        return "; ".join((f"{v}: " if named else "") + f"AUC {detection[v][0]:.3f}, "
                         f"average precision {detection[v][1]:.3f}" for v in vs)

    if len(kinds) == 1:
        [(kind, vs)] = kinds.items()
        said = f"{method}'s weights {_DETECTION_WORDS[kind]} ({numbers(vs)})."
    else:
        whose = [f"{method}'s weights"] + ["they"] * (len(kinds) - 1)
        said = "; ".join(f"in {' and '.join(vs)} ({numbers(vs, len(vs) > 1)}), {who} "
                         f"{_DETECTION_WORDS[kind]}"
                         for who, (kind, vs) in zip(whose, kinds.items()))
        said = said[0].upper() + said[1:] + "."
    return (f"**Finding the outliers.** {said} AUC: 1 = every corrupted sample below every "
            "clean one, 0.5 = chance; average precision: 1 = every corrupted sample first, "
            "about their share by chance.")


def takeaway_sentences(facts, detection, shares, corrupted, clean_shares=None,
                       per_view=None, later=None, paper_shares=None):
    """The closing step's "what this run shows", each sentence computed from the run's
    numbers, linking the lesson's steps: whether RMSC's weights single out the corrupted
    samples (``detection``: view -> (AUC, average precision), step 4's table;
    :func:`detection_kind`), what the outliers did to each method's ACC (``facts``:
    :func:`claim_facts` of the comparison, step 5; losses, changes within the ± spread and
    gains told apart), what a gain beyond the ± spread can and cannot mean
    (:func:`gain_sentence`, when a method gained so), how much the corrupted views count
    in RMSC's consensus (``shares``: the outliers fit's
    :func:`rmsc.inspection.view_weight_shares`; "little" below :data:`LITTLE_SHARE` of an
    equal share), and the claim's verdict with what, on these numbers, goes with it.
    ``corrupted``: the corrupted views' names; ``later``: a later step that corrupts other
    views (:func:`later_test`), named where the verdict says to corrupt views that count;
    ``paper_shares``: the shares of the paper's model fitted on the clean data (None: not
    at hand), which say whether "little" rests on cᵥ (:func:`paper_words`).
    Returns a list of sentences (Markdown)."""
    out = []
    method = facts["method"]
    found = [v for v in corrupted if v in detection]
    if found:
        out.append(_finding_sentence(method, detection, found))
    changes, noise = facts["changes"], facts["noise"]
    lost = [m for m, c in changes.items() if noise[m] is False and c < 0]
    gained = [m for m, c in changes.items() if noise[m] is False and c > 0]
    level = [m for m in changes if noise[m]]
    parts = []
    if lost:
        parts.append(listing(lost, changes) + " lost ACC, more than the ± spread")
    if gained:
        parts.append(listing(gained, changes) + " gained ACC, more than the ± spread")
    if level:
        parts.append(listing(level, changes) + " changed within the ± spread (noise)")
    unknown = [m for m in changes if noise[m] is None]
    if unknown:
        parts.append(listing(unknown, changes) + " changed (no ± spread known)")
    verdict = "" if lost or unknown else " No method lost ACC beyond the noise."
    out.append("**The outliers and ACC.** " + "; ".join(parts) + "." + verdict)
    if gained:  # said in full on the first step on the run
        out.append(gain_reminder(gained))
    before = after = None
    if corrupted:
        after = corrupted_share(shares, corrupted)
        before = corrupted_share(clean_shares or [], corrupted)
    if after is not None:
        equal = len(corrupted) / len(shares)
        little = LITTLE_SHARE * equal  # below it, the corrupted views "count little"
        names = " and ".join(corrupted)
        they = "together carry" if len(corrupted) > 1 else "carries"
        weight = f"of the consensus weight, \"{SHARE_LABEL}\""
        out_words = f"{share_pct(after)}{_sum_words(shares, corrupted, after, table=False)}"
        if before is None:
            text = (f"**Who counts in Z\\*.** In {method}'s fit with the outliers, {names} "
                    f"{they} {share_pct(after)} {weight}"
                    f"{_sum_words(shares, corrupted, after, table=False)}")
        else:  # each view's part beside each sum: every number on this screen
            text = (f"**Who counts in Z\\*.** In {method}'s fit on the clean data (step 6's "
                    f"table), {names} {they} {share_pct(before)} {weight}"
                    f"{_sum_words(clean_shares, corrupted, before)}, and in its fit with the "
                    f"outliers {out_words}")
        text += f", where an equal share would be {share_pct(equal)}"
        if before is not None and counts_little(before, len(corrupted), len(shares)):
            text += (": a view's share is its weight in the average of the views' tables that Z* is made from, "
                     "which caps how far its table can move Z* (step 6); with "
                     f"{share_pct(before)} of that average on the clean data, these views could "
                     f"pull Z* only about {share_pct(before)} of the way to their tables (over all "
                     "digits), too little to move it either way, whatever their weights did")
            text += (f"; that fits {method}'s change within the noise." if noise.get(method)
                     else ".")
            second = rest_yardstick(clean_shares, corrupted)  # step 6's view of Z*
            text += "" if second is None else " " + second
            text += " " + paper_words(paper_shares, clean_shares, corrupted, little, equal)
        elif before is not None and after < little:
            text += (": their share fell with the corruption: the weights at work, turning "
                     "Z* away from the corrupted views.")
        elif before is None and after < little and noise.get(method):
            text += (f": Z* listens little to the corrupted views, so corrupting them could "
                     f"move {method}'s result little, whatever their weights; that fits "
                     f"{method}'s change within the noise.")
        elif before is not None:  # they count: the run can show the weights at work
            text += (f": at least half an equal share, so their tables can move Z*, and "
                     f"corrupting them could move {method}'s result: this run can show "
                     "whether the weights protect it.")
        else:
            text += "."
        out.append(text)
    rival = facts["rival"]
    mine, theirs = changes[method], changes[rival]
    untestable = (before is not None and after is not None
                  and counts_little(before, len(corrupted), len(shares)))
    if untestable:
        on_acc = {"holds": f"{method}'s change was the best", "cannot be told": "the changes "
                  "were level", "not borne out": f"{rival}'s change was the better one"}
        said = {"holds": "holds", "cannot be told": "cannot be told",
                "not borne out": "is not borne out"}[facts["verdict"]]
        last = (f"This run cannot tell whether the claim holds: the corrupted views carried "
                f"too little weight in {method}'s Z* already on the clean data to move it "
                f"either way, whatever the weights did, so {method}'s ACC could not show "
                f"the weights at work. On the ACC alone (step 5), "
                f"{on_acc[facts['verdict']]} ({method} {mine:+.2f} points, {rival} "
                f"{theirs:+.2f})")
        last += ("; this step does not change that verdict, it says why the ACC could not "
                 "have told more" if facts["verdict"] == "cannot be told" else
                 f", which alone would say the claim {said}; as step 5 concluded, the "
                 f"answer is \"cannot tell\": a change {method}'s weights could not have "
                 "caused says nothing for or against them")
        last += ("; to test the claim, corrupt views that count in Z* (step 6's table says "
                 "which)" + (f": {later}." if later else "."))
    elif facts["verdict"] == "holds":
        last = (f"The claim holds on this run: {method}'s ACC fared best under the outliers "
                f"({mine:+.2f} points, {rival} {theirs:+.2f}), by {facts['gap_words']}.")
    elif facts["verdict"] == "not borne out":
        last = (f"The claim is not borne out on this run: {rival}'s ACC fared better under "
                f"the outliers ({theirs:+.2f} points, {method} {mine:+.2f}), by "
                f"{facts['gap_words']}.")
    else:
        total = f"{facts['spread'][method] + facts['spread'][rival]:.2f}"
        last = (f"This run cannot tell whether the claim holds: {method}'s change "
                f"({mine:+.2f} points) and {rival}'s ({theirs:+.2f}) differ by no more than "
                f"their two ± added up ({facts['spread'][method]:.2f} + "
                f"{facts['spread'][rival]:.2f} = {total}).")
    kind = overall_detection(detection[v] for v in found)
    if kind is not None and facts["verdict"] != "holds" and not untestable:
        last += (" Finding the corrupted samples" if kind == "found" else
                 " Ranking most corrupted samples low")
        last += " is not the same as gaining ACC from it"
        last += (": here the corrupted views counted little in Z*." if after is not None
                 and after < little else ".")
    out.append(f"**The paper's claim.** {last}")
    if per_view:
        out.append(per_view)
    return out


def paper_words(paper_shares, clean_shares, corrupted, little, equal):
    """Whether the corrupted views' small share rests on this software's view scale cᵥ: their
    share in the paper's model fitted again on the same clean data (``paper_shares``, every
    cᵥ = 1), with the top view's there and in this software's fit (``clean_shares``), judged
    by the rule said with it (:data:`LITTLE_RULE`; ``little``: below it the views count
    little; ``equal``: their equal share). One number answers "without cᵥ": step 6's
    "share of ΣP" (this fit's P with cᵥ left out, not a fit of the paper's model) is not
    repeated here, but a clause says the two differ because the paper's model is a fit of
    its own (the twentieth cold reading met both numbers and asked which). Not at hand:
    said so."""
    names = " and ".join(corrupted)
    they = "carry" if len(corrupted) > 1 else "carries"
    mine = corrupted_share(paper_shares or [], corrupted)
    if mine is None:
        return ("Part of that may be this software's view scale cᵥ (step 6's table; the "
                "paper's model has none): the paper's model fitted on the same data, which "
                "would say, is not in yet (`rmsc lesson --warm` computes it).")
    by_view = {s["view"]: s["share"] for s in paper_shares}
    top = max(by_view, key=by_view.get)
    ours = {s["view"]: s["share"] for s in clean_shares or []}.get(top)
    text = ("Is that this software's view scale cᵥ (step 6's table; the paper's model has "
            f"none)? Judged by one rule ({LITTLE_RULE}): the paper's model (every cᵥ = 1) "
            "fitted again on the same clean data (a fit of its own, not step 6's "
            f"\"{P_SHARE_LABEL}\" column, which leaves cᵥ out of step 6's fit, so the two "
            f"differ) finds other weights: {names} {they} {share_pct(mine)}, {top} "
            f"{share_pct(by_view[top])}"
            + ("" if ours is None else f" ({share_pct(ours)} with cᵥ, step 6's table)")
            + f", {mine / equal:.2f} of the equal share ({share_pct(equal)})")
    if mine < little:
        raised = (f"cᵥ raises {top}'s share, it" if ours is not None and ours > by_view[top]
                  else "cᵥ")
        return text + f", little by that rule: {raised} does not make {names} small."
    return (text + f", half of it or more: on the paper's model {names} would count, so "
            "their small share here comes from cᵥ, and this run tests this software's "
            "variant more than the paper's model.")


def corrupted_share(shares, corrupted, key="share"):
    """The corrupted views' share of ΣcᵥP together (``shares``:
    :func:`rmsc.inspection.view_weight_shares`; ``key="p_share"``: of ΣP, the weights
    without cᵥ), None when ``shares`` lacks one of them."""
    by_view = {s["view"]: s.get(key) for s in shares}
    if not shares or not all(by_view.get(v) is not None for v in corrupted):
        return None
    return sum(by_view[v] for v in corrupted)


def _sum_words(shares, corrupted, total, table=True):
    """Each corrupted view's share as step 6's table shows it, beside their ``total``, so
    that the reader's sum of the table's numbers meets it: " (FAC 7.5 % + MOR 89.0 %)", and
    where the rounded parts add up to another number than the rounded total, that the total
    is before rounding (``table``: the parts are a table's, step 6's; else this line's
    own). Empty for one view."""
    if len(corrupted) < 2:
        return ""
    by_view = {s["view"]: s["share"] for s in shares}
    parts = " + ".join(f"{v} {share_pct(by_view[v])}" for v in corrupted)
    if parts_add_up(by_view, corrupted, total):
        return f" ({parts})"
    return (f" ({parts}{' in the table' if table else ''}, each rounded; {share_pct(total)} is "
            "their sum before rounding)")


#: Each method's variant with one weight per view instead of one per sample in each view:
#: the lesson's title asks whether the per-sample weights pay off against it.
PER_VIEW = {"RMSC": "RMSC-WV"}


def as_acc(tables, metric):
    """The tables with ``metric``'s columns in ACC's place: the lesson's functions on ACC
    (:func:`~rmsc.dashboard.lesson_text.claim_facts`, :func:`per_view_sentence`) read
    another score the same way."""
    return {name: t.assign(acc_mean=t[f"{metric}_mean"], acc_std=t[f"{metric}_std"])
            for name, t in tables.items()}


_NO_VERDICT = "the two ways of weighting cannot be told apart"


def _per_view(tables, method, rival):
    """Each variant's ``method`` against ``rival`` on the tables' ACC columns, in words, and
    the verdict on the title's question."""
    parts, leads = [], []
    for i, (name, table) in enumerate(tables.items()):
        acc = {m: round(100 * float(a), SHOWN_DECIMALS)  # as shown, so d is the shown gap
               for m, a in zip(table["method"], table["acc_mean"])}
        sd = acc_spreads(table)
        d = round(acc[method] - acc[rival], SHOWN_DECIMALS)
        pair = [sd.get(method), sd.get(rival)]
        noise = within_spread(d, pair)
        ahead = method if d > 0 else rival
        if noise is None:
            words = f"{ahead} {abs(d):.2f} points ahead (no ± spread known)"
        elif noise:
            words = f"level ({abs(d):.2f} points apart, within the ± spread)"
        else:
            words = f"{ahead} ahead by {abs(d):.2f} points, {beyond_words(d, pair)}"
        pm = {m: "" if sd.get(m) is None else f" ± {sd[m]:.2f}" for m in (method, rival)}
        where = f"on the {name} data" if i == 0 else name  # as the change lines say it
        parts.append(f"{where} {method} {acc[method]:.2f}{pm[method]} %, {rival} "
                     f"{acc[rival]:.2f}{pm[rival]} %: {words}")
        leads.append(None if noise is not False else ahead)
    if method in leads and rival not in leads:
        verdict = "a weight for every sample paid off against one weight per view"
    elif rival in leads and method not in leads:
        verdict = ("a weight for every sample did not pay off: one weight per view did as "
                   "well or better")
    elif not any(leads):
        verdict = _NO_VERDICT
    else:
        verdict = "neither way of weighting wins on every variant"
    return parts, verdict


def per_view_sentence(tables, method="RMSC"):
    """The title's question on a comparison's tables: ``method`` (a weight per sample in
    each view) against its per-view variant (:data:`PER_VIEW`), on each variant of the data,
    the difference told by the lesson's one rule for noise (:func:`within_spread`,
    :func:`beyond_words`), and what that says; where the tables have NMI, the same on NMI
    and how the two scores' answers stand to each other (one that cannot tell the two apart
    leaves the answer to the other). None when the tables lack either method."""
    rival = PER_VIEW.get(method)
    if rival is None or not tables or not all(
            {method, rival} <= set(t["method"]) for t in tables.values()):
        return None
    parts, verdict = _per_view(tables, method, rival)
    head = (f"**The title's question** (a weight for every sample in every view, {method}, "
            f"or one per view, {rival}): " + "; ".join(parts))
    if not all({"nmi_mean", "nmi_std"} <= set(t) for t in tables.values()):
        return head + f". On this run, {verdict}."
    on_nmi, by_nmi = _per_view(as_acc(tables, "nmi"), method, rival)
    return (f"{head}. On NMI (the charts' orange bars): " + "; ".join(on_nmi) + ". On this "
            f"run, {per_view_answer(verdict, by_nmi)}")


def per_view_answer(verdict, by_nmi):
    """The title's question answered from its verdict on ACC and on NMI (as
    :func:`per_view_sentence` words them): one clause ending in a full stop, the same for
    both, one score's verdict where the other cannot tell the two ways apart, or that
    the two disagree."""
    if by_nmi == verdict:
        return f"by ACC and NMI alike, {verdict}."
    if verdict == _NO_VERDICT:
        return (f"by NMI, {by_nmi}; ACC, too noisy here, cannot tell the two ways apart, "
                "which does not contradict it.")
    if by_nmi == _NO_VERDICT:
        return (f"by ACC, {verdict}; NMI, too noisy here, cannot tell the two ways apart, "
                "which does not contradict it.")
    return f"by ACC, {verdict}; by NMI, {by_nmi}: the two scores disagree."


def per_view_verdicts(tables, method="RMSC"):
    """The title's question's verdict on ``tables`` (any number of variants) on ACC and on
    NMI (None without NMI columns), by :func:`per_view_sentence`'s rules; None when the
    tables lack ``method`` or its per-view variant."""
    rival = PER_VIEW.get(method)
    if rival is None or not tables or not all(
            {method, rival} <= set(t["method"]) for t in tables.values()):
        return None
    on_acc = _per_view(tables, method, rival)[1]
    if not all({"nmi_mean", "nmi_std"} <= set(t) for t in tables.values()):
        return on_acc, None
    return on_acc, _per_view(as_acc(tables, "nmi"), method, rival)[1]


def later_test(steps, n):
    """The first step after step ``n`` of ``steps`` that compares methods with outliers in
    other views than step ``n``'s, in words ("step 8 does, corrupting FAC and MOR"; where
    that step is the lesson's last claim test, also that it ends with the lesson's answer,
    :func:`rmsc.dashboard.lesson_close.closing_answer`), for :func:`takeaway_sentences`'
    ``later``; None when no later step does."""
    mine = steps[n - 1].outliers
    views = set(mine.views) if mine is not None else set()
    for k, s in enumerate(steps[n:], n + 1):
        if s.show == "compare" and s.outliers is not None and set(s.outliers.views) != views:
            said = f"step {k} does, corrupting {' and '.join(s.outliers.views)}"
            last = not any(t.show in ("compare", "summary") and t.claim is not None
                           and t.outliers is not None for t in steps[k:])
            if last and s.claim is not None:  # where lesson_close.closing_answer is shown
                said += ", and ends with the lesson's answer, both tests together"
            return said
    return None


def detection_of(result, data):
    """The corrupted views of ``data`` (those its outlier mask marks) and, for each, the
    AUC and average precision of ``result``'s weights finding its corrupted samples: step
    4's table, from the same function (:func:`rmsc.outliers.evaluate`)."""
    mask = data.outlier_mask
    corrupted = [v for v, row in zip(data.view_names, mask) if row.any()]
    table = scoring.evaluate(scoring.scores(result), mask, view_names=data.view_names)
    return corrupted, {row["view"]: (float(row["roc_auc"]), float(row["average_precision"]))
                       for _, row in table.iterrows() if row["view"] in corrupted}


def step_takeaway(step, tables, result, data, clean_result=None, later=None,
                  paper_result=None):
    """A 'summary' step's sentences (:func:`takeaway_sentences`), from its comparison's
    ``tables`` and RMSC's ``result`` on the step's ``data`` (with its outliers): the
    weights' AUC and average precision in each corrupted view, each view's share of ΣcᵥP
    there and in RMSC's fit on the clean data (``clean_result``, None when not at hand);
    ``later`` as :func:`takeaway_sentences` takes it; ``paper_result``: the paper's model
    fitted on the clean data (:func:`rmsc.dashboard.lesson_paper.paper_params`, None when
    not at hand). None where the comparison holds no claim to check (:func:`claim_facts`)."""
    facts = claim_facts(tables, step.claim)
    if facts is None:
        return None
    corrupted, detection = detection_of(result, data)
    shares, _ = weight_shares(result, data)
    clean = None if clean_result is None else weight_shares(clean_result, data)[0]
    paper = None if paper_result is None else weight_shares(paper_result, data)[0]
    return takeaway_sentences(facts, detection, shares, corrupted, clean_shares=clean,
                              per_view=per_view_sentence(tables, step.claim), later=later,
                              paper_shares=paper)


def postprocessing_reminder(shown, said_in=None):
    """:func:`~rmsc.dashboard.lesson_text.postprocessing_difference` in one line, for a
    later step comparing methods (``shown`` as there, from the same
    :func:`rmsc.dashboard.runs.compare_display` column), with ``said_in`` the number of the
    step that said it in full (None: no step did, and the line does not point back). None
    when the methods post-process alike."""
    used = postprocessing_by_method(shown)
    if used is None:
        return None
    groups = {}
    for m, p in used.items():
        groups.setdefault(p, []).append(f"{m}'s")
    said = "; ".join(f"{' and '.join(ms)} \"{p}\"" for p, ms in groups.items())
    head = ("**Not like for like.** The methods' tables are" if said_in is None else
            f"**Not like for like, as in step {said_in}.** The methods' tables are still")
    return (f"{head} post-processed differently ({said}), so part of a gap between them can "
            "come from that step rather than from how they use the views.")


def earlier_comparison(steps, n):
    """The number (from 1) of the first step before step ``n`` that compares methods on
    clean data only (where the page says the post-processing line in full), or None."""
    return next((i for i, s in enumerate(steps[:n - 1], 1)
                 if s.show == "compare" and s.outliers is None), None)


def run_context(steps, n):
    """(first, closing) of step ``n`` of ``steps`` showing a comparison: whether no earlier
    'compare' step shows the same run (data, outliers, parameters, methods), so that its
    gain line is said in full, and whether a later 'summary' step sums that run up, so
    that its claim line leaves "could this run show it?" to that step
    (:func:`~rmsc.dashboard.lesson_text.comparison_sentences`)."""
    def run(s):
        return s.data, s.outliers, s.params, tuple(s.methods)

    mine = run(steps[n - 1])
    first = not any(s.show == "compare" and run(s) == mine for s in steps[:n - 1])
    return first, any(s.show == "summary" and run(s) == mine for s in steps[n:])


def postprocessing_line(shown, n_variants, steps, n):
    """A compare step's line on its methods' post-processing (``shown``: the comparison's
    :func:`rmsc.dashboard.runs.compare_display` table; ``n_variants``: how many datasets it
    compares on): in full on a step on one dataset, in one line pointing back
    (:func:`earlier_comparison`) on step ``n`` of ``steps`` comparing the clean and the
    corrupted data. None when the table has no post-processing column or all agree."""
    if "post-processing" not in shown:
        return None
    if n_variants == 1:
        return postprocessing_difference(shown)
    return postprocessing_reminder(shown, earlier_comparison(steps, n))


def carry_caveat(sentences, caveat):
    """A compare step's lines (:func:`rmsc.dashboard.lesson_text.comparison_sentences`)
    with ``caveat`` (:func:`rmsc.dashboard.lesson_reach.reach_caveat`) in place of the claim line's pointer to the
    closing step (:data:`~rmsc.dashboard.lesson_text.CLAIM_ASKS_MORE`, which the caveat
    answers), right after that line; unchanged when ``caveat`` is None."""
    if caveat is None:
        return list(sentences)
    out = []
    for line in sentences:
        if line.endswith(CLAIM_ASKS_MORE):
            out += [line[:-len(CLAIM_ASKS_MORE)].rstrip(), caveat]
        else:
            out.append(line)
    return out
