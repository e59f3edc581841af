"""Dashboard speed in a real browser on Digit (the issue's targets), printed as a table.

    python benchmarks/bench_dashboard.py [--repeat 3] [--only load|solve|paced|reopen]
                                         [--before REV] [--entry app|streamlit]
                                         [--trace FILE] [--smoke]
    python benchmarks/bench_dashboard.py --only paced --data Digit-small --repeat 1

``--smoke`` (tests/benchmarks/test_benchmarks.py): the page loads once, a check that the script works
(its numbers mean nothing). It leaves the Solve measurements out: each needs Digit fits,
seconds each (``bench_load.py --smoke`` drives the Solve slider).

Starts the dashboard as ``make run`` does (``python app.py``; ``--entry streamlit``:
``streamlit run app.py``) on a free port, drives Debian's Chromium with
Playwright, and measures wall-clock time from the user's action until the page
is fully drawn (the script has finished its run and the expected content and
charts are on screen):

* first page load: a fresh server, a fresh browser profile opens the app;
  first when Digit's description, views table and sidebar are on screen, then
  when the Data page is complete with its charts (class counts, 2-D views,
  pictures) — the charts need Streamlit's 4.7 MB plotly bundle, parsed anew
  in every fresh browser profile;
* slider change: on Solve, one arrow key on the β slider to a value not fitted
  yet; "redrawn" = the page shows the new β (URL, sidebar) with the live run of
  the new fit; "new result" = the fit has finished and its numbers are on
  screen. That is bounded below by the fit itself, so the fit's own time (the
  page's "time" metric) and the rest (the dashboard's share) are shown too;
* the same slider changes with prefetching on (``rmsc.dashboard.prefetch``: the server
  fits the next slider steps, β's left one first, while a result is on screen), once with
  the user looking at each result for :data:`LOOK` seconds before the next move, once
  moving as soon as it is on screen. The prefetch order favours this benchmark's
  direction (left); a step the other way is the second prefetch, ready about one fit
  later;
* moves at a natural pace (``--only paced``): the λ slider moved :data:`MOVES` steps
  :data:`PACE` seconds apart, without waiting for any result, prefetching on (as ``make
  run``); measured from the last move until its result is on screen, against the fit's
  own time (the page's "time") and against one fit of the same λ alone, in this process
  and on a worker of the dashboard's kind (a table of its own, a row per round): the
  latest move wins when that ratio stays within 1.5 (the fits of the earlier moves were
  cancelled, not waited for); a second table gives the CPU seconds the workers, the
  server and the browser used from that move to its result (against one fit's alone), to
  see where a latency above one fit went. ``--data NAME`` (a bundled dataset, e.g. Digit-small: its
  fits take seconds where Digit's take minutes on a loaded machine) runs these rounds and
  their plain fits on other data;
* cached revisit: the slider moved back to a value already fitted (its result
  comes from the cache), and switching back to the Solve page from another.
* reopening (``--only reopen``): a server fits β = 0.3 and the slider's next step, and is
  stopped (every tab closed, the server restarted); a second server over the same result
  folder (``RMSC_CACHE_DIR``, a fresh one per run) is opened by a fresh browser on the Solve
  page at β = 0.3 (until the result is on screen), then the slider is moved to the step the
  first server fitted (on disk only) and back (in memory again). The same again after
  another restart at the same address, for a returning visitor: the browser that used the
  first server, its HTTP cache kept (Streamlit serves its hashed bundles ``immutable``),
  opens Solve in a new tab. Then, for each visitor, the way a user of an opened app reaches
  Solve: the app's first page (Data, complete), then Solve from the sidebar in the same
  tab (the frontend started, the code of the Data page's elements loaded, plotly's
  included). The first server's fits
  stop at ``--reopen-iters`` iterations (default 20; 0: the defaults' own stopping): a
  result of Digit's size either way (n = 2000, six views), without the minutes a converged
  Digit fit takes on a loaded 2-core machine. The restarted server's first page is opened
  at that setting too (at the defaults it would start the default fit, which would run
  beside the measurements). ``--before REV``: the servers of the tree at git revision REV
  are measured too, alternating with this checkout's, over a folder holding the same
  results (written again under that revision's code version), and a table puts the two
  side by side.

The machine may be shared: the load average before and after is printed, and
each measurement is repeated (median, min, max).
"""

