"""float32 against float64 in RMSC's Z*-step: scores, iterates and time, side by side.

    python docs/studies/bench_precision.py [--iters 30] [--smoke]

``rmsc.solver.PRECISION`` sets the precision of the Z*-step's two products and its
thresholding in the factor form (every other quantity stays float64; the kernel form,
used for text views with more features than samples, always runs in float64). For
Digit at settings from a sparse to a 99 % dense Z*, one ``rmsc.solver.solve`` per
precision (tol = 0, ``--iters`` iterations, blocks on threads as RMSC.fit runs them),
then the estimator's spectral protocol on each Z* (random_state=0): ACC and NMI
(mean of 20 k-means runs, %), the largest change of Z* relative to its largest entry,
of P relative to its largest entry, of the objective relative to its magnitude, the
largest increase of the objective over the iterations (relative; negative: it fell
every iteration), and the solve's seconds.

Measured: the tables of docs/library.md, "Inside the solver" were written at commit 20da440
(2026-11-23), on that commit's code. Not smoke-tested: a one-off, kept as the record of that
run; later code may not run it unchanged (to rerun it, check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import time
import warnings


import numpy as np  # noqa: E402

from rmsc import evaluate_runs, solver  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.spectral import affinity_from_coefficients, spectral_clustering  # noqa: E402

SETTINGS = [(0.3, 0.3), (1.0, 0.1), (0.3, 0.03), (10.0, 0.2), (0.01, 0.001), (1e-3, 1e-4),
            (3.0, 1.0)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iters", type=int, default=30)
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    data = _preamble.digit(args.smoke)
    factors = [solver.gram_factor(normalize_l2(X)) for X in data.views]
    assert not solver.use_kernel_form(factors)
    print(f"{data.name}, {args.iters} iterations (tol=0), gamma=1e-5; default precision: "
          f"{solver.PRECISION}\n")
    print("| λ | β | Z* density | ACC % f64 / f32 | NMI % f64 / f32 | max ΔZ* / max Z* | "
          "max ΔP / max P | Δ objective (rel.) | largest rise f64 / f32 | s f64 / f32 |")
    print("|---:|---:|---:|---|---|---:|---:|---:|---|---|", flush=True)
    for lam, beta in _preamble.first(SETTINGS, args.smoke, 2):
        out = {}
        for prec in ("float64", "float32"):
            t0 = time.perf_counter()
            sol = solver.solve(factors, lam, beta, 1e-5, max_iter=args.iters, tol=0,
                               precision=prec)
            seconds = time.perf_counter() - t0
            f = np.concatenate([[sol.objective_init], sol.objective])
            rise = np.diff(f).max() / np.abs(f).max()
            if sol.Zstar.nnz:
                runs, _ = spectral_clustering(affinity_from_coefficients(sol.Zstar),
                                              data.n_clusters, random_state=0)
                s = evaluate_runs(data.labels, runs.runs)
                acc, nmi = 100 * s["acc_mean"], 100 * s["nmi_mean"]
            else:
                acc = nmi = float("nan")
            out[prec] = (sol, seconds, rise, acc, nmi)
        a, b = out["float64"][0], out["float32"][0]
        zmax = abs(a.Zstar).max() if a.Zstar.nnz else 1.0
        dz = abs(a.Zstar - b.Zstar).max() / zmax if (a.Zstar.nnz or b.Zstar.nnz) else 0.0
        dp = np.abs(a.P - b.P).max() / a.P.max()
        dobj = np.abs(a.objective - b.objective).max() / np.abs(a.objective).max()
        (_, t64, r64, acc64, nmi64), (_, t32, r32, acc32, nmi32) = out["float64"], out["float32"]
        print(f"| {lam:g} | {beta:g} | {a.Zstar.nnz / a.Zstar.shape[0] ** 2:.2%} | "
              f"{acc64:.2f} / {acc32:.2f} | {nmi64:.2f} / {nmi32:.2f} | {dz:.1e} | {dp:.1e} | "
              f"{dobj:.1e} | {r64:.1e} / {r32:.1e} | {t64:.1f} / {t32:.1f} |", flush=True)


if __name__ == "__main__":
    main()
