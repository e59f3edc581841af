"""Calibrate the Compare / Sensitivity time estimates' cost model (rmsc.costs).

    python tools/calibrate_costs.py [--write] [--quick] [--smoke]
                                         [--iter-datasets Subspaces 3-Sources Digit-small]
    python tools/calibrate_costs.py --iterations-only [--write]
    python tools/calibrate_costs.py --lam-only [--write] [--iter-datasets ...]
    python tools/calibrate_costs.py --criterion-only [--write]
    python tools/calibrate_costs.py --parallel-only [--write] [--iter-datasets ...]

Times the model's kernels on synthetic data (rmsc.datasets.make_multiview_subspaces, so
that the bundled datasets check the model out of sample: benchmarks/bench_estimates.py):

* the spectral step (rmsc.spectral.spectral_clustering) on RMSC's affinities;
* the Gram factors of wide sparse views (eigendecompositions);
* one RMSC iteration (``fit_time_ / (n_iter_ + 1)``: the iterations and beta_max's product);
* one SSC-ADMM iteration per view (rmsc.ssc.ssc_admm with the auto beta);
* one DiMSC diversity sweep (the fit minus its SSC start and spectral step, per sweep);
* every graph method's fit beyond its spectral step;
* RMSC's iteration counts (``rmsc_iters``), which no synthetic set stands for: on the
  bundled datasets (``--iter-datasets``), RMSC and RMSC-WV at their defaults under each
  model (the default scaled one and the paper's, rmsc.rmsc.PAPER_MODEL) run max_iter
  (rmsc.solver.MAX_ITER) iterations with no tolerance stop; each rule's stop
  (rmsc.solver.converged on the objective's relative change or on the consensus's
  ``changes_``) is read off that one trajectory at every tolerance of :data:`ITER_TOLS`
  (the iterates do not depend on the rule). Their fewest and median (of the datasets x
  the two methods) are the range's low end and middle (rmsc.costs.rmsc_iterations); the
  table of stops is printed. These counts are in sample for benchmarks/bench_estimates.py.
  ``--iterations-only`` measures these alone (seconds) and, with ``--write``, replaces
  that entry of rmsc/_costs.py, keeping every other constant.
* how RMSC's iterations move with λ (``rmsc_lam_iters``): on the same datasets, RMSC and
  RMSC-WV at λ = :data:`LAM_FACTORS` x the default, each stopping on the defaults' rule and
  tolerance; the median over them of the iterations at each λ over those at the default
  (rmsc.costs.lam_iteration_ratio). ``--lam-only`` measures these alone.
* what a suggestion adds to each setting's fit (``criterion``): the graph criterion
  (rmsc.selection.graph_criterion) and the k-means runs' agreement
  (rmsc.selection.clustering_agreement) on RMSC's affinities of synthetic data from 150
  to 1500 samples (:data:`CRITERION_SIZES`), fitted on the terms of
  rmsc.costs.criterion_terms; and the scoring of a fit's k-means runs against the labels
  (``scoring``: rmsc.evaluate_runs, after every Compare and Sensitivity fit, outside its
  recorded ``fit_time``) on random labellings of :data:`SCORING_SHAPES`, fitted on the
  terms of rmsc.costs.scoring_terms. ``--criterion-only`` measures these two alone.
* how much of a fit its threads share (``parallel``, rmsc.costs.thread_speed): for each
  method whose fit runs column blocks or views on threads (rmsc.backends.LocalBlocks), on
  the bundled datasets (``--iter-datasets``), one thread, the CPU seconds inside the
  runner's ``map`` over the fit's CPU seconds (process time: a busy machine slows both
  alike); the median over the datasets. ``--parallel-only`` measures these alone.

Every time is divided by the seconds of a multiply-add measured by the speed probe
(rmsc.costs.probe_seconds, taken before and after each timing), so the
constants are in multiply-adds and scale with the machine. The coefficients of each
kernel's work terms are fitted by non-negative least squares on relative error
(scipy.optimize.nnls). ``--write`` rewrites rmsc/_costs.py.
"""

