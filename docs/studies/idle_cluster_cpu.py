"""What an idle LocalCluster of the dashboard's kind costs, with Dask's diagnostics as Dask
sets them and quietened (:data:`rmsc.dask_cluster.QUIET_DIAGNOSTICS`, which
:func:`rmsc.dask_cluster.local_cluster` applies when it serves no Dask dashboard).

    python docs/studies/idle_cluster_cpu.py [--workers 2] [--seconds 20] [--rounds 2]

Each round starts one cluster of each kind in turn (Dask's defaults, then quietened: the
kinds alternate, so a change of load hits both), lets it settle 5 s, then sums the CPU
seconds (user + system) of this process and every process it started over ``--seconds``
of idling, and closes it. The table gives each round's CPU seconds per ``--seconds``.

Not smoke-tested: a one-off before/after measurement, its table in docs/measurements.md
("How long the suite takes"), measured at commit de91a3c with ``QUIET_DIAGNOSTICS`` added
(2026-11-29, 2 shared cores, load about 6).
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import psutil  # noqa: E402

from rmsc import dask_cluster  # noqa: E402

#: Dask's own settings for what QUIET_DIAGNOSTICS changes (distributed's defaults).
DASK_DEFAULTS = {"distributed.worker.profile.enabled": True,
                 "distributed.admin.tick.interval": "20ms",
                 "distributed.admin.system-monitor.interval": "500ms"}


def cpu_seconds():
    """CPU seconds (user + system) of this process and all it started, so far."""
    me = psutil.Process()
    procs = [me, *me.children(recursive=True)]
    return sum(sum(p.cpu_times()[:2]) for p in procs)


def idle_cost(settings, workers, seconds):
    """CPU seconds an idle cluster started under ``settings`` (in place of
    ``QUIET_DIAGNOSTICS``) uses over ``seconds``."""
    quiet = dask_cluster.QUIET_DIAGNOSTICS
    dask_cluster.QUIET_DIAGNOSTICS = settings
    try:
        cluster = dask_cluster.local_cluster(workers)
    finally:
        dask_cluster.QUIET_DIAGNOSTICS = quiet
    try:
        time.sleep(5)
        start, t0 = cpu_seconds(), time.perf_counter()
        time.sleep(seconds)
        return (cpu_seconds() - start) * seconds / (time.perf_counter() - t0)
    finally:
        cluster.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    kinds = {"Dask's defaults": DASK_DEFAULTS, "quietened": dict(dask_cluster.QUIET_DIAGNOSTICS)}
    got = {k: [] for k in kinds}
    for _ in range(a.rounds):
        for name, settings in kinds.items():
            got[name].append(idle_cost(settings, a.workers, a.seconds))
    print(f"| diagnostics | CPU s per {a.seconds:g} s idle, {a.workers} workers, each round |")
    print("|---|---|")
    for name, values in got.items():
        print(f"| {name} | {' / '.join(f'{v:.2f}' for v in values)} |")


if __name__ == "__main__":
    main()
