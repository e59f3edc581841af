"""The fit of the current data and parameters: started when needed, waited for, shown.

The frame calls :func:`ensure_fit` on every run: the fit of the session's data and
:class:`rmsc.dashboard.Params` starts (or joins a run under way, or is found in the shared
result cache) on a Dask worker; :func:`fit_outcome` is what a page shows; a finished fit
redraws the page at once (:func:`redraw_when_done`). While a new fit runs, a page shows
the previous result of the same data dimmed (:func:`previous_result`,
:func:`stale_banner`). While a result is on screen, the fits one slider step away run on
idle workers (the prefetcher).
"""

from __future__ import annotations

import contextlib
import logging
import weakref

import streamlit as st

from rmsc import dashboard as dash

from .caches import cost_book, pace, prefetcher, result_cache
from .runtime import session_rerunner
from .state import data, slot

log = logging.getLogger("rmsc.dashboard")
ss = st.session_state

#: How often a page showing a running job asks it for news (the live curve, progress bars)
#: while the job is young (:func:`rmsc.dashboard.live_poll_seconds`).
POLL_SECONDS = dash.LIVE_POLL_SECONDS
#: How often the Solve page looks at a fit still waiting for a free worker (its place).
QUEUE_POLL_SECONDS = 3.0


def _fit_request():
    """``(key, estimator kwargs)`` of the fit of the current data and parameters
    (:func:`rmsc.dashboard.fit_request`), or None when no fit is possible."""
    d = data()
    if d is None:
        return None
    try:
        return dash.fit_request(ss.params, d)
    except ValueError:
        return None


def fit_key():
    """The cache key of the fit of the current data and parameters (None: none possible)."""
    request = _fit_request()
    return None if request is None else request[0]


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


def _fit_task(data, params, request, cache, book, speed=None):
    """The fit as a task for a Dask worker (``request``: its key and the estimator's
    arguments, :func:`rmsc.dashboard.fit_request`); its result is cached here, in the
    server, and its duration recorded for the time estimates (:func:`cost_book`,
    :func:`pace`)."""
    speed = pace() if speed is None else speed
    def keep(out):
        if not (isinstance(out, dash.FitResult) and out.stopped_early):
            cache.put(out.key, out)
            dash.learn_from_fit(speed, book, out, data, dash.worker_slots()["cores"])
        return out
    return dash.Remote(dash.fit_rmsc, data, params, request=request, after=keep)


#: Seconds an automatic fit waits before it starts: on a session's first page the page is
#: drawn first. After a change the fit starts at once: a newer change cancels it (within one
#: iteration), which costs less than making every change wait.
FIRST_FIT_DELAY = 3.0
CHANGE_FIT_DELAY = 0.0


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
    rerun = session_rerunner()
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


def ensure_fit(force=False, request=None):
    """Start (or queue) the fit of the current data and parameters when needed.

    Runs when nothing is cached for the current key and autorun is on (or
    ``force``, the Run button, which starts at once). A run under way for
    other parameters is cancelled. Pages that show the result call
    :func:`fit_outcome`, which cuts the start delay short. ``request``: the fit's
    ``(key, kwargs)`` (:func:`rmsc.dashboard.fit_request`) when the caller has just
    computed it with the parameters it set (the Solve page's widgets,
    :func:`rmsc.dashboard.apply_widgets`); the frame's call then finds the fit under way.
    """
    request = _fit_request() if request is None else request
    if request is None:
        return None
    key = request[0]
    cache = result_cache()
    s = slot("fit")
    if not force:
        if key in cache or not ss.autorun:
            if key in cache and ss.autorun:
                _prefetch_neighbors(cache)
            return s.latest if s.latest_key == key else None
        if s.latest_key == key and s.latest.state != dash.CANCELLED:
            return s.latest
    delay = 0.0 if force else (CHANGE_FIT_DELAY if ss.get("_fitted_once") else FIRST_FIT_DELAY)
    ss._fitted_once = True
    task = _fit_task(data(), ss.params, request, cache, cost_book())
    # the user's own fit: the latest request wins, what nobody waits for any more is
    # cancelled, a prefetch of the same key under way is joined
    job = dash.request_user_fit(s, key, task, prefetcher=prefetcher(), label="fit",
                                force=True, delay=delay,
                                min_delay=0.0 if force else CHANGE_FIT_DELAY)
    redraw_when_done(job, "fit")
    return job


def _prefetch_neighbors(cache):
    """While the current result is on screen, fit the settings one slider step away on
    idle workers (nothing is started when every worker has work)."""
    d = data()
    prefetch_fits([(d, p) for p in dash.slider_neighbors(ss.params)], cache)


def prefetch_fits(pairs, cache=None):
    """Fit each ``(dataset, Params)`` of ``pairs`` not yet cached, in order, on idle workers
    (a slider's neighbours, the lesson's other steps); replaces the prefetch queue."""
    cache = result_cache() if cache is None else cache
    candidates = []
    for d, p in pairs:
        try:
            request = dash.fit_request(p, d)
        except ValueError:
            continue
        if request[0] not in cache:
            candidates.append((request[0], _fit_task(d, p, request, cache, cost_book())))
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
    if isinstance(out, dash.FitResult):
        ss._last_fit_key = key  # shown (dimmed) while the next fit of these data runs
    if out is not None and ss.get("_sidebar_running") == key:
        # The sidebar of this run said "running" (drawn before the page), and the fit has
        # finished since: nothing else would redraw it, so the page runs once more.
        ss["_sidebar_running"] = None
        st.rerun()
    return out, job


