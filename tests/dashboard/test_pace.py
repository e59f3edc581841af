"""What a button says of a run's time before, during and after it (rmsc.dashboard.pace), no browser."""

import math

import pytest

from rmsc import dashboard as dash
from rmsc import experiments
from rmsc.costs import Estimate, predict_scoring
from rmsc.dashboard import pace as P
from rmsc.dashboard.remote import PartsProgress, Remote
from rmsc.datasets import make_multiview_subspaces

PROBE = 2e-3  # a fixed speed probe: deterministic model seconds


# -- before: one figure, a range at most 2x wide, the load and the learned speed -------------


def test_slowdown_by_hand():
    # two busy processes beside a run of 2 threads on 2 cores: each thread gets half a core
    assert P.slowdown(2, 2) == 2.0
    assert P.slowdown(0, 2) == 1.0
    assert P.slowdown(6, 2, threads=2) == 4.0          # (6 + 2) / 2
    assert P.slowdown(1, 4, threads=2) == 1.0          # 3 busy threads on 4 cores: no wait
    assert P.slowdown(3, 4, threads=2) == 1.25         # 5 on 4
    assert P.slowdown(50, None) == 1.0                 # workers elsewhere: their load unknown
    # a run of 4 threads on 2 cores is already 2x slower alone: the load adds to that only
    assert P.slowdown(0, 2, threads=4) == 1.0
    assert P.slowdown(2, 2, threads=4) == 1.5          # (2 + 4) / 2 / (4 / 2)


def test_the_load_of_others_at_the_end_of_a_run():
    # 1-minute load 3.0 read after a minute of 2 busy threads: those made up 2 (1 - 1/e) of it
    assert P.other_load(3.0, 60, 2) == pytest.approx(3.0 - 2 * (1 - math.exp(-1)))
    assert P.other_load(3.0, 0, 2) == 3.0
    assert P.other_load(1.0, 600, 2) == 0.0            # never below none


def test_the_load_is_the_threads_runnable_now_less_the_reader(tmp_path, monkeypatch):
    reads = iter(["3.10 2.00 1.00 5/300 999\n", "3.10 2.00 1.00 3/300 999\n",
                  "3.10 2.00 1.00 4/301 999\n"])
    real_open = open

    def fake_open(path, *args, **kwargs):
        if str(path) == "/fake/loadavg":
            f = tmp_path / "loadavg"
            f.write_text(next(reads))
            return real_open(f, *args, **kwargs)
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr("builtins.open", fake_open)
    # 5, 3 and 4 runnable, one of them the reader: 4, 2 and 3 others, the median 3
    assert P.runnable_now(3, 0.0, "/fake/loadavg") == 3.0
    assert P.runnable_now(1, 0.0, tmp_path / "missing") is None


def test_one_read_that_catches_a_spike_does_not_move_the_load(tmp_path, monkeypatch):
    # five reads, 3 runnable each but the third, which catches 31 at once (a pool waking):
    # others 2, 2, 30, 2, 2. Their median is 2; their mean, 7.6, would plan (7.6 + 2) / 2 =
    # 4.8x slower beside 2 cores instead of (2 + 2) / 2 = 2x.
    counts = iter([3, 3, 31, 3, 3])
    real_open = open

    def fake_open(path, *args, **kwargs):
        if str(path) == "/fake/loadavg":
            f = tmp_path / "loadavg"
            f.write_text(f"2.50 2.00 1.00 {next(counts)}/300 999\n")
            return real_open(f, *args, **kwargs)
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr("builtins.open", fake_open)
    assert P.runnable_now(5, 0.0, "/fake/loadavg") == 2.0
    assert next(counts, None) is None                   # all five were read
    assert P.slowdown(2.0, 2) == 2.0


