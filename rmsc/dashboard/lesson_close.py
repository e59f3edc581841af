"""The lesson's end: one closing answer over its tests.

A lesson checks the paper's claim on more than one corruption (the shipped lesson: PIX and
FOU in steps 3 to 7, FAC and MOR in step 8), and each step's lines give that step's verdict.
:func:`closing_answer` puts the tests together in a few sentences under the last step
(:func:`run_facts` gathers one test's numbers): whether the weights found the corrupted
digits, which tests could test the claim (the corrupted views' share of Z* on the clean
data, :func:`~rmsc.dashboard.lesson_rules.counts_little`), the claim on ACC and on NMI
where they could (:func:`~rmsc.dashboard.lesson_text.claim_facts`), and the title's question
(:func:`~rmsc.dashboard.lesson_summary.per_view_verdicts`): each clause by the rule the
step lines use, from the same functions.
"""

from __future__ import annotations

from .lesson_paper import VERDICT_WORDS
from .lesson_summary import (as_acc, corrupted_share, detection_of, overall_detection,
                             per_view_answer, per_view_verdicts)
from .fitting import weight_shares
from .lesson_rules import counts_little, narrow_margin, share_pct
from .lesson_text import claim_facts

#: What a test's weights did with its corrupted samples, by
#: :func:`~rmsc.dashboard.lesson_summary.overall_detection` over its views.
_FOUND_WORDS = {"found": "singled out the corrupted digits",
                "ranked": "ranked most corrupted digits below the clean ones",
                None: "did not single out the corrupted digits"}


def run_facts(tables, result, data, clean_result, claim):
    """One test's numbers for :func:`closing_answer`: its corrupted views, how the weights
    found their samples (:func:`~rmsc.dashboard.lesson_summary.detection_of`), their share
    of ΣcᵥP in ``claim``'s fit on the clean data (``clean_result``), how many views there
    are, and the claim's verdict on ACC and on NMI (None without NMI), and its ``tables``
    for the title's question. None where a number is not at hand."""
    if claim_facts(tables, claim) is None or result is None or clean_result is None:
        return None
    corrupted, detection = detection_of(result, data)
    shares = weight_shares(clean_result, data)[0]
    before = corrupted_share(shares, corrupted)
    if before is None:
        return None
    return {"corrupted": corrupted, "detection": detection, "before": before,
            "n_views": len(shares), **claim_verdicts(tables, claim), "tables": tables}


def claim_verdicts(tables, claim):
    """The claim's verdict on a comparison's ``tables`` on ACC (``acc``) and on NMI
    (``nmi``; None without NMI), each with its narrow margin (``acc_narrow``,
    ``nmi_narrow``: :func:`~rmsc.dashboard.lesson_rules.narrow_margin` of the gap between
    the claim's method and its rival, the rule the step lines use; None unless narrow)."""
    out = {}
    for score in ("acc", "nmi"):
        on = tables if score == "acc" else as_acc(tables, "nmi") if all(
            "nmi_mean" in t for t in tables.values()) else None
        f = None if on is None else claim_facts(on, claim)
        out[score] = None if f is None else f["verdict"]
        out[f"{score}_narrow"] = None if f is None else narrow_margin(
            f["gap"], f["spread"][f["method"]], f["spread"][f["rival"]])
    return out


def _found(test):
    return overall_detection(test["detection"].values())


def _on_claim(test):
    """The claim's verdict on one test that can test it, on ACC and NMI, in words."""
    acc, nmi = test["acc"], test["nmi"]
    if nmi is None or (nmi == acc and not _narrow(test)):
        return f"the claim {VERDICT_WORDS[acc]}" + ("" if nmi is None else " on ACC and NMI")
    return (f"on ACC the claim {_verdict(test, 'acc')}, on NMI it {_verdict(test, 'nmi')}")


def _verdict(test, score):
    """One score's verdict in words, with its margin where narrow (the lesson's NARROW)."""
    margin = test.get(f"{score}_narrow")
    return VERDICT_WORDS[test[score]] + ("" if margin is None else
                                          f", by a narrow margin: {margin:.2f} points "
                                          "beyond the ± spread")


def _narrow(test):
    return any(test.get(f"{s}_narrow") is not None for s in ("acc", "nmi"))


