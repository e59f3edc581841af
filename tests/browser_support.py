"""What the real-browser tests (``tests/browser/``) share: the server they open (``streamlit
run`` on a free local port), Debian's Chromium and its flags, the viewport and the time a fit
may take, and the helpers of a test in a page (waiting until the script settles, going to a
page, reading the sidebar and the metrics, uploading a file). The fixtures built on them
(``server``, ``browser``, ``page``) are in ``conftest.py``."""

import contextlib
import itertools
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]
FIT_TIMEOUT = 240_000  # ms; the machine is shared, Digit fits take seconds to tens of seconds
# ms: the bound of every other wait in a page (a redraw, a click's element, a URL). A wait
# returns as soon as its condition holds, so the bound costs nothing when all is well; on a
# busy CI machine a page's run after a key press took longer than 30 s.
PAGE_WAIT = 120_000
VIEWPORT = {"width": 1500, "height": 1000}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_path(name):
    """Where a server's log goes: ``tests/screenshots/NAME``, with the pytest-xdist worker's
    name before the suffix when the suite runs in parallel (two workers never share one)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        stem, dot, suffix = name.rpartition(".")
        name = f"{stem}_{worker}.{suffix}" if dot else f"{name}_{worker}"
    return SHOTS / name


def _product_env():
    """This process's environment less ``RMSC_WORKER_NICENESS``, which tests/conftest.py sets
    for the tests' own Dask workers: a browser test's server runs its workers at the
    product's niceness, below the server (a page stays responsive while a fit runs)."""
    from rmsc.dashboard.workers import NICENESS_ENV

    return {k: v for k, v in os.environ.items() if k != NICENESS_ENV}


@contextlib.contextmanager
def serve(log_name="server.log", script="app.py", env=None):
    """``streamlit run app.py`` (or another ``script``) on a free local port, with ``env``
    added to this process's environment (e.g. ``RMSC_CACHE_DIR``: the tests' shared result
    folder, :func:`tests.conftest.results_folder`); yields its URL, stops it on exit."""
    port = free_port()
    SHOTS.mkdir(parents=True, exist_ok=True)
    log_file = log_path(log_name)
    log = open(log_file, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**_product_env(), **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"streamlit did not start; see {log_file}")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


# ---------------------------------------------------------------------------
# Helpers of the tests in a page: waiting, going to a page, reading it, uploading
# ---------------------------------------------------------------------------


#: Milliseconds the app must have reported "not running" without a change before the page
#: counts as settled: a click's rerun, or the rerun a finished fit asks for, can start a
#: moment after the action (later under load), so one look at "not running" is not enough.
STABLE_MS = 1200

#: JavaScript: true once the script has been "notRunning" for ``ms`` with no change of its
#: state in between; or, while a live fragment reruns every second (a fit under way: the
#: state never stays put for ``ms``), once ``ms`` have passed since this wait began and the
#: state has not changed for a quarter of that. A MutationObserver (installed on the first
#: call in each document) stamps every change of the attribute; a poll that sees the
#: script running stamps it too (in case the element itself was replaced). ``token``
#: starts a new wait.
SETTLED = """([ms, token]) => { const w = window; const now = performance.now();
    if (!w.__rmscObserved) {
        w.__rmscObserved = true;
        w.__rmscChanged = now;
        new MutationObserver(() => { w.__rmscChanged = performance.now(); }).observe(
            document.documentElement, {attributes: true, subtree: true,
                                       attributeFilter: ['data-test-script-state']});
    }
    if (w.__rmscToken !== token) { w.__rmscToken = token; w.__rmscSince = now; }
    const e = document.querySelector('[data-test-script-state]');
    if (!e || e.getAttribute('data-test-script-state') !== 'notRunning') {
        w.__rmscChanged = now;
        return false;
    }
    const quiet = now - w.__rmscChanged;
    return quiet >= ms || (now - w.__rmscSince >= ms && quiet >= ms / 4); }"""

_settle_calls = itertools.count()


def settle(page, timeout=PAGE_WAIT):
    """Wait until the script has finished its run and stayed finished for :data:`STABLE_MS`
    (a condition polled in the page, not a fixed pause; see :data:`SETTLED`)."""
    page.wait_for_function(SETTLED, arg=[STABLE_MS, next(_settle_calls)], timeout=timeout,
                           polling=100)


def open_app(page, server, query="", timeout=PAGE_WAIT):
    page.goto(f"{server}/{query}")
    page.wait_for_selector("[data-testid=stSidebar]", timeout=timeout)
    settle(page, timeout)


def nav(page, title):
    page.locator("[data-testid=stSidebarNav] a", has_text=title).first.click()
    page.wait_for_function(
        "t => document.querySelector('h1') && document.querySelector('h1').innerText.includes(t)",
        arg=title, timeout=PAGE_WAIT)
    settle(page)


def wait_fitted(page, timeout=FIT_TIMEOUT):
    page.wait_for_selector("[data-testid=stSidebar] >> text=/Fitted( on [^:]+)?:/",
                           timeout=timeout)
    settle(page)


