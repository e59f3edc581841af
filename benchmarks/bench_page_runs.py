"""The Solve page's script runs on the server, without a browser: where a kept result's seconds go.

    python benchmarks/bench_page_runs.py [--repeat 3] [--iters 20] [--data NAME]
                                         [--before REV] [--profile N] [--smoke]

The server-side half of ``bench_dashboard.py --only reopen``: a folder of results
(``RMSC_CACHE_DIR``) holds Digit's fits at β = 0.3 and one β step left (``--iters``
iterations each, fitted here first); then, in a fresh Python process each time (a
restarted server), Streamlit's AppTest opens the Solve page on β = 0.3 (its result is on
disk only), moves the β slider to the other setting (on disk only) and back (in memory
now). Each step's wall time is split into what the process spent importing, reading the
result from the folder (``ResultCache.get`` / ``__contains__`` past memory), building the
figures (``rmsc.figures``), and the rest of the script runs, with the number of script
runs the step took. ``--profile N`` also prints the N costliest functions (cumulative) of
each step (under the profiler, so slower). ``--before REV``: the same children run in the
tree at git revision REV too (this script copied there), alternating with this checkout's,
over a folder holding the same results under that revision's code version, and a last
table puts the two side by side.

The browser's part (its own rendering, the websocket, the plotly bundle) is not in these
numbers; ``bench_dashboard.py --only reopen`` measures the whole. AppTest runs a page
opened by its URL through ``app.py`` at once, where a real server runs it once more the
first time (``ui.runtime.page_setup``).

``--smoke``: Digit-small, two iterations, one repeat.
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread
import _baseline

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_preamble.one_thread()

ROOT = _preamble.ROOT
SCRIPT = Path(__file__).resolve()
BETAS = (0.3, 0.2)  # β = 0.3 and the slider's next step left, as bench_dashboard.py


def query(args):
    q = {"beta": str(BETAS[0]), "max_iter": str(args.iters)}
    if args.data != "Digit":
        q["data"] = args.data
    return q


def fill(folder, args):
    """The earlier run of the server: both settings fitted and kept in ``folder``."""
    from rmsc import dashboard as dash
    from rmsc.datasets import load_bundled

    data = load_bundled(args.data)
    cache = dash.open_result_cache(4, 1 << 30)
    took = []
    for beta in BETAS:
        params = dash.Params.from_query({**query(args), "beta": str(beta)})[0]
        t0 = time.perf_counter()
        out = dash.fit_rmsc(data, params)
        took.append(time.perf_counter() - t0)
        cache.put(out.key, out)
    sizes = [p.stat().st_size / 1e6 for p in Path(folder).glob("*.npz")]
    return took, sizes


# ---------------------------------------------------------------------------------------
# The child: one restarted server (a fresh process), one visitor
# ---------------------------------------------------------------------------------------

class Clock:
    """Seconds spent inside chosen functions by part, in the script runs' thread only, each
    second counted once (the innermost part: an import made by a figure is an import).
    ``now``: the clock (wall seconds; ``time.thread_time`` for the thread's CPU seconds)."""

    def __init__(self, now=time.perf_counter):
        import threading

        self.now = now
        self.parts = {}
        self.imports = {}
        self.local = threading.local()

    def wrap(self, part, fn):
        import functools
        import threading

        @functools.wraps(fn)
        def timed(*a, **k):
            if not threading.current_thread().name.startswith("ScriptRunner"):
                return fn(*a, **k)
            stack = self.local.__dict__.setdefault("stack", [])
            now = self.now()
            if stack:
                self._add(stack[-1], now)
            start = now
            outer = part == "imports" and all(f[0] != part for f in stack)
            stack.append([part, now, start])
            try:
                return fn(*a, **k)
            finally:
                now = self.now()
                frame = stack.pop()
                self._add(frame, now)
                if stack:
                    stack[-1][1] = now
                if outer:  # an import made by the page itself: its whole time, by name
                    self.imports[a[0]] = self.imports.get(a[0], 0.0) + now - frame[2]
        return timed

    def _add(self, frame, now):
        self.parts[frame[0]] = self.parts.get(frame[0], 0.0) + now - frame[1]

    def take(self):
        out, self.parts = self.parts, {}
        return out

    def take_imports(self):
        out, self.imports = self.imports, {}
        return sorted(out.items(), key=lambda kv: -kv[1])


def compile_once():
    """A server compiles each page's script once (its ScriptCache); AppTest makes a new
    cache for every run, which would count compiling the pages again in every step: every
    script compiled once in this process from now on."""
    from streamlit.runtime.scriptrunner import script_cache

    compiled = {}
    real_compile = script_cache.ScriptCache.get_bytecode

    def get_bytecode(self, path):
        if path not in compiled:
            compiled[path] = real_compile(self, path)
        return compiled[path]

    script_cache.ScriptCache.get_bytecode = get_bytecode


def child(args):
    t_start = time.perf_counter()
    import cProfile
    import io
    import pstats

    clock = Clock()
    # imports: every first import of a module anywhere in the process
    import importlib._bootstrap as boot

    boot._find_and_load = clock.wrap("imports", boot._find_and_load)
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.testing.v1 import AppTest

    runs = {"n": 0}
    profiles = []
    real_run = script_runner.ScriptRunner._run_script

    def counted(self, *a, **k):
        runs["n"] += 1
        if args.profile:
            prof = cProfile.Profile()
            profiles.append(prof)
            prof.enable()
            try:
                return real_run(self, *a, **k)
            finally:
                prof.disable()
        return real_run(self, *a, **k)

    script_runner.ScriptRunner._run_script = counted
    compile_once()

    def patch_library():
        from rmsc import figures
        from rmsc.dashboard import store

        store.DiskStore.get = clock.wrap("disk read", store.DiskStore.get)
        store.DiskStore.__contains__ = clock.wrap("disk lookups", store.DiskStore.__contains__)
        for name in ("objective_figure", "clustering_trace_figure", "view_weights_figure"):
            setattr(figures, name, clock.wrap("figures", getattr(figures, name)))

    if args.entry == "app":  # what `python app.py` imports before serving
        sys.path.insert(0, str(ROOT))
        import app
        from rmsc.dashboard import workers

        if hasattr(app, "preload"):
            app.preload()
        else:  # an app.py of before app.preload (an earlier revision's): its imports
            for name in ("plotly.graph_objects", "sklearn.cluster", "sklearn.decomposition",
                         "rmsc.dashboard", "rmsc.datasets", "rmsc.figures", "rmsc.spectral"):
                __import__(name)
        workers.default_workers()  # started by the server's first page, before the visitor
    patch_library()
    setup = time.perf_counter() - t_start
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=args.timeout)
    for k, v in query(args).items():
        at.query_params[k] = v
    at.switch_page("pages/solve.py")
    clock.take()
    steps = []
    clock.take_imports()

    def step(name, act):
        runs["n"] = 0
        profiles.clear()
        t0 = time.perf_counter()
        out = act()
        wall = time.perf_counter() - t0
        if out.exception:
            raise SystemExit(f"{name}: {[e.value for e in out.exception]}")
        shown = [m.label for m in out.metric]
        if "density of Z*" not in shown:
            raise SystemExit(f"{name}: no result on the page (metrics {shown})")
        row = {"step": name, "wall": wall, "runs": runs["n"], **clock.take(),
               "imported": clock.take_imports()}
        if profiles:
            text = io.StringIO()
            stats = pstats.Stats(profiles[0], stream=text)
            for p in profiles[1:]:
                stats.add(p)
            stats.sort_stats("cumulative").print_stats(args.profile)
            row["profile"] = text.getvalue()
        steps.append(row)
        return out

    at = step("open Solve (result on disk)", at.run)
    other, back = (str(b) for b in BETAS[1:]), str(BETAS[0])
    at = step("β moved to the other setting (on disk)",
              lambda: at.select_slider(key="w_beta").set_value(float(next(other))).run())
    at = step("β moved back (in memory)",
              lambda: at.select_slider(key="w_beta").set_value(float(back)).run())
    print(json.dumps({"setup": setup, "steps": steps}))


