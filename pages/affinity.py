"""Affinity: the consensus graph next to each view's own, and the spectral embedding."""

import pandas as pd
import streamlit as st

import ui
from rmsc import dashboard as dash
from rmsc import figures

ss = st.session_state

ui.page_setup()
st.title("Affinity")
ui.intro(
    "Spectral clustering only sees the affinity S = (|Z*| + |Z*ᵀ|)/2. With samples ordered by "
    "class, a good affinity is block-diagonal: dark squares on the diagonal, little outside. "
    "On the right, one view's own graph (the k-nearest-neighbour Gaussian graph the spectral "
    "baselines cluster): single views are noisier, and fusing them is the point of RMSC. "
    "'Within-class share' is the fraction of affinity that links samples of the same class. "
    "Below, the spectral embedding in 2-D with the misclustered samples crossed. "
    "**Try:** order by predicted cluster to see the blocks RMSC found; raise β on *Solve* and "
    "watch the consensus thin out."
)

data = ui.require_data()
r = ui.require_result("The affinity page")
if r is None:
    st.stop()

labelled = data.labels is not None
if not labelled:
    st.info("This dataset has no labels: matrices are ordered by predicted cluster and no "
            "mistakes can be marked.")
choices = ["class", "cluster"] if labelled else ["cluster"]
c1, c2 = st.columns(2)
mode = c1.radio("order samples by", choices, horizontal=True, key="w_aff_order")
view = c2.selectbox("view shown on the right", list(range(data.n_views)), key="w_aff_view",
                    format_func=lambda v: data.view_names[v])
if mode == "class":
    order, bounds, groups = dash.order_by(data.labels, secondary=r.labels)
else:
    order, bounds, groups = dash.order_by(r.labels, secondary=data.labels)
plan = dash.scale_plan(data.n_samples)
if data.n_samples > plan.heatmap_cells:
    st.caption(f"{data.n_samples:,} samples: matrices are averaged in blocks and sent as images.")

c1, c2 = st.columns(2)
with c1:
    st.plotly_chart(figures.affinity_figure(r.affinity, order=order, boundaries=bounds,
                                            groups=groups, title="Consensus (|Z*|+|Z*ᵀ|)/2",
                                            max_side=plan.heatmap_cells,
                                            axis_title=f"samples by {mode}"),
                    key="consensus_affinity")
with c2:
    try:
        Sv = ui.view_affinity(data.fingerprint, view, data)
        st.plotly_chart(figures.affinity_figure(Sv, order=order, boundaries=bounds, groups=groups,
                                                title=f"{data.view_names[view]}: k-NN graph",
                                                max_side=plan.heatmap_cells,
                                                axis_title=f"samples by {mode}"),
                        key="view_affinity")
    except ValueError as exc:
        st.error(f"Could not build the graph of view {data.view_names[view]}: {exc}")

if labelled:
    rows = [{"affinity": "consensus (RMSC)",
             "within-class share": dash.within_group_mass(r.affinity, data.labels)}]
    for v, name in enumerate(data.view_names):
        try:
            rows.append({"affinity": f"{name} k-NN graph",
                         "within-class share": dash.within_group_mass(
                             ui.view_affinity(data.fingerprint, v, data), data.labels)})
        except ValueError:
            pass
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="within_class",
                 column_config={"within-class share": st.column_config.ProgressColumn(
                     format="percent", min_value=0.0, max_value=1.0)})

st.subheader("Spectral embedding")
coords = ui.embedding_2d(r.key, r.embedding)
idx = dash.subsample(data.n_samples, plan.scatter_points)
wrong = dash.mistakes(data.labels, r.labels) if labelled else None
fig = figures.embedding_figure(coords[idx], r.labels[idx],
                               wrong=None if wrong is None else wrong[idx], sample_ids=idx,
                               title=f"Spectral embedding ({r.n_clusters} dimensions, "
                                     "2-D PCA)")
st.plotly_chart(fig, key="embedding")
if wrong is not None:
    st.caption(f"{int(wrong.sum())} of {data.n_samples} samples misclustered "
               f"(clusters matched to classes one-to-one; ACC of this run "
               f"{100 * (1 - wrong.mean()):.2f}%).")
if idx.size < data.n_samples:
    st.caption(f"Showing {idx.size:,} of {data.n_samples:,} samples.")
