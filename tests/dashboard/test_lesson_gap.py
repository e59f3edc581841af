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
    assert "no larger than the largest ±" in L.SPREAD_RULE
    assert "Two changes" in L.SPREAD_RULE and "two ± added up" in L.SPREAD_RULE


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
    # 84.449 ± 1.72 (+7.73), RMSC-WV 93.584 -> 94.434 (+0.85, ± 3.64), RMSC 94.148 ± 4.15 ->
    # 94.166 ± 4.14 (+0.02): 7.71 apart, beyond 4.15 + 3.27 = 7.42 by 0.29
    tables = _tables([0.76716, 0.93584, 0.94148], [0.84449, 0.94434, 0.94166],
                     [0.0327, 0.0364, 0.0415], [0.0172, 0.0364, 0.0414])
    f = L.claim_facts(tables, "RMSC")
    assert f["verdict"] == "not borne out" and f["gap"] == pytest.approx(-7.71)
    # RMSC's +0.02 and RMSC-WV's +0.85: 0.83 apart within 4.15 + 3.64 = 7.79, a tie
    assert f["worst"] == ["RMSC", "RMSC-WV"]
    assert L.claim_sentence(tables, "RMSC", closing=False) == (
        HEAD + "RMSC-WV and RMSC are level on the highest ACC with outliers: RMSC-WV's "
        "94.43 ± 3.64 % is 0.26 points above RMSC's 94.17 ± 4.14 %, within the ± spread. "
        "The best change is SSC-AVG's (+7.73 points, RMSC +0.02). RMSC (+0.02) and RMSC-WV "
        "(+0.85) tie for the worst change (no further from the lowest than their two ± added "
        "up). The claim, "
        "that RMSC's ACC fares best under the outliers (the smallest loss, or the largest "
        "gain), is not borne out here. The two changes are 7.71 points apart, more than "
        "the two changes' ± added up (4.15 + 3.27 = 7.42), but only by 0.29 points. A "
        f"narrow margin, as {L.SPREAD_LIMIT}. This rests on SSC-AVG's gain, which the line "
        "above says can be the luck of this one draw: another seed may not repeat it.")
    # no sentence of it runs past a few dozen words
    line = L.claim_sentence(tables, "RMSC")
    assert max(len(x.split()) for x in line.split(". ")) <= 40, line
