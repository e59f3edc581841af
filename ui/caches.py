"""What the server keeps for every session: its shared objects and the pages' caches.

``st.cache_resource`` objects are one per server (every session shares them): the result
cache, the job registry, the measured durations, the prefetcher, the session book and its
sweeper, the bundled datasets. ``st.cache_data`` ones are the pages' computations, keyed
on small values (a fingerprint, a fit's key: hashing big arrays would sample them).
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from rmsc import dashboard as dash
from rmsc import datasets, figures
from rmsc.preprocessing import spread_directions

from .runtime import start_sweeper


@st.cache_resource(max_entries=8, show_spinner=False)
def load_bundled(name):
    """A bundled dataset, loaded once for every session."""
    data = datasets.load_bundled(name)
    data.fingerprint  # computed once, shared by every session
    return data


#: What the server keeps of results for all sessions together (bounded LRU): the size that
#: keeps a class of 8 sessions within 2 GB, server and workers together
#: (docs/measurements.md, "The dashboard server's memory").
RESULT_CACHE_ENTRIES = 24
RESULT_CACHE_BYTES = 256 << 20


@st.cache_resource(show_spinner=False)
def result_cache():
    """Results of every session (fits, Compare, Sensitivity, suggestions), keyed on small
    values: a bounded LRU in memory over the folder on disk (``RMSC_CACHE_DIR``), which
    outlives the sessions and the server (docs/dashboard.md, "The result cache")."""
    return dash.open_result_cache(RESULT_CACHE_ENTRIES, RESULT_CACHE_BYTES)


@st.cache_resource(show_spinner=False)
def job_registry():
    """Unfinished background jobs of every session, so equal requests share one run."""
    return dash.JobRegistry()


@st.cache_resource(show_spinner=False)
def cost_book():
    """Measured durations of the server's fits, for the time estimates on the buttons."""
    return dash.CostBook()


@st.cache_resource(show_spinner=False)
def pace():
    """This server's measured speed: what its runs took against what was predicted, for the
    next predictions (:class:`rmsc.dashboard.Pace`), kept in the result cache's folder
    across restarts."""
    return dash.Pace.from_env()


@st.cache_resource(show_spinner=False)
def prefetcher():
    """The server's :class:`rmsc.dashboard.Prefetcher` (fits one slider step away)."""
    cache = result_cache()
    return dash.Prefetcher(job_registry(), dash.running_workers, cached=cache.__contains__)


@st.cache_resource(show_spinner=False)
def session_book():
    """Every session's job slots, swept every few seconds (rmsc.dashboard.sessions).

    A session disconnected for ``GRACE_SECONDS`` has its running work cancelled; when the
    last one has gone, the prefetch queue is dropped (and unjoined prefetches cancelled),
    the shared result cache's memory is emptied (its results stay on disk and answer the
    next session at once), the workers drop the datasets
    they were sent and the server returns its freed heap to the OS.
    """
    book = dash.SessionBook()
    cache = result_cache()  # taken here, in a script run: on_idle runs in the sweeper's thread
    pre = prefetcher()

    def on_idle():
        pre.yield_workers()  # nobody is left to look at the next slider steps
        cache.clear()
        fitted_view_affinities.clear()
        dask_workers = dash.running_workers()
        if dask_workers is not None:
            dask_workers.release_data()
        dash.trim_everywhere()

    start_sweeper(book, on_idle)  # none without a runtime (AppTest)
    return book


@st.cache_data(max_entries=64, show_spinner=False)
def projection(fingerprint, view, _data):
    """One view of the data in 2-D (PCA), and the variance each axis explains."""
    coords, explained = dash.project_2d(_data.views[view])
    return coords.astype(np.float32), explained


@st.cache_data(max_entries=16, show_spinner=False)
def data_notes(fingerprint, _data):
    """Plain-words remarks about views and samples that carry little information."""
    return dash.data_notes(_data)


@st.cache_data(max_entries=8, show_spinner=False)
def view_spread(fingerprint, _data):
    """How many directions each view of the data ``fingerprint`` spreads along
    (:func:`rmsc.preprocessing.spread_directions`: an eigen-decomposition per view, every
    view 0.04 s on Digit, 1.8 s on Reuter: docs/studies/dominance_message.py), computed
    once per server: why a dominant view is easy to rebuild (the Weights page's message,
    the lesson's step 6)."""
    return [spread_directions(X) for X in _data.views]


def dominant_spread(result, data):
    """:func:`view_spread` of ``data`` when one view carries most of ``result``'s weights
    (:func:`rmsc.dashboard.weight_dominance`), else None: the pages pass it to the
    dominance message, and compute it only where that message says why."""
    if dash.weight_dominance(result, data) is None:
        return None
    return view_spread(data.fingerprint, data)


@st.cache_resource(max_entries=24, show_spinner=False)
def view_affinity(fingerprint, view, _data):
    """One view's own k-NN graph."""
    return dash.view_affinity(_data.views[view])


@st.cache_resource(max_entries=4, show_spinner="Forming every view's Zᵛ at the fitted consensus…")
def fitted_view_affinities(key, _result, _data, _orders):
    """Every view's pooled (|Zᵛ|+|Zᵛᵀ|)/2 for the fit ``key`` (both orders at once).

    Formed on a worker (n x n per view), the page waits for it; a failure (the memory
    guard, a worker that died) is a ValueError with the job's message.
    """
    job = dash.Job(("views-zv", key), dash.Remote(dash.dataset_view_affinities, _result.model,
                                                  _data, _orders),
                   label="views' Zᵛ", sender=dash.DaskSender()).start()
    job.wait()
    if job.state != dash.DONE:
        raise ValueError(job.error or "the computation was cancelled; reload the page.")
    return job.result


def result_figures(result, view_names):
    """The Solve page's figures of the fit ``result``: its objective curve, its clustering
    along the iterations (None without a trace) and its views' mean weights; built once per
    result and server (a plotly figure takes longer to build than the rest of the page).

    Keyed on small values: the fit's key, and its iterations and time, which tell a run
    stopped early (shown, not cached) from the complete fit of the same key. The figures
    are shared, never changed (``st.plotly_chart`` reads them)."""
    return _result_figures((result.key, result.n_iter, result.fit_time), tuple(view_names),
                           result)


@st.cache_resource(max_entries=48, show_spinner=False)
def _result_figures(run, view_names, _result):
    r = _result
    objective = figures.objective_figure(list(zip(range(1, r.n_iter + 1), r.objective)),
                                         max_iter=r.params.max_iter)
    trace = (figures.clustering_trace_figure(r.trace, max_iter=r.params.max_iter)
             if r.trace else None)
    weights = figures.view_weights_figure(list(view_names), r.weights.mean(axis=1))
    return objective, trace, weights


@st.cache_data(max_entries=32, show_spinner=False)
def embedding_2d(key, _embedding):
    """A fit's spectral embedding in 2-D (PCA)."""
    coords, _ = dash.project_2d(_embedding)
    return coords.astype(np.float32)
