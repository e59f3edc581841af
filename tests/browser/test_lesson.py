"""The Lesson page in a real browser at 1280 × 800: every step walked with Next, each drawn
with its results, nothing cut off (``tests/clipped_text.js``), a screenshot of every step
(``tests/screenshots_1280/lesson_step<N>.png`` with ``RMSC_UPDATE_SHOTS=1``), the QR code
drawn, and the URL naming the step.

The shipped lesson's own words, steps and parameters, on Digit-small (300 of Digit's
samples), its fits run to convergence (the sidebar's count of iterations below the
maximum on every step: the lesson's step 1 says a count at the maximum means the fit had not
settled, and a reader of the screenshots takes their numbers as they come). That lesson
(``clipping_support.small_lesson``) is the one the session's server runs (``RMSC_LESSON``,
``conftest.server_env``). Before the walk, the slider steps' fits are warmed into the
server's result folder (what ``rmsc lesson --warm`` does for a class), so that step 6's
table of the slider's values is full on its screenshot (the tests' server fits nothing in
the background); the session's warming process (``conftest.warmed_results``,
``tests/warm_support.py``) has usually fitted the whole lesson there by then, and its end is
awaited first.
"""

import contextlib
import dataclasses
import re
import subprocess

import pytest

from rmsc.dashboard import lesson as L
from rmsc.dashboard.lesson_close import closing_tests
from tests.browser_support import FIT_TIMEOUT, PAGE_WAIT, no_exception, open_app
from tests.clipping_support import SIZE, findings, keep_shot, wait_fitted

pytestmark = pytest.mark.browser


#: How much of a step's evidence must show above the fold of the 800-px window, at least (px).
EVIDENCE_SHOWN = 150


#: How far the page is scrolled (it scrolls in its main element, not in the window).
SCROLLED = "document.querySelector('[data-testid=stMain]').scrollTop"


def charts(step):
    """The plotly charts a step draws once its results are in."""
    if step.show == "compare":
        return 1 if step.outliers is None else 2  # one per dataset variant
    return {"views": 2, "weights": 2, "solve": 0, "summary": 0}[step.show]


