"""The gap between two changes has its own rule (the eleventh cold reading: step 8 judged two
changes, each within its own ±, against the largest of their four ACCs' ± and called the
claim "not borne out"): each change carries its own ± (the larger of its two ACCs'), and two
changes are apart only when their ranges do not overlap. Worked by hand."""

import pandas as pd
import pytest

from rmsc.dashboard import lesson as L


def test_a_change_carries_the_larger_of_its_two_accs_spreads():
    assert L.change_spread([4.15, 4.14]) == 4.15
    assert L.change_spread([1.72, 3.27]) == 3.27
    assert L.change_spread([3.0, None]) is None and L.change_spread([]) is None


def test_two_changes_are_apart_only_beyond_their_two_spreads_added_up():
    # equal to the sum: the ranges touch, noise
    assert L.changes_within_spread(7.42, 4.15, 3.27) is True
    # the shown values decide, not the float sum (0.01 + 0.06 = 0.06999999999999999)
    assert L.changes_within_spread(0.07, 0.01, 0.06) is True
    assert L.changes_within_spread(-7.42, 4.15, 3.27) is True  # either way round
    assert L.changes_within_spread(7.43, 4.15, 3.27) is False
    assert L.changes_within_spread(6.80, 3.53, 3.27) is True
    # a gap beyond the larger ± alone, within the sum: noise (step 8's 4.66 against 4.15)
    assert L.within_spread(4.66, [4.15, 3.14, 3.27, 3.82]) is False
    assert L.changes_within_spread(4.66, 4.15, 3.82) is True
    # a spread unknown: cannot tell, as within_spread
    assert L.changes_within_spread(9.0, None, 1.0) is None
    assert L.changes_within_spread(9.0, 1.0, None) is None
    # the rule in words, beside the one for a change and a lead
    assert "no larger than the larger of their two ±" in L.SPREAD_RULE
    assert "two changes count as level" in L.SPREAD_RULE and "two ± added up" in L.SPREAD_RULE
    # why the ± is the yardstick, and what it leaves out (step 2 of the twelfth cold reading)
    assert "the one spread every ACC here comes with" in L.SPREAD_MEANING
    assert "which samples were drawn or corrupted" in L.SPREAD_MEANING
    # what the two ACCs are, for a change and for a lead, in plain sentences (the twelfth cold
    # reading read "a change, of the method's two; a lead, of the two methods'" three times)
    assert "For a method's change, the two are its ACC on the clean data and its ACC with " \
        "the outliers" in L.SPREAD_RULE and "method's two;" not in L.SPREAD_RULE


def test_a_gap_beyond_the_sum_names_the_sum_and_a_narrow_margin():
    # 7.71 against 4.15 + 3.27 = 7.42: by 0.29, under twice the sum (14.84): narrow
    assert L.gap_words(7.71, 4.15, 3.27) == (
        "more than the two changes' ± added up (4.15 + 3.27 = 7.42), but only by 0.29 "
        f"points. A narrow margin, as {L.SPREAD_LIMIT}")
    # twice the sum exactly: not narrow, the sum still named
    assert L.gap_words(-14.84, 4.15, 3.27) == (
        "more than the two changes' ± added up (4.15 + 3.27 = 7.42)")


def _tables(clean, dirty, sd_clean, sd_dirty):
    names = ["SSC-AVG", "RMSC-WV", "RMSC"]
    return {"clean": pd.DataFrame({"method": names, "acc_mean": clean, "acc_std": sd_clean}),
            "with outliers": pd.DataFrame({"method": names, "acc_mean": dirty,
                                           "acc_std": sd_dirty})}


HEAD = "**The paper's claim, judged on the ACC changes alone.** "


def test_step_8_on_digit_small_cannot_be_told():
    # docs/lesson.md's step 8 on Digit-small: RMSC 94.15 ± 4.15 -> 91.37 ± 3.14 (-2.78),
    # RMSC-WV 93.58 ± 4.83 -> 93.22 ± 4.93 (-0.36), SSC-AVG 76.72 ± 3.27 -> 78.60 ± 3.82
    # (+1.88), every change within its own ±
    tables = _tables([0.7672, 0.9358, 0.9415], [0.7860, 0.9322, 0.9137],
                     [0.0327, 0.0483, 0.0415], [0.0382, 0.0493, 0.0314])
    f = L.claim_facts(tables, "RMSC")
    assert f["rival"] == "SSC-AVG" and f["gap"] == pytest.approx(-4.66)
    assert f["spread"] == {"SSC-AVG": 3.82, "RMSC-WV": 4.93, "RMSC": 4.15}
    # 4.66 apart, within 4.15 + 3.82 = 7.97 (beyond 4.15, the largest of the four ACCs' ±,
    # which called it "not borne out" before); RMSC-WV's -0.36 is 2.42 above RMSC's, within
    # 4.15 + 4.93 = 9.08: every change level with the lowest
    assert f["verdict"] == "cannot be told" and f["gap_words"] is None
    assert f["worst"] == ["RMSC", "RMSC-WV", "SSC-AVG"]
    assert L.claim_sentence(tables, "RMSC", closing=False) == (
        HEAD + "RMSC-WV and RMSC are level on the highest ACC with outliers: RMSC-WV's "
        "93.22 ± 4.93 % is 1.85 points above RMSC's 91.37 ± 3.14 %, within the ± spread. "
        "The best change is SSC-AVG's (+1.88 points, RMSC -2.78). No method fared worst "
        "beyond the noise: RMSC (-2.78), RMSC-WV (-0.36) and SSC-AVG (+1.88) are each no "
        "further from the lowest change than their two ± added up. The claim, that RMSC's ACC fares best "
        "under the outliers (the smallest loss, or the largest gain), cannot be told from "
        "the ± spread here.")


