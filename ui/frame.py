"""The frame every page is drawn in: page configuration, navigation, sidebar, URL.

``app.py`` calls :func:`navigation` on every run and runs the page it returns; every page
starts with :func:`page_setup` (the frame once more when Streamlit ran the page's file
alone). Every state change happens in widget callbacks, which run before the script, so
drawing the frame first shows the state the page will show.
"""

from __future__ import annotations

import logging

import streamlit as st

from rmsc import dashboard as dash

from . import lesson, runtime
from .caches import RESULT_CACHE_BYTES
from .fitting import (
    ensure_fit,
    failed_job_message,
    fit_blocker,
    fit_outcome,
    page_polls,
    redraw_when_done,
)
from .state import data, init_session, show_messages, sync_query_params, track_session

log = logging.getLogger("rmsc.dashboard")
ss = st.session_state

#: The sidebar's fit status is a summary: asked less often.
STATUS_POLL_SECONDS = 1.0


def server_limits():
    """The server's limits in one line (workers, memory, results kept, upload size)."""
    try:
        return dash.workers.describe_limits(dash.running_workers(), RESULT_CACHE_BYTES,
                                            st.get_option("server.maxUploadSize"))
    except Exception:  # noqa: BLE001 - the cluster is unreachable: the jobs will say so
        return "The worker processes cannot be reached."


@st.cache_resource(show_spinner=False)
def fit_device():
    """Where the fits run (``RMSC_DEVICE``, resolved once per server: probing for a GPU
    imports torch or CuPy when installed)."""
    return dash.device_text()


#: The Lesson page's folded sidebar section holding the machine's lines.
MACHINE_EXPANDER = "This machine (where the fits run)"


def sidebar(on_lesson=False):
    """The sidebar of every page: the dataset, the parameters, the fit's status, the limits.

    On the Lesson page the lines about the machine (the device, the workers, the limits),
    which say nothing about the lesson, are folded into a closed expander at the end."""
    with st.sidebar:
        st.markdown("### Dataset")
        rows = dash.dataset_summary(data())
        st.markdown("\n".join(f"- **{k}**: {v}" for k, v in rows))
        if ss.outliers is not None:
            st.caption(f"Injected: {ss.outliers.summary()}")
        st.markdown("### Parameters")
        try:
            lines = ss.params.summary()
        except ValueError as exc:
            lines = [str(exc)]
        st.markdown("\n".join(f"- {line}" for line in lines))
        if on_lesson:
            fit_status()
            with st.expander(MACHINE_EXPANDER, expanded=False):
                st.caption(f"Fits run on: {fit_device()}")
                st.caption(server_limits())
            return
        st.caption(f"Fits run on: {fit_device()}")
        fit_status()
        st.caption(server_limits())


def _fit_status_body():
    log.debug("fragment status")
    out, job = fit_outcome()
    if job is not None and job.active:
        snap = job.snapshot()
        text = f"RMSC running — {snap.message or 'starting'} ({snap.elapsed:.0f} s)"
        st.progress(snap.fraction, text=text)
        ss["_status_was_active"] = job.key
        return
    if ss.get("_status_was_active") is not None:
        # The run watched by this fragment has finished: redraw the whole page, when this
        # fragment runs alone. In a run of the whole page, the page drawn after the sidebar
        # sees the finished fit anyway, and a rerun would drop the click that started this
        # run (a button is True for one run only: Compare's Run clicked just after the fit
        # ended did nothing).
        ss["_status_was_active"] = None
        if not ss.get("_drawing_frame"):
            st.rerun()
    if isinstance(out, dash.FitResult):
        acc = ("" if out.scores is None
               else f", ACC {100 * out.scores['acc_mean']:.2f}%")
        st.success(f"Fitted on {out.device}: {out.n_iter} iterations, "
                   f"{out.fit_time + out.spectral_time:.1f} s{acc}")
    elif isinstance(out, dash.FitFailure):
        st.error("Fit failed (see Solve).")
    elif failed_job_message(job):
        st.error("Fit failed (see Solve).")
    elif fit_blocker():
        st.caption(fit_blocker())
    elif data() is not None:
        st.caption("Not fitted yet with these parameters.")


