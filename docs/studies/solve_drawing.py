"""Where a browser's seconds go when a visitor opens Solve on a result the server has on disk.

    python docs/studies/solve_drawing.py [--repeat 2] [--iters 10] [--profile FILE]

A server of this checkout (``python app.py``) fits Digit at β = 0.3 (``--iters``
iterations, a result of Digit's size) into a fresh result folder and is stopped; then, per
round, a restarted server over that folder serves its first page (Data, as
``benchmarks/bench_dashboard.py --only reopen`` does), and a fresh browser context opens
Solve at that setting until the result is on screen (the benchmark's condition). Printed
per round:

* when each part of the page first appeared (ms after the ``goto``; a MutationObserver in
  the page), and when the script's run ended as the browser saw it;
* Chromium's CPU seconds (its trace, ``devtools.timeline``: each thread's top-level tasks'
  ``tdur``, so that a loaded machine's waits are not counted) from the ``goto`` to the
  script's start, during the script's run and from its end to the result, per thread group
  and, on the page's main thread, per kind of work (module evaluation, plotly's drawing in
  promises, React's script, style and layout);
* the JavaScript functions with the most self time (a CPU profile of the page, CDP
  ``Profiler``), by file, so that a chart library's drawing can be told from React's.

``--profile FILE`` keeps the last round's Chromium trace (JSON, open it in
``chrome://tracing`` or Perfetto).

Measured: the tables of docs/acceleration.md, *What the browser does when Solve opens*,
were written with this script at the commits named there. Not smoke-tested: a one-off study
(it needs Chromium and fits Digit), kept to rerun by hand.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402  (the root on sys.path, one thread)

import collections  # noqa: E402
import json  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import bench_dashboard as bd  # noqa: E402

#: What the observer records: a name and a CSS selector whose first match (or the count of
#: matches, for the charts) marks that part of the page on screen.
PARTS = {
    "title": "h1",
    "sidebar dataset": "[data-testid=stSidebar] [data-testid=stMarkdown]",
    "first metric": "[data-testid=stMetric]",
    "first slider": "[data-testid=stSlider]",
    # the scores' table: a grid up to 3a05359, Markdown text since
    "table": "[data-testid=stDataFrame] canvas, [data-testid=stMarkdownContainer] table",
    "download buttons": "[data-testid=stDownloadButton]",
}
CHARTS = 3

OBSERVER = """
(() => {
  window.__marks = {};
  const parts = %s;
  const charts = %d;
  const seen = (name) => { if (!(name in window.__marks)) {
    window.__marks[name] = performance.now(); performance.mark('rmsc:' + name); } };
  const look = () => {
    for (const [name, sel] of Object.entries(parts)) if (document.querySelector(sel)) seen(name);
    const waiting = document.querySelectorAll('[data-testid=stSkeleton]').length;
    window.__most = Math.max(window.__most || 0, waiting);  // placeholders at once
    const n = document.querySelectorAll('.js-plotly-plot').length;
    for (let i = 1; i <= Math.min(n, charts); i++) seen('chart ' + i);
    const drawn = document.querySelectorAll('.js-plotly-plot .main-svg').length;
    if (drawn) seen('first chart drawn (svg)');
    const s = document.querySelector('[data-test-script-state]');
    if (s && s.getAttribute('data-test-script-state') === 'running') seen('script running');
    if (s && s.getAttribute('data-test-script-state') === 'notRunning'
        && 'script running' in window.__marks) seen('script ended');
  };
  new MutationObserver(look).observe(document, {subtree: true, childList: true,
                                                attributes: true});
})();
""" % (json.dumps(PARTS), CHARTS)

CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute",
              "blink.user_timing", "loading"]
def short_url(url):
    if not url:
        return "(no file)"
    name = url.rsplit("/", 1)[-1].split("?")[0]
    return name or url


def threads(events):
    """{(pid, tid): (process name, thread name)} of the trace."""
    procs = {e["pid"]: e["args"].get("name") for e in events
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    return {(e["pid"], e["tid"]): (procs.get(e["pid"]), e["args"].get("name")) for e in events
            if e.get("ph") == "M" and e.get("name") == "thread_name"}


def top_level(events, key):
    """The thread's top-level tasks, each with the CPU µs (``tdur``) of its children by name."""
    xs = sorted((e for e in events if e.get("ph") == "X" and (e["pid"], e["tid"]) == key),
                key=lambda e: (e["ts"], -e.get("dur", 0)))
    out, end = [], -1
    for e in xs:
        if e["ts"] >= end:
            out.append((e, collections.Counter()))
            end = e["ts"] + e.get("dur", 0)
        else:
            out[-1][1][e["name"]] += e.get("tdur", 0)
    return out