def test_the_plan_reads_the_load_now(monkeypatch):
    monkeypatch.setattr(P, "runnable_now", lambda *a, **k: 6.0)
    monkeypatch.setattr(P.os, "getloadavg", lambda: (9.0, 1.0, 1.0))
    assert P.current_load(2) == 6.0                    # the count now, not the 1-minute average
    assert P.load_after(60, 2) == 6.0                  # the run's threads idle again: as read
    # without /proc/loadavg: the 1-minute average; after a run, less the run's own part
    monkeypatch.setattr(P, "runnable_now", lambda *a, **k: None)
    assert P.current_load(2) == 9.0
    assert P.load_after(60, 2) == pytest.approx(P.other_load(9.0, 60, 2))
    monkeypatch.setattr(P, "runnable_now", lambda *a, **k: 6.0)
    planned = P.plan(Estimate(5.0, 10.0, 20.0), "compare", None, cores=2)
    assert planned.load == 6.0 and planned.seconds == pytest.approx(40.0)  # (6 + 2) / 2
    # workers on machines elsewhere: this machine's load does not slow them
    assert P.plan(Estimate(5.0, 10.0, 20.0), "compare", None, cores=None).seconds == 10.0


def test_the_plan_of_an_idle_estimate_by_hand():
    est = Estimate(50.0, 100.0, 400.0)                 # a 8x model range
    planned = P.plan(est, "compare", None, load=2, cores=2)
    # 100 s idle, 2x slower beside two busy processes: 200 s, from 200/1.4 to 200 x 1.4
    assert planned.seconds == pytest.approx(200.0)
    assert (planned.low, planned.high) == pytest.approx((200 / 1.4, 280.0))
    assert planned.high / planned.low <= 2.0
    assert planned.text() == "about 3.5 min (2.5–4.5 min)"
    assert planned.idle == 100.0 and planned.kind == "compare" and planned.source == "mixed"
    # idle: the figure is the estimate's middle
    assert P.plan(est, "compare", None, load=0, cores=2).text() == \
        "about 1.5 min (70 s–2.5 min)"
    # a run of a method without a model, not measured yet, is said apart
    unknown = Estimate(20.0, 20.0, 20.0, False, 1)
    assert P.plan(unknown, "compare", None, load=0, cores=2).text() == \
        "about 20 s (14–30 s) + 1 fit of unknown time"
    assert P.plan(Estimate.not_known(), "views", None, load=0, cores=2).text() == \
        "time unknown until it has run once"


def test_the_pace_learns_what_runs_took_against_the_prediction():
    pace = P.Pace()
    assert pace.factor("compare") == 1.0               # nothing learned: the estimate as is
    est = Estimate(40.0, 100.0, 300.0, guess=True)      # the model's alone
    first = P.plan(est, "compare", pace, load=0, cores=2)
    assert first.seconds == 100.0 and first.source == "model"
    # it took 300 s while two busy processes made the machine 2x slower: 1.5x the model
    assert pace.record(first, 300.0, slow=2.0, key="k") == pytest.approx(1.5)
    again = P.plan(est, "compare", pace, load=0, cores=2)
    assert again.seconds == pytest.approx(150.0)       # learned, on an idle machine
    assert P.plan(est, "compare", pace, load=2, cores=2).seconds == pytest.approx(300.0)
    took, planned = pace.outcome("k")
    assert took == 300.0 and planned is first
    assert P.outcome_text(took, planned) == \
        "took 5 min, predicted about 1.5 min (70 s–2.5 min)"
    # another kind learns its own: nothing borrowed from Compare's
    assert pace.factor("sensitivity", "model") == 1.0
    # a prediction from measured durations alone is this machine's already: not scaled by
    # what the model's predictions missed
    assert pace.factor("compare", "measured") == 1.0


