"""The guided lesson (the lesson work): the lesson file's schema and its errors, every step's state
through its URL, the warm-up into the result cache, the QR code, and AppTest walking every
step of a lesson (the browser walk at 1280 px is in tests/browser/test_clipping.py)."""

import dataclasses
import re
import textwrap
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rmsc import dashboard as dash
from rmsc import datasets
from rmsc.dashboard import lesson as L
from rmsc.dashboard.lesson_reach import reach_caveat

ROOT = Path(__file__).resolve().parents[2]

SMALL = "view 1 (20-d)"
OTHER = "view 2 (30-d)"

#: A lesson on the bundled Subspaces set (150 samples): every kind of step, fitted in seconds.
SMALL_LESSON = f"""
title: A small lesson
steps:
  - title: The views
    data: Subspaces
    show: views
    page: Data
    text: Each panel is one view.
    question: Which view separates the classes best?
  - title: Compare
    data: Subspaces
    outliers: {{views: ["{SMALL}"], fraction: 0.1, kind: replace}}
    show: compare
    methods: [SSC-AVG, RMSC]
    params: {{max_iter: 30}}
    page: Compare
    text: Two methods, clean and corrupted.
    question: Which loses more?
  - title: The claim
    data: Subspaces
    outliers: {{views: ["{SMALL}"], fraction: 0.1, kind: replace}}
    show: compare
    methods: [SSC-AVG, RMSC]
    claim: RMSC
    params: {{max_iter: 30}}
    text: The same run; the paper says RMSC loses least.
    question: Does it?
  - title: Weights
    data: Subspaces
    outliers: {{views: ["{SMALL}"], fraction: 0.1, kind: replace}}
    show: weights
    params: {{max_iter: 30}}
    text: Dark means distrusted.
    question: Which row is dark?
  - title: Beta
    data: Subspaces
    show: solve
    params: {{max_iter: 30, beta_rel: 0.25}}
    slider: {{param: beta_rel, values: [0.1, 0.25]}}
    text: Move the slider.
    question: Does Z* get denser?
    where: The table under the slider.
  - title: Sum up
    data: Subspaces
    outliers: {{views: ["{SMALL}"], fraction: 0.1, kind: replace}}
    show: summary
    methods: [SSC-AVG, RMSC]
    claim: RMSC
    params: {{max_iter: 30}}
    text: What the run shows.
    question: Did the weights help?
  - title: Other views
    data: Subspaces
    outliers: {{views: ["{OTHER}"], fraction: 0.1, kind: replace}}
    show: compare
    methods: [SSC-AVG, RMSC]
    claim: RMSC
    params: {{max_iter: 30}}
    text: The claim where no closing step follows.
    question: Did the weights find them?
"""


