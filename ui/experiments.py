"""Experiments on demand (Compare, Sensitivity, the suggestion): a background job, a
progress panel, a cached result.

A page starts one with :func:`start_experiment` (a :class:`rmsc.dashboard.Remote` task in
one of the session's slots; its result goes to the shared result cache and its fits'
durations to the time estimates) and shows it with :func:`experiment_panel`.
"""

from __future__ import annotations

import streamlit as st

from rmsc import dashboard as dash

from .caches import cost_book, result_cache
from .fitting import POLL_SECONDS, redraw_when_done
from .state import slot


def experiment_state(slot_name, key):
    """(result or None, job or None) of the experiment ``key`` in ``slot_name``."""
    s = slot(slot_name)
    job = s.latest if s.latest_key == key else None
    return result_cache().get(key), job


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
    text = f"{dash.page_words(snap.message) or 'starting'} — {snap.done} of " \
           f"{snap.total or '?'} fits, {snap.elapsed:.0f} s"
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
        st.error(dash.page_words(job.error))
    elif job is not None and job.state == dash.CANCELLED:
        st.info("Cancelled.")
    return None
