"""Where the Z*-step's column blocks run: in this process, or as Dask tasks.

Every column block of the Z*-step (:func:`rmsc.solver.threshold_block`) depends
only on the per-view factors, which are constant during a solve, and on that
block's columns of QW, Zref and the thresholds. A runner therefore needs two
operations: ``share`` the constant factors once per solve, and ``map`` the
block function over the blocks of one iteration.

* :class:`LocalBlocks` runs the blocks one after another (the default).
* :class:`DaskBlocks` sends the factors to every worker of a
  ``dask.distributed`` cluster once, then runs each block as a task.

Dask is an optional dependency (``pip install rmsc[dask]``).
"""

from __future__ import annotations

#: Names accepted by :func:`get_runner` (and RMSC's ``backend``).
BACKENDS = ("local", "dask")


class LocalBlocks:
    """Runs column blocks one after another in this process."""

    def share(self, stack):
        """Make the per-solve constants available to every block; here, as they are."""
        return stack

    def map(self, fn, shared, arguments):
        """``[fn(shared, *args) for args in arguments]``."""
        return [fn(shared, *args) for args in arguments]


class DaskBlocks:
    """Runs column blocks as tasks on a ``dask.distributed`` cluster.

    Parameters
    ----------
    client : dask.distributed.Client
        The cluster to use (a ``LocalCluster`` or a real one).
    """

    def __init__(self, client):
        self.client = client

    def share(self, stack):
        """Send the factors to every worker once; returns a future for them."""
        return self.client.scatter(stack, broadcast=True, hash=False)

    def map(self, fn, shared, arguments):
        """Run ``fn(shared, *args)`` for every block as a task; results in block order."""
        futures = [self.client.submit(fn, shared, *args, pure=False) for args in arguments]
        return self.client.gather(futures)


def get_runner(backend="local"):
    """The runner for a backend name.

    Parameters
    ----------
    backend : {"local", "dask"}
        ``"dask"`` uses the current ``dask.distributed`` client (the one made
        last by ``Client(...)`` in this process), so point it at a cluster
        with ``Client("tcp://scheduler:8786")`` before fitting.

    Returns
    -------
    LocalBlocks or DaskBlocks
    """
    if backend == "local":
        return LocalBlocks()
    if backend != "dask":
        raise ValueError(
            f"backend must be one of {', '.join(map(repr, BACKENDS))}; got {backend!r}."
        )
    try:
        from distributed import get_client
    except ImportError:
        raise ValueError(
            "backend='dask' needs Dask's distributed scheduler, which is not installed: "
            "pip install 'rmsc[dask]'."
        ) from None
    try:
        client = get_client()
    except ValueError:
        raise ValueError(
            "backend='dask' needs a running Dask client, and there is none in this process. "
            "Start one first: `from dask.distributed import Client; client = Client()` for a "
            "local cluster, or Client('tcp://scheduler-host:8786') for a real one."
        ) from None
    return DaskBlocks(client)
