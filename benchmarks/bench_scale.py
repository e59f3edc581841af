"""How RMSC's time and memory grow with the number of samples.

    python benchmarks/bench_scale.py [--sizes 2000 5000 10000 20000] [--in-memory-max 10000]

Data: ``rmsc.datasets.make_multiview_subspaces`` — 10 clusters, each a 5-dimensional
subspace, seen through three views of 80, 100 and 120 features, noise 0.05.
Every row is one ``RMSC(n_clusters=10, beta=..., random_state=0).fit`` in a
fresh process, so that its peak resident memory (``ru_maxrss``) is its own.
λ, γ, max_iter and tol are the estimator's defaults; β is 0.3 x ``beta_max``
(``rmsc.solver.beta_max``, the β that empties Z*), because the useful β
shrinks as n grows (a fixed β = 0.3 empties Z* at n = 5000 here). The time of
finding ``beta_max`` (two products) is reported apart.

* streaming — the default solver: Z* sparse, the dense intermediate of the Z*-step
  one cache-sized column block at a time;
* in-memory — the same solver with one block holding the whole n x n intermediate
  (``block_size=n``), run while it fits (``--in-memory-max``);
* floor — one dense (n x d)(d x n) product (the fastest of three; formed 64 MB of
  columns at a time, so that no n x n result is stored), the least an iteration
  can cost, times the number of iterations the fit ran.

Peak MB is the fit's peak resident memory (data, factors, solver, spectral step),
read before the floor is measured.

Time is split into the block coordinate descent (``fit_time_``) and the
spectral step (``spectral_time_``: sparse eigensolver + 20 k-means).
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import json
import subprocess
import sys

ROOT = _preamble.ROOT

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
import rmsc
from rmsc.preprocessing import normalize_l2
n, block = int(sys.argv[2]), sys.argv[3]
data = rmsc.datasets.make_multiview_subspaces(
    n_clusters=10, n_per_cluster=n // 10, n_views=3, view_dims=(80, 100, 120),
    subspace_dim=5, noise=0.05, random_state=0)
block_size = None if block == "auto" else n
lam, gamma = rmsc.rmsc.default_lam("sample"), rmsc.RMSC().gamma  # RMSC's defaults
t0 = time.perf_counter()
factors = [rmsc.solver.gram_factor(normalize_l2(X)) for X in data.views]
beta = 0.3 * rmsc.solver.beta_max(factors, lam, gamma, block_size=block_size)
t_beta = time.perf_counter() - t0
del factors
model = rmsc.RMSC(n_clusters=10, beta=beta, random_state=0, block_size=block_size)
t0 = time.perf_counter()
model.fit(data.views)
total = time.perf_counter() - t0
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # the fit's, before the floor
d = sum(data.n_features)
rng = np.random.default_rng(0)
AT, B = np.ascontiguousarray(rng.standard_normal((d, n)).T), rng.standard_normal((d, n))
# The floor's product is formed in 64 MB column blocks into one buffer: the same flops
# without an n x n result (3.2 GB at n = 20000) that would dominate the peak and the time.
b = max(1, rmsc.solver.BLOCK_BYTES // (8 * n))
out = np.empty((n, b))
floor = np.inf
for _ in range(3):
    t1 = time.perf_counter()
    for s in range(0, n, b):
        e = min(s + b, n)
        np.matmul(AT, B[:, s:e], out=out[:, : e - s])
    floor = min(floor, time.perf_counter() - t1)
acc = rmsc.evaluate_runs(data.labels, model.label_runs_)["acc_mean"]
print(json.dumps({
    "n": n, "d": d, "beta": beta, "t_beta": t_beta, "n_iter": int(model.n_iter_),
    "fit": model.fit_time_,
    "spectral": model.spectral_time_, "total": total, "floor": floor * model.n_iter_,
    "peak_mb": peak_mb,
    "density": model.consensus_.nnz / n / n, "acc": acc,
}))
"""


def run(n, block):
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(n), block],
                         capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stderr.strip().splitlines() or ["no output"])[-1]
        return {"n": n, "error": tail}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[2000, 5000, 10000, 20000])
    ap.add_argument("--in-memory-max", type=int, default=10000,
                    help="largest n run with one n x n block")
    args = ap.parse_args()
    print("| n | solver | β | iterations | BCD s | floor s | BCD / floor | spectral s | fit s "
          "| β_max s | peak MB | Z* density | ACC % |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    failed = 0
    for n in args.sizes:
        for label, block in (("streaming", "auto"), ("in-memory", "n")):
            if block == "n" and n > args.in_memory_max:
                print(f"| {n} | in-memory | not run: one n x n block needs "
                      f"{3 * 8 * n * n / 2**30:.1f} GB of intermediates | | | | | | | | | | |")
                continue
            r = run(n, block)
            if "error" in r:
                print(f"| {n} | {label} | failed: {r['error']} | | | | | | | | | | |")
                failed += 1
                continue
            print(f"| {n} | {label} | {r['beta']:.3g} | {r['n_iter']} | {r['fit']:.1f} | "
                  f"{r['floor']:.1f} | {r['fit'] / r['floor']:.2f} | {r['spectral']:.1f} | "
                  f"{r['total']:.1f} | {r['t_beta']:.1f} | {r['peak_mb']:.0f} | "
                  f"{r['density']:.3%} | {100 * r['acc']:.2f} |", flush=True)
    if failed:
        sys.exit(f"{failed} fit(s) failed (see the table)")


if __name__ == "__main__":
    main()
