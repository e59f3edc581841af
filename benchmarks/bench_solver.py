"""Solver speed on the bundled Digit data (n = 2000, six views, 649 features).

Prints one table; every ratio is taken between timings of this same run (the
machine is shared and noisy, so compare within a run, not across runs).

    python benchmarks/bench_solver.py [--iters 15] [--repeat 3] [--skip-reference] [--busy 1]
    python benchmarks/bench_solver.py --settings [--baseline REV] [--iters 8] [--repeat 3]
    python benchmarks/bench_solver.py --breakdown [--iters 15] [--repeat 3]
    python benchmarks/bench_solver.py --smoke [--settings | --breakdown]   (a check: Digit-small)

Rows:
* floor — ITERS dense (n x d)(d x n) products with d = 649 (distinct operands,
  BLAS with all its threads);
* RMSC / RMSC-WV — the fast block coordinate descent at each estimator's defaults
  (its lambda, and beta="auto" resolved on Digit as a fit does), ITERS iterations, tol = 0,
  as ``rmsc.RMSC`` runs it: column blocks on one thread per core, each with a
  single-threaded BLAS (``rmsc.backends.LocalBlocks``);
* RMSC, blocks in sequence — the same solver with the blocks run one after
  another and BLAS left multi-threaded (the obvious alternative; see
  ``rmsc.backends`` for why it is not the default);
* spectral step — NJW embedding + 20 k-means restarts on RMSC's affinity;
* paper form — the literal O(m n^3) implementation of rmsc._reference, same
  iterations (the reference the fast solver is checked against).

``--settings`` prints instead one row per (lambda, beta) of the dashboard's
slider range (lambda 1e-3..100, beta 1e-4..10, from an empty to a 99 % dense
Z*): seconds per iteration of ``rmsc.solver.solve`` (tol = 0, ``--iters``
iterations, as RMSC.fit runs it) over the seconds of one floor product, for
this checkout and, side by side in the same process, for ``--baseline REV``
(default: the code before the speed work, see benchmarks/_baseline.py).
Floor, now and before are interleaved ``--repeat`` times; fastest kept.

``--breakdown`` prints, per setting, where an iteration's wall time goes (this checkout
only): the Z*-step (``FactorForm.zstar_step``: its products, thresholding and R Z*), the
Z^v-steps, and the rest (per-sample losses, P-step, objective, and the solve's setup and
final CSC conversion spread over the iterations); beside them the float32
products a dense Z*-step cannot avoid, A = Rᵀ(QW) and R Z*, timed alone on the same
block threads, and the floor.

Peak memory is the peak of traced (numpy) allocations during that row. Every
fast row is timed ``--repeat`` times, interleaved with the floor, and the
fastest run is reported (the machine is shared: the minimum is the least
disturbed run); the paper form, much slower, is timed once. ``--busy K``
keeps K other processes spinning on the CPU during the whole run, to show how
the solver behaves on a busy machine.
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import multiprocessing
import os
import time
import tracemalloc
import warnings

import numpy as np


import _baseline  # noqa: E402
from rmsc import RMSC, evaluate_runs, solver  # noqa: E402
from rmsc._reference import solve_paper_form  # noqa: E402
from rmsc.backends import LocalBlocks  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.rmsc import beta_from_rel, default_beta_rel, default_lam  # noqa: E402
from rmsc.spectral import affinity_from_coefficients, spectral_clustering  # noqa: E402


def measure(fn, repeat=1):
    """(result, fastest seconds, peak traced MB) of ``repeat`` runs of ``fn``."""
    best, peak = np.inf, 0
    for _ in range(repeat):
        tracemalloc.start()
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return out, best, peak / 2**20


#: (lambda, beta) of the --settings table: the dashboard's slider range, sparse to dense Z*.
SETTINGS = [(0.3, 0.3), (1e-3, 1e-4), (0.01, 0.001), (0.3, 0.03), (1.0, 0.01), (10.0, 0.2),
            (3.0, 1.0), (100.0, 10.0)]


def settings_table(args, factors, baseline):
    """Seconds per iteration over the floor product at every setting, now and before."""
    n, d = factors[0].shape[1], sum(R.shape[0] for R in factors)
    it = args.iters
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((d, n)), rng.standard_normal((d, n))

    def floor():
        for _ in range(it):
            (A.T @ B)[0, 0]

    solvers = {"now": solver.solve}
    if baseline is not None:
        solvers["before"] = baseline.solver.solve
    print(f"{args.data_name}: n={n}, d={d}, gamma=1e-5, {it} iterations (tol=0), fastest of "
          f"{args.repeat}; floor = one (n x {d})({d} x n) float64 product, BLAS on all threads; "
          f"before = {args.baseline}\n")
    head = "| λ | β | Z* density | floor s | now s/iter | now / floor |"
    rule = "|---:|---:|---:|---:|---:|---:|"
    if baseline is not None:
        head += " before s/iter | before / floor | speed-up |"
        rule += "---:|---:|---:|"
    print(head)
    print(rule, flush=True)
    for lam, beta in _preamble.first(SETTINGS, args.smoke, 2):
        best = {"floor": np.inf, **{k: np.inf for k in solvers}}
        density = None
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            floor()
            best["floor"] = min(best["floor"], (time.perf_counter() - t0) / it)
            for name, solve in solvers.items():
                t0 = time.perf_counter()
                sol = solve(factors, lam, beta, 1e-5, max_iter=it, tol=0)
                best[name] = min(best[name], (time.perf_counter() - t0) / it)
                if name == "now":
                    density = sol.Zstar.nnz / n / n
        row = (f"| {lam:g} | {beta:g} | {density:.2%} | {best['floor']:.3f} | {best['now']:.3f} | "
               f"{best['now'] / best['floor']:.2f} |")
        if baseline is not None:
            row += (f" {best['before']:.3f} | {best['before'] / best['floor']:.2f} | "
                    f"{best['before'] / best['now']:.2f}x |")
        print(row, flush=True)


def breakdown_table(args, factors):
    """Per-iteration wall time of each block update at every setting, and the dense products alone."""
    from rmsc.solver import _algorithm

    n, d = factors[0].shape[1], sum(R.shape[0] for R in factors)
    it = args.iters
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((d, n)), rng.standard_normal((d, n))
    R32 = rng.standard_normal((d, n)).astype(np.float32)
    RT32 = np.ascontiguousarray(R32.T)
    Zd = rng.standard_normal((n, n)).astype(np.float32)
    timers = {}

    def timed(name, fn):
        def wrapper(*a, **k):
            t0 = time.perf_counter()
            out = fn(*a, **k)
            timers[name] = timers.get(name, 0.0) + time.perf_counter() - t0
            return out
        return wrapper

    form = _algorithm.FactorForm
    originals = {name: getattr(form, name) for name in ("zstar_step", "zv_step")}
    for name, fn in originals.items():
        setattr(form, name, timed(name, fn))

    threads = LocalBlocks()
    b = solver.block_columns(n, None, threads.n_threads)

    def products():
        # A's block (QW_block^T R) and R Z*'s block (Z_block R^T) for every column block.
        threads.map(lambda _, a: (R32[:, a:a + b].T @ R32, Zd[a:a + b] @ RT32), None,
                    [(a,) for a in range(0, n, b)])

    print(f"{args.data_name}: n={n}, d={d}, {it} iterations (tol=0), fastest of {args.repeat}; ms per "
          "iteration; floor = one float64 (n x d)(d x n) product, BLAS on all threads\n")
    print("| λ | β | Z* density | iteration | Z*-step | Z^v-steps | rest | dense products "
          "alone (float32) | floor | iteration / floor |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", flush=True)
    try:
        for lam, beta in _preamble.first(SETTINGS, args.smoke, 2):
            best = None
            for _ in range(args.repeat):
                timers.clear()
                t0 = time.perf_counter()
                sol = solver.solve(factors, lam, beta, 1e-5, max_iter=it, tol=0)
                total = time.perf_counter() - t0
                t1 = time.perf_counter()
                for _ in range(it):
                    (A.T @ B)[0, 0]
                t_floor = (time.perf_counter() - t1) / it
                with threads:
                    products()  # warm the pool
                    t2 = time.perf_counter()
                    for _ in range(it):
                        products()
                    t_prod = (time.perf_counter() - t2) / it
                row = (total / it, timers["zstar_step"] / it, timers["zv_step"] / it, t_prod,
                       t_floor)
                best = row if best is None or row[0] < best[0] else best
            per, zs, zv, prod, fl = best
            print(f"| {lam:g} | {beta:g} | {sol.Zstar.nnz / n / n:.2%} | {1e3 * per:.1f} | "
                  f"{1e3 * zs:.1f} | {1e3 * zv:.1f} | {1e3 * (per - zs - zv):.1f} | "
                  f"{1e3 * prod:.1f} | {1e3 * fl:.1f} | {per / fl:.2f} |", flush=True)
    finally:
        for name, fn in originals.items():
            setattr(form, name, fn)


def spin():
    while True:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iters", type=int, default=15)
    ap.add_argument("--repeat", type=int, default=3, help="runs per fast row (fastest reported)")
    ap.add_argument("--skip-reference", action="store_true", help="omit the slow paper-form row")
    ap.add_argument("--busy", type=int, default=0, help="CPU-spinning processes during the run")
    ap.add_argument("--settings", action="store_true",
                    help="per-iteration time over the floor at every slider setting, before/after")
    ap.add_argument("--breakdown", action="store_true",
                    help="per-iteration time of each block update at every slider setting")
    _baseline.add_argument(ap)
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(args.busy)]
    for p in spinners:
        p.start()
    load_start = os.getloadavg()[0]  # the machine's other load, which --busy does not count

    data = _preamble.digit(args.smoke)
    args.data_name = data.name
    views = [normalize_l2(X) for X in data.views]
    factors = [solver.gram_factor(X) for X in views]
    if args.settings:
        settings_table(args, factors, _baseline.load(args.baseline))
        return
    if args.breakdown:
        breakdown_table(args, factors)
        return
    n, d = views[0].shape[0], sum(X.shape[1] for X in views)
    # The estimators' defaults as a fit resolves them: lambda of the weighting, and
    # beta="auto" from the emptying betas on these data.
    gamma = RMSC().gamma
    resolved = {}
    for weighting in ("sample", "view"):
        lam_w = default_lam(weighting)
        column_betas = solver.column_betas(factors, lam_w, gamma, weighting=weighting)
        resolved[weighting] = (lam_w, beta_from_rel(column_betas, default_beta_rel(weighting)))
    (lam, beta), (lam_wv, beta_wv) = resolved["sample"], resolved["view"]
    it = args.iters

    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((d, n)), rng.standard_normal((d, n))
    floor = lambda: [(A.T @ B)[0, 0] for _ in range(it)]  # noqa: E731
    fits = {  # name: (lam, beta, weighting, runner factory)
        "RMSC fast solver": (lam, beta, "sample", LocalBlocks),
        "RMSC-WV fast solver": (lam_wv, beta_wv, "view", LocalBlocks),
        "RMSC, blocks in sequence + multi-threaded BLAS": (
            lam, beta, "sample", lambda: LocalBlocks(n_threads=1, blas_threads=None)),
    }
    t_floor, m_floor = np.inf, 0
    timed = {name: (None, np.inf, 0) for name in fits}
    for _ in range(args.repeat):  # interleaved, so that a disturbance hits every row alike
        _, t, mem = measure(floor)
        t_floor, m_floor = min(t_floor, t), max(m_floor, mem)
        for name, (lm, b, weighting, runner) in fits.items():
            sol, t, mem = measure(lambda: solver.solve(factors, lm, b, gamma, weighting=weighting,
                                                       max_iter=it, tol=0, runner=runner()))
            timed[name] = (sol, min(timed[name][1], t), max(timed[name][2], mem))

    rows = [(f"floor: {it} (n x {d})({d} x n) products", t_floor, m_floor, "")]
    for name, (lm, b, _, _) in fits.items():
        sol, t, mem = timed[name]
        rows.append((f"{name}, {it} iterations (lam={lm:g}, beta={b:.3g})", t, mem,
                     f"{t / t_floor:.2f}x floor; Z* density {sol.Zstar.nnz / n / n:.2%}"))
    fast_sol, t_fast = timed["RMSC fast solver"][:2]

    S = affinity_from_coefficients(fast_sol.Zstar)
    (runs, _), t_spec, m_spec = measure(lambda: spectral_clustering(S, data.n_clusters,
                                                                    random_state=0),
                                        repeat=args.repeat)
    scores = evaluate_runs(data.labels, runs.runs)
    rows.append(("spectral step (embedding + 20 k-means)", t_spec, m_spec,
                 f"ACC {scores['acc_mean']:.4f} ± {scores['acc_std']:.4f}"))

    if not args.skip_reference:
        ref, t_ref, m_ref = measure(lambda: solve_paper_form(views, lam, beta, gamma, max_iter=it))
        err = np.abs(ref["Zstar"] - fast_sol.Zstar.toarray()).max()
        rows.append((f"paper form (reference), {it} iterations", t_ref, m_ref,
                     f"fast is {t_ref / t_fast:.1f}x faster; max |Z* diff| {err:.1e}"))
    for p in spinners:
        p.terminate()

    print(f"{data.name}: n={n}, views={len(views)}, d={d}, gamma={gamma:g}; the estimators' "
          f"defaults: RMSC lam={lam:g}, beta={beta:.3g}, RMSC-WV lam={lam_wv:g}, "
          f"beta={beta_wv:.3g} (beta='auto' on these data); fastest of {args.repeat} runs per "
          f"fast row; {args.busy} spinning process(es) of its own (--busy) alongside; 1-min load "
          f"average {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
          f"({os.cpu_count()} CPUs)")
    print()
    print("| step | seconds | peak MB | note |")
    print("|---|---:|---:|---|")
    for name, t, mem, note in rows:
        print(f"| {name} | {t:.2f} | {mem:.0f} | {note} |")


if __name__ == "__main__":
    main()
