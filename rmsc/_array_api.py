"""Array-namespace primitives for the array-API (device) path.

The device path (:mod:`rmsc.device`, :mod:`rmsc.solver._dense`, :mod:`rmsc.device_spectral`)
is written against the Python array API standard through ``array_api_compat`` (the small
package scikit-learn and scipy use), so that the same code runs on torch, CuPy and
``array_api_strict`` arrays. The helpers here are the few things the standard leaves out
or that need one line per library: the namespace of some arrays (NumPy itself for NumPy
input, so that the NumPy path keeps calling NumPy), the one explicit copy to the host,
zeroing a diagonal in place, and a median.

``array_api_compat`` is imported from its own package when installed (a dependency of
rmsc), else from the copy scikit-learn ships (``sklearn.externals.array_api_compat``),
the same package, so that rmsc imports where only scikit-learn is present (as on a GPU
machine that cannot install packages).
"""

from __future__ import annotations

import os

import numpy as np

try:  # pragma: no cover - which one depends on the environment
    import array_api_compat
except ImportError:  # pragma: no cover
    from sklearn.externals import array_api_compat

from .memory import available_bytes, parse_bytes

#: Environment variable that overrides the free device memory (bytes, or 2G, 512M, ...).
DEVICE_MEMORY_ENV = "RMSC_DEVICE_MEMORY"

#: Environment variable: "0" turns off the capture of the device iteration as one CUDA
#: graph (:func:`graph_capture`), to compare with eager launches or to rule it out.
GRAPHS_ENV = "RMSC_CUDA_GRAPHS"


def is_numpy(xp):
    """Whether ``xp`` is NumPy (itself or array_api_compat's wrapper of it)."""
    return xp is np or array_api_compat.is_numpy_namespace(xp)


def is_device_array(x):
    """An array-API array that is not a NumPy array (torch, CuPy, array_api_strict, ...).

    scipy.sparse matrices, lists and NumPy arrays are not.
    """
    return (not isinstance(x, np.ndarray) and not isinstance(x, (list, tuple))
            and array_api_compat.is_array_api_obj(x)
            and not array_api_compat.is_numpy_array(x))


def namespace(*arrays):
    """The array namespace of ``arrays``: ``numpy`` itself for NumPy arrays (and scalars),
    array_api_compat's namespace otherwise (one namespace for all, else TypeError)."""
    arrays = [a for a in arrays if is_device_array(a)]
    if not arrays:
        return np
    return array_api_compat.array_namespace(*arrays)


def device_of(x):
    """The device of an array (``"cpu"`` for NumPy)."""
    return array_api_compat.device(x)


def library(xp):
    """Short name of the library behind a namespace: numpy, torch, cupy, array_api_strict, ..."""
    if is_numpy(xp):
        return "numpy"
    if array_api_compat.is_torch_namespace(xp):
        return "torch"
    if array_api_compat.is_cupy_namespace(xp):
        return "cupy"
    return xp.__name__.split(".")[-1]


def graph_capture(xp, device):
    """How to capture a step as one CUDA graph on ``device``, or None where there is none.

    A torch CUDA device gives ``capture(body) -> replay``: ``body()`` is run once under
    ``torch.cuda.graph``, which records the device work it launches without running it,
    and ``replay()`` then runs all of it with one launch. ``body`` must read and write
    only arrays whose memory stays put (it may allocate: the graph keeps its own pool),
    and must not wait for the device. Other libraries and devices, or
    ``RMSC_CUDA_GRAPHS=0`` (:data:`GRAPHS_ENV`), give None: every step is launched as it
    runs.
    """
    if os.environ.get(GRAPHS_ENV, "1").strip() == "0" or library(xp) != "torch":
        return None
    if getattr(device, "type", None) != "cuda":
        return None
    import torch

    def capture(body):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            body()
        return graph.replay

    return capture


def to_numpy(x):
    """An explicit copy of an array to the host, as a NumPy array.

    The device path calls this only for the small results it hands to host code (the
    n x c spectral embedding for k-means, the per-sample emptying betas, and the views
    when samples are placed by their neighbours); never for n x n arrays. A
    non-array (float, list) goes through ``np.asarray``.
    """
    if isinstance(x, np.ndarray) or not array_api_compat.is_array_api_obj(x):
        return np.asarray(x)
    xp = array_api_compat.array_namespace(x)
    name = library(xp)
    if name == "torch":
        return x.detach().cpu().numpy()
    if name == "cupy":  # pragma: no cover - needs a GPU
        return x.get()
    if name == "array_api_strict":
        return np.asarray(xp.asarray(x, device=xp.Device("CPU_DEVICE")))
    return np.asarray(x)


