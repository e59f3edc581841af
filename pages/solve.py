"""Solve: RMSC's parameters, a live objective curve, the result and downloads."""

import streamlit as st

import ui
from rmsc import dashboard as dash
from rmsc import figures

ss = st.session_state

ui.page_setup()
st.title("Solve")
ui.intro(
    "RMSC alternates three closed-form steps (Z*, P, Zᵛ — see *Theory*) and the objective can "
    "only go down; the curve below grows one point per iteration while the fit runs in the "
    "background (you can keep moving sliders or switch pages). **λ** ties each view's "
    "representation to the consensus Z*, **β** makes Z* sparse (too large and Z* empties; "
    "β = auto sets it as **β_rel** × the data's own scale), **γ** flattens the weights. "
    "Under the curve and the scores, **Convergence details** (opened on demand) shows the "
    "clustering of Z* recorded along the iterations (whether the answer still moves when the "
    "fit stops) and each view's mean weight. "
    "**Try:** raise β_rel step by step and watch the density of Z* and the accuracy; switch "
    "to RMSC-WV (one weight per view) and compare."
)

data = ui.require_data()

# ---------------------------------------------------------------------------
# Parameter widgets: seeded from ui.params(), written back in callbacks (before the frame
# starts the fit), so the sidebar, URL and background fit always agree with the widgets.
# ---------------------------------------------------------------------------

#: The section under the result holding its secondary charts, drawn when opened.
DETAILS_LABEL = "Convergence details: the clustering along the iterations, each view's mean weight"
DETAILS_LABEL_NO_TRACE = "Convergence details: each view's mean weight"

WEIGHTING_LABELS = {"sample": "RMSC — a weight per sample and view",
                    "view": "RMSC-WV — one weight per view"}


def _say(error):
    ss.param_error = error  # shown under the widgets (None: nothing to say)


def _read_widgets():
    """The widgets' values as the session's parameters (each parameter's row reads its own
    widget: dash.apply_widgets); returns the fit they ask for (None: none, or refused)."""
    try:
        widgets = {key: ss[key] for key in dash.widget_keys() if key in ss}
        params, request = dash.apply_widgets(ui.params(), widgets, data)
    except ValueError as exc:
        _say(f"Parameters not applied: {dash.page_words(str(exc))}")
        return None
    ui.set_params(params)
    _say(None)
    return request


def _apply():
    """A widget moved: the new parameters, and their fit asked for at once (the frame then
    finds it under way)."""
    request = _read_widgets()
    if request is not None:
        ui.ensure_fit(request=request)


def _weighting_changed():
    before = ui.params()
    _read_widgets()
    try:
        ui.set_params(dash.after_weighting_change(before, ui.params(), ss.w_weighting))
    except ValueError as exc:
        _say(str(exc))
    # the sliders show the new values: _widget_values below, before they are drawn
    ss.pop("beta_memory", None)  # the other weighting's β values mean other things


def _beta_mode_changed():
    """auto ↔ fixed: each way comes back at the value it had when it was left (kept in
    ``beta_memory`` for the session; the URL holds the way in use)."""
    key = ui.fit_key()  # the result on screen (of these parameters), if any
    fitted = getattr(ui.result_cache().get(key), "beta", None) if key is not None else None
    params, ss.beta_memory = dash.switch_beta_mode(ui.params(), ss.w_beta_mode,
                                                   ss.get("beta_memory"), fixed_start=fitted)
    ui.set_params(params)
    _say(None)  # the slider of the new way shows its value: _widget_values below


def _reset():
    ss.pop("beta_memory", None)
    ui.set_params(dash.Params())
    _say(None)


def _run():
    ui.ensure_fit(force=True)


def _suggest():
    d, p = ui.data(), ui.params()
    ui.start_experiment("suggest", dash.suggestion_key(p, d),
                        dash.Remote(dash.run_suggestion, d, p), label="suggest",
                        record=lambda book, run: dash.record_suggestion(book, d, p, run),
                        planned=ui.run_plan("suggest", dash.estimate_suggestion(
                            d, p, ui.cost_book())),
                        weights=dash.suggestion_weights(d, p, ui.cost_book()))


def _apply_suggestion(run):
    """Move λ and β (and the method it was run for) to the suggestion; the fit follows."""
    ui.set_params(dash.apply_suggestion(ui.params(), run))
    _say(None)  # the sliders show the new values: _widget_values below
    if not ss.autorun and ui.fit_key() not in ui.result_cache():
        ui.ensure_fit(force=True)  # with "run automatically" the frame starts it


