"""Lines of the lesson's early comparison steps that carry their own numbers: step 5's "can
this run test the claim?" with each corrupted view's share of ΣcᵥP beside an equal share
(:func:`reach_caveat`), and step 2's verdict against the first method (:func:`versus_first`).

The seventeenth cold reading found step 5's answer resting on a number from step 6, not yet
seen: :func:`reach_caveat` says what a share of ΣcᵥP is (and this software's cᵥ) the first
time the lesson uses one, and gives each share on step 5's own screen. The rule it judges
them by is the closing step's (:data:`rmsc.dashboard.lesson_rules.LITTLE_SHARE`); the
rule for noise is :mod:`rmsc.dashboard.lesson_rules`'.
"""

from __future__ import annotations

from ..inspection import SHARE_LABEL
from .fitting import weight_shares
from .lesson_rules import (LITTLE_RULE, acc_spreads, beyond_words, counts_little,
                           parts_add_up, share_pct, within_spread)
from .lesson_summary import corrupted_share
from .lesson_text import claim_facts

#: What a view's share of ΣcᵥP is, with this software's per-view scale cᵥ, in plain words:
#: said where the lesson first uses a share (step 5's caveat). cᵥ as the default model
#: computes it (:data:`rmsc.rmsc.LOSS_SCALE` "median", :data:`rmsc.rmsc.SCALE_POWER` 1), and
#: that a share is needed to move Z* but is not enough (step 6's MOR).
SHARE_WORDS = (
    "Z* is built from an average of the views' tables of who resembles whom, each view "
    f"weighted by its \"{SHARE_LABEL}\" (its digits' weights P from step 4, added up and "
    "multiplied by a per-view scale cᵥ, as a share of all views' total; cᵥ = 1/sᵥ, with sᵥ "
    "the view's median loss at the start of the fit, its typical error in rebuilding a digit "
    "before anything is learned, not its median loss at the fit's end, so every "
    "view's losses count in the unit of its own typical loss). cᵥ is this software's "
    "addition to the paper's model; step 7 checks the paper's model without it. A view "
    "needs a large share to move Z*, but a large share is not enough: a view whose own "
    "table already agrees with Z* moves it nowhere, however large its share (step 6 shows "
    "this for MOR).")


def reach_caveat(tables, steps, n, data, clean_result):
    """What a 'compare' step (step ``n`` of ``steps``) checking a claim on the clean data and
    ``data`` (with its outliers) carries beside its verdict on the ACC alone when the
    corrupted views count little in Z* already on the clean data (their share of ΣcᵥP in
    ``clean_result``, RMSC's fit there, below :data:`LITTLE_SHARE` of an equal share):
    that the run can hardly test the claim, with what a share is (:data:`SHARE_WORDS`), each
    corrupted view's share and their sum beside the equal shares, all on this line (no
    pointer to a later step's table), and which later 'summary' step puts the two parts
    together. None when the step checks no claim, the data have no outliers, the clean fit
    is not at hand, or the corrupted views count."""
    step = steps[n - 1]
    facts = None if step.claim is None else claim_facts(tables, step.claim)
    mask = data.outlier_mask
    if facts is None or mask is None or not mask.any() or clean_result is None:
        return None
    shares, _ = weight_shares(clean_result, data)
    corrupted = [v for v, row in zip(data.view_names, mask) if row.any()]
    total = corrupted_share(shares, corrupted)
    equal = 1 / len(shares)
    if total is None or not counts_little(total, len(corrupted), len(shares)):
        return None
    method, names = facts["method"], " and ".join(corrupted)
    closing = next((f"step {i}" for i, s in enumerate(steps[n:], n + 1) if s.show == "summary"),
                   "the closing step")
    if facts["verdict"] == "cannot be told":
        last = (f"The verdict above, on the ACC alone, is no test of the weights: {closing} "
                "says why the ACC could not have told more.")
    else:  # the step's answer in the two parts its question asks for
        said = "bear the claim out" if facts["verdict"] == "holds" else \
            "do not bear the claim out"
        last = (f"So this step's answer is \"cannot tell\": the ACC changes alone {said} "
                f"(the line above), but this run can hardly test the claim, so that says "
                f"nothing about the weights; {closing} puts this together with what the "
                "weights found.")
    return (f"**Can this run test the claim?** Hardly. {SHARE_WORDS} In {method}'s fit on "
            f"the clean data, {shares_words(shares, corrupted, total, equal)}; "
            f"{LITTLE_RULE}. So corrupting {names} could move {method}'s ACC little, "
            f"whatever its weights did. {last}")


def shares_words(shares, corrupted, total, equal):
    """Each corrupted view's share of ΣcᵥP (one decimal) beside an equal one, and, for
    several, their sum beside the equal shares added up ("PIX has 0.4 % and FOU 0.6 %,
    together 1.0 %, where an equal share is 16.7 % each, 33.3 % for the two"); where the
    rounded parts add up to another number than the rounded sum, that the sum is before
    rounding."""
    by_view = {s["view"]: s["share"] for s in shares}
    parts = [f"{v} {share_pct(by_view[v])}" for v in corrupted]
    if len(corrupted) == 1:
        return f"{corrupted[0]} has {share_pct(total)}, where an equal share is {share_pct(equal)}"
    said = ", ".join(parts[:-1]) + " and " + parts[-1]
    rounding = "" if parts_add_up(by_view, corrupted, total) else " (before rounding)"
    first, rest = said.split(" ", 1)
    return (f"{first} has {rest}, together {share_pct(total)}{rounding}, where an equal share "
            f"is {share_pct(equal)} each, {share_pct(equal * len(corrupted))} for the "
            f"{'two' if len(corrupted) == 2 else len(corrupted)}")


def versus_first(table):
    """Step 2's verdict: every other method's ACC against the first method's (the table's
    first row, a comparison on one dataset: ``method``, ``acc_mean``, ``acc_std``), how many
    points higher or lower, within the ± spread or beyond it (:func:`within_spread`; a
    narrow margin said by :func:`rmsc.dashboard.lesson_rules.beyond_words`, without its
    words on corrupted samples: there are none on this step), and which of them are above
    it beyond the noise. None without spreads or with fewer than two methods."""
    spreads = acc_spreads(table)
    methods = list(table["method"])
    if len(methods) < 2 or any(m not in spreads for m in methods):
        return None
    acc = {m: round(100 * float(a), 2) for m, a in zip(methods, table["acc_mean"])}
    base, others = methods[0], methods[1:]
    parts, above = [], []
    for m in others:
        diff = round(acc[m] - acc[base], 2)
        pair = [spreads[m], spreads[base]]
        noise = within_spread(diff, pair)
        if not noise and diff > 0:
            above.append(m)
        parts.append(f"{m}'s ACC, {acc[m]:.2f} ± {spreads[m]:.2f} %, is {abs(diff):.2f} "
                     f"points {'higher' if diff >= 0 else 'lower'}, "
                     + ("within the ± spread" if noise else beyond_words(diff, pair, why=None)))
    who = ("no method beats" if not above else
           f"only {above[0]} beats" if len(above) == 1 < len(others) else
           f"{above[0]} beats" if len(above) == 1 else " and ".join(above) + " beat")
    return (f"**Against {base}** ({acc[base]:.2f} ± {spreads[base]:.2f} %): "
            + "; ".join(parts) + f". So {who} {base} beyond the noise.")
