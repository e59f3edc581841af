"""Sensitivity: ACC over a (λ, β) grid (paper Figure 4) and versus the number of views (Figure 1)."""

import json

import streamlit as st

import rmsc
import ui
from rmsc import dashboard as dash
from rmsc import figures

ss = st.session_state

ui.page_setup()
st.title("Sensitivity")
ui.intro(
    "How much do the results depend on the choices you make? Left tab: accuracy over a grid "
    "of λ and β (the paper's Figure 4 — it reports a large region of good values). Right tab: "
    "accuracy as views are added one at a time in the dataset's order (the paper's Figure 1, "
    "where RMSC gains as views join and an unweighted average can lose when a weak view "
    "joins: look whether each view added raises or lowers each curve here). Both run many fits in the background: start one, and switch pages if you like."
)

data = ui.require_data()
if dash.labels_problem(data):
    st.info(f"{dash.labels_problem(data)}. These experiments score clusterings against labels "
            "with two classes or more; the *Solve*, *Weights* and *Affinity* pages work without.")
    st.stop()

book = ui.cost_book()
tab_grid, tab_views = st.tabs(["λ × β grid", "number of views"])

with tab_grid:
    # One row each: a value list at full width shows every chip whole at 1280 px.
    method = st.radio("method", dash.grid_methods(), key="w_sens_method", horizontal=True)
    p = ss.params
    # The default grid follows the data: β across the range where Z* is neither empty nor
    # dense (from the current fit's β_max when it is for this method), λ around Solve's.
    out, _ = ui.fit_outcome()
    beta_max = getattr(out, "beta_max", None) if p.method == method else None
    beta = p.beta if p.method == method else dash.default_beta(method)
    default_lams, default_betas = dash.sensitivity_axes(p.resolved_lam, beta_max, beta)
    basis = (data.fingerprint, method, default_lams, default_betas)
    previous = ss.get("_sens_basis")
    restart = False
    if previous != basis:  # new data or parameters: the selection starts again, unless a run
        # was started on these data and method (Solve's fit landing after the click moves the
        # defaults, and the run must stay on screen)
        restart = previous is None or previous[:2] != basis[:2] or \
            ss.get("_sens_started_for") != basis[:2]
        ss._sens_basis = basis
    # a restart moves the selections on screen (written, not dropped: ui.widget_values)
    shown = ui.widget_values({key: list(values) for key, values in (
        ("w_sens_lams", default_lams), ("w_sens_betas", default_betas))
        if restart or key not in ss})
    lams = st.multiselect("λ values", dash.LAM_GRID, default=shown.get("w_sens_lams"),
                          key="w_sens_lams", format_func=lambda v: f"{v:g}")
    betas = st.multiselect("β values", dash.BETA_GRID, default=shown.get("w_sens_betas"),
                           key="w_sens_betas", format_func=lambda v: f"{v:g}")
    if beta_max is not None:
        fr = dash.SENSITIVITY_BETA_FRACTIONS
        fitted = getattr(out, "beta", None)  # the absolute β of Solve's fit (None if failed)
        st.caption(f"Default: from β_max/{1 / fr[0]:g} to β_max/{1 / fr[-1]:g}; Z* is empty "
                   f"from β_max ≈ {beta_max:.3g} on (these data, λ = {p.resolved_lam:g})."
                   + (f" Solve's β = {p.beta_text} is β = {fitted:.3g} here."
                      if p.beta == dash.AUTO and fitted is not None else ""))
    else:
        st.caption("Default: around β = "
                   + (p.beta_text if p.method == method else dash.format_beta(beta))
                   + f"; it follows these data once {method} has been fitted on *Solve*.")
    base = dash.sensitivity_settings(p, method)
    st.caption(f"γ = {p.gamma:g}, max {p.max_iter} iterations and post-processing from *Solve*.")
    lams, betas = sorted(lams), sorted(betas)
    key = ("sensitivity", data.fingerprint, method, tuple(lams), tuple(betas),
           json.dumps(base, sort_keys=True, default=str), p.seed)
    n = len(lams) * len(betas)
    slots = dash.worker_slots()  # the fits run side by side on these workers
    planned = ui.run_plan("sensitivity", dash.estimate_sensitivity(
        data, lams, betas, method, base, book, **slots))
    hint = f" ({planned.text()})" if n else ""
    if st.button(f"Run {n} fits{hint}", type="primary", key="w_sens_run", disabled=n == 0):
        ss._sens_started_for = (data.fingerprint, method)
        ui.start_experiment(
            "sensitivity", key,
            dash.sensitivity_parts(data, lams, betas, method, base, p.seed),  # every worker
            label="sensitivity",
            record=lambda b, df, method=method, base=base: dash.record_sensitivity(
                b, data, method, base, df, dash.worker_slots()["cores"]),
            planned=planned,
            weights=dash.sensitivity_weights(data, lams, betas, method, base, book))
    df = ui.experiment_panel("sensitivity", key)
    if df is not None:
        st.plotly_chart(figures.sensitivity_figure(df, title=f"{method} on {data.name}"),
                        key="sensitivity_fig")
        failed = df[df["error"].notna()]
        if len(failed):
            st.warning(f"{len(failed)} setting(s) gave no clustering (blank cells), e.g. "
                       f"λ = {failed['lam'].iloc[0]:g}, β = {failed['beta'].iloc[0]:g}: "
                       f"{dash.page_words(failed['error'].iloc[0])}")

with tab_views:
    all_methods = rmsc.available_methods()
    methods = st.multiselect("methods", all_methods,
                             default=[m for m in dash.DEFAULT_VIEWS_METHODS if m in all_methods],
                             key="w_views_methods")
    st.caption("Views in the dataset's order: " + " → ".join(data.view_names) + ". "
               f"{ss.params.method} uses the *Solve* page's parameters; every other method "
               "its own defaults (as on *Compare*).")
    params = dash.compare_params(ss.params, data, methods)
    key = ("views", data.fingerprint, tuple(methods), json.dumps(params, sort_keys=True,
                                                                 default=str), ss.params.seed)
    n = len(methods) * data.n_views
    planned = ui.run_plan("views", dash.estimate_views(data, methods, params, book,
                                                       **dash.worker_slots()))
    hint = f" ({planned.text()})" if n else ""
    if st.button(f"Run {n} fits{hint}", type="primary", key="w_views_run", disabled=n == 0):
        ui.start_experiment("views", key,
                            dash.views_parts(data, methods, params, ss.params.seed),
                            label="views",
                            record=lambda b, df, params=params: dash.record_views(
                                b, data, params, df, dash.worker_slots()["cores"]),
                            planned=planned,
                            weights=dash.views_weights(data, methods, params, book))
    df = ui.experiment_panel("views", key)
    if df is not None:
        st.plotly_chart(figures.accuracy_vs_views_figure(df, title=f"{data.name}: adding views"),
                        key="views_fig")
        st.caption(dash.views_sentence(df))
        failed = df[df["error"].notna()]
        if len(failed):
            st.caption(f"{len(failed)} point(s) missing: " + "; ".join(
                f"{r.method} with {r.n_views} view(s): {dash.page_words(r.error)}" for r in
                failed.head(3).itertuples()))
