"""Weights: RMSC's per-sample, per-view trust P, and the samples it distrusts."""

import numpy as np
import streamlit as st

import ui
from rmsc import dashboard as dash
from rmsc import figures, inspection, outliers, placement

ss = st.session_state

ui.page_setup()
st.title("Weights")
ui.intro(
    "RMSC gives every sample a weight in every view, P = 1/√(γ + loss), the loss in its "
    "view's own unit by default (*Theory*): a sample its view "
    "reconstructs badly from the others (an outlier, a noisy measurement) gets a low weight, "
    "so that view counts less for it when the views are fused into Z*. The heatmap shows P "
    "with samples grouped by class, the least trusted first in each class; a red mark just "
    "above a row points at an outlier you injected into that view (*Data* page). **Try:** "
    "inject 10% 'replace' outliers into one view and look whether that view's row is "
    "darker under the marks than between them, whether other rows darken there too (clean "
    "samples a view reconstructs badly are dark as well), and whether the ROC curve of that "
    "view hugs the top-left corner. Low weights find view-inconsistent samples "
    "(clean-looking in every view, but the views disagree about their class: their view "
    "still reconstructs them well) only partly; the *view inconsistency* score below does "
    "much better, and the "
    "*k-NN distance* baseline shows whether P found more than plain distance. Samples the "
    "consensus nearly cut off (mostly outliers) are placed by their neighbours in the views "
    "that still trust them; a black mark below the rows points at each."
)


@st.cache_data(max_entries=4, show_spinner="Scoring outliers…")
def _outlier_scores(key, _views, _result, _labels):
    return outliers.all_scores(list(_views), _result, _labels)

data = ui.require_data()
r = ui.require_result("The weights page")
if r is None:
    st.stop()

P = r.weights
mask = data.outlier_mask
plan = dash.scale_plan(data.n_samples)

choices = ["cluster", "nothing"]
if dash.scoring_labels(data) is not None:
    choices.insert(0, "class")
c1, c2 = st.columns([2, 3])
order_mode = c1.radio("group samples by", choices, horizontal=True, key="w_weights_order")
relative = c2.toggle("divide each view's weights by its median", value=True, wrap=True,
                     key="w_weights_relative",
                     help="Views differ in scale (a view whose samples spread along few "
                          "directions is reconstructed better, so all its weights are "
                          "higher); relative weights show which "
                          "samples each view trusts less than usual.")
group_labels = {"class": data.labels, "cluster": r.labels}.get(order_mode)
CHANGE = "change from the clean fit (P / P clean)"
show = "weights P"
if mask is not None and mask.any():
    show = st.radio("show", ["weights P", CHANGE], horizontal=True, key="w_weights_show",
                    help="P / P clean: each weight divided by the same sample's weight in the "
                         "same fit of the data before the injection; 1 where the outliers "
                         "changed nothing.")
values, quantity, clean_fit = P, None, None
if show == CHANGE:
    clean_key = dash.fit_key(ss.params, ss.clean)
    clean_fit = ui.experiment_panel("clean", clean_key)
    clean_job = ui.experiment_state("clean", clean_key)[1]
    if clean_fit is None and (clean_job is None or not clean_job.active):
        # (a finished job whose result is gone: found damaged on disk, or evicted)
        st.info("The change needs the same fit on the clean data (before the injection).")
        st.button("Fit the clean data with the same parameters", key="w_fit_clean",
                  on_click=ui.start_experiment,
                  args=("clean", clean_key, dash.Remote(dash.fit_rmsc, ss.clean, ss.params),
                        "clean fit"))
    if isinstance(clean_fit, dash.FitResult):
        with ui.stored_reads("clean"):  # read from disk, its P may be damaged
            values = inspection.weight_change(P, clean_fit.weights)
        quantity = "P / P clean"
        st.markdown(inspection.weight_change_summary(values, mask, data.view_names)["sentence"])
heatmap = inspection.heatmap_pool(values, group_labels, pool="min",
                                  relative=relative and quantity is None,
                                  max_columns=plan.weight_columns)