# ---------------------------------------------------------------------------------------
# The parent: fill the folder, one child per repeat, the table
# ---------------------------------------------------------------------------------------

PARTS = ("imports", "disk read", "disk lookups", "figures")


def main():
    ap = _preamble.parser(__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--iters", type=int, default=20, help="iterations of the kept fits")
    ap.add_argument("--data", default="Digit")
    ap.add_argument("--profile", type=int, default=0,
                    help="print the N costliest functions of each step (one more child)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--entry", choices=["app", "streamlit"], default="app",
                    help="the process imports what `python app.py` imports before serving "
                         "(default), or nothing (`streamlit run app.py`)")
    ap.add_argument("--before", default=None, metavar="REV",
                    help="the same children in the tree at this git revision too, "
                         "alternating with this checkout's, over the same results")
    ap.add_argument("--child", default=None, help=argparse_hidden())
    args = ap.parse_args()
    if args.child:
        return child(args)
    if args.smoke:
        args.repeat, args.iters, args.data = 1, 2, "Digit-small"
    before = _preamble.load_average()
    with tempfile.TemporaryDirectory(prefix="rmsc-bench-runs-") as folder, \
            tempfile.TemporaryDirectory(prefix="rmsc-bench-runs-before-") as folder_before:
        env = {**os.environ, "RMSC_CACHE_DIR": folder, "RMSC_PREFETCH": "0"}
        os.environ.update(env)
        took, sizes = fill(folder, args)
        trees = [("now", ROOT, folder)]
        if args.before:  # the same children in the tree at that revision, alternating
            root = _baseline.checkout(args.before)
            shutil.copy(SCRIPT, root / "benchmarks" / SCRIPT.name)
            _baseline.rekey(folder, folder_before, root)
            trees.insert(0, ("before", root, folder_before))
        results = {tag: [] for tag, _, _ in trees}
        try:
            run_children(args, trees, env, results)
        finally:
            for tag, root, _ in trees:
                if tag == "before":
                    shutil.rmtree(root, ignore_errors=True)
    after = _preamble.load_average()
    if not results["now"]:
        return
    print(f"The Solve page's script runs (AppTest, no browser) on {args.data}, kept fits of "
          f"{args.iters} iterations ({statistics.median(took):.1f} s each to fit, "
          f"{statistics.median(sizes):.0f} MB each on disk); {os.cpu_count()} CPUs, load "
          f"average before {before}, after {after}; median of "
          f"{len(results['now'])} fresh processes (min–max)"
          + (f", alternating with the revision {args.before}'s" if args.before else ""))
    for tag, runs in results.items():
        print()
        if args.before:
            print(f"**{'this checkout' if tag == 'now' else args.before}**")
            print()
        print_table(runs)
    if args.before:
        print()
        print("| step | before s | now s | now / before |")
        print("|---|---:|---:|---:|")
        for j, first in enumerate(results["now"][0]["steps"]):
            a = statistics.median(r["steps"][j]["wall"] for r in results["before"])
            b = statistics.median(r["steps"][j]["wall"] for r in results["now"])
            print(f"| {first['step']} | {a:.2f} | {b:.2f} | {b / a:.2f} |")


def run_children(args, trees, env, results):
    """The children, alternating between the trees; their lines into ``results``."""
    for k in range(args.repeat + (1 if args.profile else 0)):
        profile = args.profile if k == args.repeat else 0
        for tag, root, cache in trees:
            if profile and tag != "now":
                continue
            cmd = [sys.executable, str(root / "benchmarks" / SCRIPT.name), "--child", cache,
                   "--iters", str(args.iters), "--data", args.data, "--profile",
                   str(profile), "--timeout", str(args.timeout), "--entry", args.entry]
            done = subprocess.run(cmd, cwd=root, capture_output=True, text=True,
                                  env={**env, "RMSC_CACHE_DIR": cache,
                                       "PYTHONPATH": str(root)})
            if done.returncode:
                raise SystemExit(f"the child failed:\n{done.stderr[-4000:]}")
            line = json.loads(done.stdout.strip().splitlines()[-1])
            if not profile:
                results[tag].append(line)
                continue
            for s in line["steps"]:
                print(f"### {s['step']} (profiled: {s['wall']:.2f} s)\n")
                print("```\n" + s["profile"] + "```\n")


def print_table(results):
    """One row per step: its wall time and its parts (medians over ``results``)."""
    print("| step | script runs | wall s | imports s | disk read s | disk lookups s | "
          "figures s | rest s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")

    def cell(values):
        med = statistics.median(values)
        if min(values) == max(values):
            return f"{med:.2f}"
        return f"{med:.2f} ({min(values):.2f}–{max(values):.2f})"

    for j, first in enumerate(results[0]["steps"]):
        rows = [r["steps"][j] for r in results]
        parts = {p: [r.get(p, 0.0) for r in rows] for p in PARTS}
        rest = [r["wall"] - sum(r.get(p, 0.0) for p in PARTS) for r in rows]
        runs = sorted({r["runs"] for r in rows})
        print(f"| {first['step']} | {'/'.join(map(str, runs))} | "
              f"{cell([r['wall'] for r in rows])} | "
              + " | ".join(cell(parts[p]) for p in PARTS) + f" | {cell(rest)} |")
    print()
    for s in results[0]["steps"]:
        top = [f"{name} {t:.2f} s" for name, t in s["imported"][:8]]
        print(f"- {s['step']}: the page's costliest first imports: {', '.join(top) or 'none'}")


def argparse_hidden():
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
