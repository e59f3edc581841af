"""The Data page with streamlit's AppTest (no browser), mostly on the bundled "Subspaces"
teaching set opened through the URL as a user would share it: injecting outliers, uploading files
(a failed one keeps the dataset), unlabelled data, the generator and the bundled sets."""

import base64
import io
import json

import numpy as np
import pytest

from rmsc import dashboard as dash
from rmsc import datasets, inspection

from tests.app_support import (
    cancel_jobs, find_table, goto, no_trouble, open_app, sidebar_text,
    stored_subspaces_fit_with_damaged_weights, texts, wait_fit,
)

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")


def test_injecting_outliers_changes_the_mask_and_reset_restores(fitted_app):
    at = goto(fitted_app, "data")
    clean = at.session_state["clean"]
    view = clean.view_names[1]
    at.multiselect(key="w_out_views").set_value([view])
    at.slider(key="w_out_fraction").set_value(0.2)
    at.selectbox(key="w_out_kind").set_value("replace")
    submit = [b for b in at.button if b.label == "Inject"]
    submit[0].click().run()
    no_trouble(at)
    data = at.session_state["data"]
    assert data.outlier_mask is not None
    assert data.outlier_mask[1].sum() == round(0.2 * clean.n_samples)
    assert data.outlier_mask[[0, 2]].sum() == 0
    assert f"{view} {round(0.2 * clean.n_samples)}" in sidebar_text(at)
    assert at.query_params["outliers"].startswith(view)
    # the weights page marks them and scores them
    wait_fit(at)
    goto(at, "weights")
    no_trouble(at)
    auc = find_table(at, "score", "view", "roc_auc")
    from rmsc import outliers

    out = at.session_state["slots"]["fit"].latest.result
    expect = outliers.compare(outliers.all_scores(list(data.views), out, out.labels),
                              data.outlier_mask, data.view_names)
    expect = expect[expect["outliers"] > 0]
    # P, view inconsistency and the k-NN baseline, for the one corrupted view
    assert auc["score"].tolist() == expect["score"].tolist() == list(outliers.SCORES.values())
    assert auc["view"].tolist() == [view] * 3
    np.testing.assert_allclose(auc["roc_auc"], expect["roc_auc"])
    assert all(0 <= a <= 1 for a in auc["roc_auc"])
    goto(at, "data")
    at.button(key="w_reset_outliers").click().run()
    assert at.session_state["data"] is at.session_state["clean"]
    assert "injected outliers**: none" in sidebar_text(at)


def test_weights_page_shows_the_change_from_the_clean_fit(fitted_app):
    at = fitted_app
    clean_fit = at.session_state["slots"]["fit"].latest.result
    at = goto(at, "data")
    clean = at.session_state["clean"]
    at.multiselect(key="w_out_views").set_value([clean.view_names[0]])
    at.slider(key="w_out_fraction").set_value(0.1)
    at.selectbox(key="w_out_kind").set_value("replace")
    [b for b in at.button if b.label == "Inject"][0].click().run()
    wait_fit(at)
    goto(at, "weights")
    no_trouble(at)
    at.radio(key="w_weights_show").set_value("change from the clean fit (P / P clean)").run()
    no_trouble(at)
    # the clean fit of these parameters is in the cache already (the fixture fitted it)
    data = at.session_state["data"]
    out = at.session_state["slots"]["fit"].latest.result
    assert clean_fit.key == dash.fit_key(at.session_state["params"], clean)
    change = inspection.weight_change(out.weights, clean_fit.weights)
    summary = inspection.weight_change_summary(change, data.outlier_mask, data.view_names)
    assert summary["sentence"] in texts(at, "markdown")
    # the outliers lowered their own cells' weights more than the others'
    assert summary["injected_median"] < summary["clean_median"]
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert heat["colorbar"]["title"]["text"] == "P / P clean"
    pooled = inspection.heatmap_pool(change, data.labels, pool="min", relative=False,
                                     max_columns=dash.scale_plan(data.n_samples).weight_columns)
    z = heat["z"]  # float32 cells, sent as plotly's typed array (base64 bytes and a shape)
    z = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(
        [int(d) for d in str(z["shape"]).split(",")])
    np.testing.assert_allclose(z, pooled.values, rtol=1e-6)