def previous_result():
    """While a fit of the current parameters runs: the last result this session was shown
    for the same data (a :class:`rmsc.dashboard.FitResult`, still kept), else None."""
    key, last = fit_key(), ss.get("_last_fit_key")
    if key is None or last is None or last == key or last[:2] != key[:2]:
        return None  # none yet, the current one, or a fit of other data (key[1]: fingerprint)
    out = result_cache().get(last)
    return out if isinstance(out, dash.FitResult) else None


def _setting(params):
    return f"λ = {params.resolved_lam:g}, β = {params.beta_text}"


#: The keyed container that says a newer fit runs; everything after it in its block (the
#: previous result) is dimmed until that fit ends and the page is drawn again.
STALE_KEY = "rmsc_stale"
_STALE_CSS = (f"<style>div:has(> .st-key-{STALE_KEY}) ~ div {{opacity: 0.45; "
              "filter: grayscale(0.6); transition: opacity 0.3s;}</style>")


def stale_banner(previous, progress):
    """The previous result is about to be drawn while the fit of the current parameters
    runs: say so, draw ``progress()`` (a fragment polling the fit) and dim what follows."""
    st.markdown(_STALE_CSS, unsafe_allow_html=True)
    with st.container(key=STALE_KEY):
        st.caption(f"Running for {_setting(ss.params)}. Below, dimmed: the previous result "
                   f"({previous.params.method}, {_setting(previous.params)}) until the new "
                   "one is ready.")
        progress()


def failed_job_message(job):
    """The error of a job that failed (in the pages' words), else None."""
    if job is not None and job.state == dash.FAILED:
        return dash.page_words(job.error)
    return None


def require_data():
    """Stop the page with a message when no dataset is loaded."""
    if data() is None:
        st.info("No dataset is loaded. Open the **Data** page and load one (Digit is bundled).")
        st.stop()
    return data()


@contextlib.contextmanager
def stored_reads(which="current"):
    """Around a page's reads of a result that may come from the disk cache, whose large
    arrays (P, Z*, the affinity, the embedding...) are read when first touched: one found
    damaged then (:class:`rmsc.dashboard.CorruptEntry`; the store has discarded the entry and
    the memory cache forgotten the result) ends this run instead of a traceback. The next
    run says what happened and what follows (:func:`rmsc.dashboard.damaged_result_message`
    of ``which``: "current", "previous" or "clean"); the fit of the current settings, a miss
    now, starts again as any miss does. The dataset and the parameters are kept."""
    try:
        yield
    except dash.CorruptEntry:
        message = dash.damaged_result_message(which, ss.get("autorun", True))
        messages = ss.setdefault("messages", [])
        if message not in messages:
            messages.append(message)  # shown by the frame of the next run
        st.rerun()


def _whole(result, which="current"):
    """``result`` with the large arrays a result read from disk leaves unread until touched
    (Z*, the affinity) read now, for the pages that draw them (:func:`stored_reads`)."""
    with stored_reads(which):
        return dash.read_all(result)


def guarded_download(label, make):
    """``make`` as a download button's ``data`` (made when clicked), safe from a stored result
    found damaged then (:class:`rmsc.dashboard.DownloadGuard`): the result is discarded and
    forgotten, this session's page runs again (the fit starts again, as for any miss) and
    says why the download failed (:func:`download_failures`)."""
    guard = ss.setdefault("_download_guard", dash.DownloadGuard())
    return guard.maker(label, make, after=session_rerunner())


def download_failures():
    """Say which downloads found their stored result damaged since the last run, and what to
    do (:func:`guarded_download`)."""
    guard = ss.get("_download_guard")
    for label in guard.take() if guard is not None else ():
        st.warning(dash.damaged_download_message(label, ss.get("autorun", True)))


def require_result(what="This page"):
    """The current fit result, or a message (running / failed / not run) and None."""
    out, job = fit_outcome(hurry=True)
    if isinstance(out, dash.FitResult):
        return _whole(out)
    if isinstance(out, dash.FitFailure):
        st.error(f"The fit with the current parameters failed: {out.message}")
        st.caption("Change the parameters on the **Solve** page.")
        return None
    msg = failed_job_message(job)
    if msg:
        st.error(f"The fit with the current parameters failed: {msg}")
        return None
    if job is not None and job.active:
        previous = previous_result()
        if previous is None:
            _fit_wait(what)
            return None
        stale_banner(previous, lambda: _fit_wait(what, stale=True))
        return _whole(previous, "previous")
    st.info(f"{what} shows a fitted model. {not_fitted_message()}")
    return None


def _fit_wait_body(what, stale=False):
    _, job = fit_outcome()
    if job is None or not job.active:
        st.rerun()  # finished: draw the page with the result
    snap = job.snapshot()
    if not stale:
        st.info(f"{what} fills in when RMSC finishes (it runs in the background; the *Solve* "
                "page shows its live objective curve).")
    st.progress(snap.fraction, text=f"{snap.message or 'starting'} — {snap.elapsed:.0f} s")


_fit_wait = st.fragment(run_every=POLL_SECONDS)(_fit_wait_body)
