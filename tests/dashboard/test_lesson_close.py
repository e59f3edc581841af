"""rmsc.dashboard.lesson_close: the lesson's closing answer, each clause by the rule its step
lines use, on hand-built tests (including ones where the verdict flips)."""

import pandas as pd

from rmsc.dashboard import lesson as L
from rmsc.dashboard.lesson_close import claim_verdicts, closing_answer, closing_tests
from rmsc.dashboard.lesson_summary import as_acc


def _tables(clean, outliers):
    """A comparison's tables, each method's (ACC %, ± %, NMI %, ± %) on the clean data and
    with the outliers."""
    def table(rows):
        return pd.DataFrame({"method": list(rows),
                             "acc_mean": [r[0] / 100 for r in rows.values()],
                             "acc_std": [r[1] / 100 for r in rows.values()],
                             "nmi_mean": [r[2] / 100 for r in rows.values()],
                             "nmi_std": [r[3] / 100 for r in rows.values()]})
    return {"clean": table(clean), "with outliers": table(outliers)}


CLEAN = {"SSC-AVG": (76.72, 3.27, 70.0, 2.0), "RMSC-WV": (93.58, 4.83, 91.81, 2.12),
         "RMSC": (94.15, 4.15, 92.12, 1.89)}


def _test(corrupted, detection, before, acc, nmi, outliers):
    tables = _tables(CLEAN, outliers)
    facts = L.claim_facts(tables, "RMSC")
    on_nmi = L.claim_facts(as_acc(tables, "nmi"), "RMSC")
    assert (facts["verdict"], on_nmi["verdict"]) == (acc, nmi)  # the hand-built case is it
    verdicts = claim_verdicts(tables, "RMSC")
    assert (verdicts["acc"], verdicts["nmi"]) == (acc, nmi)
    return {"corrupted": corrupted, "detection": detection, "before": before, "n_views": 6,
            **verdicts, "tables": tables}


# the lesson's two tests on Digit-small: PIX and FOU (1.0 % of Z*, RMSC's change level)
PIXFOU = {"SSC-AVG": (84.45, 3.27, 70.5, 2.0), "RMSC-WV": (94.43, 4.14, 92.10, 1.9),
          "RMSC": (94.17, 4.14, 92.26, 1.8)}
# FAC and MOR (96.4 %): ACC level, NMI: RMSC lost 5.00, RMSC-WV 0.08, beyond 1.89 + 2.12
FACMOR = {"SSC-AVG": (78.60, 3.82, 70.0, 2.0), "RMSC-WV": (93.22, 4.93, 91.73, 1.69),
          "RMSC": (91.37, 3.14, 87.12, 0.95)}


def test_the_lessons_two_tests_one_answer():
    first = _test(["PIX", "FOU"], {"PIX": (1.0, 1.0), "FOU": (0.974, 0.764)}, 0.010,
                  "not borne out", "cannot be told", PIXFOU)
    second = _test(["FAC", "MOR"], {"FAC": (1.0, 1.0), "MOR": (0.996, 0.968)}, 0.964,
                   "cannot be told", "not borne out", FACMOR)
    said = closing_answer([first, second])
    assert said == (
        "**The lesson's answer.** With PIX and FOU corrupted, RMSC's weights ranked most "
        "corrupted digits below the clean ones; with FAC and MOR corrupted, they singled out "
        "the corrupted digits. The PIX and FOU test could not test the paper's claim: on the "
        "clean data those views carry 1.0 % of Z*'s weight (an equal share: 33.3 %), too "
        "little to move Z*; the FAC and MOR test could (96.4 % of Z*'s weight, an equal "
        "share 33.3 %): there on ACC the claim cannot be told from the ± spread, on NMI it "
        "is not borne out, by a narrow margin: 1.11 points beyond the ± spread. In the FAC "
        "and MOR test the weights found the corrupted digits, yet the claim was not borne "
        "out there: finding them did not by itself protect the clustering. So on this run, "
        "one draw of which digits were corrupted, the paper's claim (RMSC the most robust) "
        "is not borne out, by a narrow margin. The title's question (a weight per digit in "
        "each view, or one per view), over the clean data and every test: by NMI, a weight for every sample did "
        "not pay off: one weight per view did as well or better; ACC, too noisy here, cannot "
        "tell the two ways apart, which does not contradict it.")
    # each test's step named beside its share, where the reader saw it
    assert "those views carry 1.0 % of Z*'s weight (step 5; an equal share: 33.3 %)" in \
        closing_answer([dict(first, step=5), dict(second, step=8)])
    # the first test's "not borne out" on ACC (step 5) is not the lesson's verdict: that
    # test could not test the claim, so only the second one's verdicts count
    assert "the paper's claim (RMSC the most robust) is not borne out, by a narrow" in said
    # on NMI RMSC lost 5.00 against SSC-AVG's 0.00 (the rival here), beyond 1.89 + 2.00 =
    # 3.89 by 1.11: narrow, below twice that sum; a wider gap is said plainly
    wide = _test(["FAC", "MOR"], second["detection"], 0.964, "cannot be told",
                 "not borne out", dict(FACMOR, RMSC=(91.37, 3.14, 83.0, 0.95)))
    said = closing_answer([first, wide])
    assert "on NMI it is not borne out. In the FAC" in said and "narrow" not in said
    assert "RMSC the most robust) is not borne out. The title's" in said
    # weights that only ranked the corrupted digits: no claim that they found them
    ranked = dict(second, detection={"FAC": (0.95, 0.6), "MOR": (0.95, 0.6)})
    assert "did not by itself protect" not in closing_answer([first, ranked])