def test_injecting_with_no_view_is_a_message(fitted_app):
    at = goto(fitted_app, "data")
    at.multiselect(key="w_out_views").set_value([])
    [b for b in at.button if b.label == "Inject"][0].click().run()
    no_trouble(at)
    assert any("at least one view" in e for e in texts(at, "error"))
    assert at.session_state["data"].outlier_mask is None


def test_a_failed_upload_keeps_the_dataset():
    at = open_app({"data": "Subspaces"})
    try:
        at.file_uploader(key="w_upload").set_value(("broken.mat", b"not a mat file", "application/octet-stream"))
        at.button(key="w_load_upload").click().run()
        no_trouble(at)
        errors = " ".join(texts(at, "error"))
        assert "Could not load broken.mat" in errors and "previous dataset" in errors
        assert at.session_state["clean"].name == "Subspaces"
    finally:
        cancel_jobs(at)


def test_uploading_a_paper_mat_file_loads_it(paper_mats):
    at = open_app({"data": "Subspaces"})
    try:
        raw = (paper_mats / "3sources.mat").read_bytes()
        at.file_uploader(key="w_upload").set_value(("3sources.mat", raw, "application/octet-stream"))
        at.selectbox(key="w_upload_pre").set_value("tfidf")
        at.button(key="w_load_upload").click().run()
        no_trouble(at)
        data = at.session_state["clean"]
        assert data.n_samples == 169 and data.n_views == 3 and data.n_clusters == 6
        assert "169" in sidebar_text(at)
        assert find_table(at, "view", "features", "storage").shape[0] == 3
    finally:
        cancel_jobs(at)


def unlabelled_npz():
    data = datasets.load_bundled("Subspaces")
    buf = io.BytesIO()
    np.savez(buf, **{f"view{v}": np.asarray(X) for v, X in enumerate(data.views)})
    return buf.getvalue()


def test_an_unlabelled_dataset_works_where_it_can_and_says_so_elsewhere():
    at = open_app({"data": "Subspaces"})
    try:
        at.file_uploader(key="w_upload").set_value(("nolabels.npz", unlabelled_npz(),
                                                    "application/octet-stream"))
        at.button(key="w_load_upload").click().run()
        no_trouble(at)
        assert at.session_state["clean"].labels is None
        assert any("no labels" in t for t in texts(at, "info"))
        goto(at, "solve")
        no_trouble(at)
        at.number_input(key="w_clusters").set_value(3).run()
        wait_fit(at)
        no_trouble(at)
        metrics = {m.label: m.value for m in at.metric}
        assert metrics["ACC"] == "no labels"
        for page in ("weights", "affinity", "compare", "sensitivity", "theory", "data"):
            goto(at, page)
            no_trouble(at)
        goto(at, "compare")
        assert any("needs labels" in t for t in texts(at, "info"))
    finally:
        cancel_jobs(at)


def test_the_synthetic_generator_and_bundled_switch():
    at = open_app({"data": "Subspaces"})
    try:
        at.number_input(key="w_syn_clusters").set_value(4)
        at.number_input(key="w_syn_per").set_value(20)
        at.text_input(key="w_syn_dims").set_value("10, 15")
        at.button(key="w_generate").click().run()
        no_trouble(at)
        data = at.session_state["clean"]
        assert data.n_samples == 80 and data.n_views == 2 and data.n_clusters == 4
        at.text_input(key="w_syn_dims").set_value("10, x")
        at.button(key="w_generate").click().run()
        no_trouble(at)
        assert any("Could not generate" in e for e in texts(at, "error"))
        assert at.session_state["clean"].n_samples == 80
        at.selectbox(key="w_bundled").set_value("Digit-small")
        at.button(key="w_load_bundled").click().run()
        no_trouble(at)
        assert at.session_state["clean"].name == "Digit-small"
        assert at.query_params["data"] == "Digit-small"
    finally:
        cancel_jobs(at)


