"""The rule for shares the lesson judges by (steps 5 to 8), with its second yardstick and
step 6's sentence reconciling the two (the twentieth cold reading), checked by hand."""

from rmsc.dashboard import lesson_rules as R
from rmsc.dashboard.lesson_text import little_words

_VIEWS = ["PIX", "FOU", "FAC", "ZER", "KAR", "MOR"]


def _shares(values):
    return [{"view": v, "share": x} for v, x in zip(_VIEWS, values)]


def test_counts_little_is_half_an_equal_share():
    # two views of six: an equal share 33.3 %, half of it 16.7 %
    assert R.counts_little(0.16, 2, 6) and not R.counts_little(0.17, 2, 6)
    assert R.LITTLE_RULE == "a share under half an equal share counts little"


def test_the_second_yardstick_by_hand():
    shares = _shares([0.004, 0.006, 0.075, 0.022, 0.003, 0.890])
    f = R.rest_part(shares, ["PIX", "FOU"])
    # the five views but MOR carry 0.110; PIX + FOU 0.010 of it, 0.0909; an equal part
    # is two of five, 0.4; half of it 0.2: little
    assert f["top"] == "MOR" and f["n_others"] == 5
    assert abs(f["rest"] - 0.110) < 1e-12 and abs(f["carried"] - 0.010) < 1e-12
    assert abs(f["part"] - 0.010 / 0.110) < 1e-12 and f["equal"] == 0.4 and f["little"]
    assert R.rest_yardstick(shares, ["PIX", "FOU"]) == (
        "**A second yardstick.** Against the views other than MOR only (they shape Z* where "
        "MOR's table sits on Z*, step 6): of the 11.0 % these five carry together, PIX and "
        "FOU carry 1.0 %, 9 % of it, against 40 % (two views in five) for an equal part; "
        "under half of that, so this yardstick agrees: they count little.")
    # FAC alone: 0.075 of 0.110 = 68 %, against one in five (20 %): the yardsticks disagree
    said = R.rest_yardstick(shares, ["FAC"])
    assert not R.rest_part(shares, ["FAC"])["little"]
    assert said.endswith("FAC carries 7.5 %, 68 % of it, against 20 % (one view in five) "
                         "for an equal part; half of that or more, so by this yardstick it "
                         "counts, and \"little\" holds by the first yardstick only."), said
    # just under half an equal part (0.2 of what the others carry) is little, above it not
    edge = _shares([0.01, 0.0099, 0.04, 0.02, 0.0201, 0.9])  # 0.0199 of 0.1
    assert R.rest_part(edge, ["PIX", "FOU"])["little"]
    edge = _shares([0.01, 0.0101, 0.04, 0.02, 0.0199, 0.9])  # 0.0201 of 0.1
    assert not R.rest_part(edge, ["PIX", "FOU"])["little"]
    # no yardstick: the top view among the corrupted, all the others corrupted, a view
    # missing, nothing outside the top view
    assert R.rest_yardstick(shares, ["FAC", "MOR"]) is None
    three = [{"view": v, "share": x} for v, x in zip(["PIX", "FOU", "MOR"], [0.004, 0.006, 0.99])]
    assert R.rest_part(three, ["PIX", "FOU"]) is None
    assert R.rest_part(shares, ["XYZ"]) is None and R.rest_part(shares, []) is None
    assert R.rest_part(_shares([0, 0, 0, 0, 0, 1.0]), ["PIX"]) is None


def test_step_6_says_the_views_but_the_top_one_count_little_yet_shape_zstar():
    # every view but MOR under 8.3 % (half of 16.7 %): "every view but MOR"
    shares = _shares([0.004, 0.006, 0.075, 0.022, 0.003, 0.890])
    assert little_words(shares, "MOR") == (
        "By the rule steps 5, 7 and 8 judge shares by (a share under half an equal share "
        "counts little: under 8.3 % here), every view but MOR counts little; yet, as MOR's "
        "table adds nothing new, the views other than MOR shape Z* together, each by its "
        "part of the 11.0 % they carry.")
    # FAC at 20 % counts: the others are named, largest first
    shares = _shares([0.004, 0.006, 0.2, 0.022, 0.003, 0.765])
    assert "), ZER, FOU, PIX and KAR count little; yet" in little_words(shares, "MOR")
    shares = _shares([0.004, 0.1, 0.2, 0.1, 0.1, 0.496])
    assert "), PIX counts little; yet" in little_words(shares, "MOR")
    # none counts little, or no shares: nothing to reconcile
    assert little_words(_shares([0.1, 0.1, 0.1, 0.1, 0.1, 0.5]), "MOR") is None
    assert little_words(None, "MOR") is None
