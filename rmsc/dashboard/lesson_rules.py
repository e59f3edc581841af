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

The rule for shares lives here too, so that steps 5 to 8 judge by one rule: views count
little in Z* when their share of ΣcᵥP is under :data:`LITTLE_SHARE` of an equal share
(:func:`counts_little`, :data:`LITTLE_RULE`), and, as a second yardstick where the top
view's table sits on Z* (step 6), their part of what the other views carry together
(:func:`rest_part`, :func:`rest_yardstick`).
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


#: A set of views "counts little" in Z* when its share of ΣcᵥP is below this fraction of
#: what an equal share per view would give it.
LITTLE_SHARE = 0.5

#: :data:`LITTLE_SHARE` in words, said where a share is judged by it (steps 5 to 8).
LITTLE_RULE = (f"a share under {'half' if LITTLE_SHARE == 0.5 else f'{LITTLE_SHARE:g} times'} "
               "an equal share counts little")


def counts_little(share, n_corrupted, n_views):
    """Whether views carrying ``share`` of ΣcᵥP together count little in Z*: below
    :data:`LITTLE_SHARE` of the equal share ``n_corrupted`` views of ``n_views`` would
    have (the rule steps 5, 7 and 8 and the lesson's answer judge by)."""
    return share < LITTLE_SHARE * n_corrupted / n_views


def share_pct(share):
    """A share (0-1) in words: one decimal ("1.1 %"), so small shares stay apart."""
    return f"{100 * share:.1f} %"


def parts_add_up(by_view, views, total):
    """Whether the shares of ``views`` (``by_view``: view -> share, 0-1), each rounded to the
    one decimal :func:`share_pct` shows, add up to ``total`` as shown; where they do not, a
    line giving both says the total is before rounding."""
    shown = round(sum(round(100 * by_view[v], 1) for v in views), 1)
    return shown == round(100 * total, 1)


def rest_part(shares, views):
    """The second yardstick: what ``views`` carry of the share of ΣcᵥP that all views but
    the top one carry together (``shares``: :func:`rmsc.inspection.view_weight_shares`).
    Where the top view's table sits on Z* (step 6), Z* is shaped by those other views, so
    this part, not the share of the whole, says how much ``views`` shape it. A dict: the
    ``top`` view, the ``rest`` (the others' share together), ``carried`` (``views``'
    share), ``part`` (carried / rest), ``equal`` (an equal part: len(views) of the others)
    and ``little`` (:func:`counts_little` among the others); None when the top view is one
    of ``views``, a view is missing, ``views`` are all the others (then they carry all of
    it, as an equal part would: no yardstick) or no other view carries anything."""
    by_view = {s["view"]: s["share"] for s in shares or []}
    if not views or any(v not in by_view for v in views):
        return None
    top = max(by_view, key=by_view.get)
    others = [v for v in by_view if v != top]
    rest = sum(by_view[v] for v in others)
    if top in views or len(views) >= len(others) or rest <= 0:
        return None
    carried = sum(by_view[v] for v in views)
    return {"top": top, "rest": rest, "carried": carried, "part": carried / rest,
            "equal": len(views) / len(others), "n_others": len(others),
            "little": counts_little(carried / rest, len(views), len(others))}


_NUMBER_WORDS = dict(enumerate(["no", "one", "two", "three", "four", "five", "six", "seven",
                                "eight", "nine", "ten"]))


def rest_yardstick(shares, views):
    """:func:`rest_part` in one sentence, beside the rule's verdict on the share of the
    whole (said only where that verdict is "little"): the part ``views`` carry of what the
    views but the top one carry, against an equal part, and whether this second yardstick
    agrees (under :data:`LITTLE_SHARE` of the equal part) or not, in which case "little"
    rests on the first yardstick alone. None where :func:`rest_part` is."""
    f = rest_part(shares, views)
    if f is None:
        return None
    k, m = f["n_others"], len(views)
    names = " and ".join(views)
    how = (f"{_NUMBER_WORDS.get(m, m)} view{'s' if m > 1 else ''} in "
           f"{_NUMBER_WORDS.get(k, k)}")
    they = "they count" if m > 1 else "it counts"
    verdict = (f"under half of that, so this yardstick agrees: {they} little." if
               f["little"] else f"half of that or more, so by this yardstick {they}, "
               "and \"little\" holds by the first yardstick only.")
    return (f"**A second yardstick.** Against the views other than {f['top']} only (they "
            f"shape Z* where {f['top']}'s table sits on Z*, step 6): of the "
            f"{share_pct(f['rest'])} these {_NUMBER_WORDS.get(k, k)} carry together, {names} "
            f"carr{'y' if m > 1 else 'ies'} {share_pct(f['carried'])}, "
            f"{100 * f['part']:.0f} % of it, against {100 * f['equal']:.0f} % ({how}) for "
            f"an equal part; {verdict}")
