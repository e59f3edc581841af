"""RMSC on an accelerator: Digit fit times by part, agreement with the CPU, and a size sweep.

    python benchmarks/bench_device.py                 # on the GPU torch (or CuPy) sees
    python benchmarks/bench_device.py --smoke         # seconds, on CPU torch or array_api_strict
    python benchmarks/bench_device.py --budget 240 --sizes 2000 5000 10000 20000 50000
    python benchmarks/bench_device.py --array-library torch-cpu   # a named array library

One run prints, for whatever device is found (the device named in the header):

1. Digit (n = 2000, 6 views), the default ``RMSC(n_clusters=10, random_state=0)``, in
   float32 and float64: the whole fit (spectral step and 20 k-means runs included; the
   second of two fits, the first warms the device up), the iterations' own time (from
   the callback's clock, the per-iteration mean), the time of the iteration's two dense
   products alone on that device (R^T QW and R Z*, the same shapes and dtype), and their
   ratio (the target: an iteration within 2x its products). Agreement with the CPU path
   (NumPy, this machine's cores), the same parameters: float32 against the CPU default
   (its "auto" precision: float32 while Z* is dense), float64 against the CPU at
   precision="float64": the labels' ARI, max |dZ*|, and whether the device objective
   never increased.
2. Where a Digit fit's time goes: a third fit with the functions RMSC.fit calls for each
   part wrapped, the device synchronised at both ends of each (so a part's time includes
   the device work it queued), each part's own time: preparing the views (checks,
   unit-L2 normalisation, Gram factors), the solver's setup (Woodbury factors, the
   emptying betas and beta, the first objective), the iterations, the affinity and its
   checks (isolated samples, nonzeros, connected pieces), the eigenvectors (and the
   Krylov restarts they took), placing weak samples (neighbour search on the host),
   the k-means runs (host), copies to the host, and the rest.
   On a CUDA device the iteration is captured once as a CUDA graph and replayed
   (:meth:`rmsc.solver._dense.DenseForm.iterate`), the default.
3. The same Digit fit with the iteration launched op by op (``RMSC_CUDA_GRAPHS=0``)
   against captured, side by side in one run: whole fit, per iteration, and whether the
   two give the same iterates (iterations, max |dZ*|, labels' ARI).
4. Device calls per iteration (torch only): torch.profiler over 5 iterations against 3 of
   the same solve: torch calls, kernels launched (on a GPU; on the CPU, the calls that do
   work), and waits for the device (stream synchronisations; on the CPU, reads of device
   scalars and copies to the host); and the launch floor: the time of one small call
   queued back to back, times the kernels (an iteration cannot be faster than that,
   whatever its arithmetic; against the per-iteration time and the products above, it
   says whether 2x the products is reachable at that n with eager array-API calls).
5. A size sweep on synthetic data (10 clusters, 3 views of 80/100/120 features, float32):
   a default fit's whole time, iterations, per-iteration time against its two dense
   products (and their ratio), setup, eigenvectors and k-means, the device memory peak
   against the memory rule (rmsc.solver.dense_form_bytes), up to the largest n the
   device holds (the rule refuses larger ones before starting: printed, and the sweep
   goes on).

Every step is guarded: a failure or an out-of-memory prints one line and the script goes
on; ``--budget`` seconds (default 240) bound the whole run (a step that would start after
it is skipped, said so). ``--smoke`` runs the same steps on a 300-sample Digit whose fits
stop at :data:`SMOKE_MAX_ITER` iterations (the device against the CPU at the same stop), and
a sweep of n = 300 and 600. The GPU machine of this project needs only numpy, scipy,
scikit-learn, torch and the repository (benchmarks/device_run.sh carries the rest).
"""

from __future__ import annotations

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import collections
import contextlib
import functools
import importlib
import os
import sys
import time
import traceback
import warnings

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before scipy: scikit-learn's dispatch checks it

import numpy as np  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

