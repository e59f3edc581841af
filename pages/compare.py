"""Compare: RMSC against the other methods on the current data, with and without outliers."""

import json

import streamlit as st

import rmsc
import ui
from rmsc import dashboard as dash
from rmsc import figures

ss = st.session_state

ui.page_setup()
st.title("Compare")
ui.intro(
    "Every method under the paper's protocol on the current data: unit-length samples, "
    "spectral clustering, k-means 20 times, ACC and NMI as mean ± std over those runs. "
    "When outliers are injected (*Data* page) the methods also run on the clean data, side "
    "by side. The paper's claim to check: RMSC, weighting every sample in every view, should "
    "lose less than RMSC-WV (one weight per view) and SSC-AVG (plain average). **Try:** "
    "inject 'inconsistent' or 'noise' outliers into two views at 20–30% and compare; the "
    "bottom table gives each method's change in points. The **robustness** preset runs every "
    "injection kind at 10% and 20% in the views you choose, against the clean data "
    "(the full study with three seeds: docs/robustness.md)."
)

data = ui.require_data()
if dash.labels_problem(data):
    st.info(f"{dash.labels_problem(data)}. Comparing methods needs labels with two classes or "
            "more (ACC and NMI are computed against them). The *Solve*, *Weights* and "
            "*Affinity* pages work without: choose the number of clusters on *Solve*.")
    st.stop()

methods_all = rmsc.available_methods()
c1, c2 = st.columns([3, 1])
methods = c1.multiselect("methods", methods_all,
                         default=[m for m in dash.DEFAULT_COMPARE if m in methods_all],
                         key="w_cmp_methods",
                         format_func=lambda m: m, help="Every method registered in rmsc.")
seed = c2.number_input("seed", 0, 2**31 - 1, ss.params.seed, key="w_cmp_seed")
use_solve = st.checkbox(
    f"use the Solve page's parameters for {ss.params.method} "
    f"(λ = {ss.params.resolved_lam:g}, β = {ss.params.beta_text}, γ = {ss.params.gamma:g})",
    value=True, key="w_cmp_use_solve",
    help="Otherwise every method runs with its registry defaults.")
post_mode = st.radio(
    "affinity post-processing", list(dash.COMPARE_POSTPROCESSING), horizontal=True,
    key="w_cmp_post", format_func=dash.COMPARE_POSTPROCESSING.get,
    help="Each method's own (the default, the paper's protocol): every method as the "
         "library and `rmsc fit` fit it (RMSC scales the columns, SSC-AVG does not). The same: "
         "every method that clusters a self-representation (RMSC, RMSC-WV, SSC-*, DiMSC) "
         "turns it into an affinity the Solve page's way "
         f"({dash.POSTPROCESSING_NAMES[ss.params.post]}). " + dash.SAME_POSTPROCESSING_NOTE)
if post_mode == "same":
    st.caption(dash.SAME_POSTPROCESSING_NOTE)
with st.expander("method descriptions"):
    st.markdown("\n".join(f"- **{m}** — {rmsc.describe_method(m)}" for m in methods_all))

preset = st.radio("run", ["the current data", "robustness preset"], horizontal=True,
                  key="w_cmp_preset",
                  help="The robustness preset corrupts the clean data in every way rmsc.outliers "
                       "knows (replace, noise, inconsistent, features) at "
                       + " and ".join(f"{100 * f:g}%" for f in dash.ROBUSTNESS_FRACTIONS)
                       + ", the same samples in each chosen view, seeded by the seed above.")
variants = {"data": data}
if preset == "robustness preset":
    clean = ss.clean
    default_views = (list(ss.outliers.views) if ss.outliers is not None
                     else list(clean.view_names[:2]))
    rob_views = st.multiselect("views to corrupt", list(clean.view_names),
                               default=None if "w_cmp_rob_views" in ss else
                               [v for v in default_views if v in clean.view_names],
                               key="w_cmp_rob_views")  # set with the data (ui.set_dataset)
    try:
        variants = dash.robustness_variants(clean, rob_views, random_state=int(seed))
    except ValueError as exc:
        st.error(dash.page_words(str(exc)))
        st.stop()
elif ss.outliers is not None:
    both = st.checkbox("also run on the clean data (side by side)", value=True,
                       key="w_cmp_both")
    variants = {"clean": ss.clean, "with outliers": data} if both else {"with outliers": data}

try:
    params = dash.compare_params(ss.params, data, methods, use_solve=use_solve,
                                 postprocessing=post_mode) or None
except ValueError as exc:
    st.error(dash.page_words(str(exc)))
    st.stop()
key = ("compare", tuple(d.fingerprint for d in variants.values()), tuple(variants),
       tuple(methods), json.dumps(params, sort_keys=True, default=str), int(seed))

n_fits = len(methods) * len(variants)
book = ui.cost_book()
planned = ui.run_plan("compare", dash.estimate_compare(variants, methods, params, book,
                                                       **dash.worker_slots()))
hint = f" ({planned.text()} on this machine now)" if methods else ""
if st.button(f"Run {n_fits} fits{hint}", type="primary", key="w_cmp_run",
             disabled=not methods):
    ui.start_experiment(
        "compare", key,
        dash.compare_parts(variants, methods, params, int(seed)),  # on every worker at once
        label="compare",
        record=lambda b, tables, variants=variants, params=params: dash.record_compare(
            b, variants, tables, params, dash.worker_slots()["cores"]),
        planned=planned, weights=dash.compare_weights(variants, methods, params, book))

tables = ui.experiment_panel("compare", key)
if tables is None:
    if not methods:
        st.info("Choose at least one method.")
    else:
        st.caption("Results appear here when the run finishes; you can switch pages meanwhile.")
    st.stop()


def robustness_dataframe(tables):
    table = dash.robustness_table(tables)
    st.dataframe(table, hide_index=True, key="robustness_table", height="content",
                 column_config=ui.robustness_columns(table))


if len(tables) > 2:  # the robustness preset: one table and one figure across the cases
    st.subheader("Every injection against the clean data")
    st.plotly_chart(figures.robustness_cases_figure(tables), key="robustness_cases")
    robustness_dataframe(tables)
    st.caption("ACC % (mean over the 20 k-means runs) per case; one seed. RMSC places the "
               "samples its consensus nearly isolates by their neighbours (placement; at "
               "the default relative β it rarely finds any).")
    st.stop()

# The tables one under the other at full width (side by side, half of their columns would
# hide behind a scroll bar at 1280 px); the charts side by side below them.
for name, df in tables.items():
    st.markdown(f"**{name}**" if len(tables) > 1 else "**Results**")
    st.dataframe(dash.compare_display(df, data.view_names), hide_index=True,
                 key=f"cmp_table_{name}",
                 height="content",
                 column_config={"ARI %": st.column_config.NumberColumn(format="%.2f"),
                                "purity %": st.column_config.NumberColumn(format="%.2f"),
                                "time s": st.column_config.NumberColumn(format="%.1f")})
for col, (name, df) in zip(st.columns(len(tables)), tables.items()):
    col.plotly_chart(figures.comparison_figure(df, title=f"{name}: ACC and NMI"),
                     key=f"cmp_fig_{name}")
if len(tables) == 2:
    st.subheader("What the outliers changed")
    st.plotly_chart(figures.robustness_figure(tables), key="robustness")
    robustness_dataframe(tables)
ran = list(dict.fromkeys(m for df in tables.values() for m in df["method"]))
if dash.compare_caption(ran):
    st.caption(dash.compare_caption(ran))
