"""A long button's time on the page: the figure before, the ETA from the run's progress during, took against predicted after (AppTest)."""

import functools
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from rmsc import dashboard as dash
from rmsc.dashboard import estimates
from rmsc.dashboard import pace as P

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.usefixtures("steady_state_navigation", "fresh_caches")


def _gated(gate, fn, *args, job=None, **kwargs):
    """A part of a run that starts when the test opens its gate."""
    assert gate.wait(300), "the test never opened the gate"
    return fn(*args, job=job, **kwargs)


def _wait(condition, timeout=300):
    t0 = time.monotonic()
    while not condition():
        assert time.monotonic() - t0 < timeout, "the condition never held"
        time.sleep(0.05)


def _shown_durations(low, high, fn):
    """Every text ``fn`` gives over the seconds ``low`` to ``high``."""
    return {fn(x) for x in np.linspace(low, high, 200)}


def test_compare_says_its_time_before_during_and_after(monkeypatch):
    # others keep 2 threads busy (the threads runnable now)
    monkeypatch.setattr(P, "runnable_now", lambda *a, **k: 2.0)
    monkeypatch.setattr(estimates, "fastest_probe_seconds", lambda: 2e-3)  # steady figures
    monkeypatch.setattr(P, "fastest_probe_seconds", lambda: 2e-3)
    gates = [threading.Event() for _ in range(8)]
    real = dash.compare_parts

    def gated_parts(*args, **kwargs):
        parts = real(*args, **kwargs)
        for gate, part in zip(gates, parts.parts):
            part.fn = functools.partial(_gated, gate, part.fn)
        return parts

    monkeypatch.setattr(dash, "compare_parts", gated_parts)
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["data"] = "3-Sources"
    at.run()
    try:
        fit = at.session_state["slots"]["fit"].latest
        assert fit is not None and fit.wait(300)
        at.switch_page("pages/compare.py").run()
        assert not at.exception
        label = at.button(key="w_cmp_run").label
        assert label.startswith("Run 3 fits (about ") and label.endswith(" on this machine now)")
        # the parts one after another in the job's thread, so that the test knows which ended
        slot = at.session_state["slots"]["compare"]
        slot.sender = None
        at.button(key="w_cmp_run").click().run()
        key, planned, weights = at.session_state["_run_plans"]["compare"]
        assert f"({planned.text()} on this machine now)" in label  # what the button said
        assert planned.load == pytest.approx(2.0) and planned.high / planned.low <= 2.0
        job = slot.latest
        assert job.key == key
        # the first part ends; the others wait
        gates[0].set()
        _wait(lambda: job.snapshot().parts[:1] == (len(weights[0]),))
        before = job.snapshot().elapsed
        at.run()
        after = job.snapshot().elapsed
        assert not at.exception
        shown = " ".join(p.proto.text for p in at.get("progress"))
        snap = job.snapshot()
        fraction = P.done_fraction(weights, snap.parts, snap.done)
        assert fraction == pytest.approx(sum(weights[0]) / sum(map(sum, weights)))
        assert 0 < fraction < 1
        # the ETA is the one computed from that progress, at an elapsed time in between
        left = shown.split("in, about ", 1)[1].split(" left", 1)[0]
        assert left in _shown_durations(
            before, after + 1, lambda e: P.duration_text(P.eta(e, fraction, planned.seconds)))
        assert f"(predicted {planned.text()})" in shown
        # the rest runs; afterwards the page says what it took against the prediction
        for gate in gates:
            gate.set()
        assert job.wait(300)
        at.run()
        assert not at.exception
        took = [c.value for c in at.caption if c.value.startswith("Took ")]
        assert len(took) == 1 and took[0].endswith(f", predicted {planned.text()}.")
        seconds = took[0][len("Took "):].split(", predicted", 1)[0]
        end = job.snapshot().elapsed
        assert seconds in _shown_durations(end - 1, end + 5, P.duration_text)
        assert any("ACC %" in d.value.columns for d in at.dataframe)
    finally:
        for gate in gates:
            gate.set()
        for s in at.session_state["slots"].values():
            s.cancel()