import rmsc  # noqa: E402
from rmsc import datasets, solver  # noqa: E402
from rmsc._array_api import GRAPHS_ENV, to_numpy  # noqa: E402
from rmsc.device import dispatch  # noqa: E402
from rmsc.memory import format_bytes  # noqa: E402

START = time.perf_counter()
#: Iterations of the smoke run's Digit fits (on the device and on the CPU alike).
SMOKE_MAX_ITER = 15


class ArrayLibrary:
    """The array library and device the benchmark runs on."""

    def __init__(self, name):
        self.name = name
        if name in ("torch", "torch-cpu"):
            import torch

            self.torch = torch
            self.device = "cuda" if name == "torch" else "cpu"
            self.label = (f"{torch.cuda.get_device_name(0)} (torch {torch.__version__})"
                          if self.device == "cuda" else f"CPU torch {torch.__version__}")
        elif name == "cupy":
            import cupy

            self.cupy = cupy
            props = cupy.cuda.runtime.getDeviceProperties(0)
            self.label = f"{props['name'].decode()} (CuPy {cupy.__version__})"
        else:
            import array_api_strict as xps

            self.xps = xps
            self.label = "array_api_strict Device('device1') (simulated, on the CPU)"

    def put(self, X, dtype):
        X = np.ascontiguousarray(X)
        if self.name.startswith("torch"):
            return self.torch.as_tensor(X, dtype=getattr(self.torch, dtype), device=self.device)
        if self.name == "cupy":
            return self.cupy.asarray(X, dtype=dtype)
        return self.xps.asarray(X, dtype=getattr(self.xps, dtype),
                                device=self.xps.Device("device1"))

    def sync(self):
        if self.name == "torch":
            self.torch.cuda.synchronize()
        elif self.name == "cupy":
            self.cupy.cuda.Device().synchronize()

    def reset_peak(self):
        if self.name == "torch":
            self.torch.cuda.empty_cache()
            self.torch.cuda.reset_peak_memory_stats()
        elif self.name == "cupy":
            self.cupy.get_default_memory_pool().free_all_blocks()

    def peak(self):
        if self.name == "torch":
            return self.torch.cuda.max_memory_allocated()
        return None

    def free(self):
        if self.name == "torch":
            self.torch.cuda.empty_cache()
        elif self.name == "cupy":
            self.cupy.get_default_memory_pool().free_all_blocks()


def pick_array_library(asked, smoke):
    if asked:
        return ArrayLibrary(asked)
    try:
        import torch

        if torch.cuda.is_available():
            return ArrayLibrary("torch")
    except ImportError:
        pass
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return ArrayLibrary("cupy")
    except Exception:
        pass
    if not smoke:
        print("No GPU found (torch with CUDA or CuPy); running the smoke sizes on the CPU.")
    try:
        import torch  # noqa: F401

        return ArrayLibrary("torch-cpu")
    except ImportError:
        return ArrayLibrary("array_api_strict")


def left(budget):
    return budget - (time.perf_counter() - START)


def guarded(title, budget, need=0.0):
    """Decorator: run the step unless the budget is spent; print any failure and go on."""

    def wrap(step):
        @functools.wraps(step)
        def run(*args, **kwargs):
            if left(budget) < need:
                print(f"[skipped: {title}: {left(budget):.0f} s of the budget left]")
                return None
            try:
                return step(*args, **kwargs)
            except Exception as exc:  # an OOM or anything else: one line, go on
                kind = type(exc).__name__
                print(f"[failed: {title}: {kind}: {' '.join(str(exc).split())[:400]}]")
                if os.environ.get("BENCH_TRACEBACK"):
                    traceback.print_exc()
                return None

        return run

    return wrap


# ---------------------------------------------------------------------------------------
# Timing a fit, whole and by part


