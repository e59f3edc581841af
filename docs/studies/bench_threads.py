"""Every method's fit with one thread per BLAS/OpenMP call (as rmsc runs it) and without.

    python docs/studies/bench_threads.py [--data Digit-small] [--methods RMSC MSC ...]
                                       [--busy 1] [--repeat 2]

``rmsc`` runs every ``fit`` under ``rmsc.backends.one_thread_per_call``; the
"library threads" column calls the undecorated fit (``fit.__wrapped__``), so
that BLAS and OpenMP use all their threads as they would by default. Both are
timed in the same run, alternately, fastest of ``--repeat``. ``--busy K`` keeps
K other processes spinning on the CPU meanwhile (a shared machine, or the
dashboard's own server and browser beside a fit).

Measured: the tables of docs/measurements.md, "One BLAS thread per call" were written at
commit bebeac3 (2026-11-23), on that commit's code. Not smoke-tested: a one-off, kept as the
record of that run; later code may not run it unchanged (to rerun it, check out that
commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402,F401  (the root on sys.path, --smoke, one thread)

import argparse
import multiprocessing
import time
import warnings


import numpy as np  # noqa: E402

from rmsc import available_methods, datasets, evaluate_runs, get_method  # noqa: E402


def spin():
    while True:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="Digit-small", choices=datasets.bundled_names())
    ap.add_argument("--methods", nargs="+", default=available_methods())
    ap.add_argument("--busy", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    data = datasets.load_bundled(args.data)
    print(f"{data.name}: n={data.n_samples}, {data.n_views} views; {args.busy} busy process(es); "
          f"fastest of {args.repeat}\n")
    print("| method | one thread per call s | library threads s | ratio | ACC % (one / library) |")
    print("|---|---:|---:|---:|---|")
    for name in args.methods:
        best = {"one": np.inf, "library": np.inf}
        acc = {}
        for _ in range(args.repeat):
            for mode in best:
                est = get_method(name, n_clusters=data.n_clusters, random_state=0)
                fit = est.fit if mode == "one" else type(est).fit.__wrapped__.__get__(est)
                t0 = time.perf_counter()
                fit(list(data.views))
                best[mode] = min(best[mode], time.perf_counter() - t0)
                acc[mode] = evaluate_runs(data.labels, est.label_runs_)["acc_mean"]
        print(f"| {name} | {best['one']:.2f} | {best['library']:.2f} | "
              f"{best['library'] / best['one']:.1f}x | {100 * acc['one']:.2f} / "
              f"{100 * acc['library']:.2f} |", flush=True)
    for p in spinners:
        p.terminate()


if __name__ == "__main__":
    main()