import argparse
import os
import pprint
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from scipy.optimize import nnls  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import rmsc  # noqa: E402
from rmsc import datasets, experiments, solver  # noqa: E402
from rmsc.rmsc import PAPER_MODEL  # noqa: E402
from rmsc import costs as E  # noqa: E402
from rmsc.datasets import MultiViewDataset, make_multiview_subspaces  # noqa: E402
from rmsc.methods import specs  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402
from rmsc.spectral import spectral_clustering  # noqa: E402
from rmsc.ssc import auto_beta, ssc_admm  # noqa: E402


def cost_methods(model):
    """The registry's specs whose cost model is ``model`` (a name of rmsc.costs.COST_MODELS)."""
    return [spec for spec in specs() if spec.cost == model]


#: The bundled datasets of RMSC's iteration counts (Digit takes minutes per trajectory;
#: add it, or Reuter, with --iter-datasets).
ITER_DATASETS = ("Subspaces", "3-Sources", "Digit-small")

#: The models of the iteration counts: the default (scaled) one and the paper's.
ITER_MODELS = {"scaled": {}, "paper": PAPER_MODEL}

#: The tolerances at which each stopping rule's stop is read off a trajectory (each
#: rule's default among them: rmsc.solver.TOL for "zstar", the former 1e-4 for "objective").
ITER_TOLS = {"zstar": (1e-2, 3e-3, 1e-3), "objective": (1e-3, 1e-4, 1e-5)}


def rule_stops(est):
    """{rule: {tol: the iteration at which that rule would have stopped this fit}} of a fit
    run with ``tol=0`` (its ``n_iter_`` when a rule never fires)."""
    f = np.concatenate([[est.objective_init_], est.objective_])
    measures = {"objective": [solver.objective_change(a, b) for a, b in zip(f[:-1], f[1:])],
                "zstar": list(est.changes_)}
    out = {}
    for rule, tols in ITER_TOLS.items():
        out[rule] = {}
        for tol in tols:
            hit = [i + 1 for i, m in enumerate(measures[rule]) if solver.converged(m, tol)]
            out[rule][tol] = hit[0] if hit else int(est.n_iter_)
    return out


def iteration_counts(names, smoke=False):
    """``(rmsc_iters, rows)``: {model: {rule: {tol: {"min", "typical"}}}} over ``names``
    (datasets x RMSC, RMSC-WV) and the rows of the printed table."""
    stops, rows = {}, []
    cap = 10 if smoke else solver.MAX_ITER
    for name in names:
        d = datasets.load_bundled(name)
        for m in [spec.name for spec in cost_methods("rmsc")]:
            for model, params in ITER_MODELS.items():
                est = rmsc.get_method(m, n_clusters=d.n_clusters, random_state=0,
                                      placement=None, stop_on="zstar", tol=0.0, max_iter=cap,
                                      **params)
                t0 = time.perf_counter()
                with threadpool_limits(limits=1):
                    est.fit(list(d.views))
                t = time.perf_counter() - t0
                got = rule_stops(est)
                rows.append((name, m, model, got, t))
                for rule, by_tol in got.items():
                    for tol, it in by_tol.items():
                        stops.setdefault(model, {}).setdefault(rule, {}).setdefault(
                            tol, []).append(it)
    counts = {model: {rule: {tol: {"min": int(min(its)), "typical": float(np.median(its))}
                             for tol, its in by_tol.items()}
                      for rule, by_tol in by_rule.items()}
              for model, by_rule in stops.items()}
    return counts, rows


#: λ as multiples of the default at which RMSC's iterations are counted (``rmsc_lam_iters``):
#: the Sensitivity page's λ axis (rmsc.dashboard.runs.SENSITIVITY_LAM_FACTORS).
LAM_FACTORS = (0.1, 0.3, 1.0, 3.0, 10.0)


