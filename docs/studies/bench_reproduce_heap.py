"""The reproduction's fits on a Dask worker with Dask's heap setting and with rmsc's, as a table.

    python docs/studies/bench_reproduce_heap.py [--methods SSC-AVG RMSC] [--dataset Digit]

A ``distributed`` nanny starts its workers with ``MALLOC_TRIM_THRESHOLD_`` set, so glibc
maps every array over 128 KiB afresh and unmaps it when freed: the next array of the
same size page-faults its memory in again (zeroed by the kernel). The first full
``rmsc reproduce`` on two workers spent 2,292 s of its 7,241 s of CPU in the kernel
(1.0e9 minor page faults, ``/usr/bin/time -v``). This runs the same protocol fits
(:func:`rmsc.experiments.parallel._run_group`) on a fresh one-worker LocalCluster each:
with the nanny's setting, and with the heap reuse every group now starts with (the
dashboard workers' :func:`rmsc.dask_cluster.reuse_heap`); wall time, the worker's
user and system CPU time and its minor page faults per fit. Side by side in one run.

Measured: the tables of docs/measurements.md, "The workers' heap" (and docs/results.md,
"Compute") were written at commit 5d29372 (2026-11-25), on that commit's code. Not
smoke-tested: a one-off, kept as the record of that run; later code may not run it unchanged
(to rerun it, check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402,F401  (the root on sys.path, --smoke, one thread)

import argparse
import time


def _usage():
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime, r.ru_minflt


def _fit(payload, fits, reuse):
    from rmsc.experiments import parallel

    if not reuse:  # the group would set it itself
        parallel.reuse_heap = lambda: False
    u0, s0, f0 = _usage()
    t0 = time.perf_counter()
    parallel._run_group(payload, fits, 0, "")
    wall = time.perf_counter() - t0
    u1, s1, f1 = _usage()
    return wall, u1 - u0, s1 - s0, f1 - f0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=["SSC-AVG", "RMSC", "DiMSC"])
    ap.add_argument("--dataset", default="Digit")
    args = ap.parse_args()

    from distributed import Client

    from rmsc import datasets
    from rmsc.dask_cluster import local_cluster
    from rmsc.experiments import Fit
    from rmsc.dask_cluster import HEAP_MMAP_THRESHOLD

    data = datasets.load_bundled(args.dataset)
    print(f"{args.dataset}: {data.n_samples} samples, {data.n_views} views; each fit on a "
          "fresh one-worker LocalCluster")
    print()
    print("| method | heap | wall s | user s | system s | minor faults |")
    print("|---|---|---:|---:|---:|---:|")
    for method in args.methods:
        fits = [Fit(args.dataset, args.dataset, method, {})]
        for reuse in (False, True):
            with local_cluster(1) as cluster, Client(cluster, set_as_default=False) as client:
                payload = client.scatter((list(data.views), data.labels), broadcast=True)
                wall, user, system, faults = client.submit(_fit, payload, fits, reuse,
                                                           pure=False).result()
            name = (f"reuse_heap (mmap threshold {HEAP_MMAP_THRESHOLD >> 20} MiB)" if reuse
                    else "Dask's (nanny's MALLOC_TRIM_THRESHOLD_)")
            print(f"| {method} | {name} | {wall:.1f} | {user:.1f} | {system:.1f} | "
                  f"{faults:,} |", flush=True)


if __name__ == "__main__":
    main()
