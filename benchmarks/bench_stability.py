"""Does the clustering at RMSC's default stop equal the converged one? (the stability study)

    python benchmarks/bench_stability.py [--datasets ...] [--cap 300] [--baseline]
    python benchmarks/bench_stability.py --smoke          # tiny data, seconds (the tests)

For RMSC and RMSC-WV at their defaults (``rmsc.get_method(name, n_clusters=c,
random_state=0)``, nothing else set) on every dataset the repository has, the estimator
is fitted twice: as it is (its default stopping rule) and run on to convergence
(the objective's relative decrease ``tol=1e-6``, at most ``--cap`` iterations; "cap" marks a run the cap stopped). The
table gives ACC and NMI (means over the 20 k-means runs, %) of both, their differences
in points, the iterations and the seconds of each fit (whole ``fit``, one thread). The
issue's target: |Δ ACC| <= 1 and |Δ NMI| <= 1 on every dataset.

``--baseline`` adds, fitted in the same run, the defaults before the stability study (the paper's
model, tol 1e-4, at most 30 iterations): their scores and seconds. ``--time N`` only times
the default fit against the former defaults, alternating them N times each, and prints
the medians and their ratio (the machine is shared: ratios side by side, not absolutes).

Results are cached in ``benchmarks/out/bench_stability.json`` (per dataset, method and
parameters; ``--fresh`` ignores the cache).
"""

from __future__ import annotations

import _preamble  # the checkout's root on sys.path, --smoke, one thread

_preamble.one_thread()  # before numpy

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

ROOT = _preamble.ROOT

import rmsc  # noqa: E402
from rmsc.metrics import evaluate_runs  # noqa: E402


CACHE = _preamble.OUT / "bench_stability.json"

METHODS = ("RMSC", "RMSC-WV")

#: The converged reference.
REFERENCE_TOL = 1e-6

#: The defaults before the stability study (for --baseline): the paper's model, its gamma, the
#: objective's relative decrease <= 1e-4, at most 30 iterations.
BEFORE = {"loss_scale": None, "gamma": 1e-5, "stop_on": "objective", "tol": 1e-4,
          "max_iter": 30}


def smoke_data():
    d = rmsc.datasets.make_multiview_subspaces(
        n_clusters=3, n_per_cluster=20, n_views=2, view_dims=(12, 15), subspace_dim=2,
        noise=0.05, random_state=0)
    return list(d.views), np.asarray(d.labels), 3


