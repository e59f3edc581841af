"""What the dashboard's LocalCluster sets up in each worker process (imports distributed)."""

from __future__ import annotations

import logging
import os

from distributed.diagnostics.plugin import WorkerPlugin

log = logging.getLogger("rmsc.dashboard")


class Niceness(WorkerPlugin):
    """Sets the niceness of every worker process, the ones the nanny restarts included."""

    def __init__(self, niceness):
        self.niceness = int(niceness)

    def setup(self, worker):
        try:
            os.setpriority(os.PRIO_PROCESS, 0, self.niceness)
        except (AttributeError, OSError):  # not POSIX, or not allowed: run at the default
            log.debug("worker niceness not set", exc_info=True)
