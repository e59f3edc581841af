"""What the AppTest tests of the pages share (``tests/app/``, and the dataset, registry and
store tests that open the app): opening the app on a page as a URL would, waiting for the
fit, reading tables and texts, moving β as a user does, and the fit the library computes
for the same parameters."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

import rmsc
from rmsc import dashboard as dash

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def open_app(query=None, page=None, timeout=120):
    at = AppTest.from_file(APP, default_timeout=timeout)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    if page:
        at.switch_page(f"pages/{page}.py").run()
    return at


def goto(at, page):
    return at.switch_page(f"pages/{page}.py").run()


def wait_fit(at, timeout=300):
    """Wait for the background fit of the current parameters, then redraw."""
    job = at.session_state["slots"]["fit"].latest
    if job is not None:
        assert job.wait(timeout), "the fit did not finish"
    return at.run()


def find_table(at, *columns):
    """The first table on the page that has all ``columns``."""
    for d in at.dataframe:
        df = d.value
        if all(c in df.columns for c in columns):
            return df
    raise AssertionError(f"no table with columns {columns}")


def no_trouble(at):
    assert not at.exception, [e.value for e in at.exception]


def texts(at, kind):
    return [e.value for e in getattr(at, kind)]


def sidebar_text(at):
    return " ".join(m.value for m in at.sidebar.markdown)


def cancel_jobs(at):
    for s in at.session_state["slots"].values():
        s.cancel()


def set_beta(at, value):
    """Move β as a user does: "auto", or a fixed value (the way first, then its slider)."""
    if value == dash.AUTO:
        return at.radio(key="w_beta_mode").set_value(dash.AUTO).run()
    if at.session_state["params"].beta == dash.AUTO:
        at.radio(key="w_beta_mode").set_value(dash.FIXED).run()
    return at.select_slider(key="w_beta").set_value(value).run()


def expected_fit(params, data):
    est = rmsc.get_method(params.method, **dash.estimator_params(params, data))
    est.fit(list(data.views))
    return est, rmsc.evaluate_runs(data.labels, est.label_runs_)