def lam_iteration_ratios(names, smoke=False):
    """``(rmsc_lam_iters, rows)``: {λ / default λ: the median over ``names`` x (RMSC,
    RMSC-WV) of the fit's iterations at that λ over its iterations at the default}, each
    at the defaults' stopping rule and tolerance (a fit that stops on the tolerance, as the
    dashboard's do); and the rows of the printed table."""
    ratios, rows = {f: [] for f in LAM_FACTORS}, []
    for name in names:
        d = datasets.load_bundled(name)
        for m in [spec.name for spec in cost_methods("rmsc")]:
            counts = {}
            for f in LAM_FACTORS:
                est = rmsc.get_method(m, n_clusters=d.n_clusters, random_state=0,
                                      placement=None, max_iter=10 if smoke else solver.MAX_ITER)
                est.set_params(lam=f * rmsc.rmsc.default_lam(est.weighting))
                with threadpool_limits(limits=1):
                    _fit_keeping_iterations(est, d)
                counts[f] = int(est.n_iter_)
            rows.append((name, m, counts))
            for f in LAM_FACTORS:
                ratios[f].append(counts[f] / max(1, counts[1.0]))
    return {f: float(np.median(r)) for f, r in ratios.items()}, rows


def _fit_keeping_iterations(est, d):
    """Fit ``est``; a fit whose consensus leaves samples unlinked raises after its
    iterations, which are what is counted here."""
    try:
        est.fit(list(d.views))
    except rmsc.rmsc.DegenerateSolutionError:
        pass


def print_lam_ratios(ratios, rows):
    print("\nRMSC's iterations at λ = factor x the default (defaults' stopping rule):\n")
    print("| dataset | method | " + " | ".join(f"{f:g}x" for f in LAM_FACTORS) + " |")
    print("|---|---|" + "---:|" * len(LAM_FACTORS))
    for name, m, counts in rows:
        print(f"| {name} | {m} | " + " | ".join(str(counts[f]) for f in LAM_FACTORS) + " |")
    print("| median ratio to 1x | | " + " | ".join(f"{ratios[f]:.2f}" for f in LAM_FACTORS)
          + " |")


def print_iteration_counts(counts, rows):
    cols = [(rule, tol) for rule, tols in ITER_TOLS.items() for tol in tols]
    print(f"\nRMSC's iterations to each rule's stop (trajectories of {solver.MAX_ITER} "
          "iterations with no tolerance stop; the cap when a rule never fires):\n")
    print("| dataset | method | model | " + " | ".join(f"{r} {t:g}" for r, t in cols)
          + " | seconds |")
    print("|---|---|---|" + "---:|" * len(cols) + "---:|")
    for name, m, model, got, t in rows:
        print(f"| {name} | {m} | {model} | " + " | ".join(str(got[r][tol]) for r, tol in cols)
              + f" | {t:.1f} |")
    for model in ITER_MODELS:
        print(f"| fewest / median | | {model} | "
              + " | ".join(f"{counts[model][r][tol]['min']} / {counts[model][r][tol]['typical']:g}"
                           for r, tol in cols) + " | |")


#: Samples of the synthetic sets the suggestion's criterion is timed on (both sides of the
#: spectral step's switch from a dense eigensolver to Lanczos, rmsc.spectral).
CRITERION_SIZES = (150, 300, 600, 900, 1500)


