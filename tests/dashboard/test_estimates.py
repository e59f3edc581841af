"""Time estimates of the Compare / Sensitivity buttons (rmsc.costs, rmsc.dashboard.estimates), no browser."""

import pytest

from rmsc import dashboard as dash
from rmsc import experiments
from rmsc import costs as E
from rmsc.datasets import make_multiview_subspaces
from rmsc.methods import get_method
from rmsc.rmsc import FORMER_STOPPING, PAPER_MODEL
from tests import support

PROBE = 2e-3  # a fixed speed probe (s per 256^3 multiply-adds): deterministic predictions



def scoring_seconds(n, c, times=1):
    """:func:`tests.support.scoring_seconds` at :data:`PROBE`."""
    return support.scoring_seconds(n, c, PROBE, times)


def shape(n, dims=(50, 100), c=5, fp=""):
    return E.DataShape(n_samples=n, n_features=tuple(dims), nnz=tuple(n * d for d in dims),
                       n_clusters=c, fingerprint=fp)


def part(method, s, name, params=None, which=1):
    return E.model_parts(method, s, params)[name][which]


# -- the model's scaling, worked by hand from the algorithms --------------------------------


def test_work_terms_by_hand():
    # one SSC-ADMM iteration on a view of rank 40, n = 100: (100 x 40)(40 x 100) and 100^2 passes
    assert E.ssc_iteration_terms(100, 40) == {"const": 1.0, "product": 400_000.0,
                                              "passes": 10_000.0}
    # RMSC: ranks min(d_v, n) = (50, 80) at n = 80
    t = E.rmsc_iteration_terms(shape(80, dims=(50, 200)))
    assert t["product"] == 80 * 80 * 130 and t["passes"] == 6400
    # spectral: dense eigh below 600 samples, Lanczos above; k-means 20 x n c^2
    assert E.spectral_terms(500, 4)["eigh"] == 500 ** 3
    assert E.spectral_terms(500, 4)["lanczos"] == 0
    assert E.spectral_terms(1000, 4)["lanczos"] == 1000 ** 2 * 5
    assert E.spectral_terms(1000, 4)["kmeans"] == 20 * 1000 * 16
    # a wide view's Gram factor is an n^3 eigendecomposition; a narrow one costs nothing here
    assert E.gram_terms(shape(100, dims=(50, 300)))["eigh"] == 100 ** 3


def test_doubling_n_multiplies_ssc_by_about_four():
    small, large = shape(2000), shape(4000)  # large enough for the per-iteration constant
    ratio = part("SSC-AVG", large, "ssc") / part("SSC-AVG", small, "ssc")
    assert 3.8 < ratio <= 4.0
    # the whole prediction too: the ADMM dominates, the spectral step grows slower
    r_total = (E.predict("SSC-AVG", large, probe=PROBE).mid
               / E.predict("SSC-AVG", small, probe=PROBE).mid)
    assert 3.0 < r_total <= 4.0


def test_ssc_scales_with_iterations_and_views_and_bsv_clusters_every_view():
    s = shape(800)
    twice = part("SSC-AVG", s, "ssc", {"max_iter": 400}) / part("SSC-AVG", s, "ssc")
    assert twice == pytest.approx(2.0, rel=0.02)
    one_view = part("SSC-AVG", shape(800, dims=(100,)), "ssc")
    two_views = part("SSC-AVG", shape(800, dims=(100, 100)), "ssc")
    assert two_views == pytest.approx(2 * one_view)
    assert (part("SSC-BSV", s, "spectral") == pytest.approx(2 * part("SSC-AVG", s, "spectral")))


def test_rmsc_grows_with_features_and_has_a_range_of_iterations():
    low, mid, high = E.model_parts("RMSC", shape(1000, dims=(100, 100)))["iterations"]
    assert low <= mid <= high
    bigger = part("RMSC", shape(1000, dims=(200, 200)), "iterations")
    assert 1.5 < bigger / mid <= 2.0  # the product doubles, the n^2 passes do not
    est = E.predict("RMSC", shape(1000), {"max_iter": 30}, probe=PROBE)
    assert est.low < est.mid <= est.high and not est.measured
    # fewer allowed iterations, a shorter worst case
    assert E.predict("RMSC", shape(1000), {"max_iter": 5}, probe=PROBE).high < est.high