def _stop():
    ui.slot("fit").stop()


def _set_autorun():
    ss.autorun = ss.w_autorun


def _index(options, value):
    """``index=`` of a radio or select box showing ``value`` (None: its key holds it)."""
    return None if value is None else list(options).index(value)


def _widget_values(p):
    """What each widget shows for the parameters ``p`` (the session's parameters are the
    source: a change made in a callback reaches the widgets on screen, ui.widget_values)."""
    return {**dash.shown_values(p, data), "w_autorun": ss.autorun}


p = ui.params()
shown = ui.widget_values(_widget_values(p))

left, right = st.columns([1, 2], gap="large")
with left:
    st.markdown("**Parameters**")
    st.select_slider("λ (coupling to the consensus)",
                     dash.options_with(dash.LAM_GRID, p.resolved_lam), value=shown["w_lam"],
                     key="w_lam", on_change=_apply, format_func=lambda v: f"{v:g}")
    st.radio("how β (the sparsity of Z*) is set", list(dash.BETA_MODES), horizontal=True,
             key="w_beta_mode",
             index=_index(dash.BETA_MODES, shown["w_beta_mode"]),
             format_func=dash.BETA_MODES.get, on_change=_beta_mode_changed,
             help="auto: β = β_rel × the data's own scale, so that one setting means the same "
                  "on other data; fixed: the paper's absolute β. Each keeps its value while "
                  "you try the other.")
    if p.beta == dash.AUTO:  # an absolute β has no relative part
        rel = p.resolved_beta_rel
        st.select_slider("β_rel (β relative to the data)",
                         dash.options_with(dash.BETA_REL_GRID, rel),
                         value=shown["w_beta_rel"], key="w_beta_rel",
                         on_change=_apply, format_func=lambda v: f"{v:g}",
                         help="β = β_rel × the data's own scale of β: the β above which 5% "
                              "of the samples start with an empty column of the consensus Z* "
                              "(where Z* begins to empty). As a fraction of that point, β_rel "
                              "means the same on other data (default "
                              f"{dash.auto_beta_rel(p.weighting):g}).")
    else:
        st.select_slider("β (sparsity of Z*)", dash.beta_options(p.beta), value=shown["w_beta"],
                         key="w_beta", on_change=_apply, format_func=lambda v: f"{v:g}")
    st.select_slider("γ (weight regulariser)", dash.options_with(dash.GAMMA_GRID, p.gamma),
                     value=shown["w_gamma"], key="w_gamma", on_change=_apply,
                     format_func=lambda v: f"{v:g}")
    st.radio("weighting", list(WEIGHTING_LABELS),
             index=_index(WEIGHTING_LABELS, shown["w_weighting"]), key="w_weighting",
             format_func=WEIGHTING_LABELS.get, on_change=_weighting_changed)
    st.selectbox("view balance (how the views share the weight)", dash.VIEW_BALANCE_CHOICES,
                 index=_index(dash.VIEW_BALANCE_CHOICES, shown["w_view_balance"]),
                 key="w_view_balance", on_change=_apply,
                 format_func=lambda v: dash.view_balance_name(dash.balance_from_widget(v)),
                 help="The paper's P-step lets a view whose samples are easy to rebuild draw "
                      "most of the weight; the other models share it out another way "
                      "(docs/weights.md). The Weights page shows each view's share.")
    words = dash.view_balance_words(p.view_balance)
    st.caption(f"{words[0].upper()}{words[1:]}.")  # the choice in full, beneath its name
    st.slider("max iterations", *dash.MAX_ITER_RANGE, value=shown["w_max_iter"],
              key="w_max_iter", on_change=_apply)
    st.selectbox("affinity post-processing", list(dash.POSTPROCESSING),
                 index=_index(dash.POSTPROCESSING, shown["w_post"]), key="w_post",
                 format_func=dash.POSTPROCESSING_NAMES.get, on_change=_apply)
    what = dash.POSTPROCESSING[p.post]
    st.caption(f"{what[0].upper()}{what[1:]}.")  # the choice in full, beneath its short name
    if p.post.startswith("top_k"):
        st.number_input("top-k", 1, 500, value=shown["w_top_k"], key="w_top_k",
                        on_change=_apply)
    if p.post == "rho+scale":
        st.number_input("ρ (share of each column's ℓ1 mass kept)", 0.05, 1.0,
                        value=shown["w_keep_mass"], step=0.05, key="w_keep_mass",
                        on_change=_apply,
                        help="Each column of |Z*| keeps its largest coefficients until they "
                             "hold this share of the column's sum; 1 keeps everything.")
    st.checkbox("place isolated samples", value=bool(shown["w_placement"]),
                key="w_placement", on_change=_apply,
                help="Samples the consensus Z* (nearly) cuts off get their cluster from "
                     "their neighbours in the views they are trusted in (weighted by P), "
                     "instead of wherever k-means puts them (rmsc.placement). Off: the "
                     "paper's plain spectral step. The Weights page marks placed samples.")
    c1, c2 = st.columns(2)
    labels_problem = dash.labels_problem(data)
    clusters = dash.shown_clusters(p, data)
    # at most one cluster per sample (a larger c from a URL stays, and the fit explains it)
    c1.number_input("clusters c", 2, max(2, data.n_samples, clusters or 0),
                    value=shown["w_clusters"],
                    key="w_clusters", on_change=_apply, placeholder="choose",
                    help="Defaults to the number of classes in the labels; without labels "
                         "(or with one class) choose it here.")
    c2.number_input("seed", 0, 2**31 - 1, value=shown["w_seed"], key="w_seed", on_change=_apply)
    st.toggle("run automatically", value=bool(shown["w_autorun"]), key="w_autorun",
              on_change=_set_autorun, wrap=True,
              help="Fit again whenever the data or a parameter changes.")
    blocker = ui.fit_blocker()
    with st.container(horizontal=True):  # wraps on narrow screens: no label is cut
        st.button("Run", type="primary", on_click=_run, key="w_run", disabled=bool(blocker),
                  help=blocker)
        st.button("Stop", on_click=_stop, key="w_stop")
        st.button("Defaults", on_click=_reset, key="w_defaults")
    if not blocker:
        planned = ui.run_plan("suggest", dash.estimate_suggestion(data, ui.params(),
                                                                  ui.cost_book()))
        took = f" ({planned.text()})"
    st.button("Suggest λ and β (no labels)", on_click=_suggest, key="w_suggest",
              disabled=bool(blocker), help=blocker or (
                  f"Fits {ui.params().method} at {len(dash.SUGGEST_LAMS)} λ × "
                  f"{len(dash.SUGGEST_BETA_RELS)} β values with these other settings"
                  + took + ". The result appears below the fit."))
    st.caption(dash.SUGGESTION_VERDICT)
    if not blocker and any(x is not None for x in ui.experiment_state(
            "suggest", dash.suggestion_key(p, data))):
        st.caption("The suggestion is shown below the fit.")
    if ss.get("param_error"):
        st.error(ss.param_error)

