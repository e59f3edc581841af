"""RMSC on an accelerator: Digit fit times, agreement with the CPU, and a size sweep.

    python benchmarks/bench_device.py                 # on the GPU torch (or CuPy) sees
    python benchmarks/bench_device.py --smoke         # seconds, on CPU torch or array_api_strict
    python benchmarks/bench_device.py --budget 240 --sizes 2000 5000 10000 20000 50000

One run prints, for whatever device is found (the device named in the header):

1. Digit (n = 2000, 6 views), the default ``RMSC(n_clusters=10, random_state=0)``, in
   float32 and float64: the whole fit (spectral step and 20 k-means runs included; the
   second of two fits, the first warms the device up), the iterations' own time (from
   the callback's clock, the per-iteration mean), the time of the iteration's two dense
   products alone on that device (R^T QW and R Z*, the same shapes and dtype), and their
   ratio (the target: an iteration within 2x its products).
2. Agreement with the CPU path (NumPy, this machine's cores), the same parameters:
   float32 against the CPU default (its "auto" precision: float32 while Z* is dense),
   float64 against the CPU at precision="float64": the labels' ARI, max |dZ*|, and
   whether the device objective never increased.
3. A size sweep on synthetic data (10 clusters, 3 views of 80/100/120 features, float32):
   seconds per default fit and its parts, the device memory peak against the memory rule
   (rmsc.solver.dense_form_bytes), up to the largest n the device holds (the rule refuses
   larger ones before starting: printed, and the sweep goes on).

Every step is guarded: a failure or an out-of-memory prints one line and the script goes
on; ``--budget`` seconds (default 240) bound the whole run (a step that would start after
it is skipped, said so). The GPU machine of this project needs only numpy, scipy,
scikit-learn, torch and the repository (benchmarks/device_run.sh carries the rest).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before scipy: scikit-learn's dispatch checks it
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from sklearn.metrics import adjusted_rand_score  # noqa: E402

import rmsc  # noqa: E402
from rmsc import datasets, solver  # noqa: E402
from rmsc._array_api import to_numpy  # noqa: E402
from rmsc.device import dispatch  # noqa: E402
from rmsc.memory import format_bytes  # noqa: E402

START = time.perf_counter()


class Backend:
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


def pick_backend(asked, smoke):
    if asked:
        return Backend(asked)
    try:
        import torch

        if torch.cuda.is_available():
            return Backend("torch")
    except ImportError:
        pass
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return Backend("cupy")
    except Exception:
        pass
    if not smoke:
        print("No GPU found (torch with CUDA or CuPy); running the smoke sizes on the CPU.")
    try:
        import torch  # noqa: F401

        return Backend("torch-cpu")
    except ImportError:
        return Backend("array_api_strict")


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


def timed_fit(views, backend, **params):
    """(model, whole seconds, per-iteration seconds) of one default fit on device views."""
    stamps = []

    def callback(it, f, P):
        stamps.append(time.perf_counter())  # f is a host float: the device is synced

    backend.sync()
    t0 = time.perf_counter()
    with dispatch():
        model = rmsc.RMSC(random_state=0, callback=callback, **params).fit(views)
    backend.sync()
    whole = time.perf_counter() - t0
    per_iter = (np.diff(stamps).mean() if len(stamps) > 1 else model.fit_time_ / model.n_iter_)
    return model, whole, per_iter


def product_time(views, backend, dtype, repeats=5):
    """Seconds of one iteration's two dense products (R^T QW and R Z*), this device."""
    n = views[0].shape[0]
    rows = sum(min(X.shape[1], n) for X in views)
    rng = np.random.default_rng(0)
    R = backend.put(rng.standard_normal((rows, n)), dtype)
    QW = backend.put(rng.standard_normal((rows, n)), dtype)
    out = []
    for _ in range(repeats + 1):
        backend.sync()
        t0 = time.perf_counter()
        Z = R.T @ QW
        RZ = R @ Z
        backend.sync()
        out.append(time.perf_counter() - t0)
        del Z, RZ
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


