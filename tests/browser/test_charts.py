"""The pages' newer charts, drawn in a real browser (Chromium driven by Playwright).

The server, the browser and the helpers are ``tests/browser_support.py``'s; here the charts'
own data are read from the plotly divs in the page (``_fullData``: plotly's decoded copy of
the figure, whose arrays arrive typed-encoded) and checked against what the page says.
"""

import re

import pytest

from rmsc.dashboard import PAGE_TRACE_EVERY
from rmsc.tracking import ClusteringTrace
from tests.browser_support import (FIT_TIMEOUT, PAGE_WAIT, metric, nav, no_exception,
                                   open_app, open_details)
from tests.clipping_support import wait_fitted
from tests.warm_support import await_warmed

pytestmark = pytest.mark.browser

TRACE_TITLE = "The clustering along the iterations"

#: The traces (name, x, y) of the chart titled ``title``, once one is drawn with data; null
#: while none is.
TRACES_OF = """(title) => {
    for (const plot of document.querySelectorAll('.js-plotly-plot')) {
        const layout = plot._fullLayout, data = plot._fullData;
        if (!layout || !data || !data.length) continue;
        // Streamlit's theme wraps the title in <b>
        if (((layout.title || {}).text || '').replace(/<[^>]*>/g, '') !== title) continue;
        return data.map(t => ({name: t.name, x: Array.from(t.x || []),
                               y: Array.from(t.y || [])}));
    }
    return null;
}"""


def test_solve_draws_the_clustering_along_the_iterations(page, server, request,
                                                        warmed_results, results_folder):
    """Digit-small at the defaults (well over a hundred iterations): under the objective, the
    chart of the clustering along the iterations has one point per recorded row, its ARI in
    [0, 1], its ACC and NMI in [0, 100] %, and the fit's own ACC (the star) is the ACC the
    page reports. Its fit is the warming's first (``tests/warm_support.py``): the session's
    first test waits for it rather than have its server fit the same at once."""
    await_warmed(warmed_results, results_folder, request.node.nodeid, FIT_TIMEOUT / 1000)
    open_app(page, server, "?data=Digit-small")
    nav(page, "Solve")
    wait_fitted(page)
    no_exception(page)
    open_details(page)  # drawn on demand, under the objective curve and the scores
    page.wait_for_function(f"title => ({TRACES_OF})(title) !== null", arg=TRACE_TITLE,
                           timeout=PAGE_WAIT)
    traces = {t["name"]: t for t in page.evaluate(TRACES_OF, TRACE_TITLE)}

    # the rows the worker recorded: iteration 1, every PAGE_TRACE_EVERY-th, then the fit's own
    n_iter = int(re.match(r"(\d+)", metric(page, "iterations")).group(1))
    due = ClusteringTrace(2, every=PAGE_TRACE_EVERY).due
    n_rows = sum(due(i) for i in range(1, n_iter + 1)) + 1
    assert n_rows >= 3, n_iter  # enough iterations for the chart to show a trace

    assert set(traces) == {"ARI with the previous", "ACC %", "ACC % of the fit", "NMI %",
                           "NMI % of the fit"}, list(traces)
    ari = traces["ARI with the previous"]
    assert len(ari["x"]) == len(ari["y"]) == n_rows - 1  # the first row has no previous
    for score in ("ACC %", "NMI %"):
        quick, final = traces[score], traces[f"{score} of the fit"]
        assert len(quick["y"]) + len(final["y"]) == n_rows, score
        assert len(final["y"]) == 1 and final["x"] == [n_iter], score
        assert quick["x"] == [i for i in range(1, n_iter + 1) if due(i)], score
        assert all(0 <= y <= 100 for y in quick["y"] + final["y"]), (score, quick, final)
    assert ari["x"] == traces["ACC %"]["x"][1:] + [n_iter]
    assert all(0 <= y <= 1 for y in ari["y"]), ari["y"]
    assert max(ari["y"]) > 0.5, ari["y"]  # successive clusterings of a fit agree

    # the star is the fit's own score, as the metric above the charts shows it
    shown = float(metric(page, "ACC").rstrip("%"))
    assert traces["ACC % of the fit"]["y"][0] == pytest.approx(shown, abs=0.006)


TRUST_TITLE = "Trust against each view's own quality"


def test_weights_draws_each_views_trust_beside_its_own_quality(page, server):
    """Subspaces at the defaults: the Weights page's scatter puts every view at the share of
    the consensus weight and the own ACC the library computes, and the sentence beside it is
    the library's (rmsc.inspection.trust_vs_quality)."""
    from rmsc import dashboard as dash
    from rmsc import datasets, get_method, inspection

    open_app(page, server, "?data=Subspaces")
    wait_fitted(page)
    nav(page, "Weights")
    wait_fitted(page)
    page.wait_for_function(f"title => ({TRACES_OF})(title) !== null", arg=TRUST_TITLE,
                           timeout=120_000)
    no_exception(page)
    (points,) = page.evaluate(TRACES_OF, TRUST_TITLE)

    data = datasets.load_bundled("Subspaces")
    params = dash.Params()
    est = get_method(params.method, **dash.estimator_params(params, data)).fit(list(data.views))
    shares = inspection.view_weight_shares(est.weights_, gamma=est.gamma,
                                           view_names=data.view_names,
                                           factors=est.view_factors_, scale=est.loss_scale_)
    quality = inspection.view_quality(list(data.views), params.resolved_clusters(data),
                                      data.labels, view_names=list(data.view_names),
                                      random_state=params.seed)
    assert points["x"] == pytest.approx([100 * s["share"] for s in shares], rel=1e-6)
    assert points["y"] == pytest.approx([100 * q["acc"] for q in quality], rel=1e-9)
    sentence = inspection.trust_vs_quality(shares, quality).sentence
    page.wait_for_function("s => document.body.innerText.includes(s)", arg=sentence,
                           timeout=PAGE_WAIT)
