"""End-to-end tests in a real browser: Debian's Chromium driven by Playwright.

The dashboard runs under ``streamlit run --server.headless true`` on a free
local port. Every page is opened, its charts must be drawn (plotly's
``.js-plotly-plot`` in the DOM), and a screenshot of every page is saved under
``tests/screenshots/`` (git-ignored) for a person to look at.
"""

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.browser_support import (FIT_TIMEOUT, PAGE_WAIT, ROOT, SHOTS, VIEWPORT, free_port, metric, nav,
                                   no_exception, open_app, open_details, serve, settle, shot, sidebar,
                                   steady, upload_file, wait_charts, wait_fitted, wait_metric,
                                   wait_sidebar, wait_sidebar_match, wait_url)
from rmsc import dashboard as dash

pytestmark = pytest.mark.browser

# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


def test_opens_on_digit_and_fits_it_live(page, server):
    # Digit at the defaults, as `make run` opens it, but capped at 100 iterations (a default
    # Digit fit takes ~160): still seconds of a live curve to watch (the live view polls about
    # once a second), without a full fit on a busy machine's niced workers (minutes)
    open_app(page, server, "?max_iter=100")
    assert page.locator("h1").first.inner_text().startswith("Data")
    wait_sidebar(page, "Digit", "2,000", "6 (PIX")
    wait_charts(page, 3)  # class counts, 2-D views, pictures
    shot(page, "digit_data")
    nav(page, "Solve")
    # the default fit started on its own; the curve grows while it runs
    running = page.locator("text=/Running RMSC: iteration \\d+/").first
    running.wait_for(timeout=FIT_TIMEOUT)
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 1",
                           timeout=PAGE_WAIT)
    shot(page, "digit_solve_running")
    # the page stays responsive while the fit runs: switch pages and back
    nav(page, "Theory")
    nav(page, "Solve")
    wait_fitted(page)
    no_exception(page)
    wait_metric(page, "ACC", r"\d+\.\d\d%")
    wait_charts(page, 1)  # the objective curve; the other charts on demand
    open_details(page)
    wait_charts(page, 3)  # the clustering along the iterations, the views' mean weight
    shot(page, "digit_solve")
    nav(page, "Weights")
    wait_charts(page, 3)
    shot(page, "digit_weights")
    nav(page, "Affinity")
    wait_charts(page, 4)  # consensus, one view's Zᵛ, every view's Zᵛ, embedding
    page.locator("text=pooled 4×4").first.wait_for(timeout=PAGE_WAIT)  # 2000² sent as 500² images
    page.locator("text=/Every view's affinity/").first.wait_for(timeout=PAGE_WAIT)
    shot(page, "digit_affinity")


# Solve opens with its objective curve; its other charts are drawn when their section opens
PAGES = [("Data", 3), ("Solve", 1), ("Weights", 4), ("Affinity", 4), ("Compare", 0),
         ("Sensitivity", 0), ("Theory", 2)]


def test_every_page_renders_its_charts(page, server):
    open_app(page, server, "?data=Digit-small&outliers=PIX:0.1:replace:1:1:0")
    wait_fitted(page)
    for title, n_charts in PAGES:
        nav(page, title)
        no_exception(page)
        if n_charts:
            wait_charts(page, n_charts)
        if title == "Solve":
            open_details(page)
            wait_charts(page, 3)
        if title == "Compare":
            # RMSC, RMSC-WV, SSC-AVG on the clean and the corrupted data, in the background
            page.get_by_role("button", name=re.compile(r"^Run 6 fits")).click()
            page.wait_for_selector("text=What the outliers changed", timeout=FIT_TIMEOUT * 2)
            settle(page)
            wait_charts(page, 3)
        shot(page, title.lower())
    wait_sidebar(page, "injected outliers", "PIX 30")