def closing_answer(tests, method="RMSC"):
    """The lesson's answer over its ``tests`` (:func:`run_facts` of each, in the lesson's
    order), in Markdown: whether the weights found the corrupted digits in each, which
    tests could test the claim and what they say on ACC and NMI, the claim's verdict over
    them (the verdicts of the tests that could, "cannot be told" ignored where another
    decides; that they disagree where they do), and the title's question on all the
    tests' tables together (the clean data once). None without a test."""
    tests = [t for t in tests if t is not None]
    if not tests:
        return None
    names = [" and ".join(t["corrupted"]) for t in tests]
    found = [_FOUND_WORDS[_found(t)] for t in tests]
    if len(set(found)) == 1:
        where = "both tests" if len(tests) == 2 else f"all {len(tests)} tests"
        said = (f"In {where} ({'; '.join(names)} corrupted), {method}'s weights {found[0]}."
                if len(tests) > 1 else f"{method}'s weights {found[0]} ({names[0]}).")
    else:
        said = "; ".join(f"with {n} corrupted, {who} {w}" for who, n, w in zip(
            [f"{method}'s weights"] + ["they"] * (len(tests) - 1), names, found))
        said = said[0].upper() + said[1:] + "."
    parts, verdicts, testable, narrow, unprotected = [], [], 0, False, []
    for t, n in zip(tests, names):
        equal = len(t["corrupted"]) / t["n_views"]
        if counts_little(t["before"], len(t["corrupted"]), t["n_views"]):
            where = f"step {t['step']}; " if t.get("step") else ""
            parts.append(f"the {n} test could not test the paper's claim: on the clean data "
                         f"those views carry {share_pct(t['before'])} of Z*'s weight ({where}an "
                         f"equal share: {share_pct(equal)}), too little to move Z*")
        else:
            testable += 1
            parts.append(f"the {n} test could ({share_pct(t['before'])} of Z*'s weight, an "
                         f"equal share {share_pct(equal)}): there {_on_claim(t)}")
            verdicts += [v for v in (t["acc"], t["nmi"]) if v not in (None, "cannot be told")]
            narrow = narrow or _narrow(t)
            if _found(t) == "found" and "not borne out" in (t["acc"], t["nmi"]):
                unprotected.append(n)
    said += " " + "; ".join(parts)[0].upper() + "; ".join(parts)[1:] + "."
    if unprotected:
        said += (f" In the {' and the '.join(unprotected)} test the weights found the "
                 "corrupted digits, yet the claim was not borne out there: finding them did "
                 "not by itself protect the clustering.")
    if not testable:
        said += " So this lesson cannot test the paper's claim."
    elif not verdicts:
        said += f" So whether {method} is the most robust cannot be told on this run."
    elif len(set(verdicts)) == 1:
        said += (f" So on this run, one draw of which digits were corrupted, the paper's "
                 f"claim ({method} the most robust) {VERDICT_WORDS[verdicts[0]]}"
                 + (", by a narrow margin." if narrow else "."))
    else:
        said += " So the verdicts above disagree on the paper's claim."
    tables = {}
    for t, n in zip(tests, names):
        for variant, table in t["tables"].items():
            key = "clean" if variant == "clean" else f"{n} corrupted"
            tables.setdefault(key, table)
    pair = per_view_verdicts(tables, method)
    if pair is not None:
        on_acc, on_nmi = pair
        answer = (f"{on_acc}." if on_nmi is None else per_view_answer(on_acc, on_nmi))
        said += (f" The title's question (a weight per digit in each view, or one per view), "
                 f"over the clean data and every test: {answer}")
    return f"**The lesson's answer.** {said}"


def closing_tests(steps):
    """The numbers (from 1) of the steps whose runs :func:`closing_answer` puts together:
    each step checking a claim on data with outliers ('compare' or 'summary'), one per run
    (data, outliers, parameters, methods; a 'summary' step summing up a 'compare' step's
    run counts once), in the lesson's order. Empty when fewer than two runs test a claim:
    one run's own step says all there is."""
    seen, out = set(), []
    for n, s in enumerate(steps, 1):
        if s.show in ("compare", "summary") and s.claim is not None and s.outliers is not None:
            run = (s.data, s.outliers, s.params, tuple(s.methods))
            if run not in seen:
                seen.add(run)
                out.append(n)
    return out if len(out) > 1 else []
