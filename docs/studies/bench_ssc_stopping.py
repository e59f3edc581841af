"""Where SSC-AVG's time goes, and what its score owes to stopping at 200 ADMM iterations.

    python docs/studies/bench_ssc_stopping.py [--datasets Digit 3-Sources] [--max-iter 50 100 200 400]
                                            [--converged-iter 3000]

The speed work asks SSC-AVG to be 10x faster with its objective within 1e-3 (relative) of the
ADMM's and ACC/NMI within 0.5 points. This prints, for SSC-AVG at its defaults
(``get_method("SSC-AVG", n_clusters=c, random_state=0)``), one row per iteration budget
``max_iter`` (tol 1e-4 as the default, so a view may stop earlier), and a last row run
to convergence (tol = 1e-7, at most ``--converged-iter`` iterations): fit seconds, the
iterations each view ran, the objective (sum over views of ||X - XC||^2 + beta ||C||_1)
relative to the converged one, the share of nonzeros in the coefficients, and ACC/NMI
(mean over the 20 k-means runs, %). Every row is a whole estimator fit, so each cell is
what a user gets with that budget.

Measured: the tables of docs/measurements.md, "SSC's ADMM" were written at commit 766efd2
(2026-11-25), on that commit's code. Not smoke-tested: a one-off, kept as the record of that
run; later code may not run it unchanged (to rerun it, check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402,F401  (the root on sys.path, --smoke, one thread)

import argparse
import time
import warnings


import numpy as np  # noqa: E402

from bench_baselines import objective  # noqa: E402  (SSC's objective, one formula)
from rmsc import datasets, evaluate_runs, get_method, solver  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402

LOADERS = {"Digit": datasets.load_digit, "Digit-small": datasets.load_digit_small,
           "Reuter": datasets.load_reuter, "3-Sources": datasets.load_3sources}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["Digit", "3-Sources"], choices=sorted(LOADERS))
    ap.add_argument("--max-iter", nargs="+", type=int, default=[50, 100, 200, 400])
    ap.add_argument("--converged-iter", type=int, default=3000)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    print("| dataset | max_iter (tol) | fit s | iterations per view | objective / converged - 1 "
          "| nonzeros % | ACC % | NMI % |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for key in args.datasets:
        data = LOADERS[key]()
        Rs = [solver.gram_factor(normalize_l2(X)) for X in data.views]
        rules = [(m, 1e-4) for m in args.max_iter] + [(args.converged_iter, 1e-7)]
        rows = []
        for max_iter, tol in rules:
            est = get_method("SSC-AVG", n_clusters=data.n_clusters, random_state=0,
                             max_iter=max_iter, tol=tol)
            t0 = time.perf_counter()
            est.fit(data.views)
            seconds = time.perf_counter() - t0
            iters = "/".join(str(i) for i in est.view_n_iter_)
            nnz = np.mean([C.nnz / C.shape[0] ** 2 for C in est.view_coefs_])
            rows.append((max_iter, tol, seconds, iters, objective("SSC-AVG", est, Rs), nnz,
                         evaluate_runs(data.labels, est.label_runs_)))
        ref = rows[-1][4]
        for max_iter, tol, seconds, iters, obj, nnz, s in rows:
            print(f"| {data.name} | {max_iter} ({tol:g}) | {seconds:.1f} | {iters} | "
                  f"{obj / ref - 1:+.2e} | {100 * nnz:.2f} | {100 * s['acc_mean']:.2f} | "
                  f"{100 * s['nmi_mean']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
