"""The lesson's script runs on the server, per session, without a browser: what a class's clicks cost it.

    python benchmarks/bench_lesson_runs.py [--sessions 8] [--data Digit-small] [--max-iter 30]
                                           [--cache-dir DIR] [--before REV] [--smoke]

The server-side half of ``bench_load.py --lesson``. The lesson (the shipped one, every step
on ``--data``, fits capped at ``--max-iter``, as ``bench_load.py --lesson`` serves it) is
warmed into a result folder (``--cache-dir``, reused when warm; by default a fresh one,
warmed here in this process); then, in a fresh Python process (a restarted server with its
Dask workers started), ``--sessions`` AppTest sessions walk the whole lesson one after
another, as students do (Next, and every value of a step's slider). Streamlit's caches are
the server's: they outlive a session, so the first session builds what is shared (the
figures, the charts' serialized form, the QR codes) and the later ones find it.

For every step, the page's script runs of the first session and the median of the later
ones: wall seconds and CPU seconds of the script's thread (``time.thread_time``: what the
run costs the server's one Python process, whatever else the machine runs), and the later
sessions' CPU seconds by part: the charts' serialization (plotly's ``to_dict`` and
``to_json``, which ``st.plotly_chart`` makes of each figure), the QR code, building the
figures (``rmsc.figures``), the tables (``st.dataframe``), the result folder on disk, and the
rest (the frame, the sidebar, the page's other elements). The last column is what 8 clicks
at once cost the server: all 8 script runs share one process (and, for Python's part, one
core): the first session's CPU seconds plus 7 later sessions'. ``--before REV``: the same
children in the tree at git revision REV too (this script copied there, over the same
results rekeyed for that tree's code), and a last table side by side.

Not in these numbers: Streamlit's sending of the messages to the browser (another thread),
and the browser's own work (``bench_load.py --lesson``).

``--smoke``: a four-step lesson on Subspaces (every kind of step), 5 iterations, 2 sessions.
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

#: --smoke: every kind of step on the bundled Subspaces (150 samples), fitted in seconds.
SMOKE_LESSON = """
title: A small lesson
steps:
  - title: The views
    data: Subspaces
    show: views
    text: Each panel is one view.
    question: Which view separates the classes best?
  - title: Compare
    data: Subspaces
    outliers: {views: ["view 1 (20-d)"], fraction: 0.1, kind: replace}
    show: compare
    methods: [SSC-AVG, RMSC]
    params: {max_iter: 5}
    text: Two methods, clean and corrupted.
    question: Which loses more?
  - title: Weights
    data: Subspaces
    outliers: {views: ["view 1 (20-d)"], fraction: 0.1, kind: replace}
    show: weights
    params: {max_iter: 5}
    text: Dark means distrusted.
    question: Which row is dark?
  - title: Beta
    data: Subspaces
    show: solve
    params: {max_iter: 5, beta_rel: 0.25}
    slider: {param: beta_rel, values: [0.1, 0.25]}
    text: Move the slider.
    question: Does Z* get denser?
