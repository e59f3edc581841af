"""Opening the dashboard with streamlit's AppTest (no browser), mostly on the bundled "Subspaces"
teaching set opened through the URL as a user would share it; once with no URL at all, on Digit:
every page before a fit and without data, the sidebar, URL parameters good and bad."""

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

import rmsc
from rmsc import dashboard as dash
from rmsc import datasets

from tests.app_support import (
    APP, ROOT, cancel_jobs, find_table, goto, no_trouble, open_app, sidebar_text, texts, wait_fit,
)

#: Every test here runs the app as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")

PAGES = ["data", "solve", "weights", "affinity", "compare", "sensitivity", "theory"]


def test_python_app_py_does_the_first_visitors_once_per_process_work_before_serving(
        monkeypatch):
    """``python app.py`` runs ``app.preload`` before serving: Streamlit's REPL check is
    marked done (ui.runtime.prepare_server), the landing dataset is in the server's cache
    (the first visitor does not load it), and the Solve page's figure code has run."""
    import sys

    from streamlit import delta_generator

    sys.path.insert(0, str(ROOT))
    import app
    import ui

    monkeypatch.setattr(delta_generator, "_use_warning_has_been_displayed", False)
    app.preload()
    assert delta_generator._use_warning_has_been_displayed

    def refuse(name):
        raise AssertionError(f"{name} was loaded again")

    monkeypatch.setattr(datasets, "load_bundled", refuse)
    data = ui.load_bundled(ui.DEFAULT_DATASET)
    assert data.name == "Digit" and data.n_samples == 2000


def test_opens_on_digit_with_the_estimators_defaults():
    at = open_app()
    try:
        no_trouble(at)
        assert at.title[0].value == "Data"
        assert "Digit" in [h.value for h in at.subheader]
        views = find_table(at, "view", "features", "storage")
        assert views["view"].tolist() == ["PIX", "FOU", "FAC", "ZER", "KAR", "MOR"]
        side = sidebar_text(at)
        assert "2,000" in side and "6 (PIX" in side and "classes**: 10" in side
        defaults = rmsc.RMSC().get_params()
        assert f"λ = {rmsc.rmsc.LAM['sample']:g}, β = {defaults['beta']}" in side  # β = auto
        # the default fit starts by itself, in the background
        job = at.session_state["slots"]["fit"].latest
        digit = datasets.load_bundled("Digit")
        assert job is not None and job.key == dash.fit_key(dash.Params(), digit)
        assert len(at.get("plotly_chart")) >= 3  # class counts, 2-D views, pictures
        assert at.query_params.get("data") in (None, [], "")  # default state: clean URL
        # Digit's known repeated samples are in its description, not in a warning box
        assert texts(at, "warning") == []
        assert any("6 samples repeat another sample exactly in every view" in c
                   for c in texts(at, "caption"))
        intro = at.markdown[0].value
        assert "**Digit** has 2,000 samples, each seen through 6 views: PIX, FOU" in intro
    finally:
        cancel_jobs(at)


def test_the_data_page_describes_the_data_loaded():
    at = open_app({"data": "Subspaces"})
    try:
        no_trouble(at)
        intro = at.markdown[0].value
        assert intro == dash.data_intro(at.session_state["data"])
        assert "**Subspaces** has 150 samples, each seen through 3 views" in intro
        assert "They belong to 3 classes" in intro
        for digit_only in ("Digit", "Fourier", "digits", "Karhunen"):
            assert digit_only not in intro
        # loading another set rewrites it
        at.selectbox(key="w_bundled").set_value("3-Sources").run()
        at.button(key="w_load_bundled").click().run()
        no_trouble(at)
        assert "**3-Sources** has 169 samples, each seen through 3 views: BBC, Guardian and " \
               "Reuters." in at.markdown[0].value
    finally:
        cancel_jobs(at)


