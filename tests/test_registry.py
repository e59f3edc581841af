"""The registry is the single description of a method: a toy method registered here, and in
no other file, shows up on Compare and Sensitivity and runs there (AppTest, Dask workers)."""

import sys

import cloudpickle
import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans

import rmsc
from rmsc import dashboard as dash
from rmsc import methods
from rmsc._validation import check_views
from rmsc.preprocessing import normalize_l2
from test_app import cancel_jobs, goto, no_trouble, open_app

#: The app runs as a live server does, on fresh caches (conftest.py).
pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")

WAIT = 300


class ToyKMeans(ClusterMixin, BaseEstimator):
    """k-means on the unit-length views side by side, the first view weighted by ``lam`` and
    the others by ``beta`` (a method with a λ and a β, and nothing else in common with RMSC)."""

    def __init__(self, n_clusters=2, *, lam=1.0, beta=0.5, n_init=3, random_state=None):
        self.n_clusters = n_clusters
        self.lam = lam
        self.beta = beta
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, Xs, y=None):
        views = [normalize_l2(X) for X in check_views(Xs)]
        X = np.hstack([np.asarray(V.todense() if hasattr(V, "todense") else V)
                       * (self.lam if v == 0 else self.beta) for v, V in enumerate(views)])
        seed = 0 if self.random_state is None else int(self.random_state)
        self.label_runs_ = np.array([
            KMeans(self.n_clusters, n_init=1, random_state=seed + k).fit(X).labels_
            for k in range(self.n_init)])
        self.labels_ = self.label_runs_[0]
        return self


TOY = methods.MethodSpec("Toy k-means", ToyKMeans, "k-means on the views side by side (a test)",
                         lam_beta_grid=True, color="#000000")


@pytest.fixture
def toy():
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests
    methods.register(TOY)
    yield TOY
    methods.unregister(TOY.name)


def test_registering_a_method_makes_it_a_method_everywhere(toy):
    assert rmsc.available_methods()[-1] == "Toy k-means"
    assert rmsc.describe_method("toy K-MEANS") == toy.description
    assert isinstance(rmsc.get_method("Toy k-means", lam=2.0), ToyKMeans)
    with pytest.raises(ValueError, match="already registered"):
        methods.register(toy)
    assert "Toy k-means" in dash.grid_methods()
    # no cost model: the estimate says so instead of failing; once measured, it is known
    data = rmsc.datasets.load_bundled("Subspaces")
    book = dash.CostBook()
    unknown = dash.estimate_compare({"data": data}, ["Toy k-means", "RMSC"], None, book, 2e-3)
    assert unknown.unknown == 1 and "+ 1 fit of unknown time" in unknown.text()
    assert dash.estimate_fit("Toy k-means", dash.data_shape(data), {}, book, 2e-3).text() == (
        "time unknown until it has run once")
    tables = dash.run_compare({"data": data}, ["Toy k-means"])
    row = tables["data"].iloc[0]  # scored by the paper's protocol (3 classes: ACC >= 1/3)
    assert row["method"] == "Toy k-means" and row["error"] is None
    assert 1 / 3 - 1e-9 <= row["acc_mean"] <= 1
    dash.record_compare(book, {"data": data}, tables)
    known = dash.estimate_compare({"data": data}, ["Toy k-means"], None, book, 2e-3)
    assert known.measured and known.unknown == 0


def test_a_registered_method_is_drawn_and_run_on_compare_and_sensitivity(toy):
    at = open_app({"data": "Subspaces"}, page="compare")
    try:
        no_trouble(at)
        picker = at.multiselect(key="w_cmp_methods")
        assert "Toy k-means" in picker.options
        assert "**Toy k-means** — k-means on the views side by side (a test)" in " ".join(
            m.value for m in at.markdown)
        picker.set_value(["Toy k-means"]).run()
        run = at.button(key="w_cmp_run")
        assert run.label == "Run 1 fits (time unknown until it has run once on this machine)"
        run.click().run()
        job = at.session_state["slots"]["compare"].latest
        assert job.wait(WAIT) and job.state == dash.DONE, job.error
        at.run()
        no_trouble(at)
        table = next(d.value for d in at.dataframe if "ACC %" in d.value.columns)
        assert table["method"].tolist() == ["Toy k-means"] and table["note"].iloc[0] == ""
        assert 100 / 3 - 1e-6 <= float(table["ACC %"].iloc[0].split(" ± ")[0]) <= 100

        at = goto(at, "sensitivity")
        no_trouble(at)
        method = at.radio(key="w_sens_method")
        assert "Toy k-means" in method.options
        method.set_value("Toy k-means").run()
        at.multiselect(key="w_sens_lams").set_value([0.3, 1.0]).run()
        at.multiselect(key="w_sens_betas").set_value([0.1, 1.0]).run()
        run = at.button(key="w_sens_run")
        # the Compare run measured it on these data: its duration times the grid
        assert run.label.startswith("Run 4 fits (about ")
        run.click().run()
        job = at.session_state["slots"]["sensitivity"].latest
        assert job.wait(WAIT) and job.state == dash.DONE, job.error
        df = job.result
        assert sorted(zip(df["lam"], df["beta"])) == [(0.3, 0.1), (0.3, 1.0), (1.0, 0.1),
                                                      (1.0, 1.0)]
        assert df["error"].isna().all() and (df["acc_mean"] > 0).all()
        at.run()
        no_trouble(at)
        assert any("Toy k-means on Subspaces" in c.proto.spec for c in at.get("plotly_chart"))
        # the number-of-views tab offers it too
        assert "Toy k-means" in at.multiselect(key="w_views_methods").options
    finally:
        cancel_jobs(at)
