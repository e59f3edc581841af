"""Dashboard speed in a real browser on Digit (the issue's targets), printed as a table.

    python benchmarks/bench_dashboard.py [--repeat 3] [--port 0]

Starts ``streamlit run app.py`` on a free port, drives Debian's Chromium with
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
  the new fit (progress and objective curve); "new result" = the fit has
  finished and its numbers are on screen (bounded below by the fit itself);
* cached revisit: the slider moved back to a value already fitted (its result
  comes from the cache), and switching back to the Solve page from another.

The machine may be shared: the load average before and after is printed, and
each measurement is repeated (median, min, max).
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
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


def start_server(port):
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def wait(page, js, arg=None, timeout=LONG):
    # The page is being rebuilt while we poll: a missing element just means "not yet".
    page.wait_for_function(f"a => {{ try {{ return ({IDLE}) && ({js}); }} "
                           f"catch (e) {{ return false; }} }}", arg=arg, timeout=timeout,
                           polling=50)


DATA_TEXT = ("document.querySelector('h1') && document.querySelector('h1').innerText"
             ".startsWith('Data') && document.querySelector('[data-testid=stSidebar]')"
             ".innerText.includes('2,000') && document.querySelector('[data-testid=stDataFrame]')")
DATA_READY = ("document.querySelector('h1') && document.querySelector('h1').innerText"
              ".startsWith('Data') && document.querySelectorAll('.js-plotly-plot').length >= 3")
SOLVE_RESULT = ("document.querySelector('h1') && document.querySelector('h1').innerText"
                ".startsWith('Solve') && [...document.querySelectorAll('[data-testid=stMetric]')]"
                ".some(e => e.innerText.includes('density of Z*'))"
                " && document.querySelectorAll('.js-plotly-plot').length >= 2")
SOLVE_LIVE = ("[...document.querySelectorAll('p, div')].some(e => e.innerText && "
              "e.innerText.startsWith('Running RMSC')) && "
              "document.querySelectorAll('.js-plotly-plot').length >= 1")
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    first_text, first, new_session = [], [], []
    redraw, result, cached_slider, cached_page = [], [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # -- first page load on a fresh server (cold: imports, Digit, projections) --------
        for _ in range(args.repeat):
            proc, url = start_server(free_port())
            try:
                ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
                page = ctx.new_page()
                t0 = time.perf_counter()
                page.goto(url)
                # text first (the frontend streams elements as the script runs), then charts
                page.wait_for_function(f"() => {{ try {{ return {DATA_TEXT}; }} "
                                       "catch (e) { return false; } }", timeout=LONG, polling=50)
                first_text.append(time.perf_counter() - t0)
                wait(page, DATA_READY)
                first.append(time.perf_counter() - t0)
                # a second visitor on the warm server
                ctx2 = browser.new_context(viewport={"width": 1500, "height": 1000})
                page2 = ctx2.new_page()
                t0 = time.perf_counter()
                page2.goto(url)
                wait(page2, DATA_READY)
                new_session.append(time.perf_counter() - t0)
                ctx2.close()
                ctx.close()
            finally:
                proc.terminate()
                proc.wait(30)

        # -- Solve: slider changes and cached revisits ----------------------------------
        proc, url = start_server(free_port())
        try:
            ctx = browser.new_context(viewport={"width": 1500, "height": 1000})
            page = ctx.new_page()
            page.goto(url)
            wait(page, DATA_READY)
            nav(page, "Solve")
            wait(page, SOLVE_RESULT)  # the default fit (β = 0.3) has finished
            values = ["0.2", "0.1", "0.05", "0.03", "0.02"][: args.repeat]
            for beta in values:  # ArrowLeft: a β not fitted yet
                t0 = press(page, "ArrowLeft")
                wait(page, f"({BETA_IN_URL}) && ({SIDEBAR_BETA}) && ({SOLVE_LIVE} || "
                           f"{SOLVE_RESULT})", beta)
                redraw.append(time.perf_counter() - t0)
                wait(page, f"({BETA_IN_URL}) && {SOLVE_RESULT}", beta)
                result.append(time.perf_counter() - t0)
            ladder = ["0.3", *values]  # the β values fitted, in slider order
            back = ladder[::-1][1:]  # one step right at a time: every one is cached
            for beta in back:  # ArrowRight: back to a β already fitted (cached)
                t0 = press(page, "ArrowRight")
                wait(page, f"({BETA_IN_URL}) && ({SIDEBAR_BETA}) && {SOLVE_RESULT}", beta)
                cached_slider.append(time.perf_counter() - t0)
            for _ in range(args.repeat):  # another page, then Solve again
                nav(page, "Theory")
                wait(page, "document.querySelector('h1').innerText.startsWith('Theory')")
                t0 = time.perf_counter()
                nav(page, "Solve")
                wait(page, SOLVE_RESULT)
                cached_page.append(time.perf_counter() - t0)
            ctx.close()
        finally:
            proc.terminate()
            proc.wait(30)
        browser.close()
    load_after = os.getloadavg()

    print(f"Dashboard speed on Digit (2000 samples, 6 views), Chromium, "
          f"{os.cpu_count()} CPUs; load average before {load_before[0]:.1f}, "
          f"after {load_after[0]:.1f}")
    print()
    print("| measurement | target | median s | min s | max s | n | met |")
    print("|---|---|---:|---:|---:|---:|---|")
    print(row("first page load: Digit's text, tables and sidebar on screen", None, first_text))
    print(row("first page load (fresh server): Data page complete with its charts", 5, first))
    print(row("page load of a new visitor (warm server)", None, new_session))
    print(row("slider change → Solve redrawn (new β, live run under way)", 3, redraw))
    print(row("slider change → new result on screen (includes the fit)", None, result))
    print(row("cached revisit: slider back to a fitted β", 1, cached_slider))
    print(row("cached revisit: back to the Solve page from another page", 1, cached_page))


if __name__ == "__main__":
    main()
