"""Step 5's verdict carries the closing step's caveat where the run cannot test the claim
(the tenth cold reading: step 5 rested on a gain step 7 withdrew), worked by hand."""

from types import SimpleNamespace

import numpy as np
import pandas as pd

from rmsc.dashboard import lesson as L
from rmsc.dashboard.lesson_reach import reach_caveat


def _tables():
    # changes: A +7.73 (beyond its ± 3.27), C +0.03: the claim for C is not borne out
    return {"clean": pd.DataFrame({"method": ["A", "C"], "acc_mean": [0.7672, 0.9065],
                                   "acc_std": [0.0327, 0.0353]}),
            "with outliers": pd.DataFrame({"method": ["A", "C"], "acc_mean": [0.8445, 0.9068],
                                           "acc_std": [0.0172, 0.0244]})}


def _setting(weights, claim="C"):
    """A lesson whose step 2 checks ``claim`` and step 3 sums up, the corrupted data (PIX and
    FOU, sample 0) and a clean fit with ``weights`` (3 views x 4 samples, paper's model)."""
    steps = [SimpleNamespace(show="compare", claim=None),
             SimpleNamespace(show="compare", claim=claim),
             SimpleNamespace(show="summary", claim=claim)]
    mask = np.zeros((3, 4), bool)
    mask[:2, 0] = True
    data = SimpleNamespace(view_names=["PIX", "FOU", "MOR"], outlier_mask=mask,
                           views=[np.zeros((4, 5)), np.zeros((4, 3)), np.zeros((4, 2))])
    fit = SimpleNamespace(weights=np.asarray(weights, float),
                          model=SimpleNamespace(gamma=1e-5), params=SimpleNamespace(gamma=1e-5))
    return steps, data, fit


def test_step_5_says_the_run_cannot_test_the_claim_when_the_corrupted_views_count_little():
    # P sums: PIX 1, FOU 1, MOR 98 of 100: PIX and FOU carry 2.0 %, an equal share of two
    # views in three is 66.7 %, half of it 33.3 %: little (the whole line, worked by hand,
    # is in test_lesson_reach)
    steps, data, fit = _setting([[0.25] * 4, [0.25] * 4, [24.5] * 4])
    caveat = reach_caveat(_tables(), steps, 2, data, fit)
    assert caveat.startswith("**Can this run test the claim?** Hardly.")
    assert "answer is \"cannot tell\": the ACC changes alone do not bear the claim out (the " \
           "line above), but this run can hardly test" in caveat
    # the claim for A (the best change, beyond the noise) holds on the ACC alone
    steps_a, data_a, fit_a = _setting([[0.25] * 4, [0.25] * 4, [24.5] * 4], claim="A")
    assert "answer is \"cannot tell\": the ACC changes alone bear the claim out (the line " \
           "above), but this run can hardly test" in reach_caveat(_tables(), steps_a, 2, data_a,
                                                                  fit_a)
    # the claim line loses its pointer to the closing step, which the caveat answers
    lines = L.comparison_sentences(_tables(), "C")
    assert lines[-1].endswith(L.CLAIM_ASKS_MORE)
    carried = L.carry_caveat(lines, caveat)
    assert carried[:-2] == lines[:-1] and carried[-1] == caveat
    assert carried[-2] == lines[-1][:-len(L.CLAIM_ASKS_MORE)].rstrip()
    assert L.carry_caveat(lines, None) == lines


def test_no_caveat_where_the_corrupted_views_count_or_nothing_is_checked():
    # PIX and FOU carry 40 % (≥ half of 66.7 %): they count, the verdict stands alone
    steps, data, fit = _setting([[2.0] * 4, [2.0] * 4, [6.0] * 4])
    assert reach_caveat(_tables(), steps, 2, data, fit) is None
    # just under half of an equal share (33.2 %): little
    steps, data, fit = _setting([[1.66] * 4, [1.66] * 4, [6.68] * 4])
    assert reach_caveat(_tables(), steps, 2, data, fit) is not None
    # no clean fit at hand, no claim on the step, no outliers: nothing said
    assert reach_caveat(_tables(), steps, 2, data, None) is None
    assert reach_caveat(_tables(), steps, 1, data, fit) is None
    data.outlier_mask = np.zeros((3, 4), bool)
    assert reach_caveat(_tables(), steps, 2, data, fit) is None
    # no summary step after it: "the closing step"; changes level: it says why, not revises
    steps, data, fit = _setting([[0.25] * 4, [0.25] * 4, [24.5] * 4])
    level = {k: t.assign(acc_mean=[0.9, 0.9 + (k != "clean") * 0.01]) for k, t in
             _tables().items()}
    assert reach_caveat(level, steps[:2], 2, data, fit).endswith(
        "is no test of the weights: the closing step says why the ACC could not have told "
        "more.")