# ---------------------------------------------------------------------------
# Live progress (fragment polling the worker thread) and results
# ---------------------------------------------------------------------------


def _live_body(queued=False, every=ui.POLL_SECONDS):
    ui.log.debug("fragment live")
    out, job = ui.fit_outcome(hurry=True)
    if job is None or not job.active:
        st.rerun()  # finished: redraw the whole page with the result
    snap = job.snapshot()
    if queued and snap.place is None:
        st.rerun()  # a worker took it: the page switches to the faster poll of the live curve
    if not queued and dash.live_poll_seconds(snap.elapsed) > every:
        st.rerun()  # a long fit: the page switches to the slower poll (it spares the fit)
    st.progress(snap.fraction, text=f"Running {ui.params().method}: {snap.message or 'starting'} "
                                    f"— {snap.elapsed:.1f} s")
    if snap.history:
        # Charts from the first iteration on (most Digit fits end before the first poll);
        # stable keys let the browser update them in place instead of building new ones.
        c1, c2 = st.columns([3, 2])
        c1.plotly_chart(figures.objective_figure(snap.history, max_iter=ui.params().max_iter),
                        key="live_objective")
        if snap.rows:
            c1.plotly_chart(figures.clustering_trace_figure(snap.rows,
                                                            max_iter=ui.params().max_iter),
                            key="live_trace")
        if snap.latest is not None:
            c2.plotly_chart(figures.view_weights_figure(data.view_names, snap.latest),
                            key="live_weights")
    else:
        st.caption("The objective curve appears here after the first iteration.")
    st.button("Stop", on_click=_stop, key="w_stop_live",
              help="Finish now and cluster the current Z*.")


_live = st.fragment(run_every=ui.POLL_SECONDS)(_live_body)
# A fit that has run a while is polled less often (rmsc.dashboard.live_poll_seconds): every
# poll redraws the live charts, in the server and the browser, beside the fit on its CPUs.
def _live_slow_body():
    _live_body(every=dash.LIVE_SLOW_POLL_SECONDS)


