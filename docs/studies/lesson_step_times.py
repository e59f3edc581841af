"""Where a lesson step's seconds go on a warm server: the server's script run, then the browser.

    python docs/studies/lesson_step_times.py CACHE_DIR LESSON_FILE [--tabs 1]

Serves the dashboard (``streamlit run app.py``, ``RMSC_CACHE_DIR=CACHE_DIR`` warmed before
with ``rmsc lesson --warm``, ``RMSC_LESSON=LESSON_FILE``, the script runs traced with
``RMSC_DASHBOARD_TRACE``), opens the lesson in one tab (the teacher's: the server's first
visit), then in ``--tabs`` tabs at once, each walking every step with Next and each value of
a step's slider, as ``benchmarks/bench_load.py --lesson`` does (Chromium at nice 19). For each
step it prints two times from the click: until the page's script run has finished and the
step's heading is on screen (the server's work and the transfer: the browser has the step),
and until the step's charts are drawn (``bench_load``'s condition); then every script run of
the server with its duration (the trace). What lies between the two columns is the
browser's own work: drawing the charts.

Measured: docs/lesson.md, "Where a step's time goes", at commit b2443bd (2026-11-28). Not
smoke-tested: a one-off study of the page's cost.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import _preamble  # noqa: E402,F401  (the root on sys.path, one thread)

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import bench_load as B  # noqa: E402

#: True once the script is idle and the step's heading is on screen.
SCRIPT_IDLE = """([heading]) => {
  const main = document.querySelector('[data-testid=stMain]');
  if (!main || !document.querySelector("[data-test-script-state='notRunning']")) return false;
  return main.innerText.includes(heading);
}"""


async def walk(browser, url, lesson, i, out):
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    for k, (label, n, index, key) in enumerate(B.lesson_visits(lesson)):
        t0 = time.perf_counter()
        if k == 0:
            await page.goto(f"{url}/?lesson=1", timeout=B.TIMEOUT)
        elif key is None:
            await page.get_by_role("button", name="Next →").first.click(timeout=B.TIMEOUT)
        else:
            await page.locator("[data-testid=stSlider]").get_by_role("slider").press(
                key, timeout=B.TIMEOUT)
        cond = B.step_condition(lesson, n, index)
        await page.wait_for_function(SCRIPT_IDLE, arg=[cond[0]], timeout=B.TIMEOUT, polling=20)
        idle = time.perf_counter() - t0
        await page.wait_for_function(B.STEP_SHOWN, arg=cond, timeout=B.TIMEOUT, polling=20)
        out.append((i, label, idle, time.perf_counter() - t0))
    await context.close()


async def drive(url, lesson, tabs):
    from playwright.async_api import async_playwright

    out = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=B.browser_executable(19), args=B.ARGS)
        await walk(browser, url, lesson, -1, out)  # the teacher's tab: the first visit
        await asyncio.gather(*(walk(browser, url, lesson, i, out) for i in range(tabs)))
        await browser.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cache_dir")
    ap.add_argument("lesson_file")
    ap.add_argument("--tabs", type=int, default=1)
    args = ap.parse_args()
    from rmsc.dashboard import lesson as L

    lesson = L.load_lesson(args.lesson_file)
    trace = Path(tempfile.mkdtemp(prefix="lesson_step_times_")) / "trace.log"
    env = {**os.environ, "RMSC_CACHE_DIR": args.cache_dir, "RMSC_LESSON": args.lesson_file,
           "RMSC_DASHBOARD_TRACE": str(trace)}
    env.pop("RMSC_SCHEDULER", None)
    load = os.getloadavg()
    print(f"# {args.tabs} tab(s) after the teacher's; load average {load[0]:.1f} / "
          f"{load[1]:.1f} / {load[2]:.1f}")
    with open(trace.with_suffix(".server.log"), "w") as log:
        server, url = B.start_server(env, log)
        try:
            B.wait_health(url, server)
            t_start = time.time()
            out = asyncio.run(drive(url, lesson, args.tabs))
        finally:
            B.stop([server])
    print("| tab | step | script idle, heading shown s | charts drawn s |")
    print("|---|---|---|---|")
    for i, label, idle, shown in out:
        print(f"| {'teacher' if i < 0 else i} | {label} | {idle:.2f} | {shown:.2f} |")
    print("\nThe server's script runs (start s after the server answered, seconds):")
    started = {}
    for line in trace.read_text().splitlines():
        ts, thread, msg = line.split(" ", 2)
        if msg.startswith("run start"):
            started[thread] = float(ts)
        elif msg.startswith("run end") and thread in started:
            t0 = started.pop(thread)
            print(f"  {t0 - t_start:8.2f}  {float(ts) - t0:6.2f} s  {msg}")
    load = os.getloadavg()
    print(f"# load average after: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


if __name__ == "__main__":
    main()
