"""RMSC's whole fit, now and before, side by side: Reuter (and any dataset) per setting.

    python benchmarks/bench_fit.py [--data Reuter] [--baseline REV] [--repeat 1]
                                   [--settings 0.3,0.3 1,0.1 ...] [--data-dir DIR]

Every row is one setting (lam, beta) of ``rmsc.RMSC(n_clusters=c, random_state=0)``
with the estimator's other defaults, fitted by this checkout and by ``--baseline
REV`` (default: the code before the speed work, benchmarks/_baseline.py) in the
same process, alternately (``--repeat`` times, fastest kept). The seconds are the
whole ``fit`` (factorisation, iterations, beta_max, spectral step and 20 k-means
runs); ACC and NMI are the mean over the 20 k-means runs (%); the last column
compares the two consensus matrices Z* (the same algorithm: equal to round-off, or
to the float32 rule of rmsc.solver.PRECISION).

``--targets``: the speed round's time target instead. RMSC and RMSC-WV on ``--data``
(Digit by default), each fitted at its defaults ("default"), as before the stability study
("former": the paper's model, ``rmsc.rmsc.PAPER_MODEL``, and its stopping,
``rmsc.rmsc.FORMER_STOPPING``: at most 30 iterations) and with the candidates of
docs/acceleration.md (the safeguarded extrapolation, and the same with
``rmsc.tracking.ClusteringStop``), alternately ``--repeat`` times (default 3) in one
process, one thread: median seconds of the whole ``fit``, iterations, ACC / NMI, and the
ratio to the former fit's median (the target: the default at most 1.5x). ``--smoke``:
Digit-small, one repeat.

Datasets: Digit, Reuter and 3-Sources, bundled (``--data-dir DIR``: the paper's .mat
files instead, the same data). Default settings
for Reuter: the estimator's default and the three the reproduction ran there
(``rmsc reproduce``'s thinned grid).
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import statistics
import time
import warnings
from pathlib import Path


import _baseline  # noqa: E402
from rmsc import RMSC, datasets, evaluate_runs, get_method  # noqa: E402
from rmsc.rmsc import FORMER_STOPPING, PAPER_MODEL  # noqa: E402
from rmsc.tracking import ClusteringStop  # noqa: E402

#: ``--targets``' fits: name -> (parameters on top of the defaults, with ClusteringStop).
TARGET_FITS = {
    "default": ({}, False),
    "former": ({**PAPER_MODEL, **FORMER_STOPPING}, False),
    "extrapolate": ({"acceleration": "extrapolate"}, False),
    "extrapolate, clustering stop": ({"acceleration": "extrapolate"}, True),
}

FILES = {"Reuter": "reuters_1200.mat", "3-Sources": "3sources.mat"}
SETTINGS = {
    "Reuter": [(0.3, 0.3), (0.1, 0.03), (1.0, 0.03), (3.0, 0.3)],
    "Digit": [(0.3, 0.3), (0.3, 0.03), (10.0, 0.2)],
    "3-Sources": [(0.3, 0.3), (1.0, 0.1), (3.0, 0.03)],
}


def load(name, data_dir=None):
    """The bundled copy, or the paper's .mat file in ``data_dir`` (the same data)."""
    if data_dir is None or name == "Digit":
        return datasets.load_bundled(name)
    return datasets.load(Path(data_dir) / FILES[name])