class Parts:
    """A fit's time by part: the functions RMSC.fit calls for each part are wrapped (the
    device synchronised at both ends of each, so a part holds the device work it queued)
    and each keeps its own time, without the wrapped calls inside it.

    The solver's time is split at the first Z*-step (synchronised there): before it, the
    setup (Woodbury factors, emptying betas, beta, the first objective); after it, the
    iterations, to the last callback.
    """

    #: (module, function, part); None: handled by name below.
    PATCHES = [
        ("rmsc.rmsc", "check_views", "prepare"),
        ("rmsc.rmsc", "normalize_l2", "prepare"),
        ("rmsc.solver", "gram_factors", "prepare"),
        ("rmsc.solver", "solve", "solver"),
        ("rmsc.solver._dense", "zstar_step_dense", None),
        ("rmsc.rmsc", "count_nonzero", "affinity"),
        ("rmsc.rmsc", "affinity_from_coefficients", "affinity"),
        ("rmsc.rmsc", "empty_rows", "affinity"),
        ("rmsc.rmsc", "count_pieces", "affinity"),
        ("rmsc.rmsc", "place_weak_samples", "weak samples"),
        ("rmsc.placement", "spectral_embedding", "eigenvectors"),
        ("rmsc.spectral", "spectral_embedding", "eigenvectors"),
        ("rmsc.device_spectral", "leading_eigenvectors", None),
        ("rmsc.rmsc", "kmeans_runs", "k-means"),
        ("rmsc.spectral", "kmeans_runs", "k-means"),
        ("rmsc.device_spectral", "to_numpy", "to host"),
        ("rmsc.placement", "to_numpy", "to host"),
    ]

    COLUMNS = ("prepare", "setup", "iterations", "affinity", "eigenvectors", "weak samples",
               "k-means", "to host", "rest")

    def __init__(self, library):
        self.sync = library.sync
        self.own = collections.defaultdict(float)
        self.stack = []
        self.first_zstar = None
        self.krylov = []
        self.saved = []

    def _timed(self, f, part):
        @functools.wraps(f)
        def run(*args, **kwargs):
            self.sync()
            t0 = time.perf_counter()
            self.stack.append(0.0)
            try:
                return f(*args, **kwargs)
            finally:
                self.sync()
                elapsed = time.perf_counter() - t0
                inner = self.stack.pop()
                self.own[part] += elapsed - inner
                if self.stack:
                    self.stack[-1] += elapsed

        return run

    def _first_zstar(self, f):
        @functools.wraps(f)
        def run(*args, **kwargs):
            if self.first_zstar is None:
                self.sync()
                self.first_zstar = time.perf_counter()
            return f(*args, **kwargs)

        return run

    def _krylov(self, f):
        @functools.wraps(f)
        def run(*args, **kwargs):
            out = f(*args, **kwargs)
            self.krylov.append(out[2])
            return out

        return run

    def __enter__(self):
        for module, name, part in self.PATCHES:
            mod = importlib.import_module(module)
            f = getattr(mod, name)
            self.saved.append((mod, name, f))
            if name == "zstar_step_dense":
                wrapped = self._first_zstar(f)
            elif name == "leading_eigenvectors":
                wrapped = self._krylov(f)
            else:
                wrapped = self._timed(f, part)
            setattr(mod, name, wrapped)
        return self

    def __exit__(self, *exc):
        for mod, name, f in reversed(self.saved):
            setattr(mod, name, f)
        self.saved = []

    def table(self, whole, last_callback):
        """The parts in seconds (COLUMNS order), their sum being ``whole``."""
        iterations = (last_callback - self.first_zstar
                      if last_callback is not None and self.first_zstar is not None else 0.0)
        parts = dict(self.own)
        parts["iterations"] = iterations
        parts["setup"] = parts.pop("solver", 0.0) - iterations
        parts["rest"] = whole - sum(parts.get(c, 0.0) for c in self.COLUMNS if c != "rest")
        return [parts.get(c, 0.0) for c in self.COLUMNS]


