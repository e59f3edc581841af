"""What the pages compute besides figures: summaries, orderings, projections, weight tables.

Also the large-data plan (:func:`scale_plan`): what the pages subsample or pool
above which size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ..datasets import repeats_text
from ..graphs import N_NEIGHBORS, knn_affinity
from ..metrics import match_clusters
from ..pooling import MAX_MATRIX_SIDE, MAX_SCATTER_POINTS, MAX_WEIGHT_COLUMNS, pool_matrix
from ..preprocessing import normalize_l2
from ..solver import loss_of_weight


def dataset_summary(dataset):
    """The sidebar's facts about the current dataset, as (label, value) pairs."""
    if dataset is None:
        return [("dataset", "none loaded")]
    rows = [
        ("dataset", dataset.name),
        ("samples n", f"{dataset.n_samples:,}"),
        ("views", f"{dataset.n_views} ({', '.join(dataset.view_names)})"),
        ("classes", "unlabelled" if dataset.labels is None else str(dataset.n_clusters)
         + (" (cannot score a clustering)" if dataset.n_clusters < 2 else "")),
    ]
    if dataset.outlier_mask is not None and dataset.outlier_mask.any():
        per_view = dataset.outlier_mask.sum(axis=1)
        parts = [f"{name} {int(k)}" for name, k in zip(dataset.view_names, per_view) if k]
        rows.append(("injected outliers",
                     f"{int(dataset.outlier_mask.any(axis=0).sum())} samples ({', '.join(parts)})"))
    else:
        rows.append(("injected outliers", "none"))
    return rows


#: Views named one by one in the Data page's introduction (more: the first and the last).
INTRO_VIEW_NAMES = 8


def data_intro(dataset):
    """The Data page's introduction for ``dataset`` (Markdown): what a multi-view dataset is,
    this one's samples, views and classes, what the page shows, what to try. Written from
    the dataset itself, so it never describes other data than the data loaded (what each
    view measures, where known, is in its description)."""
    lead = ("A multi-view dataset describes every sample several times, with different "
            "features.")
    try_ = ("**Try:** inject outliers into one or two views and watch where they land, then "
            "see on the *Weights* page whether RMSC gives them low weights.")
    if dataset is None:
        return f"{lead} Load one below: a bundled set, a synthetic one or your own file."
    names = list(dataset.view_names)
    if len(names) > INTRO_VIEW_NAMES:
        listed = f"{names[0]} to {names[-1]}"
    elif len(names) > 1:
        listed = f"{', '.join(names[:-1])} and {names[-1]}"
    else:
        listed = names[0]
    views = "one view" if dataset.n_views == 1 else f"{dataset.n_views} views"
    problem = labels_problem(dataset)
    classes = (f"They belong to {dataset.n_clusters} classes." if problem is None
               else f"{problem}.")
    picture = ("the views, the classes, and a 2-D PCA picture of each view coloured by "
               "class — some views separate the classes well, others barely" if problem is None
               else "the views and a 2-D PCA picture of each view")
    return (f"{lead} **{dataset.name}** has {dataset.n_samples:,} samples, each seen through "
            f"{views}: {listed}. {classes} Below: {picture}. {try_}")


def labels_problem(dataset):
    """Why ``dataset``'s labels cannot score a clustering, in words; None when they can.

    Scoring (ACC, NMI, Compare, Sensitivity) and "the number of classes" as the
    default number of clusters need at least two classes.
    """
    if dataset is None or dataset.labels is None:
        return "This dataset has no labels"
    if dataset.n_clusters < 2:
        return "The labels of this dataset hold one class only"
    return None


def scoring_labels(dataset):
    """The labels a clustering is scored against (two classes or more), else None."""
    return None if labels_problem(dataset) else dataset.labels


def data_notes(dataset):
    """Plain-words remarks about views and samples that carry little or no information.

    A view that is all zero or the same for every sample cannot tell samples apart;
    all-zero samples stay zero after the unit-length scaling RMSC applies (the
    estimator warns about them); samples repeated in every view are
    indistinguishable, which the Data page says unless the dataset's description already
    does (the bundled data say theirs). None of these stops a fit.

    Returns
    -------
    list of str
    """
    out = []
    n = dataset.n_samples
    for name, X in zip(dataset.view_names, dataset.views):
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            zero_rows = int(np.count_nonzero(X.getnnz(axis=1) == 0))
            first = sp.csr_matrix(np.ones((n, 1))) @ X[0]  # the first row, n times
            same = (X != first).nnz == 0
        else:
            A = np.asarray(X)
            zero_rows = int(np.count_nonzero(~A.any(axis=1)))
            same = bool((A == A[0]).all())
        view = _view(name)
        if zero_rows == n:
            out.append(f"{view[0].upper()}{view[1:]} is zero for every sample: it carries no "
                       "information.")
        elif same:
            out.append(f"{view[0].upper()}{view[1:]} is the same for every sample: it cannot "
                       "tell samples apart.")
        elif zero_rows == 1:
            out.append(f"1 sample is all zero in {view}: it carries no information there "
                       "(RMSC scales samples to unit length, which leaves it zero).")
        elif zero_rows:
            out.append(f"{zero_rows} samples are all zero in {view}: they carry no "
                       "information there (RMSC scales samples to unit length, which leaves "
                       "them zero).")
    repeats = dataset.repeated_samples()
    said = repeats_text(repeats)
    if repeats and said not in dataset.description:
        out.append(f"{said}: RMSC cannot tell them apart (each is represented by its "
                   "copies).")
    return out


