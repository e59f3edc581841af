"""How well do the MATLAB v5 guards protect the process from corrupt files, and at what cost?

    python docs/studies/bench_mat_guard.py [--files 600] [--seed 0] [--smoke]

A corpus of corrupted .mat files (valid v5 files - plain, compressed, sparse
views - with 1 to 8 random bytes changed after the header) is read three ways:

* scipy.io.loadmat with no guard, in a throwaway child (so that a crash ends
  only the child): ``ok``, ``raised``, ``crash`` (killed by a signal) or
  ``hang`` (still running after 10 s);
* the structure walker that rmsc used before this guard (``_check_mat5_structure``),
  when this checkout still has it: ``reject`` or ``pass``;
* ``rmsc.datasets.load`` as shipped (MATLAB files read in a child process,
  :mod:`rmsc.datasets._isolate`): a dataset, a DataLoadError, or anything else
  (a bug). This process must survive every file.

Then the cost of isolation on clean files of a few sizes (median of 5 loads, after the
reader program has started: :func:`rmsc.datasets._isolate.warm_up`), and what starting
that program costs the first load of a process (a fresh ``python -c`` loading one small
file, against the same process reading it in-process).

Measured: the tables of docs/measurements.md, "MATLAB files read in a child process" were
written at commit 9f52869 (2026-11-23), on that commit's code. Not smoke-tested: a one-off,
kept as the record of that run; later code may not run it unchanged (to rerun it, check out
that commit).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, --smoke, one thread)

import argparse
import io
import multiprocessing as mp
import statistics
import subprocess
import tempfile
import time
from collections import Counter

import numpy as np
import scipy.io
import scipy.sparse as sp


from rmsc import datasets  # noqa: E402
from rmsc.datasets import DataLoadError, _isolate  # noqa: E402


def _cell(*items):
    c = np.empty((1, len(items)), dtype=object)
    for k, x in enumerate(items):
        c[0, k] = x
    return c


def valid_files():
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((6, 3)), rng.integers(0, 5, (6, 4)).astype(np.uint8)
    S = sp.random(6, 9, density=0.3, random_state=1, format="csc")
    y = np.array([1, 1, 2, 2, 3, 3])
    out = {}
    for name, variables, compress in (
            ("dense+sparse", {"X": _cell(A, B, S), "Y": y}, False),
            ("compressed", {"X": _cell(A, B, S), "Y": y}, True),
            ("sparse views", {"fea": _cell(S.T.tocsc(), rng.standard_normal((9, 2))),
                              "gt": np.arange(9) % 3}, False)):
        buf = io.BytesIO()
        scipy.io.savemat(buf, variables, do_compression=compress)
        out[name] = buf.getvalue()
    return out


def corpus(n_files, seed):
    files = valid_files()
    names = list(files)
    rng = np.random.default_rng(seed)
    for i in range(n_files):
        name = names[i % len(names)]
        raw = bytearray(files[name])
        for _ in range(int(rng.integers(1, 9))):
            raw[int(rng.integers(128, len(raw)))] = int(rng.integers(0, 256))
        yield name, bytes(raw)


def _unguarded(raw, queue):
    try:
        scipy.io.loadmat(io.BytesIO(raw))
        queue.put("ok")
    except Exception:  # noqa: BLE001 - any exception is a clean failure here
        queue.put("raised")


def unguarded_outcome(raw, timeout=10.0):
    ctx = mp.get_context("fork")  # this script is single-threaded
    queue = ctx.Queue()
    proc = ctx.Process(target=_unguarded, args=(raw, queue))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return "hang"
    if proc.exitcode != 0:
        return "crash"
    return queue.get()


def walker_outcome(raw):
    check = getattr(getattr(datasets, "_mat5", None), "_check_mat5_structure", None)
    if check is None:
        return "n/a"
    try:
        check(raw, "f.mat")
    except DataLoadError:
        return "reject"
    return "pass"


def guarded_outcome(raw):
    try:
        datasets.load(_named(raw, "f.mat"))
    except DataLoadError:
        return "DataLoadError"
    except Exception as exc:  # noqa: BLE001 - counted: a bug
        return f"other: {type(exc).__name__}"
    return "dataset"


def _named(raw, name):
    f = io.BytesIO(raw)
    f.name = name
    return f


def protection_table(n_files, seed):
    rows = Counter()
    for _, raw in corpus(n_files, seed):
        rows[(unguarded_outcome(raw), walker_outcome(raw), guarded_outcome(raw))] += 1
    lines = ["| scipy.io.loadmat unguarded | walker (before) | rmsc.datasets.load (isolated) "
             "| files |", "|---|---|---|---:|"]
    for (u, w, g), k in sorted(rows.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"| {u} | {w} | {g} | {k} |")
    crashes = sum(k for (u, _, _), k in rows.items() if u in ("crash", "hang"))
    caught = sum(k for (u, _, g), k in rows.items()
                 if u in ("crash", "hang") and g == "DataLoadError")
    walker = sum(k for (u, w, _), k in rows.items() if u in ("crash", "hang") and w == "reject")
    lines.append("")
    lines.append(f"{n_files} corrupted files; {crashes} crash or hang scipy unguarded; the "
                 f"isolated load turns {caught} of them into a DataLoadError"
                 + (f"; the walker rejected {walker}" if walker_outcome(b"") != "n/a" else "")
                 + "; this process survived all of them.")
    return "\n".join(lines)


def cost_table(smoke=False):
    digit = datasets.load_digit()
    sizes = {"Subspaces (150 x 3 views)": datasets.load_bundled("Subspaces"),
             "Digit-small (300 x 6 views)": datasets.load_digit_small(), "Digit (2000 x 6 views)":
             digit,
             "Digit x 4 (8000 x 6 views)": digit.replace(views=[np.vstack([X] * 4)
                                                                 for X in digit.views],
                                                          labels=np.tile(digit.labels, 4))}
    lines = ["| file | MB | in this process s | isolated s | extra s |", "|---|---:|---:|---:|---:|"]
    _isolate.warm_up()
    for name, d in _preamble.first(sizes.items(), smoke, 2):
        buf = io.BytesIO()
        scipy.io.savemat(buf, {"X": _cell(*d.views), "Y": d.labels + 1})
        raw = buf.getvalue()
        times = {}
        for isolate in (False, True):
            ts = []
            for _ in range(1 if smoke else 5):
                t0 = time.perf_counter()
                datasets.load(_named(raw, "x.mat"), isolate=isolate)
                ts.append(time.perf_counter() - t0)
            times[isolate] = statistics.median(ts)
        lines.append(f"| {name} | {len(raw) / 2**20:.1f} | {times[False]:.3f} | "
                     f"{times[True]:.3f} | {times[True] - times[False]:+.3f} |")
    return "\n".join(lines)


FIRST_LOAD = """
import io, sys, time
import scipy.io
from rmsc import datasets
raw = open(sys.argv[1], "rb").read()
t0 = time.perf_counter()
datasets.load(io.BytesIO(raw), isolate=sys.argv[2] == "1")
print(time.perf_counter() - t0)
"""


def first_load_table(repeat):
    """A fresh process's first load of a small file: in-process, and isolated (which starts
    the reader program)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.mat"
        d = datasets.load_bundled("Subspaces")
        scipy.io.savemat(path, {"X": _cell(*d.views), "Y": d.labels + 1})
        times = {}
        for isolate in ("0", "1"):
            times[isolate] = statistics.median(
                float(subprocess.run([sys.executable, "-c", FIRST_LOAD, str(path), isolate],
                                     capture_output=True, text=True, check=True).stdout)
                for _ in range(repeat))
    return ("| first load in a fresh process | in this process s | isolated s | extra s |\n"
            "|---|---:|---:|---:|\n"
            f"| Subspaces (150 x 3 views) | {times['0']:.3f} | {times['1']:.3f} | "
            f"{times['1'] - times['0']:+.3f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=600)
    ap.add_argument("--seed", type=int, default=0)
    _preamble.add_argument(ap)
    args = ap.parse_args()
    print("## Protection on corrupted MATLAB v5 files\n")
    print(protection_table(args.files, args.seed))
    print("\n## Cost of reading in a child process (clean files, median of "
          f"{1 if args.smoke else 5})\n")
    print(cost_table(args.smoke))
    print("\n## Starting the reader program: a fresh process's first load (median of "
          f"{1 if args.smoke else 5})\n")
    print(first_load_table(1 if args.smoke else 5))


if __name__ == "__main__":
    main()
