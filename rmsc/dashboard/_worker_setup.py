"""What the dashboard's LocalCluster sets up in each worker process (imports distributed)."""

from __future__ import annotations

import logging
import os

from distributed.diagnostics.plugin import WorkerPlugin

from ..dask_cluster import reuse_heap

log = logging.getLogger("rmsc.dashboard")


class WorkerSetup(WorkerPlugin):
    """Sets up every worker process, the ones the nanny restarts included: its niceness,
    and the reuse of its heap before any task thread starts
    (:func:`rmsc.dask_cluster.reuse_heap`; the task thread then allocates from
    glibc's main arena, which trims fully)."""

    def __init__(self, niceness):
        self.niceness = int(niceness)

    def setup(self, worker):
        reuse_heap()
        try:
            os.setpriority(os.PRIO_PROCESS, 0, self.niceness)
        except (AttributeError, OSError):  # not POSIX, or not allowed: run at the default
            log.debug("worker niceness not set", exc_info=True)