def _view(name):
    """A view in a sentence: "view PIX", and a name that says it already as it is ("view 1",
    not "view view 1")."""
    return name if str(name).lower().startswith("view") else f"view {name}"


@dataclass(frozen=True)
class ScalePlan:
    """How the interactive pages adapt to the dataset's size."""

    n_samples: int
    scatter_points: int
    heatmap_cells: int
    weight_columns: int
    notices: tuple
    #: Whether the views' dense n x n Z^v are formed (Affinity page).
    dense_views: bool = True

    @property
    def large(self):
        return bool(self.notices)


#: Above this many samples every view's dense n x n Z^v is not formed (the k-NN graphs are
#: shown instead): the memory they hold while pooled, docs/measurements.md.
MAX_DENSE_VIEW_SAMPLES = 4000


def scale_plan(n_samples):
    """What the pages draw for ``n_samples``: scatter points, heatmap side, weight columns."""
    notices = []
    scatter = min(n_samples, MAX_SCATTER_POINTS)
    if scatter < n_samples:
        notices.append(f"Scatter plots show a random {scatter:,} of the {n_samples:,} samples "
                       "(every injected outlier included).")
    if n_samples > MAX_MATRIX_SIDE:
        notices.append(f"Affinity matrices ({n_samples:,}²) are pooled to "
                       f"{MAX_MATRIX_SIDE}×{MAX_MATRIX_SIDE} blocks and sent as images.")
    dense_views = n_samples <= MAX_DENSE_VIEW_SAMPLES
    if not dense_views:
        notices.append(f"Each view's own Zᵛ ({n_samples:,}² dense) is not formed above "
                       f"{MAX_DENSE_VIEW_SAMPLES:,} samples: the views are shown by their "
                       "k-NN graphs.")
    weight_cols = min(n_samples, MAX_WEIGHT_COLUMNS)  # the Weights page says how it pools
    return ScalePlan(n_samples, scatter, MAX_MATRIX_SIDE, weight_cols, tuple(notices),
                     dense_views)


def subsample(n_samples, max_points, *, keep=None, random_state=0):
    """Sorted indices of at most ``max_points`` samples, always including ``keep`` (bool mask).

    Returns all indices when ``n_samples <= max_points``.
    """
    if n_samples <= max_points:
        return np.arange(n_samples)
    rng = np.random.default_rng(random_state)
    keep_idx = np.flatnonzero(keep) if keep is not None else np.empty(0, dtype=int)
    keep_idx = keep_idx[:max_points]
    rest = np.setdiff1d(np.arange(n_samples), keep_idx)
    extra = rng.choice(rest, size=max_points - keep_idx.size, replace=False)
    return np.sort(np.concatenate([keep_idx, extra]))