def targets(data, repeat):
    """The time target's table (see the module docstring)."""
    import numpy as np

    print(f"{data.name}: n={data.n_samples}, {data.n_views} views; whole fit, one thread, "
          f"median of {repeat} (the fits alternate)\n")
    print("| method | fit | iterations | ACC / NMI % | s (median) | × former |")
    print("|---|---|---:|---|---:|---:|", flush=True)
    for method in ("RMSC", "RMSC-WV"):
        seconds, fitted = {k: [] for k in TARGET_FITS}, {}
        for _ in range(repeat):
            for name, (params, stop) in TARGET_FITS.items():
                est = get_method(method, n_clusters=data.n_clusters, random_state=0, **params)
                if stop:
                    est.set_params(callback=ClusteringStop(
                        data.n_clusters, keep_mass=est.keep_mass, top_k=est.top_k,
                        scale_columns=est.scale_columns))
                t0 = time.perf_counter()
                est.fit(list(data.views))
                seconds[name].append(time.perf_counter() - t0)
                fitted[name] = est
        former = statistics.median(seconds["former"])
        for name, est in fitted.items():
            s = evaluate_runs(np.asarray(data.labels), est.label_runs_)
            t = statistics.median(seconds[name])
            print(f"| {method} | {name} | {est.n_iter_} | {100 * s['acc_mean']:.2f} / "
                  f"{100 * s['nmi_mean']:.2f} | {t:.2f} | {t / former:.2f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=None, choices=list(SETTINGS),
                    help="default: Reuter (Digit with --targets)")
    ap.add_argument("--data-dir", default=None,
                    help="read the paper's .mat files from here instead of the bundled copies")
    ap.add_argument("--repeat", type=int, default=None,
                    help="fits per setting (default 1; with --targets 3)")
    ap.add_argument("--targets", action="store_true",
                    help="the speed round's time target (see the module docstring)")
    _preamble.add_argument(ap)
    ap.add_argument("--settings", nargs="+", default=None, help="lam,beta pairs")
    _baseline.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.targets:
        data = (datasets.load_digit_small() if args.smoke
                else load(args.data or "Digit", args.data_dir))
        targets(data, 1 if args.smoke else (args.repeat or 3))
        return
    args.repeat = args.repeat or 1
    args.data = args.data or "Reuter"
    data = load(args.data, args.data_dir)
    base = _baseline.load(args.baseline)
    settings = ([tuple(float(x) for x in s.split(",")) for s in args.settings]
                if args.settings else SETTINGS[args.data])
    estimators = {"now": RMSC}
    if base is not None:
        estimators["before"] = base.RMSC
    print(f"{data.name}: n={data.n_samples}, {data.n_views} views "
          f"({', '.join(str(X.shape[1]) for X in data.views)} features); whole fit, fastest of "
          f"{args.repeat}; before = {args.baseline}\n")
    cols = ["now s", "now iterations", "now ACC / NMI %"]
    if base is not None:
        cols = ["before s", "now s", "speed-up", "iterations before / now",
                "ACC % before / now", "NMI % before / now", "max |ΔZ*| / max |Z*|"]
    print("| λ | β | " + " | ".join(cols) + " |")
    print("|---:|---:|" + "---|" * len(cols), flush=True)
    for lam, beta in settings:
        best, fitted = {}, {}
        for _ in range(args.repeat):
            for name, cls in estimators.items():
                est = cls(n_clusters=data.n_clusters, lam=lam, beta=beta, random_state=0)
                t0 = time.perf_counter()
                try:
                    est.fit(list(data.views))
                except ValueError as exc:  # a degenerate setting says so in the row
                    est = exc
                best[name] = min(best.get(name, float("inf")), time.perf_counter() - t0)
                fitted[name] = est
        scores = {}
        for name, est in fitted.items():
            if isinstance(est, Exception):
                scores[name] = (float("nan"), float("nan"), "error")
            else:
                s = evaluate_runs(data.labels, est.label_runs_)
                scores[name] = (100 * s["acc_mean"], 100 * s["nmi_mean"], est.n_iter_)
        now = scores["now"]
        if base is None:
            row = [f"{best['now']:.1f}", f"{now[2]}", f"{now[0]:.2f} / {now[1]:.2f}"]
        else:
            bef = scores["before"]
            a, b = fitted["now"], fitted["before"]
            diff = "—"
            if not isinstance(a, Exception) and not isinstance(b, Exception):
                diff = f"{abs(a.consensus_ - b.consensus_).max() / abs(b.consensus_).max():.1e}"
            row = [f"{best['before']:.1f}", f"{best['now']:.1f}",
                   f"{best['before'] / best['now']:.1f}x", f"{bef[2]} / {now[2]}",
                   f"{bef[0]:.2f} / {now[0]:.2f}", f"{bef[1]:.2f} / {now[1]:.2f}", diff]
        print(f"| {lam:g} | {beta:g} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