def test_rmsc_iterations_follow_the_model_rule_and_tolerance(monkeypatch):
    table = {"scaled": {"zstar": {1e-2: {"min": 10, "typical": 50.0},
                                  1e-3: {"min": 20, "typical": 150.0}},
                        "objective": {1e-4: {"min": 5, "typical": 40.0}}},
             "paper": {"objective": {1e-4: {"min": 12, "typical": 28.0}}}}
    monkeypatch.setitem(E._costs.COSTS, "rmsc_iters", table)
    it = E.rmsc_iterations
    base = {"loss_scale": "median", "stop_on": "zstar", "max_iter": 200}
    # at a measured tolerance: its counts; between two: linear in log(tol)
    assert it({**base, "tol": 1e-2}) == (10, 50, 200)
    assert it({**base, "tol": 10 ** -2.5}) == pytest.approx((15, 100, 200))
    # outside the measured ones: the nearest; capped by max_iter; tol 0 runs them all
    assert it({**base, "tol": 1e-6}) == (20, 150, 200)
    assert it({**base, "tol": 1e-6, "max_iter": 100}) == (20, 100, 100)
    assert it({**base, "tol": 0.0, "max_iter": 70}) == (70, 70, 70)
    # the rule and the model as set
    assert it({**base, "stop_on": "objective", "tol": 1e-4}) == (5, 40, 200)
    assert it({"loss_scale": None, "stop_on": "objective", "tol": 1e-4, "max_iter": 30}) \
        == (12, 28, 30)
    # through predict: the paper's model (loss_scale=None is a setting, not "the default")
    s = shape(500)
    paper = E.model_parts("RMSC", s, {"loss_scale": None, "gamma": 1e-5, "stop_on": "objective",
                                      "tol": 1e-4, "max_iter": 30})["iterations"]
    scaled = E.model_parts("RMSC", s, {"stop_on": "objective", "tol": 1e-4, "max_iter": 30})
    per_iter = paper[2] / (30 + E._costs.COSTS["rmsc_extra_iters"])
    assert paper[1] == pytest.approx(per_iter * (28 + E._costs.COSTS["rmsc_extra_iters"]))
    assert scaled["iterations"][1] == pytest.approx(paper[2])  # 40 typical, capped at 30


def test_the_defaults_are_estimated_longer_than_the_former_paper_fits():
    """The calibrated counts (rmsc/_costs.py): the default scaled model with its zstar stop
    runs more iterations than the paper's model with the former stop (the stability study)."""
    s = shape(1000)
    default = E.predict("RMSC", s, probe=PROBE)
    former = E.predict("RMSC", s, {**PAPER_MODEL, **FORMER_STOPPING}, probe=PROBE)
    assert default.mid > former.mid and default.high > former.high
    low, mid, high = E.rmsc_iterations(get_method("RMSC").get_params())
    assert low <= mid <= high == 200


def test_the_prediction_scales_with_the_machine_speed():
    s = shape(700)
    for m in ("RMSC", "SSC-AVG", "MSC", "DiMSC", "Co-Training"):
        slow = E.predict(m, s, probe=2 * PROBE)
        fast = E.predict(m, s, probe=PROBE)
        assert slow.mid == pytest.approx(2 * fast.mid)
        assert fast.mid > 0
    assert 0 < E.probe_seconds() < 1.0


def test_ssc_avg_costs_more_than_rmsc_on_digit_like_data():
    """At the paper's model and the former stop (at most 30 iterations: the reproduction's);
    the default scaled model's stop typically runs ~125 (the stability study), ~4 times as many."""
    digit = E.DataShape(2000, (240, 76, 216, 47, 64, 6), tuple(2000 * d for d in
                                                          (240, 76, 216, 47, 64, 6)), 10)
    former = {**PAPER_MODEL, **FORMER_STOPPING}
    assert (E.predict("SSC-AVG", digit, probe=PROBE).mid
            > 3 * E.predict("RMSC", digit, former, probe=PROBE).mid)


def test_unknown_method_is_refused():
    with pytest.raises(ValueError, match="No cost model"):
        E.predict("K-means", shape(100), probe=PROBE)


# -- measured durations come first -----------------------------------------------------------


