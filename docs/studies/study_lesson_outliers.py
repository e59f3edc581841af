"""Does the lesson's outlier scenario show the paper's claim across outlier draws? (the
lesson's study; docs/lesson.md, "Does the scenario show the claim?")

    python docs/studies/study_lesson_outliers.py [--seeds 0 1 2 3 4 5 6 7] [--max-iter N]

On Digit-small (300 digits), for each corruption of :data:`SCENARIOS` (the lesson's own
first: 10 % of the digits replaced in PIX and FOU) and each draw of the injection
(``random_state`` of :func:`rmsc.datasets.inject`, ``--seeds``), SSC-AVG, RMSC-WV and
RMSC as the lesson's comparison runs them (``rmsc.dashboard.runs.run_compare`` with the
lesson's parameters, :func:`rmsc.dashboard.lesson.step_comparison`'s), on the clean data
once and on every corrupted draw. Prints, per scenario and method, how many draws
lost / changed within the ± spread / gained (the lesson's noise rule,
:func:`rmsc.dashboard.lesson.within_spread`), the median change, and how often the
paper's claim for RMSC holds, is not borne out, or cannot be told
(:func:`rmsc.dashboard.lesson.claim_facts`, the verdict the lesson's steps compute).

Not smoke-tested: a one-off study (minutes on Digit-small), its table in docs/lesson.md,
measured with the lesson's code as of commit 4f7e36c (the run, 20:45–21:07 on 2026-11-28,
ended minutes before that commit); the last two scenarios (the views that count in Z*) at
commit 7866506 with their two lines added (``--scenarios 6 7``, 2026-11-29 01:04–01:07,
load 6–10).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

_preamble.one_thread()

import statistics  # noqa: E402
import time  # noqa: E402

from rmsc import datasets  # noqa: E402
from rmsc.dashboard import lesson as L  # noqa: E402
from rmsc.dashboard.params import Params  # noqa: E402
from rmsc.dashboard.runs import compare_params, robustness_table, run_compare  # noqa: E402

METHODS = ["SSC-AVG", "RMSC-WV", "RMSC"]

#: (label, views, fraction, kind): the lesson's corruption first, then others.
SCENARIOS = [
    ("lesson: replace 10 % in PIX, FOU", ["PIX", "FOU"], 0.1, "replace"),
    ("replace 20 % in PIX, FOU", ["PIX", "FOU"], 0.2, "replace"),
    ("replace 10 % in MOR, KAR", ["MOR", "KAR"], 0.1, "replace"),
    ("noise 10 % in PIX, FOU", ["PIX", "FOU"], 0.1, "noise"),
    ("inconsistent 10 % in PIX, FOU", ["PIX", "FOU"], 0.1, "inconsistent"),
    ("replace 30 % in PIX, FOU, FAC, KAR", ["PIX", "FOU", "FAC", "KAR"], 0.3, "replace"),
    # the views that count in RMSC's Z* (step 6's table; the ninth cold reading asked)
    ("replace 10 % in FAC, MOR", ["FAC", "MOR"], 0.1, "replace"),
    ("replace 20 % in FAC, MOR", ["FAC", "MOR"], 0.2, "replace"),
]


def main():
    ap = _preamble.parser(__doc__, smoke=False)
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(8)))
    ap.add_argument("--max-iter", type=int, default=None,
                    help="cap RMSC's iterations (the browser test's 30); default: the lesson's")
    ap.add_argument("--scenarios", type=int, nargs="+", default=None,
                    help="indices into SCENARIOS (default: all)")
    args = ap.parse_args()
    print(f"# {_preamble.machine()}")
    clean = datasets.load_bundled("Digit-small")
    params = Params() if args.max_iter is None else Params(max_iter=args.max_iter)
    cparams = compare_params(params, clean, METHODS) or None
    t0 = time.perf_counter()
    base = run_compare({"clean": clean}, METHODS, cparams, random_state=params.seed)["clean"]
    print(f"# clean comparison {time.perf_counter() - t0:.0f} s")
    print(_preamble.row("scenario", "method", "lost", "within ±", "gained",
                        "median change (points)", "claim for RMSC: holds / not borne out "
                        "/ cannot tell"))
    print(_preamble.row(*["---"] * 7))
    chosen = SCENARIOS if args.scenarios is None else [SCENARIOS[i] for i in args.scenarios]
    for label, views, fraction, kind in chosen:
        counts = {m: [0, 0, 0] for m in METHODS}
        changes = {m: [] for m in METHODS}
        verdicts = {"holds": 0, "not borne out": 0, "cannot be told": 0}
        for seed in args.seeds:
            dirty = datasets.inject(clean, views, fraction, kind=kind, random_state=seed)
            t = run_compare({"with outliers": dirty}, METHODS, cparams,
                            random_state=params.seed)["with outliers"]
            tables = {"clean": base, "with outliers": t}
            table = robustness_table(tables)
            spreads = [L.acc_spreads(x) for x in tables.values()]
            for _, r in table.iterrows():
                m, c = r["method"], r["change (points)"]
                changes[m].append(c)
                noise = L.within_spread(c, [s.get(m) for s in spreads])
                counts[m][1 if noise else (0 if c < 0 else 2)] += 1
            verdicts[L.claim_facts(tables, "RMSC")["verdict"]] += 1
            print(f"# {label}, draw {seed}: " + ", ".join(
                f"{m} {changes[m][-1]:+.2f}" for m in METHODS), flush=True)
        for i, m in enumerate(METHODS):
            v = (" / ".join(str(verdicts[k]) for k in verdicts)) if i == len(METHODS) - 1 else ""
            print(_preamble.row(label if i == 0 else "", m, *counts[m],
                                f"{statistics.median(changes[m]):+.2f}", v))
    print(f"# {len(args.seeds)} draws per scenario; {time.perf_counter() - t0:.0f} s; "
          f"load average {_preamble.load_average()}")


if __name__ == "__main__":
    main()
