"""Synthetic multi-view data with a known answer: a union of subspaces seen through views."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

from .._validation import check_nonnegative, check_positive_int
from ._dataset import MultiViewDataset


def make_multiview_subspaces(n_clusters=3, n_per_cluster=50, n_views=3, view_dims=(20, 30, 40),
                             subspace_dim=3, noise=0.05, random_state=None):
    """Synthetic multi-view data: a union of subspaces seen through several views.

    Every cluster is a random ``subspace_dim``-dimensional subspace of a latent
    space of dimension ``n_clusters * subspace_dim``; its samples are Gaussian
    combinations of the subspace's basis. View v observes every latent point
    through its own random linear map to ``view_dims[v]`` features, scaled so
    that samples have unit norm on average, plus Gaussian noise whose norm per
    sample is about ``noise``. This is the model subspace clustering assumes
    (each sample is a combination of others of its cluster), so
    self-representation methods should recover the clusters when ``noise`` is
    small and every view has at least ``n_clusters * subspace_dim`` features.
    A view with fewer features squeezes the subspaces together (a weak view).

    Parameters
    ----------
    n_clusters : int, default=3
    n_per_cluster : int, default=50
    n_views : int, default=3
    view_dims : int or sequence of int, default=(20, 30, 40)
        Features per view; one number is used for every view.
    subspace_dim : int, default=3
    noise : float, default=0.05
        Noise norm per sample relative to the average signal norm (1).
    random_state : int, RandomState instance or None
        The same seed gives the same data.

    Returns
    -------
    MultiViewDataset
        ``n_clusters * n_per_cluster`` samples in class blocks, labels 0..c-1.
    """
    n_clusters = check_positive_int("n_clusters", n_clusters)
    n_per_cluster = check_positive_int("n_per_cluster", n_per_cluster)
    n_views = check_positive_int("n_views", n_views)
    subspace_dim = check_positive_int("subspace_dim", subspace_dim)
    noise = check_nonnegative("noise", noise)
    if isinstance(view_dims, (int, np.integer)) and not isinstance(view_dims, bool):
        view_dims = (int(view_dims),) * n_views
    try:
        view_dims = tuple(view_dims)
    except TypeError:
        raise ValueError(f"view_dims must be a number or one number per view; got "
                         f"{view_dims!r}.") from None
    if len(view_dims) != n_views:
        raise ValueError(
            f"view_dims gives {len(view_dims)} dimension(s) for n_views={n_views}; give one "
            "per view (or a single number for all)."
        )
    view_dims = tuple(check_positive_int("view_dims entry", d) for d in view_dims)
    rng = check_random_state(random_state)
    latent_dim = n_clusters * subspace_dim
    latent = []
    for _ in range(n_clusters):
        basis = np.linalg.qr(rng.standard_normal((latent_dim, subspace_dim)))[0]
        latent.append(rng.standard_normal((n_per_cluster, subspace_dim)) @ basis.T)
    latent = np.vstack(latent)
    labels = np.repeat(np.arange(n_clusters), n_per_cluster)
    views = []
    for d in view_dims:
        X = latent @ rng.standard_normal((latent_dim, d))
        X /= np.linalg.norm(X, axis=1).mean()
        X += noise * rng.standard_normal(X.shape) / np.sqrt(d)
        views.append(X)
    seed = f"seed {random_state}" if isinstance(random_state, (int, np.integer)) else \
        "random seed"
    return MultiViewDataset(
        name="Subspaces",
        views=views,
        labels=labels,
        view_names=[f"view {v + 1} ({d}-d)" for v, d in enumerate(view_dims)],
        description=f"Synthetic union of {n_clusters} random {subspace_dim}-dimensional "
        f"subspaces (latent dimension {latent_dim}), {n_per_cluster} samples each, observed "
        f"through {n_views} random linear views ({', '.join(map(str, view_dims))} features), "
        f"noise {noise:g} per sample ({seed}).",
    )