def test_each_button_learns_its_own_pace():
    # the benchmark's order on a fresh server: Compare (3 long fits) ran 0.68x its figure;
    # the grid (25 short fits) ran first after it, and ran 2.2x its figure later. A borrowed
    # 0.68 had made the grid's first figure shorter still; each kind keeps its own.
    pace = P.Pace()
    pace.record(P.Plan(10, 7, 14, idle=4.0, kind="compare", source="mixed"), 4.0 * 0.68)
    assert pace.factor("sensitivity", "mixed") == 1.0  # no grid run yet: the estimate as is
    assert pace.factor("views", "model") == 1.0
    pace.record(P.Plan(10, 7, 14, idle=10.0, kind="sensitivity", source="mixed"), 22.0)
    assert pace.factor("sensitivity", "mixed") == pytest.approx(2.2)
    assert pace.factor("compare", "mixed") == pytest.approx(0.68)
    # within a kind, a ratio of another source counts when its own has none ...
    assert pace.factor("sensitivity", "model") == pytest.approx(2.2)
    # ... but a prediction from measured durations alone takes only its own kind's such
    assert pace.factor("sensitivity", "measured") == 1.0
    pace.record(P.Plan(10, 7, 14, idle=10.0, kind="sensitivity", source="measured"), 15.0)
    assert pace.factor("sensitivity", "measured") == pytest.approx(1.5)
    assert pace.factor("compare", "measured") == 1.0


def test_the_pace_takes_the_median_of_the_newest_and_stays_bounded():
    pace = P.Pace(history=16, recent=5)
    for ratio in (1, 2, 3, 10, 20, 30):
        pace.record(P.Plan(10, 7, 14, idle=10.0, kind="grid", source="mixed"), 10.0 * ratio)
    assert pace.factor("grid", "mixed") == 10.0        # median of 2, 3, 10, 20, 30
    for k in range(40):
        pace.record(P.Plan(10, 7, 14, idle=10.0, kind="grid", source="mixed"), 10.0,
                    key=("run", k))
    assert len(pace) == 16 and pace.factor("grid", "mixed") == 1.0
    assert pace.outcome(("run", 0)) is not None and pace.outcome(("run", 39)) is not None
    # a plan without an idle figure (nothing known) teaches nothing
    assert pace.record(P.Plan(0, 0, 0, unknown=1), 12.0) is None


def test_durations_are_kept_idle_and_learned_after_a_run():
    book, pace = dash.CostBook(), P.Pace()
    # planned beside a load of 2 on 2 cores; after it 5 other threads run: the others'
    # load meanwhile is the mean, 3.5
    planned = P.plan(Estimate(10.0, 30.0, 60.0), "sensitivity", pace, load=2, cores=2)
    assert planned.seconds == 60.0 and planned.load == 2.0

    def record(b, result):
        b.record("fp", "RMSC", {"lam": 1}, result)

    slow = P.learn_from_run(pace, book, planned, 60.0, 2, record, 60.0, key="s", load=5.0)
    assert slow == pytest.approx((3.5 + 2) / 2)
    assert book.lookup("fp", "RMSC", {"lam": 1}) == (pytest.approx(60.0 / slow), True)
    assert pace.factor("sensitivity", "mixed") == pytest.approx(60.0 / (30.0 * slow))
    assert pace.outcome("s")[0] == 60.0


def test_the_solve_fit_teaches_the_book_and_the_models_speed(monkeypatch):
    from rmsc import costs

    monkeypatch.setattr(P, "fastest_probe_seconds", lambda calibrated=True: PROBE)
    monkeypatch.setattr(costs, "_speed_ratios", [])
    data = make_multiview_subspaces(n_per_cluster=15, n_clusters=3, n_views=2,
                                    view_dims=(12, 16), random_state=0)
    out = dash.fit_rmsc(data, dash.Params(max_iter=5))
    book, pace = dash.CostBook(), P.Pace()
    slow = P.learn_from_fit(pace, book, out, data, cores=2, load=0.0)
    assert slow == 1.0
    params = dash.rmsc_method_params(out.params, data)["RMSC"]
    seconds, exact = book.lookup(data.fingerprint, "RMSC", params)
    assert exact and seconds == pytest.approx(out.fit_time + out.spectral_time)
    model = dash.predict("RMSC", dash.data_shape(data), params, PROBE)
    # the model's speed follows the fit: its seconds times this ratio are the fit's
    assert costs._speed_ratios == [pytest.approx(seconds / model.mid)]
    assert len(pace) == 0