def project_2d(X, random_state=0):
    """A 2-D PCA projection of one view after the paper's unit-L2 scaling.

    Dense views use PCA (covariance eigenvectors when features are fewer than
    samples, ARPACK otherwise); sparse views TruncatedSVD (no centring, which
    would densify them). Views with one feature get a zero second coordinate.

    Returns
    -------
    coords : ndarray of shape (n_samples, 2)
    explained : ndarray of shape (2,)
        Fraction of variance explained by each axis (NaN for TruncatedSVD
        on a rank-deficient view is replaced by 0).
    """
    import warnings

    from sklearn.decomposition import PCA, TruncatedSVD

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        Xn = normalize_l2(X)
    n, d = Xn.shape
    k = min(2, d, n - 1)
    if sp.issparse(Xn):
        if d <= 2:
            Xn = Xn.toarray()
        else:
            svd = TruncatedSVD(n_components=2, random_state=random_state)
            coords = svd.fit_transform(Xn)
            return coords, np.nan_to_num(svd.explained_variance_ratio_)
    # Few features (the usual multi-view case): eigenvectors of the d x d covariance,
    # much faster than an SVD of the data; many features: ARPACK for the top two.
    solver = "covariance_eigh" if d <= min(n, 2000) or k >= min(n, d) else "arpack"
    pca = PCA(n_components=k, svd_solver=solver, random_state=random_state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant view: 0/0 explained variance
        coords = pca.fit_transform(np.asarray(Xn))
    explained = np.nan_to_num(pca.explained_variance_ratio_)
    if k < 2:
        coords = np.hstack([coords, np.zeros((n, 2 - k))])
        explained = np.concatenate([explained, np.zeros(2 - k)])
    return coords, explained


def align_clusters(labels_true, labels_pred):
    """Relabel clusters to the classes they best match (Hungarian on the contingency table).

    The matching is the one :func:`rmsc.metrics.clustering_accuracy` scores, so
    ``np.mean(align_clusters(y, p) == y)`` equals the accuracy. Clusters
    left unmatched (more clusters than classes) get labels after the classes.

    Returns
    -------
    ndarray of shape (n_samples,), in the label values of ``labels_true``.
    """
    classes, clusters, pairs, _ = match_clusters(labels_true, labels_pred)
    p_idx = np.unique(np.asarray(labels_pred).ravel(), return_inverse=True)[1]
    mapping = {}
    for r, c in pairs:
        mapping[c] = classes[r]
    extra = (classes.max() + 1) if np.issubdtype(classes.dtype, np.number) else None
    for c in range(clusters.size):
        if c not in mapping:
            mapping[c] = extra
            extra = extra + 1 if extra is not None else None
    lut = np.array([mapping[c] for c in range(clusters.size)])
    return lut[p_idx]


def mistakes(labels_true, labels_pred):
    """Boolean mask of samples whose aligned cluster differs from their class."""
    return align_clusters(labels_true, labels_pred) != np.asarray(labels_true).ravel()


def order_by(labels, secondary=None):
    """A stable ordering of samples that groups equal labels (then by ``secondary``).

    Returns
    -------
    order : ndarray of int
    boundaries : ndarray of int
        Positions in the ordered sequence where a new group starts (excluding 0).
    groups : ndarray
        The label of each group, in order.
    """
    labels = np.asarray(labels).ravel()
    if secondary is None:
        order = np.argsort(labels, kind="stable")
    else:
        order = np.lexsort((np.asarray(secondary).ravel(), labels))
    sorted_labels = labels[order]
    change = np.flatnonzero(sorted_labels[1:] != sorted_labels[:-1]) + 1
    groups = sorted_labels[np.concatenate([[0], change])] if labels.size else sorted_labels
    return order, change, groups


def within_group_mass(S, labels):
    """Fraction of the affinity's total weight that links samples of the same label.

    1.0 is perfect block structure; for c balanced random groups it is about 1/c.
    """
    labels = np.asarray(labels).ravel()
    if not sp.issparse(S):
        A = np.abs(np.asarray(S))
        total = float(A.sum())
        if total == 0:
            return float("nan")
        same = float(sum(A[np.ix_(idx, idx)].sum()
                         for idx in (np.flatnonzero(labels == g) for g in np.unique(labels))))
        return same / total
    S = sp.coo_matrix(S)
    total = float(np.abs(S.data).sum())
    if total == 0:
        return float("nan")
    same = labels[S.row] == labels[S.col]
    return float(np.abs(S.data[same]).sum() / total)


def view_affinity(X, n_neighbors=None):
    """One view's own graph: the k-NN Gaussian affinity the spectral baselines use."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        Xn = normalize_l2(X)
    return sp.csr_matrix(knn_affinity(Xn, n_neighbors or N_NEIGHBORS))


def view_representation_affinities(model, views, orders, *, labels=None,
                                   max_side=MAX_MATRIX_SIDE):
    """Every view's affinity (|Zᵛ| + |Zᵛᵀ|)/2 of a fitted RMSC, pooled, with its within-class share.

    The views' Zᵛ come from :meth:`rmsc.RMSC.view_representations` (dense,
    n x n each); every one is reordered and averaged in blocks by
    :func:`rmsc.pooling.pool_matrix` for each order, then dropped.

    Parameters
    ----------
    model : fitted :class:`rmsc.RMSC` (either weighting)
    views : list of array-like
        The views the model was fitted on.
    orders : dict of name -> ndarray of int
        Sample orders (e.g. ``{"class": ..., "cluster": ...}``).
    labels : ndarray of shape (n_samples,) or None
    max_side : int

    Returns
    -------
    pooled : dict of name -> list of ndarray (float32, side <= max_side), one per view
    pool : int
        The block side.
    shares : list of float
        Within-class share of every view's affinity (NaN without labels).
    """
    Zs = model.view_representations(list(views))
    pooled = {name: [] for name in orders}
    shares, pool = [], 1
    for v in range(len(Zs)):
        S = np.abs(Zs[v])
        Zs[v] = None  # one dense n x n view at a time beyond the solver's output
        S += S.T
        S *= 0.5
        for name, order in orders.items():
            P, pool = pool_matrix(S, order, max_side)
            pooled[name].append(P.astype(np.float32))
        shares.append(float("nan") if labels is None else within_group_mass(S, labels))
        del S
    return pooled, pool, shares


def dataset_view_affinities(model, dataset, orders, *, job=None):
    """:func:`view_representation_affinities` of ``dataset`` (its views and labels).

    The form a :class:`rmsc.dashboard.Remote` task takes (``job`` is the worker's
    job handle, unused: the views' Zᵛ are one closed-form step), so the Affinity page
    forms the n x n matrices on a worker, not in the server.
    """
    return view_representation_affinities(model, dataset.views, orders,
                                          labels=dataset.labels)


def least_trusted(weights, view_names, *, labels=None, outlier_mask=None, top=20):
    """The samples with the lowest weight in any view, lowest first.

    Parameters
    ----------
    weights : ndarray of shape (n_views, n_samples)
        P of a fitted RMSC.

    Returns
    -------
    pandas.DataFrame with columns sample, lowest weight, in view, mean weight,
    relative (lowest weight over that view's median), class (when labels are
    known), injected (when a mask exists: the views in which the sample was
    corrupted, "" otherwise).
    """
    P = np.asarray(weights, dtype=float)
    m, n = P.shape
    medians = np.median(P, axis=1)
    rel = P / np.where(medians > 0, medians, 1.0)[:, None]
    worst_view = rel.argmin(axis=0)
    worst_rel = rel[worst_view, np.arange(n)]
    order = np.argsort(worst_rel, kind="stable")[: int(top)]
    df = pd.DataFrame({
        "sample": order,
        "lowest weight": P[worst_view[order], order],
        "in view": [view_names[v] for v in worst_view[order]],
        "relative to view median": worst_rel[order],
        "mean weight": P[:, order].mean(axis=0),
    })
    if labels is not None:
        df["class"] = np.asarray(labels)[order]
    if outlier_mask is not None:
        mask = np.asarray(outlier_mask, dtype=bool)
        df["injected in"] = [", ".join(view_names[v] for v in np.flatnonzero(mask[:, j]))
                             for j in order]
    return df


def sample_weights(weights, view_names, j):
    """One sample's weight in every view next to the view's median and its rank there."""
    P = np.asarray(weights, dtype=float)
    if not 0 <= int(j) < P.shape[1]:
        raise ValueError(f"Sample {j} does not exist; choose 0 to {P.shape[1] - 1}.")
    j = int(j)
    ranks = (P < P[:, [j]]).sum(axis=1)
    return pd.DataFrame({
        "view": list(view_names),
        "weight": P[:, j],
        "view median": np.median(P, axis=1),
        "percentile in view": 100.0 * ranks / P.shape[1],
    })


def weight_losses(weights, gamma):
    """The losses behind weights ``P = 1/sqrt(gamma + loss)`` (the P-step inverted).

    Per (view, sample) for RMSC; for RMSC-WV (one weight per view) every entry
    of a view's row is that view's total loss.
    """
    return loss_of_weight(weights, gamma)


def image_tiles(images, indices, *, vmax=None):
    """Sample pictures scaled to [0, 1] for ``st.image`` (a list of 2-D arrays)."""
    imgs = np.asarray(images, dtype=float)
    hi = float(vmax) if vmax is not None else float(imgs.max()) or 1.0
    lo = float(min(imgs.min(), 0.0))
    return [np.clip((imgs[int(i)] - lo) / (hi - lo), 0.0, 1.0) for i in indices]


def class_examples(labels, per_class=1, *, exclude=None):
    """The first ``per_class`` samples of every class (skipping ``exclude``), in class order."""
    labels = np.asarray(labels)
    skip = np.zeros(labels.size, dtype=bool) if exclude is None else np.asarray(exclude, bool)
    out = []
    for c in np.unique(labels):
        idx = np.flatnonzero((labels == c) & ~skip)[:per_class]
        out.extend(int(i) for i in idx)
    return out


def markdown_table(table, formats=None):
    """A small table as Markdown text, for a page to draw as plain text (a few fixed rows: no
    interactive grid to load in the browser). ``formats``: {column: format spec} for number
    columns (others: ``str``); numbers are right-aligned, every other column left-aligned;
    a ``|`` in a cell or a column's name is escaped."""
    formats = formats or {}

    def cell(value, col):
        text = format(value, formats[col]) if col in formats else str(value)
        return text.replace("|", "\\|")

    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    head = "| " + " | ".join(str(c).replace("|", "\\|") for c in table.columns) + " |"
    rule = "|" + "|".join("---:" if n else "---" for n in numeric) + "|"
    rows = ["| " + " | ".join(cell(v, c) for v, c in zip(row, table.columns)) + " |"
            for row in table.itertuples(index=False)]
    return "\n".join([head, rule, *rows])