def test_sensitivity_grid_runs_with_a_progress_bar(page, server):
    open_app(page, server, "?data=Subspaces")
    wait_fitted(page)  # the automatic fit first (its end redraws the page)
    nav(page, "Sensitivity")
    page.get_by_role("button", name=re.compile(r"^Run 25 fits")).first.click()
    page.locator("text=/of 25 fits/").first.wait_for(timeout=FIT_TIMEOUT)  # the progress bar
    wait_charts(page, 1, timeout=FIT_TIMEOUT * 2)  # the heatmaps appear when the grid is done
    settle(page)
    no_exception(page)
    shot(page, "sensitivity_grid")


def test_a_slider_change_updates_the_result(page, server):
    open_app(page, server, "?data=Subspaces&beta=0.3")  # an absolute β (default: auto)
    nav(page, "Solve")
    wait_fitted(page)
    density = metric(page, "density of Z*")
    thumb = page.locator("[data-testid=stSlider]", has_text="β (sparsity").get_by_role("slider")
    thumb.focus()
    thumb.press("ArrowRight")  # β: 0.3 -> 0.5
    page.wait_for_function("location.search.includes('beta=0.5')", timeout=PAGE_WAIT)
    wait_fitted(page)
    page.wait_for_function(
        "d => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]"
        ".find(e => e.innerText.includes('density of Z*'));"
        " return m && !m.innerText.includes(d); }", arg=density, timeout=FIT_TIMEOUT)
    wait_sidebar(page, "β = 0.5")
    no_exception(page)
    shot(page, "solve_after_slider")


def test_suggest_parameters_draws_the_criterion_and_apply_moves_the_sliders(page, server):
    # λ = 0.1 is not in the suggestion's grid; the suggestion's β is relative (β = auto)
    open_app(page, server, "?data=Subspaces&lam=0.1&beta=0.3")
    nav(page, "Solve")
    wait_fitted(page)
    page.get_by_role("button", name="Suggest λ and β (no labels)").click()
    page.locator("text=/Suggested for RMSC/").first.wait_for(timeout=FIT_TIMEOUT)
    settle(page)
    wait_charts(page, 2)  # the objective, what the suggestion ranks by against λ
    criterion = "Agreement of the k-means runs"
    page.locator(".js-plotly-plot", has_text=criterion).first.wait_for(timeout=PAGE_WAIT)
    assert page.locator(".js-plotly-plot", has_text=criterion).count() == 1
    no_exception(page)
    shot(page, "solve_suggestion")
    words = page.locator("[data-testid=stMarkdownContainer]",
                         has_text="Suggested for RMSC").first.inner_text()
    lam, rel = re.search(r"λ = ([0-9.]+), β = auto \(β_rel ([0-9.]+)\)", words).groups()
    page.get_by_role("button", name=re.compile("^Apply: move")).click()
    page.locator("text=The sliders are at the suggestion.").wait_for(timeout=PAGE_WAIT)
    page.wait_for_function("!location.search.includes('lam=0.1')", timeout=PAGE_WAIT)
    wait_fitted(page)
    wait_sidebar(page, f"λ = {lam}, β = auto (β_rel {rel}),", absent=["λ = 0.1,"])
    # the URL carries β_rel (the data's units; none at the default), not an absolute β
    if float(rel) != dash.auto_beta_rel("sample"):
        wait_url(page, f"beta_rel={rel}", absent=["beta="])
    else:
        wait_url(page, absent=["beta=", "beta_rel="])
    page.locator("[data-testid=stSlider]", has_text="β_rel (β relative").first.wait_for(
        timeout=PAGE_WAIT)
    assert page.locator("[data-testid=stSlider]", has_text="β_rel (β relative").count() == 1
    no_exception(page)


#: JavaScript: the value a labelled slider shows in the browser (its thumb's aria-valuetext).
SLIDER_TEXT = """label => { const box = [...document.querySelectorAll('[data-testid=stSlider]')]
    .find(e => e.innerText.includes(label));
    const thumb = box && box.querySelector('[role=slider], input[type=range]');
    return thumb ? thumb.getAttribute('aria-valuetext') : null; }"""


