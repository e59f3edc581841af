"""DiMSC before and after the speed work on its diversity step, side by side in one run.

    python docs/studies/bench_dimsc.py [--datasets digit 3sources] [--inner 20 None]
                                     [--baseline REV] [--no-per-iteration] [--smoke]

Fit table: the library at ``--baseline`` (default :data:`BASELINE`, the branch
point of this work, loaded by ``_baseline.load``) and this checkout, both at
the registry defaults (``get_method("DiMSC", n_clusters=c, random_state=0)``),
one after the other in this process; then this checkout with other
``inner_iter`` values (``--inner``). Columns: whole-fit seconds, the part spent
in the views' SSC starts (``ssc_admm``, timed by wrapping it), sweeps
(``n_iter_``), ADMM iterations of all the subproblems together (counted by
wrapping ``diversity_subproblem``), the final objective
(:func:`rmsc.dimsc.dimsc_objective` of this checkout on both fits) and its
difference relative to the old fit's, whether the objective ever rose from one
sweep to the next, ACC and NMI (mean over the 20 k-means runs, %).

Per-iteration table (Digit, unless ``--no-per-iteration``): every view's first
subproblem (at the SSC start, with its target W and weight L) run for a fixed
20 iterations with tol = 0, old code against new, in milliseconds per iteration:
new from the old start (stationary dual, rho = 1: the same iterates, dense-ish
after the first jump) in float32 (as in the fit) and float64, and new from
SSC's dual and rho (the fit's start: the iterates stay as sparse as SSC's).

Measured: the tables of docs/measurements.md, "DiMSC's cost" and "DiMSC before and after"
were written at commit 78850d5 (2026-11-25), on that commit's code. Not smoke-tested: a
one-off, kept as the record of that run; later code may not run it unchanged (to rerun it,
check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import time
import warnings


import numpy as np  # noqa: E402

import _baseline  # noqa: E402
import rmsc.dimsc  # noqa: E402
from rmsc import datasets, evaluate_runs, get_method, solver  # noqa: E402
from rmsc.dimsc import (  # noqa: E402
    dimsc_objective,
    diversity_gradient_half,
    diversity_lipschitz,
    diversity_subproblem,
    gram,
)
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.ssc import beta_and_alpha, ssc_admm  # noqa: E402

#: The branch point of this work (DiMSC's subproblem solved to max_iter from the stationary dual).
BASELINE = "e2e815a"

DATASETS = {"digit": "Digit", "3sources": "3-Sources", "digit-small": "Digit-small"}

#: Iterations of the per-iteration table.
N_ITER = 20


class _Counters:
    """Wraps a module's ``ssc_admm`` and ``diversity_subproblem``: time in one, iterations in the other."""

    def __init__(self, module):
        self.module = module
        self.ssc_seconds = 0.0
        self.inner = 0

    def __enter__(self):
        self.saved = (self.module.ssc_admm, self.module.diversity_subproblem)
        ssc, sub = self.saved

        def timed_ssc(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return ssc(*args, **kwargs)
            finally:
                self.ssc_seconds += time.perf_counter() - t0

        def counted_sub(*args, **kwargs):
            out = sub(*args, **kwargs)
            self.inner += out[1]["n_iter"]
            return out

        self.module.ssc_admm, self.module.diversity_subproblem = timed_ssc, counted_sub
        return self

    def __exit__(self, *exc):
        self.module.ssc_admm, self.module.diversity_subproblem = self.saved


def fit_row(lib, data, Rs, **params):
    make = lib.get_method if lib is not None else get_method
    module = lib.dimsc if lib is not None else rmsc.dimsc
    est = make("DiMSC", n_clusters=data.n_clusters, random_state=0, **params)
    with _Counters(module) as count:
        t0 = time.perf_counter()
        est.fit(data.views)
        seconds = time.perf_counter() - t0
    obj = dimsc_objective(Rs, est.view_coefs_, est.betas_, est.lam)[0]
    rose = bool(np.any(np.diff(est.objective_) > 0))
    return dict(seconds=seconds, ssc=count.ssc_seconds, sweeps=est.n_iter_, inner=count.inner,
                objective=obj, rose=rose, scores=evaluate_runs(data.labels, est.label_runs_))


def fit_table(old, keys, inners):
    print("| dataset | code | inner_iter | s | SSC start s | sweeps | inner iterations "
          "| objective | (obj - old) / old | rose? | ACC % | NMI % |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for key in keys:
        data = datasets.load_bundled(DATASETS[key])
        Rs = [solver.gram_factor(normalize_l2(X)) for X in data.views]
        rows = []
        if old is not None:
            rows.append(("old", "-", fit_row(old, data, Rs)))
        rows.append(("new", "default", fit_row(None, data, Rs)))
        for inner in inners:
            rows.append(("new", str(inner), fit_row(None, data, Rs, inner_iter=inner)))
        ref = rows[0][2]["objective"]
        for code, inner, r in rows:
            s = r["scores"]
            print(f"| {data.name} | {code} | {inner} | {r['seconds']:.1f} | {r['ssc']:.1f} | "
                  f"{r['sweeps']} | {r['inner']} | {r['objective']:.4f} | "
                  f"{(r['objective'] - ref) / ref:+.2e} | {'yes' if r['rose'] else 'no'} | "
                  f"{100 * s['acc_mean']:.2f} | {100 * s['nmi_mean']:.2f} |", flush=True)


def per_iteration_table(old, smoke=False):
    data = datasets.load_bundled("3-Sources" if smoke else "Digit")
    Rs = [solver.gram_factor(normalize_l2(X)) for X in data.views]
    betas = [beta_and_alpha(R)[0] for R in Rs]
    starts = [ssc_admm(R, b, return_dual=True) for R, b in zip(Rs, betas)]
    Zs = [C.tocsr() for C, _ in starts]
    n = Zs[0].shape[0]
    weight = 0.01 / (n - 1) ** 2
    B = sum(gram(Z) for Z in Zs)
    print(f"\nms per subproblem iteration, {data.name}, first sweep's subproblems, {N_ITER} iterations, "
          "tol = 0. 'fresh': from the stationary dual at rho = 1 (the old start, the same "
          "iterates as old); 'continued': from SSC's dual and rho (the fit's start)")
    print("| view | r | old | new fresh float32 | new fresh float64 | new continued float32 "
          "| speed-up fresh f32 | speed-up continued f32 |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for v, (R, b, Z, (_, info)) in _preamble.first(enumerate(zip(Rs, betas, Zs, starts)), smoke):
        Bv = B - gram(Z)
        L = diversity_lipschitz([None], weight, n, random_state=0, gram_sum=Bv)
        W = Z.toarray() - diversity_gradient_half(Z, None, weight, gram_sum=Bv) / L
        runs = [("float32", None, 1.0), ("float64", None, 1.0),
                ("float32", info["dual"], info["rho"])]
        times = []
        if old is not None:
            t0 = time.perf_counter()
            old.dimsc.diversity_subproblem(R, b, Z.toarray(), W, L, max_iter=N_ITER, tol=0)
            times.append(time.perf_counter() - t0)
        for precision, dual, rho in runs:
            t0 = time.perf_counter()
            diversity_subproblem(R, b, Z, W, L, max_iter=N_ITER, tol=0, precision=precision,
                                 dual=dual, rho=rho)
            times.append(time.perf_counter() - t0)
        ms = [1000 * t / N_ITER for t in times]
        if old is None:
            ms = [float("nan")] + ms
        cells = " | ".join(f"{t:.1f}" for t in ms)
        print(f"| {v} | {R.shape[0]} | {cells} | {ms[0] / ms[1]:.1f}x | {ms[0] / ms[3]:.1f}x |",
              flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["digit", "3sources"], choices=sorted(DATASETS))
    ap.add_argument("--inner", nargs="*", default=[],
                    help="other inner_iter values to fit with ('None': solve to tol or max_iter)")
    ap.add_argument("--baseline", default=BASELINE,
                    help=f"git revision to compare with (default {BASELINE}); 'none' skips it")
    ap.add_argument("--no-per-iteration", action="store_true")
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    old = _baseline.load(args.baseline)
    inners = [None if a.lower() == "none" else int(a) for a in args.inner]
    print(f"old = {args.baseline}, new = this checkout\n")
    fit_table(old, args.datasets, inners)
    if not args.no_per_iteration:
        per_iteration_table(old, args.smoke)


if __name__ == "__main__":
    main()