def criterion_rows(smoke=False):
    """``([(terms, units)], [(n, seconds, units)])``: the graph criterion and the agreement
    of the k-means runs of an RMSC fit (3 iterations: an affinity of RMSC's kind, quickly)
    on synthetic data of each of :data:`CRITERION_SIZES` samples, one thread; the median
    of 5 timings (1 in a smoke run)."""
    from rmsc.selection import clustering_agreement, graph_criterion

    rows, log = [], []
    for n in ((100,) if smoke else CRITERION_SIZES):
        d = make_multiview_subspaces(n_clusters=10, n_per_cluster=n // 10, n_views=2,
                                     view_dims=(20, 40), subspace_dim=4, noise=0.3,
                                     random_state=0)
        est = rmsc.get_method("RMSC", n_clusters=10, random_state=0, max_iter=3, tol=0.0)
        with threadpool_limits(limits=1):
            est.fit(list(d.views))

            def criterion():
                graph_criterion(est.affinity_matrix_, 10, random_state=0)
                clustering_agreement(est.labels_, est.label_runs_)

            criterion()  # warm-up (imports)
            timings = [timed(criterion)[1:] for _ in range(1 if smoke else 5)]
        u, t = (float(np.median(x)) for x in zip(*timings))
        rows.append((E.criterion_terms(d.n_samples, 10), u))
        log.append((d.n_samples, t, u))
    return rows, log


#: (samples, clusters) of the random labellings the scoring is timed on.
SCORING_SHAPES = ((150, 3), (150, 20), (600, 6), (2000, 10), (2000, 40), (6000, 6))


def scoring_rows(smoke=False):
    """``([(terms, units)], [(n, c, seconds, units)])``: rmsc.evaluate_runs of 20 random
    k-means-like runs against random labels of each of :data:`SCORING_SHAPES`, one thread;
    the median of 5 timings (1 in a smoke run)."""
    from rmsc.metrics import evaluate_runs
    from rmsc.spectral import N_KMEANS_RUNS

    rng = np.random.default_rng(0)
    rows, log = [], []
    for n, c in (SCORING_SHAPES[:1] if smoke else SCORING_SHAPES):
        labels = rng.integers(0, c, n)
        runs = rng.integers(0, c, (N_KMEANS_RUNS, n))
        with threadpool_limits(limits=1):
            evaluate_runs(labels, runs)  # warm-up
            timings = [timed(lambda: evaluate_runs(labels, runs))[1:]
                       for _ in range(1 if smoke else 5)]
        u, t = (float(np.median(x)) for x in zip(*timings))
        rows.append((E.scoring_terms(n, c), u))
        log.append((n, c, t, u))
    return rows, log


#: The cost models whose fits run blocks on threads (rmsc.backends.LocalBlocks).
THREADED_MODELS = ("rmsc", "ssc", "dimsc")


def parallel_fractions(names, smoke=False):
    """``({method: fraction}, [(dataset, method, cpu seconds, fraction)])``: the share of
    each threaded method's fit (:data:`THREADED_MODELS`) spent in its runner's ``map`` (the
    work its threads split), on one thread, CPU time; the median over ``names``."""
    from rmsc import backends

    inside = [0.0]
    plain = backends.LocalBlocks.map

    def counted(self, fn, shared, arguments):
        t0 = time.process_time()
        try:
            return plain(self, fn, shared, arguments)
        finally:
            inside[0] += time.process_time() - t0

    old = os.environ.get(backends.FIT_THREADS_ENV)
    os.environ[backends.FIT_THREADS_ENV] = "1"
    backends.LocalBlocks.map = counted
    fractions, log = {}, []
    try:
        for name in names:
            d = datasets.load_bundled(name)
            for model in THREADED_MODELS:
                for spec in cost_methods(model):
                    kwargs = {"max_iter": 3} if smoke else {}
                    est = spec.make(n_clusters=d.n_clusters, random_state=0, **kwargs)
                    inside[0] = 0.0
                    with threadpool_limits(limits=1):
                        t0 = time.process_time()
                        est.fit(list(d.views))
                        t = time.process_time() - t0
                    f = inside[0] / t if t > 0 else 0.0
                    fractions.setdefault(spec.name.upper(), []).append(f)
                    log.append((name, spec.name, t, f))
    finally:
        backends.LocalBlocks.map = plain
        if old is None:
            os.environ.pop(backends.FIT_THREADS_ENV, None)
        else:
            os.environ[backends.FIT_THREADS_ENV] = old
    return {m: round(float(np.median(f)), 3) for m, f in fractions.items()}, log


