"""Data: choose a dataset, look at it, inject outliers."""

import numpy as np
import streamlit as st

import ui
from rmsc import dashboard as dash
from rmsc import datasets, figures, outliers, preprocessing

ss = st.session_state

ui.page_setup()
st.title("Data")
ui.intro(dash.data_intro(ss.get("data")))  # about the data loaded (the callbacks ran first)


# ---------------------------------------------------------------------------
# Choosing a dataset (state changes happen in callbacks, before the page draws)
# ---------------------------------------------------------------------------


def _load_bundled():
    name = ss.w_bundled
    try:
        ui.set_dataset(ui.load_bundled(name))
        ss.data_error = None
    except ValueError as exc:
        ss.data_error = f"Could not load {name}: {exc}"


def _generate():
    try:
        views = tuple(int(x) for x in str(ss.w_syn_dims).replace(" ", "").split(",") if x)
        data = datasets.make_multiview_subspaces(
            n_clusters=ss.w_syn_clusters, n_per_cluster=ss.w_syn_per, n_views=len(views),
            view_dims=views, subspace_dim=ss.w_syn_subdim, noise=ss.w_syn_noise,
            random_state=ss.w_syn_seed)
        ui.set_dataset(data)
        ss.data_error = None
    except (ValueError, TypeError) as exc:
        ss.data_error = f"Could not generate the synthetic data: {exc}"


def _load_upload():
    f = ss.get("w_upload")
    if f is None:
        ss.data_error = "Choose a file first (.mat, .npz or .zip of CSVs)."
        return
    try:
        data = datasets.load(f, name=ss.get("w_upload_name") or None)
        method = ss.get("w_upload_pre", "none")
        if method != "none":
            data = datasets.preprocess(data, method)
        ui.set_dataset(data)
        ss.data_error = None
    except ValueError as exc:
        ss.data_error = f"Could not load {f.name}: {exc} The previous dataset is still loaded."
    except Exception as exc:  # noqa: BLE001 - a user's file must never crash the page
        ss.data_error = (f"Could not load {f.name}: {dash.describe_error(exc)} "
                         "The previous dataset is still loaded.")



with st.expander("Choose a dataset", expanded=ss.get("data") is None):
    tabs = st.tabs(["Bundled", "Synthetic", "Upload"])
    with tabs[0]:
        names = ui.bundled_names()
        current = ss.clean.name if ss.get("clean") is not None else names[0]
        st.selectbox("Bundled dataset", names,
                     index=names.index(current) if current in names else 0, key="w_bundled")
        st.button("Load", on_click=_load_bundled, key="w_load_bundled")
    with tabs[1]:
        st.caption("Samples drawn from a union of low-dimensional subspaces, seen through "
                   "a different random linear map in every view — the model RMSC assumes.")
        c1, c2, c3 = st.columns(3)
        c1.number_input("clusters", 2, 20, 3, key="w_syn_clusters")
        c1.number_input("samples per cluster", 5, 2000, 50, key="w_syn_per")
        c2.text_input("features per view (comma-separated)", "20, 30, 40", key="w_syn_dims")
        c2.number_input("subspace dimension", 1, 50, 3, key="w_syn_subdim")
        c3.number_input("noise", 0.0, 5.0, 0.05, step=0.01, format="%.3f", key="w_syn_noise")
        c3.number_input("seed", 0, 2**31 - 1, 0, key="w_syn_seed")
        st.button("Generate", on_click=_generate, key="w_generate")
    with tabs[2]:
        st.caption(".mat (v5 or v7.3; views as a cell array), .npz (one array per view, "
                   "optional 'labels'), or a .zip of CSVs (one per view, optional "
                   "labels.csv). Views are samples × features.")
        st.file_uploader("Multi-view data file", type=["mat", "npz", "zip"], key="w_upload")
        c1, c2 = st.columns(2)
        c1.text_input("name (optional)", key="w_upload_name")
        c2.selectbox("preprocessing",
                     ["none", *(m for m in preprocessing.PREPROCESSING if m != "none")],
                     key="w_upload_pre",
                     help="RMSC scales every sample to unit length anyway; tf-idf and "
                          "log1p suit word counts.")
        st.button("Load file", on_click=_load_upload, key="w_load_upload")

if ss.get("data_error"):
    st.error(ss.data_error)

data = ui.require_data()
clean = ss.clean

# ---------------------------------------------------------------------------
# What is loaded
# ---------------------------------------------------------------------------

st.subheader(data.name)
if data.description:
    st.caption(data.description)
views_df, classes = data.describe()
c1, c2 = st.columns([3, 2])
with c1:
    st.markdown("**Views**")
    st.dataframe(views_df, hide_index=True, key="views_table", height="content",
                 column_config={"density": st.column_config.NumberColumn(format="%.3f"),
                                # five significant digits in every row (not -11.5839 beside
                                # -11.383): the views' scales differ too much for decimals
                                "min": st.column_config.NumberColumn(format="%.5g"),
                                "max": st.column_config.NumberColumn(format="%.5g")})