def test_rmsc_iterations_move_with_lambda_as_measured(monkeypatch):
    table = {"scaled": {"zstar": {3e-3: {"min": 10, "typical": 40.0}}}}
    monkeypatch.setitem(E._costs.COSTS, "rmsc_iters", table)
    monkeypatch.setitem(E._costs.COSTS, "rmsc_lam_iters", {0.1: 0.5, 1.0: 1.0, 10.0: 4.0})
    ratio = E.lam_iteration_ratio
    assert ratio(None) == 1.0 and ratio(1.0) == 1.0    # the default λ ("sample": 1)
    assert ratio(10.0) == 4.0 and ratio(0.1) == 0.5
    assert ratio(100.0) == 4.0 and ratio(1e-3) == 0.5  # held at the measured ends
    # between two measured factors: linear in log(λ): sqrt(10) is half way from 1 to 10
    assert ratio(10 ** 0.5) == pytest.approx(2.5)
    # relative to the weighting's own default λ
    from rmsc.rmsc import default_lam
    assert ratio(10 * default_lam("view"), "view") == 4.0
    base = {"loss_scale": "median", "stop_on": "zstar", "tol": 3e-3, "max_iter": 200}
    assert E.rmsc_iterations({**base, "lam": 1.0}) == (10, 40, 200)
    assert E.rmsc_iterations({**base, "lam": 10.0}) == (40, 160, 200)
    assert E.rmsc_iterations({**base, "lam": 10.0, "max_iter": 100}) == (40, 100, 100)
    assert E.rmsc_iterations({**base, "lam": 0.1}) == (5, 20, 200)
    # without the table (constants written before it): λ moves nothing
    monkeypatch.delitem(E._costs.COSTS, "rmsc_lam_iters")
    assert E.rmsc_iterations({**base, "lam": 10.0}) == (10, 40, 200)


def test_a_grid_is_estimated_setting_by_setting_from_the_solve_fit(monkeypatch):
    monkeypatch.setitem(E._costs.COSTS, "rmsc_iters",
                        {"scaled": {"zstar": {3e-3: {"min": 10, "typical": 40.0}}}})
    monkeypatch.setitem(E._costs.COSTS, "rmsc_lam_iters", {0.1: 0.5, 1.0: 1.0, 10.0: 4.0})
    s = shape(300, fp="abc")
    book = dash.CostBook()
    solve = {"lam": 1.0, "beta": "auto", "beta_rel": 0.25}
    book.record("abc", "RMSC", solve, 6.0)             # the Solve page's fit: 6 s at λ = 1
    parts = {lam: E.model_parts("RMSC", s, {"lam": lam, "beta": 0.1}) for lam in (1.0, 10.0)}
    extra = E._costs.COSTS["rmsc_extra_iters"]         # the start's iteration(s)
    # λ = 10 takes 4x the iterations (160 against 40); the setup and spectral step stay
    assert parts[10.0]["iterations"][1] == \
        pytest.approx((160 + extra) / (40 + extra) * parts[1.0]["iterations"][1])
    assert parts[10.0]["spectral"] == parts[1.0]["spectral"]

    def model(lam):
        return dash.predict("RMSC", s, {"lam": lam, "beta": 0.1}, PROBE).mid
    est = dash.estimate_fit("RMSC", s, {"lam": 10.0, "beta": 0.1}, book, PROBE)
    assert est.mid == pytest.approx(6.0 * model(10.0) / model(1.0))
    # more, but less than the iterations' 3.9x: the setup and the spectral step do not grow
    assert 2.0 < est.mid / 6.0 < (160 + extra) / (40 + extra) and not est.measured
    # at Solve's λ with another β: the same work, so the same seconds
    assert dash.estimate_fit("RMSC", s, {"lam": 1.0, "beta": 0.1}, book, PROBE).mid == \
        pytest.approx(6.0)
    # RMSC-WV, of RMSC's cost group, from RMSC's measured fit by the model's ratio
    wv = dash.estimate_fit("RMSC-WV", s, {}, book, PROBE)
    assert wv.mid == pytest.approx(6.0 * dash.predict("RMSC-WV", s, {}, PROBE).mid
                                   / dash.predict("RMSC", s, solve, PROBE).mid)
    # once the grid's fits are in the book, each setting is its own measurement, and an
    # unmeasured one is the median of all of them, each scaled to it
    book.record("abc", "RMSC", {"lam": 10.0, "beta": 0.1}, 30.0)
    assert dash.estimate_fit("RMSC", s, {"lam": 10.0, "beta": 0.1}, book, PROBE) == \
        dash.Estimate.exact(30.0)
    both = dash.estimate_fit("RMSC", s, {"lam": 10.0, "beta": 0.3}, book, PROBE)
    assert both.mid == pytest.approx((30.0 + 6.0 * model(10.0) / model(1.0)) / 2)


