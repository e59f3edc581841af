"""The Lesson page in a real browser at 1280 × 800: every step walked with Next, each drawn
with its results, nothing cut off (``tests/clipped_text.js``), a screenshot of every step
(``tests/screenshots_1280/lesson_step<N>.png`` with ``RMSC_UPDATE_SHOTS=1``), the QR code
drawn, and the URL naming the step.

The shipped lesson's own words and steps, on Digit-small (300 of Digit's samples) with the
fits capped at the clipping walk's iterations, so that the comparisons run in the suite's
time: what is checked is the page's layout around each step's results.
"""

import re

import pytest
import yaml

from rmsc.dashboard import lesson as L
from tests.browser_support import FIT_TIMEOUT, no_exception, open_app, serve, settle
from tests.clipping_support import MAX_ITER, SIZE, findings, keep_shot

pytestmark = pytest.mark.browser

def charts(step):
    """The plotly charts a step draws once its results are in."""
    if step.show == "compare":
        return 1 if step.outliers is None else 2  # one per dataset variant
    return {"views": 2, "weights": 2, "solve": 0}[step.show]


def small_lesson(tmp_path):
    doc = yaml.safe_load(L.default_lesson_path().read_text())
    for step in doc["steps"]:
        step["data"] = "Digit-small"
        step["params"] = {**(step.get("params") or {}), "max_iter": MAX_ITER}
    path = tmp_path / "lesson.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return path, L.load_lesson(path)


def test_the_lesson_walked_at_1280_px_nothing_cut_off(browser, server_env, tmp_path):
    path, lesson = small_lesson(tmp_path)
    results = {}
    # a server of its own, started with this lesson (the suite's shared result folder)
    with serve("server_lesson.log", env={**server_env, "RMSC_LESSON": str(path)}) as url:
        context = browser.new_context(viewport=SIZE)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:
            open_app(page, url, "?lesson=1")
            for n, step in enumerate(lesson.steps, 1):
                page.wait_for_selector(f"text=Step {n} of {len(lesson)}: {step.title}",
                                       timeout=60_000)
                # no settle yet: a running comparison's progress reruns its fragment each second
                if step.show == "solve":
                    page.wait_for_selector("text=density of Z*", timeout=FIT_TIMEOUT)
                else:
                    page.wait_for_function(
                        "n => document.querySelectorAll('.js-plotly-plot').length >= n",
                        arg=charts(step),
                        timeout=2 * FIT_TIMEOUT, polling=500)
                if step.show == "compare" and step.outliers is not None:
                    page.wait_for_selector("text=What the outliers cost", timeout=FIT_TIMEOUT)
                settle(page)
                no_exception(page)
                assert re.search(rf"[?&]lesson={n}(&|$)", page.url), page.url
                qr = page.locator("[data-testid=stImage] img").first
                assert qr.is_visible() and qr.bounding_box()["width"] >= 100
                href = page.get_by_role("link", name="link to this step").get_attribute("href")
                assert href == L.step_url(url, lesson, n), href  # what the QR code holds
                assert step.question.split()[0] in page.locator(
                    "[data-testid=stMain] [data-testid=stAlert]").first \
                    .inner_text()
                results[f"step {n}"] = findings(page)
                keep_shot(page, f"lesson_step{n}")
                if n < len(lesson):
                    page.get_by_role("button", name="Next →").click()
        finally:
            page.screenshot(path=str(tmp_path / "last.png"))
            context.close()
    assert not errors, errors
    assert not {k: v for k, v in results.items() if v}, results
