"""The registry is the single description of a method: a toy method registered here, and in
no other file, shows up on Compare and Sensitivity and runs there (AppTest, Dask workers); a
toy *graph* method with a cost model of its own shows up in the estimates, the reproduction's
search and table, and `rmsc methods` too."""

import io
import sys
from types import SimpleNamespace

import cloudpickle
import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import KMeans

import rmsc
from rmsc import costs, experiments
from rmsc import dashboard as dash
from rmsc import methods
from rmsc._validation import N_CLUSTERS, POSITIVE_INT, check_estimator, check_views
from rmsc.cli import main as cli_main
from rmsc.graphs import knn_affinity
from rmsc.preprocessing import normalize_l2
from rmsc.spectral import spectral_clustering
from tests.app_support import cancel_jobs, goto, no_trouble, open_app
from tests.support import scoring_seconds

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


class ToyGraphSum(ClusterMixin, BaseEstimator):
    """Spectral clustering of the views' k-NN graphs added up: a graph method of two views or
    more, its parameters on the shared contract."""

    min_views = 2
    _parameter_constraints = {"n_clusters": N_CLUSTERS, "n_neighbors": POSITIVE_INT,
                              "n_init": POSITIVE_INT}

    def __init__(self, n_clusters=2, *, n_neighbors=5, n_init=3, random_state=None):
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, Xs, y=None):
        views = check_views(Xs)
        check_estimator(self)
        if len(views) < self.min_views:
            raise ValueError(f"ToyGraphSum adds two graphs or more; got {len(views)} view.")
        W = sum(knn_affinity(normalize_l2(X), self.n_neighbors) for X in views)
        runs, self.embedding_ = spectral_clustering(W, self.n_clusters, n_runs=self.n_init,
                                                    random_state=self.random_state)
        self.labels_, self.label_runs_ = runs.labels, runs.runs
        return self


class ToyGraphCost(costs.CostModel):
    """Its cost: the neighbour searches, twice over (multiply-adds), within a factor 3."""

    def parts(self, spec, shape, params, defaults):
        work = 2.0 * costs.knn_terms(shape)["knn"]
        return {"graph": (work, work, 3 * work)}


TOY_GRAPH = methods.MethodSpec(
    "Toy graph", ToyGraphSum, "k-NN graphs of the views added up (a test)",
    search={"n_neighbors": [3, 5]}, cost=ToyGraphCost(), color="#444444", run_rank=0)

#: The same method on the graph methods' cost model, which has no constants for it.
TOY_UNCALIBRATED = methods.MethodSpec(
    "Toy graph uncalibrated", ToyGraphSum, "the same, on the calibrated graph model (a test)",
    cost="graph")


@pytest.fixture
def toy_graph():
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import tests
    for spec in (TOY_GRAPH, TOY_UNCALIBRATED):
        methods.register(spec)
    yield TOY_GRAPH
    for spec in (TOY_GRAPH, TOY_UNCALIBRATED):
        methods.unregister(spec.name)


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
        assert run.label == \
            "Run 1 fits (time unknown until it has run once on this machine now)"
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


def test_a_graph_method_without_constants_is_estimated_from_measurements_only(toy_graph):
    # the graph model's constants are per method: a new one is not covered (was a KeyError)
    data = rmsc.datasets.load_bundled("Subspaces")
    name = TOY_UNCALIBRATED.name
    assert not costs.has_model(name) and costs.has_model("MSC") and costs.has_model("Toy graph")
    with pytest.raises(ValueError, match="no constants"):
        costs.predict(name, dash.data_shape(data), probe=2e-3)
    book = dash.CostBook()
    unknown = dash.estimate_compare({"data": data}, [name, "MSC"], None, book, 2e-3)
    assert unknown.unknown == 1 and "+ 1 fit of unknown time" in unknown.text()
    tables = dash.run_compare({"data": data}, [name])
    assert tables["data"].iloc[0]["error"] is None
    dash.record_compare(book, {"data": data}, tables)
    known = dash.estimate_compare({"data": data}, [name], None, book, 2e-3)
    assert known.measured and known.unknown == 0
    # its duration, then its scoring (Subspaces: 150 samples, 3 clusters)
    assert known.mid == pytest.approx(float(tables["data"].iloc[0]["fit_time"])
                                      + scoring_seconds(150, 3, 2e-3))