def test_how_these_datas_fits_grew_with_lambda_is_learned_from_the_book():
    from rmsc.dashboard.estimates import lam_slope
    # seconds = 2 sqrt(λ): slope 1/2 in log-log, by hand
    rows = [({"lam": lam, "beta": "auto"}, 2.0 * lam ** 0.5) for lam in (0.25, 1.0, 4.0)]
    assert lam_slope(rows) == pytest.approx(0.5)
    assert lam_slope(rows[:2]) is None                 # too few settings
    assert lam_slope([({"lam": lam}, 1.0 + lam) for lam in (1.0, 1.2, 1.5)]) is None  # narrow
    assert lam_slope([({"lam": lam}, 1.0 / lam) for lam in (0.1, 1.0, 10.0)]) == 0.0  # held
    assert lam_slope([({"lam": lam}, lam ** 3) for lam in (0.1, 1.0, 10.0)]) == 1.5
    assert lam_slope([({"lam": None}, 1.0)] * 4) is None  # no λ recorded
    # the book's fits of these data then predict a grid's λ by that slope, not the model's
    s = shape(300, fp="abc")
    book = dash.CostBook()
    for q, t in rows:
        book.record("abc", "RMSC", q, t)
    est = dash.estimate_fit("RMSC", s, {"lam": 16.0, "beta": 0.1}, book, PROBE)
    assert est.mid == pytest.approx(8.0) and not est.measured  # 2 sqrt(16), from every row


def test_a_measured_duration_of_the_same_setting_is_the_estimate():
    book = dash.CostBook()
    s = shape(500, fp="abc")
    book.record("abc", "SSC-AVG", {"max_iter": 100}, 7.0)
    est = dash.estimate_fit("SSC-AVG", s, {"max_iter": 100}, book, PROBE)
    assert est == dash.Estimate(7.0, 7.0, 7.0, True)
    assert est.text() == "about 7 s"
    # another setting of the same method on the same data: the measured value scaled by the
    # model's ratio of the two settings, in the middle of a range that also spans the model's
    other = dash.estimate_fit("SSC-AVG", s, {"max_iter": 300}, book, PROBE)
    model = dash.predict("SSC-AVG", s, {"max_iter": 300}, PROBE)
    had = dash.predict("SSC-AVG", s, {"max_iter": 100}, PROBE)
    assert other.mid == pytest.approx(7.0 * model.mid / had.mid) and not other.measured
    assert 2.5 < other.mid / 7.0 < 3.0                 # ADMM's 300 iterations against 100
    assert other.low == min(other.mid, model.low) and other.high == max(other.mid, model.high)
    # other data, or another method: the model
    assert dash.estimate_fit("SSC-AVG", shape(500, fp="xyz"), {"max_iter": 100}, book,
                             PROBE) == dash.predict("SSC-AVG", s, {"max_iter": 100}, PROBE)
    assert dash.estimate_fit("RMSC", s, {}, book, PROBE) == dash.predict("RMSC", s, {}, PROBE)


def test_the_book_keeps_the_newest_duration_per_setting_and_takes_medians_over_settings():
    book = dash.CostBook()
    for beta, t in ((0.1, 1.0), (0.2, 2.0), (0.3, 9.0)):
        book.record("fp", "RMSC", {"lam": 1.0, "beta": beta}, t)
    book.record("fp", "RMSC", {"lam": 1.0, "beta": 0.3}, 3.0)  # measured again: replaces 9.0
    book.record("fp", "RMSC", {"lam": 1.0, "beta": 0.4}, float("nan"))  # ignored
    book.record("", "RMSC", {}, 1.0)  # no fingerprint: ignored
    assert len(book) == 3
    assert book.lookup("fp", "rmsc", {"beta": 0.3, "lam": 1.0}) == (3.0, True)
    assert book.lookup("fp", "RMSC", {"lam": 5.0, "beta": 0.3}) == (2.0, False)
    assert book.lookup("other", "RMSC", {}) == (None, False)


def test_compare_run_is_recorded_and_then_predicted_by_its_own_durations():
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    params = {"RMSC": {"lam": 1.0, "max_iter": 5}}
    methods = ["RMSC", "Co-Training"]
    book = dash.CostBook()
    before = dash.estimate_compare({"data": data}, methods, params, book, PROBE)
    assert not before.measured
    tables = dash.run_compare({"data": data}, methods, params)
    dash.record_compare(book, {"data": data}, tables)
    after = dash.estimate_compare({"data": data}, methods, params, book, PROBE)
    assert after.measured
    # each fit's own duration, then its scoring (60 samples, 3 clusters), one after another
    assert after.mid == pytest.approx(tables["data"]["fit_time"].sum() + 2 * scoring_seconds(60, 3))


