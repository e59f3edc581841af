"""Nothing cut off at 1280 × 800 (a projector), in a real browser.

Every page is visited on Digit, on a 100-class set uploaded through the Data page, and on
Digit-small with outliers after running what fills a page with results (Solve's suggestion,
Compare with notes on the clean and the corrupted data, both Sensitivity tabs). On each,
``tests/clipped_text.js`` looks for text the page cuts: a select's value or a chip cut by its
box, an equation running past its column, a chart's label outside the chart or its clip
region, a table cell wider than its column, columns behind a table's scroll bar, a short
table that scrolls inside itself. A screenshot of every visit is taken: the committed set in
``tests/screenshots_1280/`` (to be looked at) is rewritten with ``RMSC_UPDATE_SHOTS=1``; an
ordinary run writes to the git-ignored ``tests/screenshots/1280/``, leaving the checkout
clean. The detector itself is shown to find planted cuts and to pass the same elements shown
whole (``tests/planted_clips.py``).

    RMSC_UPDATE_SHOTS=1 .venv/bin/python -m pytest tests/browser/test_clipping.py
"""

import io
import re

import pytest
from PIL import Image

from tests.browser_support import (FIT_TIMEOUT, PAGE_WAIT, nav, no_exception, open_app,
                                   open_details, serve, settle, upload_file, wait_charts)
from tests.clipping_support import MAX_ITER, SHOTS, SIZE, findings, keep_shot, wait_fitted
from tests.warm_support import await_warmed

pytestmark = pytest.mark.browser

#: The pages, and the charts each draws (before any experiment runs); Solve's charts beyond
#: its objective curve are drawn when their section is opened (visit_every_page opens it).
PAGES = [("Data", 2), ("Solve", 1), ("Weights", 3), ("Affinity", 3), ("Compare", 0),
         ("Sensitivity", 0), ("Theory", 2)]



def visit_every_page(page, prefix):
    """Every page: drawn, photographed, and its cut text (page -> findings, empty when none)."""
    out = {}
    for title, n_charts in PAGES:
        nav(page, title)
        no_exception(page)
        if n_charts:  # Weights and Affinity compute on the workers (Digit's 2,000²: minutes
            wait_charts(page, n_charts, timeout=FIT_TIMEOUT)  # on a busy machine's niced ones)
        if title == "Solve":
            open_details(page)
        out[title] = findings(page)
        keep_shot(page, f"{prefix}_{title.lower()}")
    return out


def cut(results):
    return {page: found for page, found in results.items() if found}


def test_the_detector_finds_planted_cuts_and_passes_what_is_whole(browser):
    # a server of its own: the planted page is another script than the app
    with serve("server_planted.log", script="tests/planted_clips.py") as url:
        context = browser.new_context(viewport=SIZE)
        page = context.new_page()
        try:
            page.goto(url)
            # a busy machine can take well over Playwright's default 30 s to draw the page
            page.wait_for_selector(".js-plotly-plot", timeout=FIT_TIMEOUT)
            wait_charts(page, 2)
            found = findings(page)
        finally:
            context.close()
    text = "\n".join(found)
    expected = [
        r'html: stSelectbox: "PLANT select: a value far too long',  # a select's value
        r'html: stMultiSelect: "PLANT chip \d"',                      # chips past their box
        r'html: stMarkdown: ".*" … "0" \(\d+ texts\)',                # an equation's "= 0"
        r'plotly: plant bars: "111" cut by its clip region',          # bar counts above the axes
        r'plotly: plant bars: "PLANT annotation" outside the chart',
        r'table: plantcell .*column "plantcell" is \d+ px, "PLANT cell',  # a cell past its column
        r'table: plantwide 0 .*hidden behind a horizontal scroll bar',
        r'scroll: plantscroll: 8 rows scroll inside the table',
    ]
    for pattern in expected:
        assert re.search(pattern, text), (pattern, found)
    # nothing shown whole is reported, nor anything twice
    assert not [f for f in found if "whole" in f or "222" in f], found
    assert len(found) == len(expected) + 1, found  # two bars: "111" twice