def write(tmp_path, text, name="lesson.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


# ---------------------------------------------------------------------------
# The schema
# ---------------------------------------------------------------------------


def test_the_shipped_lesson_loads_with_eight_steps_on_bundled_data():
    lesson = L.load_lesson()
    assert len(lesson) == 8
    # the title asks what the lesson checks (step 7 answers it), it does not assert it
    assert lesson.title.endswith("?")
    # every step says where on the page its question's answer is
    assert all(s.where for s in lesson.steps)
    assert all(s.data in datasets.bundled_names() for s in lesson.steps)
    assert {s.show for s in lesson.steps} == set(L.SHOWS)
    for s in lesson.steps:  # two or three sentences, and one question
        assert 1 <= len(re.findall(r"[.:!?](\s|$)", s.text)) <= 6, s.title
        assert s.question.rstrip().endswith("?") and s.question.count("?") == 1
    corrupted = [s for s in lesson.steps if s.outliers is not None]
    assert corrupted and all(s.outliers.fraction == 0.1 and len(s.outliers.views) == 2
                             for s in corrupted)


def _bad(tmp_path, step_changes, drop=()):
    steps = [{"title": "First", "text": "Look.", "question": "What?", "show": "views",
              "data": "Subspaces"},
             {"title": "Second", "text": "Look.", "question": "What?", "show": "solve",
              "data": "Subspaces"}]
    steps[1].update(step_changes)
    for k in drop:
        steps[1].pop(k)
    return L.parse_lesson({"title": "t", "steps": steps}, source="my.yaml")


@pytest.mark.parametrize("changes, field, words", [
    ({"params": {"lam": -1}}, "params.lam", "λ"),
    ({"params": {"lamda": 1}}, "params.lamda", "unknown parameter"),
    ({"params": {"weighting": "views"}}, "params.weighting", "weighting"),
    ({"params": {"beta": 0.3, "beta_rel": 0.5}}, "params.beta_rel", "beta: auto"),
    ({"show": "heatmap"}, "show", "views, compare, weights, solve, summary"),
    ({"data": "NoSuchSet"}, "data", "neither a bundled dataset"),
    ({"outliers": {"views": [SMALL], "fraction": 2}}, "outliers.fraction", "(0, 1]"),
    ({"outliers": {"views": [SMALL], "kind": "scramble"}}, "outliers.kind", "replace"),
    ({"outliers": {"fraction": 0.1}}, "outliers.views", "required"),
    ({"show": "compare"}, "methods", "at least one method"),
    ({"show": "compare", "methods": ["RMSC", "KMEANS"]}, "methods", "'KMEANS' is not a method"),
    ({"page": "Lessons"}, "page", "not a page"),
    ({"claim": "RMSC"}, "claim", "'compare' or 'summary' step with outliers"),
    ({"show": "compare", "methods": ["RMSC"], "claim": "RMSC"}, "claim",
     "'compare' or 'summary' step with outliers"),
    ({"show": "summary"}, "methods", "a 'summary' step needs at least one method"),
    ({"show": "summary", "methods": ["RMSC"]}, "outliers", "sums up a run with outliers"),
    ({"show": "summary", "methods": ["RMSC"], "outliers": {"views": [SMALL]}}, "claim",
     "needs the method whose claim"),
    ({"where": "  "}, "where", "where on the page the answer is"),
    ({"show": "compare", "methods": ["SSC-AVG", "RMSC"], "claim": "RMSC-WV",
      "outliers": {"views": [SMALL], "fraction": 0.1}}, "claim",
     "'RMSC-WV' is not one of the step's methods (SSC-AVG, RMSC)"),
    ({"colour": "red"}, "colour", "unknown field"),
    ({"slider": {"param": "gamma", "values": [0.1, 1]}}, "slider.param", "cannot be a slider"),
    ({"slider": {"param": "beta_rel", "values": [0.05, 1.0]}}, "slider.values",
     "step's own value 0.25"),
    ({"slider": {"param": "lam", "values": [1, -3]}}, "slider.values", "-3"),
])
def test_a_bad_step_names_the_file_the_step_and_the_field(tmp_path, changes, field, words):
    with pytest.raises(L.LessonError) as err:
        _bad(tmp_path, changes)
    msg = str(err.value)
    assert msg.startswith("my.yaml: step 2 ('Second'), field "), msg
    assert f"field '{field}'" in msg and words in msg, msg


@pytest.mark.parametrize("missing", ["title", "text", "question"])
def test_a_step_without_its_words_is_refused(tmp_path, missing):
    with pytest.raises(L.LessonError, match=f"step 2.*field '{missing}': required"):
        _bad(tmp_path, {}, drop=[missing])


def test_bad_files_say_what_is_wrong(tmp_path):
    with pytest.raises(L.LessonError, match="not valid YAML"):
        L.load_lesson(write(tmp_path, "title: [unclosed\n"))
    with pytest.raises(L.LessonError, match="Cannot read the lesson file"):
        L.load_lesson(tmp_path / "missing.yaml")
    with pytest.raises(L.LessonError, match="'steps' must be a non-empty list"):
        L.load_lesson(write(tmp_path, "title: x\nsteps: []\n"))
    with pytest.raises(L.LessonError, match="step 1: a step is a mapping"):
        L.load_lesson(write(tmp_path, "title: x\nsteps: [just text]\n"))


def test_a_step_may_use_a_file_beside_the_lesson(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    np.savez(tmp_path / "mine.npz", X1=rng.normal(size=(30, 4)), X2=rng.normal(size=(30, 5)),
             y=np.repeat([0, 1, 2], 10))
    lesson = L.load_lesson(write(tmp_path, """
        title: mine
        steps:
          - {title: a, text: b., question: "c?", show: views, data: mine.npz}
        """))
    clean, data = L.load_step_data(lesson, lesson.steps[0])
    assert clean.n_samples == 30 and data is clean


# ---------------------------------------------------------------------------
# URL round trip, QR code
# ---------------------------------------------------------------------------


def test_every_step_of_the_shipped_lesson_round_trips_through_its_url():
    from urllib.parse import parse_qsl, urlsplit

    lesson = L.load_lesson()
    for n, step in enumerate(lesson.steps, 1):
        url = L.step_url("http://class:8501/", lesson, n)
        assert url.startswith(f"http://class:8501/?lesson={n}&")
        query = dict(parse_qsl(urlsplit(url).query))
        number, data, outliers, params, problems = L.state_from_query(query)
        assert problems == []
        assert (number, data, outliers, params) == (n, step.data, step.outliers, step.params)
    # and a lesson with every kind of setting
    small = L.parse_lesson(__import__("yaml").safe_load(SMALL_LESSON))
    for n, step in enumerate(small.steps, 1):
        number, data, outliers, params, problems = L.state_from_query(L.step_query(small, n))
        assert (number, data, outliers, params, problems) == (
            n, step.data, step.outliers, step.params, [])


def test_step_numbers_are_clipped_into_the_lesson():
    lesson = L.load_lesson()
    assert lesson.step(0) is lesson.steps[0] and lesson.step(99) is lesson.steps[-1]
    assert L.step_query(lesson, 99)["lesson"] == str(len(lesson))  # the last step
    assert L.state_from_query({"lesson": "two"})[4] == [
        "Ignored lesson='two' from the URL: not a step number."]


def test_the_qr_code_is_an_svg_drawn_here_that_grows_with_the_address():
    import segno  # a dependency (pyproject.toml): missing, this fails rather than skips
    short, long = L.qr_svg("http://a/?lesson=1"), L.qr_svg("http://a/?" + "x" * 300)
    assert short.startswith("<svg") and "path" in short
    size = lambda svg: int(re.search(r'width="(\d+)"', svg).group(1))  # noqa: E731
    assert size(long) > size(short)
    # what it draws is the address's QR symbol: segno's matrix for it, at 4 px a module
    symbol = segno.make("http://a/?lesson=1", error="m")
    assert size(short) == 4 * (symbol.symbol_size(border=2)[0])


# ---------------------------------------------------------------------------
# Warm-up: what every step computes, under the pages' keys
# ---------------------------------------------------------------------------


def test_warm_fills_the_cache_under_the_keys_the_page_reads(tmp_path):
    lesson = L.load_lesson(write(tmp_path, SMALL_LESSON))
    cache = dash.ResultCache(max_entries=64)
    said = []
    n = L.warm(lesson, cache, progress=said.append)
    # fits: steps 1 (defaults), 2 = 3 = 4 (max_iter 30 with outliers), 5 (slider 0.1, 0.25
    # clean), step 6's paper's model on the clean data (its "Who counts in Z*"), 7 (other
    # outliers) plus two comparisons (steps 2 and 3 share one, 7 has its own), plus step 5's
    # (a 'solve' step) views clustered alone (the note on the top view's share)
    assert n == len(said) == 9 and said[-1] == "step 5: each view clustered alone"
    paper = [m for m in said if "losses unscaled (the paper's" in m]
    assert len(paper) == 1 and paper[0].startswith("step 6: RMSC fit") and "γ = 1e-05" in paper[0]
    quality = cache.get(dash.view_quality_key(lesson.steps[4].params,
                                              L.load_step_data(lesson, lesson.steps[4])[1]))
    assert [q["view"] for q in quality] == list(L.load_step_data(lesson, lesson.steps[4])[0]
                                                .view_names)
    for step in lesson.steps:
        clean, data = L.load_step_data(lesson, step)
        for p in L.step_params(step):
            assert dash.fit_key(p, data) in cache
        # the paper's model (every cᵥ = 1) on the clean data, for the closing step only
        assert [p == L.paper_params(step.params) for p in L.clean_params(step)] == (
            [True] if step.show == "summary" else [])
        for p in L.clean_params(step):
            fit = cache.get(dash.fit_key(p, clean))
            model = fit.model  # the paper's P-step, no view scale: every cᵥ = 1
            assert fit.gamma == 1e-5 and model.loss_scale is None and model.view_factors_ is None
            assert model.uninformative is None
        comparison = L.step_comparison(step, clean, data)
        if comparison is not None:
            tables = cache.get(comparison[0])
            assert list(tables) == ["clean", "with outliers"]
            assert sorted(tables["clean"]["method"]) == ["RMSC", "SSC-AVG"]
            sentences = L.change_sentences(tables)
            # real tables carry each ACC's spread: every change is set against it
            assert len(sentences) == 2 and all(
                " points, " in s and s.endswith(" the ± spread.") for s in sentences)
    assert L.warm(lesson, cache) == 0  # everything is there already


#: Two comparisons that share two fits: SSC-AVG and RMSC on the clean data.
TWO_COMPARISONS = f"""
title: Two comparisons
steps:
  - title: Clean
    data: Subspaces
    show: compare
    methods: [SSC-AVG, RMSC]
    params: {{max_iter: 30}}
    text: Two methods.
    question: Which is better?
  - title: Corrupted
    data: Subspaces
    outliers: {{views: ["{SMALL}"], fraction: 0.1, kind: replace}}
    show: compare
    methods: [SSC-AVG, RMSC-WV, RMSC]
    params: {{max_iter: 30}}
    text: Three methods, clean and corrupted.
    question: Which loses more?
"""


def test_warm_fits_each_distinct_fit_of_the_comparisons_once(tmp_path):
    lesson = L.load_lesson(write(tmp_path, TWO_COMPARISONS))
    cache = dash.ResultCache(max_entries=64)
    fits, comparisons = L.warm_work(lesson, cache)
    assert [c[0] for c in comparisons] == [1, 2] and len(fits) == 2  # RMSC, clean and not
    task = L.comparisons_task(comparisons)
    fitted = [(f.data, f.method) for part in task.parts for f in part.args[1]]
    # 2 + 2 × 3 fits asked for; SSC-AVG and RMSC on the clean data twice
    assert len(fitted) == len(set(fitted)) == 6
    assert L.warm(lesson, cache) == 4
    for _, key, variants, methods, cparams, seed in comparisons:
        alone = dash.run_compare(variants, methods, cparams, seed)  # each run on its own
        warmed = cache.get(key)
        assert list(warmed) == list(alone)
        for name in alone:
            a, w = alone[name].drop(columns="fit_time"), warmed[name].drop(columns="fit_time")
            assert list(w["method"]) == list(a["method"])
            assert w.drop(columns="params").equals(a.drop(columns="params"))
            assert list(w["params"]) == list(a["params"])
    assert L.warm_work(lesson, cache) == ([], [])


def test_rmsc_lesson_warm_runs_on_dask_workers_into_the_folder_the_server_reads(
        tmp_path, monkeypatch):
    import io

    from rmsc.cli import main

    path = write(tmp_path, TWO_COMPARISONS.replace("max_iter: 30", "max_iter: 5"))
    monkeypatch.setenv("RMSC_CACHE_DIR", str(tmp_path / "results"))
    monkeypatch.delenv(dash.SCHEDULER_ENV, raising=False)
    out, err = io.StringIO(), io.StringIO()
    assert main(["lesson", "--warm", "--file", str(path)], out=out, err=err) == 0, err.getvalue()
    assert re.search(r"warm: 4 result\(s\) computed on \d+ Dask worker\(s\) in \d+ s, kept on "
                     "disk", out.getvalue()), out.getvalue()
    assert dash.running_workers() is None  # closed again
    lesson = L.load_lesson(path)
    server = L.dashboard_cache()  # another cache over the same folder: what a server reads
    fits, comparisons = L.warm_work(lesson, dash.ResultCache(max_entries=64))
    for _, key, *_ in fits + comparisons:
        assert key in server


def test_within_the_spread_is_one_rule_by_hand():
    assert L.within_spread(3.0, [1.0, 3.0]) is True  # equal to the larger: noise
    assert L.within_spread(-3.0, [3.0, 1.0]) is True  # a loss as a gain
    assert L.within_spread(3.01, [3.0, 1.0, 2.0]) is False
    assert L.within_spread(0.1, [1.0, None]) is None  # a spread unknown: cannot tell
    # the rule in words names what it compares
    assert "no larger than the larger of their two ±" in L.SPREAD_RULE
    # beyond it, a difference under twice the largest ± is narrow, with its margin
    assert L.beyond_words(3.75, [3.64, 2.44]) == (
        f"more than the ± spread (3.64), but only by 0.11 points: a narrow margin, as "
        f"{L.SPREAD_LIMIT}")
    assert L.beyond_words(-7.28, [3.64, 1.0]) == "more than the ± spread"  # 2 × 3.64
    assert "k-means" in L.SPREAD_LIMIT and "corrupted" in L.SPREAD_LIMIT


def test_change_sentences_are_computed_from_the_tables():
    import pandas as pd

    tables = {"clean": pd.DataFrame({"method": ["A", "B", "C"],
                                     "acc_mean": [0.9, 0.8, 0.9065]}),
              "with outliers": pd.DataFrame({"method": ["A", "B", "C"],
                                             "acc_mean": [0.85, 0.81, 0.9068]})}
    assert L.change_sentences(tables) == [
        "A: ACC 90.00 % on the clean data, 85.00 % with outliers: lost 5.00 points.",
        "B: ACC 80.00 % on the clean data, 81.00 % with outliers: gained 1.00 points.",
        "C: ACC 90.65 % on the clean data, 90.68 % with outliers: gained 0.03 points."]
    # with the spreads, each change is set against the larger of its two ± (noise or not)
    tables["clean"]["acc_std"] = [0.02, 0.005, 0.0353]
    tables["with outliers"]["acc_std"] = [0.03, 0.004, float("nan")]
    assert L.change_sentences(tables) == [
        # 5.00 against ± 3.00: beyond it, but less than twice it: narrow, by 2.00
        "A: ACC 90.00 ± 2.00 % on the clean data, 85.00 ± 3.00 % with outliers: lost 5.00 "
        f"points, more than the ± spread (3.00), but only by 2.00 points: a narrow margin, "
        f"as {L.SPREAD_LIMIT}.",
        # 1.00 against ± 0.50: twice it, not narrow
        "B: ACC 80.00 ± 0.50 % on the clean data, 81.00 ± 0.40 % with outliers: gained 1.00 "
        "points, more than the ± spread.",
        "C: ACC 90.65 % on the clean data, 90.68 % with outliers: gained 0.03 points."]
    tables["with outliers"].loc[2, "acc_std"] = 0.01
    assert L.change_sentences(tables)[2] == (
        "C: ACC 90.65 ± 3.53 % on the clean data, 90.68 ± 1.00 % with outliers: gained 0.03 "
        "points, within the ± spread.")


def test_the_papers_claim_is_checked_from_the_tables_by_hand():
    import pandas as pd

    tables = {"clean": pd.DataFrame({"method": ["A", "B", "C"],
                                     "acc_mean": [0.9, 0.8, 0.9065]}),
              "with outliers": pd.DataFrame({"method": ["A", "B", "C"],
                                             "acc_mean": [0.85, 0.81, 0.9068]})}
    # changes: A -5.00, B +1.00, C +0.03; with outliers C is highest (90.68); short
    # sentences, one fact each
    head = "**The paper's claim, judged on the ACC changes alone.** "
    assert L.claim_sentence(tables, method="C") == (
        head + "C has the highest ACC with outliers (90.68 %). "
        "The best change is B's (+1.00 points, C +0.03). A lost the most (-5.00): it fared "
        "worst. "
        "The claim, that C's ACC fares best under the outliers (the smallest loss, or the "
        "largest gain), is not borne out here. " + L.CLAIM_ASKS_MORE)
    assert L.claim_sentence(tables, method="B") == (
        head + "C has the highest ACC with outliers (90.68 %). B has 81.00 % with outliers. "
        "The best change is B's (+1.00 points; next C, +0.03). A lost the most (-5.00): it "
        "fared worst. The claim, that B's ACC fares best under the outliers (the smallest loss, "
        "or the largest gain), holds here. " + L.CLAIM_ASKS_MORE)
    # with spreads: B's lead of 0.97 points over C is within C's ± 3.53, A's gap of 6 is not
    # within the larger of A's and B's spreads (3.00)
    tables["clean"]["acc_std"] = [0.02, 0.005, 0.0353]
    tables["with outliers"]["acc_std"] = [0.03, 0.004, 0.01]
    assert L.claim_sentence(tables, method="B").endswith(
        "(the smallest loss, or the largest gain), cannot be told from the ± spread here. "
        + L.CLAIM_ASKS_MORE)
    # C's 90.68 ± 1.00 leads A's 85.00 ± 3.00 by 5.68 points: more than the larger ± (3.00),
    # but by only 2.68, under twice it: narrow. A's change (-5.00, its ± 3.00) is 6.00
    # points below B's (+1.00, ± 0.50): more than 3.00 + 0.50 = 3.50, by 2.50, under twice
    # it: narrow. A's -5.00 and C's +0.03 (± 3.53) are 5.03 apart, within 3.00 + 3.53 =
    # 6.53: a tie for the worst (under the largest-of-four rule, 3.53, they were not); C's
    # +0.03 is also level with B's +1.00 (0.97 apart, within 3.53 + 0.50), A's is not
    narrow = ("more than the ± spread (3.00), but only by 2.68 points: a narrow margin, as "
              f"{L.SPREAD_LIMIT}")
    assert L.claim_sentence(tables, method="A") == (
        head + f"C has the highest ACC with outliers (90.68 %), 5.68 points above A's "
        f"85.00 %, {narrow}. The best change is B's (+1.00 points, A -5.00). A lost the "
        "most (-5.00), but the gain of C (+0.03) is within noise of it (no further apart "
        "than their two ± added up), so neither fared worse than the other. C's gain is "
        "also within noise of B's (+1.00): only A's change is told apart from B's. The "
        "claim, "
        "that A's ACC fares best under the outliers (the smallest loss, or the largest "
        "gain), is not borne out here. The two changes are 6.00 points apart, more than the "
        "two changes' ± added up (3.00 + 0.50 = 3.50), but only by 2.50 points. A narrow "
        f"margin, as {L.SPREAD_LIMIT}. This rests on B's gain, which the line above says "
        "can be the luck of this one draw: another seed may not repeat it. "
        + L.CLAIM_ASKS_MORE)  # B's +1.00 is beyond its ± 0.50: a gain from corrupted data
    assert L.claim_sentence(tables, method="B").startswith(
        head + f"C has the highest ACC with outliers (90.68 %), 5.68 points above A's "
        f"85.00 %, {narrow}. B has 81.00 % with outliers. The best")
    # A's ± 6.00 with the outliers: the lead of 5.68 is within it, C and A are level
    tables["with outliers"].loc[0, "acc_std"] = 0.06
    assert L.claim_sentence(tables, method="B").startswith(
        head + "C and A are level on the highest ACC with outliers: C's 90.68 ± 1.00 % is "
        "5.68 points above A's 85.00 ± 6.00 %, within the ± spread. B has 81.00 % with "
        "outliers. The best")
    assert L.claim_sentence(tables, method="C").startswith(
        head + "C and A are level on the highest ACC with outliers: C's 90.68 ± 1.00 % is "
        "5.68 points above A's 85.00 ± 6.00 %, within the ± spread. The best change")
    # no sentence of the line runs past a few dozen words (it was one of nine lines)
    line = L.claim_sentence(tables, method="A")
    assert max(len(x.split()) for x in line.split(". ")) <= 40, line
    # the same rule as a change's: A's own change (-5.00) is within its ± 5.69, the lead
    # of 5.68 too; at ± 5.67 the lead is not
    tables["with outliers"].loc[0, "acc_std"] = 0.0569
    assert " within the ± spread" in L.claim_sentence(tables, method="C")
    assert L.change_sentences(tables)[0].endswith("lost 5.00 points, within the ± spread.")
    tables["with outliers"].loc[0, "acc_std"] = 0.0567
    assert "more than the ± spread (5.67), but only by 0.01 points" in L.claim_sentence(
        tables, method="C")
    # nothing to check: the method absent, alone, or no outliers variant
    assert L.claim_sentence(tables, method="RMSC") is None
    alone = {k: t[t["method"] == "A"] for k, t in tables.items()}
    assert L.claim_sentence(alone, method="A") is None
    assert L.claim_sentence({"clean": tables["clean"]}, method="A") is None


def _facts(clean, dirty, std_clean, std_dirty, method="C"):
    import pandas as pd

    names = ["A", "B", "C"][:len(clean)]
    tables = {"clean": pd.DataFrame({"method": names, "acc_mean": clean, "acc_std": std_clean}),
              "with outliers": pd.DataFrame({"method": names, "acc_mean": dirty,
                                             "acc_std": std_dirty})}
    return L.claim_facts(tables, method)


def test_the_claims_facts_by_hand():
    # changes A +7.73 (beyond its ± 3.27), B +0.85, C +0.03 (within theirs)
    f = _facts([0.7672, 0.9358, 0.9065], [0.8445, 0.9443, 0.9068], [0.0327, 0.0364, 0.0353],
               [0.0172, 0.0244, 0.0244])
    assert f["rival"] == "A" and f["changes"]["C"] == pytest.approx(0.03)
    assert f["noise"] == {"A": False, "B": True, "C": True}
    assert f["gap"] == pytest.approx(0.03 - 7.73)
    # each change's own ±: C's the larger of 3.53 and 2.44, A's of 3.27 and 1.72
    assert f["spread"] == {"A": 3.27, "B": 3.64, "C": 3.53}
    # 7.70 points apart, beyond C's ± and A's added up (6.80) by 0.90, under twice it
    assert f["verdict"] == "not borne out"
    assert f["gap_words"] == (
        "more than the two changes' ± added up (3.53 + 3.27 = 6.80), but only by 0.90 "
        f"points. A narrow margin, as {L.SPREAD_LIMIT}")
    # the worst change: C's +0.03 and B's +0.85 are 0.82 apart, within 3.53 + 3.64 = 7.17:
    # a tie; A's +7.73 is 7.70 above C's, beyond 6.80, but only 6.88 above B's, within
    # 3.64 + 3.27 = 6.91: B is level with both ends
    assert f["worst"] == ["C", "B"] and f["between"] == {"B": ["A"]}
    # every change a gain: "gained the least", not "the worst change" (the seventeenth
    # cold reading), and the pairs within noise named
    assert L.worst_words(f) == ("C gained the least (+0.03), but the gain of B (+0.85) is "
                                "within noise of it (no further apart than their two ± "
                                "added up), so neither fared worse than the other. B's gain "
                                "is also within noise of A's (+7.73): only C's change is "
                                "told apart from A's")
    # step 8 on full Digit: RMSC -2.54 (± 2.81), RMSC-WV -1.23 (± 3.47), SSC-AVG -0.77
    # (± 2.23): 1.31 and 1.77 from the lowest, within 6.28 and 5.04: the best change is
    # among the "worst", so no tie is said
    f = _facts([0.8474, 0.9309, 0.9450], [0.8397, 0.9186, 0.9196], [0.0223, 0.0347, 0.0281],
               [0.0186, 0.0264, 0.0259])
    assert f["worst"] == ["C", "B", "A"] and f["verdict"] == "cannot be told"
    assert L.worst_words(f) == ("no method fared worst beyond the noise: C (-2.54), B (-1.23) "
                                "and A (-0.77) are each no further from the lowest change "
                                "than their two ± added up")
    # C loses 1, A and B lose 5 (spreads 1): the claim holds
    f = _facts([0.9, 0.9, 0.9], [0.85, 0.85, 0.89], [0.01] * 3, [0.01] * 3)
    assert f["verdict"] == "holds" and f["noise"] == {"A": False, "B": False, "C": True}
    # A and B both lost 5.00: level, the worst together; C's -1.00 is 4 points above, beyond
    # 1.00 + 1.00, twice it: not narrow, the sum named all the same
    assert f["worst"] == ["A", "B"] and f["gap_words"] == (
        "more than the two changes' ± added up (1.00 + 1.00 = 2.00)")
    assert L.worst_words(f) == ("A lost the most (-5.00), but the loss of B (-5.00) is "
                                "within noise of it (no further apart than their two ± "
                                "added up), so neither fared worse than the other")
    # 2 points apart against ± 1 (B's) and ± 3 (A's) added up, 4: cannot be told
    f = _facts([0.9, 0.9], [0.87, 0.89], [0.03, 0.01], [0.01, 0.01], method="B")
    assert f["verdict"] == "cannot be told" and f["rival"] == "A"
    assert f["gap_words"] is None and f["worst"] == ["A", "B"]
    assert L.worst_words(_facts([0.9, 0.9], [0.8, 0.89], [0.01] * 2, [0.01] * 2, "B")) == (
        "A lost the most (-10.00): it fared worst, beyond the noise")
    # three gains, the two lowest level, the top one apart from both: no pairs to name
    f = _facts([0.9] * 3, [0.95, 0.905, 0.901], [0.01] * 3, [0.01] * 3)
    assert f["worst"] == ["C", "B"] and not f["between"]
    assert L.worst_words(f) == ("C gained the least (+0.10), but the gain of B (+0.50) is "
                                "within noise of it (no further apart than their two ± "
                                "added up), so neither fared worse than the other")
    # three losses, the two largest level, the smallest apart from both
    f = _facts([0.9] * 3, [0.85, 0.86, 0.895], [0.01] * 3, [0.01] * 3)
    assert f["worst"] == ["A", "B"] and not f["between"]
    assert L.worst_words(f) == ("A lost the most (-5.00), but the loss of B (-4.00) is "
                                "within noise of it (no further apart than their two ± "
                                "added up), so neither fared worse than the other")


_GAIN = (
    "**A gain from corrupted data?** The ACC of A rose by more than the ± spread with the "
    "outliers. Corrupting samples takes information about the classes away and adds none, "
    "so this cannot mean that the outliers told the method more about the classes. But the "
    "± covers only the repeated k-means runs of the last grouping step, not which samples "
    "the seed corrupted, nor how far the clean result itself would move on other samples of "
    "the same kind. So a gain beyond it can be the luck of this one draw "
    "(or a side effect of the corruption that one run cannot tell apart from luck). To see "
    "whether it comes back, change the injection's seed on the Data page and run again.")

_SCALES = ("AUC: 1 = every corrupted sample below every clean one, 0.5 = chance; average "
           "precision: 1 = every corrupted sample first, about their share by chance.")


def test_what_the_run_shows_is_computed_from_its_numbers_by_hand():
    shares = [{"view": v, "share": s} for v, s in
              zip(["PIX", "FOU", "MOR"], [0.004, 0.007, 0.989])]
    # step 4's table on Digit-small: PIX's AUC and average precision 1, FOU's AUC 0.961
    # (≥ 0.9) but its average precision 0.676 (< 0.9): PIX singled out, FOU only ranked
    detection = {"PIX": (1.0, 1.0), "FOU": (0.961, 0.676)}
    # the lesson's run on Digit-small: no method lost, A (SSC-AVG) gained beyond its ±
    f = _facts([0.7672, 0.9358, 0.9065], [0.8445, 0.9443, 0.9068], [0.0327, 0.0364, 0.0353],
               [0.0172, 0.0244, 0.0244])
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"])
    assert said == [
        "**Finding the outliers.** In PIX (AUC 1.000, average precision 1.000), C's "
        "weights single out the corrupted samples; in FOU (AUC 0.961, average "
        "precision 0.676), they rank most corrupted samples below most clean ones "
        "(AUC), but clean samples with low weights come among the first (average "
        "precision). " + _SCALES,
        "**The outliers and ACC.** A (+7.73) gained ACC, more than the ± spread; "
        "B (+0.85) and C (+0.03) changed within the ± spread (noise). No method lost ACC "
        "beyond the noise.",
        L.gain_reminder(["A"]),  # in full on step 3 only: _GAIN
        # PIX + FOU: 1.1 % against 2/3 for an equal share over three views
        # each view's part beside the sum: no number the screen does not show
        "**Who counts in Z\\*.** In C's fit with the outliers, PIX and FOU together "
        "carry 1.1 % of the consensus weight, \"share of ΣcᵥP\" (PIX 0.4 % + FOU 0.7 %), "
        "where an equal share would be 66.7 %: Z* listens little to the corrupted views, so corrupting them could move "
        "C's result little, whatever their weights; that fits C's change within the noise.",
        # 7.70 apart against C's ± 3.53 and A's 3.27 added up, 6.80: by 0.90, narrow
        "**The paper's claim.** The claim is not borne out on this run: A's ACC fared better "
        "under the outliers (+7.73 points, C +0.03), by more than the two changes' ± added "
        "up (3.53 + 3.27 = 6.80), but only by 0.90 points. A narrow margin, as "
        f"{L.SPREAD_LIMIT}. Ranking most corrupted samples low is not the same as gaining "
        "ACC from it: here the corrupted views counted little in Z*."]
    # the same views counted as little in the clean fit (1.0 %): the scenario cannot test
    # the claim, whatever the changes say
    clean = [{"view": v, "share": s} for v, s in zip(["PIX", "FOU", "MOR"], [0.004, 0.006, 0.99])]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean,
                                per_view="**The title's question** ...")
    assert said[3] == (
        "**Who counts in Z\\*.** In C's fit on the clean data (step 6's table), PIX and FOU "
        "together carry 1.0 % of the consensus weight, \"share of ΣcᵥP\" (PIX 0.4 % + FOU "
        "0.6 %), and in its fit with the outliers 1.1 % (PIX 0.4 % + FOU 0.7 %), "
        "where an equal share would be 66.7 %: a view's share is its weight in the average "
        "of the views' tables that Z* is made from, which caps how far its table can move Z* (step 6); with "
        "1.0 % of that average on the clean data, these views could pull Z* only about 1.0 % "
        "of the way to their tables (over all digits), too little to move it either way, "
        "whatever their weights did; that fits C's change within the noise. Part of that may "
        "be this software's view scale cᵥ (step 6's table; the paper's model has none): the "
        "paper's model fitted on the same data, which would say, is not in yet (`rmsc lesson "
        "--warm` computes it).")
    # step 5's changes alone say "not borne out", its answer "cannot tell": step 7 says so
    assert said[4] == (
        "**The paper's claim.** This run cannot tell whether the claim holds: the corrupted "
        "views carried too little weight in C's Z* already on the clean data to move it "
        "either way, whatever the weights did, so C's ACC could not show the weights at "
        "work. On the ACC alone (step 5), A's change was the better one (C +0.03 points, A "
        "+7.73), which alone would say the claim is not borne out; as step 5 concluded, the "
        "answer is \"cannot tell\": a change C's weights could not have caused says nothing "
        "for or against them; to test the claim, corrupt views that "
        "count in Z* (step 6's table says which).")
    # the paper's model fitted on the clean data (every cᵥ = 1): PIX + FOU 1.4 + 1.7 =
    # 3.1 %, 0.05 of 66.7 %, under half of it: little there too, and cᵥ raised MOR's share
    # (96.9 % there, 99.0 % with cᵥ)
    paper = [{"view": v, "share": s} for v, s in zip(["PIX", "FOU", "MOR"],
                                                        [0.014, 0.017, 0.969])]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean,
                                paper_shares=paper)
    assert said[3].endswith(
        "that fits C's change within the noise. Is that this software's view scale cᵥ "
        "(step 6's table; the paper's model has none)? Judged by one rule (a share under "
        "half an equal share counts little): the paper's model (every cᵥ = 1) fitted again "
        "on the same clean data (a fit of its own, not step 6's \"share of ΣP\" column, "
        "which leaves cᵥ out of step 6's fit, so the two differ) finds other weights: PIX and FOU carry 3.1 %, MOR 96.9 % "
        "(99.0 % with cᵥ, step 6's table), 0.05 of the equal share (66.7 %), little by "
        "that rule: cᵥ raises MOR's share, it does not make PIX and FOU small."), said[3]
    assert said[4].startswith("**The paper's claim.** This run cannot tell")
    # the top view's share no higher with cᵥ: the sentence does not say cᵥ raised it
    paper = [{"view": v, "share": s} for v, s in zip(["PIX", "FOU", "MOR"],
                                                        [0.002, 0.003, 0.995])]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean,
                                paper_shares=paper)
    assert said[3].endswith("little by that rule: cᵥ does not make PIX and FOU small.")
    # 0.2 + 0.3 = 50.0 % on the paper's model, 0.75 of the equal share: they would count
    paper = [{"view": v, "share": s} for v, s in zip(["PIX", "FOU", "MOR"], [0.2, 0.3, 0.5])]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean,
                                paper_shares=paper)
    assert said[3].endswith(
        "PIX and FOU carry 50.0 %, MOR 50.0 % (99.0 % with cᵥ, step 6's "
        "table), 0.75 of the equal share (66.7 %), half of it or more: on the paper's model "
        "PIX and FOU would count, so their small share here comes from cᵥ, and this run "
        "tests this software's variant more than the paper's model."), said[3]
    # step 6's "share of ΣP" (this fit's P without cᵥ) is not repeated: the one number
    # "without cᵥ" is the paper's model's fit, said to be a fit of its own, so that the
    # reader meeting both numbers knows why they differ (the twentieth cold reading)
    low_p = [dict(s, p_share=q) for s, q in zip(clean, [0.072, 0.073, 0.855])]
    low_paper = [{"view": v, "share": s} for v, s in zip(["PIX", "FOU", "MOR"],
                                                           [0.014, 0.017, 0.969])]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=low_p,
                                paper_shares=low_paper)
    assert "14.5 %" not in said[3] and "7.2 %" not in said[3]
    assert ("fitted again on the same clean data (a fit of its own, not step 6's \"share of "
            "ΣP\" column, which leaves cᵥ out of step 6's fit, so the two differ) finds other "
            "weights") in said[3]
    assert said[3].endswith("PIX and FOU carry 3.1 %, MOR 96.9 % (99.0 % with cᵥ, step 6's "
                            "table), 0.05 of the equal share (66.7 %), little by that rule: "
                            "cᵥ raises MOR's share, it does not make PIX and FOU small."), said[3]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=low_p)
    assert "14.5 %" not in said[3] and said[3].endswith(
        "the paper's model fitted on the same data, which would say, is not in yet (`rmsc "
        "lesson --warm` computes it).")
    # the paper's fit not in (yet): said, not guessed
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean)
    assert said[3].endswith("the paper's model fitted on the same data, which would say, is "
                            "not in yet (`rmsc lesson --warm` computes it).")
    # six views, MOR on top: step 7 adds the second yardstick (PIX + FOU 1.0 % of the 11.0 %
    # the five views but MOR carry, 9 %, against two in five, 40 %) between the first
    # yardstick's verdict and the paper's model
    six = [{"view": v, "share": x} for v, x in zip(["PIX", "FOU", "FAC", "ZER", "KAR", "MOR"],
                                                   [0.004, 0.006, 0.075, 0.022, 0.003, 0.890])]
    said = L.takeaway_sentences(f, detection, six, ["PIX", "FOU"], clean_shares=six)
    assert ("whatever their weights did; that fits C's change within the noise. **A second "
            "yardstick.** Against the views other than MOR only (they shape Z* where MOR's "
            "table sits on Z*, step 6): of the 11.0 % these five carry together, PIX and FOU "
            "carry 1.0 %, 9 % of it, against 40 % (two views in five) for an equal part; under "
            "half of that, so this yardstick agrees: they count little. Part of that may be "
            "this software's view scale cᵥ") in said[3], said[3]
    # changes level on the ACC (cannot be told): step 7 keeps step 5's verdict
    level = _facts([0.9, 0.9], [0.89, 0.90], [0.03, 0.03], [0.03, 0.03], method="B")
    said = L.takeaway_sentences(level, detection, shares, ["PIX", "FOU"], clean_shares=clean)
    assert "this step does not change that verdict, it says why the ACC could not have told " \
           "more" in said[-1] and "revises" not in said[-1]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean,
                                per_view="**The title's question** ...")
    assert said[5] == "**The title's question** ..."
    # an equal say on the clean data, little with the outliers: the weights at work
    even_clean = [{"view": v, "share": 1 / 3} for v in ["PIX", "FOU", "MOR"]]
    said = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=even_clean)
    # a third each, shown 33.3 % + 33.3 % = 66.6 %: the 66.7 % is their sum before rounding
    assert said[3].endswith("carry 66.7 % of the consensus weight, \"share of ΣcᵥP\" (PIX "
                            "33.3 % + FOU 33.3 % in the table, each rounded; 66.7 % is their "
                            "sum before rounding), and in its fit with the outliers 1.1 % (PIX "
                            "0.4 % + FOU 0.7 %), where an equal "
                            "share would be 66.7 %: their "
                            "share fell with the corruption: the weights at work, turning Z* "
                            "away from the corrupted views.")
    assert said[4].startswith("**The paper's claim.** The claim is not borne out on this run")
    # both views singled out (AUC and average precision ≥ 0.9): one clause, "Finding"
    said = L.takeaway_sentences(f, {"PIX": (1.0, 1.0), "FOU": (0.95, 0.9)}, shares,
                                ["PIX", "FOU"])
    assert said[0] == ("**Finding the outliers.** C's weights single out the corrupted "
                       "samples (PIX: AUC 1.000, average precision 1.000; FOU: AUC 0.950, "
                       "average precision 0.900). " + _SCALES)
    assert said[-1].endswith("the seed corrupted. Finding the corrupted samples is not the same as "
                             "gaining ACC from it: here the corrupted views counted little "
                             "in Z*.")
    # the claim holding, the corrupted views with an equal say, the weights missing some;
    # no gain beyond the spread, so no sentence about one
    f = _facts([0.9, 0.9, 0.9], [0.85, 0.85, 0.89], [0.01] * 3, [0.01] * 3)
    even = [{"view": v, "share": 1 / 3} for v in ["PIX", "FOU", "MOR"]]
    said = L.takeaway_sentences(f, {"PIX": (0.8, 0.95), "FOU": (0.95, 0.95)}, even,
                                ["PIX", "FOU"])
    assert said[0].startswith("**Finding the outliers.** In PIX (AUC 0.800, average "
                              "precision 0.950), C's weights only partly rank the corrupted "
                              "samples below the clean ones; in FOU (AUC 0.950, "
                              "average precision 0.950), they single out")
    assert said[1] == ("**The outliers and ACC.** A (-5.00) and B (-5.00) lost ACC, "
                       "more than the ± spread; C (-1.00) changed within the ± spread (noise).")
    assert len(said) == 4 and not any("A gain" in s for s in said)
    # the parts are this line's own (no table of the fit with the outliers on screen)
    assert said[2].endswith("carry 66.7 % of the consensus weight, \"share of ΣcᵥP\" (PIX "
                            "33.3 % + FOU 33.3 %, each rounded; 66.7 % is their "
                            "sum before rounding), where an equal share would be 66.7 %.")
    assert said[3] == ("**The paper's claim.** The claim holds on this run: C's ACC fared best "
                       "under the outliers (-1.00 points, A -5.00), by more than the two "
                       "changes' ± added up (1.00 + 1.00 = 2.00).")
    # too close to tell, weights that miss the corrupted samples: no "Finding ..." after it
    f = _facts([0.9, 0.9], [0.87, 0.89], [0.03, 0.01], [0.01, 0.01], method="B")
    said = L.takeaway_sentences(f, {"PIX": (0.6, 0.95)}, even[:2], ["PIX"])
    assert "B's weights do not single out the corrupted samples (PIX: AUC 0.600" in said[0]
    assert said[-1] == ("**The paper's claim.** This run cannot tell whether the claim holds: "
                        "B's change (-1.00 points) and A's (-3.00) differ by no more than "
                        "their two ± added up (1.00 + 3.00 = 4.00).")


