"""A Digit fit on a dashboard worker with and without the heap reuse, printed as a table.

    python docs/studies/bench_worker_heap.py [--fits 3] [--threshold-mib 8 32] [--smoke]

"Dask's setting": a plain ``distributed.LocalCluster`` worker (its nanny sets
``MALLOC_TRIM_THRESHOLD_``) with the dashboard's per-task ``reuse_heap`` turned off there;
"reuse_heap": the dashboard's own LocalCluster (``rmsc.dashboard.workers.DaskWorkers``). Each
runs the same default Solve fits one after another on one worker, then releases the data
and trims; resident memory is read on the worker. Both sides in one run.

Measured: the tables of docs/measurements.md, "The workers' heap" were written at commit
8e045fb (2026-11-25), on that commit's code. Not smoke-tested: a one-off, kept as the record
of that run; later code may not run it unchanged (to rerun it, check out that commit).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402,F401  (the root on sys.path, --smoke, one thread)

import argparse
import time


def _rss_mb():
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def _no_reuse():
    import rmsc.dashboard.workers as w

    w.reuse_heap = lambda: False


def _set_threshold(mib):
    import rmsc.dask_cluster as s

    s.HEAP_MMAP_THRESHOLD = int(mib * 2**20)  # reuse_heap at the start of every task reads it


def _measure(dask_workers, data, fits):
    from rmsc import dashboard as dash

    dask_workers.client.run(lambda: __import__("rmsc.dashboard.workers"))
    times, peak = [], 0.0
    for k in range(fits):
        job = dash.Job(("heap", k), dash.Remote(dash.fit_rmsc, data, dash.Params(seed=k)),
                       label="fit", sender=dash.DaskSender(dask_workers)).start()
        job.wait(600)
        times.append(job.result.fit_time)
        peak = max(peak, *dask_workers.client.run(_rss_mb).values())
    dask_workers.release_data()
    time.sleep(3)
    dask_workers.trim_workers()
    after = max(dask_workers.client.run(_rss_mb).values())
    return times, peak, after


def main():
    from distributed import LocalCluster

    from rmsc.dashboard import workers
    from rmsc.datasets import load_bundled

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fits", type=int, default=3)
    ap.add_argument("--threshold-mib", type=float, nargs="+", default=None,
                    help="reuse_heap's mmap threshold(s) to compare (default: the shipped one)")
    ap.add_argument("--smoke", action="store_true",
                    help="a seconds-long check that the script works: Digit-small "
                         "(tests/benchmarks/test_benchmarks.py); its numbers mean nothing")
    args = ap.parse_args()
    data = load_bundled("Digit-small" if args.smoke else "Digit")
    data.fingerprint
    rows = []
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster:
        b = workers.DaskWorkers(address=cluster.scheduler_address)
        try:
            b.client.run(_no_reuse)
            rows.append(("Dask's setting", *_measure(b, data, args.fits)))
        finally:
            b.close()
    from rmsc.dask_cluster import HEAP_MMAP_THRESHOLD

    for mib in args.threshold_mib or [HEAP_MMAP_THRESHOLD / 2**20]:
        b = workers.DaskWorkers(n_workers=1)  # a fresh worker for each threshold
        try:
            b.client.run(_set_threshold, mib)
            rows.append((f"reuse_heap, {mib:g} MiB", *_measure(b, data, args.fits)))
        finally:
            b.close()
    print(f"{data.name}, default Solve fit, {args.fits} fits on one worker\n")
    print("| worker | fit s (each) | worker MB after the fits (max) | MB after release and trim |")
    print("|---|---|---:|---:|")
    for name, times, peak, after in rows:
        print(f"| {name} | {', '.join(f'{t:.2f}' for t in times)} | {peak:.0f} | {after:.0f} |")


if __name__ == "__main__":
    main()