_fit_status_live = st.fragment(run_every=STATUS_POLL_SECONDS)(_fit_status_body)
_fit_status_static = st.fragment(_fit_status_body)


def fit_status():
    """The fit's status in the sidebar (polled by a fragment while it runs, unless the page
    has its own live view)."""
    st.markdown("### Fit")
    _, job = fit_outcome()
    redraw_when_done(job, "fit")  # e.g. a run adopted from another session
    if job is not None and job.active and not page_polls():
        ss["_sidebar_running"] = None  # its own fragment polls and redraws
        _fit_status_live()
    elif job is not None and job.active:
        # The page's own fragment polls: one poller per page, since every fragment run
        # costs the browser a redraw that the fit's CPU time pays for.
        st.caption("RMSC running — its progress is shown on this page.")
        ss["_sidebar_running"] = job.key  # see fit_outcome: redrawn if it ends meanwhile
    else:
        ss["_sidebar_running"] = None
        _fit_status_static()


PAGE_CONFIG = dict(page_title="RMSC explorer", page_icon="🕸️", layout="wide")


def pages():
    """Every page of the dashboard, for ``st.navigation`` (Data is the landing page; the
    Lesson comes first, and ``?lesson=N`` opens it)."""
    return [
        st.Page("pages/lesson.py", title=lesson.TITLE, icon=":material/co_present:"),
        st.Page("pages/data.py", title="Data", icon=":material/dataset:", default=True),
        st.Page("pages/solve.py", title="Solve", icon=":material/play_circle:"),
        st.Page("pages/weights.py", title="Weights", icon=":material/balance:"),
        st.Page("pages/affinity.py", title="Affinity", icon=":material/grid_on:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/leaderboard:"),
        st.Page("pages/sensitivity.py", title="Sensitivity", icon=":material/tune:"),
        st.Page("pages/theory.py", title="Theory", icon=":material/school:"),
    ]


def frame(title=None):
    """The shared frame of every page: session, background fit, sidebar, URL.

    Every state change happens in widget callbacks, which run before the
    script, so drawing the frame first shows the state the page will show.
    ``title``: the page about to be drawn.
    """
    ss._page_title = title
    init_session()
    on_lesson = title == lesson.TITLE
    lesson.enter(on_lesson)  # the step's state, before the fit starts and the sidebar shows it
    track_session()
    ensure_fit()
    ss._drawing_frame = True  # the sidebar's fragments run with the whole page
    try:
        sidebar(on_lesson)
    finally:
        ss._drawing_frame = False
    show_messages()
    sync_query_params(lesson.query() if on_lesson else None)
    ss._frame_count = ss.get("_frame_count", 0) + 1


def navigation():
    """The page's configuration, the navigation of every page and the frame; returns the
    page to run (what ``app.py`` does on every run)."""
    st.set_page_config(**PAGE_CONFIG)
    page = st.navigation(pages())
    if "_lesson_routed" not in ss:  # a session's first run: ?lesson=N opens the lesson
        ss._lesson_routed = True
        wanted = lesson.wanted_from_url()
        if wanted is not None:
            ss._lesson_from_url = wanted
            if page.title != lesson.TITLE:
                st.switch_page("pages/lesson.py", query_params=st.query_params.to_dict())
    frame(page.title)
    return page


def page_setup():
    """First call of every page: the frame is drawn in every run, even when Streamlit runs
    the page's file alone (:func:`ui.runtime.page_setup` says when and why)."""
    runtime.page_setup(navigation)


def intro(text):
    """The page's short explanation: what you see, what to try."""
    st.markdown(text)
