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

    python -m tests.warm_support FOLDER LESSON_FILE [pages] [lesson]
"""

import os
import sys

from tests.clipping_support import MAX_ITER

#: The queries (as the tests' URLs give them) of the fits warmed, in the order the browser
#: tests reach them: the 1280-px walk's Digit and Digit-small with outliers (its fits capped
#: at MAX_ITER), then the heatmap's Digit with outliers at the defaults (to convergence).
QUERIES = [
    {"max_iter": str(MAX_ITER)},
    {"data": "Digit-small", "outliers": "PIX:0.1:replace:1:1:0", "max_iter": str(MAX_ITER)},
    {"outliers": "PIX,FOU:0.1:replace:1:1:0"},
]


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


#: The test files whose results are warmed: :data:`QUERIES` for the first, the lesson for
#: the second (``tests/conftest.py`` names the parts a session's tests need).
PARTS = {"pages": "tests/browser/test_clipping.py", "lesson": "tests/browser/test_lesson.py"}


def parts_for(nodeids):
    """The parts of :data:`PARTS` whose test file is among ``nodeids`` (a session's tests)."""
    files = {n.split("::")[0] for n in nodeids}
    return [part for part, file in PARTS.items() if file in files]


def warm(lesson_file, parts=tuple(PARTS), say=print):
    """Fit :data:`QUERIES` ("pages" in ``parts``) and every result of the lesson in
    ``lesson_file`` ("lesson") into the result folder ``RMSC_CACHE_DIR`` names, skipping
    what is there already."""
    from rmsc.dashboard import fit_rmsc
    from rmsc.dashboard import lesson as lessons

    cache = lessons.dashboard_cache()  # over RMSC_CACHE_DIR, as the server opens it
    for query in QUERIES if "pages" in parts else ():
        key, data, params = fit_of_query(query)
        if key not in cache:
            result = fit_rmsc(data, params)
            cache.put(result.key, result)
            say(f"warmed {query}: {result.key == key}")
    if "lesson" in parts:
        done = lessons.warm(lessons.load_lesson(lesson_file), cache)
        say(f"warmed the lesson: {done} result(s)")


if __name__ == "__main__":
    folder, lesson_file, *chosen = sys.argv[1:]
    os.environ["RMSC_CACHE_DIR"] = folder
    warm(lesson_file, chosen)
