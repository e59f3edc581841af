"""Compare's post-processing without a browser (rmsc.dashboard.runs): each method's own
by default, the same for all on request, named in the caption and the sidebar; the latest
slider move wins."""


import pandas as pd
import pytest

import rmsc
from rmsc import dashboard as dash

from tests.support import THREAD_WAIT, ElsewhereSender, Gate, _wait_until


def test_compare_params_give_each_method_its_own_or_every_method_the_same_affinity(small):
    params = dash.Params(post="top_k+scale", top_k=7, beta=0.01)
    methods = ["RMSC", "RMSC-WV", "SSC-AVG", "DiMSC", "Co-Training"]
    assert list(dash.COMPARE_POSTPROCESSING)[0] == "own"  # the page's default
    own = dash.compare_params(params, small, methods)
    assert own == dash.compare_params(params, small, methods, postprocessing="own")
    assert own["SSC-AVG"]["scale_columns"] is False and own["SSC-AVG"]["top_k"] is None
    assert own["DiMSC"]["scale_columns"] is False
    # RMSC-WV (not the Solve page's method): everything as the registry builds it
    wv = rmsc.get_method("RMSC-WV").get_params()
    assert own["RMSC-WV"] == {k: wv[k] for k in own["RMSC-WV"]}
    assert own["RMSC-WV"]["scale_columns"] is True and own["RMSC-WV"]["placement"] == \
        wv["placement"]
    assert own["RMSC"]["top_k"] == 7  # the Solve page's method keeps its choice
    assert own["RMSC"]["beta"] == 0.01
    assert "Co-Training" not in own  # nothing the protocol would set otherwise
    assert dash.compare_params(params, small, methods, use_solve=False)["RMSC"]["top_k"] is None
    same = dash.compare_params(params, small, methods, postprocessing="same")
    for m in ("RMSC", "RMSC-WV", "SSC-AVG", "DiMSC"):
        assert {k: same[m][k] for k in ("keep_mass", "top_k", "scale_columns")} == \
            {"keep_mass": None, "top_k": 7, "scale_columns": True}, m
    assert "Co-Training" not in same  # no self-representation: nothing to set
    assert same["RMSC"]["beta"] == 0.01  # the Solve page's other settings stay
    with pytest.raises(ValueError, match="own, same"):
        dash.compare_params(params, small, methods, postprocessing="mine")


def test_compare_caption_speaks_only_of_the_methods_that_ran():
    assert dash.compare_caption(["RMSC", "SSC-AVG"]) == ""
    text = dash.compare_caption(["SSC-BSV", "RMSC"])
    assert text.startswith("SSC-BSV reports the best single view") and "SC-BSV and" not in text
    assert "'—'" not in text
    both = dash.compare_caption(["SC-BSV", "SSC-BSV", "MSC"])
    assert both.startswith("SC-BSV and SSC-BSV report ") and "'—'" in both


def test_sensitivity_settings_keep_the_solve_pages_placement_and_tolerance():
    p = dash.Params(placement=False, tol=1e-4)
    base = dash.sensitivity_settings(p, "RMSC")
    assert base["placement"] is None and base["tol"] == 1e-4
    assert dash.sensitivity_settings(dash.Params(), "RMSC")["placement"] == \
        rmsc.RMSC().placement


def test_postprocessing_used_names_what_each_row_ran():
    names = dash.POSTPROCESSING_NAMES
    # nothing said: the protocol's affinity, the paper's
    assert dash.postprocessing_used("SSC-AVG", {}) == names["none"]
    assert dash.postprocessing_used("RMSC", {"scale_columns": True}) == names["scale"]
    assert dash.postprocessing_used("RMSC", {"top_k": 5, "scale_columns": True}) == \
        names["top_k+scale"]
    assert dash.postprocessing_used("RMSC", {"keep_mass": 0.7, "scale_columns": True}) == \
        names["rho+scale"]
    assert dash.postprocessing_used("Co-Training", {}) == "—"
    for post in names:  # every choice of the Solve page reads back as itself
        p = dash.Params(post=post).postprocessing
        assert dash.postprocessing_used("DiMSC", p) == names[post]


