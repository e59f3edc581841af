"""What a compare step of the lesson says, computed in-process (docs/lesson.md, "The shipped
lesson", step 8)

    python docs/studies/study_lesson_step.py [--step N] [--data Digit-small] [--clean-shares]

Step ``N`` of the shipped lesson (default: the last, step 8, 10 % of the digits replaced in
FAC and MOR), on its own data or with every step on ``--data``: its comparison and RMSC fit
computed as ``rmsc lesson --warm`` computes them (:func:`rmsc.dashboard.lesson.warm`, one
piece after another in this process, into a cache in memory), then what the Lesson page
says under it: each method's line, the gain's line if any, the claim's line
(:func:`rmsc.dashboard.lesson.comparison_sentences`, with
:func:`~rmsc.dashboard.lesson.run_context` as the page passes it) and the post-processing
reminder (:func:`~rmsc.dashboard.lesson.postprocessing_line`); the table of what the outliers
changed; each view's share of ΣcᵥP in RMSC's fit with the outliers, and with
``--clean-shares`` on the clean data (step 6's table, the fit at the same parameters).

Not smoke-tested: a one-off study (under a minute on Digit-small, many minutes on Digit on a
loaded machine), its numbers in docs/lesson.md: ``--data Digit-small --clean-shares`` at
commit f30f8d4 (branch w-lesson12, 2026-11-29 03:37, load average 12-13 on 2 cores), on
Digit at commit 8bf712c (03:46-03:56, load 10 to 4.5); the clean Digit fit's shares from the
same code run outside the repository before this file was committed (341 s at load 12).
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

import yaml  # noqa: E402

from rmsc import dashboard as dash  # noqa: E402
from rmsc.dashboard import lesson as L  # noqa: E402
from rmsc.dashboard.fitting import fit_rmsc  # noqa: E402


def the_lesson(data):
    """The shipped lesson, with every step on ``data`` when given."""
    if data is None:
        return L.load_lesson()
    doc = yaml.safe_load(L.default_lesson_path().read_text())
    for step in doc["steps"]:
        step["data"] = data
    path = Path(tempfile.mkdtemp()) / "lesson.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return L.load_lesson(path)


def markdown(table):
    """A DataFrame as a Markdown table (two decimals)."""
    lines = [_preamble.row(*table.columns), _preamble.row(*["---"] * len(table.columns))]
    return "\n".join(lines + [_preamble.row(*(f"{v:.2f}" if isinstance(v, float) else v
                                               for v in r)) for r in table.itertuples(False)])


def shares_table(result, data):
    shares, _ = dash.weight_shares(result, data)
    table = dash.weight_shares_table(shares)
    return table[["view", "features", "share of ΣcᵥP %", "share of ΣP %"]]


def main():
    ap = _preamble.parser(__doc__, smoke=False)
    ap.add_argument("--step", type=int, default=None, help="the step (default: the last)")
    ap.add_argument("--data", default=None, help="every step on this dataset (e.g. Digit-small)")
    ap.add_argument("--clean-shares", action="store_true",
                    help="also fit RMSC on the clean data and print its shares (step 6's table)")
    args = ap.parse_args()
    lesson = the_lesson(args.data)
    n = args.step or len(lesson)
    step = lesson.step(n)
    if step.show != "compare":
        ap.error(f"step {n} is a '{step.show}' step; this study reads 'compare' steps")
    print(f"# step {n} of {len(lesson)}: {step.title}, on {step.data}; {_preamble.machine()}")
    cache = dash.ResultCache(max_entries=64)
    start = time.perf_counter()
    L.warm(dataclasses.replace(lesson, steps=(step,)), cache, progress=print)
    print(f"# computed in {time.perf_counter() - start:.0f} s")
    clean, data = L.load_step_data(lesson, step)
    tables = cache.get(L.step_comparison(step, clean, data)[0])
    print("\nWhat the page says under the step's charts:\n")
    for line in L.comparison_sentences(tables, step.claim, *L.run_context(lesson.steps, n)):
        print(f"- {line}")
    shown = dash.compare_display(next(iter(tables.values())), data.view_names)
    if (line := L.postprocessing_line(shown, len(tables), lesson.steps, n)) is not None:
        print(f"- {line}")
    print("\nWhat the outliers changed (ACC %):\n")
    print(markdown(dash.robustness_table(tables)))
    fit = cache.get(dash.fit_key(step.params, data))
    if fit is not None and step.outliers is not None:
        print("\nRMSC's fit with the outliers, each view's share:\n")
        print(markdown(shares_table(fit, data)))
    if args.clean_shares:
        print("\nRMSC's fit on the clean data (step 6's table), each view's share:\n")
        print(markdown(shares_table(fit_rmsc(clean, step.params), clean)))
    print(f"\n# load average after: {_preamble.load_average()}")


if __name__ == "__main__":
    main()
