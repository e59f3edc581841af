"""Predicted against measured seconds of the Compare page's fits (the target: within a factor 1.5).

    python benchmarks/bench_estimates.py [--datasets digit-small digit 3sources reuter]
                                         [--methods RMSC RMSC-WV SSC-AVG ...]
    python benchmarks/bench_estimates.py --buttons [--datasets digit]

``--buttons``: the default Compare and Sensitivity buttons as the pages run them (their
fits in parts on the dashboard's LocalCluster, side by side on every worker,
:class:`rmsc.dashboard.RemoteParts`): the wall time from the click to the result, against
what the button says before (the cost model alone, "a guess"; then with Solve's fit of
these data measured, as the page is after its first fit) and after the run (its own
durations), each scheduled over the workers (:func:`rmsc.dashboard.estimate_run`).

For every dataset and method: the cost model's prediction (rmsc.costs:
no measured duration, the speed probe taken just before the fit), then the fit as the
Compare page runs it (rmsc.experiments.compare, registry defaults, the paper's protocol),
its measured ``fit_time``, and predicted / measured. The target is every ratio in
[1/1.5, 1.5]. The model's constants come from synthetic data
(tools/calibrate_costs.py), so every row here is out of sample.

The last column is what the button says afterwards for the same run: the measured
duration the dashboard recorded (rmsc.dashboard.estimates.CostBook), by construction the
run's own. DiMSC runs on Digit-small and 3-Sources only unless named with --methods.
"""

import _preamble  # noqa: F401 - the checkout's root on sys.path, --smoke, one thread

import argparse
import os
import time
import warnings


from rmsc import datasets, experiments  # noqa: E402
from rmsc.dashboard import DEFAULT_COMPARE  # noqa: E402
from rmsc.dashboard import estimates as E  # noqa: E402

DATASETS = {"digit-small": "Digit-small", "digit": "Digit", "3sources": "3-Sources",
            "reuter": "Reuter"}

#: The Compare page's default selection first, then the others.
METHODS = ("RMSC", "RMSC-WV", "SSC-AVG", "SC-BSV", "MSC", "Co-Pairwise", "Co-Centroid",
           "Co-Training", "SSC-BSV", "DiMSC")

#: DiMSC takes minutes on full Digit and longer on Reuter: only here unless asked for.
DIMSC_DATASETS = ("Digit-small", "3-Sources")


def _wall(dask_workers, task):
    """Seconds from submitting ``task`` (as the page's button does) to its result."""
    from rmsc import dashboard as dash

    t0 = time.perf_counter()
    job = dash.Job("bench", task, label="bench", sender=dash.DaskSender(dask_workers)).start()
    job.wait()
    if job.state != dash.DONE:
        raise SystemExit(f"the run {job.state}: {job.error}")
    return time.perf_counter() - t0, job.result


def _row(name, button, est, measured, extra=""):
    r = est.mid / measured
    ok = "yes" if 1 / 1.5 <= r <= 1.5 else "**no**"
    print(f"| {name} | {button} | {est.text()} | {est.mid:.1f} | {measured:.1f} | {r:.2f} | "
          f"{ok} |{extra}", flush=True)
    return r


def buttons(names):
    """The default Compare and Sensitivity buttons, run as the pages run them."""
    from rmsc import dashboard as dash
    from rmsc.dashboard import workers

    dask_workers = workers.DaskWorkers()  # the dashboard's LocalCluster: one worker per core
    try:
        slots = dask_workers.slots()
        print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
              f"{slots['workers']} workers sharing {slots['cores']} cores\n")
        print("| dataset | button | says | predicted s | measured s (wall) | "
              "predicted / measured | within 1.5x |")
        print("|---|---|---|---:|---:|---:|---|")
        ratios = []
        for key in names:
            data = datasets.load_bundled(DATASETS[key])
            p = dash.Params()
            solve = dash.fit_rmsc(data, p)  # the Solve page's first fit (its β_max, its time)
            params = dash.rmsc_method_params(p, data)
            methods = list(DEFAULT_COMPARE)
            lams, betas = dash.sensitivity_axes(p.resolved_lam, solve.beta_max, p.beta)
            base = dash.sensitivity_settings(p, "RMSC")
            runs = [
                ("Compare: Run 3 fits", lambda b: dash.estimate_compare(
                    {"data": data}, methods, params, b, **slots),
                 dash.compare_parts({"data": data}, methods, params, p.seed),
                 lambda b, out: dash.record_compare(b, {"data": data}, out, params,
                                                    slots["cores"])),
                (f"Sensitivity: Run {len(lams) * len(betas)} fits", lambda b: (
                    dash.estimate_sensitivity(data, lams, betas, "RMSC", base, b, **slots)),
                 dash.sensitivity_parts(data, lams, betas, "RMSC", base, p.seed),
                 lambda b, out: dash.record_sensitivity(b, data, "RMSC", base, out,
                                                        slots["cores"])),
            ]
            for button, estimate, task, record in runs:
                guess = estimate(None)
                seen = E.CostBook()
                dash.record_solve_fit(seen, solve, data)
                before = estimate(seen)
                seconds, out = _wall(dask_workers, task)
                after = E.CostBook()
                record(after, out)
                name = DATASETS[key]
                ratios.append(_row(name, f"{button}, nothing measured", guess, seconds))
                ratios.append(_row(name, f"{button}, after Solve's fit", before, seconds))
                ratios.append(_row(name, f"{button}, after this run", estimate(after), seconds))
        inside = sum(1 / 1.5 <= r <= 1.5 for r in ratios)
        print(f"\n{inside} of {len(ratios)} ratios within [1/1.5, 1.5]; load average at end: "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    finally:
        dask_workers.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=None, choices=sorted(DATASETS))
    ap.add_argument("--methods", nargs="+", default=None)
    ap.add_argument("--buttons", action="store_true",
                    help="the default Compare and Sensitivity buttons as the pages run them "
                         "(default data: digit)")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.buttons:
        buttons(args.datasets or ["digit"])
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
            pred = E.estimate_fit(m, shape, {}, None, E.probe_seconds(refresh=True))
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