def test_the_latest_move_wins_without_waiting_for_the_moves_before():
    """Three slider moves before any fit ends: the first two fits are cancelled (nobody
    waits for them) and the last starts at once, while their tasks are still at a step."""
    registry = dash.JobRegistry()
    slot = dash.JobSlot(registry, ElsewhereSender())
    gates = {k: Gate(steps=3) for k in "abc"}
    jobs = {}
    for k in "abc":
        jobs[k] = slot.submit(k, gates[k])
        _wait_until(lambda: slot.current is jobs[k] or slot.queued is jobs[k])
    for k in "ab":  # their tasks never got past their first step
        assert jobs[k].wait(THREAD_WAIT) and jobs[k].state == dash.CANCELLED and jobs[k].result is None
    _wait_until(lambda: slot.current is jobs["c"] and jobs["c"].active)
    gates["c"].go.release(3)
    assert jobs["c"].wait(THREAD_WAIT) and jobs["c"].state == dash.DONE and jobs["c"].result == 3
    assert slot.latest is jobs["c"] and len(registry) == 0
    # another session watching a fit keeps it going when this one moves on
    other = dash.JobSlot(registry, ElsewhereSender())
    gd = Gate(steps=1)
    d = slot.submit("d", gd)
    assert other.submit("d", Gate()) is d
    e = slot.submit("e", Gate(steps=1))
    assert not d.cancelled
    gd.go.release()
    e._task.go.release()
    assert d.wait(THREAD_WAIT) and d.state == dash.DONE and e.wait(THREAD_WAIT) and e.state == dash.DONE
    for g in gates.values():
        g.go.release(3)  # let the cancelled tasks end


def test_runs_in_parts_give_the_tables_of_the_runs_one_fit_after_another(small):
    """compare_parts, sensitivity_parts and views_parts: one part per group of fits that
    share a solve (SSC-AVG with SSC-BSV), the same tables as run_compare & co."""
    methods = ["RMSC", "RMSC-WV", "SSC-AVG", "SSC-BSV"]
    variants = {"clean": small,
                "noisy": dash.OutlierSpec(views=("A",), fraction=0.2).inject(small)}
    task = dash.compare_parts(variants, methods, None, 3)
    assert sorted(len(p.args[1]) for p in task.parts) == [1, 1, 1, 1, 2, 2]
    assert sum(p.share for p in task.parts) == pytest.approx(1.0)
    job = dash.Job("c", task).start()
    assert job.wait(120) and job.state == dash.DONE, job.error
    ref = dash.run_compare(variants, methods, None, 3)
    assert list(job.result) == list(ref) == ["clean", "noisy"]
    for name in ref:
        got, want = job.result[name], ref[name]
        assert got["method"].tolist() == want["method"].tolist()
        pd.testing.assert_frame_equal(got.drop(columns="fit_time"), want.drop(columns="fit_time"))
    assert (job.snapshot().done, job.snapshot().total) == (8, 8)
    job = dash.Job("s", dash.sensitivity_parts(small, [0.1, 1.0], [0.01, 0.1], "RMSC",
                                               {"max_iter": 5}, 0)).start()
    assert job.wait(120) and job.state == dash.DONE, job.error
    ref = dash.run_sensitivity(small, [0.1, 1.0], [0.01, 0.1], "RMSC", {"max_iter": 5}, 0)
    pd.testing.assert_frame_equal(job.result.drop(columns="fit_time"),
                                  ref.drop(columns="fit_time"))
    job = dash.Job("v", dash.views_parts(small, ["RMSC", "Co-Training"], None, 0)).start()
    assert job.wait(120) and job.state == dash.DONE, job.error
    ref = dash.run_views(small, ["RMSC", "Co-Training"], None, 0)
    pd.testing.assert_frame_equal(job.result.drop(columns="fit_time"),
                                  ref.drop(columns="fit_time"))


def test_the_sidebar_names_the_post_processing_as_the_solve_page_does():
    # one name per setting: the Solve page's select, the sidebar, `rmsc fit --scale-columns`
    assert dash.Params(post="scale").summary()[2] == "affinity post-processing: scale columns"
    assert dash.Params(post="top_k+scale", top_k=7).summary()[2] == \
        "affinity post-processing: top-7, then scale"
    assert dash.Params(post="rho+scale", keep_mass=0.5, placement=False).summary()[2] == \
        "affinity post-processing: ρ = 0.5, then scale; no placement of isolated samples"