def test_data_page_offers_every_bundled_set_and_loads_the_paper_text_sets():
    at = open_app({"data": "Subspaces"})
    try:
        assert at.selectbox(key="w_bundled").options == datasets.bundled_names()
        for name, n, views in (("3-Sources", 169, 3), ("Reuter", 1200, 5)):
            at.selectbox(key="w_bundled").set_value(name)
            at.button(key="w_load_bundled").click().run()
            no_trouble(at)
            data = at.session_state["clean"]
            assert data.name == name and (data.n_samples, data.n_views) == (n, views)
            assert at.query_params["data"] == name
            assert find_table(at, "view", "features", "storage").shape[0] == views
            cancel_jobs(at)
    finally:
        cancel_jobs(at)
    shared = open_app({"data": "3-Sources"})  # and by a shared link
    try:
        no_trouble(shared)
        assert shared.session_state["clean"].name == "3-Sources"
    finally:
        cancel_jobs(shared)


def test_weights_change_whose_stored_clean_fit_is_damaged_says_so_and_offers_a_refit(
        tmp_path, monkeypatch):
    # A restarted server answers the clean data's fit (for "P / P clean") from the disk
    # cache; its weights P are an array read on demand (lazily stored at the store's
    # threshold, lowered here so that Subspaces' P counts), read when the Weights page
    # divides by them, and the file turns out damaged then.
    query = {"data": "Subspaces", "beta": "0.01"}
    first, path = stored_subspaces_fit_with_damaged_weights(tmp_path, monkeypatch, query)
    clean_fit = first.session_state["slots"]["fit"].latest.result
    at = open_app(query, page="data")
    clean = at.session_state["clean"]
    at.multiselect(key="w_out_views").set_value([clean.view_names[0]])
    at.slider(key="w_out_fraction").set_value(0.1)
    at.selectbox(key="w_out_kind").set_value("replace")
    [b for b in at.button if b.label == "Inject"][0].click().run()
    wait_fit(at)  # the injected data's fit, computed now
    goto(at, "weights")
    no_trouble(at)
    data, params = at.session_state["data"], at.session_state["params"]
    assert data.outlier_mask is not None
    at.radio(key="w_weights_show").set_value("change from the clean fit (P / P clean)").run()
    no_trouble(at)  # no traceback
    assert not path.exists()  # discarded
    warned = [w for w in texts(at, "warning") if "could not be shown" in w]
    assert warned == [dash.damaged_result_message("clean")], texts(at, "warning")
    # the dataset (outliers included), the parameters and the chosen view are kept
    assert at.session_state["data"] is data and at.session_state["params"] == params
    assert at.radio(key="w_weights_show").value.startswith("change from the clean fit")
    # the page offers the clean fit again, and draws the plain weights meanwhile
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert heat["colorbar"]["title"]["text"] != "P / P clean"
    at.button(key="w_fit_clean").click().run()
    no_trouble(at)
    job = at.session_state["slots"]["clean"].latest
    assert job is not None and job.wait(300), "the clean fit did not finish"
    at.run()
    no_trouble(at)
    assert not any("could not be shown" in w for w in texts(at, "warning"))  # said once
    refit = at.session_state["slots"]["clean"].latest.result
    np.testing.assert_allclose(refit.weights, clean_fit.weights)
    out = at.session_state["slots"]["fit"].latest.result
    summary = inspection.weight_change_summary(
        inspection.weight_change(out.weights, refit.weights), data.outlier_mask,
        data.view_names)
    assert summary["sentence"] in texts(at, "markdown")
    heat = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]
    assert heat["colorbar"]["title"]["text"] == "P / P clean"
