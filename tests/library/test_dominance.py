"""rmsc.dominance: when one view carries most of the consensus weight, what is measured
about it and the sentence that says it, worked by hand."""

import numpy as np
import pytest

import rmsc
from rmsc.dominance import (
    directions_text,
    dominance_facts,
    dominance_message,
    dominance_threshold,
)
from rmsc.inspection import view_weight_shares
from rmsc.preprocessing import spread_directions


def test_no_message_when_the_weight_is_shared():
    rng = np.random.default_rng(0)
    P = rng.uniform(0.8, 1.2, size=(4, 50))
    assert dominance_message(P, gamma=1e-5) is None
    assert dominance_threshold(2) == 0.75 and dominance_threshold(6) == 0.5


def test_message_states_the_measured_facts():
    gamma = 1e-5
    rng = np.random.default_rng(1)
    losses = np.vstack([np.r_[np.zeros(30), rng.uniform(1e-4, 2e-4, 70)],
                        rng.uniform(0.05, 0.1, 100), rng.uniform(0.05, 0.1, 100)])
    P = 1.0 / np.sqrt(gamma + losses)
    msg = dominance_message(P, gamma=gamma, view_names=["MOR", "PIX", "FOU"],
                            n_features=[6, 240, 76])
    rows = view_weight_shares(P, gamma=gamma)
    assert msg.startswith(f"MOR carries {rows[0]['share']:.0%} of the consensus weight")
    assert "an equal share would be 33% of 3 views" in msg
    assert f"{rows[0]['at_cap']:.0%} of its samples are at the weight cap" in msg
    assert rows[0]["at_cap"] == pytest.approx(0.30)  # the 30 exact ones (loss 0 <= gamma)
    assert "1/√γ = 316" in msg
    assert f"{rows[0]['median_loss']:.3g}" in msg
    # without the views' spread no reason is given, and the feature counts are not one
    assert "features" not in msg and "directions" not in msg


def _hand_weights():
    """P of three views at gamma = 0.01 (cap 10, at the cap from 1/sqrt(0.02) = 7.07 up),
    each weight 1/sqrt(gamma + loss): losses 0 -> 10, 0.03 -> 5, 0.24 -> 2, 0.99 -> 1."""
    return np.array([[10.0, 10, 5, 5], [1, 1, 1, 1], [2, 2, 1, 1]])


def test_dominance_facts_by_hand():
    # sums 30, 4, 6 of 40: view A has 75 % (threshold for 3 views: 50 %); half its samples
    # at the cap; median losses A 0.015, B 0.99, C 0.615, the others' median 0.8025
    f = dominance_facts(_hand_weights(), gamma=0.01, view_names=["A", "B", "C"],
                        n_features=[6, 240, 76])
    assert f["view"] == "A" and f["n_views"] == 3
    assert f["share"] == pytest.approx(0.75) and f["equal"] == pytest.approx(1 / 3)
    assert f["at_cap"] == 0.5 and f["cap"] == pytest.approx(10)
    assert f["median_loss"] == pytest.approx(0.015)
    assert f["other_loss"] == pytest.approx(0.8025)
    assert f["loss_ratio"] == pytest.approx(53.5)
    assert f["n_features"] == 6
    assert f["directions"] is None and f["other_directions"] is None  # no spread given
    assert f["unit"] is None and f["unit_ratio"] is None and f["factor_ratio"] is None
    # factors c_v = 1/s_v (scale_power 1): A's weights count 15 times the others' median,
    # its share (30 * 1000 of 30 * 1000 + 4 * 50 + 6 * 100) 30000 / 30800
    f = dominance_facts(_hand_weights(), gamma=0.01, factors=np.array([1000.0, 50, 100]),
                        scale=np.array([0.001, 0.02, 0.01]))
    assert f["factor_ratio"] == pytest.approx(1000 / 75) and f["unit_ratio"] == pytest.approx(15)
    assert f["share"] == pytest.approx(30000 / 30800)
    # the scaled model: losses in units s_v (A 0.001, B 0.02, C 0.01): A's losses
    # 1.5e-5, B's 0.0198, C's 0.00615; A's unit 15 times below the others' median
    f = dominance_facts(_hand_weights(), gamma=0.01, factors=np.ones(3),
                        scale=np.array([0.001, 0.02, 0.01]))
    assert f["unit"] == pytest.approx(0.001) and f["unit_ratio"] == pytest.approx(15)
    assert f["factor_ratio"] is None  # equal factors c_v: none favours A
    assert f["loss_ratio"] == pytest.approx(0.012975 / 1.5e-5)
    # shared weights: nothing dominates
    assert dominance_facts(np.ones((3, 4)), gamma=0.01) is None


