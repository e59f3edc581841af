"""Streamlit glue shared by the dashboard's pages: session state, caches, the frame.

Only composition lives here (widgets, session state, caching, calls into
``rmsc``); the logic is in :mod:`rmsc.dashboard` and the figures in
:mod:`rmsc.figures`, both tested without a browser.

Session state (survives page switches):

* ``clean`` — the dataset as loaded; ``data`` — the dataset the pages use
  (``clean`` plus injected outliers); ``outliers`` — the OutlierSpec or None.
* ``params`` — :class:`rmsc.dashboard.Params` of the current run.
* ``slots`` — one :class:`rmsc.dashboard.JobSlot` per kind of background work.
* ``autorun`` — fit automatically whenever the data or a parameter changes.
"""

from __future__ import annotations

import logging
import os
import weakref

import numpy as np
import streamlit as st

import rmsc
from rmsc import dashboard as dash
from rmsc import datasets

log = logging.getLogger("rmsc.dashboard")
if os.environ.get("RMSC_DASHBOARD_TRACE") and not log.handlers:
    # A timeline of script runs, fragment runs and background jobs (benchmarks/bench_dashboard.py)
    _handler = logging.FileHandler(os.environ["RMSC_DASHBOARD_TRACE"])
    _handler.setFormatter(logging.Formatter("%(created).3f %(threadName)s %(message)s"))
    log.addHandler(_handler)
    log.setLevel(logging.DEBUG)

DEFAULT_DATASET = "Digit"
#: How often a page showing a running job asks it for news (the live curve, progress bars).
POLL_SECONDS = 1.0
#: The sidebar's fit status is a summary: asked less often.
STATUS_POLL_SECONDS = 1.0
#: How often the Solve page looks at a fit still waiting for a free worker (its place).
QUEUE_POLL_SECONDS = 3.0

ss = st.session_state


# ---------------------------------------------------------------------------
# Data sources (the data layer's API, see BRIEF/DEVELOPERS)
# ---------------------------------------------------------------------------


def bundled_names():
    return list(datasets.bundled_names())


@st.cache_resource(max_entries=8, show_spinner=False)
def load_bundled(name):
    data = datasets.load_bundled(name)
    data.fingerprint  # computed once, shared by every session
    return data


# ---------------------------------------------------------------------------
# Session
# ---------------------------------------------------------------------------


#: What the server keeps of results for all sessions together (bounded LRU). Measured with
#: benchmarks/bench_load.py at 8 sessions: with 1 GB the server reached 1.55 GB; with 512 MB
#: the total (server and workers) peaked at 2,033 MB, over the 2 GB target; with 256 MB at
#: 1,832 MB (about ten Digit results are kept for going back).
RESULT_CACHE_ENTRIES = 24
RESULT_CACHE_BYTES = 256 << 20


@st.cache_resource(show_spinner=False)
def result_cache():
    """Fit results of every session, keyed on small values (bounded LRU)."""
    return dash.ResultCache(max_entries=RESULT_CACHE_ENTRIES, max_bytes=RESULT_CACHE_BYTES)


def server_limits():
    """The server's limits in one line (workers, memory, results kept, upload size)."""
    try:
        return dash.workers.describe_limits(dash.running_backend(), RESULT_CACHE_BYTES,
                                            st.get_option("server.maxUploadSize"))
    except Exception:  # noqa: BLE001 - the cluster is unreachable: the jobs will say so
        return "The worker processes cannot be reached."