def wait_slider(page, label, value, timeout=PAGE_WAIT):
    page.wait_for_function(f"([l, v]) => ({SLIDER_TEXT})(l) === v", arg=[label, value],
                           timeout=timeout)


def test_apply_sticks_when_clicked_at_once_20_times(page, server):
    """Apply right after the suggestion lands, then another click (a rerun that carries the
    browser's widget values, as any click or a fragment's poll does): the sliders, the URL and
    the sidebar keep the suggestion, 20 times. The first round waits for the suggestion
    itself (its end redraws the page); the others open new sessions on other start values
    of λ and β, where the suggestion of these settings is cached (its key leaves λ and β
    out) and its Apply button is there at once."""
    starts = [("0.1", "0.3"), ("0.03", "0.5"), ("2", "0.1"), ("0.05", "1")]
    expected = None
    for i in range(20):
        lam0, beta0 = starts[i % len(starts)]
        open_app(page, server, f"solve?data=Subspaces&lam={lam0}&beta={beta0}")
        if i == 0:
            page.get_by_role("button", name="Suggest λ and β (no labels)").click()
        apply = page.get_by_role("button", name=re.compile("^Apply: move"))
        apply.click(timeout=FIT_TIMEOUT)  # as soon as it is there
        words = page.locator("[data-testid=stMarkdownContainer]",
                             has_text="Suggested for RMSC").first.inner_text()
        lam, rel = re.search(r"λ = ([0-9.]+), β = auto \(β_rel ([0-9.]+)\)", words).groups()
        assert expected in (None, (lam, rel))
        expected = (lam, rel)
        # the browser's sliders show the suggestion (not only the server's state)
        wait_slider(page, "λ (coupling", lam)
        wait_slider(page, "β_rel (β relative", rel)  # β is set by β_rel now (auto)
        # a rerun that carries the browser's values: Stop (nothing to stop: nothing else moves)
        page.get_by_role("button", name="Stop", exact=True).first.click()
        settle(page)
        # settled (no rerun for a while): what is on screen now stays; an undone Apply
        # would show the button again, the old λ in the slider, sidebar and URL
        page.locator("text=The sliders are at the suggestion.").wait_for(timeout=PAGE_WAIT)
        page.get_by_role("button", name=re.compile("^Apply: move")).wait_for(
            state="detached", timeout=PAGE_WAIT)
        wait_slider(page, "λ (coupling", lam)
        wait_sidebar(page, f"λ = {lam}, β = auto (β_rel {rel}),")
        wait_url(page, absent=[f"lam={lam0}", "beta="])
        settle(page)  # and nothing moved back since
        assert page.get_by_role("button", name=re.compile("^Apply: move")).count() == 0, i
        assert page.evaluate(SLIDER_TEXT, "λ (coupling") == lam, i
        assert f"λ = {lam}, β = auto (β_rel {rel})," in sidebar(page), i
        no_exception(page)


def test_uploading_a_paper_mat_file(page, server, paper_mats):
    open_app(page, server, "?data=Subspaces")
    upload_file(page, paper_mats / "3sources.mat")
    page.wait_for_function(
        "document.querySelector('[data-testid=stSidebar]').innerText.includes('169')",
        timeout=PAGE_WAIT)
    settle(page)
    wait_sidebar_match(page, r"3 \(BBC|views\*\*|views: 3")
    wait_sidebar(page, "classes: 6")
    no_exception(page)
    shot(page, "data_uploaded")


def test_a_broken_upload_is_a_message_and_keeps_the_data(page, server, tmp_path):
    bad = tmp_path / "broken.mat"
    bad.write_bytes(b"this is not a MATLAB file")
    open_app(page, server, "?data=Subspaces")
    upload_file(page, bad)
    page.wait_for_selector("[data-testid=stAlertContentError] >> text=Could not load broken.mat",
                           timeout=PAGE_WAIT)
    settle(page)
    assert "Subspaces" in sidebar(page)  # the data loaded before stay
    no_exception(page)