# -- during: the ETA from the run's weighted progress ----------------------------------------


def test_done_fraction_weighs_each_fit_by_its_estimate():
    weights = [[10.0, 30.0], [60.0]]                    # two parts; the first fits in order
    assert P.done_fraction(weights, (1, 0)) == pytest.approx(0.1)
    assert P.done_fraction(weights, (2, 0)) == pytest.approx(0.4)
    assert P.done_fraction(weights, (0, 1)) == pytest.approx(0.6)
    assert P.done_fraction(weights, (2, 1)) == 1.0
    # one fit of three done counts as a third only when they cost the same
    assert P.done_fraction([[1.0], [1.0], [1.0]], (0, 1, 0)) == pytest.approx(1 / 3)
    # a task in one piece reports a count: its first fits
    assert P.done_fraction([[10.0, 30.0, 60.0]], None, done=2) == pytest.approx(0.4)
    assert P.done_fraction([], None, done=2) == 0.0


def test_eta_by_hand():
    # half the work in 60 s, predicted 100 s in all: per unit of work (0.5 x 100 + 60) = 110
    # s, half a unit left
    assert P.eta(60, 0.5, 100) == pytest.approx(55.0)
    # 90% in 180 s (the rate says 200 in all): 0.1 x (0.1 x 100 + 180)
    assert P.eta(180, 0.9, 100) == pytest.approx(19.0)
    assert P.eta(30, 0.0, 100) == 70.0                 # nothing done yet: the plan's clock
    assert P.eta(130, 0.0, 100) == 0.0
    assert P.eta(50, 1.0, 100) == 0.0
    planned = P.Plan(100.0, 100 / 1.4, 140.0)
    assert P.eta_text(60, 0.5, planned) == \
        "60 s in, about 55 s left (predicted about 1.5 min (70 s–2.5 min))"
    assert P.eta_text(130, 0.0, planned) == \
        "2 min in, longer than predicted about 1.5 min (70 s–2.5 min)"


def test_run_weights_follow_the_parts_the_workers_get():
    data = make_multiview_subspaces(n_per_cluster=20, n_clusters=3, n_views=2, view_dims=(12, 16),
                                    random_state=0)
    methods = ["RMSC", "SSC-AVG", "RMSC-WV"]
    variants = {"data": data}
    weights = P.compare_weights(variants, methods, None, None, PROBE)
    remote = dash.compare_parts(variants, methods)
    assert [len(row) for row in weights] == [part.steps for part in remote.parts]
    fits = dash.compare_fits(variants, methods)
    groups = experiments.plan_groups(fits, variants)
    shape = dash.data_shape(data)
    for row, group in zip(weights, groups):
        # each fit's estimate, then its scoring (once: none of these clusters every view)
        assert row == [pytest.approx(dash.estimate_fit(fits[i].method, shape, fits[i].params,
                                                       None, PROBE).mid
                                     + predict_scoring(shape, PROBE).mid) for i in group]
    # the suggestion: one part, one weight per setting
    sw = P.suggestion_weights(data, dash.Params(), None, PROBE)
    assert len(sw) == 1 and len(sw[0]) == len(dash.SUGGEST_LAMS) * len(dash.SUGGEST_BETA_RELS)


def test_a_job_in_parts_reports_each_parts_progress():
    job = dash.Job("k", lambda j: None)
    parts = [Remote(print), Remote(print)]
    parts[0].steps, parts[1].steps = 2, 1
    progress = PartsProgress(job, parts)
    progress.part(1).report(1, 1, "second")
    assert job.snapshot().parts == (0, 1) and job.snapshot().done == 1
    progress.part(0).report(1, 2, "first")
    assert job.snapshot().parts == (1, 1)
    progress.finished(0)
    assert job.snapshot().parts == (2, 1) and job.snapshot().done == 3