@st.cache_resource(show_spinner=False)
def session_book():
    """Every session's job slots, swept every few seconds (rmsc.dashboard.sessions).

    A session disconnected for ``GRACE_SECONDS`` has its running work cancelled; when the
    last one has gone, the prefetch queue is dropped (and unjoined prefetches cancelled),
    the shared result cache is emptied, the workers drop the datasets
    they were sent and the server returns its freed heap to the OS.
    """
    book = dash.SessionBook()
    try:
        from streamlit.runtime import Runtime

        runtime = Runtime.instance()
    except Exception:  # noqa: BLE001 - no runtime (AppTest): nothing to sweep
        return book

    cache = result_cache()  # taken here, in a script run: on_idle runs in the sweeper's thread
    pre = prefetcher()

    def on_idle():
        pre.yield_workers()  # nobody is left to look at the next slider steps
        cache.clear()
        fitted_view_affinities.clear()
        backend = dash.running_backend()
        if backend is not None:
            backend.release_data()
        dash.trim_everywhere()

    dash.Sweeper(book, runtime.is_active_session, on_idle, on_quiet=dash.trim_everywhere,
                 on_tick=lambda: dash.release_expired_sessions(runtime, dash.trim_memory)).start()
    return book


def track_session():
    """Record this session's job slots with the server's :func:`session_book` (every run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        session_book().register(ctx.session_id, ss.slots.values())


@st.cache_resource(show_spinner=False)
def job_registry():
    """Unfinished background jobs of every session, so equal requests share one run."""
    return dash.JobRegistry()


def init_session():
    """First run of a session: defaults, then whatever the URL asks for.

    Only missing keys are filled, so a test may seed the session (e.g. a small
    dataset in ``clean`` and ``data``) before the first run.
    """
    if ss.get("_initialised"):
        return
    ss._initialised = True
    dash.workers.start_in_background()  # fits run on worker processes (rmsc.dashboard.workers)
    runner = dash.DaskRunner()  # the process's backend, started on first use
    ss.setdefault("slots", {name: dash.JobSlot(job_registry(), runner)
                            for name in ("fit", "compare", "sensitivity", "views",
                                         "suggest")})
    ss.setdefault("autorun", True)
    ss.setdefault("messages", [])
    query = st.query_params.to_dict()
    if "params" not in ss:
        params, problems = dash.Params.from_query(query)
        ss.params = params
        ss.messages.extend(problems)
    if "clean" in ss:
        ss.setdefault("data", ss.clean)
        ss.setdefault("outliers", None)
        return
    name = query.get("data", DEFAULT_DATASET)
    if name not in bundled_names():
        ss.messages.append(
            f"Ignored data={name!r} from the URL: only bundled datasets "
            f"({', '.join(bundled_names())}) can be opened from a link; showing {DEFAULT_DATASET}.")
        name = DEFAULT_DATASET
    try:
        set_dataset(load_bundled(name), keep_clusters=True)
    except ValueError as exc:
        ss.messages.append(str(exc))
        set_dataset(None)
    if "outliers" in query and ss.clean is not None:
        try:
            inject(dash.OutlierSpec.from_query(query["outliers"]))
        except (ValueError, ImportError, AttributeError) as exc:
            ss.messages.append(f"Ignored outliers={query['outliers']!r} from the URL: {exc}")


#: Widgets whose choices depend on the dataset (its views, its labels): they start again from
#: their defaults when the dataset changes, instead of keeping a choice the new data lack.
DATASET_WIDGETS = ("w_clusters", "w_out_views", "w_aff_view", "w_aff_order", "w_aff_kind",
                   "w_weights_order")


def set_dataset(data, keep_clusters=False):
    """Make ``data`` the current (clean) dataset; forget injected outliers.

    The number of clusters chosen for the previous data is forgotten too, unless
    ``keep_clusters`` (the first dataset of a session, whose c may come from the URL).
    """
    ss.clean = data
    ss.data = data
    ss.outliers = None
    if not keep_clusters and "params" in ss and ss.params.n_clusters is not None:
        ss.params = ss.params.replace(n_clusters=None)
    for key in DATASET_WIDGETS:
        ss.pop(key, None)


def inject(spec):
    """Inject outliers into the clean data (raises ValueError with a message)."""
    ss.data = spec.inject(ss.clean)
    ss.outliers = spec


def reset_outliers():
    ss.data = ss.clean
    ss.outliers = None


def data():
    return ss.get("data")


def params():
    return ss.params


def slot(name):
    return ss.slots[name]


def show_messages():
    """Messages queued for the next render (e.g. ignored URL parameters)."""
    for msg in ss.get("messages", []):
        st.warning(msg)
    ss.messages = []


# ---------------------------------------------------------------------------
# The fit of the current data and parameters
# ---------------------------------------------------------------------------


def fit_key():
    d = data()
    if d is None:
        return None
    try:
        return dash.fit_key(ss.params, d)
    except ValueError:
        return None


def fit_blocker():
    """Why no fit can start with the current data and parameters (e.g. c unknown), or None."""
    d = data()
    if d is None:
        return None
    try:
        dash.fit_key(ss.params, d)
    except ValueError as exc:
        return str(exc)
    return None


def not_fitted_message():
    """What to do when the current parameters have no result and no run under way."""
    blocker = fit_blocker()
    if blocker:
        return blocker
    if ss.get("autorun", True):
        return ("Not fitted with these parameters: the automatic run was cancelled or has not "
                "started. Press **Run** on the *Solve* page.")
    return ("Not fitted with these parameters yet: press **Run** on the *Solve* page (or "
            "switch on 'run automatically' there).")


def _fit_task(data, params, cache, book):
    """The fit as a task for a Dask worker; its result is cached here, in the server, and
    its duration recorded for the time estimates (:func:`cost_book`)."""
    def keep(out):
        if not (isinstance(out, dash.FitResult) and out.stopped_early):
            cache.put(out.key, out)
            dash.record_solve_fit(book, out, data)
        return out
    return dash.Remote(dash.fit_rmsc, data, params, after=keep)


#: Seconds an automatic fit waits before it starts: on a session's first page the page is
#: drawn first. After a change the fit starts at once: a newer change cancels it (within one
#: iteration), which costs less than making every change wait.
FIRST_FIT_DELAY = 3.0
CHANGE_FIT_DELAY = 0.0


# ---------------------------------------------------------------------------
# Finished background work redraws the page at once
# ---------------------------------------------------------------------------


def _session_rerunner():
    """A function that reruns this browser session's script from any thread, or None.

    Streamlit reruns a session this way itself when a source file changes
    (``runOnSave``): ``AppSession.request_rerun`` with the session's last client
    state (its page and query string). Here a finished fit does, so its result
    is on screen at once instead of at the next poll of a fragment (up to
    ``POLL_SECONDS`` later; polling faster costs the fit CPU time, see
    ``benchmarks/bench_dashboard.py``). The request is made on the session's
    event loop (where the browser's own requests are handled, one at a time)
    and only while no script runs: a run under way may carry the browser's
    new widget values (a click, an upload) that a rerun requested now would
    drop. That run, or the page's polling fragment, shows the result instead.

    This reaches into Streamlit's runtime (``Runtime.get_app_session`` and the
    session's ``_event_loop``, ``_scriptrunner``, ``_client_state``); when any of
    it is missing (AppTest, another Streamlit version) this returns None and
    the pages' polling fragments pick results up as before.
    """
    try:
        from streamlit.runtime import Runtime
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        if ctx is None or not Runtime.exists():
            return None
        runtime = Runtime.instance()
        session_id = ctx.session_id
        session = runtime.get_app_session(session_id)
        if session is None or not all(hasattr(session, a) for a in (
                "_event_loop", "_scriptrunner", "_client_state", "request_rerun")):
            return None
    except Exception:  # noqa: BLE001 - an optimisation: polling still works without it
        return None

    def rerun_if_idle():  # on the session's event loop
        try:
            current = runtime.get_app_session(session_id)
            if current is not None and current._scriptrunner is None:
                current.request_rerun(current._client_state)
                log.debug("session %s rerun", session_id)
        except Exception:  # noqa: BLE001
            log.debug("could not rerun session %s", session_id, exc_info=True)

    def rerun():
        try:
            session._event_loop.call_soon_threadsafe(rerun_if_idle)
        except Exception:  # noqa: BLE001 - e.g. the loop has closed with the server
            log.debug("could not reach session %s", session_id, exc_info=True)

    return rerun


def redraw_when_done(job, slot_name):
    """Rerun this session's page as soon as ``job`` finishes (once per job and session).

    Only while the job is still what the session waits for (the newest of its
    slot), and not for a cancelled job (a newer one replaced it).
    """
    if job is None or not job.active:
        return
    watched = ss.setdefault("_redraw_watched", weakref.WeakSet())
    if job in watched:
        return
    rerun = _session_rerunner()
    if rerun is None:
        return
    watched.add(job)
    s = slot(slot_name)

    def finished(j):
        if j.state != dash.CANCELLED and s.latest is j:
            log.debug("job %s finished: rerun the session if idle", j.label)
            rerun()

    job.add_done_callback(finished, call_if_done=False)


def page_polls():
    """True on pages that watch a running fit with a polling fragment of their own."""
    return ss.get("_page_title") in LIVE_PAGES


#: Pages with their own live view of a running fit (the sidebar's status does not poll there).
LIVE_PAGES = ("Solve", "Weights", "Affinity")


def ensure_fit(force=False):
    """Start (or queue) the fit of the current data and parameters when needed.

    Runs when nothing is cached for the current key and autorun is on (or
    ``force``, the Run button, which starts at once). A run under way for
    other parameters is cancelled. Pages that show the result call
    :func:`fit_outcome`, which cuts the start delay short.
    """
    key = fit_key()
    if key is None:
        return None
    cache = result_cache()
    s = slot("fit")
    if not force:
        if key in cache or not ss.autorun:
            if key in cache and ss.autorun:
                _prefetch_neighbours(cache)
            return s.latest if s.latest_key == key else None
        if s.latest_key == key and s.latest.state != dash.CANCELLED:
            return s.latest
    delay = 0.0 if force else (CHANGE_FIT_DELAY if ss.get("_fitted_once") else FIRST_FIT_DELAY)
    ss._fitted_once = True
    prefetcher().yield_workers(keep=key)  # a fit asked for comes before fits guessed at
    task = _fit_task(data(), ss.params, cache, cost_book())
    job = s.submit(key, task, label="fit", force=True,
                   delay=delay, min_delay=0.0 if force else CHANGE_FIT_DELAY)
    redraw_when_done(job, "fit")
    return job


@st.cache_resource(show_spinner=False)
def prefetcher():
    """The server's :class:`rmsc.dashboard.Prefetcher` (fits one slider step away)."""
    cache = result_cache()
    return dash.Prefetcher(job_registry(), dash.running_backend, cached=cache.__contains__)


def _prefetch_neighbours(cache):
    """While the current result is on screen, fit the settings one slider step away on
    idle workers (nothing is started when every worker has work)."""
    d = data()
    candidates = []
    for p in dash.slider_neighbours(ss.params):
        try:
            key = dash.fit_key(p, d)
        except ValueError:
            continue
        if key not in cache:
            candidates.append((key, _fit_task(d, p, cache, cost_book())))
    if candidates:
        prefetcher().prefetch(candidates)


def fit_outcome(hurry=False):
    """(outcome, job) for the current key: outcome is a FitResult, FitFailure or None.

    ``hurry``: the page shows this result, so a fit still waiting to start starts now.
    """
    key = fit_key()
    if key is None:
        return None, None
    s = slot("fit")
    job = s.latest if s.latest_key == key else None
    if hurry and job is not None and job.active:
        job.hurry()
    out = result_cache().get(key)
    if out is None and job is not None and not job.active and job.result is not None:
        out = job.result  # a stopped run: shown, not cached
    if out is not None and ss.get("_sidebar_running") == key:
        # The sidebar of this run said "running" (drawn before the page), and the fit has
        # finished since: nothing else would redraw it, so the page runs once more.
        ss["_sidebar_running"] = None
        st.rerun()
    return out, job


def failed_job_message(job):
    if job is not None and job.state == dash.FAILED:
        return job.error
    return None


def require_data():
    """Stop the page with a message when no dataset is loaded."""
    if data() is None:
        st.info("No dataset is loaded. Open the **Data** page and load one (Digit is bundled).")
        st.stop()
    return data()


def require_result(what="This page"):
    """The current fit result, or a message (running / failed / not run) and None."""
    out, job = fit_outcome(hurry=True)
    if isinstance(out, dash.FitResult):
        return out
    if isinstance(out, dash.FitFailure):
        st.error(f"The fit with the current parameters failed: {out.message}")
        st.caption("Change the parameters on the **Solve** page.")
        return None
    msg = failed_job_message(job)
    if msg:
        st.error(f"The fit with the current parameters failed: {msg}")
        return None
    if job is not None and job.active:
        _fit_wait(what)
        return None
    st.info(f"{what} shows a fitted model. {not_fitted_message()}")
    return None


def _fit_wait_body(what):
    _, job = fit_outcome()
    if job is None or not job.active:
        st.rerun()  # finished: draw the page with the result
    snap = job.snapshot()
    st.info(f"{what} fills in when RMSC finishes (it runs in the background; the *Solve* page "
            "shows its live objective curve).")
    st.progress(snap.fraction, text=f"{snap.message or 'starting'} — {snap.elapsed:.0f} s")


_fit_wait = st.fragment(run_every=POLL_SECONDS)(_fit_wait_body)


# ---------------------------------------------------------------------------
# The frame: sidebar and URL
# ---------------------------------------------------------------------------


def sidebar():
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
        # The run watched by this fragment has finished: redraw the whole page.
        ss["_status_was_active"] = None
        st.rerun()
    if isinstance(out, dash.FitResult):
        acc = ("" if out.scores is None
               else f", ACC {100 * out.scores['acc_mean']:.2f}%")
        st.success(f"Fitted: {out.n_iter} iterations, "
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


def sync_query_params():
    """Reflect the dataset, outliers and parameters in the URL (shareable)."""
    query = dict(ss.params.to_query())
    clean = ss.get("clean")
    if clean is not None and clean.name in bundled_names() and clean.name != DEFAULT_DATASET:
        query["data"] = clean.name
    if ss.get("outliers") is not None:
        query.update(ss.outliers.to_query())
    if st.query_params.to_dict() != query:
        st.query_params.from_dict(query)


# ---------------------------------------------------------------------------
# Pages and the frame
# ---------------------------------------------------------------------------

PAGE_CONFIG = dict(page_title="RMSC explorer", page_icon=":material/hub:", layout="wide")


def pages():
    """Every page of the dashboard, for ``st.navigation`` (Data is the landing page)."""
    return [
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
    track_session()
    ensure_fit()
    sidebar()
    show_messages()
    sync_query_params()
    ss._frame_count = ss.get("_frame_count", 0) + 1


def page_setup():
    """First call of every page: make sure the frame was drawn in this run.

    ``app.py`` draws it before running the page. Streamlit also runs a file of
    ``pages/`` on its own when it takes the legacy pages-directory path (the
    first run of a server opened on a page's URL, and AppTest's reruns); then
    the page registers the real navigation and draws the frame itself.

    The first such run of a session is rerun at once, before the page draws a widget:
    Streamlit derives a widget's id from the script that draws it, so a button drawn by
    the page file alone has another id than the same button drawn through ``app.py``'s
    navigation. A click on it that arrives after the navigation took over (a click in the
    first second or two of a visit opened on the page's URL) was dropped: no run started
    and nothing said so (issue 18; ``tests/test_browser.py`` clicks Compare's and
    Sensitivity's Run at once after load).
    """
    if "_frame_count" not in ss or ss._frame_count == ss.get("_frame_seen"):
        st.set_page_config(**PAGE_CONFIG)
        frame(st.navigation(pages()).title)
        if not ss.get("_legacy_rerun"):
            ss._legacy_rerun = True
            ss._frame_seen = ss._frame_count
            st.rerun()  # draw the page through the navigation: its widgets keep their ids
    ss._frame_seen = ss._frame_count


def intro(text):
    """The page's short explanation: what you see, what to try."""
    st.markdown(text)


# ---------------------------------------------------------------------------
# Cached computations of the pages (small keys, bounded)
# ---------------------------------------------------------------------------


@st.cache_data(max_entries=64, show_spinner=False)
def projection(fingerprint, view, _data):
    coords, explained = dash.project_2d(_data.views[view])
    return coords.astype(np.float32), explained


@st.cache_data(max_entries=16, show_spinner=False)
def data_notes(fingerprint, _data):
    return dash.data_notes(_data)


@st.cache_resource(max_entries=24, show_spinner=False)
def view_affinity(fingerprint, view, _data):
    return dash.view_affinity(_data.views[view])


@st.cache_resource(max_entries=4, show_spinner="Forming every view's Zᵛ at the fitted consensus…")
def fitted_view_affinities(key, _result, _data, _orders):
    """Every view's pooled (|Zᵛ|+|Zᵛᵀ|)/2 for the fit ``key`` (both orders at once).

    Formed on a worker (n x n per view), the page waits for it; a failure (the memory
    guard, a worker that died) is a ValueError with the job's message.
    """
    job = dash.Job(("views-zv", key), dash.Remote(dash.dataset_view_affinities, _result.model,
                                                  _data, _orders),
                   label="views' Zᵛ", runner=dash.DaskRunner()).start()
    job.wait()
    if job.state != dash.DONE:
        raise ValueError(job.error or "the computation was cancelled; reload the page.")
    return job.result


@st.cache_data(max_entries=32, show_spinner=False)
def embedding_2d(key, _embedding):
    coords, _ = dash.project_2d(_embedding)
    return coords.astype(np.float32)


def rmsc_version():
    return rmsc.__version__


# ---------------------------------------------------------------------------
# Experiments on demand (Compare, Sensitivity): background job + cached result
# ---------------------------------------------------------------------------


def experiment_state(slot_name, key):
    """(result or None, job or None) of the experiment ``key`` in ``slot_name``."""
    s = slot(slot_name)
    job = s.latest if s.latest_key == key else None
    return result_cache().get(key), job


@st.cache_resource(show_spinner=False)
def cost_book():
    """Measured durations of the server's fits, for the time estimates on the buttons."""
    return dash.CostBook()


def start_experiment(slot_name, key, remote, label, record=None):
    """Run ``remote`` (a :class:`rmsc.dashboard.Remote`) on a worker; cache its result.

    ``record(book, result)`` stores the run's fit durations in :func:`cost_book`."""
    cache, book = result_cache(), cost_book()

    def after(result):
        if record is not None:
            record(book, result)
        return cache.put(key, result)

    remote.after = after
    job = slot(slot_name).submit(key, remote, label=label, force=True)
    redraw_when_done(job, slot_name)
    return job


def _experiment_progress_body(slot_name):
    job = slot(slot_name).latest
    if job is None or not job.active:
        st.rerun()
    snap = job.snapshot()
    text = f"{snap.message or 'starting'} — {snap.done} of {snap.total or '?'} fits, " \
           f"{snap.elapsed:.0f} s"
    st.progress(snap.fraction, text=text)
    st.button("Cancel", on_click=slot(slot_name).cancel, key=f"cancel_{slot_name}")


_experiment_progress = st.fragment(run_every=POLL_SECONDS)(_experiment_progress_body)


def experiment_panel(slot_name, key):
    """Progress while the experiment runs; its error if it failed. Returns its result or None."""
    result, job = experiment_state(slot_name, key)
    if result is not None:
        return result
    if job is not None and job.active:
        _experiment_progress(slot_name)
    elif job is not None and job.state == dash.FAILED:
        st.error(job.error)
    elif job is not None and job.state == dash.CANCELLED:
        st.info("Cancelled.")
    return None