def test_an_injection_shows_up_on_the_weights_page(page, server):
    open_app(page, server, "?data=Subspaces")
    wait_fitted(page)  # the automatic fit first (its end redraws the page)
    page.get_by_role("button", name="Inject").click()
    page.wait_for_function(
        "document.querySelector('[data-testid=stSidebar]').innerText.includes('15 samples')",
        timeout=FIT_TIMEOUT)
    # the URL follows in the same run, after the sidebar (the browser applies it a moment
    # later: under load, later than a check made at once)
    page.wait_for_function("location.search.includes('outliers=')", timeout=PAGE_WAIT)
    nav(page, "Weights")
    wait_fitted(page)
    page.wait_for_selector("text=Finding the injected outliers", timeout=FIT_TIMEOUT)
    wait_charts(page, 4, timeout=FIT_TIMEOUT)  # heatmap, distributions, ROC, one sample
    # legends are drawn by plotly after the chart's frame: wait for them too
    page.locator("text=injected outlier").first.wait_for(timeout=PAGE_WAIT)
    no_exception(page)
    shot(page, "weights_injected")


def wait_multiselect(page, label, chip, absent=None, timeout=PAGE_WAIT):
    """Wait until the multiselect labelled ``label`` shows the choice ``chip`` (and not
    ``absent``)."""
    page.wait_for_function(
        "([l, c, a]) => [...document.querySelectorAll('[data-testid=stMultiSelect]')]"
        ".some(e => e.innerText.includes(l) && e.innerText.includes(c)"
        " && !(a && e.innerText.includes(a)))", arg=[label, chip, absent], timeout=timeout)


def test_views_to_corrupt_follow_a_new_dataset(page, server):
    """Forms follow the data (the page review): after loading a dataset with other views, "views to
    corrupt" shows one of the new views and Inject works at once (the browser had kept the
    previous data's view, and Inject then said "Choose at least one view to corrupt")."""
    open_app(page, server, "?data=Subspaces")
    wait_multiselect(page, "views to corrupt", "view 1 (20-d)")
    details = page.locator("[data-testid=stExpander] details").first
    if not details.evaluate("d => d.open"):
        page.get_by_text("Choose a dataset").click()
    page.get_by_role("tab", name="Bundled").click()
    page.locator("[data-testid=stSelectbox]").filter(has_text="Bundled dataset").first.click()
    page.get_by_role("option", name="3-Sources").click()
    settle(page)
    page.get_by_role("button", name="Load", exact=True).click()
    wait_sidebar(page, "3-Sources")
    settle(page)
    wait_multiselect(page, "views to corrupt", "BBC", absent="view 1 (20-d)")
    page.get_by_role("button", name="Inject").click()
    page.wait_for_selector("text=Injected:", timeout=PAGE_WAIT)
    assert page.locator("text=Choose at least one view to corrupt").count() == 0
    wait_url(page, "outliers=BBC")
    no_exception(page)


def test_stop_ends_a_long_run_early(page, server):
    # Digit with 200 iterations and tol=0: far longer than the click takes to arrive
    open_app(page, server, "?tol=0&max_iter=200&seed=7")
    nav(page, "Solve")
    page.locator("text=/Running RMSC: iteration \\d+/").first.wait_for(timeout=FIT_TIMEOUT)
    page.get_by_role("button", name="Stop").first.click()
    try:
        page.wait_for_selector("text=/stopped after \\d+ iteration/", timeout=FIT_TIMEOUT)
    finally:
        shot(page, "solve_stopped")
    iterations = wait_metric(page, "iterations", r"\d+\+")
    assert int(iterations[:-1]) < 200
    no_exception(page)


#: JavaScript: how opaque an element looks (its own opacity times its ancestors').
SEEN_OPACITY = """e => { let o = 1; for (; e; e = e.parentElement)
    o *= parseFloat(getComputedStyle(e).opacity); return o; }"""
#: JavaScript: how opaque the ACC metric looks (-1 while it is not on the page).
ACC_OPACITY = f"""(() => {{ const m = [...document.querySelectorAll('[data-testid=stMetric]')]
    .find(e => e.innerText.includes('ACC')); return m ? ({SEEN_OPACITY})(m) : -1; }})()"""