def test_a_registered_graph_method_is_estimated_searched_tabled_and_listed(toy_graph):
    data = rmsc.datasets.load_bundled("Subspaces")
    spec = methods.get_spec("toy GRAPH")
    assert spec.min_views == 2  # read from the estimator
    # Compare's estimate: its own cost model, at the probe's speed
    shape = dash.data_shape(data)
    unit = 2e-3 / costs.PROBE_SIZE ** 3
    work = 2.0 * data.n_samples ** 2 * sum(X.shape[1] for X in data.views)
    guess = dash.estimate_fit("Toy graph", shape, {}, None, 2e-3)
    assert guess.guess and not guess.measured
    assert (guess.low, guess.mid, guess.high) == pytest.approx((unit * work, unit * work,
                                                                3 * unit * work))
    # Sensitivity's number-of-views tab: fits on fewer views than the estimator takes refuse
    # at once and are not counted
    views = dash.estimate_views(data, ["Toy graph"], None, None, 2e-3)
    on = [dash.estimate_fit("Toy graph", dash.data_shape(data, n_views=k), {}, None, 2e-3)
          for k in (2, 3)]
    assert views.mid == pytest.approx(on[0].mid + on[1].mid + 2 * scoring_seconds(150, 3, 2e-3))
    assert "Toy graph" not in dash.grid_methods()  # no λ and β: not on the λ × β grid
    # Compare's run
    row = dash.run_compare({"data": data}, ["Toy graph"])["data"].iloc[0]
    assert row["method"] == "Toy graph" and row["error"] is None
    assert 1 / 3 - 1e-9 <= row["acc_mean"] <= 1
    # the reproduction: after the paper's methods in its tables, with the graph methods in
    # its running order (run_rank 0), over its spec's grid
    assert experiments.check_methods(["toy graph", "RMSC"]) == ["RMSC", "Toy graph"]
    plan = experiments.search_plan(["RMSC", "Toy graph", "SSC-AVG"])
    assert [m for m, _, _ in plan][:2] == ["Toy graph", "Toy graph"]
    assert [p for m, p, _ in plan if m == "Toy graph"] == [{"n_neighbors": 3},
                                                            {"n_neighbors": 5}]
    recs = experiments.search("Subspaces", list(data.views), data.labels, ["Toy graph"],
                              experiments.Cache())
    assert len(recs) == 2 and all(r.error is None for r in recs)
    chosen = experiments.best(recs)
    md = experiments.table1({"Subspaces": chosen}, ["RMSC", "Toy graph"])
    rec = chosen["Toy graph"]
    acc_row = next(line for line in md.splitlines() if line.startswith("| Toy graph |"))
    assert acc_row == ("| Toy graph | not run | not run | n/a: data unavailable | not run | "
                       f"{100 * rec.acc_mean:.2f} ± {100 * rec.acc_std:.2f} |")
    ds = SimpleNamespace(chosen={"none": {"Toy graph": rec, "RMSC": rec}})
    assert experiments.report_figures.comparison_frame(ds, "none")["method"].tolist() == [
        "RMSC", "Toy graph"]
    # `rmsc methods`
    out, err = io.StringIO(), io.StringIO()
    assert cli_main(["methods"], out=out, err=err) == 0
    assert any(line.startswith("Toy graph ") and line.endswith(spec.description)
               for line in out.getvalue().splitlines())


def test_a_registered_graph_method_is_drawn_and_run_on_compare_and_sensitivity(toy_graph):
    at = open_app({"data": "Subspaces"}, page="compare")
    try:
        no_trouble(at)
        picker = at.multiselect(key="w_cmp_methods")
        assert "Toy graph" in picker.options
        assert "**Toy graph** — k-NN graphs of the views added up (a test)" in " ".join(
            m.value for m in at.markdown)
        picker.set_value(["Toy graph"]).run()
        run = at.button(key="w_cmp_run")
        assert run.label.startswith("Run 1 fits (about ")  # its own cost model
        run.click().run()
        job = at.session_state["slots"]["compare"].latest
        assert job.wait(WAIT) and job.state == dash.DONE, job.error
        at.run()
        no_trouble(at)
        table = next(d.value for d in at.dataframe if "ACC %" in d.value.columns)
        assert table["method"].tolist() == ["Toy graph"] and table["note"].iloc[0] == ""

        at = goto(at, "sensitivity")
        no_trouble(at)
        assert "Toy graph" not in at.radio(key="w_sens_method").options  # no λ, β
        views = at.multiselect(key="w_views_methods")
        assert "Toy graph" in views.options
        views.set_value(["Toy graph"]).run()
        run = at.button(key="w_views_run")
        assert run.label.startswith("Run 3 fits (about ")  # measured by the Compare run
        run.click().run()
        job = at.session_state["slots"]["views"].latest
        assert job.wait(WAIT) and job.state == dash.DONE, job.error
        df = job.result.sort_values("n_views")
        assert df["n_views"].tolist() == [1, 2, 3]
        assert "two graphs or more" in df["error"].iloc[0]  # the estimator's own min_views
        assert df["error"].iloc[1:].isna().all() and (df["acc_mean"].iloc[1:] > 0).all()
        at.run()
        no_trouble(at)
    finally:
        cancel_jobs(at)


def test_a_replacement_keeps_its_place_and_the_paper_keeps_its_order(toy, toy_graph):
    before = rmsc.available_methods()
    assert before[-3:] == ["Toy k-means", "Toy graph", "Toy graph uncalibrated"]
    twin = methods.MethodSpec("toy K-means", ToyKMeans, "the same toy, replaced (a test)")
    methods.register(twin, replace=True)
    try:
        assert rmsc.available_methods() == [*before[:-3], "toy K-means", *before[-2:]]
        assert methods.get_spec("Toy k-means") is twin
    finally:
        methods.register(toy, replace=True)
    assert rmsc.available_methods() == before
    # the reproduction's set and running order ask the specs: a later method is neither in
    # the paper nor ranked before it, unless its spec says so (Toy graph: run_rank 0)
    assert "Toy graph" not in methods.paper_methods()
    order = methods.run_order()
    assert order.index("Toy graph") < order.index("RMSC") < order.index("SSC-AVG")
    assert order[-2:] == ["Toy k-means", "Toy graph uncalibrated"]
    assert experiments.RUN_ORDER == tuple(m for m in order if m in methods.paper_methods())