def _digit_small_tables(dirty_wv=0.9443):
    """The lesson's comparison on Digit-small (step 5's numbers), RMSC-WV's ACC with the
    outliers given."""
    import pandas as pd

    names = ["SSC-AVG", "RMSC-WV", "RMSC"]
    return {"clean": pd.DataFrame({"method": names, "acc_mean": [0.7672, 0.9358, 0.9065],
                                   "acc_std": [0.0327, 0.0364, 0.0353]}),
            "with outliers": pd.DataFrame({"method": names,
                                           "acc_mean": [0.8445, dirty_wv, 0.9068],
                                           "acc_std": [0.0172, 0.0364, 0.0244]})}


def test_the_titles_question_per_sample_against_per_view_weights_by_hand():
    # clean: 93.58 - 90.65 = 2.93 within the larger ± 3.64; with outliers 94.43 - 90.68 =
    # 3.75, beyond 3.64 by 0.11 (under twice it: narrow)
    assert L.per_view_sentence(_digit_small_tables()) == (
        "**The title's question** (a weight for every sample in every view, RMSC, or one per "
        "view, RMSC-WV): on the clean data RMSC 90.65 ± 3.53 %, RMSC-WV 93.58 ± 3.64 %: level "
        "(2.93 points apart, within the ± spread); with outliers RMSC 90.68 ± 2.44 %, RMSC-WV "
        "94.43 ± 3.64 %: RMSC-WV ahead by 3.75 points, more than the ± spread (3.64), but only "
        f"by 0.11 points: a narrow margin, as {L.SPREAD_LIMIT}. On this run, a weight for "
        "every sample did not pay off: one weight per view did as well or better.")
    # RMSC-WV at 88.00 with the outliers: RMSC 2.68 above, within ± 3.64: level twice
    assert L.per_view_sentence(_digit_small_tables(0.88)).endswith(
        "On this run, the two ways of weighting cannot be told apart.")
    # at 80.00: RMSC ahead by 10.68, not narrow
    said = L.per_view_sentence(_digit_small_tables(0.80))
    assert "RMSC ahead by 10.68 points, more than the ± spread;" not in said
    assert said.endswith("RMSC ahead by 10.68 points, more than the ± spread. On this run, a "
                         "weight for every sample paid off against one weight per view.")
    # the gap is the one between the values shown: 94.43 - 94.17 = 0.26 (the means'
    # 94.4340 - 94.1666 = 0.2674 would read 0.27; the ninth cold reading caught it)
    tables = _digit_small_tables(0.944340)
    tables["with outliers"].loc[tables["with outliers"]["method"] == "RMSC", "acc_mean"] = (
        0.941666)
    assert ("with outliers RMSC 94.17 ± 2.44 %, RMSC-WV 94.43 ± 3.64 %: level (0.26 points "
            "apart, within the ± spread)") in L.per_view_sentence(tables)
    # no per-view variant in the tables, or a method without one: nothing said
    tables = {k: t[t["method"] != "RMSC-WV"] for k, t in _digit_small_tables().items()}
    assert L.per_view_sentence(tables) is None
    assert L.per_view_sentence(_digit_small_tables(), method="SSC-AVG") is None