def test_the_last_result_stays_dimmed_while_the_next_fit_runs(page, server):
    # Digit, 10 iterations without a tolerance stop; then 200: far longer than the checks
    open_app(page, server, "solve?tol=0&max_iter=10")
    wait_fitted(page)
    acc = metric(page, "ACC")
    thumb = page.locator("[data-testid=stSlider]", has_text="max iterations").get_by_role("slider")
    thumb.focus()
    thumb.press("End")  # 200 iterations
    page.locator("text=/Below, dimmed: the previous result/").first.wait_for(timeout=PAGE_WAIT)
    page.locator("text=/Below, dimmed/").filter(
        has_text="Running for λ = 1, β = auto").first.wait_for(timeout=PAGE_WAIT)
    wait_metric(page, "ACC", re.escape(acc))  # the previous result's numbers ...
    page.wait_for_function(f"() => (o => o >= 0 && o < 0.6)({ACC_OPACITY})",
                           timeout=PAGE_WAIT)  # ... dimmed
    page.locator("text=/Running RMSC: (iteration|waiting)/").first.wait_for(
        timeout=PAGE_WAIT)  # the new run
    shot(page, "solve_dimmed")
    page.get_by_role("button", name="Stop").first.click()
    page.wait_for_selector("text=/stopped after \\d+ iteration/", timeout=FIT_TIMEOUT)
    page.locator("text=/Below, dimmed/").first.wait_for(state="detached", timeout=PAGE_WAIT)
    page.wait_for_function(f"() => ({ACC_OPACITY}) === 1", timeout=PAGE_WAIT)
    no_exception(page)


# ---------------------------------------------------------------------------
# Readable at any size, on any dataset the loader accepts
# ---------------------------------------------------------------------------

#: Elements whose text the browser cuts with an ellipsis ("96.…") because it does not fit.
CUT_TEXT = """() => [...document.querySelectorAll('[data-testid=stMain] *')].filter(e =>
    getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1
    && e.innerText.trim()).map(e => e.innerText.slice(0, 60))"""


def test_no_text_is_cut_at_projector_widths(page, server):
    open_app(page, server, "?data=Subspaces")
    wait_fitted(page)
    for width in (1280, 1400):
        page.set_viewport_size({"width": width, "height": 900})
        for title, n_charts in PAGES:
            nav(page, title)
            if n_charts:
                wait_charts(page, min(n_charts, 2))
            assert steady(page, CUT_TEXT) == [], (width, title)  # the layout after the charts
        no_exception(page)


def test_edge_datasets_in_the_browser(page, server, tmp_path):
    """A refused file, an unlabelled one (c chosen in the page) and 100 classes, uploaded
    through the real browser; every page drawn without an exception; Solve and Affinity
    of the 100-class set photographed at 1280 px. The fits are capped at the 1280-px walk's
    iterations (``MAX_ITER``): what is checked is the pages around a result, not
    convergence (a capped fit is a whole result, its iteration count shown "30+")."""
    from tests.clipping_support import MAX_ITER
    from tests.support import _hundred_classes, _no_labels, _one_sample

    files = {}
    for make in (_one_sample, _no_labels, _hundred_classes):
        name, raw = make()
        files[name] = tmp_path / name
        files[name].write_bytes(raw)
    page.set_viewport_size({"width": 1280, "height": 900})
    open_app(page, server, f"?data=Subspaces&max_iter={MAX_ITER}")
    upload_file(page, files["one_sample.npz"])
    page.wait_for_selector("[data-testid=stAlertContentError] >> text=clustering needs at least 2",
                           timeout=PAGE_WAIT)
    settle(page)
    assert "Subspaces" in sidebar(page)  # the data loaded before stay
    no_exception(page)

    upload_file(page, files["no_labels.npz"])
    page.wait_for_function(
        "document.querySelector('[data-testid=stSidebar]').innerText.includes('no_labels')",
        timeout=PAGE_WAIT)
    nav(page, "Solve")
    page.wait_for_selector("text=choose clusters c (left)", timeout=PAGE_WAIT)
    assert page.get_by_role("button", name="Run", exact=True).is_disabled()
    box = page.locator("[data-testid=stNumberInput]", has_text="clusters c").locator("input")
    box.fill("3")
    box.press("Enter")
    wait_fitted(page)
    wait_metric(page, "ACC", "no labels")
    no_exception(page)

    nav(page, "Data")
    upload_file(page, files["hundred_classes.npz"])
    page.wait_for_function(
        "document.querySelector('[data-testid=stSidebar]').innerText.includes('samples n: 800')",
        timeout=PAGE_WAIT)
    wait_fitted(page)
    for title, _ in PAGES:
        nav(page, title)
        no_exception(page)
    nav(page, "Solve")
    wait_metric(page, "ACC", r"\d+\.\d\d%")
    assert page.evaluate(CUT_TEXT) == []
    shot(page, "hundred_classes_solve_1280")
    nav(page, "Affinity")
    wait_charts(page, 4)
    assert page.evaluate(CUT_TEXT) == []
    shot(page, "hundred_classes_affinity_1280")


