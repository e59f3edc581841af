"""The dashboard's Streamlit half: what the pages (``app.py``, ``pages/``) compose with.

Only composition lives here (widgets, session state, caching, calls into ``rmsc``); the
logic is in :mod:`rmsc.dashboard` and the figures in :mod:`rmsc.figures`, both tested
without a browser. The pages use the names re-exported here (``ui.require_result``, ...).

===============  ===================================================================
``runtime``      everything past Streamlit's documented API, and why: a session redrawn
                 when its fit ends, gone sessions released, the legacy first run of a page
``caches``       what the server keeps for every session (result cache, job registry,
                 measured durations, prefetcher, session book) and the pages' caches
``state``        a session's state: data, parameters, job slots, messages, the URL
``fitting``      the fit of the current data and parameters: started, waited for, shown
``experiments``  Compare / Sensitivity / suggestion runs: start, progress panel, result
``lesson``       the guided lesson: which lesson and step, the step's state applied
``frame``        page configuration, navigation, sidebar and fit status, page setup
===============  ===================================================================

Imports go one way: runtime → caches → state → fitting → experiments → lesson → frame.
"""

import logging
import os

from .caches import (  # noqa: F401
    RESULT_CACHE_BYTES,
    RESULT_CACHE_ENTRIES,
    cost_book,
    pace,
    data_notes,
    dominant_spread,
    embedding_2d,
    fitted_view_affinities,
    job_registry,
    load_bundled,
    prefetcher,
    projection,
    result_cache,
    result_figures,
    session_book,
    view_affinity,
)
from .state import (  # noqa: F401
    DATASET_WIDGETS,
    dataset_widget_defaults,
    DEFAULT_DATASET,
    bundled_names,
    data,
    init_session,
    inject,
    params,
    reset_outliers,
    set_dataset,
    set_params,
    widget_values,
    slot,
)
from .fitting import (  # noqa: F401
    CHANGE_FIT_DELAY,
    FIRST_FIT_DELAY,
    LIVE_PAGES,
    POLL_SECONDS,
    QUEUE_POLL_SECONDS,
    download_failures,
    ensure_fit,
    failed_job_message,
    fit_blocker,
    fit_key,
    fit_outcome,
    guarded_download,
    not_fitted_message,
    previous_result,
    require_data,
    require_result,
    stale_banner,
    stored_reads,
)
from .experiments import (  # noqa: F401
    experiment_panel,
    experiment_state,
    outlier_columns,
    robustness_columns,
    run_plan,
    start_experiment,
    view_quality,
)
from .frame import (  # noqa: F401
    PAGE_CONFIG,
    frame,
    intro,
    navigation,
    page_setup,
    pages,
)

log = logging.getLogger("rmsc.dashboard")
if os.environ.get("RMSC_DASHBOARD_TRACE") and not log.handlers:
    # A timeline of script runs, fragment runs and background jobs (benchmarks/bench_dashboard.py)
    _handler = logging.FileHandler(os.environ["RMSC_DASHBOARD_TRACE"])
    _handler.setFormatter(logging.Formatter("%(created).3f %(threadName)s %(message)s"))
    log.addHandler(_handler)
    log.setLevel(logging.DEBUG)