def timed_fit(views, library, parts=False, **params):
    """(model, whole seconds, per-iteration seconds, Parts or None) of one default fit on
    device views (``parts``: timed by part, see :class:`Parts`)."""
    stamps = []

    def callback(it, f, P):
        stamps.append(time.perf_counter())  # f is a host float: the device is synced

    timer = Parts(library) if parts else None
    library.sync()
    t0 = time.perf_counter()
    with dispatch():
        if timer is not None:
            with timer:
                model = rmsc.RMSC(random_state=0, callback=callback, **params).fit(views)
        else:
            model = rmsc.RMSC(random_state=0, callback=callback, **params).fit(views)
    library.sync()
    whole = time.perf_counter() - t0
    per_iter = (np.diff(stamps).mean() if len(stamps) > 1 else model.fit_time_ / model.n_iter_)
    if timer is not None:
        timer.whole = whole
        timer.parts = timer.table(whole, stamps[-1] if stamps else None)
    return model, whole, per_iter, timer


def product_time(n, rows, library, dtype, repeats=5):
    """Seconds of one iteration's two dense products (R^T QW and R Z*), this device."""
    rng = np.random.default_rng(0)
    R = library.put(rng.standard_normal((rows, n), dtype=np.float32), dtype)
    QW = library.put(rng.standard_normal((rows, n), dtype=np.float32), dtype)
    out = []
    for _ in range(repeats + 1):
        library.sync()
        t0 = time.perf_counter()
        Z = R.T @ QW
        RZ = R @ Z
        library.sync()
        out.append(time.perf_counter() - t0)
        del Z, RZ
    del R, QW
    library.free()
    return min(out[1:])


def cpu_fit(views, precision, **params):
    original = solver.solve
    solver.solve = functools.partial(original, precision=precision)
    try:
        t0 = time.perf_counter()
        model = rmsc.RMSC(random_state=0, **params).fit(views)
        return model, time.perf_counter() - t0
    finally:
        solver.solve = original


def digit(n_subset):
    data = datasets.load_bundled("Digit")
    views, labels = [np.asarray(X) for X in data.views], np.asarray(data.labels)
    if n_subset:
        idx = np.sort(np.random.default_rng(0).choice(data.n_samples, n_subset, replace=False))
        views, labels = [X[idx] for X in views], labels[idx]
    return views, labels


def _ms(seconds):
    return f"{1e3 * seconds:.1f}"


# ---------------------------------------------------------------------------------------
# 1 and 2: Digit


