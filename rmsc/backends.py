"""Where the Z*-step's column blocks run: in this process, or as Dask tasks.

Every column block of the Z*-step (:func:`rmsc.solver.threshold_block`) depends
only on the per-view factors, which are constant during a solve, and on that
block's columns of QW, Zref and the thresholds. A runner therefore needs two
operations: ``share`` the constant factors once per solve, and ``map`` the
block function over the blocks of one iteration.

* :class:`LocalBlocks` runs the blocks on a pool of threads in this process,
  one per core, each with a single-threaded BLAS (the default).
* :class:`DaskBlocks` sends the factors to every worker of a
  ``dask.distributed`` cluster once, then runs each block as a task.

A runner is a context manager: :func:`rmsc.solver.solve` enters it for the
duration of a solve. Entering a :class:`LocalBlocks` limits BLAS to one thread
for the whole process until it exits: the parallelism comes from the blocks
instead. This matters on a busy machine. A multi-threaded BLAS call has to
wake its helper threads, and when the other cores are taken every such call
waits for the scheduler (docs/measurements.md, "One BLAS thread per call").

Dask is an optional dependency (``pip install rmsc[dask]``).
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

from threadpoolctl import threadpool_limits

#: Names accepted by :func:`get_runner` (and RMSC's ``backend``).
BACKENDS = ("local", "dask")


def one_thread_per_call(fit):
    """Decorator: run an estimator's ``fit`` with BLAS and OpenMP at one thread per call.

    Every method here spends its time in many small and medium calls (per-view
    solves, eigensolvers, k-means restarts), where a multi-threaded library
    gains little on an idle machine and loses badly on a busy one (each call
    waits for its helper threads to be scheduled): as fast or faster for every
    method, idle or busy (docs/measurements.md, "One BLAS thread per call").
    Where parallelism pays, it comes from :class:`LocalBlocks` instead.
    """

    @functools.wraps(fit)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1):
            return fit(*args, **kwargs)

    return wrapper


def available_cores():
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: Environment variable: how many threads a fit's blocks run on (default: every core this
#: process may run on). Processes that share a machine and fit side by side each take
#: their share (the dashboard's Compare and Sensitivity parts on a LocalCluster), instead
#: of every fit starting a thread per core and all of them waiting for each other.
FIT_THREADS_ENV = "RMSC_FIT_THREADS"


def fit_threads():
    """Threads a :class:`LocalBlocks` runs its blocks on: :data:`FIT_THREADS_ENV` when set to a
    positive number, else :func:`available_cores`."""
    try:
        n = int(os.environ.get(FIT_THREADS_ENV, ""))
    except ValueError:
        n = 0
    return n if n > 0 else available_cores()


class LocalBlocks:
    """Runs column blocks in this process, on ``n_threads`` threads.

    Parameters
    ----------
    n_threads : int or None, default=None
        Threads running blocks at the same time; None: :func:`fit_threads` (every core
        available to the process, unless :data:`FIT_THREADS_ENV` says fewer).
    blas_threads : int or None, default=1
        Threads per BLAS call inside the ``with`` block (one, so that the
        blocks do not compete with BLAS's own threads); None leaves BLAS as
        it is.
    """

    def __init__(self, n_threads=None, blas_threads=1):
        self.n_threads = fit_threads() if n_threads is None else int(n_threads)
        self.blas_threads = blas_threads
        self._pool = None
        self._limits = None

    def __enter__(self):
        if self.blas_threads is not None:
            self._limits = threadpool_limits(limits=self.blas_threads, user_api="blas")
        if self.n_threads > 1:
            self._pool = ThreadPoolExecutor(self.n_threads, thread_name_prefix="rmsc-block")
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._limits is not None:
            self._limits.restore_original_limits()
            self._limits = None
        return False

    def share(self, stack):
        """Make the per-solve constants available to every block; here, as they are."""
        return stack

    def map(self, fn, shared, arguments):
        """``[fn(shared, *args) for args in arguments]``, on the pool when there is one."""
        if self._pool is None or len(arguments) < 2:
            return [fn(shared, *args) for args in arguments]
        return list(self._pool.map(lambda args: fn(shared, *args), arguments))


class DaskBlocks:
    """Runs column blocks as tasks on a ``dask.distributed`` cluster.

    Parameters
    ----------
    client : dask.distributed.Client
        The cluster to use (a ``LocalCluster`` or a real one).
    """

    def __init__(self, client):
        self.client = client

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

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