def from_numpy(a, xp, device, dtype=None):
    """A NumPy array copied to ``device`` in namespace ``xp`` (``dtype`` a dtype of ``xp``)."""
    if is_numpy(xp):
        return np.asarray(a) if dtype is None else np.asarray(a, dtype=dtype)
    return xp.asarray(np.ascontiguousarray(a), dtype=dtype, device=device)


def zero_diagonal(A, xp):
    """A with its diagonal set to 0, in place where the library allows (torch, CuPy, NumPy).

    Other namespaces (array_api_strict) set it in place one diagonal block at a time
    (the standard has slice assignment, but no strided or diagonal one).
    """
    name = library(xp)
    if name == "torch":
        A.fill_diagonal_(0)
        return A
    if name == "numpy":
        np.fill_diagonal(A, 0)
        return A
    if name == "cupy":  # pragma: no cover - needs a GPU
        import cupy

        cupy.fill_diagonal(A, 0)
        return A
    n, block = A.shape[0], 256
    idx = xp.arange(min(n, block), device=device_of(A))
    zero = xp.zeros((), dtype=A.dtype, device=device_of(A))
    for a in range(0, n, block):
        b = min(a + block, n)
        eye = idx[:b - a, None] == idx[None, :b - a]
        A[a:b, a:b] = xp.where(eye, zero, A[a:b, a:b])
    return A


#: Entries of the row blocks in which the device path passes over an n x n array where a
#: temporary of the whole array would break the memory rule (:func:`rmsc.solver.
#: dense_form_bytes` counts a few such blocks): the Z*-step's thresholding, the l1 norm,
#: :func:`count_nonzero`, the connected pieces, the anchors' submatrix.
BLOCK_ENTRIES = 2**24


def row_blocks(n_rows, n_cols):
    """``(start, stop)`` of the row blocks of an n_rows x n_cols array: at most
    :data:`BLOCK_ENTRIES` entries each (one row at least)."""
    rows = max(1, BLOCK_ENTRIES // max(n_cols, 1))
    return [(a, min(a + rows, n_rows)) for a in range(0, n_rows, rows)]


def count_nonzero(x):
    """Nonzero entries of a sparse matrix, NumPy array or device array, as an int.

    A 2-D device array is counted a block of rows at a time: torch's CUDA
    ``count_nonzero`` is ``(x != 0).sum()``, a bool copy of x summed through an int64
    copy (9 bytes an entry), which beside a float32 n x n consensus took a device fit over
    its memory rule (docs/device.md, "The memory rule"). Blocks of :data:`BLOCK_ENTRIES`
    bound that copy; one wait.
    """
    if hasattr(x, "nnz"):
        return int(x.nnz)
    xp = namespace(x)
    if xp is np or x.ndim != 2:
        return int(xp.count_nonzero(x))
    total = None
    for a, b in row_blocks(*x.shape):
        part = xp.count_nonzero(x[a:b, :])
        total = part if total is None else total + part
    return int(total) if total is not None else 0


def median(x, xp):
    """The median of a 1-D array, as ``np.median`` (the mean of the two middle values for
    an even length)."""
    s = xp.sort(x)
    n = s.shape[0]
    if n % 2:
        return s[n // 2]
    return (s[n // 2 - 1] + s[n // 2]) / 2


def describe(x):
    """Where an array lives, in words: ``"cuda:0 (torch)"``, ``"cpu (NumPy)"``."""
    if not is_device_array(x):
        return "cpu (NumPy)"
    return f"{device_of(x)} ({library(namespace(x))})"


def free_bytes(xp, device):
    """Free memory on ``device`` for new arrays, in bytes (None: unknown).

    ``RMSC_DEVICE_MEMORY`` when set; a CUDA device's free memory (plus what torch's or
    CuPy's allocator holds unused); the host's available memory (:func:`rmsc.memory.
    available_bytes`) for CPU devices and array_api_strict.
    """
    env = os.environ.get(DEVICE_MEMORY_ENV)
    if env:
        return parse_bytes(env)
    name = library(xp)
    if name == "torch" and getattr(device, "type", None) == "cuda":  # pragma: no cover - GPU
        import torch

        free, _ = torch.cuda.mem_get_info(device)
        return int(free + torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device))
    if name == "cupy":  # pragma: no cover - needs a GPU
        import cupy

        with cupy.cuda.Device(device.id):
            free, _ = cupy.cuda.runtime.memGetInfo()
            pool = cupy.get_default_memory_pool()
            return int(free + pool.total_bytes() - pool.used_bytes())
    return available_bytes()