# ---------------------------------------------------------------------------
# A click right after the page loads: each on a server of its own, opened on
# the page's URL, as a student following a link does; the first visit of a server is the
# one whose first run Streamlit makes without the app's navigation.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path, run_label, progress", [
    ("compare", r"^Run 3 fits", "of 3 fits"),
    ("sensitivity", r"^Run 25 fits", "of 25 fits"),
])
def test_run_clicked_at_once_after_load_starts_the_run(browser, server_env, path, run_label,
                                                      progress):
    with serve(f"server_{path}_click.log", env=server_env) as url:
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        try:
            page.goto(f"{url}/{path}?data=Digit-small")
            button = page.get_by_role("button", name=re.compile(run_label)).first
            button.click(timeout=120_000)  # as soon as it is there and enabled
            # The run started: its progress bar (with its Cancel button) or its result.
            page.wait_for_function(
                "p => document.body.innerText.includes(p)"
                " || document.querySelectorAll('.js-plotly-plot').length > 0",
                arg=progress, timeout=FIT_TIMEOUT)
            no_exception(page)
        finally:
            page.screenshot(path=str(SHOTS / f"last_click_{path}.png"))
            context.close()


# ---------------------------------------------------------------------------
# The app on a machine without internet (a classroom or lab server), and "this machine
# only" (the newcomer checks): nothing asked from outside, nothing listening beyond loopback.
# ---------------------------------------------------------------------------

#: Hosts of this machine, as a request's URL may name them.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]", "::1")


def _outside(url):
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOCAL_HOSTS


def test_no_page_asks_anything_from_outside_and_the_console_stays_clean(page, server):
    outside, failed, errors = [], [], []
    page.on("request", lambda r: outside.append(r.url) if _outside(r.url) else None)
    page.on("requestfailed", lambda r: failed.append(f"{r.url}: {r.failure}"))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    open_app(page, server, "?data=Subspaces")
    wait_fitted(page)
    for title, n_charts in PAGES:
        nav(page, title)
        if n_charts:
            wait_charts(page, min(n_charts, 2))
    no_exception(page)
    assert outside == [] and failed == [] and errors == [], (outside, failed, errors)


def _listening(pid):
    import psutil

    out = []
    for proc in [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]:
        try:
            for c in proc.net_connections(kind="inet"):
                if c.status == psutil.CONN_LISTEN:
                    out.append((proc.pid, " ".join(proc.cmdline()[:4]), c.laddr.ip,
                                c.laddr.port))
        except psutil.NoSuchProcess:
            pass
    return out


