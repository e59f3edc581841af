"""Predicted against measured time of every long button, under load (the target: within 1.5x on every button).

    nice -n 10 python benchmarks/bench_estimates.py [--data Digit-small] [--busy 2] [--smoke]
    python benchmarks/bench_estimates.py --per-method [--datasets digit-small digit 3sources reuter]
                                         [--methods RMSC RMSC-WV SSC-AVG ...]
    python benchmarks/bench_estimates.py --parts [--data 3-Sources] [--busy 2]

Default: the dashboard's long buttons as the pages run them, while ``--busy`` processes
(``python -c "while True: pass"``, started here and ended at the end) keep cores busy. A
server starts fresh (its :class:`rmsc.dashboard.CostBook` and :class:`rmsc.dashboard.Pace`
empty), fits the Solve page's default (as a teacher's first visit does: it teaches both),
then presses, on the dashboard's LocalCluster, one after another: Compare (its default
methods), Sensitivity's λ × β grid (its default for these data), Sensitivity's views
(its default methods), Solve's "Suggest λ and β". For each: what the button said before
(:func:`rmsc.dashboard.plan`: the estimate at the server's measured speed and the threads
busy then), the wall time from the click to the result, predicted / measured; after each run
the server learns from it as the page's does (:func:`rmsc.dashboard.learn_from_run`).

``--per-method``: the cost model alone, method by method (no load, no learning): its
prediction (the speed probe taken just before the fit), the fit as the Compare page runs it
(rmsc.experiments.compare, registry defaults, the paper's protocol), its measured
``fit_time``, and predicted / measured; the model's constants come from synthetic data
(tools/calibrate_costs.py), so every row is out of sample. Its last column is what
the button says afterwards for the same run (the duration recorded in a
rmsc.dashboard.estimates.CostBook). DiMSC runs on Digit-small and 3-Sources only unless
named with --methods.

``--parts``: where a button's time goes beyond the fits' durations the book records. Solve's
"Suggest λ and β" (:func:`rmsc.dashboard.run_suggestion`) is run here (in this process) and
as the page sends it (a task on the dashboard's LocalCluster), at 1 thread and at every
core, with no busy process and with ``--busy``; each row: the wall from submitting to the
result, the run's own seconds where it ran (:attr:`rmsc.dashboard.SuggestionRun.seconds`),
and its parts summed over the settings (:attr:`rmsc.selection.Suggestion.timings`: each
setting's whole turn, the estimator's ``fit``, its ``fit_time_``, the graph criterion, the
k-means agreement), the scoring, and the estimate's idle seconds of the same run. The other
buttons' fits, run one after another here (every part of the run, at 1 thread): the wall
against the sum of the ``fit_time`` the book records.
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import os
import signal
import subprocess
import sys
import time
import warnings

from rmsc import datasets, experiments  # noqa: E402
from rmsc.dashboard import DEFAULT_COMPARE  # noqa: E402
from rmsc.costs import probe_seconds  # noqa: E402
from rmsc.dashboard import estimates as E  # noqa: E402

DATASETS = {"digit-small": "Digit-small", "digit": "Digit", "3sources": "3-Sources",
            "reuter": "Reuter"}

#: The Compare page's default selection first, then the others.
METHODS = ("RMSC", "RMSC-WV", "SSC-AVG", "SC-BSV", "MSC", "Co-Pairwise", "Co-Centroid",
           "Co-Training", "SSC-BSV", "DiMSC")

#: DiMSC takes minutes on full Digit and longer on Reuter: only here unless asked for.
DIMSC_DATASETS = ("Digit-small", "3-Sources")

#: The target: every button's predicted / measured within [1/TARGET, TARGET].
TARGET = 1.5


#: What a busy process runs; with ``--smoke`` it sleeps instead (started, counted in the
#: tables and ended the same way, but a smoke run measures nothing, and a core burnt for its
#: minute only slowed the test suite beside it). Either ends by itself once this script is
#: gone (its parent's pid, argv[1], is no longer its parent): a run killed outright, as a
#: timed-out test kills it, cannot leave a core burning behind it.
BUSY = "import os, sys\nwhile os.getppid() == int(sys.argv[1]): pass"
IDLE = "import os, sys, time\nwhile os.getppid() == int(sys.argv[1]): time.sleep(0.5)"


def _burners(n, smoke=False):
    """``n`` processes that keep a core busy each (idle ones with ``smoke``), ended by
    :func:`_stop`, also when this script is terminated."""
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    code = IDLE if smoke else BUSY
    return [subprocess.Popen([sys.executable, "-c", code, str(os.getpid())]) for _ in range(n)]


def _stop(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def _workers(smoke):
    """The dashboard's LocalCluster: one worker per core, or one worker with ``smoke`` (the
    same code: a worker process and its nanny cost seconds of CPU each to start, and a
    smoke run measures nothing)."""
    from rmsc.dashboard import workers

    return workers.DaskWorkers(n_workers=1 if smoke else None)


def _wall(dask_workers, task):
    """Seconds from submitting ``task`` (as the page's button does) to its result."""
    from rmsc import dashboard as dash

    t0 = time.perf_counter()
    job = dash.Job("bench", task, label="bench", sender=dash.DaskSender(dask_workers)).start()
    job.wait()
    if job.state != dash.DONE:
        raise SystemExit(f"the run {job.state}: {job.error}")
    return time.perf_counter() - t0, job.result


def _loads():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def _suggest_grid(smoke):
    """Suggest's grid: the page's (``{}``: run_suggestion's defaults), or with ``smoke`` two
    of its settings (the same code, a quarter of its fits: a smoke run measures nothing)."""
    from rmsc import dashboard as dash

    return {"lams": dash.SUGGEST_LAMS[:1], "beta_rels": dash.SUGGEST_BETA_RELS[:2]} \
        if smoke else {}


def _button_settings(p, data, solve, smoke):
    """What the buttons run after the Solve page's first fit ``solve``: the methods'
    parameters, the grid's λs and βs, the grid's other settings, Compare's methods and its
    variants (fewer of each with ``smoke``)."""
    from rmsc import dashboard as dash

    params = dash.rmsc_method_params(p, data)
    lams, betas = dash.sensitivity_axes(p.resolved_lam, solve.beta_max, p.beta)
    base = dash.sensitivity_settings(p, "RMSC")
    methods = list(DEFAULT_COMPARE)
    if smoke:
        methods, lams, betas = methods[:1], lams[:2], betas[:1]
    return params, lams, betas, base, methods, {"data": data}


def buttons(name, busy, smoke):
    """Every long button, as the pages run them, beside ``busy`` busy processes."""
    from rmsc import dashboard as dash

    data = datasets.load_bundled(name)
    burners = _burners(busy, smoke)
    dask_workers = _workers(smoke)
    try:
        slots = dask_workers.slots()
        cores = slots["cores"]
        book, pace = dash.CostBook(), dash.Pace()
        p = dash.Params()
        time.sleep(0 if smoke else 5)  # the burners show in the load average
        print(f"{name}; {busy} busy processes beside; load average at start: {_loads()}; "
              f"{slots['workers']} workers sharing {cores} cores. 'idle s': the run's estimate on "
              f"an idle machine; 'learned factor': took against predicted of the runs before "
              f"(rmsc.dashboard.Pace); 'others busy': the threads runnable when the button "
              f"was drawn, less the reader (rmsc.dashboard.current_load); the figure is idle "
              f"x factor x (others busy + {cores}) / {cores}\n")
        # the Solve page's first fit: its result and duration teach the server
        seconds, solve = _wall(dask_workers, dash.Remote(dash.fit_rmsc, data, p))
        dash.learn_from_fit(pace, book, solve, data, cores)
        params, lams, betas, base, methods, variants = _button_settings(p, data, solve, smoke)
        grid = _suggest_grid(smoke)  # smoke: the estimate is still the whole button's
        runs = [
            ("Compare", len(methods), "compare",
             lambda: dash.estimate_compare(variants, methods, params, book, **slots),
             lambda: dash.compare_parts(variants, methods, params, p.seed),
             lambda b, out: dash.record_compare(b, variants, out, params, cores)),
            ("Sensitivity: λ × β grid", len(lams) * len(betas), "sensitivity",
             lambda: dash.estimate_sensitivity(data, lams, betas, "RMSC", base, book, **slots),
             lambda: dash.sensitivity_parts(data, lams, betas, "RMSC", base, p.seed),
             lambda b, out: dash.record_sensitivity(b, data, "RMSC", base, out, cores)),
            ("Sensitivity: views", len(methods) * data.n_views, "views",
             lambda: dash.estimate_views(data, methods, params, book, **slots),
             lambda: dash.views_parts(data, methods, params, p.seed),
             lambda b, out: dash.record_views(b, data, params, out, cores)),
            ("Solve: Suggest λ and β", len(grid.get("lams", dash.SUGGEST_LAMS))
             * len(grid.get("beta_rels", dash.SUGGEST_BETA_RELS)),
             "suggest", lambda: dash.estimate_suggestion(data, p, book),
             lambda: dash.Remote(dash.run_suggestion, data, p, **grid),
             lambda b, out: dash.record_suggestion(b, data, p, out)),
        ]
        print(f"| button | fits | the button said | idle s | learned factor | others busy | "
              f"predicted s | measured s | predicted / measured | within {TARGET:g}x |")
        print("|---|---:|---|---:|---:|---:|---:|---:|---:|---|")
        ratios = []
        for button, n_fits, kind, estimate, task, record in runs:
            est = estimate()
            planned = dash.plan(est, kind, pace, cores=cores)
            factor = pace.factor(kind, planned.source)
            seconds, out = _wall(dask_workers, task())
            dash.learn_from_run(pace, book, planned, seconds, cores, record, out)
            r = planned.seconds / seconds
            ratios.append(r)
            ok = "yes" if 1 / TARGET <= r <= TARGET else "**no**"
            print(f"| {button} | {n_fits} | {planned.text()} | {planned.idle:.1f} | "
                  f"{factor:.2f} | {planned.load:.1f} | {planned.seconds:.0f} | "
                  f"{seconds:.0f} | {r:.2f} | {ok} |", flush=True)
        inside = sum(1 / TARGET <= r <= TARGET for r in ratios)
        print(f"\n{inside} of {len(ratios)} buttons within {TARGET:g}x; "
              f"load average at end: {_loads()}")
    finally:
        _stop(burners)  # first: a close that fails must not leave them burning
        dask_workers.close()


def _submit(dask_workers, task, threads=None):
    """``(seconds from submitting to the result, result)`` of ``task`` sent as the page
    sends it, its fits on ``threads`` threads (None: every core)."""
    task.threads = threads
    return _wall(dask_workers, task)


def _here(task, threads):
    """``(wall, result)`` of ``task(job)`` run in this process, its fits on ``threads``."""
    from rmsc import dashboard as dash
    from rmsc.backends import FIT_THREADS_ENV

    os.environ[FIT_THREADS_ENV] = str(int(threads))
    try:
        t0 = time.perf_counter()
        out = task(dash.Job("bench", lambda j: None))
        return time.perf_counter() - t0, out
    finally:
        os.environ.pop(FIT_THREADS_ENV, None)


def parts(name, busy, smoke):
    """Where Suggest's time goes, and the other buttons' time beyond their fits' durations
    (the module docstring, ``--parts``)."""
    from rmsc import dashboard as dash

    data = datasets.load_bundled(name)
    dask_workers = _workers(smoke)
    try:
        slots = dask_workers.slots()
        cores = slots["cores"] or 1
        p = dash.Params()
        book = dash.CostBook()
        _, solve = _wall(dask_workers, dash.Remote(dash.fit_rmsc, data, p))  # warms a worker
        dash.record_solve_fit(book, solve, data)
        idle = dash.estimate_suggestion(data, p, book).mid
        print(f"{name}; {slots['workers']} workers sharing {cores} cores; load average at "
              f"start: {_loads()}. Seconds; 'Σ' over the {len(dash.SUGGEST_LAMS) * len(dash.SUGGEST_BETA_RELS)} "
              f"settings; 'estimate': rmsc.dashboard.estimate_suggestion's idle seconds after "
              f"the Solve page's fit (one thread, the book holding that fit)\n")
        print("| button | where | threads | busy | submit → result | run where it ran | "
              "Σ setting's turn | Σ fit | Σ fit_time_ | Σ criterion | Σ agreement | scoring | "
              "estimate |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        grid = _suggest_grid(smoke)
        for n_busy in ([busy] if smoke else [0, busy]):
            burners = _burners(n_busy, smoke)
            try:
                time.sleep(0 if smoke or not n_busy else 3)
                for threads in ([1] if smoke else sorted({1, cores})):
                    for where in ("here", "worker"):
                        if where == "here":
                            wall, run = _here(
                                lambda j: dash.run_suggestion(data, p, j, **grid), threads)
                        else:
                            wall, run = _submit(dask_workers, dash.Remote(
                                dash.run_suggestion, data, p, **grid), threads)
                        t = run.suggestion.timings
                        sums = [sum(x[k] for x in t) for k in
                                ("seconds", "fit", "fit_time", "criterion", "agreement")]
                        print(f"| Suggest | {where} | {threads} | {n_busy} | {wall:.2f} | "
                              f"{run.seconds:.2f} | "
                              + " | ".join(f"{v:.2f}" for v in sums)
                              + f" | {run.scoring:.2f} | {idle:.2f} |", flush=True)
            finally:
                _stop(burners)
        # the other buttons' fits, one after another here, one thread
        params, lams, betas, base, methods, variants = _button_settings(p, data, solve, smoke)
        print("\n| button | fits | wall here, 1 thread | Σ fit_time (the book's) | "
              "beyond them per fit |")
        print("|---|---:|---:|---:|---:|")
        for button, task, times in [
                ("Compare", dash.compare_parts(variants, methods, params, p.seed),
                 lambda out: list(out["data"]["fit_time"])),
                ("Sensitivity: λ × β grid",
                 dash.sensitivity_parts(data, lams, betas, "RMSC", base, p.seed),
                 lambda out: list(out["fit_time"])),
                ("Sensitivity: views", dash.views_parts(data, methods, params, p.seed),
                 lambda out: list(out["fit_time"]))]:
            wall, out = _here(task, 1)
            fits = [float(x) for x in times(out) if x == x]
            print(f"| {button} | {len(fits)} | {wall:.2f} | {sum(fits):.2f} | "
                  f"{(wall - sum(fits)) / max(1, len(fits)):.3f} |", flush=True)
        print(f"\nload average at end: {_loads()}")
    finally:
        dask_workers.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="Digit-small", help="the buttons' dataset (bundled)")
    ap.add_argument("--busy", type=int, default=2, help="busy processes beside the buttons")
    _preamble.add_argument(ap)
    ap.add_argument("--per-method", action="store_true",
                    help="the cost model alone, method by method (no load)")
    ap.add_argument("--datasets", nargs="+", default=None, choices=sorted(DATASETS))
    ap.add_argument("--methods", nargs="+", default=None)
    ap.add_argument("--parts", action="store_true",
                    help="where Suggest's time goes, part by part (and the others' per-fit "
                         "time beyond their recorded durations)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.parts:
        parts("3-Sources" if args.smoke else args.data, 1 if args.smoke else args.busy,
              args.smoke)
        return
    if not args.per_method:
        buttons("3-Sources" if args.smoke else args.data, 1 if args.smoke else args.busy,
                args.smoke)
        return
    args.datasets = args.datasets or ["digit-small", "digit", "3sources"]
    book = E.CostBook()
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}\n")
    print("| dataset | method | predicted s (range) | measured s | predicted / measured | "
          "within 1.5x | button after the run |")
    print("|---|---|---|---:|---:|---|---|")
    ratios = []
    t_start = time.perf_counter()
    for key in args.datasets:
        name = DATASETS[key]
        data = datasets.load_bundled(name)
        shape = E.data_shape(data)
        methods = args.methods or [m for m in METHODS
                                   if m != "DiMSC" or name in DIMSC_DATASETS]
        sums = {}
        for m in methods:
            pred = E.estimate_fit(m, shape, {}, None, probe_seconds(refresh=True))
            table = experiments.compare(data, [m])
            row = table.iloc[0]
            if isinstance(row["error"], str):
                print(f"| {name} | {m} | {pred.mid:.1f} | — | — | — | {row['error']} |")
                continue
            seconds = float(row["fit_time"])
            E.record_compare(book, {"data": data}, {"data": table})
            after = E.estimate_compare({"data": data}, [m], None, book)
            ratio = pred.mid / seconds
            ratios.append(ratio)
            sums.setdefault("every method above", [0.0, 0.0])
            sums["every method above"][0] += pred.mid
            sums["every method above"][1] += seconds
            if m in DEFAULT_COMPARE:  # those of the page's default selection that ran
                sums.setdefault("the Compare default's", [0.0, 0.0])
                sums["the Compare default's"][0] += pred.mid
                sums["the Compare default's"][1] += seconds
            ok = "yes" if 1 / 1.5 <= ratio <= 1.5 else "**no**"
            print(f"| {name} | {m} | {pred.mid:.1f} ({pred.low:.1f}–{pred.high:.1f}) | "
                  f"{seconds:.1f} | {ratio:.2f} | {ok} | {after.text()} |", flush=True)
        for what, (p, t) in sums.items():  # what a button with these methods would say
            r = p / t
            ok = "yes" if 1 / 1.5 <= r <= 1.5 else "**no**"
            print(f"| {name} | sum: {what} | {p:.1f} | {t:.1f} | {r:.2f} | {ok} | |", flush=True)
    inside = sum(1 / 1.5 <= r <= 1.5 for r in ratios)
    print(f"\n{inside} of {len(ratios)} ratios within [1/1.5, 1.5]; "
          f"total {time.perf_counter() - t_start:.0f} s; "
          f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":  # the LocalCluster's worker processes import this file again
    main()