def test_message_on_a_fit_where_a_view_has_few_features():
    # A 2-feature view next to a 40-feature one: the 2-feature view's losses are far
    # smaller, so under the paper's model it takes most of the weight, and the message
    # says so with its numbers.
    d = rmsc.datasets.make_multiview_subspaces(n_clusters=3, n_per_cluster=20, n_views=2,
                                               view_dims=(2, 40), subspace_dim=2,
                                               random_state=0)
    est = rmsc.RMSC(3, loss_scale=None, gamma=1e-5, random_state=0, max_iter=10,
                    tol=0).fit(d.views)  # the paper's model, ten iterations
    rows = view_weight_shares(est.weights_, gamma=est.gamma, n_features=[2, 40])
    assert rows[0]["share"] > dominance_threshold(2)
    assert rows[0]["median_loss"] < rows[1]["median_loss"] / 10
    msg = dominance_message(est.weights_, gamma=est.gamma, view_names=["small", "big"],
                            n_features=[2, 40])
    assert msg.startswith(f"small carries {rows[0]['share']:.0%}")
    # its samples spread along fewer directions than the other view's (computed here):
    # the message gives that reason, with the two views' numbers
    spread = [spread_directions(X) for X in d.views]
    assert spread[0]["directions"] < spread[1]["directions"]
    with_spread = dominance_message(est.weights_, gamma=est.gamma, view_names=["small", "big"],
                                    n_features=[2, 40], spread=spread)
    assert with_spread.startswith(msg + " small's samples spread along few directions (it has "
                                  "2 features): its first principal direction keeps "
                                  f"{spread[0]['pc1']:.0%} of its spread, against "
                                  f"{spread[1]['pc1']:.0%} in the other view, and its whole "
                                  "spread would fit in "
                                  f"{spread[0]['directions']:.1f} directions each holding an "
                                  "equal part")
    assert (f"against {spread[1]['directions']:.1f} for the other view.") in with_spread
    assert f"{rows[1]['median_loss'] / rows[0]['median_loss']:.3g} times below" in msg


def test_few_directions_not_few_features_is_the_reason_by_hand():
    # view A carries 75 % (_hand_weights) and has the MOST features (240), but its samples
    # spread along the fewest directions: 1.5 against B's 3.0 and C's 5.0 (PC1 80 % against
    # 50 % and 30 %)
    spread = [{"pc1": 0.8, "directions": 1.5}, {"pc1": 0.5, "directions": 3.0},
              {"pc1": 0.3, "directions": 5.0}]
    kw = dict(gamma=0.01, view_names=["A", "B", "C"], n_features=[240, 6, 76])
    f = dominance_facts(_hand_weights(), **kw, spread=spread)
    assert f["directions"] == 1.5 and f["pc1"] == 0.8
    assert f["other_directions"] == (3.0, 5.0) and f["other_pc1"] == (0.3, 0.5)
    reason = ("A's samples spread along few directions (it has 240 features): its first "
              "principal direction keeps 80% of its spread, against 30% to 50% in the "
              "other views, and its whole spread would fit in 1.5 directions each holding "
              "an equal part, against 3.0 to 5.0 for the other views. "
              "Along so few directions almost any sample is "
              "nearly an exact mix of a few others, whatever its class. So A's large weight "
              "says it is easy to rebuild, not that it tells the classes apart.")
    assert directions_text(f) == reason
    # in plain words: no "participation ratio" or "spectrum" a student has not met
    assert "participation" not in reason and "spectrum" not in reason
    assert dominance_message(_hand_weights(), **kw, spread=spread).endswith(
        "median (0.802). " + reason)
    # the lesson's wording of the same sentence: its percentages, its pointer at PC1
    assert directions_text(f, pct=lambda s: f"{100 * s:.0f} %", pc1="its PC1").startswith(
        "A's samples spread along few directions (it has 240 features): its PC1 keeps 80 %")
    # the narrowest spread is C's, not the top view's: no reason is given, and the
    # feature counts are not given as one
    spread[2]["directions"] = 1.2
    f = dominance_facts(_hand_weights(), **kw, spread=spread)
    assert f["directions"] is None and f["pc1"] is None and f["other_directions"] is None
    assert directions_text(f) is None
    msg = dominance_message(_hand_weights(), **kw, spread=spread)
    assert msg.endswith("median (0.802).")
    assert "directions" not in msg and "features" not in msg
    # a tie with the narrowest is not the narrowest
    spread[2]["directions"] = 1.5
    assert dominance_facts(_hand_weights(), **kw, spread=spread)["directions"] is None