with c2:
    if classes is not None:
        st.plotly_chart(figures.class_counts_figure(classes), key="class_counts")
    if dash.labels_problem(data):
        st.info(f"{dash.labels_problem(data)}: choose the number of clusters c on the *Solve* "
                "page. Pages that score a clustering (ACC, NMI, mistakes, Compare, "
                "Sensitivity) say so and show the rest.")

for note in ui.data_notes(data.fingerprint, data):
    st.warning(note)

plan = dash.scale_plan(data.n_samples)

st.markdown("**Each view in 2-D** (PCA after scaling every sample to unit length, as RMSC "
            "does). Circled: injected outliers.")
mask = data.outlier_mask
keep = None if mask is None else mask.any(axis=0)
idx = dash.subsample(data.n_samples, plan.scatter_points, keep=keep)
if idx.size < data.n_samples:
    st.caption(f"Large dataset: showing a random {idx.size:,} of {data.n_samples:,} samples "
               "(every injected outlier included).")
coords, explained = [], []
for v in range(data.n_views):
    xy, ev = ui.projection(data.fingerprint, v, data)
    coords.append(xy[idx])
    explained.append(ev)
fig = figures.views_scatter_figure(coords, data.view_names, data.labels, mask,
                                   indices=idx, explained=explained)
st.plotly_chart(fig, key="views_scatter")

# ---------------------------------------------------------------------------
# Pictures (Digit's PIX view)
# ---------------------------------------------------------------------------

images = data.images()
if images is not None:
    st.markdown(f"**Samples as pictures** (the {data.view_names[data.image_view]} view)")
    corrupted = None if mask is None else mask[data.image_view]
    if data.labels is not None:
        shown = dash.class_examples(data.labels, 1, exclude=corrupted)
        titles = [f"class {data.labels[i]}" for i in shown]
    else:
        shown = list(range(min(10, data.n_samples)))
        titles = [f"#{i}" for i in shown]
    if corrupted is not None and corrupted.any():
        bad = np.flatnonzero(corrupted)[:10]
        shown += [int(i) for i in bad]
        titles += [f"#{i} injected" for i in bad]
    # one grey scale for all, from the clean pictures (corrupted values are clipped)
    tiles = dash.image_tiles(images, shown, vmax=float(clean.images().max()))
    st.plotly_chart(figures.sample_images_figure(tiles, titles), key="images")

# ---------------------------------------------------------------------------
# Outliers
# ---------------------------------------------------------------------------

st.subheader("Inject outliers")
st.markdown(
    "Corrupt a fraction of the samples in chosen views — the situation RMSC's per-sample, "
    "per-view weights are built for. *replace*: the sample becomes a random vector on the "
    "view's scale (near no cluster); *noise*: heavy Gaussian noise (severity 1 = as large as "
    "the signal); *inconsistent*: the view is taken from a sample of another class, so it "
    "looks normal but wrong (RMSC's weights single these out only partly; the *Weights* "
    "page's view-inconsistency score does); *features*: a fifth of the features get extreme values. The "
    "clean data are kept: reset any time."
)

KINDS = tuple(outliers.KINDS)


def _inject():
    try:
        spec = dash.OutlierSpec(views=tuple(ss.w_out_views), fraction=ss.w_out_fraction,
                                kind=ss.w_out_kind, severity=ss.w_out_severity,
                                same_samples=ss.w_out_same, seed=ss.w_out_seed)
        ui.inject(spec)
        ss.outlier_error = None
    except ValueError as exc:
        ss.outlier_error = str(exc)


with st.form("inject"):
    c1, c2, c3 = st.columns(3)
    default_views = list(ss.outliers.views) if ss.outliers else [clean.view_names[0]]
    # the key holds the choice once the data are set (ui.set_dataset, ui.inject)
    c1.multiselect("views to corrupt", list(clean.view_names),
                   default=None if "w_out_views" in ss else default_views, key="w_out_views")
    c1.checkbox("same samples in every chosen view", value=True, key="w_out_same", wrap=True)
    c2.slider("fraction of samples", 0.01, 0.5, 0.1, 0.01, key="w_out_fraction")
    c2.selectbox("kind", KINDS, key="w_out_kind")
    c3.slider("severity", 0.1, 5.0, 1.0, 0.1, key="w_out_severity")
    c3.number_input("seed", 0, 2**31 - 1, 0, key="w_out_seed")
    st.form_submit_button("Inject", on_click=_inject, type="primary")
if ss.get("outlier_error"):
    st.error(ss.outlier_error)
if ss.outliers is not None:
    c1, c2 = st.columns([3, 1])
    c1.success(f"Injected: {ss.outliers.summary()} — "
               f"{int(data.outlier_mask.any(axis=0).sum())} samples affected.")
    c2.button("Reset to clean", on_click=ui.reset_outliers, key="w_reset_outliers")
