"""RMSC and RMSC-WV at their defaults on every dataset of the repository, beside SSC-AVG.

    python benchmarks/check_defaults.py [--only NAME ...] [--methods M ...] [--table] [--smoke]

The acceptance check of the defaults (docs/defaults.md): ``get_method(name,
n_clusters=c, random_state=0)`` with nothing else set, on the bundled Subspaces,
Digit-small, Digit, 3-Sources and Reuter, and on synthetic subspaces
(``make_multiview_subspaces``: 10 clusters of 5-dimensional subspaces, views of
80/100/120 features, noise 0.05, seed 0) at n = 1000 and 20,000. SSC-AVG at its
defaults is the reference the issue names (not run at n = 20,000: SSC solves an
n x n lasso per view).

Every fit runs in a fresh process (one thread, so that the shared machine's load does
not multiply), so that its peak resident memory (``ru_maxrss``) is its own. Results are
cached in ``benchmarks/out/check_defaults.json``; ``--table`` prints from the cache.
ACC and NMI are means over the 20 k-means runs (the paper's protocol); "isolated" counts
samples with no link in the affinity, "pieces" its connected components.
"""

from __future__ import annotations

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = _preamble.ROOT
OUT = _preamble.OUT / "check_defaults.json"
DATASETS = ("Subspaces", "Digit-small", "3-Sources", "Digit", "Synthetic-1000", "Reuter",
            "Synthetic-20000")
METHODS = ("RMSC", "RMSC-WV", "SSC-AVG")

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
import rmsc
from scipy.sparse.csgraph import connected_components
name, method = sys.argv[2], sys.argv[3]
if name.startswith("Synthetic-"):
    n = int(name.split("-")[1])
    d = rmsc.datasets.make_multiview_subspaces(
        n_clusters=10, n_per_cluster=n // 10, n_views=3, view_dims=(80, 100, 120),
        subspace_dim=5, noise=0.05, random_state=0)
else:
    d = rmsc.datasets.load_bundled(name)
c = int(np.unique(d.labels).size)
est = rmsc.get_method(method, n_clusters=c, random_state=0)
t0 = time.perf_counter()
out = {"dataset": name, "method": method, "n": int(d.n_samples)}
try:
    est.fit(list(d.views))
except rmsc.DegenerateSolutionError as exc:
    out["error"] = str(exc)
else:
    s = rmsc.evaluate_runs(d.labels, est.label_runs_)
    S = est.affinity_matrix_
    out.update(acc=s["acc_mean"], nmi=s["nmi_mean"],
               isolated=int(np.count_nonzero(S.getnnz(axis=1) == 0)),
               pieces=int(connected_components(S, directed=False)[0]))
    for attr in ("lam_", "beta_", "beta_rel_", "beta_max_"):
        if hasattr(est, attr):
            out[attr.rstrip("_")] = float(getattr(est, attr))
out["seconds"] = time.perf_counter() - t0
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run_one(name, method):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), name, method],
                          capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        return {"dataset": name, "method": method, "error": proc.stderr.strip()[-300:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def print_table(cache):
    print("| dataset | n | method | ACC % | NMI % | isolated | pieces | λ | β (β_rel) | "
          "time s | peak MB | ≥ SSC-AVG |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in DATASETS:
        ssc = cache.get(f"{name}|SSC-AVG", {})
        for method in METHODS:
            r = cache.get(f"{name}|{method}")
            if r is None:
                continue
            if "error" in r:
                print(f"| {name} | {r.get('n', '')} | {method} | failed: "
                      f"{r['error'][:80]} | | | | | | {r.get('seconds', 0):.0f} | | |")
                continue
            beta = (f"{r['beta']:.3g} ({r['beta_rel']:.2g})" if "beta" in r else "default")
            lam = f"{r['lam']:g}" if "lam" in r else "default"
            if method == "SSC-AVG":
                vs = ""
            elif "acc" in ssc:
                vs = "yes" if r["acc"] >= ssc["acc"] - 1e-12 else "**no**"
            else:
                vs = "not run"
            print(f"| {name} | {r['n']} | {method} | {100 * r['acc']:.2f} | "
                  f"{100 * r['nmi']:.2f} | {r['isolated']} | {r['pieces']} | {lam} | {beta} | "
                  f"{r['seconds']:.1f} | {r['peak_mb']:.0f} | {vs} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--methods", nargs="*", default=None)
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--rerun", action="store_true", help="ignore cached entries")
    _preamble.add_argument(ap, "Subspaces, RMSC, a throwaway cache")
    args = ap.parse_args()
    global OUT
    if args.smoke:
        import tempfile

        args.only, args.methods = args.only or ["Subspaces"], args.methods or ["RMSC"]
        OUT = Path(tempfile.mkdtemp(prefix="check_defaults_")) / OUT.name
    if args.methods:  # a file per group of methods, so that two runs can go side by side
        OUT = OUT.with_name(f"check_defaults-{'-'.join(args.methods)}.json")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    cache = json.loads(OUT.read_text()) if OUT.exists() else {}
    if not args.table:
        for name in args.only or DATASETS:
            for method in args.methods or METHODS:
                key = f"{name}|{method}"
                if (key in cache and not args.rerun) or (
                        method == "SSC-AVG" and name == "Synthetic-20000"):
                    continue
                cache[key] = run_one(name, method)
                OUT.write_text(json.dumps(cache, indent=1))
                r = cache[key]
                print(key, {k: r[k] for k in ("acc", "seconds", "peak_mb", "error") if k in r},
                      flush=True)
    merged = {}
    for path in sorted(OUT.parent.glob("check_defaults*.json")):
        merged.update(json.loads(path.read_text()))
    print_table(merged)


if __name__ == "__main__":
    main()