def test_the_verdict_flips_with_the_numbers():
    found = {"FAC": (1.0, 1.0), "MOR": (1.0, 1.0)}
    # RMSC keeps its NMI (lost 0.10), RMSC-WV loses 5.81 and SSC-AVG 6.00, each gap beyond
    # the two ± added up: the claim holds on NMI, ACC level
    holds = {"SSC-AVG": (78.60, 3.82, 64.0, 2.0), "RMSC-WV": (93.22, 4.93, 86.0, 1.0),
             "RMSC": (91.37, 3.14, 92.02, 0.95)}
    second = _test(["FAC", "MOR"], found, 0.964, "cannot be told", "holds", holds)
    said = closing_answer([second])
    # RMSC-WV's 5.81 against RMSC's 0.10: 5.71 apart, beyond 1.89 + 2.12 = 4.01 by 1.70
    assert ("there on ACC the claim cannot be told from the ± spread, on NMI it holds, by a "
            "narrow margin: 1.70 points beyond the ± spread.") in said
    assert "the paper's claim (RMSC the most robust) holds, by a narrow margin." in said
    assert "did not by itself protect" not in said
    assert said.startswith("**The lesson's answer.** RMSC's weights singled out the "
                           "corrupted digits (FAC and MOR).")
    # the corrupted views count little in both tests: nothing can test the claim
    first = _test(["PIX", "FOU"], found, 0.010, "not borne out", "cannot be told", PIXFOU)
    little = dict(second, before=0.1)  # under half of 2/6
    said = closing_answer([first, little])
    assert "So this lesson cannot test the paper's claim." in said
    assert "the FAC and MOR test could not test the paper's claim" in said
    assert "In both tests (PIX and FOU; FAC and MOR corrupted), RMSC's weights singled out" \
        in said
    # a test that can test it, with both scores level: cannot be told, not a verdict
    level = _test(["FAC", "MOR"], found, 0.964, "cannot be told", "cannot be told",
                  dict(FACMOR, RMSC=(91.37, 3.14, 91.50, 0.95)))
    said = closing_answer([first, level])
    assert "there the claim cannot be told from the ± spread on ACC and NMI." in said
    assert "So whether RMSC is the most robust cannot be told on this run." in said
    # two tests that could, with opposite verdicts: said, not averaged
    against = _test(["FAC", "MOR"], found, 0.964, "cannot be told", "not borne out", FACMOR)
    said = closing_answer([dict(second, corrupted=["ZER", "KAR"], before=0.5), against])
    assert "So the verdicts above disagree on the paper's claim." in said
    # the weights missing in one test: that test's own words
    missed = dict(first, detection={"PIX": (0.6, 0.1), "FOU": (0.95, 0.95)})
    assert closing_answer([missed, against]).startswith(
        "**The lesson's answer.** With PIX and FOU corrupted, RMSC's weights did not single "
        "out the corrupted digits; with FAC and MOR corrupted, they singled out")
    assert closing_answer([]) is None and closing_answer([None]) is None


def test_closing_tests_one_per_run():
    steps = L.load_lesson().steps
    # steps 5 (compare) and 7 (summary) are one run, PIX and FOU; step 8 its own
    assert closing_tests(steps) == [5, 8]
    assert closing_tests(steps[:7]) == []  # one run: its own steps say all
