from pathlib import Path

import numpy as np
import pytest

#: The paper's datasets (DEVELOPERS.md: for tests and benchmarks, never copied into the repo).
SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets"


def shared_file(name):
    """Path of a shared dataset; a missing file fails the test that needs it (never a skip)."""
    path = SHARED / name
    assert path.exists(), (
        f"{path} is missing: the tests need the paper's datasets in ../shared/datasets/ "
        "beside the repository (see DEVELOPERS.md)."
    )
    return path


def union_of_subspaces(n_per=20, n_clusters=3, dims=(8, 12), sub_dim=2, noise=0.01, seed=0):
    """Small multi-view union-of-subspaces data: (views, labels).

    Every cluster is a random sub_dim-dimensional latent subspace; each view
    sees the latent points through its own random linear map.
    """
    rng = np.random.default_rng(seed)
    latent_dim = n_clusters * sub_dim
    bases = [np.linalg.qr(rng.standard_normal((latent_dim, sub_dim)))[0] for _ in range(n_clusters)]
    latent = np.vstack([(B @ rng.standard_normal((sub_dim, n_per))).T for B in bases])
    labels = np.repeat(np.arange(n_clusters), n_per)
    views = []
    for d in dims:
        A = rng.standard_normal((latent_dim, d))
        views.append(latent @ A + noise * rng.standard_normal((latent.shape[0], d)))
    return views, labels


@pytest.fixture
def subspaces():
    return union_of_subspaces()


def random_views(rng, n, dims):
    """Random unit-norm views (samples as rows)."""
    views = [rng.standard_normal((n, d)) for d in dims]
    return [X / np.linalg.norm(X, axis=1, keepdims=True) for X in views]