def test_sensitivity_and_views_sum_their_fits():
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    book = dash.CostBook()
    one = dash.estimate_fit("RMSC", dash.data_shape(data), {"lam": 1.0, "beta": 0.1}, book, PROBE)
    low = dash.estimate_fit("RMSC", dash.data_shape(data), {"lam": 0.3, "beta": 0.1}, book, PROBE)
    assert low.mid < one.mid                           # fewer iterations at a smaller λ
    grid = dash.estimate_sensitivity(data, [0.3, 1.0], [0.1, 0.2, 0.3], "RMSC", {}, book, PROBE)
    # β moves nothing; each of the six fits is scored after it
    assert grid.mid == pytest.approx(3 * one.mid + 3 * low.mid + 6 * scoring_seconds(60, 3))
    df = dash.run_sensitivity(data, [1.0], [0.01, 0.02], "RMSC", {"max_iter": 5})
    dash.record_sensitivity(book, data, "RMSC", {"max_iter": 5}, df)
    again = dash.estimate_sensitivity(data, [1.0], [0.01, 0.02], "RMSC", {"max_iter": 5}, book,
                                      PROBE)
    assert again.measured
    assert again.mid == pytest.approx(df["fit_time"].sum() + 2 * scoring_seconds(60, 3))
    # views: 1, 2 and 3 views; co-training refuses one view at once, so it is not counted there
    views = dash.estimate_views(data, ["RMSC", "Co-Training"], None, None, PROBE)
    expect = sum(dash.predict("RMSC", dash.data_shape(data, n_views=k), {}, PROBE).mid
                 for k in (1, 2, 3))
    expect += sum(dash.predict("Co-Training", dash.data_shape(data, n_views=k), {}, PROBE).mid
                  for k in (2, 3))
    expect += 5 * scoring_seconds(60, 3)  # five fits, each scored once
    assert views.mid == pytest.approx(expect)
    assert dash.data_shape(data, n_views=2).fingerprint == f"{data.fingerprint}[2]"
    assert dash.data_shape(data).fingerprint == data.fingerprint


def test_the_solve_fit_counts_as_a_measurement_of_the_same_setting():
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    p = dash.Params(max_iter=5)
    result = dash.fit_rmsc(data, p)
    book = dash.CostBook()
    dash.record_solve_fit(book, result, data)
    params = dash.rmsc_method_params(p, data)
    est = dash.estimate_compare({"data": data}, [p.method], params, book, PROBE)
    took = result.fit_time + result.spectral_time
    assert est.measured and not est.guess
    assert (est.low, est.mid, est.high) == (pytest.approx(took + scoring_seconds(60, 3)),) * 3
    # a fit of other data, or no fit, records nothing
    other = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=1)
    fresh = dash.CostBook()
    dash.record_solve_fit(fresh, result, other)
    dash.record_solve_fit(fresh, None, data)
    assert len(fresh) == 0


def test_the_suggestion_sums_its_settings_and_a_solve_fit_centers_them():
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    p = dash.Params(max_iter=5)
    n = len(dash.SUGGEST_LAMS) * len(dash.SUGGEST_BETA_RELS)
    criterion = E.predict_criterion(dash.data_shape(data), PROBE).mid
    scoring = E.predict_scoring(dash.data_shape(data), PROBE).mid  # once, the chosen setting
    model = dash.estimate_suggestion(data, p, None, PROBE)
    one = dash.predict(p.method, dash.data_shape(data), {"max_iter": 5}, PROBE)
    assert not model.measured
    assert model.mid == pytest.approx(n * (one.mid + criterion) + scoring)
    book = dash.CostBook()
    result = dash.fit_rmsc(data, p)
    dash.record_solve_fit(book, result, data)
    seen = dash.estimate_suggestion(data, p, book, PROBE)
    took = result.fit_time + result.spectral_time
    assert not seen.measured  # other λ, β than the measured fit: a range around it
    assert seen.mid == pytest.approx(n * (took + criterion) + scoring)
    assert seen.low <= seen.mid <= seen.high


UNIT_PROBE = float(E.PROBE_SIZE) ** 3  # a probe at which one multiply-add takes 1 s


def test_the_criterion_and_scoring_terms_by_hand():
    # n = 10, c = 3: the dense eigensolver (10^3), 20 agreement runs over 10 samples each
    assert E.criterion_terms(10, 3) == {"const": 1.0, "eigh": 1000.0, "lanczos": 0.0,
                                        "runs": 20.0, "ari": 200.0}
    # past the dense eigensolver's limit: Lanczos, n^2 (c + 1)
    t = E.criterion_terms(1000, 3)
    assert t["eigh"] == 0 and t["lanczos"] == 1000 ** 2 * 4 and t["ari"] == 20_000
    # scoring 20 runs of 10 samples in 3 clusters: 20 x 10 passes, 20 assignments of 3^3
    assert E.scoring_terms(10, 3) == {"const": 1.0, "runs": 20.0, "samples": 200.0,
                                      "assign": 540.0}