def kind_of(task, children):
    """What a main-thread task mostly did (by its children's CPU time)."""
    cpu = max(task.get("tdur", 0), 1)
    if children["v8.evaluateModule"] > cpu / 2:
        return "module evaluation"
    if children["RunMicrotasks"] > cpu / 2:
        return "promises (plotly's drawing)"
    if children["FunctionCall"] + children["EventDispatch"] + children["TimerFire"] > cpu / 2:
        return "script (React)"
    if sum(children[n] for n in ("UpdateLayoutTree", "Layout", "Paint", "PrePaint",
                                 "Commit")) > cpu * 0.3:
        return "style, layout, paint"
    return "other"


def group_of(process, thread):
    if thread == "CrRendererMain":
        return "the page's main thread"
    if thread == "VizCompositorThread":
        return "the GPU process's compositor"
    if process == "Renderer" and (thread == "Compositor" or thread.startswith("ThreadPool")
                                  or thread.startswith("CompositorTile")):
        return "the page's compositor and raster threads"
    if process == "Browser":
        return "the browser process"
    return "other threads"


def phases(events):
    """CPU seconds (``tdur`` of top-level tasks) per phase: the goto to the script's start,
    the script's run, its end to the result (the trace's end), as the page's marks say;
    for each thread group and, on the page's main thread, each kind of work."""
    marks = {e["name"][5:]: e["ts"] for e in events if e.get("name", "").startswith("rmsc:")}
    start = min(e["ts"] for e in events if e.get("ph") == "X")
    cuts = [start, marks.get("script running", start), marks.get("script ended", start)]
    names = threads(events)
    counts = collections.Counter((e["pid"], e["tid"]) for e in events if e.get("ph") == "X")
    page = max((k for k in names if names[k][1] == "CrRendererMain"), key=counts.get)
    cpu = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for key, (process, thread) in names.items():
        if thread == "CrRendererMain" and key != page:
            continue
        for task, children in top_level(events, key):
            i = sum(task["ts"] >= c for c in cuts[1:])
            cpu[group_of(process, thread or "")][i] += task.get("tdur", 0) / 1e6
            if key == page:
                cpu["… " + kind_of(task, children)][i] += task.get("tdur", 0) / 1e6
    walls = [(cuts[1] - cuts[0]) / 1e6, (cuts[2] - cuts[1]) / 1e6,
             (max(e["ts"] + e.get("dur", 0) for e in events if e.get("ph") == "X")
              - cuts[2]) / 1e6]
    return cpu, walls


ORDER = ["the page's main thread", "… module evaluation", "… promises (plotly's drawing)",
         "… script (React)", "… style, layout, paint", "… other",
         "the GPU process's compositor", "the page's compositor and raster threads",
         "the browser process", "other threads"]


