"""Sentences computed from the numbers on a page (rmsc.dashboard.sentences): each says what
those numbers show, and turns when they turn."""

import numpy as np
import pandas as pd

from rmsc import dashboard as dash


def test_fusion_sentence_follows_the_within_class_shares():
    # the case: the k-NN graphs of 4 of 6 views above the consensus
    singles = {"PIX: k-NN graph": 96.0, "FOU: k-NN graph": 90.2, "FAC: k-NN graph": 94.1,
               "ZER: k-NN graph": 60.0, "KAR: k-NN graph": 92.5, "MOR: k-NN graph": 50.0}
    text = dash.fusion_sentence(67.8, singles)
    assert text.startswith("Here 4 of the 6 single-view affinities keep more of their weight "
                           "within classes than the consensus (67.8 %; best: PIX: k-NN graph, "
                           "96.0 %)")
    assert "fusing" not in text
    above = dash.fusion_sentence(97.0, singles)
    assert above.startswith("Here the consensus keeps more of its weight within classes "
                            "(97.0 %) than every single-view affinity of the table (best "
                            "96.0 %)")
    assert dash.fusion_sentence(50.0, {"A": float("nan")}) == ""
    assert dash.fusion_sentence(float("nan"), singles) == ""


def _views(acc_by_method):
    rows = []
    for method, accs in acc_by_method.items():
        for k, acc in enumerate(accs, start=1):
            rows.append({"method": method, "n_views": k, "acc_mean": acc})
    return pd.DataFrame(rows)


def test_views_sentence_says_where_adding_a_view_lowered_acc():
    # the chart: 94.4 % with 3 views, 86 % with 5, 93.7 % with 6
    table = _views({"RMSC": [0.80, 0.90, 0.944, 0.93, 0.86, 0.937],
                    "SSC-AVG": [0.50, 0.60, 0.70, 0.702, 0.75, 0.80]})
    text = dash.views_sentence(table)
    assert text == ("Here: RMSC lost ACC on 2 of the 5 views added; best with 3 views "
                    "(94.4 %), 93.7 % with all 6; SSC-AVG never lost more than 0.5 points when "
                    "a view was added (50.0 % with 1 view, 80.0 % with 6).")
    # a failed point (NaN) is left out; a method with one point says nothing
    table = _views({"RMSC": [np.nan, 0.9, 0.95], "MSC": [np.nan, np.nan, 0.9]})
    assert dash.views_sentence(table) == (
        "Here: RMSC never lost more than 0.5 points when a view was added (90.0 % with 2 "
        "views, 95.0 % with 3).")
    assert dash.views_sentence(_views({"MSC": [0.9]})) == ""


def _trace(accs, final):
    rows = [{"iteration": 1 + 10 * i, "acc": a, "final": False} for i, a in enumerate(accs)]
    return rows + [{"iteration": 57, "acc": final, "final": True}]


def test_trace_sentence_says_why_the_trace_sits_under_the_fit():
    text = dash.trace_sentence(_trace([60.0, 75.5], 89.5), placement=True)
    assert text.startswith("The last recorded clustering (iteration 11) scores 75.5 % ACC, "
                           "14.0 points under the fit's 89.5 %: each recorded point is one "
                           "k-means run on the plain spectral embedding")
    assert "20 k-means runs, after placing the samples" in text
    assert "placing" not in dash.trace_sentence(_trace([75.5], 89.5), placement=False)
    assert "over the fit's" in dash.trace_sentence(_trace([91.0], 89.5), placement=False)
    close = dash.trace_sentence(_trace([89.0], 89.5), placement=False)
    assert "within a point of the fit's 89.5 %" in close
    # no labels (no ACC), or nothing recorded before the end: nothing to say
    assert dash.trace_sentence(_trace([None], None), placement=True) == ""
    assert dash.trace_sentence(_trace([], 89.5), placement=True) == ""
