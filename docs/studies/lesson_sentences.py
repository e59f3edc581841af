"""The lesson's sentences that the tenth to twelfth cold readings asked about, as they read on Digit-small.

    python docs/studies/lesson_sentences.py

The shipped lesson with every step on Digit-small (as ``tests/clipping_support.small_lesson``
writes it, fitted to convergence), each sentence computed by the code the Lesson page calls:
step 1's line under the panels, step 5's lines with the claim and its caveat, step 6's framed
note, step 7's "what this run shows", step 8's lines with the claim. The quotes in
docs/lesson.md, "The tenth reading: what changed", are its output.

Not smoke-tested: a one-off, run at commit e9c3449 (branch w-lesson11, 2026-11-29 03:46 UTC).
Step 8's lines (its comparison and claim, "The eleventh reading" in docs/lesson.md) were
added after; step 5's and step 8's claim lines quoted there were printed by the same calls
at commit 051d59d (branch w-rule, 2026-11-29 04:33 UTC, 25 s and 32 s at load 6-7).
Steps 1, 5 and 6 as "The twelfth reading: what changed next" quotes them (step 1's text,
step 5's question, step 6's note and the paragraph under it, computed as the page does)
were printed at the commit named there (branch w-lessonB). Step 5's caveat has come from
``rmsc.dashboard.lesson_reach.reach_caveat`` since the seventeenth reading (the page's own
call; ``lesson_summary.claim_caveat`` went at that merge).
"""

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from rmsc import dashboard as dash  # noqa: E402
from rmsc.dashboard import lesson as L  # noqa: E402
from rmsc.dashboard.fitting import (  # noqa: E402
    fit_rmsc, run_view_quality, weight_dominance, weight_shares)
from rmsc.dashboard.lesson_reach import reach_caveat  # noqa: E402
from rmsc.dashboard.lesson_views import neighbour_line  # noqa: E402
from rmsc.dashboard.runs import run_compare  # noqa: E402
from rmsc.preprocessing import spread_directions  # noqa: E402


def main():
    doc = yaml.safe_load(L.default_lesson_path().read_text())
    for s in doc["steps"]:
        s["data"] = "Digit-small"
    folder = Path(tempfile.mkdtemp())
    p = folder / "lesson.yaml"
    p.write_text(yaml.safe_dump(doc, allow_unicode=True))
    lesson = L.load_lesson(p)
    # step 1
    s1 = lesson.step(1)
    clean, data = L.load_step_data(lesson, s1)
    plan = dash.scale_plan(data.n_samples)
    idx = dash.subsample(data.n_samples, plan.scatter_points)
    coords = [dash.project_2d(X)[0][idx] for X in data.views]
    print("STEP1:", neighbour_line(data.view_names, coords, np.asarray(data.labels)[idx]))
    print("STEP1 text:", s1.text.strip())
    print("STEP1 question:", s1.question.strip())
    # step 5
    n = 5
    step = lesson.step(n)
    clean, data = L.load_step_data(lesson, step)
    key, variants, methods, cparams = L.step_comparison(step, clean, data)
    tables = run_compare(variants, methods, cparams, random_state=step.params.seed)
    cr = fit_rmsc(clean, step.params)
    lines = L.carry_caveat(L.comparison_sentences(tables, step.claim),
                           reach_caveat(tables, lesson.steps, n, data, cr))
    for line in lines:
        print("STEP5:", line)
    print("STEP5 question:", step.question.strip())
    # step 6: the framed note and the paragraph under it, as pages/lesson.py and ui/lesson.py
    # compute them (the spread only where a view dominates; the top view's gap and ACC alone)
    s6 = lesson.step(6)
    c6, d6 = L.load_step_data(lesson, s6)
    r6 = fit_rmsc(d6, s6.params)
    shares, _ = weight_shares(r6, d6)
    spread = (None if weight_dominance(r6, d6) is None
              else [spread_directions(X) for X in d6.views])
    facts = weight_dominance(r6, d6, spread)
    print("STEP6 note:", L.weight_note(shares, facts))
    if facts is not None:
        view = list(d6.view_names).index(facts["view"])
        gap = r6.model.consensus_gaps(list(d6.views), which=[view])[0]
        alone = run_view_quality(d6, r6.params)[view]["acc"]
        print("STEP6 echo:", L.echo_note(facts, gap, alone, r6.scores["acc_mean"], shares))
    # step 7
    s7 = lesson.step(7)
    c7, d7 = L.load_step_data(lesson, s7)
    r7 = fit_rmsc(d7, s7.params)
    for line in L.step_takeaway(s7, tables, r7, d7, cr) or []:
        print("STEP7:", line)
    # step 8: its own run (FAC and MOR), the claim checked, no closing step after it
    s8 = lesson.step(8)
    c8, d8 = L.load_step_data(lesson, s8)
    _, v8, m8, p8 = L.step_comparison(s8, c8, d8)
    t8 = run_compare(v8, m8, p8, random_state=s8.params.seed)
    for line in L.comparison_sentences(t8, s8.claim, *L.run_context(lesson.steps, 8)):
        print("STEP8:", line)


if __name__ == "__main__":
    main()
