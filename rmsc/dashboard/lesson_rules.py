"""The lesson's rule for noise, and the words that say it: when a difference between ACCs
(a method's change with the outliers, one method's lead over another) or between two
changes counts as noise, how a difference beyond it is worded, and what ± is.

Each ACC carries its ± (:func:`acc_spreads`: its standard deviation over the k-means runs
of the last grouping step, as the table shows it). A change or a lead is noise when no
larger than the larger ± of its two ACCs (:func:`within_spread`); a change carries that ±
(:func:`change_spread`), and two changes are level unless they differ by more than their two
± added up (:func:`changes_within_spread`). A difference beyond the rule is said by
:func:`beyond_words` or :func:`gap_words` ("narrow" below :data:`NARROW` times the ±, with
:data:`SPREAD_LIMIT`); :data:`SPREAD_MEANING`, :data:`SPREAD_RULE` and :data:`SPREAD_NOTE`
say it under every comparison. :mod:`rmsc.dashboard.lesson_text` builds the page's
sentences on them.
"""

from __future__ import annotations

from ..spectral import N_KMEANS_RUNS
from .runs import SHOWN_DECIMALS


def acc_spreads(table):
    """Each method's ACC spread (std over the k-means runs) in points, by method name;
    empty when the table has none."""
    if "acc_std" not in table:
        return {}
    return {m: round(100 * float(s), SHOWN_DECIMALS)  # as shown: "± 4.15"
            for m, s in zip(table["method"], table["acc_std"]) if s == s}  # NaN: unknown


def within_spread(difference, spreads):
    """The lesson's one rule for noise: a difference between ACCs (in points) is "within
    the ± spread" when it is no larger than the largest ± spread of the ACCs it is computed
    from (True), beyond it (False); None when one of those spreads is unknown.
    :data:`SPREAD_RULE` says it in words on the page."""
    if not spreads or any(s is None for s in spreads):
        return None
    return abs(difference) <= max(spreads)


def change_spread(spreads):
    """A change's own ±: the larger of its two ACCs' ± (the one :func:`within_spread`
    judges the change by); None when one is unknown."""
    return None if not spreads or any(s is None for s in spreads) else max(spreads)


def changes_within_spread(gap, spread_a, spread_b):
    """The lesson's rule for the gap between two changes, each with its own ±
    (:func:`change_spread`): the two can be told apart only when their ranges (change ±
    its spread) do not overlap, so the gap is noise (True) when no larger than the two ±
    added up, beyond it (False); None when one is unknown. In :data:`SPREAD_RULE`."""
    if spread_a is None or spread_b is None:
        return None
    return abs(round(gap, SHOWN_DECIMALS)) <= round(spread_a + spread_b, SHOWN_DECIMALS)


#: A difference beyond the ± spread is "narrow" while it is less than this many times the
#: ± (or two changes' ± added up) it is measured against (:func:`beyond_words`).
NARROW = 2.0

#: What the ± does not cover, in words: said with every narrow margin and every gain from
#: corrupted data (:func:`beyond_words`, :func:`gain_sentence`).
SPREAD_LIMIT = ("the ± covers only the repeated k-means runs of the last grouping step, "
                "not which samples the seed corrupted")


def beyond_words(difference, spreads, why=SPREAD_LIMIT):
    """How a difference beyond the ± spread (:func:`within_spread` False) is said: "more
    than the ± spread", or, when it is less than :data:`NARROW` times the largest ±,
    "narrowly" with the margin it clears the ± by and ``why`` that is narrow (what the ±
    leaves out, :data:`SPREAD_LIMIT`; None: nothing, where no sample was corrupted): one
    rule for every lead and change the lesson states."""
    top = max(spreads)
    if abs(difference) >= NARROW * top:
        return "more than the ± spread"
    return (f"more than the ± spread ({top:.2f}), but only by {abs(difference) - top:.2f} "
            "points: a narrow margin" + ("" if why is None else f", as {why}"))


def gap_words(gap, spread_a, spread_b):
    """:func:`beyond_words` for a gap between two changes beyond their two ± added up
    (:func:`changes_within_spread` False), naming the sum; a narrow margin's caveat is a
    sentence of its own (the claim's line keeps its sentences short)."""
    total = round(spread_a + spread_b, SHOWN_DECIMALS)
    said = (f"more than the two changes' ± added up ({spread_a:.2f} + {spread_b:.2f} = "
            f"{total:.2f})")
    margin = narrow_margin(gap, spread_a, spread_b)
    if margin is None:
        return said
    return (f"{said}, but only by {margin:.2f} points. A narrow margin, as "
            f"{SPREAD_LIMIT}")


def narrow_margin(gap, spread_a, spread_b):
    """How far a gap between two changes clears their two ± added up, in points, when it is
    beyond them (:func:`changes_within_spread` False) by a narrow margin (less than
    :data:`NARROW` times that sum); None when within, unknown or beyond by more."""
    if changes_within_spread(gap, spread_a, spread_b) is not False:
        return None
    total = round(spread_a + spread_b, SHOWN_DECIMALS)
    return None if abs(gap) >= NARROW * total else abs(gap) - total


#: What a ± is, in words (under every comparison's lines or chart): the spread over the
#: protocol's k-means runs (:data:`rmsc.spectral.N_KMEANS_RUNS`).
SPREAD_MEANING = (
    f"**±**: each ACC is the mean over {N_KMEANS_RUNS} runs of the last grouping step "
    "(k-means, the end of spectral clustering, which turns the table of who resembles "
    "whom into groups; each run from other random starts); ± is its standard deviation "
    "over those runs. It is the one spread every ACC here comes with, so the lesson "
    "measures differences against it; it leaves out other noise (which samples were drawn "
    "or corrupted), so a difference within it is noise, and one just beyond it may be "
    "noise still.")

#: :func:`within_spread` and :func:`changes_within_spread` in words, under a
#: comparison's lines.
SPREAD_RULE = (
    "**Within the ± spread**: a difference between two ACCs counts as noise (\"within the "
    "± spread\") when it is no larger than the larger of their two ±. For a method's "
    "change, the two are its ACC on the clean data and its ACC with the outliers; for one "
    "method's lead over another, the two methods' ACCs. A change carries that larger ±, "
    "and two changes count as level unless they differ by more than their two ± added up.")


#: What ± is and when a difference is noise, in words: the caption under every comparison
#: the lesson draws (its lines, its table, its closing sentences).
SPREAD_NOTE = f"{SPREAD_MEANING} {SPREAD_RULE}"