def fit(method, views, labels, c, **params):
    est = rmsc.get_method(method, n_clusters=c, random_state=0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        est.fit(views)
        seconds = time.perf_counter() - t0
    s = evaluate_runs(labels, est.label_runs_)
    return {"acc": 100 * s["acc_mean"], "nmi": 100 * s["nmi_mean"], "n_iter": int(est.n_iter_),
            "converged": bool(est.converged_), "seconds": seconds}


def measure(name, method, views, labels, c, cap, baseline):
    out = {"n": int(views[0].shape[0]), "default": fit(method, views, labels, c),
           "reference": fit(method, views, labels, c, stop_on="objective", tol=REFERENCE_TOL,
                            max_iter=cap)}
    if baseline:
        out["before"] = fit(method, views, labels, c, **BEFORE)
    return out


def signature(cap, baseline):
    """What a cached row depends on: the defaults of both estimators and the options."""
    est = {m: {k: v for k, v in rmsc.get_method(m).get_params().items()
               if k not in ("callback", "n_clusters", "random_state")} for m in METHODS}
    return json.dumps({"est": est, "cap": cap, "baseline": baseline}, sort_keys=True,
                      default=str)


def table(rows, baseline, cap):
    head = ("| dataset | n | method | default stop: it | ACC / NMI | s | converged "
            f"(tol {REFERENCE_TOL:g}, cap {cap}): it | ACC / NMI | s | Δ ACC / Δ NMI |")
    sep = "|---|---:|---|---:|---|---:|---:|---|---:|---|"
    if baseline:
        head += " before (paper, tol 1e-4, max 30): it | ACC / NMI | s | time ratio |"
        sep += "---:|---|---:|---:|"
    lines = [head, sep]
    worst = 0.0
    for (name, method), r in rows:
        d, ref = r["default"], r["reference"]
        dacc, dnmi = ref["acc"] - d["acc"], ref["nmi"] - d["nmi"]
        worst = max(worst, abs(dacc), abs(dnmi))
        cap_mark = "" if ref["converged"] else " (cap)"
        line = (f"| {name} | {r['n']} | {method} | {d['n_iter']} | {d['acc']:.2f} / "
                f"{d['nmi']:.2f} | {d['seconds']:.1f} | {ref['n_iter']}{cap_mark} | "
                f"{ref['acc']:.2f} / {ref['nmi']:.2f} | {ref['seconds']:.1f} | "
                f"{dacc:+.2f} / {dnmi:+.2f} |")
        if baseline and "before" in r:
            b = r["before"]
            line += (f" {b['n_iter']} | {b['acc']:.2f} / {b['nmi']:.2f} | {b['seconds']:.1f} | "
                     f"{d['seconds'] / b['seconds']:.1f} |")
        lines.append(line)
    lines.append("")
    lines.append(f"Largest |Δ| (ACC or NMI, default stop vs converged): {worst:.2f} points "
                 f"(target <= 1).")
    return "\n".join(lines), worst


def time_side_by_side(names, methods, repeats):
    """Median seconds of the default fit and of the former defaults, alternated."""
    print("| dataset | method | default: it | s (median) | before: it | s (median) | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in names:
        views, labels, c = _preamble.load_dataset(name)
        for method in methods:
            now, before = [], []
            for _ in range(repeats):
                now.append(fit(method, views, labels, c))
                before.append(fit(method, views, labels, c, **BEFORE))
            t_now = float(np.median([r["seconds"] for r in now]))
            t_before = float(np.median([r["seconds"] for r in before]))
            print(f"| {name} | {method} | {now[0]['n_iter']} | {t_now:.1f} | "
                  f"{before[0]['n_iter']} | {t_before:.1f} | {t_now / t_before:.1f} |", flush=True)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=list(_preamble.DATASETS))
    ap.add_argument("--methods", nargs="+", default=list(METHODS))
    ap.add_argument("--cap", type=int, default=300)
    ap.add_argument("--baseline", action="store_true")
    _preamble.add_argument(ap, "tiny synthetic data, no cache")
    ap.add_argument("--fresh", action="store_true", help="ignore the cache")
    ap.add_argument("--time", type=int, default=0, metavar="N",
                    help="only time the default fit against the former defaults, N times each, "
                         "alternating, side by side (no cache); medians and their ratio")
    args = ap.parse_args(argv)
    if args.time:
        return time_side_by_side(args.datasets, args.methods, args.time)
    if args.smoke:
        views, labels, c = smoke_data()
        rows = [(("smoke", m), measure("smoke", m, views, labels, c, args.cap, args.baseline))
                for m in args.methods]
        print(table(rows, args.baseline, args.cap)[0])
        return 0
    cache = {}
    if CACHE.exists() and not args.fresh:
        cache = json.loads(CACHE.read_text())
    sig = signature(args.cap, args.baseline)
    rows = []
    for name in args.datasets:
        data = None
        for method in args.methods:
            key = f"{name}|{method}"
            hit = cache.get(key)
            if hit is None or hit.get("signature") != sig:
                if data is None:
                    data = _preamble.load_dataset(name)
                r = measure(name, method, *data, args.cap, args.baseline)
                cache[key] = {"signature": sig, "row": r}
                CACHE.parent.mkdir(parents=True, exist_ok=True)
                CACHE.write_text(json.dumps(cache, indent=1))
            rows.append(((name, method), cache[key]["row"]))
            print(f"{name} {method} done", file=sys.stderr, flush=True)
    print(table(rows, args.baseline, args.cap)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
