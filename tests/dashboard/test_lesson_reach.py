"""Step 5's "can this run test the claim?" gives each corrupted view's share beside an equal
share on its own line (the seventeenth cold reading: it pointed at step 6's table, not yet
seen), and step 2's verdict against the first method, each worked by hand."""

import numpy as np
import pandas as pd

from rmsc.dashboard.lesson_reach import SHARE_WORDS, reach_caveat, shares_words, versus_first
from tests.dashboard.test_lesson_caveat import _setting, _tables


def test_step_5s_caveat_gives_each_corrupted_views_share_beside_an_equal_one():
    # P sums: PIX 1, FOU 1, MOR 98 of 100 (the fit's cᵥ: 1): 1.0 % each, 2.0 % together,
    # against an equal share of 33.3 % each, 66.7 % for the two, half of it 33.3 %: little
    steps, data, fit = _setting([[0.25] * 4, [0.25] * 4, [24.5] * 4])
    caveat = reach_caveat(_tables(), steps, 2, data, fit)
    assert caveat == (
        f"**Can this run test the claim?** Hardly. {SHARE_WORDS} In C's fit on the clean "
        "data, PIX has 1.0 % and FOU 1.0 %, together 2.0 %, where an equal share is 33.3 % "
        "each, 66.7 % for the two; a share under half an equal share counts little. So "
        "corrupting PIX and FOU could move C's ACC little, whatever its weights did. So this "
        "step's answer is \"cannot tell\": the ACC changes alone do not bear the claim out "
        "(the line above), but this run can hardly test the claim, so that says nothing "
        "about the weights; step 3 puts this together with what the weights found.")
    assert "step 6's table" not in caveat and "cᵥ is this software's addition" in caveat


def test_share_words_define_cv_as_the_default_model_computes_it():
    from rmsc.rmsc import LOSS_SCALE, SCALE_POWER
    # cᵥ = 1/sᵥ with sᵥ the median loss at the start: the default model's scale, power 1
    assert (LOSS_SCALE, SCALE_POWER) == ("median", 1.0)
    assert "cᵥ = 1/sᵥ, with sᵥ the view's median loss at the start" in SHARE_WORDS
    # a share is needed to move Z*, not enough: said with step 6's MOR, not as a cap alone
    assert "a large share is not enough" in SHARE_WORDS and "caps" not in SHARE_WORDS
    # where the share counts, no caveat: the boundaries and the cases that say nothing are
    # in test_lesson_caveat



def test_the_shares_sum_says_when_it_is_before_rounding():
    shares = [{"view": "PIX", "share": 0.0044}, {"view": "FOU", "share": 0.0064},
              {"view": "MOR", "share": 0.9892}]
    # 0.4 + 0.6 = 1.0 and 1.08 rounds to 1.1: the sum is said to be before rounding
    assert shares_words(shares, ["PIX", "FOU"], 0.0108, 1 / 3) == (
        "PIX has 0.4 % and FOU 0.6 %, together 1.1 % (before rounding), where an equal "
        "share is 33.3 % each, 66.7 % for the two")
    assert shares_words(shares, ["MOR"], 0.9892, 1 / 3) == (
        "MOR has 98.9 %, where an equal share is 33.3 %")


def _one(accs, stds, names=("SC-BSV", "SSC-AVG", "RMSC")):
    return pd.DataFrame({"method": list(names), "acc_mean": accs, "acc_std": stds})


def test_step_2s_verdict_against_the_first_method():
    # Digit-small: SSC-AVG 5.51 below SC-BSV, beyond 3.27 but under twice it (narrow);
    # RMSC 11.92 above, beyond 4.15 by more than twice it
    assert versus_first(_one([0.8223, 0.7672, 0.9415], [0.0288, 0.0327, 0.0415])) == (
        "**Against SC-BSV** (82.23 ± 2.88 %): SSC-AVG's ACC, 76.72 ± 3.27 %, is 5.51 "
        "points lower, more than the ± spread (3.27), but only by 2.24 points: a narrow "
        "margin; RMSC's ACC, 94.15 ± 4.15 %, is 11.92 points higher, more than the ± "
        "spread. So only RMSC beats SC-BSV beyond the noise.")
    # both above, one within its ±: only the other beats it
    said = versus_first(_one([0.80, 0.83, 0.90], [0.03, 0.02, 0.01]))
    assert "SSC-AVG's ACC, 83.00 ± 2.00 %, is 3.00 points higher, within the ± spread" in said
    assert said.endswith("So only RMSC beats SC-BSV beyond the noise.")
    assert versus_first(_one([0.80, 0.90, 0.95], [0.01] * 3)).endswith(
        "So SSC-AVG and RMSC beat SC-BSV beyond the noise.")
    assert versus_first(_one([0.90, 0.80, 0.91], [0.01] * 3)).endswith(
        "So no method beats SC-BSV beyond the noise.")
    assert versus_first(_one([0.80, 0.90], [0.01] * 2, ("A", "B"))).endswith(
        "So B beats A beyond the noise.")
    # no spreads, or one method: nothing to judge
    assert versus_first(_one([0.8, 0.9, 0.95], [np.nan] * 3)) is None
    assert versus_first(_one([0.8], [0.01], ("A",))) is None
