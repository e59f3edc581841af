"""What the 1280-px tests share (``tests/browser/test_clipping.py``, the lesson's and the
charts' browser tests): the window size, the detector of cut text (``clipped_text.js``) run
until the layout is steady, the wait for a fit, and the screenshots kept in
``tests/screenshots_1280/`` (with ``RMSC_UPDATE_SHOTS=1``) or the git-ignored
``tests/screenshots/1280/``."""

import io
import os
from pathlib import Path

import yaml
from PIL import Image

from tests.browser_support import FIT_TIMEOUT, PAGE_WAIT, settle

ROOT = Path(__file__).resolve().parents[1]
#: Whether the screenshots kept are the committed set (``RMSC_UPDATE_SHOTS=1``).
UPDATE = bool(os.environ.get("RMSC_UPDATE_SHOTS"))
SHOTS = ROOT / "tests" / ("screenshots_1280" if UPDATE else "screenshots/1280")
SIZE = {"width": 1280, "height": 800}
DETECTOR = (Path(__file__).parent / "clipped_text.js").read_text()


#: Iterations each fit of the 1280-px walk may take: what is checked there is the layout of
#: every page around a result, not convergence (test_clipping's heatmap test keeps Digit at the
#: defaults, to convergence). A capped fit is a whole result (its iteration count shows
#: "30+"), and it keeps the walk's many fits -- Digit, the 100 classes, the experiments --
#: from taking most of the suite's time on a busy machine.
MAX_ITER = 30


def small_lesson(folder):
    """The shipped lesson, its words, steps and parameters, on Digit-small, written to
    ``folder/lesson.yaml`` (the lesson of the browser tests' server, ``RMSC_LESSON``);
    returns that path.

    Its fits are not capped at :data:`MAX_ITER`: the lesson's step 1 says that an iteration
    count at the maximum means the fit stopped there unsettled, and a reader of the
    screenshots takes every number for an unconverged one when the sidebar says "30
    iterations" on every step. Only the lesson's browser test opens the Lesson page, so the
    other pages' walk keeps its cap (the measured cost is in docs/lesson.md, "Tests")."""
    from rmsc.dashboard import lesson

    doc = yaml.safe_load(lesson.default_lesson_path().read_text())
    for step in doc["steps"]:
        step["data"] = "Digit-small"
    path = folder / "lesson.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return path


#: Findings on a page once its layout has settled: the detector run until two runs half a
#: second apart agree, with the fonts loaded, the script idle (charts and tables lay
#: themselves out after they arrive) and no element still waiting for its code (Streamlit
#: loads an element type's script on first use and draws a grey ``stSkeleton`` until then:
#: on a busy machine a screenshot showed the Solve page's metrics and radios as grey boxes).
SETTLED = """() => {
    const detector = (DETECTOR);
    if (document.fonts.status !== 'loaded') return false;
    if (!document.querySelector("[data-test-script-state='notRunning']")) return false;
    if (document.querySelector("[data-testid=stSkeleton]")) return false;
    const now = JSON.stringify(detector());
    const same = window.__clipFindings === now;
    window.__clipFindings = now;
    return same;
}"""


def wait_fitted(page, timeout=FIT_TIMEOUT):
    """Until the sidebar reports the fit ("Fitted on CPU (NumPy): 145 iterations, ..."; the
    device came into that line after ``browser_support.wait_fitted`` was written)."""
    page.wait_for_selector("[data-testid=stSidebar] >> text=/Fitted( on [^:]+)?:/",
                           timeout=timeout)
    settle(page)


def findings(page, timeout=PAGE_WAIT):
    """What ``clipped_text.js`` finds on the page once its layout is steady."""
    page.evaluate("window.__clipFindings = undefined")
    page.wait_for_function(SETTLED.replace("DETECTOR", DETECTOR), polling=500, timeout=timeout)
    return page.evaluate("JSON.parse(window.__clipFindings)")


def keep_shot(page, name):
    """The whole page at 1280 px wide, in :data:`SHOTS`: for the committed set a 256-colour
    PNG (the repository's bytes), otherwise Chromium's PNG as it is: quantizing is for files
    to commit, and it cost 18 CPU s over the committed set's 29 screenshots (about 0.6 a
    screenshot, in the test process, while the test waits)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("document.querySelector('[data-testid=stMain]').scrollHeight")
    page.set_viewport_size({"width": SIZE["width"], "height": max(SIZE["height"], height + 40)})
    try:
        findings(page)  # the taller window laid out (charts redraw on resize)
        raw = page.screenshot()
    finally:
        page.set_viewport_size(SIZE)
    if not UPDATE:
        (SHOTS / f"{name}.png").write_bytes(raw)
        return
    image = Image.open(io.BytesIO(raw)).convert("RGB")
    image.quantize(colors=256).save(SHOTS / f"{name}.png", optimize=True)