def test_step_5_on_digit_small_is_still_not_borne_out_narrowly():
    # step 5 on Digit-small (test_lesson's eighth-reading screen): SSC-AVG 76.716 ± 3.27 ->
    # 84.449 ± 1.72 (+7.73), RMSC-WV 93.584 ± 4.83 -> 94.434 ± 3.64 (+0.85), RMSC 94.148 ±
    # 4.15 -> 94.166 ± 4.14 (+0.02): 7.71 apart, beyond 4.15 + 3.27 = 7.42 by 0.29
    tables = _tables([0.76716, 0.93584, 0.94148], [0.84449, 0.94434, 0.94166],
                     [0.0327, 0.0483, 0.0415], [0.0172, 0.0364, 0.0414])
    f = L.claim_facts(tables, "RMSC")
    assert f["verdict"] == "not borne out" and f["gap"] == pytest.approx(-7.71)
    # RMSC's +0.02 and RMSC-WV's +0.85: 0.83 apart within 4.15 + 4.83 = 8.98, a tie; and
    # RMSC-WV's is 6.88 below SSC-AVG's, within 4.83 + 3.27 = 8.10: level with both ends
    # (the twelfth cold reading), while RMSC's is apart from SSC-AVG's
    assert f["worst"] == ["RMSC", "RMSC-WV"] and f["between"] == {"RMSC-WV": ["SSC-AVG"]}
    assert L.claim_sentence(tables, "RMSC", closing=False) == (
        HEAD + "RMSC-WV and RMSC are level on the highest ACC with outliers: RMSC-WV's "
        "94.43 ± 3.64 % is 0.26 points above RMSC's 94.17 ± 4.14 %, within the ± spread. "
        "The best change is SSC-AVG's (+7.73 points, RMSC +0.02). RMSC gained the least "
        "(+0.02), but the gain of RMSC-WV (+0.85) is within noise of it (no further apart "
        "than their two ± added up), so neither fared worse than the other. RMSC-WV's gain "
        "is also within noise of SSC-AVG's (+7.73): only RMSC's change is told apart from "
        "SSC-AVG's. The claim, "
        "that RMSC's ACC fares best under the outliers (the smallest loss, or the largest "
        "gain), is not borne out here. The two changes are 7.71 points apart, more than "
        "the two changes' ± added up (4.15 + 3.27 = 7.42), but only by 0.29 points. A "
        f"narrow margin, as {L.SPREAD_LIMIT}. This rests on SSC-AVG's gain, which the line "
        "above says can be the luck of this one draw: another seed may not repeat it.")
    # no sentence of it runs past a few dozen words
    line = L.claim_sentence(tables, "RMSC")
    assert max(len(x.split()) for x in line.split(". ")) <= 40, line


def _facts(changes, spreads, method=None):
    """claim_facts of hand-made tables: each method's clean ACC 50 %, its outliers ACC
    50 % + its change, both with the one ± (in points)."""
    names = list(changes)
    clean = pd.DataFrame({"method": names, "acc_mean": [0.5] * len(names),
                          "acc_std": [spreads[m] / 100 for m in names]})
    dirty = pd.DataFrame({"method": names,
                          "acc_mean": [0.5 + changes[m] / 100 for m in names],
                          "acc_std": [spreads[m] / 100 for m in names]})
    return L.claim_facts({"clean": clean, "with outliers": dirty}, method or names[0])


#: A tie for the worst, as :func:`worst_words` says it after the lowest change.
TIE = "within noise of it (no further apart than their two ± added up)"