def test_every_widget_whose_choices_depend_on_the_data_starts_again_on_new_data():
    """Forms follow the data (the page review): every widget of ui.DATASET_WIDGETS moved on one
    dataset shows a choice of the next one after a load, held in its key (what the browser
    is sent), and the Data page's Inject works with it at once."""
    import ui

    at = open_app({"data": "Subspaces", "beta": "0.01"}, page="solve")
    try:
        wait_fit(at)
        first = at.session_state["clean"]
        # move every such widget off its default on the first data
        goto(at, "data")
        at.multiselect(key="w_out_views").set_value([first.view_names[2]]).run()
        goto(at, "compare")
        at.radio(key="w_cmp_preset").set_value("robustness preset").run()
        at.multiselect(key="w_cmp_rob_views").set_value([first.view_names[2]]).run()
        goto(at, "affinity")
        at.selectbox(key="w_aff_view").set_value(2).run()
        at.radio(key="w_aff_order").set_value("cluster").run()
        goto(at, "weights")
        at.radio(key="w_weights_order").set_value("nothing").run()
        no_trouble(at)
        # another dataset, with other views
        goto(at, "data")
        at.selectbox(key="w_bundled").set_value("3-Sources").run()
        at.button(key="w_load_bundled").click().run()
        no_trouble(at)
        new = at.session_state["clean"]
        assert new.name == "3-Sources" and set(new.view_names).isdisjoint(first.view_names)
        expect = ui.dataset_widget_defaults(new)
        assert set(expect) | {"w_clusters", "w_aff_kind"} == set(ui.DATASET_WIDGETS)
        for key, value in expect.items():  # held in the keys, drawn or not
            assert at.session_state[key] == value, key
        assert at.multiselect(key="w_out_views").options == list(new.view_names)
        assert at.multiselect(key="w_out_views").value == [new.view_names[0]]
        # Inject at once: no "Choose at least one view to corrupt"
        [b for b in at.button if b.label == "Inject"][0].click().run()
        no_trouble(at)
        assert not at.error, [e.value for e in at.error]
        assert at.session_state["outliers"].views == (new.view_names[0],)
        goto(at, "compare")
        at.radio(key="w_cmp_preset").set_value("robustness preset").run()
        assert at.multiselect(key="w_cmp_rob_views").options == list(new.view_names)
        assert at.multiselect(key="w_cmp_rob_views").value == [new.view_names[0]]  # injected
        wait_fit(goto(at, "solve"))
        goto(at, "affinity")
        no_trouble(at)
        assert at.selectbox(key="w_aff_view").value == 0
        assert at.selectbox(key="w_aff_view").format_func(0) == new.view_names[0]
        assert at.radio(key="w_aff_order").value == "class"
        goto(at, "weights")
        assert at.radio(key="w_weights_order").value == "class"
        no_trouble(at)
    finally:
        cancel_jobs(at)


def test_legacy_a_page_run_on_its_own_draws_the_frame():
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["data"] = "Subspaces"
    at.session_state["autorun"] = False
    at.run()
    for page in PAGES:
        at.switch_page(f"pages/{page}.py").run()  # AppTest runs the page file alone here
        no_trouble(at)
        assert at.title[0].value.lower() == page
        assert "Subspaces" in sidebar_text(at) and \
            f"λ = {rmsc.rmsc.LAM['sample']:g}, β = auto" in sidebar_text(at)
        at.run()
        no_trouble(at)
        assert "Subspaces" in sidebar_text(at)


def test_every_page_renders_before_any_fit():
    at = open_app({"data": "Subspaces"})
    at.session_state["autorun"] = False
    cancel_jobs(at)
    st.cache_resource.clear()
    for page in PAGES:
        goto(at, page)
        no_trouble(at)
        assert at.title[0].value.lower() == page
    goto(at, "weights")
    assert any("press **Run** on the *Solve* page" in t or "fills in" in t
               for t in texts(at, "info"))


def test_the_sidebar_names_the_gpu_torch_reports(fake_cuda_torch, monkeypatch):
    """With ``RMSC_DEVICE`` at auto and torch reporting a CUDA GPU (tests/fake_torch.py), the
    sidebar's "Fits run on" line names that GPU on every page (the server's resolution;
    the fits themselves run on the workers, which have no fake torch)."""
    from tests import fake_torch

    monkeypatch.delenv("RMSC_DEVICE", raising=False)
    at = open_app({"data": "Subspaces"})
    at.session_state["autorun"] = False
    cancel_jobs(at)
    want = (f"Fits run on: {fake_torch.NAME} (cuda:0 through torch {fake_torch.VERSION}, "
            "80.0 GB)")
    for page in ("solve", "weights"):
        goto(at, page)
        no_trouble(at)
        assert want in [c.value for c in at.sidebar.caption]
    assert ("get_device_properties", (0,)) in fake_cuda_torch.calls


def test_every_page_without_a_dataset_says_what_to_do():
    at = AppTest.from_file(APP, default_timeout=120)  # the suite's bound for a page's run
    at.session_state["clean"] = None
    at.run()
    for page in PAGES:
        goto(at, page)
        no_trouble(at)
        assert "none loaded" in sidebar_text(at)
        if page != "theory":
            assert any("No dataset is loaded" in i for i in texts(at, "info"))
    assert at.session_state["slots"]["fit"].latest is None


def test_url_parameters_set_the_state_and_bad_ones_are_reported():
    at = open_app({"data": "Subspaces", "lam": "2", "beta": "0.01", "weighting": "view",
                   "max_iter": "oops"})
    try:
        no_trouble(at)
        p = at.session_state["params"]
        assert (p.lam, p.beta, p.weighting, p.max_iter) == (2.0, 0.01, "view",
                                                            rmsc.solver.MAX_ITER)
        assert any("max_iter" in w for w in texts(at, "warning"))
        assert "RMSC-WV: λ = 2, β = 0.01" in sidebar_text(at)
        assert at.query_params["lam"] == "2" and at.query_params["data"] == "Subspaces"
    finally:
        cancel_jobs(at)
    at = open_app({"data": "NoSuchSet"})
    try:
        assert any("NoSuchSet" in w for w in texts(at, "warning"))
        assert at.session_state["clean"].name == "Digit"
    finally:
        cancel_jobs(at)
