"""Experiments on demand (Compare, Sensitivity, the suggestion): a background job, a
progress panel, a cached result.

A page starts one with :func:`start_experiment` (a :class:`rmsc.dashboard.Remote` task in
one of the session's slots; its result goes to the shared result cache and its fits'
durations to the time estimates) and shows it with :func:`experiment_panel`: while it runs, an
ETA from its measured progress; afterwards, what it took against what its button predicted
(:mod:`rmsc.dashboard.pace`, which learns from it).
"""

from __future__ import annotations

import time

import streamlit as st

from rmsc import dashboard as dash

from .caches import cost_book, pace, result_cache
from .fitting import POLL_SECONDS, redraw_when_done
from .state import slot


def experiment_state(slot_name, key):
    """(result or None, job or None) of the experiment ``key`` in ``slot_name``."""
    s = slot(slot_name)
    job = s.latest if s.latest_key == key else None
    return result_cache().get(key), job


def run_plan(kind, estimate):
    """What a button says before its run (:func:`rmsc.dashboard.plan`): ``estimate`` (idle
    seconds) at this server's measured speed and the machine's load now."""
    return dash.plan(estimate, kind, pace(), cores=dash.worker_slots()["cores"])


def start_experiment(slot_name, key, remote, label, record=None, planned=None, weights=None):
    """Run ``remote`` (a :class:`rmsc.dashboard.Remote`) on a worker; cache its result.

    ``record(book, result)`` stores the run's fit durations in :func:`cost_book` (as idle
    seconds: divided by the load's slowdown meanwhile). ``planned``: the button's
    :func:`run_plan`, and ``weights``: its fits' (:func:`rmsc.dashboard.run_weights`), for
    the ETA while it runs and took against predicted after it (:func:`pace`)."""
    cache, book, speed = result_cache(), cost_book(), pace()
    cores = dash.worker_slots()["cores"]
    t0 = time.perf_counter()

    def after(result):
        dash.learn_from_run(speed, book, planned, time.perf_counter() - t0, cores, record,
                            result, key=key)
        return cache.put(key, result)

    remote.after = after
    job = slot(slot_name).submit(key, remote, label=label, force=True)
    st.session_state.setdefault("_run_plans", {})[slot_name] = (key, planned, weights)
    redraw_when_done(job, slot_name)
    return job


def _experiment_progress_body(slot_name):
    job = slot(slot_name).latest
    if job is None or not job.active:
        st.rerun()
    snap = job.snapshot()
    text = f"{dash.page_words(snap.message) or 'starting'} — {snap.done} of " \
           f"{snap.total or '?'} fits, "
    key, planned, weights = st.session_state.get("_run_plans", {}).get(
        slot_name, (None, None, None))
    if planned is not None and key == job.key:
        fraction = (dash.done_fraction(weights, snap.parts or None, snap.done) if weights
                    else snap.fraction)
        text += dash.eta_text(snap.elapsed, fraction, planned)
    else:
        text += f"{snap.elapsed:.0f} s"
    st.progress(snap.fraction, text=text)
    st.button("Cancel", on_click=slot(slot_name).cancel, key=f"cancel_{slot_name}")


_experiment_progress = st.fragment(run_every=POLL_SECONDS)(_experiment_progress_body)


def view_quality(data, params):
    """Each view clustered on its own (:func:`rmsc.dashboard.run_view_quality`, SC-BSV's
    per-view runs) for ``params`` on ``data``: started on a worker unless its result is in
    the cache or it is running already. Returns its key in the "quality" slot (the Weights
    page and the lesson's step 6 read the same run)."""
    key = dash.view_quality_key(params, data)
    result, job = experiment_state("quality", key)
    if result is None and job is None:
        start_experiment("quality", key, dash.Remote(dash.run_view_quality, data, params),
                         label="each view alone")
    return key


def experiment_panel(slot_name, key):
    """Progress while the experiment runs; its error if it failed. Returns its result or None."""
    result, job = experiment_state(slot_name, key)
    if result is not None:
        outcome = pace().outcome(key)
        if outcome is not None:
            text = dash.outcome_text(*outcome)
            st.caption(text[:1].upper() + text[1:] + ".")
        return result
    if job is not None and job.active:
        _experiment_progress(slot_name)
    elif job is not None and job.state == dash.FAILED:
        st.error(dash.page_words(job.error))
    elif job is not None and job.state == dash.CANCELLED:
        st.info("Cancelled.")
    return None


def robustness_columns(table):
    """``st.dataframe``'s column settings for :func:`rmsc.dashboard.robustness_table` (the
    Compare page and the lesson): two decimals, the change with its sign (+ gained, − lost)."""
    return {c: st.column_config.NumberColumn(
        format="%+.2f" if c == "change (points)" else "%.2f")
        for c in table.columns if c != "method"}


def outlier_columns():
    """``st.dataframe``'s column settings for :func:`rmsc.outliers.evaluate`'s table (the
    Weights page and the lesson): each column's words and tooltip
    (:data:`rmsc.dashboard.OUTLIER_COLUMNS`)."""
    return {c: st.column_config.NumberColumn(label, help=why,
                                             format="%.3f" if c != "outliers" else None)
            for c, (label, why) in dash.OUTLIER_COLUMNS.items()}