def test_the_worst_change_alone_or_a_tie_that_no_higher_change_is_level_with():
    # one worst: B's +3.00 is 3.00 above A's, beyond 1 + 1 = 2
    f = _facts({"A": 0.0, "B": 3.0}, {"A": 1.0, "B": 1.0})
    assert f["worst"] == ["A"] and f["between"] == {}
    assert L.worst_words(f) == "A gained the least (+0.00): it fared worst, beyond the noise"
    # a tie (B 0.50 above A, within 2) that C's +10.00 is apart from (9.50 above B)
    f = _facts({"A": 0.0, "B": 0.5, "C": 10.0}, {"A": 1.0, "B": 1.0, "C": 1.0})
    assert f["worst"] == ["A", "B"] and f["between"] == {}
    assert L.worst_words(f) == (f"A gained the least (+0.00), but the gain of B (+0.50) is "
                                f"{TIE}, so neither fared worse than the other")
    # every change level with the lowest: no end to stand between
    f = _facts({"A": 0.0, "B": 1.5, "C": 2.0}, {"A": 1.0, "B": 1.0, "C": 1.0})
    assert f["worst"] == ["A", "B", "C"] and f["between"] == {}
    assert L.worst_words(f).startswith("no method fared worst beyond the noise")


def test_a_tied_change_also_level_with_a_higher_one_is_said_to_sit_between():
    # B +1.50 is level with A +0.00 (1.50 <= 2) and with C +3.20 (1.70 <= 2); A and C are
    # 3.20 apart (> 2); D's +5.00 is apart from both A and B (3.50 > 2)
    f = _facts({"A": 0.0, "B": 1.5, "C": 3.2, "D": 5.0},
               {"A": 1.0, "B": 1.0, "C": 1.0, "D": 1.0})
    assert f["worst"] == ["A", "B"] and f["between"] == {"B": ["C"]}
    assert L.worst_words(f) == (f"A gained the least (+0.00), but the gain of B (+1.50) is "
                                f"{TIE}, so neither fared worse than the other. B's gain is "
                                "also within noise of C's (+3.20): only A's change is told "
                                "apart from C's")
    # two tied changes apart from the higher one: A's, and M's with its small ± (3.00 above
    # it, beyond 0.2 + 1 = 1.2); N's is level with it (1.70 <= 2)
    f = _facts({"A": 0.0, "M": 0.5, "N": 1.8, "U": 3.5},
               {"A": 1.0, "M": 0.2, "N": 1.0, "U": 1.0})
    assert f["worst"] == ["A", "M", "N"] and f["between"] == {"N": ["U"]}
    assert L.worst_words(f) == (
        f"A gained the least (+0.00), but the gains of M (+0.50) and N (+1.80) are {TIE}, "
        "so none of them fared worse than the others. N's gain is also within noise of U's "
        "(+3.50): only A's and M's changes are told apart from U's")
    # one tied change level with two higher ones (1.50 and 1.90 above it)
    f = _facts({"A": 0.0, "M": 2.0, "U": 3.5, "V": 3.9},
               {"A": 1.0, "M": 1.0, "U": 1.0, "V": 1.0})
    assert f["between"] == {"M": ["U", "V"]}
    assert L.worst_words(f) == (
        f"A gained the least (+0.00), but the gain of M (+2.00) is {TIE}, so neither fared "
        "worse than the other. M's gain is also within noise of U's (+3.50) and V's "
        "(+3.90): only A's change is told apart from U's and V's")
    # two tied changes each level with a different higher one
    f = _facts({"A": 0.0, "M": 1.0, "N": 2.0, "U": 2.9, "V": 3.95},
               {"A": 1.0, "M": 0.95, "N": 1.0, "U": 1.0, "V": 1.0})
    assert f["worst"] == ["A", "M", "N"]
    assert f["between"] == {"M": ["U"], "N": ["U", "V"]}
    assert L.worst_words(f) == (
        f"A gained the least (+0.00), but the gains of M (+1.00) and N (+2.00) are {TIE}, "
        "so none of them fared worse than the others. M's gain is also within noise of U's "
        "(+2.90); N's gain is also within noise of U's (+2.90) and V's (+3.95): only A's "
        "change is told apart from U's and V's")


def test_the_worst_of_losses_is_the_largest_loss_and_a_mixed_tie_says_change():
    # losses: A -4.00 and B -3.00 level (1.00 <= 2), C -0.50 apart from both (2.50 > 2)
    f = _facts({"A": -4.0, "B": -3.0, "C": -0.5}, {"A": 1.0, "B": 1.0, "C": 1.0})
    assert f["worst"] == ["A", "B"] and f["between"] == {}
    assert L.worst_words(f) == (f"A lost the most (-4.00), but the loss of B (-3.00) is "
                                f"{TIE}, so neither fared worse than the other")
    # a loss tied with a gain and a loss: "changes"; B's -1.00 is also level with C's +1.50
    f = _facts({"A": -1.8, "B": -1.0, "D": 0.1, "C": 1.5},
               {"A": 1.0, "B": 1.0, "D": 1.0, "C": 1.0})
    assert f["worst"] == ["A", "B", "D"] and f["between"] == {"D": ["C"]}
    assert L.worst_words(f) == (
        f"A lost the most (-1.80), but the changes of B (-1.00) and D (+0.10) are {TIE}, so "
        "none of them fared worse than the others. D's gain is also within noise of C's "
        "(+1.50): only A's and B's changes are told apart from C's")