def test_each_suggested_setting_pays_its_fit_and_its_criterion(monkeypatch):
    """Each setting of a suggestion costs its fit (as recorded) plus its graph criterion and
    k-means agreement, which no fit's recorded duration holds: with every fit recorded at
    1 s and a criterion of 0.5 s (worked at a probe of one multiply-add per second), the
    run is 8 x 1.5 s."""
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    monkeypatch.setitem(E._costs.COSTS, "criterion", {"const": 0.25, "runs": 0.0125})
    monkeypatch.setitem(E._costs.COSTS, "scoring", {"const": 0.75})
    shape = dash.data_shape(data)
    assert E.predict_criterion(shape, UNIT_PROBE).mid == pytest.approx(0.25 + 20 * 0.0125)
    p = dash.Params(max_iter=5)
    book = dash.CostBook()
    fits = dash.suggestion_fits(p, data)
    assert [(lam, rel) for lam, rel, _ in fits] == [
        (lam, rel) for lam in dash.SUGGEST_LAMS for rel in dash.SUGGEST_BETA_RELS]
    for k, (_, _, q) in enumerate(fits):
        book.record(data.fingerprint, p.method, q, 1.0 + k)
    est = dash.estimate_suggestion(data, p, book, UNIT_PROBE)
    n = len(fits)
    # every fit measured: the estimate says so (the criterion and scoring keep its flags)
    assert est.measured and not est.guess
    assert est.mid == pytest.approx(sum(1.0 + k for k in range(n)) + n * 0.5 + 0.75)
    assert [e.mid for e in dash.suggestion_estimates(data, p, book, UNIT_PROBE)] == \
        pytest.approx([1.5 + k for k in range(n)])
    # the ETA weighs each setting the same way
    assert dash.suggestion_weights(data, p, book, UNIT_PROBE) == \
        [pytest.approx([1.5 + k for k in range(n)])]
    # without the criterion's and scoring's constants, a setting is its fit alone
    monkeypatch.setitem(E._costs.COSTS, "criterion", {})
    monkeypatch.setitem(E._costs.COSTS, "scoring", {})
    assert dash.estimate_suggestion(data, p, book, UNIT_PROBE).mid == \
        pytest.approx(sum(1.0 + k for k in range(n)))


def test_a_suggestion_records_each_settings_fit_not_its_criterion():
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    p = dash.Params(max_iter=5)
    grid = dict(lams=dash.SUGGEST_LAMS, beta_rels=dash.SUGGEST_BETA_RELS)
    run = dash.run_suggestion(data, p, **grid)
    timings = run.suggestion.timings
    assert len(timings) == len(run.suggestion.table) == len(dash.suggestion_fits(p, data))
    for t in timings:  # each setting's turn holds its parts
        assert t["seconds"] >= t["fit"] + t["criterion"] + t["agreement"]
        assert t["fit"] >= t["fit_time"] > 0
    assert run.seconds >= sum(t["seconds"] for t in timings) + run.scoring
    book = dash.CostBook()
    dash.record_suggestion(book, data, p, run)
    for (_, _, q), t in zip(dash.suggestion_fits(p, data), timings):
        assert book.lookup(data.fingerprint, p.method, q) == (t["fit"], True)
    # the next suggestion's fits are measured: the estimate is their sum plus the criteria
    est = dash.estimate_suggestion(data, p, book, PROBE)
    criterion = E.predict_criterion(dash.data_shape(data), PROBE).mid
    scoring = E.predict_scoring(dash.data_shape(data), PROBE).mid
    assert est.measured and est.mid == pytest.approx(sum(t["fit"] for t in timings)
                                                     + len(timings) * criterion + scoring)
    # a run of another method, or of another grid, records nothing
    fresh = dash.CostBook()
    dash.record_suggestion(fresh, data, p.replace(weighting="view"), run)
    small = dash.run_suggestion(data, p, lams=(1.0,), beta_rels=(0.25,))
    dash.record_suggestion(fresh, data, p, small)
    assert len(fresh) == 0


# -- words -------------------------------------------------------------------------------------


@pytest.mark.parametrize("seconds, text", [
    (0.2, "1 s"), (4.4, "4 s"), (15, "15 s"), (33, "35 s"), (89, "90 s"), (150, "2 min"),
    (1800, "30 min"), (3 * 3600, "3.0 h")])
def test_durations_in_words(seconds, text):
    assert dash.format_duration(seconds) == text


def test_estimate_text_gives_a_range_only_when_unsure():
    assert dash.Estimate.exact(15).text() == "about 15 s"
    assert dash.Estimate(60, 70, 80).text() == "about 70 s"  # within 1.5x: one number
    assert dash.Estimate(30, 40, 120).text() == "about 30 s–2 min"
    assert dash.Estimate(100, 200, 600).text() == "about 2–10 min"
    total = dash.Estimate.exact(10) + dash.Estimate(5, 10, 40)
    assert total == dash.Estimate(15, 20, 50, False)
    assert (dash.Estimate.exact(3) + dash.Estimate.exact(4)).measured