def test_the_machines_speed_is_its_fastest_probe_calibrated_by_its_fits(monkeypatch):
    from rmsc import costs

    readings = iter([3e-3, 2e-3, 5e-3, 5e-3])         # a busy moment reads slower
    monkeypatch.setattr(costs, "probe_seconds", lambda refresh=False: next(readings))
    monkeypatch.setitem(costs._probe_cache, "fastest", None)
    monkeypatch.setattr(costs, "_speed_ratios", [])
    assert [costs.fastest_probe_seconds() for _ in range(3)] == [3e-3, 2e-3, 2e-3]
    for ratio in (2.0, 4.0, 3.0):                       # fits took 2-4x the model's seconds
        costs.calibrate_speed(ratio)
    assert costs.fastest_probe_seconds() == pytest.approx(6e-3)


# -- the learned pace outlives the server -----------------------------------------------------


def _plan(kind="compare", source="model"):
    return P.Plan(10, 7, 14, idle=10.0, kind=kind, source=source)


def test_the_learned_pace_is_kept_in_the_cache_folder_across_restarts(tmp_path, monkeypatch):
    monkeypatch.setenv("RMSC_CACHE_DIR", str(tmp_path / "results"))
    pace = P.Pace.from_env()
    assert pace.path == tmp_path / "results" / P.PACE_FILE and len(pace) == 0
    pace.record(_plan(), 30.0, slow=2.0)                # 30 / (10 x 2): 1.5
    pace.record(_plan("views", "mixed"), 5.0)           # 0.5
    again = P.Pace.from_env()                           # a new server on the same folder
    assert len(again) == 2
    assert again.factor("compare", "model") == pytest.approx(1.5)
    assert again.factor("views", "mixed") == pytest.approx(0.5)
    # bounded: only the newest HISTORY ratios are written and read back
    small = P.Pace(history=3, path=tmp_path / "p.json")
    for took in (10.0, 20.0, 30.0, 40.0, 50.0):
        small.record(_plan(), took)
    assert [r for _, _, r in P.load_ratios(tmp_path / "p.json")] == [3.0, 4.0, 5.0]
    # switched off: memory only
    monkeypatch.setenv("RMSC_CACHE_DIR", "off")
    assert P.Pace.from_env().path is None


@pytest.mark.parametrize("text", [
    b"{not json",
    b"\xff\xfe\x00",
    b'["a list"]',
    b'{"magic": "rmsc-result", "schema": 1, "ratios": []}',
    b'{"magic": "rmsc-pace", "schema": 99, "ratios": []}',
    b'{"magic": "rmsc-pace", "schema": 1, "ratios": [["compare", "model", NaN]]}',
    b'{"magic": "rmsc-pace", "schema": 1, "ratios": [["compare", "model", 1e9]]}',
    b'{"magic": "rmsc-pace", "schema": 1, "ratios": [["compare", "model", true]]}',
    b'{"magic": "rmsc-pace", "schema": 1, "ratios": [["compare", 3, 1.0]]}',
    b'{"magic": "rmsc-pace", "schema": 1, "ratios": [["compare", "model"]]}',
    b'{"magic": "rmsc-pace", "schema": 1, "ratios": {"__import__": "os"}}',
])
def test_a_damaged_pace_file_is_ignored_with_a_log_line(tmp_path, caplog, text):
    path = tmp_path / P.PACE_FILE
    path.write_bytes(text)
    with caplog.at_level("WARNING", logger="rmsc.dashboard"):
        pace = P.Pace(path=path)
    assert len(pace) == 0 and pace.factor("compare") == 1.0
    assert "ignored the learned pace" in caplog.text
    pace.record(_plan(), 20.0)                          # and the next record replaces it
    assert P.load_ratios(path) == [("compare", "model", 2.0)]


def test_a_pace_file_too_large_is_not_read(tmp_path, caplog):
    path = tmp_path / P.PACE_FILE
    path.write_text('{"magic": "rmsc-pace", "schema": 1, "ratios": []}' + " " * (1 << 20))
    with caplog.at_level("WARNING", logger="rmsc.dashboard"):
        assert P.load_ratios(path) == []
    assert "more than" in caplog.text