_live_slow = st.fragment(run_every=dash.LIVE_SLOW_POLL_SECONDS)(_live_slow_body)
# While the fit waits for a worker only its place changes: a slower poll spares the server
# and the browser (with a class on one server most sessions wait most of the time).
_queued = st.fragment(run_every=ui.QUEUE_POLL_SECONDS)(_live_body)


def _result(r):
    """The fit ``r``: its numbers, charts, table and downloads."""
    # A row that wraps instead of cutting values ("96.…") on narrow screens.
    metrics = st.container(horizontal=True, gap="medium")
    if r.scores is not None:
        metrics.metric("ACC", f"{100 * r.scores['acc_mean']:.2f}%", width="content",
                       help=f"mean ± std over {r.scores['n_runs']} k-means runs: "
                            f"± {100 * r.scores['acc_std']:.2f}")
        metrics.metric("NMI", f"{100 * r.scores['nmi_mean']:.2f}%", width="content",
                       help=f"± {100 * r.scores['nmi_std']:.2f}")
    else:
        unscored = "no labels" if data.labels is None else "one class"
        metrics.metric("ACC", unscored, width="content", help=labels_problem)
        metrics.metric("NMI", unscored, width="content", help=labels_problem)
    metrics.metric("iterations", f"{r.n_iter}" + ("" if r.converged else "+"),
                   width="content",
                   help="converged" if r.converged else "stopped at the limit")
    metrics.metric("time", f"{r.fit_time + r.spectral_time:.1f} s", width="content",
                   help=f"solver {r.fit_time:.2f} s, spectral step {r.spectral_time:.2f} s")
    metrics.metric("density of Z*", f"{100 * r.density:.2f}%", width="content",
                   help=f"Z* becomes empty at β ≈ {r.beta_max:.3g}")
    for level, msg in r.diagnostics:
        (st.warning if level == "warning" else st.caption)(msg)
    objective, trace, weights = ui.result_figures(r, data.view_names)  # built once per fit
    st.plotly_chart(objective, key="objective")
    table = r.metrics_text()  # plain text: a few fixed rows need no interactive grid
    if table is not None:
        st.markdown(table)
        st.caption("Paper protocol: k-means 20 times on the spectral embedding; mean ± std "
                   "over the runs. 'chosen run' is the run of lowest k-means inertia "
                   "(the labels shown on the other pages).")
    # The rest of the fit's charts on demand: drawn (and their code loaded in the browser)
    # only once the section is opened, so that opening the page draws its result first.
    details = st.expander(DETAILS_LABEL if trace is not None else DETAILS_LABEL_NO_TRACE,
                          key="solve_details", on_change="rerun")
    with details:
        if details.open:
            c1, c2 = st.columns([3, 2])
            if trace is not None:
                c1.plotly_chart(trace, key="clustering_trace")
                c1.caption(f"Every {dash.PAGE_TRACE_EVERY}th iteration (and the first) the "
                           "worker clustered the Z* of that iteration once (its spectral "
                           "embedding, one k-means) and compared it with the clustering "
                           "recorded before; the stars are the fit's own result (20 k-means "
                           "runs). " + dash.trace_sentence(r.trace, r.params.placement))
            (c2 if trace is not None else c1).plotly_chart(weights, key="view_weights")
    st.markdown("**Downloads**")
    st.caption("Files are made when you click.")
    labels, names, outliers = data.labels, data.view_names, ss.outliers
    # Deferred (callables): nothing is serialised on reruns that download nothing, and a
    # result read from disk reads its affinity only when that file is asked for (guarded:
    # found damaged then, the page runs again and says so).
    files = [("labels (CSV)", lambda: dash.labels_csv(r, labels), "rmsc_labels.csv",
              "text/csv", "dl_labels"),
             ("weights P (CSV)", lambda: dash.weights_csv(r, names), "rmsc_weights.csv",
              "text/csv", "dl_weights"),
             ("affinity (.npz)", lambda: dash.affinity_npz(r), "rmsc_affinity.npz",
              "application/octet-stream", "dl_affinity"),
             ("configuration (JSON)", lambda: dash.config_json(r, data, outliers),
              "rmsc_config.json", "application/json", "dl_config")]
    with st.container(horizontal=True):  # wraps: labels stay whole
        for label, make, name, mime, key in files:
            st.download_button(label, ui.guarded_download(label, make), name, mime, key=key,
                               on_click="ignore")


