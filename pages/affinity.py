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
    "Beside it, one view's own affinity: (|Zᵛ| + |Zᵛᵀ|)/2, the representation RMSC learnt for "
    "that view at the fitted consensus, or the view's k-nearest-neighbour graph (what the "
    "spectral baselines cluster). Below, every view's Zᵛ side by side: look whether the "
    "consensus shows cleaner blocks than each view alone — RMSC fuses the views for that. "
    "'Within-class share' is the fraction of affinity that links samples of the same class, "
    "and the sentence under its table says how the consensus compares here. Last, the spectral embedding in 2-D with "
    "the misclustered samples crossed. **Try:** order by predicted cluster to see the blocks "
    "RMSC found; inject outliers into one view and see its Zᵛ blur while the consensus holds."
)

data = ui.require_data()
r = ui.require_result("The affinity page")
if r is None:
    st.stop()

labelled = dash.scoring_labels(data) is not None
if not labelled:
    st.info(f"{dash.labels_problem(data)}: matrices are ordered by predicted cluster and no "
            "mistakes can be marked.")
plan = dash.scale_plan(data.n_samples)
choices = ["class", "cluster"] if labelled else ["cluster"]
orders = {"cluster": dash.order_by(r.labels, secondary=data.labels)}
if labelled:
    orders["class"] = dash.order_by(data.labels, secondary=r.labels)
KINDS = {"zv": "Zᵛ of this fit", "knn": "k-NN graph"}
dense = plan.dense_views and r.model is not None
c1, c2, c3 = st.columns(3)
mode = c1.radio("order samples by", choices, horizontal=True, key="w_aff_order")
view = c2.selectbox("view shown on the right", list(range(data.n_views)), key="w_aff_view",
                    format_func=lambda v: data.view_names[v])
kind = c3.radio("the view's affinity", list(KINDS) if dense else ["knn"], horizontal=True,
                key="w_aff_kind", format_func=KINDS.get)
order, bounds, groups = orders[mode]
if data.n_samples > plan.heatmap_cells:
    st.caption(f"{data.n_samples:,} samples: matrices are averaged in blocks and sent as images.")
if not plan.dense_views:
    st.caption(f"{data.n_samples:,} samples: each view's Zᵛ would be {data.n_samples:,}² dense, "
               f"so above {dash.MAX_DENSE_VIEW_SAMPLES:,} samples the views are shown by their "
               "k-NN graphs only.")
elif r.model is None:
    st.caption("This result carries no fitted model: the views are shown by their k-NN graphs.")

zv = None
if dense:
    try:
        zv = ui.fitted_view_affinities(r.key, r, data, {k: o[0] for k, o in orders.items()})
    except ValueError as exc:  # e.g. the memory guard
        st.warning(f"Could not form the views' Zᵛ: {exc}")
        kind = "knn"


def _knn(v):
    return ui.view_affinity(data.fingerprint, v, data)


c1, c2 = st.columns(2)
with c1:
    st.plotly_chart(figures.affinity_figure(r.affinity, order=order, boundaries=bounds,
                                            groups=groups, title="Consensus (|Z*|+|Z*ᵀ|)/2",
                                            max_side=plan.heatmap_cells,
                                            axis_title=f"samples by {mode}"),
                    key="consensus_affinity")
with c2:
    name = data.view_names[view]
    try:
        if kind == "zv" and zv is not None:
            pooled, pool, _ = zv
            fig = figures.affinity_figure(pooled[mode][view], pool=pool,
                                          n_samples=data.n_samples, boundaries=bounds,
                                          groups=groups, title=f"{name}: (|Zᵛ|+|Zᵛᵀ|)/2",
                                          axis_title=f"samples by {mode}")
        else:
            fig = figures.affinity_figure(_knn(view), order=order, boundaries=bounds,
                                          groups=groups, title=f"{name}: k-NN graph",
                                          max_side=plan.heatmap_cells,
                                          axis_title=f"samples by {mode}")
        st.plotly_chart(fig, key="view_affinity")
    except ValueError as exc:
        st.error(f"Could not build the graph of view {name}: {exc}")

if zv is not None:
    pooled, pool, shares = zv
    st.plotly_chart(figures.view_affinities_figure(pooled[mode], list(data.view_names),
                                                   pool=pool, n_samples=data.n_samples,
                                                   boundaries=bounds, groups=groups),
                    key="every_view_affinity")

if labelled:
    share = "within-class share %"
    rows = [{"affinity": "consensus (RMSC)",
             share: 100 * dash.within_group_mass(r.affinity, data.labels)}]
    if zv is not None:
        rows += [{"affinity": f"{name}: Zᵛ of this fit", share: 100 * s}
                 for name, s in zip(data.view_names, zv[2])]
    missing = []
    for v, name in enumerate(data.view_names):
        try:
            rows.append({"affinity": f"{name}: k-NN graph",
                         share: 100 * dash.within_group_mass(_knn(v), data.labels)})
        except ValueError as exc:  # e.g. fewer samples than neighbours, a constant view
            missing.append(f"{name}: {exc}")
    # one decimal on every row (the "percent" format drops trailing zeros: 58.1 %, 25 %);
    # as tall as its rows, without a scroll bar of its own
    st.dataframe(pd.DataFrame(rows), hide_index=True, key="within_class", height="content",
                 column_config={share: st.column_config.ProgressColumn(
                     format="%.1f%%", min_value=0.0, max_value=100.0)})
    st.caption(dash.fusion_sentence(rows[0][share], {row["affinity"]: row[share]
                                                      for row in rows[1:]}))
    if missing:
        st.caption("No k-NN graph for " + "; ".join(missing))

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