def print_parallel(fractions, log):
    print("\nShare of a fit its threads split (one thread, CPU seconds):\n")
    print("| dataset | method | CPU s | in the runner's map |\n|---|---|---:|---:|")
    for name, m, t, f in log:
        print(f"| {name} | {m} | {t:.2f} | {f:.2f} |")
    for m, f in fractions.items():
        print(f"| median | {m} | | {f:.2f} |")


def print_scoring(coefs, log):
    print("\n| samples | clusters | scoring s | model / measured |\n|---:|---:|---:|---:|")
    for n, c, t, u in log:
        print(f"| {n} | {c} | {t:.3f} | {E._dot(coefs, E.scoring_terms(n, c)) / u:.2f} |")


#: The terms of the scoring's cost (rmsc.costs.scoring_terms).
SCORING_KEYS = ("const", "runs", "samples", "assign")


def print_criterion(coefs, log):
    print("\n| samples | criterion and agreement s | model / measured |\n|---:|---:|---:|")
    for n, t, u in log:
        print(f"| {n} | {t:.3f} | {E._dot(coefs, E.criterion_terms(n, 10)) / u:.2f} |")


#: The terms of the criterion's cost (rmsc.costs.criterion_terms).
CRITERION_KEYS = ("const", "eigh", "lanczos", "runs", "ari")


def timed(fn):
    """(result, multiply-add units, seconds): the time over the probe's unit, before and after."""
    p0 = E.probe_seconds(refresh=True)
    t0 = time.perf_counter()
    out = fn()
    t = time.perf_counter() - t0
    p1 = E.probe_seconds(refresh=True)
    return out, t / E.unit_seconds((p0 + p1) / 2), t


def wide_sparse(X, d, density, rng):
    """A wide sparse view carrying X's structure: X times a sparse random map, small entries cut."""
    M = sp.random(X.shape[1], d, density=0.2, random_state=rng)
    W = np.asarray(X @ M)
    cut = np.quantile(np.abs(W), 1 - density)
    W[np.abs(W) < cut] = 0.0
    return sp.csr_matrix(np.abs(W))


def configs(quick, smoke=False):
    """Synthetic datasets: (name, MultiViewDataset, what to time on it)."""
    out = []
    for n_per, dims, what in ((30, (6, 60, 240), "all"), (80, (6, 60, 240), "all"),
                              (60, (20, 120), "all"), (120, (100, 300, 500), "fast"),
                              (100, (10, 40), "fast"), (160, (6, 60, 240), "all"),
                              (200, (8, 30, 120, 200), "fast")):
        if (quick or smoke) and n_per != 30:
            continue
        if smoke:  # 100 samples, views narrower than that
            n_per, dims = 10, (6, 20, 40)
        d = make_multiview_subspaces(n_clusters=10, n_per_cluster=n_per, n_views=len(dims),
                                     view_dims=dims, subspace_dim=4, noise=0.3, random_state=0)
        out.append((f"dense n={d.n_samples}", d, what))
    rng = np.random.RandomState(0)
    base = make_multiview_subspaces(n_clusters=5, n_per_cluster=10 if smoke else 40, n_views=2,
                                    view_dims=(60, 80), subspace_dim=4, noise=0.3,
                                    random_state=1)
    wide = MultiViewDataset(name="wide", views=tuple(wide_sparse(X, 2000 + 1000 * v, 0.02, rng)
                                                     for v, X in enumerate(base.views)),
                            labels=base.labels)
    out.append((f"wide sparse n={wide.n_samples}", wide, "all"))
    return out