def _with_nmi(tables, clean, dirty, sd=0.01):
    """``tables`` with NMI columns: ``clean`` and ``dirty`` each [SSC-AVG, RMSC-WV, RMSC]."""
    return {name: t.assign(nmi_mean=list(nmi), nmi_std=[sd] * 3) for (name, t), nmi in
            zip(tables.items(), (clean, dirty))}


def test_the_titles_question_on_nmi_beside_acc_by_hand():
    # the fifteenth cold reading: step 8's answer read ACC alone while NMI, on the same
    # screen, told RMSC-WV ahead. ACC level twice (RMSC-WV at 88.00); NMI level twice too
    level = _with_nmi(_digit_small_tables(0.88), [0.85, 0.92, 0.92], [0.85, 0.92, 0.92])
    said = L.per_view_sentence(level)
    assert ("On NMI (the charts' orange bars): on the clean data RMSC 92.00 ± 1.00 %, RMSC-WV "
            "92.00 ± 1.00 %: level (0.00 points apart, within the ± spread); with outliers "
            "RMSC 92.00 ± 1.00 %, RMSC-WV 92.00 ± 1.00 %: level") in said
    assert said.endswith("On this run, by ACC and NMI alike, the two ways of weighting "
                         "cannot be told apart.")
    # NMI with the outliers: RMSC 87.12, RMSC-WV 91.73, 4.61 apart beyond ± 1.00; ACC level
    nmi = _with_nmi(_digit_small_tables(0.88), [0.85, 0.92, 0.92], [0.85, 0.9173, 0.8712])
    assert L.per_view_sentence(nmi).endswith(
        "with outliers RMSC 87.12 ± 1.00 %, RMSC-WV 91.73 ± 1.00 %: RMSC-WV ahead by 4.61 "
        "points, more than the ± spread. On this run, by NMI, a weight for every sample did "
        "not pay off: one weight per view did as well or better; ACC, too noisy here, cannot "
        "tell the two ways apart, which does not contradict it.")
    # ACC: RMSC-WV ahead with the outliers (3.75 beyond 3.64); NMI level: the other way round
    acc = _with_nmi(_digit_small_tables(), [0.85, 0.92, 0.92], [0.85, 0.92, 0.92])
    assert L.per_view_sentence(acc).endswith(
        "On this run, by ACC, a weight for every sample did not pay off: one weight per view "
        "did as well or better; NMI, too noisy here, cannot tell the two ways apart, which "
        "does not contradict it.")
    # ACC: RMSC ahead by 10.68 (RMSC-WV at 80.00); NMI: RMSC-WV ahead: they disagree
    both = _with_nmi(_digit_small_tables(0.80), [0.85, 0.92, 0.92], [0.85, 0.9173, 0.8712])
    assert L.per_view_sentence(both).endswith(
        "On this run, by ACC, a weight for every sample paid off against one weight per view; "
        "by NMI, a weight for every sample did not pay off: one weight per view did as well "
        "or better: the two scores disagree.")


