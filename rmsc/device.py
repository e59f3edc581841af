"""Where a fit runs: the host (NumPy, scipy.sparse) or an accelerator (torch, CuPy).

RMSC follows scikit-learn's array API convention: the inputs' namespace and device decide
where the fit runs. NumPy arrays and scipy.sparse matrices take the CPU path, as always.
Arrays of another array-API library (torch, CuPy, array_api_strict) run the dense form of
the solver and the spectral step on their own device, when scikit-learn's array API
dispatch is on::

    # SCIPY_ARRAY_API=1 must be set before scipy is first imported (scikit-learn checks it)
    import sklearn, torch, rmsc
    views = [torch.as_tensor(X, device="cuda", dtype=torch.float32) for X in Xs]
    with sklearn.config_context(array_api_dispatch=True):
        model = rmsc.RMSC(n_clusters=10).fit(views)

:func:`dispatch` enters that context and sets ``SCIPY_ARRAY_API=1`` for its duration
when it is not set (the device path hands no device array to scipy, so scipy's own array
API support, which the variable turns on at scipy's import, is not needed for it; the CLI
and the dashboard use this). :func:`resolve_device` says which device to use (``"auto"``:
a CUDA GPU through torch or CuPy when one is present, else the CPU), :func:`to_device`
moves NumPy views there, :func:`fitted_to_host` turns a device fit's attributes into what
a CPU fit has. docs/device.md has the whole story: what runs where, which fitted
attributes are host arrays, the memory rule.

The memory rule (:func:`check_device_fits`): a device fit holds at most
:data:`rmsc.solver.DENSE_COPIES` (3) n x n arrays at once, in the input's precision, and
refuses before it starts, with the memory it would need and the largest n that fits,
when the device has less free (``RMSC_DEVICE_MEMORY`` overrides the free memory read
from the device, e.g. ``"20G"`` on a shared GPU).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ._array_api import (  # noqa: F401 (describe, free_bytes and the variable: also here)
    DEVICE_MEMORY_ENV,
    describe,
    device_of,
    free_bytes,
    from_numpy,
    is_device_array,
    library,
    namespace,
    to_numpy,
)
from .memory import format_bytes
from .rmsc import RMSC
from .solver._dense import check_device_fits  # noqa: F401 (also here)

#: Environment variable naming the device of the dashboard's fits (``auto`` by default).
DEVICE_ENV = "RMSC_DEVICE"

#: What ``--device`` and ``RMSC_DEVICE`` accept (``cuda:N`` too).
DEVICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class DeviceChoice:
    """The device a fit should run on.

    Attributes
    ----------
    name : str
        ``"cpu"`` (the NumPy path) or ``"cuda:N"``.
    library : str or None
        ``"torch"`` or ``"cupy"`` for a GPU; None for the CPU.
    description : str
        For people: e.g. ``"NVIDIA H100 80GB HBM3 (cuda:0 through torch 2.11.0, 79.2 GB)"``
        or ``"CPU (NumPy)"``.
    reason : str
        Why this device (e.g. why ``"auto"`` fell back to the CPU); empty when asked for.
    """

    name: str
    library: str | None
    description: str
    reason: str = ""

    @property
    def on_device(self):
        """Whether fits run on arrays of a device library (a GPU), not the NumPy path."""
        return self.library is not None


def _cpu(reason=""):
    return DeviceChoice("cpu", None, "CPU (NumPy)", reason)


def _torch_gpu(index):
    try:
        import torch
    except ImportError:
        return None, "torch is not installed"
    if not torch.cuda.is_available():
        return None, f"torch {torch.__version__} sees no CUDA GPU"
    count = torch.cuda.device_count()
    if index >= count:
        return None, f"torch sees {count} CUDA GPU(s), no cuda:{index}"
    props = torch.cuda.get_device_properties(index)
    return DeviceChoice(f"cuda:{index}", "torch",
                        f"{props.name} (cuda:{index} through torch {torch.__version__}, "
                        f"{format_bytes(props.total_memory)})"), ""


def _cupy_gpu(index):
    try:
        import cupy
    except ImportError:
        return None, "CuPy is not installed"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no driver, no device
        return None, f"CuPy sees no CUDA GPU ({exc})"
    if index >= count:
        return None, f"CuPy sees {count} CUDA GPU(s), no cuda:{index}"
    props = cupy.cuda.runtime.getDeviceProperties(index)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    return DeviceChoice(f"cuda:{index}", "cupy",
                        f"{name} (cuda:{index} through CuPy {cupy.__version__}, "
                        f"{format_bytes(props['totalGlobalMem'])})"), ""


def resolve_device(spec="auto"):
    """Which device a fit should use.

    Parameters
    ----------
    spec : {"auto", "cpu", "cuda", "cuda:N"} or None
        ``"auto"`` (and None): a CUDA GPU when torch (first) or CuPy sees one, else the
        CPU. ``"cuda"``: that GPU, or a ValueError saying why there is none.
        ``"cpu"``: the NumPy path.

    Returns
    -------
    DeviceChoice
    """
    text = "auto" if spec is None else str(spec).strip().lower()
    if text in ("cpu", "numpy", "host"):
        return _cpu()
    if text == "auto" or text == "gpu" or text.startswith("cuda"):
        index = 0
        if text.startswith("cuda:"):
            try:
                index = int(text.split(":", 1)[1])
            except ValueError:
                raise ValueError(f"device {spec!r}: write cuda:N with N a GPU number, "
                                 "e.g. cuda:0.") from None
        why = []
        for probe in (_torch_gpu, _cupy_gpu):
            choice, reason = probe(index)
            if choice is not None:
                return choice
            why.append(reason)
        reason = "; ".join(why)
        if text == "auto":
            return _cpu(f"no GPU found ({reason})")
        raise ValueError(f"device {spec!r} asks for a CUDA GPU, but none can be used: {reason}. "
                         "Use --device cpu (or auto), or install torch or CuPy with CUDA.")
    raise ValueError(f"device must be one of {', '.join(DEVICES)} (or cuda:N); got {spec!r}.")


def device_from_env():
    """:func:`resolve_device` of ``RMSC_DEVICE`` (``auto`` when unset)."""
    return resolve_device(os.environ.get(DEVICE_ENV) or "auto")


def to_device(views, choice, dtype="float32"):
    """Copy host views (NumPy or scipy.sparse, made dense) to the chosen device.

    Parameters
    ----------
    views : list of ndarray or sparse matrices
    choice : DeviceChoice
        The CPU returns the views unchanged.
    dtype : {"float32", "float64"}
        float32 (the default) runs the n x n arrays in float32, as the CPU path's
        default ``precision="auto"`` does while Z* is dense; float64 for the paper form
        to round-off.

    Returns
    -------
    list of arrays of the device's library
    """
    if not choice.on_device:
        return list(views)
    dense = [X.toarray() if sp.issparse(X) else np.asarray(X) for X in views]
    if choice.library == "array_api_strict":  # its simulated devices, for tests
        import array_api_strict as xp

        return [xp.asarray(X, dtype=getattr(xp, dtype), device=xp.Device(choice.name))
                for X in dense]
    if choice.library == "torch":
        import torch

        return [torch.as_tensor(np.ascontiguousarray(X), dtype=getattr(torch, dtype),
                                device=choice.name) for X in dense]
    import cupy  # pragma: no cover - needs a GPU

    with cupy.cuda.Device(int(choice.name.split(":")[1])):  # pragma: no cover
        return [cupy.asarray(X, dtype=dtype) for X in dense]


@contextlib.contextmanager
def dispatch():
    """scikit-learn's array API dispatch, on for the duration (what the device path follows).

    scikit-learn refuses to turn dispatch on unless ``SCIPY_ARRAY_API=1``; when it is
    unset, it is set here for the duration and restored after. (The variable turns on
    scipy's own array API support when scipy is first imported, which scikit-learn's
    own array-API estimators need; RMSC's device path hands scipy no device array.)
    """
    import sklearn

    before = os.environ.get("SCIPY_ARRAY_API")
    os.environ["SCIPY_ARRAY_API"] = "1"
    try:
        with sklearn.config_context(array_api_dispatch=True):
            yield
    finally:
        if before is None:
            os.environ.pop("SCIPY_ARRAY_API", None)
        else:
            os.environ["SCIPY_ARRAY_API"] = before


def dispatch_enabled():
    """Whether scikit-learn's array API dispatch is on here."""
    import sklearn

    return bool(sklearn.get_config().get("array_api_dispatch", False))


def fit_on(estimator, views, device="auto", *, dtype="float32", report=None):
    """Fit ``estimator`` to host ``views`` on ``device``; what the CLI and the dashboard call.

    Parameters
    ----------
    estimator : estimator with ``fit(Xs)``
        Only :class:`rmsc.RMSC` (RMSC, RMSC-WV) runs on a GPU; with ``"auto"`` any other
        runs on the CPU, with an explicit GPU it is refused.
    views : list of ndarray or sparse matrices
    device : str or DeviceChoice
        As for :func:`resolve_device` (``"auto"``: a GPU when present).
    dtype : {"float32", "float64"}
        Of the device copies (:func:`to_device`).
    report : callable(DeviceChoice) or None
        Called with the device chosen, before the fit (e.g. to show it).

    Returns
    -------
    choice : DeviceChoice
        Where it ran. A GPU fit's attributes are brought to the host
        (:func:`fitted_to_host`), so that the fitted estimator reads as a CPU fit.
    """
    choice = device if isinstance(device, DeviceChoice) else resolve_device(device)
    if choice.on_device and not isinstance(estimator, RMSC):
        if isinstance(device, str) and device.strip().lower() == "auto":
            choice = _cpu(f"{type(estimator).__name__} runs on the CPU only")
        else:
            raise ValueError(f"device {device}: only RMSC and RMSC-WV run on a GPU; "
                             f"{type(estimator).__name__} runs on the CPU (device cpu).")
    if report is not None:
        report(choice)
    if not choice.on_device:
        estimator.fit(views)
        return choice
    with dispatch():
        estimator.fit(to_device(views, choice, dtype))
    fitted_to_host(estimator)
    return choice


def fitted_to_host(model):
    """Turn a device fit's attributes into what a CPU fit has, in place; returns ``model``.

    ``consensus_`` and ``affinity_matrix_`` become scipy CSR matrices (float64);
    ``weights_`` and ``view_weights_`` NumPy float64 arrays. A CPU fit is returned as it is.
    (This moves two n x n arrays to the host: for the dashboard and the CLI, which show
    and save them; keep a device fit on the device to go on computing there.)
    """
    if is_device_array(getattr(model, "weights_", None)):
        for name in ("consensus_", "affinity_matrix_"):
            value = getattr(model, name, None)
            if value is not None and is_device_array(value):
                setattr(model, name, sp.csr_matrix(to_numpy(value).astype(np.float64)))
        for name in ("weights_", "view_weights_"):
            setattr(model, name, to_numpy(getattr(model, name)).astype(np.float64))
    return model


__all__ = [
    "DEVICES",
    "DEVICE_ENV",
    "DEVICE_MEMORY_ENV",
    "DeviceChoice",
    "check_device_fits",
    "describe",
    "device_from_env",
    "dispatch",
    "dispatch_enabled",
    "fit_on",
    "fitted_to_host",
    "free_bytes",
    "from_numpy",
    "resolve_device",
    "to_device",
    "to_numpy",
]
