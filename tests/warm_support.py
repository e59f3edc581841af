"""The browser tests' results computed ahead of the pages that show them: a process started
with the session's server (``tests/conftest.py``, ``results_folder``) fits, one after another,
what the long browser tests wait on, into the session's result folder (``RMSC_CACHE_DIR``),
under the keys the pages look up, by the dashboard's own code (``rmsc.dashboard.fit_rmsc``,
``rmsc.dashboard.lesson.warm``), as ``rmsc lesson --warm`` does for a class.

Why: the tests' servers run their Dask workers at the product's niceness, below everything
else (a page stays responsive while a fit runs); on a busy machine their fits got a fraction
of a core, and the 1280-px walk, the heatmap and the lesson spent most of their time waiting
on them (docs/measurements.md, "How long the suite takes"). This process runs at the test
process's priority while the earlier tests run; a page that asks before a result is written
fits it on the server as before (the same result, computed twice at worst). What the tests
check is the pages drawn around a result, never that the result was computed there; a test
that must watch a fit run asks for settings nothing here fits.

    python -m tests.warm_support FOLDER LESSON_FILE TEST_NODEID...
"""

import os
import sys

from tests.clipping_support import MAX_ITER

_CLIPPING = "tests/browser/test_clipping.py::"

#: The tests whose results are warmed, in the order the browser tests reach them, and the
#: queries (as their URLs give them) of their fits: the charts' Digit-small at the defaults,
#: the 1280-px walk's Digit and Digit-small with outliers (its fits capped at MAX_ITER), the
#: heatmap's Digit with outliers at the defaults (to convergence); None: the whole lesson
#: (``clipping_support.small_lesson``); then the every-page walk's Digit-small with outliers
#: at the defaults. Each of these tests reads its fit's result, none watches the fit run.
PARTS = {
    "tests/browser/test_charts.py::test_solve_draws_the_clustering_along_the_iterations": [
        {"data": "Digit-small"},
    ],
    _CLIPPING + "test_nothing_is_cut_off_at_1280_px_on_any_page": [
        {"max_iter": str(MAX_ITER)},
        {"data": "Digit-small", "outliers": "PIX:0.1:replace:1:1:0", "max_iter": str(MAX_ITER)},
    ],
    _CLIPPING + "test_the_weights_heatmap_shows_injected_outliers_at_1280_px": [
        {"outliers": "PIX,FOU:0.1:replace:1:1:0"},
    ],
    "tests/browser/test_lesson.py::test_the_lesson_walked_at_1280_px_nothing_cut_off": None,
    "tests/browser/test_pages.py::test_every_page_renders_its_charts": [
        {"data": "Digit-small", "outliers": "PIX:0.1:replace:1:1:0"},
    ],
}


def fit_of_query(query):
    """(key, dataset, params) of the fit a fresh session opened at ``?query`` runs, read by
    the dashboard's own parsers (``rmsc.dashboard.lesson.state_from_query``)."""
    from rmsc import datasets
    from rmsc.dashboard import fit_key
    from rmsc.dashboard.lesson import state_from_query

    _, name, outliers, params, problems = state_from_query(query)
    assert not problems, problems
    data = datasets.load_bundled(name or "Digit")
    if outliers is not None:
        data = outliers.inject(data)
    return fit_key(params, data), data, params


def parts_for(nodeids):
    """The tests of :data:`PARTS` among ``nodeids`` (a session's tests), in its order."""
    chosen = set(nodeids)
    return [test for test in PARTS if test in chosen]


def await_warmed(proc, folder, test, timeout):
    """Wait until the warming process ``proc`` has written the fits of ``test`` (a key of
    :data:`PARTS` with queries) into ``folder``, or has ended, or ``timeout`` seconds have
    passed: a test run alone then reads its fit from there rather than its server fitting
    the same at once."""
    import time

    from rmsc.dashboard.store import DiskStore

    store = DiskStore(folder)
    paths = [store.path(fit_of_query(query)[0]) for query in PARTS[test]]
    deadline = time.monotonic() + timeout
    while (proc.poll() is None and time.monotonic() < deadline
           and not all(path.exists() for path in paths)):  # written whole (atomically)
        time.sleep(0.5)


def warm(lesson_file, tests=tuple(PARTS), say=print):
    """Fit the results of ``tests`` (of :data:`PARTS`) into the result folder
    ``RMSC_CACHE_DIR`` names, skipping what is there already: their queries' fits, and every
    result of the lesson in ``lesson_file`` for the lesson's test."""
    from rmsc.dashboard import fit_rmsc
    from rmsc.dashboard import lesson as lessons

    cache = lessons.dashboard_cache()  # over RMSC_CACHE_DIR, as the server opens it
    for test in tests:
        if PARTS[test] is None:
            done = lessons.warm(lessons.load_lesson(lesson_file), cache)
            say(f"warmed the lesson: {done} result(s)")
            continue
        for query in PARTS[test]:
            key, data, params = fit_of_query(query)
            if key not in cache:
                result = fit_rmsc(data, params)
                cache.put(result.key, result)
                say(f"warmed {query}: {result.key == key}")


if __name__ == "__main__":
    folder, lesson_file, *chosen = sys.argv[1:]
    os.environ["RMSC_CACHE_DIR"] = folder
    warm(lesson_file, chosen)
