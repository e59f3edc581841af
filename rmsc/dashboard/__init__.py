"""The dashboard's logic that is not a figure: everything a page computes, tested without a browser.

The pages (``app.py``, ``ui/``, ``pages/``) only compose widgets, session state
and calls into this package and :mod:`rmsc.figures`. Nothing here imports
streamlit: background work receives plain objects and reports through
:class:`Job`, which a page reads from a ``st.fragment(run_every=...)``.

==================  ===============================================================
``params``          :data:`SETTINGS`, the table of RMSC's parameters as a page shows
                    them, and what is derived from it: :class:`Params` (defaults,
                    slider grids, URL round trip, checked against the estimator's
                    declared rules), what they mean to the estimator
                    (:func:`estimator_params`), the fit's cache key (:func:`fit_key`),
                    the Solve page's widget rules; :class:`OutlierSpec`
``fitting``         :func:`fit_rmsc`,
                    :class:`FitResult`, :class:`FitFailure`, :func:`diagnose`
``jobs``            :class:`Job`, :class:`JobSlot`, :class:`JobRegistry`: background work
                    with progress, stop and cancel, run where its sender says;
                    :func:`describe_error` (knows nothing of Dask)
``remote``          :class:`Remote` (a task for a worker), :class:`RemoteParts` (a task in
                    parts run side by side), what a worker runs and reports back
``workers``         :class:`DaskWorkers`: the Dask client the tasks go through (a
                    LocalCluster, or ``RMSC_SCHEDULER``; :mod:`rmsc.dask_cluster` is the
                    plumbing), data scattered once, a clean shutdown
``sender``          :class:`DaskSender`: a job's task on the workers, waited for, its
                    stop and cancel relayed
``_worker_setup``   what every LocalCluster worker process sets up (imports distributed)
``cache``           :class:`ResultCache`, an LRU bounded by entries and bytes
``store``           :class:`DiskStore`: results on disk across sessions and restarts
                    (``.npz`` + a JSON header, nothing unpickled), capped in bytes; large
                    arrays read when touched
``kept``            :func:`open_result_cache`: the server's cache, memory over the disk,
                    and the result types an entry may rebuild
``tables``          summaries, orderings, projections, weight tables; the large-data plan
``downloads``       labels, weights, affinity and configuration files of a fit
``runs``            Compare / Sensitivity / views experiments with a job's progress, in
                    one process or in parts for every worker; the methods' specs a task
                    carries; the λ × β grid's methods and settings
``suggest``         Solve's label-free suggestion of λ and β as a job
                    (:func:`run_suggestion`), mapped back onto :class:`Params`
``estimates``       how long those runs take: measured durations (:class:`CostBook`),
                    else the cost model (:mod:`rmsc.costs`), else "unknown"
``pace``            what a button says of a run's time: one figure and a range before
                    (:func:`plan`, the server's measured speed :class:`Pace`, the load),
                    the ETA during (:func:`eta`), took against predicted after
``prefetch``        :class:`Prefetcher`: the fits one slider step away
                    (:func:`slider_neighbors`) on idle workers, so the next move is
                    answered from the cache
``sentences``       sentences computed from the numbers on a page (:func:`fusion_sentence`,
                    :func:`views_sentence`, :func:`trace_sentence`)
``words``           :func:`page_words`: the library's messages in the pages' words (λ, β,
                    β_rel for lam, beta, beta_rel); the models of the views' shares in
                    a few words (:func:`view_balance_sentence`); a slider's uneven
                    stops in its label (:func:`stops_label`)
``sessions``        :class:`SessionBook`, :class:`Sweeper`: a gone session's work
                    cancelled, the server back to its idle footprint, what Streamlit keeps
                    of expired sessions released (:func:`release_expired_sessions`)
==================  ===============================================================

Every public name is re-exported here (``from rmsc import dashboard as dash; dash.Params``).
"""