"""

#: The parts of a script run's CPU seconds, and the functions each is the time spent in.
PARTS = ("charts", "QR code", "figures", "tables", "disk")


def lesson_path(args, folder):
    """The lesson file to walk: the smoke lesson, or the shipped one on ``--data``."""
    if args.smoke:
        path = Path(folder) / "lesson.yaml"
        path.write_text(SMOKE_LESSON, encoding="utf-8")
        return path
    import bench_load
    from rmsc.dashboard import lesson as lessons

    return bench_load.lesson_file(lessons.default_lesson_path(), args.data, args.max_iter,
                                  folder)


def visits(lesson):
    """What a student does, in order: (label, step number, slider value or None)."""
    import bench_load

    return [(label, n, None if index is None else lesson.step(n).slider.values[index])
            for label, n, index, _ in bench_load.lesson_visits(lesson)]


# ---------------------------------------------------------------------------------------
# The child: one restarted server, its sessions one after another
# ---------------------------------------------------------------------------------------

def child(args):
    from bench_page_runs import Clock, compile_once
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import script_runner
    from streamlit.testing.v1 import app_test
    from streamlit.testing.v1 import AppTest

    from rmsc.dashboard import lesson as lessons
    from rmsc.dashboard import workers

    clock = Clock(now=time.thread_time)
    runs = []
    real_run = script_runner.ScriptRunner._run_script

    def counted(self, *a, **k):
        t0, c0 = time.perf_counter(), time.thread_time()
        try:
            return real_run(self, *a, **k)
        finally:
            runs.append((time.perf_counter() - t0, time.thread_time() - c0))

    script_runner.ScriptRunner._run_script = counted
    compile_once()  # a server compiles each script once; AppTest would in every run

    class SteadyState(PagesManager):  # app.py on every run, as a live server after its first
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            PagesManager.uses_pages_directory = False

    app_test.PagesManager = SteadyState

    import plotly.io
    import streamlit as st
    from plotly.basedatatypes import BaseFigure
    from streamlit.elements.arrow import ArrowMixin

    from rmsc import figures
    from rmsc.dashboard import store

    BaseFigure.to_dict = clock.wrap("charts", BaseFigure.to_dict)
    plotly.io.to_json = clock.wrap("charts", plotly.io.to_json)
    lessons.qr_svg = clock.wrap("QR code", lessons.qr_svg)
    ArrowMixin.dataframe = clock.wrap("tables", ArrowMixin.dataframe)  # col.dataframe
    st.dataframe = clock.wrap("tables", st.dataframe)  # bound when streamlit was imported
    store.DiskStore.get = clock.wrap("disk", store.DiskStore.get)
    store.DiskStore.__contains__ = clock.wrap("disk", store.DiskStore.__contains__)
    for name in dir(figures):
        if name.endswith("_figure"):
            setattr(figures, name, clock.wrap("figures", getattr(figures, name)))

    workers.default_workers()  # started by the server's first page, before the class
    lesson = lessons.load_lesson(os.environ["RMSC_LESSON"])
    walk = visits(lesson)
    out = []
    for session in range(args.sessions):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=args.timeout)
        at.query_params["lesson"] = "1"
        for k, (label, n, value) in enumerate(walk):
            runs.clear()
            clock.take()
            if k == 0:
                at = at.run()
            elif value is None:
                at = at.button(key="lesson_next").click().run()
            else:
                at = at.select_slider(key="lesson_slider").set_value(value).run()
            check(at, lesson, n, label)
            out.append({"session": session, "visit": label, "runs": len(runs),
                        "wall": sum(r[0] for r in runs), "cpu": sum(r[1] for r in runs),
                        **clock.take()})
        for s in at.session_state["slots"].values():
            s.cancel()
    print(json.dumps(out))


def check(at, lesson, n, label):
    """The visit showed step ``n``'s result, read from the warm folder (else the numbers
    would time a fit, not a page)."""
    if at.exception:
        raise SystemExit(f"{label}: {[e.value for e in at.exception]}")
    step = lesson.step(n)
    heading = f"Step {n} of {len(lesson)}: {step.title}"
    if heading not in [s.value for s in at.subheader]:
        raise SystemExit(f"{label}: not on the page ({[s.value for s in at.subheader]})")
    charts = len(at.get("plotly_chart"))
    shown = {"views": charts >= 1, "compare": charts >= 1, "weights": charts >= 1,
             "solve": any(m.label.startswith("density of Z*") for m in at.metric)}[step.show]
    if not shown:
        raise SystemExit(f"{label}: no result on the page: is the folder warm?")


# ---------------------------------------------------------------------------------------
# The parent: the lesson warmed, one child per tree, the tables
# ---------------------------------------------------------------------------------------

def warm(path, folder):
    """Warm ``path`` into ``folder`` here, one piece after another (what is there is kept)."""
    os.environ["RMSC_CACHE_DIR"] = str(folder)
    from rmsc.dashboard import lesson as lessons

    t0 = time.perf_counter()
    n = lessons.warm(lessons.load_lesson(path), lessons.dashboard_cache())
    return n, time.perf_counter() - t0


def main():
    ap = _preamble.parser(__doc__)
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--data", default="Digit-small",
                    help="every step on this bundled dataset (the shipped lesson's is Digit)")
    ap.add_argument("--max-iter", type=int, default=30, help="cap every step's fits")
    ap.add_argument("--cache-dir", default=None,
                    help="the result folder (default: a fresh one); one warm already is reused")
    ap.add_argument("--before", default=None, metavar="REV",
                    help="the same children in the tree at this git revision too")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--child", action="store_true", help=argparse_hidden())
    args = ap.parse_args()
    if args.child:
        return child(args)
    if args.smoke:
        args.sessions = 2
    work = Path(tempfile.mkdtemp(prefix="rmsc-bench-lesson-"))
    try:
        run(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(args, work):
    folder = Path(args.cache_dir) if args.cache_dir else work / "results"
    path = lesson_path(args, work)
    print(f"# bench_lesson_runs: {Path(path).name} on "
          f"{'Subspaces' if args.smoke else args.data}, fits capped at "
          f"{5 if args.smoke else args.max_iter} iterations; {_preamble.machine()}", flush=True)
    n, seconds = warm(path, folder)
    print(f"warm-up: {n} result(s) computed in {seconds:.0f} s", flush=True)
    trees = [("now", ROOT, folder)]
    if args.before:
        root = _baseline.checkout(args.before)
        shutil.copy(SCRIPT, root / "benchmarks" / SCRIPT.name)
        for helper in ("bench_page_runs.py", "bench_load.py", "_preamble.py"):
            if not (root / "benchmarks" / helper).exists():
                raise SystemExit(f"{args.before} has no benchmarks/{helper}")
        # the Clock of this checkout (its CPU clock) beside this script
        shutil.copy(SCRIPT.parent / "bench_page_runs.py", root / "benchmarks")
        rekeyed = work / "results-before"
        _baseline.rekey(folder, rekeyed, root)
        trees.insert(0, ("before", root, rekeyed))
    results = {}
    for tag, root, cache in trees:
        cmd = [sys.executable, str(root / "benchmarks" / SCRIPT.name), "--child",
               "--sessions", str(args.sessions), "--timeout", str(args.timeout)]
        env = {**os.environ, "RMSC_CACHE_DIR": str(cache), "RMSC_LESSON": str(path),
               "PYTHONPATH": str(root)}
        env.pop("RMSC_SCHEDULER", None)
        done = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env)
        if done.returncode:
            raise SystemExit(f"the child ({tag}) failed:\n{done.stdout[-2000:]}\n"
                             f"{done.stderr[-4000:]}")
        results[tag] = json.loads(done.stdout.strip().splitlines()[-1])
    if args.before:
        shutil.rmtree(trees[0][1], ignore_errors=True)
    for tag, rows in results.items():
        print()
        if args.before:
            print(f"**{'this checkout' if tag == 'now' else args.before}**")
            print()
        print_table(rows, args.sessions)
    if args.before:
        print()
        print_side_by_side(results, args)
    print(f"# load average after: {_preamble.load_average()}")


def _per_visit(rows):
    order = list(dict.fromkeys(r["visit"] for r in rows))
    return [(v, [r for r in rows if r["visit"] == v]) for v in order]


def print_table(rows, sessions):
    print(f"Seconds of the page's script runs per visit: the first session's, and the median "
          f"of the {sessions - 1} later session(s) (CPU: the script's thread), with their CPU "
          "by part; 8 clicks at once: the first session's CPU + 7 × the later ones'.")
    print()
    print("| visit | runs | first wall s | first CPU s | later wall s | later CPU s | "
          + " | ".join(f"{p} s" for p in PARTS) + " | rest s | 8 at once, CPU s |")
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(PARTS) + "---:|---:|")
    med = statistics.median
    for visit, got in _per_visit(rows):
        first = [r for r in got if r["session"] == 0][0]
        rest = [r for r in got if r["session"] > 0] or [first]
        parts = [med(r.get(p, 0.0) for r in rest) for p in PARTS]
        cpu = med(r["cpu"] for r in rest)
        other = med(r["cpu"] - sum(r.get(p, 0.0) for p in PARTS) for r in rest)
        runs = "/".join(map(str, sorted({r["runs"] for r in got})))
        print(f"| {visit} | {runs} | {first['wall']:.2f} | {first['cpu']:.2f} | "
              f"{med(r['wall'] for r in rest):.2f} | {cpu:.2f} | "
              + " | ".join(f"{p:.3f}" for p in parts)
              + f" | {other:.3f} | {first['cpu'] + 7 * cpu:.2f} |")


def print_side_by_side(results, args):
    print(f"The later sessions' CPU seconds per visit, {args.before} against this checkout "
          "(medians):")
    print()
    print("| visit | before CPU s | now CPU s | now / before | 8 at once before s | "
          "8 at once now s |")
    print("|---|---:|---:|---:|---:|---:|")
    med = statistics.median
    before, now = dict(_per_visit(results["before"])), _per_visit(results["now"])
    for visit, got in now:
        cols = []
        for rows in (before[visit], got):
            first = [r for r in rows if r["session"] == 0][0]
            later = med(r["cpu"] for r in rows if r["session"] > 0) if len(rows) > 1 \
                else first["cpu"]
            cols.append((later, first["cpu"] + 7 * later))
        ratio = cols[1][0] / cols[0][0] if cols[0][0] else float("nan")
        print(f"| {visit} | {cols[0][0]:.3f} | {cols[1][0]:.3f} | {ratio:.2f} | "
              f"{cols[0][1]:.2f} | {cols[1][1]:.2f} |")


def argparse_hidden():
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