def test_the_lesson_walked_at_1280_px_nothing_cut_off(browser, server, lesson_file, tmp_path,
                                                      results_folder, warmed_results,
                                                      monkeypatch):
    lesson = L.load_lesson(lesson_file)  # the session's server runs this lesson
    # the session's warming (conftest.warmed_results) fits the whole lesson last, at the test
    # process's priority: its end is awaited (bounded) rather than the server's niced workers
    # fitting the same steps meanwhile; what it has not done is fitted below or by the server
    with contextlib.suppress(subprocess.TimeoutExpired):
        warmed_results.wait(timeout=2 * FIT_TIMEOUT / 1000)
    # the slider steps' fits, at every value, into the folder the server reads
    monkeypatch.setenv("RMSC_CACHE_DIR", str(results_folder))
    sliders = [s for s in lesson.steps if s.slider is not None]
    L.warm(dataclasses.replace(lesson, steps=tuple(sliders)), L.dashboard_cache())
    results, positions = {}, {}
    context = browser.new_context(viewport=SIZE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_app(page, server, "?lesson=1")
        for n, step in enumerate(lesson.steps, 1):
            page.wait_for_selector(f"text=Step {n} of {len(lesson)}: {step.title}",
                                   timeout=PAGE_WAIT)
            # no settle yet: a running comparison's progress reruns its fragment each second.
            # Each step waits for something only its results draw (the previous step's
            # charts stay in the page until replaced, and the step's text names its
            # results: neither says they are in)
            if step.show == "solve":
                page.wait_for_selector("[data-testid=stMetricLabel] >> text=density of Z*",
                                       timeout=2 * FIT_TIMEOUT)
            else:
                page.wait_for_function(
                    "n => document.querySelectorAll('.js-plotly-plot').length >= n",
                    arg=charts(step),
                    timeout=2 * FIT_TIMEOUT, polling=500)
            if step.show == "compare":
                page.wait_for_selector("text=What the outliers changed" if step.outliers
                                       else "text=what is done to the table of who resembles",
                                       timeout=2 * FIT_TIMEOUT)
            if step.show == "weights" and step.outliers is not None:
                page.wait_for_selector("text=Reading the ROC curve.", timeout=2 * FIT_TIMEOUT)
            if step.show == "summary":
                page.wait_for_selector("text=The paper's claim.", timeout=2 * FIT_TIMEOUT)
                # the paper's model's fit, prefetched: the page redraws once it is in (the
                # words only its sentence has; the step's text and question name the model too)
                page.wait_for_selector("text=fitted again on the same clean data (a fit of its own",
                                       timeout=2 * FIT_TIMEOUT)
            if step.show == "compare" and step.claim is not None:
                page.wait_for_selector("text=The paper's claim, judged on the ACC changes alone",
                                       timeout=2 * FIT_TIMEOUT)
                closing = L.run_context(lesson.steps, n)[1]  # a closing step sums this run up
                if closing:
                    # on Digit-small PIX and FOU count little in the clean fit (step 1's fit,
                    # the same parameters): the closing step's caveat takes the pointer's place
                    page.wait_for_selector("text=Can this run test the claim?",
                                           timeout=FIT_TIMEOUT)
                else:  # no closing step: the run's evidence on this step (the fit read)
                    page.wait_for_selector("text=NMI beside ACC", timeout=FIT_TIMEOUT)
                    # and, last, the title's question on this run (RMSC against RMSC-WV)
                    page.wait_for_selector("text=The title's question", timeout=FIT_TIMEOUT)
                if closing_tests(lesson.steps)[-1:] == [n]:  # the lesson's last test: its answer
                    page.wait_for_selector("text=The lesson's answer.", timeout=FIT_TIMEOUT)
                main = page.locator("[data-testid=stMain]").inner_text()
                # step 8, after the closing step, corrupts FAC and MOR, which count: no caveat,
                # and no pointer to a closing step that does not sum its run up
                assert ("Can this run test the claim?" in main) == closing, n
                assert "is the closing step's question" not in main, n
            if step.slider is not None:  # warmed above: every row of its table filled
                table = page.locator("[data-testid=stDataFrame]").first
                table.wait_for(timeout=2 * FIT_TIMEOUT)
                assert "Move the slider" not in page.locator(
                    "[data-testid=stMain]").inner_text()
            # arrived at the top of the step, also from the Next below the last one's evidence
            page.wait_for_function(f"{SCROLLED} === 0", timeout=PAGE_WAIT, polling=200)
            wait_fitted(page, timeout=2 * FIT_TIMEOUT)
            no_exception(page)
            status = page.locator("[data-testid=stSidebar] >> text=/Fitted( on [^:]+)?:/")
            iterations = int(re.search(r"(\d+) iterations", status.inner_text()).group(1))
            assert iterations < step.params.max_iter, (n, status.inner_text())  # it settled
            assert re.search(rf"[?&]lesson={n}(&|$)", page.url), page.url
            qr = page.locator("[data-testid=stImage] img").first
            assert qr.is_visible() and qr.bounding_box()["width"] >= 100
            href = page.get_by_role("link", name="Open on your laptop").get_attribute("href")
            assert href == L.step_url(server, lesson, n), href  # what the QR code holds
            assert step.question.split()[0] in page.locator(
                "[data-testid=stMain] [data-testid=stAlert]").first \
                .inner_text()
            results[f"step {n}"] = findings(page)
            # the evidence starts above the fold: the row of the question, "Where to look"
            # and the QR code (the last thing above it) ends with room below it in the
            # 800-px window (the seventh cold reading found every step's evidence at
            # 750-900 px, below the fold)
            row = page.locator("[data-testid=stHorizontalBlock]").filter(
                has_text="Question.").first.bounding_box()
            top = page.evaluate(SCROLLED) + row["y"] + row["height"]
            positions[n] = round(top)
            assert top <= SIZE["height"] - EVIDENCE_SHOWN, (n, top)
            # Back / Next again at the step's end, after the evidence
            nexts = page.get_by_role("button", name="Next →")
            assert nexts.count() == 2
            assert nexts.last.bounding_box()["y"] > nexts.first.bounding_box()["y"] + 300
            keep_shot(page, f"lesson_step{n}")
            if n < len(lesson):
                nexts.last.click()  # the one a student reaches after the evidence
    finally:
        page.screenshot(path=str(tmp_path / "last.png"))
        context.close()
    assert not errors, errors
    assert not {k: v for k, v in results.items() if v}, results
    print("where the evidence starts (px):", positions)