from .words import (  # noqa: F401
    OUTLIER_COLUMNS,
    SYMBOLS,
    VIEW_BALANCE_NAMES,
    VIEW_BALANCE_WORDS,
    at_cap_words,
    balance_constrains,
    page_words,
    stops_label,
    view_balance_name,
    view_balance_sentence,
    view_balance_words,
)
from .cache import (  # noqa: F401
    ResultCache,
    nbytes,
)
from .store import (  # noqa: F401
    CACHE_BYTES_ENV,
    CACHE_DIR_ENV,
    CorruptEntry,
    DiskStore,
    read_all,
)
from .downloads import (  # noqa: F401
    DownloadFailed,
    DownloadGuard,
    affinity_npz,
    config_json,
    damaged_download_message,
    damaged_result_message,
    labels_csv,
    weights_csv,
)
from .fitting import (  # noqa: F401
    PAGE_TRACE_EVERY,
    FitFailure,
    FitResult,
    device_text,
    diagnose,
    fit_rmsc,
    trace_summary,
    weight_dominance,
    weight_shares,
    run_view_quality,
    trust_quality_table,
    view_quality_key,
    weight_shares_table,
    VIEW_SCALE_LABEL,
)
from .jobs import (  # noqa: F401
    ACTIVE_STATES,
    CANCELLED,
    DONE,
    FAILED,
    PENDING,
    RUNNING,
    STOPPED,
    Cancelled,
    Job,
    JobRegistry,
    JobSlot,
    JobSnapshot,
    LIVE_FAST_FOR_SECONDS,
    LIVE_POLL_SECONDS,
    LIVE_SLOW_POLL_SECONDS,
    WorkerDied,
    describe_error,
    live_poll_seconds,
    request_user_fit,
)
from .sessions import (  # noqa: F401
    GRACE_SECONDS,
    SWEEP_SECONDS,
    SessionBook,
    Sweep,
    Sweeper,
    release_expired_sessions,
    release_slot,
)
from ..dask_cluster import trim_memory  # noqa: F401
from .remote import (  # noqa: F401
    PARTS_PRIORITY,
    Remote,
    RemoteParts,
    WorkerJob,
)
from .workers import (  # noqa: F401
    SCHEDULER_ENV,
    DaskWorkers,
    default_workers,
    running_workers,
    shutdown,
    trim_everywhere,
    worker_slots,
)
from .sender import DaskSender  # noqa: F401
from .params import (  # noqa: F401
    AUTO,
    BETA_GRID,
    BETA_MODE_WIDGET,
    BETA_MODES,
    BETA_REL_GRID,
    DEFAULT_KEEP_MASS,
    DEFAULT_TOP_K,
    FIXED,
    FIXED_BETA_FALLBACK,
    GAMMA_GRID,
    LAM_GRID,
    MAX_ITER_RANGE,
    NO_BALANCE,
    POSTPROCESSING,
    POSTPROCESSING_NAMES,
    SETTINGS,
    VIEW_BALANCE_CHOICES,
    OutlierSpec,
    Params,
    Setting,
    after_weighting_change,
    apply_widgets,
    auto_beta_rel,
    auto_lam,
    beta_mode,
    balance_from_widget,
    balance_widget_value,
    beta_options,
    clusters_from_widget,
    default_beta,
    estimator_choices,
    estimator_params,
    fit_key,
    fit_request,
    format_beta,
    log_grid,
    method_default_beta,
    nearest,
    options_with,
    params_class,
    params_from_widgets,
    shown_clusters,
    switch_beta_mode,
    shown_values,
    widget_keys,
)
from .runs import (  # noqa: F401
    DEFAULT_COMPARE,
    DEFAULT_SENSITIVITY_BETAS,
    DEFAULT_SENSITIVITY_LAMS,
    DEFAULT_VIEWS_METHODS,
    ROBUSTNESS_FRACTIONS,
    SENSITIVITY_BETA_FRACTIONS,
    SENSITIVITY_LAM_FACTORS,
    compare_display,
    compare_fits,
    compare_parts,
    grid_methods,
    method_specs,
    rmsc_method_params,
    robustness_table,
    robustness_variants,
    run_compare,
    run_fit_group,
    run_sensitivity,
    run_views,
    sensitivity_axes,
    sensitivity_fits,
    sensitivity_parts,
    sensitivity_settings,
    COMPARE_POSTPROCESSING,
    SAME_POSTPROCESSING_NOTE,
    compare_caption,
    compare_params,
    postprocessing_used,
    views_fits,
    views_parts,
)
from .sentences import fusion_sentence, trace_sentence, views_sentence  # noqa: F401
from .prefetch import (  # noqa: F401
    PREFETCH_ENV,
    PREFETCH_PRIORITY,
    Prefetcher,
    prefetch_enabled,
    slider_neighbors,
)
from .suggest import (  # noqa: F401
    CRITERION_TEXT,
    SUGGESTION_VERDICT,
    SUGGEST_BETA_RELS,
    SUGGEST_LAMS,
    SuggestionRun,
    apply_suggestion,
    run_suggestion,
    suggestion_key,
    suggestion_settings,
    suggestion_table,
    AGREEMENT,
)
from ..costs import (  # noqa: F401
    DataShape,
    Estimate,
    data_shape,
    format_duration,
    predict,
    probe_seconds,
    schedule,
)
from .estimates import (  # noqa: F401
    CostBook,
    estimate_compare,
    estimate_fit,
    estimate_run,
    estimate_sensitivity,
    estimate_suggestion,
    estimate_views,
    fit_speeds,
    part_threads_of,
    record_compare,
    record_sensitivity,
    record_solve_fit,
    record_suggestion,
    record_views,
    run_fit_estimate,
    suggestion_estimates,
    suggestion_fits,
)
from .pace import (  # noqa: F401
    IdleBook,
    Pace,
    compare_weights,
    sensitivity_weights,
    views_weights,
    Plan,
    current_load,
    done_fraction,
    eta,
    eta_text,
    learn_from_fit,
    learn_from_run,
    run_slowdown,
    other_load,
    outcome_text,
    plan,
    run_weights,
    slowdown,
    suggestion_weights,
)
from .tables import (  # noqa: F401
    MAX_DENSE_VIEW_SAMPLES,
    MAX_MATRIX_SIDE,
    MAX_SCATTER_POINTS,
    MAX_WEIGHT_COLUMNS,
    ScalePlan,
    align_clusters,
    class_examples,
    data_intro,
    data_notes,
    dataset_summary,
    dataset_view_affinities,
    image_tiles,
    labels_problem,
    least_trusted,
    markdown_table,
    mistakes,
    order_by,
    project_2d,
    sample_weights,
    scale_plan,
    scoring_labels,
    subsample,
    view_affinity,
    view_representation_affinities,
    weight_losses,
    within_group_mass,
)
from .kept import (  # noqa: F401
    RESULT_TYPES,
    open_result_cache,
)
