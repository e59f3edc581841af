"""What the lesson's steps 7 and 8 say, with the paper's model, the weights and NMI, computed
in-process (docs/lesson.md, "The paper's model in step 7, the weights and NMI in step 8")

    python docs/studies/study_lesson_paper.py [--data Digit-small]

The shipped lesson, with every step on ``--data`` when given: the fits and comparisons that
steps 2 (RMSC on the clean data), 7 and 8 read, computed as ``rmsc lesson --warm`` computes
them (:func:`rmsc.dashboard.lesson.warm`, one piece after another in this process, into a
cache in memory; step 7's warm set holds the paper's model fitted on the clean data,
:func:`rmsc.dashboard.lesson.paper_params`). Then step 7's sentences
(:func:`~rmsc.dashboard.lesson.step_takeaway`, as the page passes them), each view's share
of ΣP in the paper's model and of ΣcᵥP in RMSC's clean fit, and step 8's lines (each
method's change, the claim, :func:`~rmsc.dashboard.lesson.claim_evidence`: the weights'
finding, the shares, NMI beside ACC), and the lesson's answer (the box after step 8's lines,
:func:`rmsc.dashboard.lesson_close.closing_answer`; measured at 9df67bc, w-lessonF).

Not smoke-tested: a one-off study, its numbers in docs/lesson.md, measured at the commit
named there (branch w-lessonA, 2026-11-29).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

from study_lesson_step import markdown, the_lesson  # noqa: E402

from rmsc import dashboard as dash  # noqa: E402
from rmsc.dashboard import lesson as L  # noqa: E402
from rmsc.dashboard.lesson_close import closing_answer, closing_tests, run_facts  # noqa: E402
from rmsc.dashboard.lesson_reach import reach_caveat  # noqa: E402


def shares(result, data):
    table = dash.weight_shares_table(dash.weight_shares(result, data)[0])
    return table[["view", "share of ΣcᵥP %", "share of ΣP %"]]


def main():
    ap = _preamble.parser(__doc__, smoke=False)
    ap.add_argument("--data", default=None, help="every step on this dataset (e.g. Digit-small)")
    args = ap.parse_args()
    lesson = the_lesson(args.data)
    summary = next(n for n, s in enumerate(lesson.steps, 1) if s.show == "summary")
    after = next(n for n, s in enumerate(lesson.steps[summary:], summary + 1)
                 if s.show == "compare" and s.claim is not None)
    first = next(n for n, s in enumerate(lesson.steps, 1) if s.outliers is None
                 and s.params == lesson.step(summary).params)  # the clean fit's step
    print(f"# steps {summary} and {after} on {lesson.step(summary).data}; {_preamble.machine()}")
    cache = dash.ResultCache(max_entries=64)
    start = time.perf_counter()
    L.warm(dataclasses.replace(lesson, steps=tuple(lesson.step(k) for k in
                                                   (first, summary, after))), cache, print)
    print(f"# computed in {time.perf_counter() - start:.0f} s")
    tests = []
    for n in (summary, after):
        step = lesson.step(n)
        clean, data = L.load_step_data(lesson, step)
        tables = cache.get(L.step_comparison(step, clean, data)[0])
        r = cache.get(dash.fit_key(step.params, data))
        clean_r = cache.get(dash.fit_key(step.params, clean))
        tests.append(run_facts(tables, r, data, clean_r, step.claim))
        print(f"\n## Step {n}: {step.title}\n")
        if step.show == "summary":
            paper = cache.get(dash.fit_key(L.paper_params(step.params), clean))
            lines = L.step_takeaway(step, tables, r, data, clean_r,
                                    L.later_test(lesson.steps, n), paper)
            print("\n".join(f"- {line}" for line in lines))
            print(f"\nThe paper's model on the clean data ({paper.n_iter} iterations):\n")
            print(markdown(shares(paper, clean)))
            print("\nRMSC's fit on the clean data (step 6's table):\n")
            print(markdown(shares(clean_r, clean)))
        else:
            first_, closing = L.run_context(lesson.steps, n)
            lines = L.comparison_sentences(tables, step.claim, first_, closing)
            lines = L.carry_caveat(lines, reach_caveat(tables, lesson.steps, n, data, clean_r))
            lines += L.claim_evidence(step, tables, r, data, clean_r)
            print("\n".join(f"- {line}" for line in lines))
            print("\nRMSC's fit with the outliers:\n")
            print(markdown(shares(r, data)))
            for metric in ("acc", "nmi"):
                print(f"\n{metric.upper()} %:\n")
                print(markdown(dash.robustness_table(tables, metric=metric)))
    steps = closing_tests(lesson.steps)  # the lesson's answer, as the last test's step shows it
    print("\n## " + closing_answer([dict(t, step=k) for t, k in zip(tests, steps)]))
    print(f"\n# load average after: {_preamble.load_average()}")


if __name__ == "__main__":
    main()