st.plotly_chart(figures.pooled_weights_heatmap_figure(
    heatmap, data.view_names, outlier_mask=mask, placed=r.placed, relative=relative,
    quantity=quantity,
    axis_title=f"samples grouped by {order_mode}" if group_labels is not None else
    "samples, lowest weight first"), key="weights_heatmap",
    theme=None)  # its own colour scale, dark at the low end (Streamlit's theme lightens it)
pooled = heatmap.values.shape[1] < data.n_samples
st.caption("Within each group the samples are ordered by their lowest weight over the views, "
           "lowest first" + (f"; each of the {heatmap.values.shape[1]} columns shows the "
                            "lowest weight of the samples it holds, so one distrusted sample "
                            "keeps its column dark." if pooled else "."))
if r.placed.size:
    st.caption(f"{r.placed.size} sample(s) were placed by their neighbours in the views rather "
               "than by the spectral embedding: the consensus Z* nearly cut them off (affinity "
               f"degree below {placement.WEAK_DEGREE:g} × the median).")

st.subheader("Each view's part of the weights")
shares, dominance = dash.weight_shares(r, data, ui.dominant_spread(r, data))
c1, c2 = st.columns([3, 2])
c1.plotly_chart(figures.view_shares_figure(shares, cap=1 / np.sqrt(r.gamma)),
                key="view_shares")
with c2:
    st.markdown(dash.view_balance_sentence(r.params.view_balance, r.params.weighting))
    scaled = getattr(r.model, "view_factors_", None) is not None
    st.markdown("The consensus Z* averages the views with the weights c_v P: a view's "
                f"**{inspection.SHARE_LABEL}** (share of the consensus weight) is how much it "
                f"counts there; its **{inspection.P_SHARE_LABEL}** is its share of the weights "
                "P alone" + (", before each view's factor c_v of the scaled model (*Theory*)."
                             if scaled else " (the same here: the paper's model has no view "
                             "factors).") + " " +
                dash.at_cap_words(r.params.view_balance, r.params.weighting, r.gamma))
    if dominance:
        st.warning(dominance)
    else:
        st.caption("No view carries most of the consensus weight.")
percent = (f"{inspection.SHARE_LABEL} %", f"{inspection.P_SHARE_LABEL} %",
           "samples at the cap %")
st.dataframe(dash.weight_shares_table(shares), hide_index=True, key="view_shares_table",
             height="content",
             column_config={c: st.column_config.NumberColumn(format="%.1f") for c in percent}
             | {c: st.column_config.NumberColumn(format="%.3g")
                for c in ("mean weight", "median loss", dash.VIEW_SCALE_LABEL)})

st.subheader("Trust beside how informative each view is")
st.markdown("Each view clustered **on its own** (spectral clustering of its k-NN graph, the "
            "SC-BSV baseline, run on a worker): its own ACC and NMI when the data have "
            "labels, and always the **eigengap** of its graph (larger: a clearer split into "
            "the clusters, no labels needed). If RMSC's weights measured how far to trust a "
            "view, the points would climb from left to right.")
quality = ui.experiment_panel("quality", ui.view_quality(data, ss.params))
if quality is not None:
    trust = inspection.trust_vs_quality(shares, quality)
    c1, c2 = st.columns([3, 2])
    c1.plotly_chart(figures.trust_quality_figure(shares, quality, trust.measure),
                    key="trust_quality")
    c2.markdown(trust.sentence)
    st.dataframe(dash.trust_quality_table(shares, quality), hide_index=True,
                 key="trust_quality_table", height="content",
                 column_config={c: st.column_config.NumberColumn(format="%.1f") for c in
                                (f"{inspection.SHARE_LABEL} %", "own ACC %", "own NMI %")}
                 | {"own eigengap": st.column_config.NumberColumn(format="%.3g")})

c1, c2 = st.columns(2)
with c1:
    st.plotly_chart(figures.weight_distribution_figure(P, data.view_names, mask,
                                                       relative=relative),
                    key="weights_distribution")