import _preamble  # the checkout's root on sys.path, --smoke, one thread
import _baseline

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = _preamble.ROOT
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
LONG = 600_000  # ms

IDLE = "document.querySelector('[data-test-script-state]')" \
       ".getAttribute('data-test-script-state') === 'notRunning'"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


TRACE = None  # --trace FILE: the server's timeline (RMSC_DASHBOARD_TRACE) and ours, one file


def mark(message):
    """One line of the benchmark's own timeline in the trace file (same clock as the server)."""
    if TRACE:
        with open(TRACE, "a") as f:
            f.write(f"{time.time():.3f} bench {message}\n")


ENTRY = "app"  # --entry: how the server is started
DATA = "Digit"  # --data: the bundled dataset of the paced rounds (--only paced)


def start_server(port, prefetch=False, cache_dir=None, root=None):
    """A server of this checkout (or of the tree at ``root``: ``--before``)."""
    env = dict(os.environ)
    # The results on disk (rmsc.dashboard.store): none unless a measurement gives a folder,
    # so that every other row measures fits.
    env["RMSC_CACHE_DIR"] = str(cache_dir) if cache_dir else "off"
    # Prefetching of the next slider steps (rmsc.dashboard.prefetch): measured off and on.
    env["RMSC_PREFETCH"] = "1" if prefetch else "0"
    # `make run` starts `python app.py` (imports the heavy modules before serving);
    # `streamlit run app.py` is the plain way (and what the browser tests use).
    cmd = ["app.py"] if ENTRY == "app" else ["-m", "streamlit", "run", "app.py"]
    if TRACE:
        env["RMSC_DASHBOARD_TRACE"] = str(TRACE)
    proc = subprocess.Popen(
        [sys.executable, *cmd, "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=root or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("streamlit did not start")


def stop_server(proc):
    """Ctrl-C's way out (SIGTERM); killed if its Dask workers take over a minute to close
    (seen on a busy machine)."""
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait(page, js, arg=None, timeout=LONG, polling=50):
    # The page is being rebuilt while we poll: a missing element just means "not yet".
    page.wait_for_function(f"a => {{ try {{ return ({IDLE}) && ({js}); }} "
                           f"catch (e) {{ return false; }} }}", arg=arg, timeout=timeout,
                           polling=polling)


#: Milliseconds between two looks at the page while a paced round's fit runs: each look reads
#: the page's text (a layout in Chromium), on the CPUs the fit runs on; at most this much is
#: added to a latency of seconds.
PACED_POLL_MS = 250


DATA_TEXT = ("document.querySelector('h1') && document.querySelector('h1').innerText"
             ".startsWith('Data') && document.querySelector('[data-testid=stSidebar]')"
             ".innerText.includes('2,000') && document.querySelector('[data-testid=stDataFrame]')")
DATA_READY = ("document.querySelector('h1') && document.querySelector('h1').innerText"
              ".startsWith('Data') && document.querySelectorAll('.js-plotly-plot').length >= 3")
# (a previous result shown dimmed while the new fit runs is not the result: ui.STALE_KEY)
# The result: its metrics and its objective curve (the page's other charts are drawn on demand
# since the revision after 3a05359, which drew three; the condition holds for both).
SOLVE_RESULT = ("document.querySelector('h1') && document.querySelector('h1').innerText"
                ".startsWith('Solve') && [...document.querySelectorAll('[data-testid=stMetric]')]"
                ".some(e => e.innerText.includes('density of Z*'))"
                " && document.querySelectorAll('.js-plotly-plot').length >= 1"
                " && !document.querySelector('.st-key-rmsc_stale')")
SOLVE_LIVE = ("[...document.querySelectorAll('p, div')].some(e => e.innerText && "
              "e.innerText.startsWith('Running RMSC'))")
FIT_SECONDS = ("(() => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]"
               ".find(e => e.innerText.startsWith('time'));"
               " return parseFloat(m.querySelector('[data-testid=stMetricValue]').innerText); })()")
BETA_IN_URL = "location.search.includes('beta=' + a) || (a === '0.3' && !location.search.includes('beta='))"
SIDEBAR_BETA = ("document.querySelector('[data-testid=stSidebar]').innerText"
                ".includes('β = ' + a + ',')")


def beta_thumb(page):
    return page.locator("[data-testid=stSlider]", has_text="β (sparsity").get_by_role("slider")


def press(page, key):
    thumb = beta_thumb(page)
    thumb.focus()
    t0 = time.perf_counter()
    thumb.press(key)
    return t0


def nav(page, title):
    page.locator("[data-testid=stSidebarNav] a", has_text=title).first.click()


def row(name, target, values):
    med = statistics.median(values)
    flag = "" if target is None else ("yes" if med <= target else "NO")
    tgt = "—" if target is None else f"≤ {target:g} s"
    return (f"| {name} | {tgt} | {med:.2f} | {min(values):.2f} | {max(values):.2f} | "
            f"{len(values)} | {flag} |")


def measure_loads(browser, repeat, m):
    """First page load on a fresh server (cold: imports, Digit, projections), then a new visitor."""
    for _ in range(repeat):
        proc, url = start_server(free_port())
        try:
            ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
            page = ctx.new_page()
            mark("goto (fresh server)")
            t0 = time.perf_counter()
            page.goto(url)
            # text first (the frontend streams elements as the script runs), then charts
            page.wait_for_function(f"() => {{ try {{ return {DATA_TEXT}; }} "
                                   "catch (e) { return false; } }", timeout=LONG, polling=50)
            m["first_text"].append(time.perf_counter() - t0)
            wait(page, DATA_READY)
            m["first"].append(time.perf_counter() - t0)
            mark("data page complete")
            # a second visitor on the warm server
            ctx2 = browser.new_context(viewport={"width": 1500, "height": 1000})
            page2 = ctx2.new_page()
            t0 = time.perf_counter()
            page2.goto(url)
            wait(page2, DATA_READY)
            m["new_session"].append(time.perf_counter() - t0)
            ctx2.close()
            ctx.close()
        finally:
            stop_server(proc)


def measure_solve(browser, repeat, m, prefetch=False, look=0.0, tag=""):
    """Solve: slider changes to new values, back to cached ones, and back from another page.

    ``prefetch``: the server fits the next slider steps while a result is on screen;
    ``look``: seconds the user looks at each result before the next move. With a ``tag``
    only the new-result rows are taken (under keys ending in the tag)."""
    proc, url = start_server(free_port(), prefetch)
    try:
        ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
        page = ctx.new_page()
        # β = 0.3 in the URL: the default β is "auto" (the slider's first option), and the
        # ladder below steps left from an absolute β
        page.goto(f"{url}/?beta=0.3")
        wait(page, DATA_READY)
        nav(page, "Solve")
        wait(page, SOLVE_RESULT)  # the fit at β = 0.3 has finished
        values = BETAS[:repeat]
        for beta in values:  # ArrowLeft: a β not fitted yet (unless prefetched)
            time.sleep(look)
            mark(f"press: beta -> {beta}")
            t0 = press(page, "ArrowLeft")
            wait(page, f"({BETA_IN_URL}) && ({SIDEBAR_BETA}) && ({SOLVE_LIVE} || "
                       f"{SOLVE_RESULT})", beta)
            if not tag:
                m["redraw"].append(time.perf_counter() - t0)
            mark("redrawn (live)")
            wait(page, f"({BETA_IN_URL}) && {SOLVE_RESULT}", beta)
            m["result" + tag].append(time.perf_counter() - t0)
            mark("new result on screen")
            if tag:
                continue
            fit = page.evaluate(FIT_SECONDS)  # the fit's own time, as the page shows it
            m["fit"].append(fit)
            m["overhead"].append(m["result"][-1] - fit)
        if tag:
            ctx.close()
            return
        ladder = ["0.3", *values]  # the β values fitted, in slider order
        back = ladder[::-1][1:]  # one step right at a time: every one is cached
        for beta in back:  # ArrowRight: back to a β already fitted (cached)
            t0 = press(page, "ArrowRight")
            wait(page, f"({BETA_IN_URL}) && ({SIDEBAR_BETA}) && {SOLVE_RESULT}", beta)
            m["cached_slider"].append(time.perf_counter() - t0)
        for _ in range(repeat):  # another page, then Solve again
            nav(page, "Theory")
            wait(page, "document.querySelector('h1').innerText.startsWith('Theory')")
            t0 = time.perf_counter()
            nav(page, "Solve")
            wait(page, SOLVE_RESULT)
            m["cached_page"].append(time.perf_counter() - t0)
        ctx.close()
    finally:
        stop_server(proc)


REOPEN_ITERS = 20  # --reopen-iters


def measure_reopen(browser, repeat, m, before=None):
    """A result computed by an earlier run of the server, after every tab closed and a
    restart: opening it, and moving the slider to another setting that run computed.

    ``before``: the folder of an earlier revision's tree (``--before``), whose restarted
    servers are measured too, alternating with this checkout's (rows tagged ``_before``),
    over a folder holding the same results under that revision's code version."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rmsc-bench-cache-") as folder, \
            tempfile.TemporaryDirectory(prefix="rmsc-bench-cache-before-") as folder_before:
        values = ["0.3", BETAS[0]]  # β = 0.3 and one step left
        query = f"&max_iter={REOPEN_ITERS}" if REOPEN_ITERS else ""
        # One port for this checkout's servers: a browser's cache is kept per origin, so the
        # returning visitor below finds Streamlit's bundles from its visit to the first run.
        port = free_port()
        proc, url = start_server(port, cache_dir=folder)
        # the visitor of the first run, whose browser (and its HTTP cache) stays open
        returning = browser.new_context(viewport={"width": 1500, "height": 1000})
        try:  # the first run of the server computes both
            page = returning.new_page()
            page.goto(f"{url}/solve?beta={values[0]}{query}")
            wait(page, SOLVE_RESULT)
            m["reopen_fit"].append(page.evaluate(FIT_SECONDS))
            press(page, "ArrowLeft")
            wait(page, f"({BETA_IN_URL}) && {SOLVE_RESULT}", values[1])
            m["reopen_fit"].append(page.evaluate(FIT_SECONDS))
            page.close()
        finally:
            stop_server(proc)
        runs = [("", None, folder, None), ("_returning", None, folder, returning)]
        if before is not None:
            _baseline.rekey(folder, folder_before, before)
            runs.insert(0, ("_before", before, folder_before, None))
        for _ in range(repeat):  # every later run answers from the folder
            for tag, root, cache_dir, visitor in runs:
                reopen_once(browser, m, tag, root, cache_dir, values, query,
                            port=None if root else port, visitor=visitor)
        returning.close()
        measure_disk_reads(folder, repeat, m)


def reopen_once(browser, m, tag, root, cache_dir, values, query, port=None, visitor=None):
    """One restarted server over ``cache_dir``: its first page, then a visitor on Solve: a
    new one (a fresh browser context, nothing cached), or ``visitor``, the context of
    someone who used the server before its restart (Streamlit's hashed bundles are served
    ``immutable``, so that browser loads them from its cache; the same ``port`` keeps the
    origin)."""
    m["reopen_load" + tag].append(os.getloadavg()[0])
    proc, url = start_server(port or free_port(), cache_dir=cache_dir, root=root)
    try:
        # the server's own first page (imports, workers) first, as in `first` above, at the
        # same setting (else it would start the default fit, which would then run beside
        # the measurements below)
        ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
        page = ctx.new_page()
        t0 = time.perf_counter()
        page.goto(f"{url}/?beta={values[0]}{query}")
        wait(page, DATA_READY)
        m["reopen_data" + tag].append(time.perf_counter() - t0)
        ctx.close()
        # then a visitor opens the Solve page: the result is in no memory, on disk
        if visitor is None:
            ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
            page = ctx.new_page()
        else:
            ctx = page = visitor.new_page()  # a new tab; closing it keeps the browser
        mark(f"goto solve (restarted server{tag})")
        t0 = time.perf_counter()
        page.goto(f"{url}/solve?beta={values[0]}{query}")
        wait(page, SOLVE_RESULT)
        m["reopen" + tag].append(time.perf_counter() - t0)
        # the trace's next two script runs are these slider moves, not the page's own
        mark(f"result on screen; slider left (to the setting on disk){tag}")
        t0 = press(page, "ArrowLeft")
        wait(page, f"({BETA_IN_URL}) && ({SIDEBAR_BETA}) && {SOLVE_RESULT}", values[1])
        m["reopen_disk" + tag].append(time.perf_counter() - t0)
        mark(f"result on screen; slider right (back, in memory){tag}")
        t0 = press(page, "ArrowRight")
        wait(page, f"({BETA_IN_URL}) && ({SIDEBAR_BETA}) && {SOLVE_RESULT}", values[0])
        m["reopen_memory" + tag].append(time.perf_counter() - t0)
        mark(f"result on screen{tag}")
        ctx.close()
        # how a user of the opened app reaches Solve: the app's first page, then Solve from
        # the sidebar in the same tab (the frontend started, the first page's element code
        # loaded); a new visitor, or a new tab of the returning one
        if visitor is None:
            ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
            page = ctx.new_page()
        else:
            ctx = page = visitor.new_page()
        page.goto(f"{url}/?beta={values[0]}{query}")
        wait(page, DATA_READY)
        mark(f"data page complete; nav to solve{tag}")
        t0 = time.perf_counter()
        nav(page, "Solve")
        wait(page, SOLVE_RESULT)
        m["reopen_nav" + tag].append(time.perf_counter() - t0)
        mark(f"result on screen (from the first page){tag}")
        ctx.close()
    finally:
        stop_server(proc)


def measure_disk_reads(folder, repeat, m):
    """The folder's entries read back in this process (what the server does on a miss in
    memory): seconds per read, and the entries' sizes."""
    import json

    import numpy as np

    from rmsc import dashboard as dash
    from rmsc.dashboard import store

    disk = store.DiskStore(folder, types=dash.RESULT_TYPES)
    for path in sorted(Path(folder).glob("*.npz")):
        with np.load(path, allow_pickle=False) as z:
            key = store.decode(json.loads(str(z["__header__"][()]))["key"], {})
        m["reopen_mb"].append(path.stat().st_size / 1e6)
        for _ in range(repeat):
            t0 = time.perf_counter()
            assert disk.get(key) is not None
            m["reopen_read"].append(time.perf_counter() - t0)


def lam_thumb(page):
    return page.locator("[data-testid=stSlider]", has_text="λ (coupling").get_by_role("slider")


def cpu_used(procs):
    """The CPU seconds (user + system) the processes ``procs`` (psutil) used so far; one
    that has ended is not counted."""
    import psutil

    total = 0.0
    for proc in procs:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def cpu_seconds(server):
    """CPU seconds used so far by the server process, by its workers (every process it
    started), and by the browser (every other process this one started: Playwright's
    driver, Chromium's processes); a process that has ended is not counted."""
    import psutil

    try:
        root = psutil.Process(server.pid)
        workers = root.children(recursive=True)
    except psutil.Error:
        root, workers = None, []
    own = {proc.pid for proc in workers} | {server.pid}
    others = [proc for proc in psutil.Process().children(recursive=True) if proc.pid not in own]
    return {"server": cpu_used([root] if root else []), "workers": cpu_used(workers),
            "browser": cpu_used(others)}


def measure_paced(browser, repeat, m, prefetch=True):
    """λ moved MOVES steps right, PACE s apart, per round; the last move's latency, and the
    CPU seconds the workers, the server and the browser used meanwhile."""
    from rmsc.dashboard import LAM_GRID

    proc, url = start_server(free_port(), prefetch)
    try:
        ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
        page = ctx.new_page()
        # λ starts low enough for every round's moves to the right (β = auto: a usable β
        # at every λ)
        index = len(LAM_GRID) - 1 - repeat * MOVES
        if index < 0:
            raise SystemExit(f"--repeat {repeat}: at most {(len(LAM_GRID) - 1) // MOVES} "
                             "rounds of λ moves fit on the slider")
        query = "" if DATA == "Digit" else f"&data={DATA}"
        page.goto(f"{url}/?lam={LAM_GRID[index]:g}{query}")
        wait(page, DATA_READY)
        nav(page, "Solve")
        wait(page, SOLVE_RESULT)
        for _ in range(repeat):
            for k in range(MOVES):
                thumb = lam_thumb(page)
                thumb.focus()
                cpu0 = cpu_seconds(proc)
                t0 = time.perf_counter()
                thumb.press("ArrowRight")
                index += 1
                mark(f"paced move {k + 1}: lam -> {LAM_GRID[index]:g}")
                if k < MOVES - 1:
                    time.sleep(max(0.0, PACE - (time.perf_counter() - t0)))
            target = f"{LAM_GRID[index]:g}"
            wait(page, "(location.search.includes('lam=' + a + '&') || "
                       f"location.search.endsWith('lam=' + a)) && {SOLVE_RESULT}", target,
                 polling=PACED_POLL_MS)
            latency = time.perf_counter() - t0
            cpu1 = cpu_seconds(proc)
            m["paced_cpu"].append({k: cpu1[k] - cpu0[k] for k in cpu0})
            mark("paced: the last move's result on screen")
            fit = page.evaluate(FIT_SECONDS)
            m["paced"].append(latency)
            m["paced_fit"].append(fit)
            m["paced_ratio"].append(latency / fit)
            m["paced_lams"].append(LAM_GRID[index])
        ctx.close()
    finally:
        proc.terminate()
        proc.wait(30)


def measure_paced_plain_fits(m):
    """The paced rounds' last fits once more without a dashboard, each alone: in this
    process, and on a worker of the dashboard's kind of LocalCluster (niced below the
    server, :data:`rmsc.dashboard.workers.WORKER_NICENESS`; warmed by one fit first): one
    fit, what the latest move's result cannot come faster than."""
    from rmsc import dashboard as dash
    from rmsc.dashboard import workers
    from rmsc.datasets import load_bundled

    data = load_bundled(DATA)
    for lam in m["paced_lams"]:
        t0 = time.perf_counter()
        dash.fit_rmsc(data, dash.Params(lam=float(lam)))
        m["paced_plain"].append(time.perf_counter() - t0)
    dask_workers = workers.DaskWorkers()
    try:
        import psutil

        def children_cpu():
            return cpu_used(psutil.Process().children(recursive=True))

        def on_worker(lam):
            cpu0 = children_cpu()
            t0 = time.perf_counter()
            job = dash.Job(("plain", lam), dash.Remote(dash.fit_rmsc, data,
                                                       dash.Params(lam=float(lam))),
                           label="fit", sender=dash.DaskSender(dask_workers)).start()
            job.wait()
            m["paced_worker_cpu"].append(children_cpu() - cpu0)
            return time.perf_counter() - t0

        on_worker(1.0)  # the data sent, the worker's imports done
        for lam in m["paced_lams"]:
            m["paced_worker"].append(on_worker(lam))
    finally:
        dask_workers.close()


def print_paced(m):
    """The paced rounds, one row each: the last move's latency beside one plain fit."""
    print()
    print(f"Slider moves at a natural pace: λ moved {MOVES} steps {PACE:g} s apart "
          "(prefetching on), then the time from the last move until its result is on "
          "screen, beside one plain fit of the same setting measured in this run")
    print()
    print("| round | move pace | moves | time to result after last move s | "
          "one fit in-process s | ratio | one fit on a worker s | ratio | target | met "
          "(worker) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|---|")
    for k, (latency, fit, remote) in enumerate(zip(m["paced"], m["paced_plain"],
                                                   m["paced_worker"])):
        print(f"| {k + 1} | {PACE:g} s | {MOVES} | {latency:.2f} | {fit:.2f} | "
              f"{latency / fit:.2f} | {remote:.2f} | {latency / remote:.2f} | ≤ 1.5 | "
              f"{'yes' if latency / remote <= 1.5 else 'NO'} |")
    print()
    print("CPU seconds used from the last move until its result was on screen (2 CPUs "
          "shared with the machine's other work)")
    print()
    print("| round | wall s | workers' CPU s | server's CPU s | browser's CPU s |")
    print("|---:|---:|---:|---:|---:|")
    for k, (latency, cpu) in enumerate(zip(m["paced"], m["paced_cpu"])):
        print(f"| {k + 1} | {latency:.2f} | {cpu['workers']:.2f} | {cpu['server']:.2f} | "
              f"{cpu['browser']:.2f} |")
    print()
    print("CPU seconds of one fit on a worker alone (each round's, as in the table above): "
          + ", ".join(f"{c:.2f}" for c in m["paced_worker_cpu"][1:]))


def measure_plain_fits(repeat, m):
    """The slider's fits once more, in this process without a dashboard (what the fit costs)."""
    from rmsc import dashboard as dash
    from rmsc.datasets import load_bundled

    data = load_bundled("Digit")
    for beta in BETAS[:repeat]:
        t0 = time.perf_counter()
        dash.fit_rmsc(data, dash.Params(beta=float(beta)))
        m["plain"].append(time.perf_counter() - t0)


BETAS = ["0.2", "0.1", "0.05", "0.03", "0.02"]  # the slider's steps to the left from 0.3
#: Seconds a user looks at a result before moving a slider again (prefetching measurement).
LOOK = 4.0
#: Moves at a natural pace: this many steps of the λ slider, this many seconds apart.
MOVES, PACE = 3, 1.5

ROWS = [
    ("first_text", "first page load: Digit's text, tables and sidebar on screen", None),
    ("first", "first page load (fresh server): Data page complete with its charts", 5),
    ("new_session", "page load of a new visitor (warm server)", None),
    ("redraw", "slider change → Solve redrawn (new β, live run under way)", None),
    # the speed work's target (the first round's was 3 s)
    ("result", "slider change → Solve redrawn with the new result (includes the fit), "
               "prefetching off", 1.5),
    ("result_look", f"… prefetching on, the user looking at each result for {LOOK:g} s "
                    "before the next move", 1.5),
    ("result_now", "… prefetching on, the next move as soon as the result is on screen",
     None),
    ("fit", "… of which the fit itself (solver + spectral step, as the page shows it)", None),
    ("overhead", "… the rest: the dashboard's own time (start, updates, redraw)", None),
    ("plain", "the same fits without a dashboard (fit_rmsc in this process)", None),
    ("paced", f"λ moved {MOVES} steps {PACE:g} s apart (prefetching on): last move → its "
              "result on screen", None),
    ("paced_fit", "… of which the fit itself (as the page shows it)", None),
    ("paced_ratio", "… that latency / the fit's own time (a ratio, not seconds)", 1.5),
    ("cached_slider", "cached revisit: slider back to a fitted β", 1),
    ("cached_page", "cached revisit: back to the Solve page from another page", 1),
    ("reopen_data", "restarted server: its first page (Data, complete with its charts)",
     None),
    ("reopen", "… then a new visitor opens Solve on a setting an earlier run of the server "
               "fitted → its result on screen (from disk)", 2),
    ("reopen_disk", "… slider moved to another setting that earlier run fitted (from disk)",
     1),
    ("reopen_memory", "… and back (in memory now)", 1),
    ("reopen_data_returning", "restarted server again, at the same address: its first "
                              "page", None),
    ("reopen_returning", "… a visitor of the earlier run (the browser's cache kept, a new "
                         "tab) opens Solve → its result on screen (from disk)", 2),
    ("reopen_disk_returning", "… slider to the other setting (from disk)", 1),
    ("reopen_memory_returning", "… and back (in memory now)", 1),
    ("reopen_nav", "a new visitor opens the app (its first page, Data, complete), then "
                   "Solve from the sidebar in the same tab → its result on screen", 2),
    ("reopen_nav_returning", "… the returning visitor, the same way in a new tab", 2),
    ("reopen_fit", "… what the earlier run's fits took (the page's time; not waited for "
                   "again)", None),
    ("reopen_data_before", "restarted server of the earlier revision (--before): its first "
                           "page", None),
    ("reopen_before", "… then a new visitor opens Solve (from disk)", 2),
    ("reopen_disk_before", "… slider moved to the other setting (from disk)", 1),
    ("reopen_memory_before", "… and back (in memory now)", 1),
    ("reopen_nav_before", "… a new visitor opens its first page, then Solve from the sidebar",
     2),
    ("reopen_read", "… one of those results read from the folder in a process of its own "
                    "(DiskStore.get)", None),
    ("reopen_mb", "… the size of one of those entries on disk, MB (not seconds)", None),
]


def main():
    global TRACE, ENTRY, REOPEN_ITERS, DATA
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", choices=["load", "solve", "paced", "reopen"], default=None,
                    help="measure only the first page loads, only the Solve page, only "
                         "slider moves at a natural pace, or only results kept across a "
                         "restart of the server")
    ap.add_argument("--trace", type=Path, default=None,
                    help="append a timeline of the server's script runs and jobs, and of "
                         "the benchmark's actions, to this file")
    ap.add_argument("--entry", choices=["app", "streamlit"], default="app",
                    help="start the server as `make run` does (python app.py, default) or "
                         "with `streamlit run app.py`")
    ap.add_argument("--reopen-iters", type=int, default=REOPEN_ITERS,
                    help="iterations of the fits the first server makes for --only reopen "
                         "(0: the defaults' stopping)")
    ap.add_argument("--data", default="Digit", metavar="NAME",
                    help="with --only paced: the bundled dataset the λ slider is moved on "
                         "(e.g. Digit-small; default Digit)")
    ap.add_argument("--before", default=None, metavar="REV",
                    help="with --only reopen: measure the servers of this git revision too, "
                         "alternating with this checkout's, over the same results")
    ap.add_argument("--smoke", action="store_true",
                    help="a check that the script works: the page loads once "
                         "(tests/benchmarks/test_benchmarks.py); its numbers mean nothing")
    args = ap.parse_args()
    if args.smoke:
        args.repeat, args.only = 1, "load"
    ENTRY = args.entry
    if args.data != "Digit" and args.only != "paced":
        ap.error("--data is for --only paced (the other measurements are Digit's)")
    DATA = args.data
    REOPEN_ITERS = args.reopen_iters
    TRACE = args.trace.resolve() if args.trace else None
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    m = {key: [] for key, _, _ in ROWS}
    m.update(paced_lams=[], paced_plain=[], paced_worker=[], paced_cpu=[],
             paced_worker_cpu=[], reopen_load=[], reopen_load_returning=[],
             reopen_load_before=[])
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        if args.only in (None, "load"):
            measure_loads(browser, args.repeat, m)
        if args.only in (None, "solve"):
            measure_solve(browser, args.repeat, m)
            measure_solve(browser, args.repeat, m, prefetch=True, look=LOOK, tag="_look")
            measure_solve(browser, args.repeat, m, prefetch=True, tag="_now")
        if args.only in (None, "paced"):
            measure_paced(browser, args.repeat, m)
        if args.only in (None, "reopen"):
            before = _baseline.checkout(args.before) if args.before else None
            try:
                measure_reopen(browser, args.repeat, m, before)
            finally:
                if before is not None:
                    shutil.rmtree(before, ignore_errors=True)
        browser.close()
    if args.only in (None, "solve"):  # the paced rounds have plain fits of their own
        measure_plain_fits(args.repeat, m)
    if m["paced_lams"]:
        measure_paced_plain_fits(m)
    load_after = os.getloadavg()

    server = "python app.py" if ENTRY == "app" else "streamlit run app.py"
    what = "Digit (2000 samples, 6 views)" if DATA == "Digit" else DATA
    print(f"Dashboard speed on {what}, `{server}`, Chromium, "
          f"{os.cpu_count()} CPUs; load average before {load_before[0]:.1f}, "
          f"after {load_after[0]:.1f}")
    print()
    print("| measurement | target | median s | min s | max s | n | met |")
    print("|---|---|---:|---:|---:|---:|---|")
    for key, name, target in ROWS:
        if m[key]:
            print(row(name, target, m[key]))
    if m["paced_plain"]:
        print_paced(m)
    if m["reopen_load"]:
        print()
        print("Load average (1 min) as each restarted server's round began: "
              + "; ".join(f"{name} " + ", ".join(f"{x:.1f}" for x in m["reopen_load" + tag])
                          for tag, name in (("_before", f"{args.before}"), ("", "this checkout"),
                                            ("_returning", "returning visitor"))
                          if m["reopen_load" + tag]))
    if m["reopen_before"]:
        print_before(m, args.before)


def print_before(m, rev):
    """The restarted servers of ``--before`` and of this checkout, side by side."""
    print()
    print(f"Restarted servers, the revision {rev} against this checkout, alternating in one "
          "run (medians)")
    print()
    print("| measurement | target | before s | now s | now / before |")
    print("|---|---|---:|---:|---:|")
    for key, name in (("reopen_data", "its first page (Data, with its charts)"),
                      ("reopen", "a new visitor opens Solve → the result (from disk)"),
                      ("reopen_disk", "slider to the other setting (from disk)"),
                      ("reopen_memory", "and back (in memory now)"),
                      ("reopen_nav", "a new visitor opens the first page, then Solve from the "
                                     "sidebar (same tab) → the result")):
        target = {"reopen": "≤ 2 s", "reopen_disk": "≤ 1 s", "reopen_memory": "≤ 1 s",
                  "reopen_nav": "≤ 2 s"}.get(key, "—")
        a, b = statistics.median(m[key + "_before"]), statistics.median(m[key])
        print(f"| {name} | {target} | {a:.2f} | {b:.2f} | {b / a:.2f} |")


if __name__ == "__main__":
    main()