def section_digit(backend, budget, n_subset, cpu_models):
    views, y = digit(n_subset)
    n = views[0].shape[0]
    print(f"\n## Digit (n = {n}, {len(views)} views), RMSC defaults, on {backend.label}")
    print("| precision | whole fit (s) | iterations | per iteration (ms) | its dense products (ms) "
          "| ratio | spectral + k-means (s) | ACC (%) | ARI vs CPU | max abs dZ* | objective "
          "never up |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for dtype, precision in (("float32", "auto"), ("float64", "float64")):
        run = guarded(f"Digit {dtype}", budget, need=5)(_digit_row)
        run(views, y, backend, dtype, precision, cpu_models)


def _digit_row(views, y, backend, dtype, precision, cpu_models):
    dev = [backend.put(X, dtype) for X in views]
    timed_fit(dev, backend, n_clusters=10)  # warm-up: kernels, handles, allocator
    model, whole, per_iter = timed_fit(dev, backend, n_clusters=10)
    products = product_time(views, backend, dtype)
    if precision not in cpu_models:
        cpu_models[precision] = cpu_fit(views, precision, n_clusters=10)
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


def section_sweep(backend, budget, sizes):
    print(f"\n## Size sweep, synthetic (10 clusters, views of 80/100/120 features), float32, "
          f"on {backend.label}")
    print("| n | whole fit (s) | iterations | per iteration (ms) | spectral + k-means (s) | "
          "ACC (%) | device peak | memory rule |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    last = None
    for n in sizes:
        # a fit of n costs about (n / last n)^2 times the last one: skip what cannot finish
        need = 3.0 if last is None else last[1] * (n / last[0]) ** 2 * 1.2
        row = guarded(f"n = {n}", budget, need=need)(_sweep_row)(backend, n)
        if row is not None:
            last = (n, row)


def _sweep_row(backend, n):
    data = datasets.make_multiview_subspaces(n_clusters=10, n_per_cluster=n // 10,
                                             view_dims=(80, 100, 120), random_state=0)
    backend.free()
    backend.reset_peak()
    dev = [backend.put(np.asarray(X), "float32") for X in data.views]
    model, whole, per_iter = timed_fit(dev, backend, n_clusters=10)
    peak = backend.peak()
    rule = solver.dense_form_bytes(n, 300, 4)
    acc = 100 * rmsc.evaluate(np.asarray(data.labels), model.labels_)["acc"]
    print(f"| {n} | {whole:.2f} | {model.n_iter_} | {1e3 * per_iter:.1f} | "
          f"{model.spectral_time_:.2f} | {acc:.2f} | "
          f"{format_bytes(peak) if peak is not None else 'n/a'} | {format_bytes(rule)} |",
          flush=True)
    del model, dev
    backend.free()
    return whole


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--smoke", action="store_true",
                    help="tiny sizes (a 300-sample Digit, n = 300 and 600): seconds, any machine")
    ap.add_argument("--backend", choices=["torch", "torch-cpu", "cupy", "array_api_strict"],
                    help="default: a CUDA GPU through torch, else CuPy, else CPU torch, else "
                         "array_api_strict")
    ap.add_argument("--sizes", type=int, nargs="+",
                    default=[2000, 5000, 10000, 20000, 30000, 40000, 50000])
    ap.add_argument("--budget", type=float, default=240.0, help="seconds for the whole run")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    backend = pick_backend(args.backend, args.smoke)
    sizes = [300, 600] if args.smoke else args.sizes
    print(f"# bench_device: {backend.label}; rmsc {rmsc.__version__}, numpy {np.__version__}; "
          f"budget {args.budget:.0f} s{' (smoke)' if args.smoke else ''}")
    cpu_models = {}
    section_digit(backend, args.budget, 300 if args.smoke else None, cpu_models)
    section_sweep(backend, args.budget, sizes)
    print(f"\ntotal {time.perf_counter() - START:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