with right:
    ui.download_failures()  # a download that found its stored result damaged: why, what now
    out, job = ui.fit_outcome(hurry=True)
    if job is not None and job.active:
        # a fit waiting for a worker is polled less often: only its place changes
        snap = job.snapshot()
        watch = ((lambda: _queued(queued=True)) if snap.place is not None
                 else _live_slow if dash.live_poll_seconds(snap.elapsed) > ui.POLL_SECONDS
                 else _live)
        previous = ui.previous_result()
        if previous is None:
            watch()
        else:  # the last result, dimmed, below the new fit's progress
            ui.stale_banner(previous, watch)
            with ui.stored_reads("previous"):  # its P read from disk may be damaged
                _result(previous)
    elif isinstance(out, dash.FitFailure):
        st.error(f"**The fit did not give a usable clustering.** {out.message}")
        st.caption("Nothing else changed: the dataset and earlier results are kept.")
    elif ui.failed_job_message(job):
        st.error(f"The fit failed: {ui.failed_job_message(job)}")
    elif out is None and labels_problem and p.n_clusters is None:
        st.info(f"{labels_problem}, so the number of clusters is not known: choose "
                "**clusters c** (left). RMSC then runs "
                + ("on its own." if ss.autorun else "when you press **Run**."))
    elif out is None:
        st.info(ui.not_fitted_message())
    else:
        with ui.stored_reads():  # a result from disk reads its P here: damaged, it says so
            _result(out)


# ---------------------------------------------------------------------------
# The label-free suggestion of λ and β: shown once asked for
# ---------------------------------------------------------------------------


def _suggestion_section(key):
    st.divider()
    st.subheader("Suggested λ and β (no labels)")
    st.markdown(dash.CRITERION_TEXT)
    run = ui.experiment_panel("suggest", key)
    _, job = ui.experiment_state("suggest", key)
    if run is None:
        if job is not None and job.state == dash.FAILED:
            st.caption("Nothing changed: the sliders, the dataset and the current fit are kept. "
                       "Try another number of clusters c or another affinity post-processing, "
                       "or set λ and β by hand.")
        return
    s = run.suggestion
    chosen = s.table[s.best]
    target = dash.apply_suggestion(ui.params(), run)
    st.markdown(f"**Suggested for {run.method}:** "
                f"λ = {chosen['lam']:g}, β = {target.beta_text}, which is β = {s.beta:.4g} "
                f"on these data — k-means runs agreeing at ARI {chosen['agreement']:.3f}, "
                f"{chosen['isolated']} isolated sample(s), {chosen['pieces']} piece(s), "
                f"eigengap {chosen['eigengap']:.4f}.")
    if run.scores is not None:
        st.caption(f"With the labels (not used to choose): ACC "
                   f"{100 * run.scores['acc_mean']:.2f}%, NMI {100 * run.scores['nmi_mean']:.2f}% "
                   "at the suggested setting.")
    if target == ui.params():
        st.success("The sliders are at the suggestion.")
    else:
        st.button("Apply: move the λ and β sliders there", type="primary", key="w_suggest_apply",
                  on_click=_apply_suggestion, args=(run,))
    c1, c2 = st.columns(2)
    c1.plotly_chart(figures.suggestion_figure(s.table, s.best, n_clusters=run.n_clusters,
                                              title=f"{data.name}: criterion per setting"),
                    key="suggest_fig")
    c2.caption("β_rel is β in units of the data's own scale (the default is "
               f"{dash.auto_beta_rel(run.weighting):g}); β is the absolute value it gave on these "
               "data, for reference. Apply sets β = auto with the suggested β_rel, which means "
               "the same on other data (a shared link keeps it). How far this criterion lands "
               "from the best setting chosen with labels, on every dataset of the repository: "
               "docs/defaults.md.")
    # Below the chart at full width: every column whole (the notes are sentences).
    table = dash.suggestion_table(s)
    if not table["note"].any():
        table = table.drop(columns="note")  # every setting gave a clustering
    st.dataframe(table, hide_index=True, key="suggest_table", height="content",
                 column_config={"β": st.column_config.NumberColumn(format="%.4g"),
                                dash.AGREEMENT: st.column_config.NumberColumn(format="%.3f"),
                                "eigengap": st.column_config.NumberColumn(format="%.4f")})
    st.caption("Ranked by the columns in their order: fewest isolated samples, then no more "
               "pieces than clusters, then the largest agreement of the k-means runs (the "
               "chart's top panel; open markers: isolated samples or more pieces than c); the "
               "eigengap is shown for reference, it does not rank.")


if not blocker:
    _skey = dash.suggestion_key(ui.params(), data)
    _sresult, _sjob = ui.experiment_state("suggest", _skey)
    if _sresult is not None or _sjob is not None:
        _suggestion_section(_skey)