# -- runs in parts, side by side on the workers ------------------------------------------------


def test_schedule_puts_the_longest_part_first_on_the_worker_that_frees_first():
    parts = [dash.Estimate.exact(s) for s in (3, 5, 3, 4, 3)]
    # by hand: 5 | 4, then 3 to the second (7), 3 to the first (8), 3 to the second (10)
    assert dash.schedule(parts, workers=2).mid == pytest.approx(10)
    assert dash.schedule(parts, workers=1).mid == pytest.approx(18)  # one after another
    assert dash.schedule(parts, workers=5).mid == pytest.approx(5)  # the longest part
    # workers that share one machine's speed (capacity 1) do no better than one worker
    assert dash.schedule(parts, workers=2, capacity=1).mid == pytest.approx(18)
    # low, middle and high are each scheduled; a sum's flags
    ranged = [dash.Estimate(1, 2, 6, guess=True), dash.Estimate(2, 3, 3, guess=True)]
    s = dash.schedule(ranged, workers=2)
    assert (s.low, s.mid, s.high) == (2, 3, 6) and s.guess and not s.measured


def test_a_run_is_scheduled_in_its_groups_and_says_when_it_is_a_guess():
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    methods = ["RMSC", "RMSC-WV", "SSC-AVG", "SSC-BSV"]
    fits = dash.compare_fits({"data": data}, methods)
    shape = dash.data_shape(data)
    one = {m: dash.predict(m, shape, {}, PROBE) for m in methods}
    # SSC-AVG and SSC-BSV share their SSC solves: one group, one after the other on a worker
    groups = experiments.plan_groups(fits, {"data": data})
    assert sorted(sorted(fits[i].method for i in g) for g in groups) == [
        ["RMSC"], ["RMSC-WV"], ["SSC-AVG", "SSC-BSV"]]
    est = dash.estimate_compare({"data": data}, methods, None, None, PROBE, workers=2)
    # each fit scored after it; SSC-BSV scores each of the 3 views' clusterings
    sc = dash.Estimate(*(scoring_seconds(60, 3),) * 3, True, 0, True)
    expect = dash.schedule([one["RMSC"] + sc, one["RMSC-WV"] + sc,
                            one["SSC-AVG"] + sc + one["SSC-BSV"] + sc + sc + sc], 2)
    assert est.guess and est.measured == expect.measured
    assert (est.low, est.mid, est.high) == pytest.approx((expect.low, expect.mid, expect.high))
    assert est.text().startswith("a guess: about ")
    # one worker: the sum, as before
    alone = dash.estimate_compare({"data": data}, methods, None, None, PROBE)
    assert alone.mid == pytest.approx(sum(e.mid for e in one.values()) + 6 * scoring_seconds(60, 3))
    # a measured fit of the data makes it more than a guess
    book = dash.CostBook()
    book.record(data.fingerprint, "RMSC", {}, 2.0)
    seen = dash.estimate_compare({"data": data}, methods, None, book, PROBE, workers=2)
    assert not seen.guess and not seen.text().startswith("a guess")


def test_the_cores_go_to_the_parts_by_their_share_of_the_work():
    from rmsc.dashboard.sender import part_threads

    parts = [dash.Remote(print) for _ in range(3)]
    for part, share in zip(parts, (0.8, 0.1, 0.1)):
        part.share = share
    assert [part_threads(p, parts, 2) for p in parts] == [2, 1, 1]
    assert [part_threads(p, parts, 8) for p in parts] == [6, 1, 1]
    many = [dash.Remote(print) for _ in range(25)]  # a grid: one thread each
    assert {part_threads(p, many, 2) for p in many} == {1}
    assert part_threads(parts[0], parts, None) is None  # cores not shared out (elsewhere)


def test_a_fit_on_fewer_threads_is_slower_by_the_share_its_threads_split():
    # Amdahl by hand: a fifth split -> one thread takes 0.8 + 0.2 = 1, two 0.8 + 0.1 = 0.9
    assert E.thread_speed(1, 2, 0.2) == pytest.approx(0.9)
    assert E.thread_speed(1, 2, 1.0) == pytest.approx(0.5)  # all split: half as fast
    assert E.thread_speed(1, 2, 0.0) == pytest.approx(1.0)  # nothing split: as fast
    assert E.thread_speed(2, 2, 0.2) == pytest.approx(1.0)
    # four threads, half split: 0.5 + 0.125 against one: 1 -> 0.625
    assert E.thread_speed(1, 4, 0.5) == pytest.approx(0.625)
    assert E.thread_speed(2, 4, 0.5) == pytest.approx(0.625 / 0.75)