def test_a_compare_steps_lines_say_a_gain_where_it_happens_by_hand():
    tables = _digit_small_tables()
    said = L.comparison_sentences(tables)  # step 3: no claim
    assert said[:3] == L.change_sentences(tables)
    # SSC-AVG's +7.73 beyond its ± 3.27: the closing step's own line about such a gain
    assert L.gainers(tables) == ["SSC-AVG"] and said[3:] == [L.gain_sentence(["SSC-AVG"])]
    # step 5: the gain's line briefly (step 3 said it in full), the claim's line last
    assert L.comparison_sentences(tables, "RMSC")[3:] == [
        L.gain_reminder(["SSC-AVG"]), L.claim_sentence(tables, "RMSC")]
    # "not borne out" rests on SSC-AVG's gain beyond the ± spread: the claim's line says so;
    # RMSC's +0.03 (± 3.53) and SSC-AVG's +7.73 (± 3.27) are 7.70 apart, beyond 6.80 by 0.90
    assert ("is not borne out here. The two changes are 7.70 points apart, more than the two "
            "changes' ± added up (3.53 + 3.27 = 6.80), but only by 0.90 points. A narrow "
            f"margin, as {L.SPREAD_LIMIT}. This rests on SSC-AVG's gain, which the line above "
            "says can be the luck of this one draw: another seed may not repeat it. "
            + L.CLAIM_ASKS_MORE) in L.claim_sentence(tables, "RMSC")
    # no gain beyond the spread: no such line
    tables["with outliers"].loc[0, "acc_mean"] = 0.78
    assert L.gainers(tables) == [] and len(L.comparison_sentences(tables)) == 3
    assert L.gainers({"clean": tables["clean"]}) == []


def test_the_shipped_lessons_comparisons_know_where_they_stand_on_their_run():
    lesson = L.load_lesson()
    steps, n = lesson.steps, len(lesson)
    # step 3 opens the PIX/FOU run, step 5 comes back to it, step 7 sums it up
    assert L.run_context(steps, 3) == (True, True) and L.run_context(steps, 5) == (False, True)
    # step 8, after the summary, runs a corruption of its own: FAC and MOR, with the claim
    last = steps[-1]
    assert last.show == "compare" and last.claim == "RMSC" and n == 8
    assert set(last.outliers.views) == {"FAC", "MOR"} and last.outliers.fraction == 0.1
    assert L.run_context(steps, n) == (True, False)  # its own run, nothing sums it up
    tables = _digit_small_tables()  # SSC-AVG gains beyond its ±: the gain's line
    said = L.comparison_sentences(tables, last.claim, *L.run_context(steps, n))
    # in full (no earlier step on this run said it), and no closing step to point to
    assert said[3] == L.gain_sentence(["SSC-AVG"])
    assert said[4] == L.claim_sentence(tables, "RMSC", closing=False)
    assert not said[4].endswith(L.CLAIM_ASKS_MORE) and said[4].endswith("repeat it.")
    assert L.claim_sentence(tables, "RMSC") == said[4] + " " + L.CLAIM_ASKS_MORE
    # step 5: briefly, and the closing step's question
    assert L.comparison_sentences(tables, "RMSC", *L.run_context(steps, 5))[3:] == [
        L.gain_reminder(["SSC-AVG"]), L.claim_sentence(tables, "RMSC")]
    # "first" None keeps the older rule: in full on a step without a claim only
    assert L.comparison_sentences(tables, "RMSC")[3] == L.gain_reminder(["SSC-AVG"])


def test_the_closing_step_names_the_later_step_that_corrupts_the_views_that_count():
    lesson = L.load_lesson()
    steps = lesson.steps
    # step 7 sums up the PIX/FOU run; step 8 corrupts FAC and MOR: the one later test
    # step 8 is the lesson's last claim test: its answer box is there (lesson_close)
    ends = ", and ends with the lesson's answer, both tests together"
    assert L.later_test(steps, 7) == "step 8 does, corrupting FAC and MOR" + ends
    assert L.later_test(steps, 3) == "step 8 does, corrupting FAC and MOR" + ends
    assert L.later_test(steps, 8) is None  # nothing after the last step
    # a later step checking no claim has no answer box
    no_claim = [*steps[:7], dataclasses.replace(steps[7], claim=None)]
    assert L.later_test(no_claim, 7) == "step 8 does, corrupting FAC and MOR"
    # a later step on the same corrupted views is no other test; nor a step without outliers
    same = [steps[6], steps[4], steps[5]]
    assert L.later_test(same, 1) is None
    # the closing step's verdict names it where it says to corrupt views that count
    f = L.claim_facts(_digit_small_tables(), "RMSC")
    detection = {"PIX": (1.0, 1.0), "FOU": (0.95, 0.9)}
    shares = [{"view": v, "share": s} for v, s in zip(["PIX", "FOU", "MOR"], [0.005, 0.006, 0.989])]
    clean = [{"view": v, "share": s} for v, s in zip(["PIX", "FOU", "MOR"], [0.004, 0.006, 0.99])]
    plain = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean)
    named = L.takeaway_sentences(f, detection, shares, ["PIX", "FOU"], clean_shares=clean,
                                 later="step 8 does, corrupting FAC and MOR")
    assert plain[-1].endswith("corrupt views that count in Z* (step 6's table says which).")
    assert named[-1] == plain[-1][:-1] + ": step 8 does, corrupting FAC and MOR."
    assert named[:-1] == plain[:-1]


def test_the_gain_is_said_in_full_once_and_briefly_after_by_hand():
    assert L.gain_sentence(["A"]) == _GAIN
    assert L.gain_reminder(["A"]) == (
        "**A gain from corrupted data?** A's ACC rose beyond the ± spread with the outliers; "
        "as the first step on this run says, corruption adds nothing about the classes, so "
        "that can be the luck of this one draw.")


def test_stated_differences_are_those_of_the_shown_values_by_hand():
    import pandas as pd

    # the eighth reading's screen: RMSC-WV 94.43, RMSC 94.17 (0.26 apart, where the
    # unrounded 94.434 - 94.166 gave 0.27); SSC-AVG 76.716 -> 84.449 (+7.73 shown), RMSC
    # 94.148 -> 94.166 (+0.02 shown): 7.71 apart, not the unrounded 7.715 -> 7.72
    names = ["SSC-AVG", "RMSC-WV", "RMSC"]
    tables = {"clean": pd.DataFrame({"method": names,
                                     "acc_mean": [0.76716, 0.93584, 0.94148],
                                     "acc_std": [0.0327, 0.0364, 0.0415]}),
              "with outliers": pd.DataFrame({"method": names,
                                             "acc_mean": [0.84449, 0.94434, 0.94166],
                                             "acc_std": [0.0172, 0.0364, 0.0414]})}
    table = dash.robustness_table(tables)
    rows = {m: (w, c) for m, w, c in zip(table["method"], table["with outliers %"],
                                          table["change (points)"])}
    assert rows == {"SSC-AVG": (84.45, 7.73), "RMSC-WV": (94.43, 0.85), "RMSC": (94.17, 0.02)}
    said = L.claim_sentence(tables, "RMSC")
    assert "RMSC-WV's 94.43 ± 3.64 % is 0.26 points above RMSC's 94.17 ± 4.14 %" in said
    assert "The two changes are 7.71 points apart," in said
    # the ± as shown too: a spread of 4.1449 is shown and used as 4.14
    assert L.acc_spreads(pd.DataFrame({"method": ["A"], "acc_std": [0.041449]})) == {"A": 4.14}


