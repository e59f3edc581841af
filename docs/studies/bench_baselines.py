"""SSC-AVG, SSC-BSV and DiMSC before and after the speed work, side by side.

    python docs/studies/bench_baselines.py [--methods SSC-AVG SSC-BSV DiMSC]
                                         [--datasets digit reuter] [--baseline REV]

Every method runs with its registry defaults (``get_method(name,
n_clusters=c, random_state=0)``) twice in this process: the library as it
was at ``--baseline`` (default :data:`BASELINE`, main before this work,
loaded by ``_baseline.load``) and this checkout's, one after the other, so
the ratio is taken on the same (shared, noisy) machine in one run.

Columns: fit seconds old / new and the speed-up; the relative difference of
the objective, (new - old) / old, where the objective is each method's own,
evaluated by this checkout's formula on both fits (SSC: the sum over views
of ||X^v - X^v C^v||^2 + beta_v ||C^v||_1; DiMSC:
:func:`rmsc.dimsc.dimsc_objective`); ACC and NMI (mean over the 20 k-means
runs, %) old / new. SSC-BSV scores the view chosen without labels.

Measured: the tables of docs/measurements.md, "SSC's ADMM" were written at commit b1af51b
(2026-11-24), on that commit's code. Not smoke-tested: a one-off, kept as the record of that
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
import scipy.sparse as sp  # noqa: E402

import _baseline  # noqa: E402
from rmsc import datasets, evaluate_runs, get_method, solver  # noqa: E402
from rmsc.dimsc import dimsc_objective  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402

#: main before the baselines' speed work (its second part).
BASELINE = "3d325cf"

LOADERS = {"digit": datasets.load_digit, "digit-small": datasets.load_digit_small,
           "reuter": datasets.load_reuter,
           "3sources": datasets.load_3sources}


def objective(name, est, Rs):
    """The method's objective at its fit, by this checkout's formula."""
    coefs = [sp.csc_matrix(C) for C in est.view_coefs_]
    if name == "DiMSC":
        return dimsc_objective(Rs, coefs, est.betas_, est.lam)[0]
    total = 0.0
    for R, C, b in zip(Rs, coefs, est.betas_):
        res = R - solver.sparse_right_product(R, C)
        total += float(np.sum(res * res)) + b * float(np.abs(C.data).sum())
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--methods", nargs="+", default=["SSC-AVG", "SSC-BSV", "DiMSC"])
    ap.add_argument("--datasets", nargs="+", default=["digit"], choices=sorted(LOADERS))
    ap.add_argument("--baseline", default=BASELINE,
                    help=f"git revision to compare with (default {BASELINE})")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    old = _baseline.load(args.baseline)
    print(f"old = {args.baseline}, new = this checkout\n")
    print("| dataset | method | old s | new s | speed-up | objective (new - old) / old "
          "| ACC % old / new | NMI % old / new |")
    print("|---|---|---:|---:|---:|---:|---|---|")
    for key in args.datasets:
        data = LOADERS[key]()
        Rs = [solver.gram_factor(normalize_l2(X)) for X in data.views]
        for name in args.methods:
            row = {}
            for label, lib in (("old", old), ("new", None)):
                make = lib.get_method if lib is not None else get_method
                est = make(name, n_clusters=data.n_clusters, random_state=0)
                t0 = time.perf_counter()
                est.fit(data.views)
                row[label] = (time.perf_counter() - t0, objective(name, est, Rs),
                              evaluate_runs(data.labels, est.label_runs_))
            (to, oo, so), (tn, on, sn) = row["old"], row["new"]
            print(f"| {data.name} | {name} | {to:.1f} | {tn:.1f} | {to / tn:.2f}x | "
                  f"{(on - oo) / oo:+.1e} | {100 * so['acc_mean']:.2f} / {100 * sn['acc_mean']:.2f} | "
                  f"{100 * so['nmi_mean']:.2f} / {100 * sn['nmi_mean']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
