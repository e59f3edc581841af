"""A class at once: N browser sessions moving the β slider on Digit, printed as a table.

    python benchmarks/bench_load.py [--sessions 1,4,8,16] [--moves 2] [--cluster local|cli]
                                    [--check 4] [--browser-nice 19] [--browser-idle]
                                    [--idle-wait 200] [--smoke]

``--smoke`` (tests/benchmarks/test_benchmarks.py): one session, one move, on Digit-small, no idle
wait: a check that the script works; its numbers mean nothing.

Starts the dashboard (``streamlit run app.py`` on a free loopback port), opens N
browser contexts of Debian's Chromium at once (Playwright), each on the Solve page
with parameters of its own in the URL (λ and a starting β, all sessions different, so
no two sessions ask for the same fit), waits for its first result, then moves the β
slider ``--moves`` times (one arrow key, then the result), as students following a
teacher do. Measured per N:

* latency per result: from the key press to the new result's numbers on screen, the
  page's script run finished (median, max), and results per minute over the slider phase;
* memory: peak RSS of the server process (Streamlit, and the LocalCluster's scheduler
  and nannies, which run in it) and of the worker processes (sum), and their total;
* the health check (``/_stcore/health``, probed every 0.5 s from a thread): max latency
  and how many probes took over 1 s;
* memory again 60 s and ``--idle-wait`` (200) seconds after every session closed (the server
  cancels a gone session's work after 30 s and, when none is left, empties its caches and trims
  its heap, again every minute: Streamlit frees a disconnected session's state after its
  2-minute TTL; ``rmsc.dashboard.sessions``), against the server's at start;
* CPU seconds of the server, the workers and the browsers: the browsers share the
  server's two cores here (in a class they run on the students' machines), so they start
  at the lowest priority (``--browser-nice``, 0 to share equally). Chromium, run as root,
  raises its own processes' priority again (nice -8 to 5, whatever it was started at);
  ``--browser-idle`` starts it under ``chrt --idle 0`` instead (Linux's SCHED_IDLE, which
  every process it starts inherits and which no nice undoes: the browsers run only on a
  core nothing else wants), so that the times measure the server's part. The first line
  says which was used, and the last how the browser processes actually ran (their policy
  and nice, read while they ran);
* errors: sessions that timed out, exceptions on a page, and results that differ from an
  in-process fit of the same parameters (``--check`` results per N, drawn at random, are
  fitted again here after the browser part, and compared number for number as shown) or
  that show another session's parameters.

``--cluster cli`` serves against a Dask cluster started from the command line instead of
the app's own LocalCluster: ``dask scheduler`` and two ``dask worker`` processes on
loopback (``RMSC_SCHEDULER``), with their memory counted as the workers'.

Targets (the serving work) on the 2-core machine: median latency at N ≤ 1.3 × max(1, N/cores) ×
the N = 1 median; no wrong, lost or mixed-up result; total memory ≤ 2 GB at N = 8; the
health check answers within 1 s throughout.

A class following the guided lesson (docs/lesson.md):

    python benchmarks/bench_load.py --lesson [FILE] [--data Digit-small] [--max-iter N]
                                    [--sessions 8] [--cache-dir DIR] [--browser-idle] [--smoke]

warms the lesson first (``rmsc lesson --warm`` into ``--cache-dir``, by default a fresh
temporary folder, timed; a folder warmed before is reused and only what is missing is
computed), then serves the dashboard over that folder (``RMSC_CACHE_DIR``, ``RMSC_LESSON``)
and has N browser sessions at once open ``?lesson=1`` and step through the whole lesson with
Next (and, on a step with a guided slider, through each of its values). Measured per step,
median and max over the sessions, two times from the click (from the address opened, for
step 1), each a DOM condition: until the step's result is shown (the step's heading, the
script idle, its sentences, numbers and tables -- "What the outliers changed", the density of
Z* at the slider's value -- and its charts' places: the server's part, delivered), and until
its charts are drawn as well (plotly's SVG in each: the browser's part, which in a class runs
on each student's own machine); and how many sessions saw a progress bar on the way
(something computed during the visit instead of read from the warm cache). Target: every step ≤ 2 s on
a warm server with 8 sessions. ``--data`` puts every step on another bundled dataset (e.g.
Digit-small, where full Digit takes too long to warm); ``--max-iter`` caps the fits
(``--smoke``: one session, Digit-small, 5 iterations: a check that the mode works).
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread

import argparse
import asyncio
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import psutil

ROOT = _preamble.ROOT
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT = 300_000  # ms, any one wait of a session (bounded: a stuck session is an error)

#: Every session's λ and starting β (the β slider then moves down): 16 distinct starts
#: whose paths do not meet with 2 moves (β 0.3 -> 0.2 -> 0.1 and 0.05 -> 0.03 -> 0.02).
#: λ from the former default 0.3 up: Z* empties at a β_max that grows with λ, and β = 0.3 is
#: below it from λ = 0.3 on (a smaller λ may give no clustering, which is a result too).
LAMS = (0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0)
#: The dataset every session opens (--smoke: Digit-small).
DATA = "Digit"
BETA_STARTS = (0.3, 0.05)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_health(url, proc, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the dashboard did not start")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError("the dashboard did not answer its health check")


class Sampler(threading.Thread):
    """Health probes every 0.5 s and memory every 0.5 s, until stopped (bounded by it)."""

    def __init__(self, url, server_pid, cluster_pids=()):
        super().__init__(daemon=True)
        self.url, self.server = url, psutil.Process(server_pid)
        self.cluster = [psutil.Process(p) for p in cluster_pids]
        self.stop = threading.Event()
        self.health = []
        self.server_peak = self.worker_peak = self.total_peak = 0
        self.server_now = self.workers_now = 0
        self.cpu = {}  # pid -> (group, cpu seconds so far): server, workers, browser
        self.browser_sched = {}  # pid -> (scheduling policy, nice) of this run's browsers

    def _rss(self, proc):
        try:
            return proc.memory_info().rss
        except psutil.Error:
            return 0

    def _tree(self, proc):
        try:
            return [proc, *proc.children(recursive=True)]
        except psutil.Error:
            return []

    def _account(self):
        groups = [("server", [self.server]),
                  ("workers", self._tree(self.server)[1:]
                   + [p for c in self.cluster for p in self._tree(c)]),
                  ("browser", own_browsers())]
        for p in groups[2][1]:
            try:
                self.browser_sched[p.pid] = (os.sched_getscheduler(p.pid), p.nice())
            except (psutil.Error, OSError):
                pass
        for group, procs in groups:
            for p in procs:
                try:
                    t = p.cpu_times()
                    self.cpu[p.pid] = (group, t.user + t.system)
                except psutil.Error:
                    pass

    def browser_priority(self):
        """How this run's browser processes ran, in words: their scheduling policy and nice."""
        if not self.browser_sched:
            return "no browser process seen"
        idle = sum(pol == getattr(os, "SCHED_IDLE", -1) for pol, _ in self.browser_sched.values())
        nices = sorted({n for _, n in self.browser_sched.values()})
        return (f"{idle} of {len(self.browser_sched)} browser processes under SCHED_IDLE, "
                f"nice {nices[0]}..{nices[-1]}")

    def cpu_share(self):
        """CPU seconds used per group (server, workers, browser) while sampled."""
        out = {"server": 0.0, "workers": 0.0, "browser": 0.0}
        for group, secs in self.cpu.values():
            out[group] += secs
        return out

    def run(self):
        while not self.stop.is_set():
            t0 = time.perf_counter()
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=10):
                    pass
                self.health.append(time.perf_counter() - t0)
            except OSError:
                self.health.append(float("inf"))
            server = self._rss(self.server)
            workers = sum(self._rss(p) for p in self._tree(self.server)[1:])
            workers += sum(self._rss(p) for c in self.cluster for p in self._tree(c))
            self.server_now, self.workers_now = server, workers
            self._account()
            self.server_peak = max(self.server_peak, server)
            self.worker_peak = max(self.worker_peak, workers)
            self.total_peak = max(self.total_peak, server + workers)
            self.stop.wait(0.5)