def fit_nnls(rows, keys):
    """Coefficients (>= 0) of ``keys`` minimising the relative error of sum_k c_k f_k = units."""
    A = np.array([[f.get(k, 0.0) / u for k in keys] for f, u in rows])
    scale = A.max(axis=0)
    scale[scale == 0] = 1.0
    coef, _ = nnls(A / scale, np.ones(len(rows)))
    return {k: float(c / s) for k, c, s in zip(keys, coef, scale)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="rewrite rmsc/_costs.py")
    ap.add_argument("--quick", action="store_true", help="the smallest dataset only (a check)")
    ap.add_argument("--iter-datasets", nargs="+", default=list(ITER_DATASETS),
                    help="bundled datasets of RMSC's iteration counts")
    ap.add_argument("--smoke", action="store_true",
                    help="a seconds-long check that the script works: --quick on even smaller "
                         "data (tests/benchmarks/test_benchmarks.py); its numbers mean nothing")
    ap.add_argument("--iterations-only", action="store_true",
                    help="measure RMSC's iteration counts only; --write replaces just them")
    ap.add_argument("--lam-only", action="store_true",
                    help="measure RMSC's iterations against λ only; --write replaces just them")
    ap.add_argument("--criterion-only", action="store_true",
                    help="measure the suggestion's per-setting criterion only; --write "
                         "replaces just it")
    ap.add_argument("--parallel-only", action="store_true",
                    help="measure the share of each threaded fit its threads split only; "
                         "--write replaces just it")
    args = ap.parse_args()
    if args.smoke and args.write:
        ap.error("--smoke numbers mean nothing: they cannot be written")
    warnings.simplefilter("ignore")
    if args.lam_only:
        costs = dict(E._costs.COSTS)
        costs["rmsc_lam_iters"], lam_rows = lam_iteration_ratios(
            ["Subspaces"] if args.smoke else args.iter_datasets, args.smoke)
        print_lam_ratios(costs["rmsc_lam_iters"], lam_rows)
        finish(costs, args.write)
        return
    if args.parallel_only:
        costs = dict(E._costs.COSTS)
        print(f"load average {os.getloadavg()[0]:.1f}")
        costs["parallel"], par_log = parallel_fractions(
            ["Subspaces"] if args.smoke else args.iter_datasets, args.smoke)
        print_parallel(costs["parallel"], par_log)
        finish(costs, args.write)
        return
    if args.criterion_only:
        costs = dict(E._costs.COSTS)
        rows, crit_log = criterion_rows(args.smoke)
        costs["criterion"] = fit_nnls(rows, CRITERION_KEYS)
        print_criterion(costs["criterion"], crit_log)
        rows, score_log = scoring_rows(args.smoke)
        costs["scoring"] = fit_nnls(rows, SCORING_KEYS)
        print_scoring(costs["scoring"], score_log)
        finish(costs, args.write)
        return
    if args.iterations_only:
        costs = {k: v for k, v in E._costs.COSTS.items()
                 if k not in ("rmsc_min_iters", "rmsc_typical_iters")}  # replaced by these
        costs["rmsc_iters"], iter_rows = iteration_counts(
            ["Subspaces"] if args.smoke else args.iter_datasets, args.smoke)
        print_iteration_counts(costs["rmsc_iters"], iter_rows)
        finish(costs, args.write)
        return
    rows = {k: [] for k in ("spectral", "gram", "rmsc_iter", "ssc_iter")}
    ssc_fractions, dimsc_rows, dimsc_sweeps = [], [], []
    graph_specs = cost_methods("graph")
    graph_rows = {spec.name.upper(): [] for spec in graph_specs}
    per_view = {spec.name.upper() for spec in graph_specs if spec.per_view}
    log = []
    print(f"probe: {E.probe_seconds(refresh=True) * 1e3:.2f} ms "
          f"(load average {os.getloadavg()[0]:.1f})")
    for name, data, what in configs(args.quick, args.smoke):
        shape = E.data_shape(data)
        n, c = shape.n_samples, shape.n_clusters
        views = [normalize_l2(X) for X in data.views]
        with threadpool_limits(limits=1):
            _, u, t = timed(lambda: solver.gram_factors(views))
        if any(d > n for d in shape.n_features):
            rows["gram"].append((E.gram_terms(shape), u))
        log.append((name, "gram", t))
        for weighting in ("sample", "view"):
            est = rmsc.get_method("RMSC", n_clusters=c, weighting=weighting, random_state=0,
                                  placement=None)
            try:
                _, u, t = timed(lambda: est.fit(list(data.views)))
            except ValueError as exc:
                print(f"  {name} RMSC {weighting}: {exc}")
                continue
            unit = u / t
            rows["rmsc_iter"].append((E.rmsc_iteration_terms(shape),
                                      est.fit_time_ * unit / (est.n_iter_ + 1)))
            log.append((name, f"RMSC {weighting} ({est.n_iter_} it)", t))
            S = est.affinity_matrix_
            for k in sorted({c, 3}):
                with threadpool_limits(limits=1):  # as inside every estimator's fit
                    _, u, t = timed(lambda: spectral_clustering(S, k, random_state=0))
                rows["spectral"].append((E.spectral_terms(n, k), u))
                log.append((name, f"spectral c={k}", t))
        for spec in graph_specs:
            est = spec.make(n_clusters=c, random_state=0)
            _, u, t = timed(lambda: est.fit(list(data.views)))
            graph_rows[spec.name.upper()].append((shape, u))
            log.append((name, spec.name, t))
        if what != "all":
            continue
        ssc_units = 0.0
        for v, X in enumerate(views):
            R = solver.gram_factor(X)
            with threadpool_limits(limits=1):
                (C, info), u, t = timed(lambda: ssc_admm(R, auto_beta(R)))
            # per iteration; coherence and factorisations count as two more
            rows["ssc_iter"].append((E.ssc_iteration_terms(n, R.shape[0]), u / (info["n_iter"] + 2)))
            ssc_fractions.append(info["n_iter"] / 200.0)
            ssc_units += u
            log.append((name, f"SSC view {v} (r={R.shape[0]}, {info['n_iter']} it)", t))
        for spec in cost_methods("dimsc") if n <= 300 else []:
            est = spec.make(n_clusters=c, random_state=0)
            _, u, t = timed(lambda: est.fit(list(data.views)))
            dimsc_rows.append((shape, u, ssc_units, max(est.n_iter_, 1)))
            dimsc_sweeps.append(est.n_iter_)
            log.append((name, f"{spec.name} ({est.n_iter_} sweeps)", t))

    costs = {}
    costs["spectral"] = fit_nnls(rows["spectral"], ("const", "eigh", "lanczos", "kmeans"))
    costs["gram"] = (fit_nnls(rows["gram"], ("eigh", "cov")) if rows["gram"]
                     else {"eigh": 2.0, "cov": 1.0})
    costs["rmsc_iter"] = fit_nnls(rows["rmsc_iter"], ("const", "product", "passes", "views"))
    iter_names = ["Subspaces"] if args.smoke else args.iter_datasets
    costs["rmsc_iters"], iter_rows = iteration_counts(iter_names, args.smoke)
    costs["rmsc_lam_iters"], lam_rows = lam_iteration_ratios(iter_names, args.smoke)
    costs["rmsc_extra_iters"] = 1.0
    costs["ssc_iter"] = fit_nnls(rows["ssc_iter"], ("const", "product", "passes"))
    costs["ssc_extra_iters"] = 2.0
    costs["ssc_low_fraction"] = float(min(ssc_fractions))

    def spectral_units(shape, k=1):
        return k * E._dot(costs["spectral"], E.spectral_terms(shape.n_samples, shape.n_clusters))

    sweep_rows = []
    for shape, u, ssc_units, sweeps in dimsc_rows:
        rest = max(u - ssc_units - spectral_units(shape), 0.0) / sweeps
        terms = {}
        for r in shape.ranks:
            for k, v in E.ssc_iteration_terms(shape.n_samples, r).items():
                terms[k] = terms.get(k, 0.0) + v
        sweep_rows.append((terms, max(rest, 1.0)))
    costs["dimsc_sweep"] = (fit_nnls(sweep_rows, ("product", "passes")) if sweep_rows
                            else {"product": 20.0, "passes": 300.0})
    costs["graph"] = {}
    for m, items in graph_rows.items():
        fit_rows = [(E.graph_terms(s), max(u - spectral_units(s, s.n_views if m in per_view else 1),
                                           1.0)) for s, u in items]
        costs["graph"][m] = fit_nnls(fit_rows, ("const", "knn", "eigh", "sparse_eig"))
    costs["graph_spread"] = 1.5
    crit_rows, crit_log = criterion_rows(args.smoke)
    costs["criterion"] = fit_nnls(crit_rows, CRITERION_KEYS)
    score_rows, score_log = scoring_rows(args.smoke)
    costs["scoring"] = fit_nnls(score_rows, SCORING_KEYS)

    # Whole fits as the Compare page runs them (rmsc.experiments.compare): one scale and
    # offset per method on top of the kernels, for what they leave out (validation,
    # scaling, Python overhead) and how far the iteration counts fall from the model's.
    E._costs.COSTS = costs
    whole = {}
    for name, data, what in configs(args.quick, args.smoke):
        shape = E.data_shape(data)
        for spec in specs():
            m = spec.name
            if spec.cost not in E.COST_MODELS or spec.cost == "dimsc" or not E.has_model(m) \
                    or (what != "all" and spec.cost == "ssc"):
                continue  # DiMSC: its kernels only (its sweeps vary too much to calibrate)
            # Iterative self-representations without a tolerance stop (tol = 0 runs every
            # iteration, as SSC does on Digit): the scale then measures overhead, not how
            # early synthetic data happen to converge.
            # RMSC's at the former 30 (its count is rmsc_iters'; the scale is per iteration).
            p = {"tol": 0.0} if spec.cost in ("rmsc", "ssc") else {}
            if spec.cost == "rmsc":
                p["max_iter"] = 30
            table, u, t = timed(lambda: experiments.compare(data, [m], params={m: p}))
            if isinstance(table["error"].iloc[0], str):
                continue
            u *= float(table["fit_time"].iloc[0]) / t
            model = E.predict(m, shape, p, probe=float(E.PROBE_SIZE) ** 3).mid  # in units
            whole.setdefault(m.upper(), []).append(({"scale": model, "offset": 1.0}, u))
            log.append((name, f"whole fit {m}", float(table["fit_time"].iloc[0])))
    costs["fit"] = {m: fit_nnls(rows_m, ("scale", "offset")) for m, rows_m in whole.items()}

    print("\n| data | what | seconds |\n|---|---|---:|")
    for name, what, t in log:
        print(f"| {name} | {what} | {t:.2f} |")
    print_iteration_counts(costs["rmsc_iters"], iter_rows)
    print_lam_ratios(costs["rmsc_lam_iters"], lam_rows)
    print_criterion(costs["criterion"], crit_log)
    print_scoring(costs["scoring"], score_log)
    finish(costs, args.write)


def finish(costs, write):
    """Print the constants; with ``write``, rewrite rmsc/_costs.py with them."""
    print()
    text = pprint.pformat(costs, sort_dicts=True, width=96)
    print(text)
    if write:
        path = ROOT / "rmsc" / "_costs.py"
        path.write_text(
            '"""Constants of the cost model (:mod:`rmsc.costs`), in multiply-adds at\n'
            "the speed probe's rate, fitted on synthetic data.\n\n"
            "Written by ``python tools/calibrate_costs.py --write`` (do not edit by hand).\n"
            '"""\n\n'
            f"COSTS = {text}\n")
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