def section_digit(library, budget, n_subset, cpu_models, fit):
    views, y = digit(n_subset)
    n = views[0].shape[0]
    print(f"\n## Digit (n = {n}, {len(views)} views), RMSC defaults, on {library.label}")
    print("| precision | whole fit (s) | iterations | per iteration (ms) | its dense products (ms) "
          "| ratio | spectral + k-means (s) | ACC (%) | ARI vs CPU | max abs dZ* | objective "
          "never up |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    timers = {}
    for dtype, precision in (("float32", "auto"), ("float64", "float64")):
        run = guarded(f"Digit {dtype}", budget, need=5)(_digit_row)
        timers[dtype] = run(views, y, library, dtype, precision, cpu_models, fit)
    print(f"\n### Where a Digit fit's time goes (ms; a third fit, the device synchronised at "
          f"each part's ends), on {library.label}")
    print("| precision | prepare views | solver setup | iterations | affinity + checks | "
          "eigenvectors (Krylov restarts) | weak samples | k-means (host) | to host | rest | "
          "whole |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for dtype, timer in timers.items():
        if timer is None:
            continue
        p = timer.parts
        restarts = ",".join(str(k["restarts"]) for k in timer.krylov) or "dense"
        print(f"| {dtype} | {_ms(p[0])} | {_ms(p[1])} | {_ms(p[2])} | {_ms(p[3])} | "
              f"{_ms(p[4])} ({restarts}) | {_ms(p[5])} | {_ms(p[6])} | {_ms(p[7])} | "
              f"{_ms(p[8])} | {_ms(timer.whole)} |", flush=True)


def _digit_row(views, y, library, dtype, precision, cpu_models, fit):
    dev = [library.put(X, dtype) for X in views]
    timed_fit(dev, library, **fit)  # warm-up: kernels, handles, allocator
    model, whole, per_iter, _ = timed_fit(dev, library, **fit)
    _, _, _, timer = timed_fit(dev, library, parts=True, **fit)
    n = views[0].shape[0]
    products = product_time(n, sum(min(X.shape[1], n) for X in views), library, dtype)
    if precision not in cpu_models:
        cpu_models[precision] = cpu_fit(views, precision, **fit)
    cpu, cpu_seconds = cpu_models[precision]
    dZ = np.abs(to_numpy(model.consensus_).astype(np.float64) - cpu.consensus_.toarray()).max()
    f = np.concatenate([[model.objective_init_], model.objective_])
    monotone = bool(np.all(np.diff(f) <= 1e-12 * np.abs(f[:-1])))
    acc = 100 * rmsc.evaluate(y, model.labels_)["acc"]
    print(f"| {dtype} | {whole:.3f} | {model.n_iter_} | {1e3 * per_iter:.2f} | "
          f"{1e3 * products:.2f} | {per_iter / products:.1f} | {model.spectral_time_:.3f} | "
          f"{acc:.2f} | {adjusted_rand_score(cpu.labels_, model.labels_):.4f} | {dZ:.2e} | "
          f"{'yes' if monotone else 'NO'} |", flush=True)
    print(f"  (CPU path, precision={precision}: {cpu_seconds:.2f} s on this machine's CPU)")
    return timer


# ---------------------------------------------------------------------------------------
# 3: the iteration captured as one CUDA graph, against launched


@contextlib.contextmanager
def graphs(on):
    """Fits inside capture the iteration (on) or launch it op by op (off)."""
    old = os.environ.get(GRAPHS_ENV)
    os.environ[GRAPHS_ENV] = "1" if on else "0"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(GRAPHS_ENV, None)
        else:
            os.environ[GRAPHS_ENV] = old


def section_graphs(library, budget, n_subset, fit):
    views, _ = digit(n_subset)
    print(f"\n### The Digit fit's iteration captured as one CUDA graph against launched op by "
          f"op (the second of two fits each, side by side), on {library.label}")
    print("| precision | iteration | whole fit (s) | iterations | per iteration (ms) | "
          "x launched (whole) | same iterations | max abs dZ* | ARI |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|")
    for dtype in ("float32", "float64"):
        guarded(f"graphs {dtype}", budget, need=5)(_graphs_rows)(views, library, dtype, fit)


def _graphs_rows(views, library, dtype, fit):
    dev = [library.put(X, dtype) for X in views]
    runs = {}
    for on in (False, True):
        with graphs(on):
            timed_fit(dev, library, **fit)
            runs[on] = timed_fit(dev, library, **fit)
    base = runs[False][0]
    for on, (model, whole, per_iter, _) in runs.items():
        dZ = np.abs(to_numpy(model.consensus_) - to_numpy(base.consensus_)).max()
        print(f"| {dtype} | {'captured' if on else 'launched'} | {whole:.3f} | "
              f"{model.n_iter_} | {1e3 * per_iter:.2f} | {whole / runs[False][1]:.2f} | "
              f"{'yes' if model.n_iter_ == base.n_iter_ else 'NO'} | {float(dZ):.2e} | "
              f"{adjusted_rand_score(base.labels_, model.labels_):.4f} |", flush=True)


# ---------------------------------------------------------------------------------------
# 4: device calls per iteration


#: CUDA runtime calls that make the host wait for the device.
WAITS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy")
VIEW_OPS = {"aten::unsqueeze", "aten::numpy_T", "aten::alias", "aten::detach",
            "aten::resolve_conj", "aten::resolve_neg", "aten::slice", "aten::select",
            "aten::as_strided", "aten::view", "aten::expand", "aten::t", "aten::transpose",
            "aten::permute", "aten::result_type", "aten::lift_fresh", "aten::empty",
            "aten::reshape", "aten::_reshape_alias", "aten::broadcast_to", "aten::squeeze"}


def section_calls(library, budget, n_subset):
    if not library.name.startswith("torch"):
        return
    views, _ = digit(n_subset)
    print(f"\n### Device calls per iteration of the Digit solve (torch.profiler, 5 iterations "
          f"against 3), on {library.label}")
    if library.device == "cuda":
        print("| precision | torch calls | kernels launched | waits for the device | "
              "us per small call | kernels x that (ms) |")
    else:
        print("| precision | torch calls | calls that do work | device scalars read or copied "
              "to the host | us per small call | calls that do work x that (ms) |")
    print("|---|---:|---:|---:|---:|---:|")
    for dtype in ("float32", "float64"):
        guarded(f"calls {dtype}", budget, need=5)(_calls_row)(library, views, dtype)


def _calls_row(library, views, dtype):
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    from rmsc.preprocessing import normalize_l2
    import rmsc.solver._dense as dense

    gpu = library.device == "cuda"
    n = views[0].shape[0]
    lam, beta, gamma, options = rmsc.RMSC(n_clusters=10)._check_params(n)
    model = {k: options[k] for k in ("weighting", "loss_scale", "scale_power", "stop_on")}
    copies = [0]
    original = dense.to_numpy

    def counted(x):
        copies[0] += 1
        return original(x)

    counts = []
    with dispatch():
        factors = [solver.gram_factor(normalize_l2(library.put(X, dtype))) for X in views]
        solver.solve(factors, lam, beta, gamma, max_iter=2, tol=0.0, with_beta_max=True, **model)
        for k in (3, 5):
            copies[0] = 0
            dense.to_numpy = counted
            try:
                activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
                with profile(activities=activities) as prof:
                    solver.solve(factors, lam, beta, gamma, max_iter=k, tol=0.0,
                                 with_beta_max=True, **model)
                    library.sync()
            finally:
                dense.to_numpy = original
            events = prof.events()
            top = [e for e in events if e.cpu_parent is None and e.name.startswith("aten::")]
            if gpu:
                kernels = sum(1 for e in events if e.device_type == DeviceType.CUDA
                              and not e.name.startswith(("Memcpy", "Memset")))
                waits = sum(1 for e in events if e.name in WAITS)
            else:  # the calls that do work, and reads of device scalars / copies to the host
                kernels = sum(1 for e in top if e.name not in VIEW_OPS and not (
                    e.name == "aten::to"
                    and not any(c.name == "aten::_to_copy" for c in e.cpu_children)))
                waits = sum(1 for e in events if e.name == "aten::_local_scalar_dense") + copies[0]
            counts.append((len(top), kernels, waits))
    per = [(b - a) / 2 for a, b in zip(*counts)]
    small = small_call_seconds(library, dtype)
    print(f"| {dtype} | {per[0]:.0f} | {per[1]:.0f} | {per[2]:.0f} | {1e6 * small:.1f} | "
          f"{1e3 * per[1] * small:.2f} |", flush=True)


def small_call_seconds(library, dtype, repeats=500):
    """Seconds of one small device call from Python, queued back to back (the launch
    floor: an iteration of k such calls cannot take less than k times this, whatever
    its arithmetic), measured as the solver's calls are made (an operator and an
    array-API function on a tiny array)."""
    from rmsc._array_api import namespace

    x = library.put(np.ones((8, 8)), dtype)
    xp = namespace(x)
    for _ in range(20):
        y = xp.sum(x * 0.5, axis=0)
    library.sync()
    t0 = time.perf_counter()
    for _ in range(repeats):
        y = xp.sum(x * 0.5, axis=0)
    library.sync()
    del y
    return (time.perf_counter() - t0) / (2 * repeats)


# ---------------------------------------------------------------------------------------
# 5: the size sweep


def section_sweep(library, budget, sizes):
    print(f"\n## Size sweep, synthetic (10 clusters, views of 80/100/120 features), float32, "
          f"on {library.label}")
    print("| n | whole fit (s) | iterations | per iteration (ms) | its dense products (ms) | "
          "ratio | setup (s) | eigenvectors (s) | k-means (s) | ACC (%) | device peak | "
          "memory rule |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    last = None
    for n in sizes:
        # a fit of n costs about (n / last n)^2 times the last one: skip what cannot finish
        need = 3.0 if last is None else last[1] * (n / last[0]) ** 2 * 1.2
        row = guarded(f"n = {n}", budget, need=need)(_sweep_row)(library, n)
        if row is not None:
            last = (n, row)


def _sweep_row(library, n):
    data = datasets.make_multiview_subspaces(n_clusters=10, n_per_cluster=n // 10,
                                             view_dims=(80, 100, 120), random_state=0)
    library.free()
    library.reset_peak()
    t0 = time.perf_counter()
    dev = [library.put(np.asarray(X), "float32") for X in data.views]
    model, whole, per_iter, timer = timed_fit(dev, library, parts=True, n_clusters=10)
    peak = library.peak()
    rule = solver.dense_form_bytes(n, 300, 4)
    acc = 100 * rmsc.evaluate(np.asarray(data.labels), model.labels_)["acc"]
    n_iter = model.n_iter_
    del model, dev
    library.free()
    products = product_time(n, 300, library, "float32", repeats=3 if n > 20000 else 5)
    p = timer.parts
    print(f"| {n} | {whole:.2f} | {n_iter} | {1e3 * per_iter:.1f} | {1e3 * products:.1f} | "
          f"{per_iter / products:.2f} | {p[0] + p[1]:.2f} | {p[4]:.2f} | {p[6]:.2f} | "
          f"{acc:.2f} | {format_bytes(peak) if peak is not None else 'n/a'} | "
          f"{format_bytes(rule)} |", flush=True)
    return time.perf_counter() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    _preamble.add_argument(ap, "tiny sizes (a 300-sample Digit, n = 300 and 600), any machine")
    libraries = ["torch", "torch-cpu", "cupy", "array_api_strict"]
    ap.add_argument("--array-library", choices=libraries,
                    help="default: a CUDA GPU through torch, else CuPy, else CPU torch, else "
                         "array_api_strict")
    # the former name of --array-library ("backend" names where the Z*-step's blocks run)
    ap.add_argument("--backend", choices=libraries, dest="former_backend",
                    help=argparse.SUPPRESS)
    ap.add_argument("--sizes", type=int, nargs="+",
                    default=[2000, 5000, 10000, 20000, 30000, 40000, 50000, 70000, 100000])
    ap.add_argument("--budget", type=float, default=240.0, help="seconds for the whole run")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.former_backend:
        print("bench_device: --backend is deprecated; use --array-library.", file=sys.stderr)
    library = pick_array_library(args.array_library or args.former_backend, args.smoke)
    sizes = [300, 600] if args.smoke else args.sizes
    print(f"# bench_device: {library.label}; rmsc {rmsc.__version__}, numpy {np.__version__}; "
          f"budget {args.budget:.0f} s{' (smoke)' if args.smoke else ''}")
    cpu_models = {}
    n_subset = 300 if args.smoke else None
    # the smoke run checks that every step runs and that the device agrees with the CPU at
    # the same stop, not where the fit converges: its Digit fits stop at a few iterations
    fit = {"n_clusters": 10, **({"max_iter": SMOKE_MAX_ITER} if args.smoke else {})}
    section_digit(library, args.budget, n_subset, cpu_models, fit)
    section_graphs(library, args.budget, n_subset, fit)
    section_calls(library, args.budget, n_subset)
    section_sweep(library, args.budget, sizes)
    print(f"\ntotal {time.perf_counter() - START:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