def session_plan(i, moves):
    from rmsc import dashboard as dash

    lam = LAMS[i % len(LAMS)]
    start = BETA_STARTS[(i // len(LAMS)) % len(BETA_STARTS)]
    grid = list(dash.BETA_GRID)
    k = grid.index(start)
    return lam, [grid[k - m] for m in range(moves + 1)]


SHOWN = """() => {
  const v = l => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]
      .find(e => e.innerText.includes(l));
      return m ? m.querySelector('[data-testid=stMetricValue]').innerText : null; };
  return {acc: v('ACC'), nmi: v('NMI'), iterations: v('iterations'), density: v('density of Z*'),
          sidebar: document.querySelector('[data-testid=stSidebar]').innerText};
}"""


def fit_seconds(sidebar):
    """The fit's own duration on its worker, as the sidebar states it ("Fitted on CPU
    (NumPy): 30 iterations, 9.8 s"), or NaN."""
    m = re.search(r"Fitted(?: on [^:]+)?: \d+ iterations, ([0-9.]+) s", sidebar)
    return float(m.group(1)) if m else float("nan")


async def run_session(browser, url, i, moves, out, errors):
    lam, betas = session_plan(i, moves)
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    page.on("pageerror", lambda e: errors.append(f"session {i}: page error {e}"))

    async def result_for(beta):
        # the new β is on the page (sidebar) and its fit has finished (sidebar "Fitted on
        # <device>:")
        await page.wait_for_function(
            "b => { const s = document.querySelector('[data-testid=stSidebar]');"
            " const t = s ? s.innerText : '';"
            " const idle = document.querySelector(\"[data-test-script-state='notRunning']\");"
            " return idle && t.includes('β = ' + b + ',') && ((/Fitted( on [^:]+)?:/.test(t) &&"
            " [...document.querySelectorAll('[data-testid=stMetric]')]"
            ".some(e => e.innerText.includes('iterations'))) || t.includes('Fit failed')); }",
            arg=f"{beta:g}", timeout=TIMEOUT)
        shown = await page.evaluate(SHOWN)
        if f"λ = {lam:g}, β = {beta:g}," not in shown["sidebar"]:
            errors.append(f"session {i}: sidebar shows other parameters than λ = {lam:g}")
        if await page.locator("[data-testid=stException]").count():
            errors.append(f"session {i}: an exception on the page")
        return shown

    try:
        await page.goto(f"{url}/solve?data={DATA}&lam={lam:g}&beta={betas[0]:g}",
                        timeout=TIMEOUT)
        shown = await result_for(betas[0])
        out.append({"session": i, "lam": lam, "beta": betas[0], "latency": None, **shown})
        thumb = page.locator("[data-testid=stSlider]", has_text="β (sparsity").get_by_role(
            "slider")
        for beta in betas[1:]:
            await thumb.focus()
            t0 = time.perf_counter()
            await thumb.press("ArrowLeft")
            shown = await result_for(beta)
            out.append({"session": i, "lam": lam, "beta": beta,
                        "latency": time.perf_counter() - t0, "t_end": time.time(),
                        "fit_s": fit_seconds(shown["sidebar"]), **shown})
    except Exception as exc:  # noqa: BLE001 - a stuck or broken session is counted
        errors.append(f"session {i}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    finally:
        await context.close()


def own_browsers():
    """The Chromium processes this script started (its descendants), not other programs'."""
    try:
        return [p for p in psutil.Process().children(recursive=True)
                if p.name().startswith("chrom")]
    except psutil.Error:
        return []


def browser_executable(nice, idle=False):
    """Chromium, or a wrapper that starts it at ``nice`` (students' browsers run on their
    own machines; here they share the server's cores, at the lowest priority), and with
    ``idle`` under ``chrt --idle 0``: Linux's SCHED_IDLE, which runs a process only when
    nothing else wants the core. Chromium, running as root, raises its own processes' nice
    (to -8 and 0, whatever ``nice`` started it at); SCHED_IDLE, inherited by every process it
    starts, does not depend on nice, so the browsers stay below the server."""
    if not nice and not idle:
        return CHROMIUM
    import shutil
    import tempfile

    prefix = f"nice -n {int(nice)} " if nice else ""
    if idle:
        chrt = shutil.which("chrt")
        if chrt is None:
            raise SystemExit("--browser-idle needs chrt (util-linux), which is not on PATH")
        prefix = f"{chrt} --idle 0 {prefix}"
    path = Path(tempfile.mkdtemp(prefix="bench_load_")) / "chromium"
    path.write_text(f'#!/bin/sh\nexec {prefix}"{CHROMIUM}" "$@"\n')
    path.chmod(0o755)
    return str(path)


def browser_words(nice, idle):
    """How the browsers were started, for a table's first line."""
    return (f"browsers under chrt --idle 0 (SCHED_IDLE) at nice {nice}" if idle
            else f"browsers at nice {nice}")


async def drive(url, n, moves, nice=0, idle=False):
    from playwright.async_api import async_playwright

    out, errors = [], []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=browser_executable(nice, idle),
                                          args=ARGS)
        try:
            await asyncio.gather(*(run_session(browser, url, i, moves, out, errors)
                                   for i in range(n)))
        finally:
            await browser.close()
    return out, errors


def check_results(results, k, seed):
    """Fit ``k`` of the shown results again in this process; the mismatches, as text."""
    from rmsc import dashboard as dash
    from rmsc import datasets

    data = datasets.load_bundled(DATA)
    rng = random.Random(seed)
    bad = []
    for r in rng.sample(results, min(k, len(results))):
        ref = dash.fit_rmsc(data, dash.Params(lam=r["lam"], beta=r["beta"]))
        if not isinstance(ref, dash.FitResult):  # no clustering: the page must say so
            if "Fit failed" not in r["sidebar"]:
                bad.append(f"λ={r['lam']:g} β={r['beta']:g}: shown {r['acc']}, in-process "
                           f"no clustering ({ref.message})")
            continue
        expect = {"acc": f"{100 * ref.scores['acc_mean']:.2f}%",
                  "nmi": f"{100 * ref.scores['nmi_mean']:.2f}%",
                  "iterations": f"{ref.n_iter}" + ("" if ref.converged else "+"),
                  "density": f"{100 * ref.density:.2f}%"}
        got = {name: r[name] for name in expect}
        if got != expect:
            bad.append(f"λ={r['lam']:g} β={r['beta']:g}: shown {got}, in-process {expect}")
    return min(k, len(results)), bad


def start_cli_cluster(log):
    """``dask scheduler`` and two ``dask worker`` processes on loopback; (address, procs)."""
    dask = str(Path(sys.executable).parent / "dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                               "--no-dashboard"], stdout=log, stderr=subprocess.STDOUT,
                              cwd=ROOT)]
    time.sleep(3)
    for _ in range(2):
        procs.append(subprocess.Popen(
            [dask, "worker", address, "--nthreads", "1", "--nworkers", "1",
             "--host", "127.0.0.1", "--no-dashboard"],
            stdout=log, stderr=subprocess.STDOUT, cwd=ROOT))
    from distributed import Client

    with Client(address, timeout="60s") as c:
        c.wait_for_workers(2, timeout=120)
    return address, procs


def stop(procs):
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()


def start_server(env, log):
    """The dashboard (``streamlit run app.py``) on a free local port: (process, its URL)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.address", "127.0.0.1", "--server.port", str(port),
         "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    return server, f"http://127.0.0.1:{port}"


def one_run(n, moves, cluster, log, idle_wait, nice, idle=False):
    env = dict(os.environ)
    # No results on disk (rmsc.dashboard.store): every run measures its fits, not an
    # earlier run's.
    env["RMSC_CACHE_DIR"] = "off"
    cluster_procs = []
    if cluster == "cli":
        address, cluster_procs = start_cli_cluster(log)
        env["RMSC_SCHEDULER"] = address
    else:
        env.pop("RMSC_SCHEDULER", None)
    server, url = start_server(env, log)
    try:
        wait_health(url, server)
        sampler = Sampler(url, server.pid, [p.pid for p in cluster_procs])
        sampler.start()
        t0 = time.time()
        time.sleep(1.0)
        start_mb = sampler.server_now
        results, errors = asyncio.run(drive(url, n, moves, nice, idle))
        # every browser context has closed: the server sweeps gone sessions (after their
        # grace) and, when none is left, returns to its idle footprint
        after, waited = [], 0.0
        for mark in sorted({min(60.0, idle_wait), idle_wait}):
            time.sleep(mark - waited)
            waited = mark
            after.append((mark, sampler.server_now, sampler.workers_now))
        sampler.stop.set()
        sampler.join(10)
    finally:
        stop([server])
        stop(cluster_procs)
    moved = [r for r in results if r["latency"] is not None]
    lat = [r["latency"] for r in moved]
    span = (max(r["t_end"] for r in moved) - t0) if moved else float("nan")
    return {"n": n, "results": results, "errors": errors, "lat": lat,
            "per_min": 60 * len(results) / span if moved else 0.0,
            "expected": n * (moves + 1), "sampler": sampler, "start": start_mb,
            "after": after}


# -- a class following the guided lesson ----------------------------------------------------

#: Seconds a lesson step may take to render on a warm server (the lesson's target).
STEP_TARGET = 2.0

#: JavaScript: true once step ``n`` of the lesson shows its result: its heading, the script
#: idle (stale elements of the step before are gone then), the step's sentences and numbers
#: (``needs``), its elements delivered (``parts``: a CSS selector and how many: its tables, and
#: its charts' places), the slider's value in the sidebar, and, with ``drawn``, its charts
#: drawn by plotly (``charts``).
STEP_SHOWN = """([heading, charts, needs, slider, parts, drawn]) => {
  const main = document.querySelector('[data-testid=stMain]');
  if (!main || !document.querySelector("[data-test-script-state='notRunning']")) return false;
  const text = main.innerText;
  if (!text.includes(heading)) return false;
  if (!needs.every(t => text.includes(t))) return false;
  if (!parts.every(([css, n]) => main.querySelectorAll(css).length >= n)) return false;
  if (slider !== null) {
    const side = document.querySelector('[data-testid=stSidebar]');
    if (!side || !side.innerText.includes(slider)) return false;
    if (!/Fitted( on [^:]+)?:/.test(side.innerText)) return false;
  }
  if (drawn && main.querySelectorAll('.js-plotly-plot .main-svg').length < charts) return false;
  return true;
}"""

#: JavaScript run in every document before its own scripts: notes whether a progress bar
#: (a fit or a comparison computed during the visit) was ever shown since the flag was reset.
PROGRESS_WATCH = """(() => {
  window.__progressSeen = false;
  new MutationObserver(() => {
    if (document.querySelector('[data-testid=stProgress]')) window.__progressSeen = true;
  }).observe(document, {childList: true, subtree: true});
})();"""


def lesson_file(source, data, max_iter, folder):
    """The lesson to serve: ``source`` itself, or a copy with every step on ``data`` and its
    fits capped at ``max_iter`` (relative file paths made absolute)."""
    import yaml

    if data is None and max_iter is None:
        return Path(source)
    doc = yaml.safe_load(Path(source).read_text(encoding="utf-8"))
    from rmsc import datasets

    for step in doc["steps"]:
        if data is not None:
            step["data"] = data
        elif step.get("data") and step["data"] not in datasets.bundled_names():
            step["data"] = str((Path(source).parent / step["data"]).resolve())
        if max_iter is not None:
            step["params"] = {**(step.get("params") or {}), "max_iter": int(max_iter)}
    path = Path(folder) / "lesson.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def lesson_visits(lesson):
    """What a student sees, in order: (label, step number, slider index or None, the key to
    press or None) for every step (entered with Next), and each other value of a step's
    slider (moved one notch at a time with the arrow keys: down to the first, then up)."""
    out = []
    for n, step in enumerate(lesson.steps, 1):
        out.append((f"{n}. {step.title}", n, None, None))
        if step.slider is not None:
            values, p = list(step.slider.values), step.params
            own = {"lam": p.resolved_lam, "beta_rel": p.resolved_beta_rel,
                   "beta": p.beta}[step.slider.param]
            k = min(range(len(values)), key=lambda i: abs(values[i] - own))
            for i in range(k - 1, -1, -1):
                out.append((f"{n}. slider {step.slider.param} = {values[i]:g}", n, i,
                            "ArrowLeft"))
            for i in range(1, len(values)):
                out.append((f"{n}. slider {step.slider.param} = {values[i]:g}", n, i,
                            "ArrowRight"))
    return out


def step_condition(lesson, n, slider_index, drawn=True):
    """The arguments of :data:`STEP_SHOWN` for step ``n`` (at its slider's value): its result
    shown, and with ``drawn`` its charts drawn too."""
    step = lesson.step(n)
    heading = f"Step {n} of {len(lesson)}: {step.title}"
    with_outliers = step.outliers is not None
    charts = {"views": 2, "compare": 2 if with_outliers else 1,
              "weights": 2 if with_outliers else 1, "solve": 0, "summary": 0}[step.show]
    needs = {"compare": ["What the outliers changed"] if with_outliers else [],
             "solve": ["density of Z*"],
             "summary": ["The paper's claim."]}.get(step.show, [])
    # the step's tables, and its charts' places (the keys pages/lesson.py gives them)
    table = "[data-testid=stDataFrame]"
    parts = {"views": [[".st-key-lesson_views", 1], [".st-key-lesson_images", 1]],
             "compare": [['[class*="st-key-lesson_cmp_"]', charts], [table, 1]],
             "weights": [[".st-key-lesson_heatmap", 1]]
             + ([[".st-key-lesson_roc", 1], [table, 1]] if with_outliers else []),
             "solve": [[table, 1]], "summary": []}[step.show]
    slider = None
    if step.show == "solve" or step.slider is not None:
        p = step.params
        if slider_index is not None:
            p = p.replace(**{step.slider.param: step.slider.values[slider_index]})
        slider = p.summary()[0]  # the sidebar's line of the parameters shown
    return [heading, charts, needs, slider, parts, drawn]


async def lesson_session(browser, url, lesson, visits, i, out, errors):
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    await context.add_init_script(PROGRESS_WATCH)
    page = await context.new_page()
    page.on("pageerror", lambda e: errors.append(f"session {i}: page error {e}"))
    label = visits[0][0]
    try:
        for k, (label, n, index, key) in enumerate(visits):
            if k:
                await page.evaluate("window.__progressSeen = false")
            t0 = time.perf_counter()
            if k == 0:
                await page.goto(f"{url}/?lesson=1", timeout=TIMEOUT)
            elif key is None:
                # the step's first Next (the page draws one above the step, one at its end)
                await page.get_by_role("button", name="Next →").first.click(timeout=TIMEOUT)
            else:
                thumb = page.locator("[data-testid=stSlider]").get_by_role("slider")
                await thumb.press(key, timeout=TIMEOUT)
            await page.wait_for_function(STEP_SHOWN, timeout=TIMEOUT, polling=50,
                                         arg=step_condition(lesson, n, index, drawn=False))
            shown = time.perf_counter() - t0
            await page.wait_for_function(STEP_SHOWN, arg=step_condition(lesson, n, index),
                                         timeout=TIMEOUT, polling=50)
            seconds = time.perf_counter() - t0
            if await page.locator("[data-testid=stException]").count():
                errors.append(f"session {i}: an exception on the page at {label}")
            out.append({"session": i, "visit": label, "shown": shown, "seconds": seconds,
                        "progress": bool(await page.evaluate("window.__progressSeen"))})
    except Exception as exc:  # noqa: BLE001 - a stuck or broken session is counted
        errors.append(f"session {i} at {label}: {type(exc).__name__}: "
                      f"{str(exc).splitlines()[0]}")
    finally:
        await context.close()


async def drive_lesson(url, lesson, n, nice=0, idle=False):
    from playwright.async_api import async_playwright

    visits = lesson_visits(lesson)
    out, errors = [], []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=browser_executable(nice, idle),
                                          args=ARGS)
        try:
            # the teacher's tab, before the class: the server's first visit starts its worker
            # processes and draws step 1 (timed apart, not counted with the class)
            first = []
            await lesson_session(browser, url, lesson, visits[:1], -1, first, errors)
            CLASS_START[0] = time.time()
            await asyncio.gather(*(lesson_session(browser, url, lesson, visits, i, out, errors)
                                   for i in range(n)))
        finally:
            await browser.close()
    return visits, out, errors, (first[0]["seconds"] if first else float("nan"))


def warm_lesson(path, cache_dir, log):
    """``rmsc lesson --warm --file path`` into ``cache_dir``: (seconds, its summary line)."""
    env = {**os.environ, "RMSC_CACHE_DIR": str(cache_dir)}
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "rmsc", "lesson", "--warm", "--file", str(path)],
                       cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True)
    seconds = time.perf_counter() - t0
    if r.returncode:
        raise RuntimeError(f"rmsc lesson --warm failed ({r.returncode}): {r.stdout[-2000:]}")
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("warm:")), "")
    return seconds, line


#: When the class started (after the teacher's tab): the server's script runs counted from then.
CLASS_START = [0.0]


def script_runs(trace, since):
    """Wall seconds of each of the server's script runs that started after ``since`` (its
    trace, ``RMSC_DASHBOARD_TRACE``: app.py's "run start" and "run end", per thread)."""
    started, out = {}, []
    for line in Path(trace).read_text().splitlines() if Path(trace).exists() else []:
        ts, thread, msg = line.split(" ", 2)
        if msg.startswith("run start"):
            started[thread] = float(ts)
        elif msg.startswith("run end") and thread in started:
            t0 = started.pop(thread)
            if t0 >= since:
                out.append(float(ts) - t0)
    return out


def lesson_run(path, lesson, n, cache_dir, log, nice, idle=False):
    """The dashboard over the warm cache, N sessions walking the lesson at once."""
    import tempfile

    trace = Path(tempfile.mkdtemp(prefix="bench_load_trace_")) / "trace.log"
    env = {**os.environ, "RMSC_CACHE_DIR": str(cache_dir), "RMSC_LESSON": str(path),
           "RMSC_DASHBOARD_TRACE": str(trace)}
    env.pop("RMSC_SCHEDULER", None)
    server, url = start_server(env, log)
    try:
        wait_health(url, server)
        sampler = Sampler(url, server.pid)
        sampler.start()
        visits, results, errors, first = asyncio.run(drive_lesson(url, lesson, n, nice, idle))
        sampler.stop.set()
        sampler.join(10)
    finally:
        stop([server])
    sampler.runs = script_runs(trace, CLASS_START[0])
    return visits, results, errors, sampler, first


def lesson_main(args):
    import shutil
    import tempfile

    from rmsc.dashboard import lesson as lessons

    source = Path(args.lesson) if args.lesson else lessons.default_lesson_path()
    work = Path(tempfile.mkdtemp(prefix="bench_load_lesson_"))
    cache_dir = Path(args.cache_dir) if args.cache_dir else work / "cache"
    try:
        path = lesson_file(source, args.data, args.max_iter, work)
        lesson = lessons.load_lesson(path)
        datas = sorted({s.data if Path(s.data).name == s.data else Path(s.data).name
                        for s in lesson.steps})
        log = open(ROOT / "benchmarks" / "bench_load.log", "w")
        load = os.getloadavg()
        print(f"# bench_load --lesson: {source.name} ({len(lesson)} steps) on "
              f"{', '.join(datas)}"
              + ("" if args.max_iter is None else f", fits capped at {args.max_iter} iterations")
              + f"; {os.cpu_count()} cores, {browser_words(args.browser_nice, args.browser_idle)}, "
              "server at "
              f"nice {os.nice(0)}; load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} "
              "(1 / 5 / 15 min)", flush=True)
        seconds, line = warm_lesson(path, cache_dir, log)
        print(f"warm-up: `rmsc lesson --warm` took {seconds:.0f} s ({line or 'no summary'})",
              flush=True)
        for n in [int(x) for x in args.sessions.split(",")]:
            visits, results, errors, sampler, first = lesson_run(
                path, lesson, n, cache_dir, log, args.browser_nice, args.browser_idle)
            print()
            print(f"The server's first visit (one tab, starting its workers, step 1): "
                  f"{first:.1f} s. Then {n} session(s) at once, seconds from the click until "
                  "each step's result is shown (its heading, sentences, numbers and tables, "
                  "its charts' places, the script idle) and until its charts are drawn too "
                  f"(target ≤ {STEP_TARGET:g} s):")
            print()
            print("| step | sessions | result shown median s | max s | charts drawn median s "
                  "| max s | shown ≤ 2 s | drawn ≤ 2 s | computed during the visit |")
            print("|---|---|---|---|---|---|---|---|---|")
            worst = 0.0
            for label, *_ in visits:
                got = [r for r in results if r["visit"] == label]
                shown = [r["shown"] for r in got]
                secs = [r["seconds"] for r in got]
                if not secs:
                    print(f"| {label} | 0/{n} | — | — | — | — | — | — | — |")
                    continue
                worst = max(worst, max(secs))
                print(f"| {label} | {len(got)}/{n} | {statistics.median(shown):.2f} | "
                      f"{max(shown):.2f} | {statistics.median(secs):.2f} | {max(secs):.2f} | "
                      f"{'yes' if max(shown) <= STEP_TARGET else 'no'} | "
                      f"{'yes' if max(secs) <= STEP_TARGET else 'no'} | "
                      f"{sum(r['progress'] for r in got)}/{len(got)} |")
            health = sampler.health
            walked = sum(1 for i in range(n) if sum(r["session"] == i for r in results)
                         == len(visits))
            print()
            print(f"N={n}: {walked} of {n} sessions walked every step; slowest step "
                  f"{worst:.2f} s; {len(errors)} errors; server peak {mb(sampler.server_peak)} "
                  f"MB, workers {mb(sampler.worker_peak)} MB; health check max "
                  f"{max(health) if health else float('nan'):.2f} s")
            cpu = sampler.cpu_share()
            print(f"N={n}: CPU seconds while sampled: server {cpu['server']:.0f}, workers "
                  f"{cpu['workers']:.0f}, browsers {cpu['browser']:.0f}; "
                  f"{sampler.browser_priority()}")
            runs = sampler.runs
            if runs:
                print(f"N={n}: the server's script runs during the class (its trace, wall "
                      f"seconds from each run's start to its end): {len(runs)} runs, median "
                      f"{statistics.median(runs):.2f} s, max {max(runs):.2f} s, "
                      f"{sum(runs):.1f} s in all")
            for e in errors:
                print(f"N={n}: {e}")
        load = os.getloadavg()
        print(f"# load average after: {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def mb(b):
    return f"{b / 2**20:.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", default="1,4,8,16")
    ap.add_argument("--moves", type=int, default=2)
    ap.add_argument("--cluster", choices=["local", "cli"], default="local")
    ap.add_argument("--check", type=int, default=3,
                    help="results per N fitted again in-process and compared")
    ap.add_argument("--idle-wait", type=float, default=200.0,
                    help="seconds after the last session closed before memory is read again "
                         "(also at 60 s when longer) "
                         "(the server releases a gone session's work after "
                         "rmsc.dashboard.GRACE_SECONDS, sweeping every SWEEP_SECONDS)")
    ap.add_argument("--browser-nice", type=int, default=19,
                    help="niceness of the browsers (0: same priority as the server). In a "
                         "class they run on the students' machines, not on the server's cores")
    ap.add_argument("--browser-idle", action="store_true",
                    help="start the browsers under `chrt --idle 0` (SCHED_IDLE: they run only "
                         "when the server and everything else leave a core idle; Chromium "
                         "undoes a nice, not this). Reported on the first line")
    ap.add_argument("--smoke", action="store_true",
                    help="a check that the script works: one session, one move, Digit-small, "
                         "no idle wait (tests/test_benchmarks.py); its numbers mean nothing")
    ap.add_argument("--lesson", nargs="?", const="", default=None, metavar="FILE",
                    help="a class following the guided lesson (FILE, default the lesson that "
                         "ships): seconds until each step's result is on screen")
    ap.add_argument("--data", default=None,
                    help="--lesson: every step on this bundled dataset (e.g. Digit-small)")
    ap.add_argument("--max-iter", type=int, default=None,
                    help="--lesson: cap every step's fits at this many iterations")
    ap.add_argument("--cache-dir", default=None,
                    help="--lesson: the result folder to warm and serve from (default: a "
                         "fresh temporary one); one warmed before is reused")
    args = ap.parse_args()
    if args.lesson is not None:
        if args.smoke:
            args.sessions, args.data, args.max_iter = "1", args.data or "Digit-small", 5
        elif args.sessions == ap.get_default("sessions"):
            args.sessions = "8"
        return lesson_main(args)
    if args.smoke:
        global DATA
        DATA = "Digit-small"
        args.sessions, args.moves, args.check, args.idle_wait = "1", 1, 1, 0.0
    ns = [int(x) for x in args.sessions.split(",")]
    cores = os.cpu_count() or 1
    log = open(ROOT / "benchmarks" / "bench_load.log", "w")
    print(f"# bench_load: {DATA}, {args.moves} β moves per session, cluster={args.cluster}, "
          f"{cores} cores, {browser_words(args.browser_nice, args.browser_idle)}, load average "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    runs = []
    for n in ns:
        run = one_run(n, args.moves, args.cluster, log, args.idle_wait, args.browser_nice,
                      args.browser_idle)
        checked, bad = check_results(run["results"], args.check, seed=n)
        run["checked"], run["bad"] = checked, bad
        runs.append(run)
        print(f"  N={n}: {len(run['results'])}/{run['expected']} results, "
              f"{len(run['errors'])} errors, {len(bad)} mismatches of {checked} checked",
              flush=True)
    base = statistics.median(runs[0]["lat"]) if runs[0]["lat"] else float("nan")
    print()
    print("Latency against the fits' own time: each result's fit takes `fit s` on its worker "
          "(as the page states it); with N sessions sharing the workers, the ideal latency is "
          "max(1, N / workers) × that; `× ideal` is the median latency over it.")
    print()
    print("| N | fit s median | ideal s | latency / ideal |")
    print("|---|---|---|---|")
    for run in runs:
        fits = [r["fit_s"] for r in run["results"] if r.get("fit_s") == r.get("fit_s")
                and r.get("fit_s") is not None]
        lat = run["lat"]
        if fits and lat:
            fit = statistics.median(fits)
            ideal = max(1.0, run["n"] / cores) * fit
            print(f"| {run['n']} | {fit:.1f} | {ideal:.1f} | "
                  f"{statistics.median(lat) / ideal:.2f} |")
    print()
    print("| N | results | latency median s | max s | median / N=1 | target ≤ | results/min "
          "| server MB | workers MB | total MB | health max s | health > 1 s | errors "
          "| server MB at start / after the sessions left | workers MB after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for run in runs:
        s, lat = run["sampler"], run["lat"]
        med = statistics.median(lat) if lat else float("nan")
        target = 1.3 * max(1.0, run["n"] / cores)
        health = [h for h in s.health]
        errors = len(run["errors"]) + len(run["bad"]) + (run["expected"] - len(run["results"]))
        print(f"| {run['n']} | {len(run['results'])}/{run['expected']} | {med:.1f} | "
              f"{max(lat) if lat else float('nan'):.1f} | {med / base:.2f} | {target:.2f} | "
              f"{run['per_min']:.1f} | {mb(s.server_peak)} | {mb(s.worker_peak)} | "
              f"{mb(s.total_peak)} | {max(health) if health else float('nan'):.2f} | "
              f"{sum(h > 1 for h in health)}/{len(health)} | {errors} | "
              f"{mb(run['start'])} / "
              + ", ".join(f"{mb(a[1])} ({a[0]:g} s)" for a in run["after"])
              + " | " + ", ".join(f"{mb(a[2])} ({a[0]:g} s)" for a in run["after"]) + " |")
    print()
    print("CPU seconds used during each run (where the 2 cores went):")
    print()
    print("| N | server | workers | browsers |")
    print("|---|---|---|---|")
    for run in runs:
        c = run["sampler"].cpu_share()
        print(f"| {run['n']} | {c['server']:.0f} | {c['workers']:.0f} | {c['browser']:.0f} |")
    print()
    for run in runs:
        for line in run["errors"] + run["bad"]:
            print(f"N={run['n']}: {line}")
        print(f"N={run['n']}: {run['checked']} results fitted again in-process: "
              f"{run['checked'] - len(run['bad'])} equal as shown")
    print(f"# load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