def test_the_slider_tables_largest_acc_move_by_hand():
    import pandas as pd

    # step 6 on Digit-small as the page shows it: ACC 94.0 -> 94.1 -> 71.8, density of Z*
    # 70.33 -> 14.81 -> 1.23: the largest move is 0.25 -> 1, 71.8 - 94.1 = -22.3 points
    shown = pd.DataFrame({"β_rel": ["0.05", "0.25", "1"], "β (absolute)": ["1", "5", "20"],
                          "ACC %": ["94.0", "94.1", "71.8"],
                          "density of Z* %": ["70.33", "14.81", "1.23"]})
    assert L.slider_sentence(shown) == (
        "**Where ACC moves most**: from β_rel = 0.25 to 1, ACC goes from 94.1 % to 71.8 % "
        "(-22.3 points) while the density of Z* goes from 14.81 % to 1.23 %: too sparse a Z* "
        "keeps too few neighbours for each digit to hold its class together.")
    # a rise is said without the reason; a stop not fitted yet ("—") is skipped
    shown["ACC %"] = ["60.0", "—", "70.5"]
    assert L.slider_sentence(shown) == (
        "**Where ACC moves most**: from β_rel = 0.05 to 1, ACC goes from 60.0 % to 70.5 % "
        "(+10.5 points) while the density of Z* goes from 70.33 % to 1.23 %.")
    shown["ACC %"] = ["—", "—", "70.5"]
    assert L.slider_sentence(shown) is None
    # the share table says which fit it is
    assert L.shares_heading("β_rel", 0.25) == (
        "**Each view's part of the weights**, in the fit at β_rel = 0.25 (the slider's "
        "current value: the table follows it)")


def test_scores_note_defines_every_score():
    for name in ("**ARI**", "**purity**", "ACC", "NMI"):
        assert name in L.SCORES_NOTE
    # step 6's table shows the share without cᵥ, from the Weights page's one table
    assert "share of ΣP %" in L.SHARE_COLUMNS
    table = dash.weight_shares_table([{
        "view": "A", "n_features": 2, "share": 0.9, "p_share": 0.5, "at_cap": 0.1,
        "mean_weight": 1.0, "median_loss": 0.1, "factor": 9.0}])
    assert list(table[list(L.SHARE_COLUMNS)].columns) == list(L.SHARE_COLUMNS)
    assert table["share of ΣP %"].iloc[0] == 50.0


def test_why_the_top_views_share_does_not_make_zstar_its_picture_by_hand():
    facts = {"view": "MOR", "share": 0.893, "n_features": 6, "directions": 1.0}
    shares = [{"view": v, "share": x} for v, x in
              zip(["PIX", "FOU", "FAC", "ZER", "KAR", "MOR"],
                  [0.004, 0.006, 0.075, 0.022, 0.004, 0.890])]
    said = L.echo_note(facts, 0.006, 0.4637, 0.9065, shares)
    # three plain sentences (the seventeenth cold reading only half followed the paragraph
    # before): Z* an average, MOR's table on it, a copy of an average moves it nowhere; the
    # other views named with their shares, largest first, as step 6's table shows them
    assert said == (
        "**Why MOR's 89 % share does not make Z\\* what MOR alone shows.** Z* is made from "
        "an average of the views' tables, weighted by these shares, and at the fit's end "
        "MOR's own table (who resembles whom in MOR alone, pulled towards Z* by λ) sits on "
        f"Z*: it differs from Z* by only 0.6 % of Z*'s size ({L.SIZE_WORDS}). Averaging in "
        "a copy of the average leaves the average where it is, however large its weight, so "
        "what Z* looks like comes from the tables that differ from it, the other views' "
        "(FAC 7.5 %, ZER 2.2 %, FOU 0.6 %, PIX 0.4 %, KAR 0.4 %). "
        # the twentieth cold reading: every view but MOR is under half an equal share
        # (8.3 %, the rule of steps 5, 7 and 8), yet they shape Z*: said, with their total
        # (0.4 + 0.6 + 7.5 + 2.2 + 0.4 = 11.1 %)
        "By the rule steps 5, 7 and 8 judge shares by (a share under half an equal share "
        "counts little: under 8.3 % here), every view but MOR counts little; yet, as MOR's "
        "table adds nothing new, the views other than MOR shape Z* together, each by its "
        "part of the 11.1 % they carry. "
        "On its own MOR tells the "
        "classes apart much less well: its data alone, clustered as SC-BSV clusters each "
        "view, reach ACC 46.37 %, against RMSC's 90.65 % with all views.")
    assert len(said.split(". ")) <= 5  # the heading and four sentences
    # no solver's jargon and no spread directions
    for word in ("Z*-step", "thresholds", "Zᵛ", "equally spread", "directions"):
        assert word not in said
    # without the other views' shares, the sentence ends at the tables that differ
    assert L.echo_note(facts, 0.0197, None, None).endswith(
        "2.0 % of Z*'s size (size: the square root of the sum of all entries squared, for the "
        "difference as for Z*). Averaging in a copy of the average leaves the average where "
        "it is, however large its weight, so what Z* looks like comes from the tables that "
        "differ from it.")
    # a table far from Z* (gap ≥ FOLLOWS_GAP) is not called a copy; the ACC alone not in yet
    said = L.echo_note(facts, L.FOLLOWS_GAP, None, 0.9065)
    assert said.endswith(f"differs from Z* by 10.0 % of Z*'s size ({L.SIZE_WORDS}).") \
        and "copy" not in said
    # a view alone within 10 points of RMSC: "less well"; above it: "as well or better"
    assert "apart less well" in L.echo_note(facts, None, 0.85, 0.9065)
    assert "as well or better" in L.echo_note(facts, None, 0.95, 0.9065)
    assert L.echo_note(None, 0.02, 0.46, 0.9) is None
    assert L.echo_note(facts, None, None, 0.9) is None


def test_how_the_weights_find_a_views_outliers_uses_both_scores():
    # "single out" only when both the AUC and the average precision reach their thresholds
    assert L.detection_kind(L.AUC_FOUND, L.AP_FOUND) == "found"
    assert L.detection_kind(0.999, L.AP_FOUND - 0.001) == "ranked"
    assert L.detection_kind(L.AUC_FOUND - 0.001, 1.0) == "partly"
    assert L.detection_kind(L.AUC_MISSED, 1.0) == "partly"
    assert L.detection_kind(L.AUC_MISSED - 0.001, 1.0) == "missed"
    # two methods gaining: both named
    assert L.gain_sentence(["A", "B"]).startswith(
        "**A gain from corrupted data?** The ACC of A and B rose by more than the ± spread")


def test_the_notes_under_the_figures_by_hand():
    import numpy as np
    import pandas as pd

    # a flat panel: PC2 keeps 0.02 %, and 3 of its 5 points on one spot
    flat = np.array([[0.0, 0], [0, 0], [0, 0], [1, 0], [2, 1e-6]])
    spread = np.array([[0.0, 0], [1, 1], [2, 0], [3, 2], [4, 1]])
    note = L.projection_note(["PIX", "MOR"], [(0.6, 0.3), (0.9998, 0.0002)], [spread, flat])
    # drawn: PC1 spans 2, PC2 1e-6, 2,000,000 times less
    assert note == ("MOR's PC2 keeps 0.02 % of its spread: its digits lie almost on a line "
                    "along PC1, and the panel's vertical axis, stretched to fill it, spans "
                    "2,000,000 times less than its horizontal one, so a vertical gap between "
                    "clumps is that many times smaller than a horizontal one that looks as "
                    "wide: small, though not necessarily meaningless. Of its 5 dots, 2 sit "
                    "on top of others (closer than a dot's width), so the panel shows fewer "
                    "dots than the others.")
    assert L.projection_note(["PIX"], [(0.6, 0.3)], [spread]) is None
    shown = pd.DataFrame({"method": ["SC-BSV", "SSC-AVG", "RMSC"],
                          "post-processing": ["—", "none (the paper's)", "scale columns"]})
    assert L.postprocessing_difference(shown).startswith(
        "**Not like for like.** The methods' tables are post-processed differently here "
        "(SSC-AVG's \"none (the paper's)\"; RMSC's \"scale columns\"; the note under the "
        "table says what each does): each method runs as the library ships it, so part of a "
        "gap between them can come from this step")
    # a later step comparing the clean and corrupted data: the same column, in one line,
    # the methods grouped by what they ran, naming the step that said it in full
    later = pd.DataFrame({"method": ["SSC-AVG", "RMSC-WV", "RMSC"],
                          "post-processing": ["none (the paper's)", "scale columns",
                                              "scale columns"]})
    assert L.postprocessing_reminder(later, 2) == (
        "**Not like for like, as in step 2.** The methods' tables are still post-processed "
        "differently (SSC-AVG's \"none (the paper's)\"; RMSC-WV's and RMSC's \"scale "
        "columns\"), so part of a gap between them can come from that step rather than from "
        "how they use the views.")
    # no earlier step said it: the line does not point back
    assert L.postprocessing_reminder(later).startswith(
        "**Not like for like.** The methods' tables are post-processed differently (SSC-AVG's")
    shown["post-processing"] = ["—", "scale columns", "scale columns"]
    assert L.postprocessing_difference(shown) is None
    assert L.postprocessing_reminder(shown, 2) is None
    # the shipped lesson: step 2 is the first comparison on clean data, before steps 3 and 5
    steps = L.load_lesson().steps
    assert [L.earlier_comparison(steps, n) for n in (2, 3, 5)] == [None, 2, 2]
    # the page's one call: in full on one dataset, the reminder on two, nothing without
    # the column or when the methods agree
    assert L.postprocessing_line(later, 1, steps, 3) == L.postprocessing_difference(later)
    assert L.postprocessing_line(later, 2, steps, 3) == L.postprocessing_reminder(later, 2)
    assert L.postprocessing_line(later[["method"]], 2, steps, 3) is None
    assert L.postprocessing_line(shown, 1, steps, 2) is None
    # ± said with the protocol's number of k-means runs; the methods from the registry
    from rmsc.spectral import N_KMEANS_RUNS

    assert f"mean over {N_KMEANS_RUNS} runs" in L.SPREAD_MEANING
    # the table's time and the sidebar's: two runs, the trace's interval named
    assert f"every {dash.PAGE_TRACE_EVERY} iterations" in L.TIME_NOTE
    assert L.method_lines(["RMSC"]) == [f"**RMSC**: {__import__('rmsc').describe_method('RMSC')}"]


def test_the_slider_table_has_each_values_fit_by_hand():
    from types import SimpleNamespace

    import numpy as np
    import scipy.sparse as sp

    lesson = L.parse_lesson({"title": "t", "steps": [{
        "title": "β", "text": "Move it.", "question": "Denser?", "show": "solve",
        "data": "Subspaces", "params": {"beta_rel": 0.25},
        "slider": {"param": "beta_rel", "values": [0.05, 0.25, 1]}}]})
    step = lesson.step(1)
    # 3 samples: 6 off-diagonal places; 3 nonzero = 50 %, 1 nonzero = 16.67 %
    dense = sp.csr_matrix(np.array([[0, 1, 1], [1, 0, 0], [0, 0, 0.0]]))
    sparse = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0.0]]))
    fits = [SimpleNamespace(consensus=dense, beta=0.002, scores={"acc_mean": 0.8}),
            None,  # not in yet
            SimpleNamespace(consensus=sparse, beta=0.04, scores=None)]
    table = L.slider_table(step, fits)
    assert list(table.columns) == ["β_rel", "β (absolute)", "ACC %", "density of Z* %"]
    assert table["β_rel"].tolist() == [0.05, 0.25, 1.0]
    np.testing.assert_allclose(table["density of Z* %"], [50, np.nan, 100 / 6])
    np.testing.assert_allclose(table["ACC %"], [80, np.nan, np.nan])
    np.testing.assert_allclose(table["β (absolute)"], [0.002, np.nan, 0.04])
    # as the page draws it: text, "—" where no fit is in
    shown = L.slider_table_text(table)
    assert shown.values.tolist() == [["0.05", "0.002", "80.0", "50.00"],
                                     ["0.25", "—", "—", "—"],
                                     ["1", "0.04", "—", "16.67"]]


