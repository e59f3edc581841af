"""rmsc.dashboard.lesson_support: step 8's sentence on whom the clean digits are rebuilt
from, computed from class_support's shares, worked by hand."""

from types import SimpleNamespace

import numpy as np

from rmsc.dashboard.lesson_support import support_of, support_sentence


def _s(own, own_masked, masked=0.0):
    return {"own": own, "own_masked": own_masked, "own_unmasked": own - own_masked,
            "masked": masked}


def test_lost_classmates_explain_the_fall():
    # Digit-small's step 8: own class 68.5 -> 64.9 %, corrupted classmates 7.0 -> 3.1 %,
    # clean classmates 61.4 -> 61.8 % (rose 0.4, less than the 3.9 lost)
    said = support_sentence(_s(0.685, 0.070), _s(0.649, 0.031), 270)
    assert said.startswith(
        "**Whom the other digits are rebuilt from.** For the other 270 digits, the share of Z* (whom each is rebuilt from) on their own "
        "class fell from 68.5 % to 64.9 %: the part on their corrupted classmates went from "
        "7.0 % to 3.1 %, the part on their clean classmates from 61.5 % to 61.8 %, and the "
        "rest went to other classes.")
    assert ("A digit's weight sets how much its own rebuilding counts; it does not decide "
            "which digits the clean ones are rebuilt from.") in said
    assert said.endswith("not a proof that it caused it.")


def test_no_fall_no_explanation():
    # RMSC-WV's numbers on the same run: own class 68.0 -> 71.2 %, clean classmates made up
    # for the corrupted ones: the sentence says what it measured and keeps the caveat
    said = support_sentence(_s(0.680, 0.070), _s(0.712, 0.038), 270)
    assert "rose from 68.0 % to 71.2 %" in said
    assert said.endswith("This does not explain the loss; what in the fit put the errors "
                         "there, this lesson does not measure.")
    # fell, but on the clean classmates too (65.0 -> 64.5 %): not only the lost ones
    said = support_sentence(_s(0.70, 0.05), _s(0.69, 0.045), 10)
    assert "fell from 70.0 % to 69.0 %" in said
    assert "This does not explain the loss" in said
    # fell with the corrupted classmates' part unchanged: not them either
    said = support_sentence(_s(0.70, 0.05), _s(0.60, 0.05), 10)
    assert "This does not explain the loss" in said
    # fell, the corrupted part down and the clean part held (65.0 -> 65.0 %): them
    assert "does not decide which digits" in support_sentence(_s(0.70, 0.05), _s(0.69, 0.04), 10)


def test_support_of_reads_each_fits_consensus():
    z = np.array([[0.0, 1.0], [1.0, 0.0]])
    fit = SimpleNamespace(consensus=z)
    before, after = support_of(fit, fit, [0, 0], [False, True])
    assert before == after and before["own"] == 1.0 and before["masked"] == 1.0