def open_details(page):
    """Open the Solve page's "Convergence details" (its charts beyond the objective curve,
    drawn on demand) as a user does, and wait for the page's run that draws them."""
    page.locator("[data-testid=stExpander] summary", has_text="Convergence details").click()
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2",
                           timeout=PAGE_WAIT)
    settle(page)


def charts(page):
    return page.locator(".js-plotly-plot").count()


def wait_charts(page, n, timeout=PAGE_WAIT):
    page.wait_for_function(f"document.querySelectorAll('.js-plotly-plot').length >= {n}",
                           timeout=timeout)


def sidebar(page):
    return page.locator("[data-testid=stSidebar]").inner_text()


def metric(page, label):
    box = page.locator("[data-testid=stMetric]", has_text=label).first
    return box.locator("[data-testid=stMetricValue]").inner_text()


def wait_sidebar(page, *texts, absent=(), timeout=PAGE_WAIT):
    """Wait until the sidebar shows every one of ``texts`` and none of ``absent`` (the page
    is redrawn a moment after an action: a condition, not a look at once)."""
    page.wait_for_function(
        "([ts, no]) => { const s = document.querySelector('[data-testid=stSidebar]');"
        " if (!s) return false; const t = s.innerText.replaceAll('**', '');"
        " return ts.every(x => t.includes(x)) && !no.some(x => t.includes(x)); }",
        arg=[list(texts), list(absent)], timeout=timeout)


def wait_sidebar_match(page, pattern, timeout=PAGE_WAIT):
    """Wait until the sidebar's text matches the JavaScript regular expression ``pattern``."""
    page.wait_for_function(
        "p => { const s = document.querySelector('[data-testid=stSidebar]');"
        " return s && new RegExp(p).test(s.innerText); }", arg=pattern, timeout=timeout)


def wait_metric(page, label, pattern, timeout=PAGE_WAIT):
    """Wait until the metric ``label`` shows a value that matches ``pattern`` (a JavaScript
    regular expression, the whole value); return that value."""
    page.wait_for_function(
        "([l, p]) => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]"
        ".find(e => e.innerText.includes(l));"
        " const v = m && m.querySelector('[data-testid=stMetricValue]');"
        " return v && new RegExp('^(' + p + ')$').test(v.innerText.trim()); }",
        arg=[label, pattern], timeout=timeout)
    return metric(page, label)


def wait_url(page, *texts, absent=(), timeout=PAGE_WAIT):
    """Wait until the URL's query has every one of ``texts`` and none of ``absent``."""
    page.wait_for_function(
        "([ts, no]) => ts.every(x => location.search.includes(x))"
        " && !no.some(x => location.search.includes(x))",
        arg=[list(texts), list(absent)], timeout=timeout)


#: JavaScript: true once ``PROBE`` (a function's source, run in the page) has returned the
#: same value on two polls in a row: the layout after a resize or after charts arrive
#: (plotly redraws them a moment later) has stopped moving. Not "the script idle" too: while
#: a fit runs, the sidebar's live fragment reruns every second, and under load it is
#: running nearly all the time. ``key`` names the wait (its last value is kept on ``window``).
STEADY = """(key) => {
    const now = JSON.stringify((PROBE)());
    const same = window[key] === now;
    window[key] = now;
    return same;
}"""

#: JavaScript: the main block's height and every chart's size.
LAYOUT = """() => [document.querySelector('[data-testid=stMain]').scrollHeight,
    ...[...document.querySelectorAll('.js-plotly-plot')].map(p => {
        const r = p.getBoundingClientRect(); return [r.width, r.height]; })]"""


def steady(page, probe=LAYOUT, timeout=PAGE_WAIT):
    """Wait until ``probe`` (JavaScript) gives the same value twice, 300 ms apart (a
    condition polled in the page, not a fixed pause); return that value."""
    key = f"__rmscSteady{next(_settle_calls)}"
    page.wait_for_function(STEADY.replace("PROBE", probe), arg=key, polling=300,
                           timeout=timeout)
    return page.evaluate(f"JSON.parse(window.{key})")


def shot(page, name):
    """A screenshot of the whole page at the current width (the app scrolls inside its main
    block), once the taller window is laid out."""
    size = page.viewport_size
    h = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], h + 40)})
    steady(page)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size(size)


def no_exception(page):
    assert page.locator("[data-testid=stException]").count() == 0




def upload_file(page, path):
    details = page.locator("[data-testid=stExpander] details").first
    if not details.evaluate("d => d.open"):  # the expander stays open after a load
        page.get_by_text("Choose a dataset").click()
    page.get_by_role("tab", name="Upload").click()
    page.locator("[data-testid=stFileUploader] input[type=file]").set_input_files(str(path))
    # the file's chip offers "Remove" (not "Cancel upload") once the server has the file; a
    # click on Load before that would find no file
    page.wait_for_selector(f"[data-testid=stFileChip] button[aria-label='Remove {path.name}']",
                           timeout=PAGE_WAIT)
    settle(page)
    page.get_by_role("button", name="Load file").click()
    settle(page)