def test_the_heatmap_note_names_a_dark_clean_view_from_the_weights_by_hand():
    import numpy as np

    names = ["PIX", "FOU", "MOR"]
    P = np.array([[0.1, 1, 1, 1], [2, 2, 2, 2], [4, 4, 2, 4.0]])
    mask = np.zeros((3, 4), bool)
    mask[0, 0] = True  # corrupted in PIX only: FOU and MOR are clean
    note = L.heatmap_note(P, mask, names)
    assert note.startswith("**Reading the heatmap.** Within each class the columns are "
                           "sorted by the digit's lowest weight in any view, lowest first")
    assert "compare a marked column with the unmarked columns of the same class" in note
    # MOR's median 4: 2 / 4 = 0.5 < 0.75 is dark, one digit of four; FOU has none dark
    assert note.endswith("A row can be dark where nothing was corrupted: MOR is clean, yet "
                         "25 % of its digits have a weight below 0.75 × its median (drawn "
                         "dark): digits MOR rebuilds less well than its usual one, corrupted "
                         "or not.")
    # four digits: one column each (the fourth cold reading of step 4 had to count marks)
    assert "same class, not the left of the heatmap with the right. Here each column is one " \
        "digit (all 4 are drawn). A row can be dark" in note
    P[2, 2] = 3.0  # 0.75 × the median: not below it, no clean row is dark
    assert "nothing was corrupted" not in L.heatmap_note(P, mask, names)
    # more digits than the page's columns (dash.scale_plan: 600): a column pools about
    # 1,800 / 600 = 3 digits, drawn at their lowest weight, as the page's heatmap_pool does
    many = np.ones((3, 1800))
    wide = np.zeros((3, 1800), bool)
    wide[0, 0] = True
    assert dash.scale_plan(1800).weight_columns == 600
    assert L.heatmap_note(many, wide, names).endswith(
        "Here, with 1,800 digits and 600 columns, a column stands for about 3 digits of one "
        "class, drawn at the lowest of their weights.")
    assert L.heatmap_note(P, None, names) is None
    assert L.heatmap_note(P, np.zeros((3, 4), bool), names) is None


def test_the_weight_note_says_the_tables_numbers_in_plain_words_by_hand():
    import numpy as np

    from rmsc.dominance import dominance_facts
    from rmsc.inspection import view_weight_shares

    # three views at γ = 0.01 (ceiling 1/√γ = 10; "at the cap" from 7.07 up); each weight
    # 1/√(γ + loss): loss 0 -> 10, 0.03 -> 5, 0.24 -> 2, 0.99 -> 1
    P = np.array([[10.0, 10, 5, 5], [1, 1, 1, 1], [2, 2, 1, 1]])
    kw = dict(gamma=0.01, view_names=["MOR", "PIX", "FOU"], n_features=[6, 240, 76])
    shares = view_weight_shares(P, **kw)
    # MOR: 30 of 40 = 75 %; median losses 0.015, 0.99, 0.615 -> others' median 0.8025
    # (shown 0.802), 53.5 times MOR's; two of its four samples at the cap
    assert L.weight_note(shares, dominance_facts(P, **kw)) == (
        'A weight says how well the other samples rebuild a sample in a view: the smaller '
        'the error left over ("median loss" gives each view\'s typical one at the fit\'s '
        'end), the larger the weight, up to a ceiling set by γ. MOR has 75 % of the say in '
        'Z* ("share of ΣcᵥP"), '
        'where an equal share would be 33 % of 3 views. Its samples are the easiest to '
        'rebuild: its median loss, 0.015, is 53.5 times below the other views\' median '
        '(0.802), and 50 % of its samples are rebuilt so well that their weight sits at the '
        'ceiling ("samples at the cap").')
    # why it is easy to rebuild, where its spread says so: the fewest directions of the
    # three (1.0 against 12.9 and 14.2), its PC1 keeping all of it
    spread = [{"pc1": 1.0, "directions": 1.0}, {"pc1": 0.18, "directions": 14.15},
              {"pc1": 0.197, "directions": 12.94}]
    assert L.weight_note(shares, dominance_facts(P, **kw, spread=spread)).endswith(
        'ceiling ("samples at the cap"). MOR\'s samples spread along few directions (it has '
        "6 features): its first principal direction (the Data page's PC1) keeps 100 % of its "
        "spread, against 18 % to 20 % in the other views, and its whole spread would fit in "
        "1.0 directions each holding an equal part, against 12.9 to 14.2 for the other "
        "views. Along so few "
        "directions almost any sample is nearly an exact mix of a "
        "few others, whatever its class. So MOR's large weight says it is easy to rebuild, "
        "not that it tells the classes apart.")
    # a view of few features whose spread is not the narrowest: no such reason given
    spread[2]["directions"] = 0.9
    assert "few directions" not in L.weight_note(shares, dominance_facts(P, **kw,
                                                                          spread=spread))
    # the scaled model with c_v = 1/s_v = 1000, 50, 100: MOR's c_v is 1000 / 75 = 13.3
    # times the others' median, its share 30000 / 30800 = 97 %
    kw.update(factors=np.array([1000.0, 50, 100]), scale=np.array([0.001, 0.02, 0.01]))
    note = L.weight_note(view_weight_shares(P, **kw), dominance_facts(P, **kw))
    assert 'MOR has 97 % of the say in Z*' in note
    assert "and MOR's is 13.3 times the other views' median" in note
    # cᵥ comes from the losses at the start, which the table's "median loss" (at the fit's
    # end) is not: said where cᵥ is (the nineteenth cold reading took 1/0.0709 for PIX's cᵥ)
    assert ("gives each view a scale cᵥ from the size of its errors at the start, before "
            "anything is learned (1 over its median loss then, not the \"median loss\" at "
            "the fit's end; the paper's model has none: cᵥ = 1)") in note
    even = np.array([[2.0, 2], [1, 1], [1, 1]])  # shares 50, 25, 25 %: 50 % is the threshold
    even[0] = 1.9
    kw = dict(gamma=0.01, view_names=["MOR", "PIX", "FOU"])
    assert dominance_facts(even, **kw) is None
    assert L.weight_note(view_weight_shares(even, **kw), None).endswith(
        'No view has most of the say in Z* here: the largest "share of ΣcᵥP" is MOR\'s, '
        '49 % (an equal share would be 33 %).')


# ---------------------------------------------------------------------------
# AppTest walks every step
# ---------------------------------------------------------------------------


def _wait_prefetched(key, timeout=240):
    """Whether the fit ``key`` is in the result cache once the prefetches bringing it end
    (False: none holds it, or ``timeout`` passed)."""
    import threading
    import time

    from ui import caches

    pre, cache = caches.prefetcher(), caches.result_cache()
    deadline, tick = time.monotonic() + timeout, threading.Event()
    while key not in cache and time.monotonic() < deadline:
        running = pre.running
        if not running and key not in pre.queued:
            break  # nothing will bring it
        for job in running:
            job.wait(max(deadline - time.monotonic(), 0))
        if not running:
            tick.wait(0.05)  # queued behind a worker's other job: look again
    return key in cache


def _wait_jobs(at, timeout=240):
    for name in ("fit", "compare"):
        job = at.session_state["slots"][name].latest
        if job is not None:
            assert job.wait(timeout), f"the {name} job did not finish"
    return at.run()


def _check_claim(claim, table, method, lines):
    """The claim line says what the page's table and change lines beside it show: the
    highest ACC with the outliers (or the two level within the ± spread, by the lesson's
    rule, from the spreads the lines print) and whose change is the best."""
    said = r"- (\S+): ACC [\d.]+ ± [\d.]+ % on the clean data, [\d.]+ ± ([\d.]+) % with"
    spread = {m: float(sd) for m, sd in re.findall(said, " ".join(lines))}
    order = table.sort_values("with outliers %", ascending=False)
    (top, a), (runner, b) = order[["method", "with outliers %"]].values[:2]
    if L.within_spread(a - b, [spread[top], spread[runner]]):
        assert f"{top} and {runner} are level on the highest ACC with outliers" in claim
        assert f"is {a - b:.2f} points above {runner}'s {b:.2f} ± {spread[runner]:.2f} %" in claim
    else:
        assert f"{top} has the highest ACC with outliers ({a:.2f} %), {a - b:.2f} points" in claim
        assert "more than the ± spread" in claim
    changes = dict(zip(table["method"], table["change (points)"]))
    holds = changes[method] > max(c for m, c in changes.items() if m != method)
    assert (f"The best change is {method}'s" in claim) == holds, claim


@pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")
def test_apptest_walks_every_step(tmp_path, monkeypatch):
    path = write(tmp_path, SMALL_LESSON)
    monkeypatch.setenv("RMSC_LESSON", str(path))
    monkeypatch.setenv(dash.PREFETCH_ENV, "1")  # the test session turns it off elsewhere
    lesson = L.load_lesson(path)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lesson"] = "1"
    at.run()
    try:
        for n, step in enumerate(lesson.steps, 1):
            at = _wait_jobs(at)
            assert not at.exception, [e.value for e in at.exception]
            assert "**Lesson:** A small lesson" in [m.value for m in at.markdown]
            assert f"Step {n} of {len(lesson)}: {step.title}" in [s.value for s in at.subheader]
            assert any(step.question in i.value for i in at.info)
            # the whole state is the step's, and the URL says which step
            ss = at.session_state
            assert ss["clean"].name == step.data and ss["outliers"] == step.outliers
            assert ss["params"] == step.params
            assert at.query_params["lesson"] in (str(n), [str(n)])
            # Back / Next above the step and again at its end (after the evidence)
            assert at.button(key="lesson_back").disabled == (n == 1)
            assert at.button(key="lesson_back_end").disabled == (n == 1)
            assert at.button(key="lesson_next_end").disabled == (n == len(lesson))
            if step.show == "views":  # the question's answer counted under the panels
                clumps = [m.value for m in at.markdown
                          if m.value.startswith("**Clumps of one colour, counted**")]
                assert len(clumps) == 1 and all(f"{v} " in clumps[0]
                                                for v in ss["clean"].view_names), clumps
            if n == 1:  # its fit is in: the other steps' fits are prefetched, the next first
                from ui import caches

                pre, cache = caches.prefetcher(), caches.result_cache()
                wanted = [dash.fit_key(p, L.load_step_data(lesson, s)[1])
                          for s in lesson.steps[1:] for p in L.step_params(s)]
                # read in the order a prefetch moves (queued, running, kept): one that
                # moves on between two reads is still seen in the later one
                pending = pre.queued + [j.key for j in pre.running]
                assert all(k in pending or k in cache for k in wanted), (wanted, pending)
            if step.show == "compare":
                lines = " ".join(m.value for m in at.markdown)
                assert "SSC-AVG: ACC" in lines and "RMSC: ACC" in lines
                # what ± is and the rule for noise, where ± first appears
                # (a rule: in the page's text, not a grey caption)
                assert any(L.SPREAD_MEANING in c.value and L.SPREAD_RULE in c.value
                           for c in at.markdown)
                # each method spelled out, from the registry
                assert any(all(line in c.value for line in L.method_lines(step.methods))
                           for c in at.caption)
                # the paper's claim checked on the step that asks about it (its 'claim'
                # field), from the table beside it; not on the other compare steps
                claim = [m.value for m in at.markdown
                         if m.value.startswith("- **The paper's claim, judged on the ACC")]
                assert len(claim) == (step.claim is not None), claim
                # the methods' post-processing, from the comparison's own table: in full on
                # one dataset, in one line on the clean and corrupted data
                from ui import caches

                clean, data = L.load_step_data(lesson, step)
                tables = caches.result_cache().get(L.step_comparison(step, clean, data)[0])
                shown = dash.compare_display(next(iter(tables.values())), data.view_names)
                want = (L.postprocessing_difference(shown) if len(tables) == 1 else
                        L.postprocessing_reminder(shown, L.earlier_comparison(lesson.steps, n)))
                assert want is not None  # SSC-AVG "none", RMSC "scale columns"
                assert f"- {want}" in [m.value for m in at.markdown]
                table = at.dataframe[0].value
                # the page's lines are the ones computed for where the step stands on its
                # run (the gain said in full or briefly, the closing step named or not)
                lines = [m.value for m in at.markdown if m.value.startswith("- ")]
                said = L.comparison_sentences(tables, step.claim,
                                              *L.run_context(lesson.steps, n))
                assert lines[:len(said)] == [f"- {line}" for line in said], lines
                if step.claim is not None:
                    _check_claim(claim[0], table, step.claim,
                                 [m.value for m in at.markdown if m.value.startswith("- ")])
                    # the closing step's caveat beside the verdict where the clean fit an
                    # earlier step made says the corrupted view counts little (here it is one
                    # view of three and counts: no caveat, the pointer to the closing step)
                    caveat = reach_caveat(tables, lesson.steps, n, data, caches.result_cache()
                                         .get(dash.fit_key(step.params, clean)))
                    cued = [m.value for m in at.markdown if "Can this run test" in m.value]
                    assert cued == ([] if caveat is None else [f"- {caveat}"])
                    # (the pointer only where a closing step sums this run up)
                    assert claim[0].endswith(L.CLAIM_ASKS_MORE) == (
                        caveat is None and L.run_context(lesson.steps, n)[1])
                # a claim step no closing step sums up carries the weights' finding, the
                # shares and NMI (the closing step's own sentences), recomputed; others none
                evidence = [m.value for m in at.markdown if m.value.startswith(
                    ("- **Finding the outliers.**", "- **NMI beside ACC**",
                     f"- **Where {step.claim}'s errors fall.**"))]
                if step.claim is not None and not L.run_context(lesson.steps, n)[1]:
                    clean_r = caches.result_cache().get(dash.fit_key(step.params, clean))
                    r = caches.result_cache().get(dash.fit_key(step.params, data))
                    said = L.claim_evidence(step, tables, r, data, clean_r)
                    # the weights' finding, the shares, NMI, where the errors fall and whom
                    # the other digits are rebuilt from; the title's question where the
                    # comparison has its per-view rival (RMSC-WV)
                    titled = [s for s in said if s.startswith("**The title's question**")]
                    assert len(titled) == (L.PER_VIEW.get(step.claim) in step.methods)
                    assert len(said) == 5 + len(titled)
                    assert all(f"- {line}" in lines for line in said), lines
                    assert len(evidence) == 3
                else:
                    assert evidence == []
            if step.where is not None:  # the cue under the question
                assert f"**↓ Where to look:** {step.where}" in [m.value for m in at.markdown]
            if step.show == "summary":
                # the run's sentences, recomputed from the comparison and the fit it reads
                from ui import caches

                clean, data = L.load_step_data(lesson, step)
                cache = caches.result_cache()
                tables = cache.get(L.step_comparison(step, clean, data)[0])
                r = cache.get(dash.fit_key(step.params, data))
                # the paper's model on the clean data, fitted ahead (the prefetch): once it is
                # in, the page says its shares
                paper = dash.fit_key(L.paper_params(step.params), clean)
                if paper not in cache:
                    assert _wait_prefetched(paper), "the paper's model was not fitted"
                    at = at.run()
                # with the clean fit of the same parameters, when an earlier step made it
                said = L.step_takeaway(step, tables, r, data,
                                       cache.get(dash.fit_key(step.params, clean)),
                                       L.later_test(lesson.steps, n), cache.get(paper))
                assert said and said[-1].startswith("**The paper's claim.**")
                lines = [m.value for m in at.markdown]
                assert "#### What this run shows" in lines
                assert all(f"- {line}" in lines for line in said), (said, lines)
            if step.show == "weights":  # how to read the ROC curve, under it
                assert L.ROC_NOTE in [c.value for c in at.markdown]
                # how to read the heatmap, from the weights of the fit it draws
                from ui import caches

                data = L.load_step_data(lesson, step)[1]
                r = caches.result_cache().get(dash.fit_key(step.params, data))
                note = L.heatmap_note(r.weights, data.outlier_mask, data.view_names)
                assert note in [c.value for c in at.markdown]
                # ... before the heatmap, the step's first chart (read first, then looked at)
                drawn = list(at.main)
                chart = next(i for i, e in enumerate(drawn) if e.type == "plotly_chart")
                assert any(e.type == "markdown" and e.value == note for e in drawn[:chart])
            if step.show == "solve":
                # the table has the columns the note speaks of, and the note says the top
                # view's share as the table beside it does
                [shares] = [d.value for d in at.dataframe if "median loss" in d.value]
                assert list(shares.columns) == list(L.SHARE_COLUMNS)
                top = shares.loc[shares["share of ΣcᵥP %"].idxmax()]
                notes = [t.value for t in at.markdown
                         if t.value.startswith("A weight")]
                pct = f"{top['share of ΣcᵥP %']:.0f} %"
                assert len(notes) == 1 and (f"{top['view']} has {pct} of the say" in notes[0]
                                            or f"is {top['view']}'s, {pct}" in notes[0]), notes
                metrics = {m.label: m.value for m in at.metric}
                assert metrics["ACC"].endswith("%")
                dense = metrics["density of Z* (nonzero entries)"]
                # the slider's values side by side: the row of the value shown says what
                # the metrics above say (the other rows fill in as their fits come in)
                [slid] = [d.value for d in at.dataframe if "density of Z* %" in d.value]
                # (as text: a value not fitted yet reads "—")
                assert slid["β_rel"].tolist() == [f"{v:g}" for v in step.slider.values]
                row = slid[slid["β_rel"] == f"{step.params.resolved_beta_rel:g}"].iloc[0]
                assert f"{row['density of Z* %']} %" == dense
                assert f"{row['ACC %']} %" == metrics["ACC"]
                assert all(v == "—" or float(v) >= 0 for v in slid["ACC %"])
                at.select_slider(key="lesson_slider").set_value(0.1).run()
                at = _wait_jobs(at)
                assert at.session_state["params"].resolved_beta_rel == 0.1
                lower = {m.label: m.value for m in at.metric}["density of Z* (nonzero entries)"]
                assert float(lower.split()[0]) >= float(dense.split()[0])  # smaller β: denser
                # the share table names its fit: the slider's value now shown
                said = [m.value for m in at.markdown]
                assert L.shares_heading("β_rel", 0.1) in said
                # where ACC moves most, from the slider's table as it is shown
                [slid] = [d.value for d in at.dataframe if "density of Z* %" in d.value]
                if "—" not in slid["ACC %"].tolist():
                    assert L.slider_sentence(slid) in said
                # why the top view's share does not make Z* its picture: its table's distance
                # to Z* in the fit shown, recomputed
                from ui import caches

                data = L.load_step_data(lesson, step)[1]
                r = caches.result_cache().get(dash.fit_key(at.session_state["params"], data))
                facts = dash.weight_dominance(r, data)
                echo = [m.value for m in at.markdown if m.value.startswith("**Why ")]
                assert len(echo) == (facts is not None), echo
                if facts is not None:
                    v = list(data.view_names).index(facts["view"])
                    gap = r.model.consensus_gaps(list(data.views), which=[v])[0]
                    assert f"differs from Z* by {100 * gap:.1f} % of Z*'s size" in echo[0]
                    if gap < L.FOLLOWS_GAP:  # the views with the rest of the share, named
                        assert "with the rest of the share (" in echo[0]
            if n < len(lesson):
                at = at.button(key="lesson_next").click().run()
        assert at.button(key="lesson_next").disabled
        at = at.button(key="lesson_back_end").click().run()
        assert at.session_state["lesson_step"] == len(lesson) - 1
    finally:
        for s in at.session_state["slots"].values():
            s.cancel()
        from ui import caches

        # the prefetches left end with the test (one that ends starts the next queued one,
        # whatever the environment says by then), not beside the next tests' fits
        caches.prefetcher().yield_workers()


def _machine_lines(at):
    """The sidebar's captions about the machine: (in the closed expander, outside any)."""
    from ui.frame import MACHINE_EXPANDER

    folded = [c.value for e in at.sidebar.expander if e.label == MACHINE_EXPANDER
              for c in e.caption]
    for e in at.sidebar.expander:
        assert e.label != MACHINE_EXPANDER or not e.proto.expanded  # folded away at first
    loose = [c.value for c in at.sidebar.caption]
    for line in folded:
        loose.remove(line)
    return folded, loose


@pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")
def test_the_lesson_folds_the_machine_lines_away_and_the_other_pages_keep_them(
        tmp_path, monkeypatch):
    monkeypatch.setenv("RMSC_LESSON", str(write(tmp_path, SMALL_LESSON)))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lesson"] = "1"
    at.session_state["autorun"] = False
    at.run()
    try:
        assert not at.exception, [e.value for e in at.exception]
        steps = len(L.parse_lesson(__import__("yaml").safe_load(SMALL_LESSON)).steps)
        assert at.subheader[0].value.startswith(f"Step 1 of {steps}")
        folded, loose = _machine_lines(at)
        assert [line.startswith("Fits run on: ") for line in folded] == [True, False]
        assert len(folded[1]) > 0  # the workers' line
        assert not any("Fits run on" in line or "worker" in line.lower() for line in loose)
        # the dataset and the parameters stay in view
        side = " ".join(m.value for m in at.sidebar.markdown)
        assert "Subspaces" in side and "λ = " in side
        # another page: the same lines, in view as before, and no expander for them
        at.switch_page("pages/data.py").run()
        assert not at.exception, [e.value for e in at.exception]
        folded, loose = _machine_lines(at)
        assert folded == []
        assert any(line.startswith("Fits run on: ") for line in loose)
    finally:
        for s in at.session_state["slots"].values():
            s.cancel()


@pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")
def test_a_bad_lesson_file_is_an_error_on_the_page_not_a_traceback(tmp_path, monkeypatch):
    path = write(tmp_path, SMALL_LESSON.replace("max_iter: 30}", "max_iter: -2}", 1))
    monkeypatch.setenv("RMSC_LESSON", str(path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lesson"] = "2"
    at.run()
    assert not at.exception
    [err] = [e.value for e in at.error]
    assert "step 2 ('Compare'), field 'params.max_iter'" in err
    for s in at.session_state["slots"].values():
        s.cancel()


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


def test_rmsc_lesson_checks_a_file_and_lists_each_steps_address(tmp_path):
    import io

    from rmsc.cli import main

    out, err = io.StringIO(), io.StringIO()
    assert main(["lesson", "--urls", "http://class:8501"], out=out, err=err) == 0
    lines = out.getvalue().splitlines()
    assert "8 steps, every field valid" in lines[0]
    lesson = L.load_lesson()
    for n, step in enumerate(lesson.steps, 1):
        assert lines[n] == (f"{n}. {step.title} [{step.show}]  "
                            f"{L.step_url('http://class:8501', lesson, n)}")
    bad = write(tmp_path, SMALL_LESSON.replace("methods: [SSC-AVG, RMSC]", "methods: [SSC]"))
    out, err = io.StringIO(), io.StringIO()
    assert main(["lesson", "--file", str(bad)], out=out, err=err) == 2
    assert err.getvalue().startswith(f"rmsc: error: {bad}: step 2 ('Compare'), field 'methods': "
                                     "'SSC' is not a method")
