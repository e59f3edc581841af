"""Why does RMSC lose NMI in the lesson's step 8 though its weights find the corrupted
digits? Whom the clean digits are rebuilt from in Z* (docs/lesson.md, "The seventeenth
reading: steps 7 and 8, and the lesson's answer")

    python docs/studies/study_lesson_support.py [--data Digit-small]

Fits RMSC (a weight per digit in each view) and RMSC-WV (one weight per view) with the
lesson's parameters on the clean data and on each corruption the lesson's claim steps use
(PIX and FOU; FAC and MOR), and prints, for the digits the corruption did not touch,
:func:`rmsc.neighbours.class_support` of each fit's Z*: the share of a digit's column of
|Z*| on its own class, split into its clean and its corrupted classmates, and the share on
corrupted digits of any class; then step 8's sentence on it and the lesson's closing answer
(:func:`rmsc.dashboard.lesson_close.closing_answer`) as the page computes them.

Not smoke-tested: a one-off study (about a minute on Digit-small), its table in
docs/lesson.md, measured with the code of commit 17aca57 (2026-11-29, load 4-8; the sentences' words
as of the commit after it).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

from study_lesson_step import markdown, the_lesson  # noqa: E402

import pandas as pd  # noqa: E402

from rmsc import dashboard as dash  # noqa: E402
from rmsc.dashboard import lesson as L  # noqa: E402
from rmsc.dashboard.lesson_close import closing_answer, closing_tests, run_facts  # noqa: E402
from rmsc.dashboard.lesson_support import support_of, support_sentence  # noqa: E402


def main():
    ap = _preamble.parser(__doc__, smoke=False)
    ap.add_argument("--data", default=None, help="every step on this dataset (e.g. Digit-small)")
    args = ap.parse_args()
    lesson = the_lesson(args.data)
    tests = closing_tests(lesson.steps)
    print(f"# steps {tests} on {lesson.step(tests[-1]).data}; {_preamble.machine()}")
    cache = dash.ResultCache(max_entries=64)
    L.warm(dataclasses.replace(lesson, steps=tuple(lesson.step(k) for k in tests)), cache,
           lambda *_: None)
    rows, facts = [], []
    for n in tests:
        step = lesson.step(n)
        clean, data = L.load_step_data(lesson, step)
        hit = data.outlier_mask.any(axis=0)
        name = " and ".join(v for v, row in zip(data.view_names, data.outlier_mask)
                            if row.any())
        for method, params in (("RMSC", step.params),
                               ("RMSC-WV", step.params.replace(weighting="view"))):
            fits = [cache.get(dash.fit_key(params, d)) or dash.fit_rmsc(d, params)
                    for d in (clean, data)]
            before, after = support_of(*fits, data.labels, hit)
            for label, s, fit in (("clean", before, fits[0]), (f"{name} corrupted", after,
                                                               fits[1])):
                rows.append({"test": name, "method": method, "fit": label,
                             "own class %": 100 * s["own"],
                             "clean classmates %": 100 * s["own_unmasked"],
                             "corrupted classmates %": 100 * s["own_masked"],
                             "on corrupted digits %": 100 * s["masked"],
                             "NMI %": 100 * fit.scores["nmi_mean"]})
            if method == "RMSC":
                mine = fits
                print(f"\n## Step {n} ({name}): the sentence\n\n"
                      + support_sentence(before, after, int((~hit).sum())))
        tables = cache.get(L.step_comparison(step, clean, data)[0])
        facts.append(dict(run_facts(tables, mine[1], data, mine[0], step.claim), step=n))
    print("\nThe digits the corruption did not touch: mean share of their column of |Z*|\n")
    print(markdown(pd.DataFrame(rows).round(1)))
    print("\n## The lesson's answer\n\n" + closing_answer(facts))


if __name__ == "__main__":
    main()