def profile_functions(profile, top=15):
    """Self ms per (function, file) of a CDP CPU profile."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    dt = collections.Counter()
    samples, deltas = profile.get("samples", []), profile.get("timeDeltas", [])
    for sid, d in zip(samples, deltas[1:] + [0]):
        n = nodes[sid]["callFrame"]
        dt[(n["functionName"] or "(anonymous)", short_url(n["url"]))] += d
    by_file = collections.Counter()
    for (fn, f), us in dt.items():
        by_file[f] += us
    return ([(fn, f, us / 1e3) for (fn, f), us in dt.most_common(top)],
            [(f, us / 1e3) for f, us in by_file.most_common(8)])


def one_round(browser, url, query, keep=None):
    """A fresh context opens Solve; returns (seconds to the result, marks, trace, profile)."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
    ctx.add_init_script(OBSERVER)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 500})
    cdp.send("Profiler.start")
    with tempfile.TemporaryDirectory() as tmp:
        trace_path = Path(tmp) / "trace.json"
        browser.start_tracing(page=page, path=str(trace_path), categories=CATEGORIES)
        t0 = time.perf_counter()
        page.goto(f"{url}/solve?beta=0.3{query}")
        bd.wait(page, bd.SOLVE_RESULT)
        seconds = time.perf_counter() - t0
        marks = page.evaluate("window.__marks")
        marks = {**marks, "(most placeholders on screen at once: "
                          f"{page.evaluate('window.__most || 0')})": 0.0}
        origin = page.evaluate("performance.timeOrigin")
        browser.stop_tracing()
        trace = json.loads(trace_path.read_text())
        if keep:
            Path(keep).write_text(trace_path.read_text())
    profile = cdp.send("Profiler.stop")["profile"]
    ctx.close()
    return seconds, marks, origin, trace, profile


def report(n, seconds, marks, trace, profile):
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    cpu, walls = phases(events)
    print(f"### Round {n}: the result on screen after {seconds:.2f} s "
          f"({_preamble.machine()})\n")
    print("| part of the page | first on screen, ms after the goto |")
    print("|---|---:|")
    for name, ms in sorted(marks.items(), key=lambda kv: kv[1]):
        print(f"| {name} | {ms:.0f} |")
    print()
    print(f"| Chromium's CPU, s | goto → script starts ({walls[0]:.1f} s) | script runs "
          f"({walls[1]:.1f} s) | script ended → result ({walls[2]:.1f} s) |")
    print("|---|---:|---:|---:|")
    for name in ORDER:
        if name in cpu:
            print(f"| {name} | " + " | ".join(f"{x:.2f}" for x in cpu[name]) + " |")
    functions, by_file = profile_functions(profile)
    print("\nCPU profile (JavaScript self time), by file:\n")
    print("| file | self ms |")
    print("|---|---:|")
    for f, ms in by_file:
        print(f"| {f} | {ms:.0f} |")
    print("\n| function | file | self ms |")
    print("|---|---|---:|")
    for fn, f, ms in functions:
        print(f"| {fn} | {f} | {ms:.0f} |")
    print()


def main():
    ap = _preamble.parser(__doc__, smoke=False)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--iters", type=int, default=10,
                    help="iterations of the fit the first server makes (0: the defaults')")
    ap.add_argument("--profile", default=None, help="keep the last round's Chromium trace here")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    query = f"&max_iter={args.iters}" if args.iters else ""
    with tempfile.TemporaryDirectory(prefix="rmsc-study-cache-") as folder, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=bd.CHROMIUM, args=bd.ARGS)
        proc, url = bd.start_server(bd.free_port(), cache_dir=folder)
        try:  # the fit, kept on disk
            ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
            page = ctx.new_page()
            page.goto(f"{url}/solve?beta=0.3{query}")
            bd.wait(page, bd.SOLVE_RESULT)
            ctx.close()
        finally:
            bd.stop_server(proc)
        for n in range(1, args.repeat + 1):
            proc, url = bd.start_server(bd.free_port(), cache_dir=folder)
            try:
                ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
                page = ctx.new_page()
                page.goto(f"{url}/?beta=0.3{query}")  # the server's first page, as the benchmark
                bd.wait(page, bd.DATA_READY)
                ctx.close()
                keep = args.profile if n == args.repeat else None
                report(n, *[x for i, x in enumerate(one_round(browser, url, query, keep))
                            if i != 2])
            finally:
                bd.stop_server(proc)
        browser.close()


if __name__ == "__main__":
    main()