def test_make_run_listens_on_loopback_only(browser):
    """The dashboard as `make run` starts it (`python -m rmsc dashboard --port P --address
    localhost`), with its Dask cluster started by a first fit: every listening socket of its
    process tree is on 127.0.0.1 or ::1."""
    port = free_port()
    log = open(SHOTS / "server_make_run.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "rmsc", "dashboard", "--port", str(port),
                             "--address", "localhost"], cwd=ROOT, stdout=log,
                            stderr=subprocess.STDOUT)
    url = f"http://localhost:{port}"
    context = browser.new_context(viewport=VIEWPORT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                    break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, \
                    "rmsc dashboard did not start; see tests/screenshots/server_make_run.log"
                time.sleep(0.3)
        page = context.new_page()
        open_app(page, url, "?data=Subspaces")
        wait_fitted(page)  # the fit ran on the dashboard's LocalCluster
        sockets = _listening(proc.pid)
        ports = {p for _, _, _, p in sockets}
        assert port in ports, sockets  # Streamlit itself
        assert len(ports) >= 5, sockets  # and the cluster: scheduler, its HTTP, nannies, workers
        assert {ip for _, _, ip, _ in sockets} <= {"127.0.0.1", "::1"}, sockets
    finally:
        context.close()
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


# ---------------------------------------------------------------------------
# The terminal a teacher projects: `make run`'s command, fits, Ctrl-C
# ---------------------------------------------------------------------------

#: Lines that must never reach the terminal: Dask's warning about a large task graph (the
#: data go to the workers by scatter), the estimators' warnings printed by every worker for
#: every fit (the pages say them), and what a disorderly Ctrl-C prints.
NOISE = ("Sending large graph", "UserWarning", "all zero", "lose scattered data", "ERROR",
         "Traceback", "KeyboardInterrupt", "Exception")


def test_a_quiet_terminal_through_fits_and_a_clean_ctrl_c(browser, tmp_path):
    from tests.support import union_of_subspaces
    from tests.support import npz

    views, labels = union_of_subspaces()
    views[1][:7] = 0.0  # 7 all-zero samples in one view: every fit of them warns
    upload = tmp_path / "zero_samples.npz"
    upload.write_bytes(npz(views, labels))
    port = free_port()
    SHOTS.mkdir(parents=True, exist_ok=True)
    log_path = SHOTS / "server_make_run.log"
    # Dask's bound for "a large graph" lowered from 10 MB, so that Digit-small's fitted model
    # (0.6 MB; Digit's is 29 MB) would trip it if it went inside a task's graph
    env = {**os.environ, "DASK_DISTRIBUTED__ADMIN__LARGE_GRAPH_WARNING_THRESHOLD": "256kB"}
    with open(log_path, "w") as log:
        proc = subprocess.Popen(  # `make run`, on a port of its own
            [sys.executable, "-m", "rmsc", "dashboard", "--port", str(port),
             "--address", "127.0.0.1"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True)  # its own process group, as a terminal's
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.time() + 120
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                        break
                except OSError:
                    assert proc.poll() is None and time.time() < deadline, log_path.read_text()
                    time.sleep(0.3)
            context = browser.new_context(viewport=VIEWPORT)
            page = context.new_page()
            try:
                # a fit, then every view's Zᵛ formed on a worker from the fitted model
                open_app(page, url, "affinity?data=Digit-small")
                wait_charts(page, 4, timeout=FIT_TIMEOUT)
                nav(page, "Data")
                upload_file(page, upload)
                page.wait_for_selector("text=/7 samples are all zero/", timeout=PAGE_WAIT)
                nav(page, "Solve")
                wait_fitted(page)
                thumb = page.locator("[data-testid=stSlider]",
                                     has_text="λ (coupling").get_by_role("slider")
                for _ in range(2):  # two more fits
                    before = page.evaluate("location.search")
                    thumb.focus()
                    thumb.press("ArrowRight")
                    page.wait_for_function("s => location.search !== s", arg=before,
                                           timeout=PAGE_WAIT)
                    wait_fitted(page)
                no_exception(page)
            finally:
                context.close()
        finally:
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole process group
            try:
                code = proc.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                raise
    text = log_path.read_text()
    assert [line for line in text.splitlines() if any(n in line for n in NOISE)] == [], text
    assert "Stopping" in text and code == 0, text