with c2:
    if mask is None or not mask.any():
        st.info("No injected outliers: inject some on the *Data* page to see how well low "
                "weights find them (ROC curves and AUC per view).")
    else:
        try:
            scores = outliers.scores(r)
            table = outliers.evaluate(scores, mask, view_names=data.view_names)
            curves = outliers.roc_curves(scores, mask)
            st.plotly_chart(figures.roc_figure(curves, data.view_names,
                                               aucs=list(table["roc_auc"])), key="roc")
        except ValueError as exc:
            st.error(dash.page_words(str(exc)))

if mask is not None and mask.any():
    st.subheader("Which score finds the outliers")
    st.markdown("RMSC's weights P beside two scores that need no weights: **view "
                "inconsistency** (a view puts the sample among other clusters than the other "
                "views do; finds samples whose views disagree, which P misses) and the "
                f"**distance to the {outliers.N_NEIGHBORS}th nearest neighbour** in the view "
                "(the baseline P must "
                "beat to have learnt anything).")
    try:
        by_key = _outlier_scores(r.key, tuple(data.views), r, r.labels)
        named = {outliers.SCORES[k]: S for k, S in by_key.items()}
        table = outliers.compare(by_key, mask, view_names=data.view_names)
        aucs = {name: list(table.loc[table["score"] == name, "roc_auc"]) for name in named}
        st.plotly_chart(figures.score_roc_figure(
            {name: outliers.roc_curves(S, mask) for name, S in named.items()},
            data.view_names, aucs), key="score_roc")
        st.dataframe(table[table["outliers"] > 0], hide_index=True, key="auc_table",
                     height="content",
                     column_config=ui.outlier_columns())
    except ValueError as exc:
        st.error(dash.page_words(str(exc)))

st.subheader("Least-trusted samples")
st.markdown("Samples whose weight is lowest relative to their view's median. "
            "Select a row to see that sample across all views.")
table = dash.least_trusted(P, data.view_names, labels=data.labels, outlier_mask=mask, top=25)
event = st.dataframe(table, hide_index=True, on_select="rerun", selection_mode="single-row",
                     key="least_trusted", height="content",
                     # one number of decimals in every row (not 8.951 beside 106.3)
                     column_config={c: st.column_config.NumberColumn(format="%.3f") for c in
                                    ("lowest weight", "relative to view median", "mean weight")})
rows = event.selection.rows if event is not None else []
default = int(table["sample"].iloc[rows[0]]) if rows else int(table["sample"].iloc[0])
j = st.number_input("sample", 0, data.n_samples - 1, value=default, key=f"w_sample_{default}")

detail = dash.sample_weights(P, data.view_names, j)
c1, c2 = st.columns([3, 2])
with c1:
    title = f"Sample {j}" + ("" if data.labels is None else f" (class {data.labels[j]}, "
                             f"cluster {r.labels[j]})")
    st.plotly_chart(figures.sample_weights_figure(detail, title=title, relative=relative),
                    key="sample_weights")
    # under the chart, in the wider column: in the narrow one, long view names ("view 1
    # (20-d)") put the last column behind a scroll bar at 1280 px
    st.dataframe(detail, hide_index=True, key="sample_table", height="content",
                 column_config={"weight": st.column_config.NumberColumn(format="%.3f"),
                                "view median": st.column_config.NumberColumn(format="%.3f"),
                                "percentile in view": st.column_config.NumberColumn(
                                    format="%.1f")})
with c2:
    if mask is not None and mask[:, j].any():
        st.warning("Injected outlier in " + ", ".join(
            n for n, hit in zip(data.view_names, mask[:, j]) if hit))
    images = data.images()
    if images is not None:
        st.plotly_chart(figures.sample_images_figure(
            dash.image_tiles(images, [j], vmax=float(ss.clean.images().max())),
            [f"{data.view_names[data.image_view]} of #{j}"],
            columns=1), key="sample_image")
