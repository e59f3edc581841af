"""The pages at scale with streamlit's AppTest (no browser): subsampled scatter, pooled images,
binned weights and the notices that say so; twenty thousand samples never hang a page."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import rmsc
from rmsc import dashboard as dash

from tests.app_support import (
    APP, ROOT, cancel_jobs, goto, no_trouble, texts,
)

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")


def large_dataset_and_result(n=6000, c=10, seed=0):
    """A 6000-sample dataset and a made-up fit result (the pages only draw it)."""
    import scipy.sparse as sp

    from rmsc.datasets import MultiViewDataset

    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(c), n // c)
    centers = rng.standard_normal((c, 8))
    views = [centers[labels] @ rng.standard_normal((8, d)) + 0.3 * rng.standard_normal((n, d))
             for d in (12, 20)]
    data = MultiViewDataset(name="Large", views=views, labels=labels, view_names=("A", "B"))
    params = dash.Params()
    rows = rng.integers(0, n, 20 * n)
    cols = (rows // (n // c)) * (n // c) + rng.integers(0, n // c, rows.size)
    Z = sp.csr_matrix((rng.random(rows.size), (rows, cols)), shape=(n, n))
    Z.setdiag(0)
    Z.eliminate_zeros()
    S = sp.csr_matrix((abs(Z) + abs(Z.T)) / 2)
    result = dash.FitResult(
        key=dash.fit_key(params, data), params=params, dataset_name="Large", n_clusters=c,
        labels=labels.copy(), label_runs=np.tile(labels, (20, 1)),
        weights=rng.uniform(1, 2, (2, n)), consensus=Z, affinity=S,
        embedding=np.eye(c)[labels] + 0.01 * rng.standard_normal((n, c)),
        objective=np.linspace(10, 5, 30), terms={}, objective_init=12.0, n_iter=30,
        converged=True, stopped_early=False, fit_time=1.0, spectral_time=0.1, beta_max=5.0,
        scores=rmsc.evaluate_runs(labels, np.tile(labels, (2, 1))),
        chosen_scores=rmsc.evaluate(labels, labels), diagnostics=())
    return data, result


def chart_sizes(at):
    return [len(c.proto.spec) for c in at.get("plotly_chart")]


def test_a_large_dataset_switches_to_summaries_with_a_notice():
    import sys

    sys.path.insert(0, str(ROOT))
    import ui

    data, result = large_dataset_and_result()
    at = AppTest.from_file(APP, default_timeout=300)
    at.session_state["clean"] = data
    at.session_state["autorun"] = False
    at.run()
    ui.result_cache().put(result.key, result)
    no_trouble(at)
    assert any("showing a random 3,000 of 6,000" in c for c in texts(at, "caption"))
    assert max(chart_sizes(at)) < 2_000_000
    goto(at, "weights")
    no_trouble(at)
    assert any(f"each of the {dash.MAX_WEIGHT_COLUMNS} columns shows the lowest weight" in c
               for c in texts(at, "caption"))
    assert max(chart_sizes(at)) < 2_000_000
    goto(at, "affinity")
    no_trouble(at)
    assert any("averaged in blocks" in c for c in texts(at, "caption"))
    assert any("Showing 3,000 of 6,000" in c for c in texts(at, "caption"))
    assert any("shown by their k-NN graphs only" in c for c in texts(at, "caption"))
    import json

    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    pooled = [s for s in specs if (s.get("layout", {}).get("meta") or {}).get("pool")]
    assert len(pooled) == 2 and all(s["layout"]["meta"]["side"] <= 500 for s in pooled)
    assert max(chart_sizes(at)) < 2_000_000  # never n² cells as JSON
    goto(at, "theory")
    no_trouble(at)
    goto(at, "solve")
    no_trouble(at)
    assert {m.label: m.value for m in at.metric}["ACC"] == "100.00%"


@pytest.mark.slow
def test_twenty_thousand_generated_samples_never_hang_a_page():
    """The Data page's generator at 20,000 samples: every page draws, summarised, while
    the fit runs in the background and after it. β = 1000 empties Z* at this size, which
    the pages explain (the default β follows the data and fits it: benchmarks/
    check_defaults.py)."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["beta"] = "1000"
    at.run()
    at.number_input(key="w_syn_clusters").set_value(10)
    at.number_input(key="w_syn_per").set_value(2000)
    at.button(key="w_generate").click().run()
    try:
        no_trouble(at)
        assert at.session_state["data"].n_samples == 20_000
        assert any("showing a random 3,000 of 20,000" in c for c in texts(at, "caption"))
        assert max(chart_sizes(at)) < 2_000_000
        job = at.session_state["slots"]["fit"].latest
        for page in ("solve", "weights", "affinity", "theory", "data"):
            goto(at, page)  # while the fit runs
            no_trouble(at)
        assert job.wait(300)
        for page in ("solve", "weights", "affinity"):
            goto(at, page)
            no_trouble(at)
            assert any("Z*" in e and "Try β = " in e and "beta" not in e
                       for e in texts(at, "error")), page
        goto(at, "theory")
        no_trouble(at)
        assert "Fit failed (see Solve)." in texts(at, "error")  # the sidebar
    finally:
        cancel_jobs(at)
