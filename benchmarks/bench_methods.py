"""Fit time and scores of every method of Table 1 on the bundled Digit (2000 samples, 6 views).

    python benchmarks/bench_methods.py [--methods SC-BSV MSC ...] [--seed 0]
                                       [--mvlearn-python /path/to/python] [--smoke]

Every method runs with its registry defaults (``rmsc.get_method(name,
n_clusters=10)``) under the paper's protocol: unit-L2 samples per view,
k-means 20 times; ACC and NMI are mean ± std over those 20 runs
(``rmsc.evaluate_runs``). The fit time includes the whole fit (graphs or
self-representations, the method's iterations, the embedding and the 20
k-means runs). For SC-BSV and SSC-BSV the row scores the view chosen without
labels (largest eigengap); the best view chosen with the labels, as the paper
reports these rows, is given in the notes.

``--mvlearn-python`` names a Python that has mvlearn installed (it is not a
dependency of rmsc); then mvlearn's co-regularised spectral clustering and its
co-training spectral clustering are timed in the same run, on the same
unit-L2 views, and the ratios to ours are printed side by side. mvlearn 0.5.0
pins matplotlib<=3.3.4, which does not build on Python 3.11; it installs and
runs with its pins ignored::

    python3 -m venv /tmp/mvl
    /tmp/mvl/bin/pip install --no-deps mvlearn==0.5.0
    /tmp/mvl/bin/pip install numpy scipy scikit-learn joblib matplotlib seaborn
    python benchmarks/bench_methods.py --mvlearn-python /tmp/mvl/bin/python

mvlearn runs one KMeans with its default n_init=10 restarts, ours 20 k-means runs, so the
comparison slightly favours mvlearn.
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import json
import subprocess
import time
import warnings
from pathlib import Path


import numpy as np  # noqa: E402


from rmsc import available_methods, datasets, evaluate_runs, get_method  # noqa: E402
from rmsc.cli import fitted_parameters  # noqa: E402
from rmsc.metrics import best_view  # noqa: E402
from rmsc.preprocessing import normalize_l2  # noqa: E402

#: Parameters shown in the table, when a method has them.
SHOWN = ("n_neighbors", "bandwidth", "r", "lam", "beta", "gamma", "weighting", "max_iter",
         "n_projection")

_MVLEARN_SCRIPT = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from mvlearn.cluster import MultiviewCoRegSpectralClustering, MultiviewSpectralClustering
data = np.load(sys.argv[1])
Xs = [data[k] for k in sorted(data.files, key=lambda s: int(s[1:]))]
out = {}
for name, cls in (("Co-Pairwise", MultiviewCoRegSpectralClustering),
                  ("Co-Training", MultiviewSpectralClustering)):
    t = time.perf_counter()
    labels = cls(n_clusters=10, affinity="nearest_neighbors", n_neighbors=5,
                 random_state=0).fit_predict(Xs)
    out[name] = {"seconds": time.perf_counter() - t, "labels": labels.tolist()}
print(json.dumps(out))
"""


def fmt(s, key):
    return f"{100 * s[key + '_mean']:.2f} ± {100 * s[key + '_std']:.2f}"


def run_mvlearn(python, views, labels):
    import tempfile
    from rmsc import evaluate

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "views.npz"
        np.savez(path, **{f"v{i}": X for i, X in enumerate(views)})
        res = subprocess.run([python, "-c", _MVLEARN_SCRIPT, str(path)],
                             capture_output=True, text=True, check=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    for entry in out.values():
        entry["scores"] = evaluate(labels, np.asarray(entry["labels"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--methods", nargs="+", default=available_methods())
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mvlearn-python", default=None)
    _preamble.add_argument(ap)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    # 3-Sources in a smoke run: every method fits it in well under a second
    data = datasets.load_3sources() if args.smoke else datasets.load_digit()
    print(f"{data.name}: {data.n_samples} samples, {data.n_views} views, {data.n_clusters} clusters\n")
    print("| method | fit s | ACC % | NMI % | parameters | notes |")
    print("|---|---:|---|---|---|---|")
    times = {}
    for name in args.methods:
        est = get_method(name, n_clusters=data.n_clusters, random_state=args.seed)
        t0 = time.perf_counter()
        est.fit(data.views)
        dt = time.perf_counter() - t0
        times[name] = dt
        s = evaluate_runs(data.labels, est.label_runs_)
        # as the fit resolved them (rmsc fit's lines: lambda and beta, never None)
        params = "; ".join([line for line in fitted_parameters(est)
                            if not line.startswith("parameters:")]
                           + [", ".join(f"{k}={v}" for k, v in est.get_params().items()
                                        if k in SHOWN and k not in ("lam", "beta")
                                        or k == "lam" and not hasattr(est, "lam_"))])
        notes = ""
        if hasattr(est, "view_label_runs_"):
            best, per_view = best_view(data.labels, est.view_label_runs_)
            b = per_view[best]
            notes = (f"view by eigengap: {data.view_names[est.view_]}; best view with labels: "
                     f"{data.view_names[best]} ACC {fmt(b, 'acc')}, NMI {fmt(b, 'nmi')}")
        elif hasattr(est, "n_iter_"):
            notes = f"{est.n_iter_} iterations"
        print(f"| {name} | {dt:.2f} | {fmt(s, 'acc')} | {fmt(s, 'nmi')} | {params} | {notes} |",
              flush=True)
    if args.mvlearn_python:
        views = [normalize_l2(X) for X in data.views]
        ref = run_mvlearn(args.mvlearn_python, views, data.labels)
        print("\nSide by side with mvlearn 0.5 (same unit-L2 views, k = 5 nearest-neighbour "
              "affinity, mvlearn: one KMeans with n_init=10; ours: 20 k-means runs, all timed):\n")
        print("| method | mvlearn s | mvlearn ACC % / NMI % | rmsc s | mvlearn / rmsc |")
        print("|---|---:|---|---:|---:|")
        for name, entry in ref.items():
            ours = times.get(name)
            sc = entry["scores"]
            ratio = f"{entry['seconds'] / ours:.1f}x" if ours else "—"
            ours_s = f"{ours:.2f}" if ours else "not run"
            print(f"| {name} | {entry['seconds']:.2f} | {100 * sc['acc']:.2f} / "
                  f"{100 * sc['nmi']:.2f} | {ours_s} | {ratio} |")


if __name__ == "__main__":
    main()