def test_the_parallel_fractions_are_measured_for_the_threaded_methods_only(monkeypatch):
    monkeypatch.setitem(E._costs.COSTS, "parallel", {"RMSC": 0.3})
    assert E.parallel_fraction("rmsc") == pytest.approx(0.3)
    assert E.parallel_fraction("MSC") == 0.0  # runs no blocks on threads


def test_parts_on_a_share_of_one_machines_cores_run_at_their_measured_speed():
    one = dash.Estimate.exact
    # two one-thread parts on two cores, each wholly split: each at half speed, together in
    # the time of both one after another with both cores (5 + 5)
    assert dash.schedule([one(5), one(5)], 2, threads=[1, 1], cores=2,
                         parallel=[1, 1]).mid == pytest.approx(10)
    # nothing split: each on its own core as fast as with both, together in 5
    assert dash.schedule([one(5), one(5)], 2, threads=[1, 1], cores=2,
                         parallel=[0, 0]).mid == pytest.approx(5)
    # a fifth split: each at 0.9 of its speed with both cores: 5 / 0.9
    assert dash.schedule([one(5), one(5)], 2, threads=[1, 1], cores=2,
                         parallel=[0.2, 0.2]).mid == pytest.approx(5 / 0.9)
    # wholly split, a part left alone keeps its one thread: 8 and 10 end together at 16,
    # then 2 s of work at half speed
    assert dash.schedule([one(10), one(8)], 2, threads=[1, 1], cores=2,
                         parallel=[1, 1]).mid == pytest.approx(20)
    # a two-thread part beside a one-thread one, a fifth split: three threads on two cores
    # share them (x 2/3); by hand: rates 2/3 and 0.9 x 2/3 = 0.6 until the small part's 2 s
    # of work end (at 10/3 s, 20/9 of the large part's 12 done), then the large part alone
    # at full speed
    assert dash.schedule([one(12), one(2)], 2, threads=[2, 1], cores=2,
                         parallel=[0.2, 0.2]).mid == pytest.approx(10 / 3 + 12 - 20 / 9)
    # every core to every part: as a worker alone
    assert dash.schedule([one(3), one(4)], 1, threads=[2, 2], cores=2,
                         parallel=[0.2, 0.2]).mid == pytest.approx(7)
    with pytest.raises(ValueError, match="parallel"):  # never an assumed speed-up
        dash.schedule([one(3), one(4)], 2, threads=[1, 1], cores=2)


def _two_workers_longest_first(seconds):
    """By hand: the end of ``seconds`` on two workers, longest first, each to the first free."""
    free = [0.0, 0.0]
    for t in sorted(seconds, reverse=True):
        free[free.index(min(free))] += t
    return max(free)


def test_a_run_in_parts_is_recorded_as_fits_with_every_core_and_predicted_again(monkeypatch):
    """A grid's fits ran on one of two cores each, a fifth of each split among threads:
    their durations count at 0.9 (a fit with both cores is only 1/0.9 as fast, not twice),
    and the next estimate of the same run (scheduled on one thread each) gives its own
    time."""
    monkeypatch.setitem(E._costs.COSTS, "parallel", {"RMSC": 0.2})
    data = make_multiview_subspaces(n_clusters=3, n_per_cluster=20, random_state=0)
    lams, betas = [0.3, 1.0], [0.1, 0.2]
    fits = dash.sensitivity_fits(data, lams, betas, "RMSC", {})
    assert dash.fit_speeds({"data": data}, fits, 2) == [pytest.approx(0.9)] * 4
    assert dash.fit_speeds({"data": data}, fits, None) == [1.0] * 4
    df = dash.run_sensitivity(data, lams, betas, "RMSC", {})
    book = dash.CostBook()
    dash.record_sensitivity(book, data, "RMSC", {}, df, cores=2)
    for rec in df.to_dict("records"):
        p = {"lam": rec["lam"], "beta": rec["beta"]}
        assert book.lookup(data.fingerprint, "RMSC", p) == (
            pytest.approx(rec["fit_time"] * 0.9), True)
    again = dash.estimate_sensitivity(data, lams, betas, "RMSC", {}, book, PROBE, workers=2,
                                      capacity=2, cores=2)
    # two at a time, each on its own core at 0.9 of the speed it was recorded at: the
    # fits' own times, longest first on two workers; each fit's scoring (60 samples,
    # 3 clusters) goes at the part's speed too (0.9)
    assert again.measured
    assert again.mid == pytest.approx(_two_workers_longest_first(
        [t + scoring_seconds(60, 3) / 0.9 for t in df["fit_time"]]))