def test_nothing_is_cut_off_at_1280_px_on_any_page(browser, server, tmp_path, request,
                                                   warmed_results, results_folder):
    from tests.support import _hundred_classes

    await_warmed(warmed_results, results_folder, request.node.nodeid, FIT_TIMEOUT / 1000)

    name, raw = _hundred_classes()
    hundred = tmp_path / name
    hundred.write_bytes(raw)
    results = {}
    context = browser.new_context(viewport=SIZE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        # Digit, as the app opens (the fits capped: MAX_ITER)
        open_app(page, server, f"?max_iter={MAX_ITER}")
        wait_fitted(page)
        results["Digit"] = visit_every_page(page, "digit")

        # 100 classes, uploaded on the Data page (the session's parameters, MAX_ITER too, stay)
        nav(page, "Data")
        upload_file(page, hundred)
        page.wait_for_function("document.querySelector('[data-testid=stSidebar]')"
                               ".innerText.includes('samples n: 800')", timeout=PAGE_WAIT)
        wait_fitted(page)
        results["100 classes"] = visit_every_page(page, "hundred_classes")

        # Digit-small with outliers, with the results of every experiment on screen
        results["experiments"] = run_experiments(page, server)
    finally:
        page.screenshot(path=str(tmp_path / "last.png"))
        context.close()
    assert not errors, errors
    assert not {k: cut(v) for k, v in results.items() if cut(v)}, results


def run_experiments(page, url):
    out = {}
    open_app(page, url, f"?data=Digit-small&outliers=PIX:0.1:replace:1:1:0&max_iter={MAX_ITER}")
    wait_fitted(page)
    nav(page, "Solve")
    page.get_by_role("button", name="Suggest λ and β (no labels)").click()
    page.locator("text=/Suggested for RMSC/").first.wait_for(timeout=FIT_TIMEOUT)
    settle(page)
    wait_charts(page, 2)  # the objective, the suggestion's criterion
    out["Solve with the suggestion"] = findings(page)
    keep_shot(page, "experiments_solve_suggestion")

    nav(page, "Compare")
    choose = page.locator("[data-testid=stMultiSelect]").first
    choose.click()
    page.get_by_role("option", name="SC-BSV", exact=True).click()  # a method with a note
    page.keyboard.press("Escape")
    settle(page)
    page.get_by_role("button", name=re.compile(r"^Run 8 fits")).click()
    page.wait_for_selector("text=What the outliers changed", timeout=FIT_TIMEOUT * 2)
    settle(page)
    wait_charts(page, 3)
    out["Compare, clean and with outliers"] = findings(page)
    keep_shot(page, "experiments_compare")

    nav(page, "Sensitivity")
    page.get_by_role("button", name=re.compile(r"^Run 25 fits")).first.click()
    wait_charts(page, 1, timeout=FIT_TIMEOUT * 2)
    settle(page)
    out["Sensitivity, λ × β"] = findings(page)
    keep_shot(page, "experiments_sensitivity_grid")
    page.get_by_role("tab", name="number of views").click()
    settle(page)
    page.get_by_role("button", name=re.compile(r"^Run \d+ fits")).last.click()
    wait_charts(page, 2, timeout=FIT_TIMEOUT * 2)
    settle(page)
    out["Sensitivity, views"] = findings(page)
    keep_shot(page, "experiments_sensitivity_views")
    no_exception(page)
    return out


def test_the_weights_page_keeps_long_view_names_whole_at_1280_px(browser, server):
    """Subspaces' view names ("view 1 (20-d)") are longer than Digit's (PIX, FOU...): the
    heatmap's row labels were cut in its fixed left margin, and the single sample's table's
    last column sat behind a scroll bar in the narrow column; under a model other than the
    default (view_balance), as the Solve page's select box sets it."""
    context = browser.new_context(viewport=SIZE)
    page = context.new_page()
    try:
        open_app(page, server, "?data=Subspaces&view_balance=balanced")
        nav(page, "Weights")
        wait_fitted(page, timeout=3 * FIT_TIMEOUT)
        wait_charts(page, 3, timeout=FIT_TIMEOUT)
        no_exception(page)
        found = findings(page)
        keep_shot(page, "subspaces_weights_balanced")
    finally:
        context.close()
    assert not found, found


#: The heatmap's geometry in the browser: for each view, the pixel columns (relative to the
#: chart) of the columns holding an injected sample (the red marks' x, from the figure's own
#: data), of every column, and the pixel band of each view's row.
HEATMAP_GEOMETRY = """(plot) => {
    const xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
    const full = plot._fullData;  // decoded (the figure's arrays arrive typed-encoded)
    const heat = full[0], marks = full.find(t => (t.name || '').startsWith('injected'));
    const z = plot.calcdata[0][0].z;
    const k = z[0].length, m = z.length;
    const px = x => xa._offset + xa.l2p(x), py = y => ya._offset + ya.l2p(y);
    const rows = [];
    for (let v = 0; v < m; v++) rows.push([py(v - 0.3), py(v + 0.3)].sort((a, b) => a - b));
    const marked = [];
    for (let v = 0; v < m; v++) marked.push([]);
    Array.from(marks.x).forEach((x, i) => marked[Math.round(marks.y[i] + 0.5)].push(x));
    return {k, rows, marked, columns: [...Array(k).keys()].map(px),
            width: Math.abs(px(1) - px(0))};
}"""


def test_the_weights_heatmap_shows_injected_outliers_at_1280_px(browser, server, request,
                                                               warmed_results, results_folder):
    """10 % replaced samples in PIX and FOU on Digit (as the Data page injects them): under
    the red marks the heatmap's cells are clearly darker than their neighbours in the same
    row, measured on the screenshot."""
    import numpy as np

    await_warmed(warmed_results, results_folder, request.node.nodeid, 3 * FIT_TIMEOUT / 1000)

    context = browser.new_context(viewport=SIZE)
    page = context.new_page()
    try:
        open_app(page, server, "?outliers=PIX,FOU:0.1:replace:1:1:0")
        nav(page, "Weights")
        wait_fitted(page, timeout=3 * FIT_TIMEOUT)
        wait_charts(page, 3)
        no_exception(page)
        plot = page.locator(".js-plotly-plot").first
        plot.scroll_into_view_if_needed()
        findings(page)  # laid out
        geometry = plot.evaluate(HEATMAP_GEOMETRY)
        SHOTS.mkdir(parents=True, exist_ok=True)
        raw = plot.screenshot()
        Image.open(io.BytesIO(raw)).convert("RGB").save(
            SHOTS / "digit_weights_outliers_heatmap.png", optimize=True)
        keep_shot(page, "digit_weights_outliers")
    finally:
        context.close()
    image = np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"), dtype=float)
    luminance = image @ np.array([0.2126, 0.7152, 0.0722])
    cols = np.asarray(geometry["columns"])  # CSS pixels = image pixels (scale factor 1)
    contrast = {}
    for v, (top, bottom) in enumerate(geometry["rows"]):
        band = luminance[int(round(top)):int(round(bottom)) + 1]
        per_column = np.array([band[:, int(np.floor(c))].mean() for c in cols])
        marked = np.unique(np.asarray(geometry["marked"][v], dtype=int))
        if marked.size == 0:
            continue
        near = np.zeros(geometry["k"], bool)
        for c in marked:
            near[max(c - 10, 0):c + 11] = True
        near[marked] = False
        contrast[v] = (per_column[marked].mean(), per_column[near].mean())
    print("mean luminance under the marks vs their unmarked neighbours (±10 columns):",
          {v: tuple(round(x, 1) for x in c) for v, c in contrast.items()})
    assert set(contrast) == {0, 1}  # PIX and FOU, the injected views
    for v, (under, around) in contrast.items():
        assert around - under >= 60 and around >= 1.6 * under, (v, under, around)
