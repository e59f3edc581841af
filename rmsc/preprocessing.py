"""Per-view preprocessing.

The paper normalises every sample to unit L2 norm within each view; that is
the default everywhere in :mod:`rmsc`. ``tfidf`` and ``log1p`` (for count views)
and ``standardize`` are offered for users' own data.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ._array_api import namespace, to_numpy

#: Names accepted by :func:`preprocess_views`.
PREPROCESSING = ("unit_l2", "tfidf", "log1p", "standardize", "none")


def normalize_l2(X, *, view=None):
    """Scale each sample (row) of one view to unit Euclidean norm.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
    view : int or str, optional
        Used only in the warning about all-zero samples.

    Returns
    -------
    X_normalized : same type and shape as ``X``
        All-zero samples stay zero (with a :class:`UserWarning`). An array of another
        array-API library (torch, CuPy, array_api_strict) is normalised on its device,
        in its floating dtype.
    """
    xp = namespace(X)
    if xp is not np:
        norms = xp.sqrt(xp.sum(X * X, axis=1))
        zero = norms == 0
        if bool(xp.any(zero)):
            _warn_zero_samples(np.flatnonzero(to_numpy(zero)), view)
        return X / xp.where(zero, xp.ones_like(norms), norms)[:, None]
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64, copy=True)
        norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    else:
        X = np.array(X, dtype=np.float64, copy=True)
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    zero = norms == 0
    if zero.any():
        _warn_zero_samples(np.flatnonzero(zero), view)
    scale = np.where(zero, 1.0, norms)
    if sp.issparse(X):
        return sp.csr_matrix(sp.diags(1.0 / scale) @ X)
    X /= scale[:, None]
    return X


def _warn_zero_samples(idx, view):
    """The warning about all-zero samples (indices ``idx``) of a view, for the caller of
    :func:`normalize_l2`."""
    where = "" if view is None else f" in view {view}"
    listed = ", ".join(map(str, idx[:10])) + (" ..." if idx.size > 10 else "")
    warnings.warn(
        f"{idx.size} sample(s){where} are all zero and stay zero after unit-L2 "
        f"normalisation (sample(s) {listed}); they carry no information in that view.",
        UserWarning,
        stacklevel=3,
    )


def tfidf(X):
    """tf-idf weighting of a count view (rows are documents), then unit L2 rows.

    Uses scikit-learn's ``TfidfTransformer`` (smooth idf, sublinear tf off).
    """
    from sklearn.feature_extraction.text import TfidfTransformer

    if (X.data if sp.issparse(X) else np.asarray(X)).min(initial=0) < 0:
        raise ValueError(
            "tf-idf needs non-negative counts, but the view has negative values; "
            "use 'unit_l2' or 'standardize' for this view instead."
        )
    out = TfidfTransformer(norm="l2").fit_transform(X)
    return out if sp.issparse(X) else out.toarray()


def log1p(X):
    """log(1 + count) of a count view (rows are documents), then unit L2 rows.

    Damps frequent terms without the corpus statistics tf-idf needs; sparse stays sparse.
    """
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.min(initial=0) < 0:
        raise ValueError(
            "log1p needs non-negative counts, but the view has negative values; "
            "use 'unit_l2' or 'standardize' for this view instead."
        )
    if sp.issparse(X):
        out = sp.csr_matrix(X, dtype=float, copy=True)
        np.log1p(out.data, out=out.data)
    else:
        out = np.log1p(np.asarray(X, dtype=float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # empty documents stay empty, as with tf-idf
        return normalize_l2(out)


def standardize(X):
    """Zero mean and unit variance per feature (constant features are left centred)."""
    from sklearn.preprocessing import StandardScaler

    if sp.issparse(X):
        # Centering would densify; scale only, as scikit-learn does for sparse input.
        return StandardScaler(with_mean=False).fit_transform(sp.csr_matrix(X, dtype=float))
    return StandardScaler().fit_transform(np.asarray(X, dtype=float))


def preprocess_views(views, method="unit_l2"):
    """Apply one preprocessing method to every view.

    Parameters
    ----------
    views : list of (n_samples, n_features_v) arrays or sparse matrices
    method : {"unit_l2", "tfidf", "log1p", "standardize", "none"}

    Returns
    -------
    list of arrays, same shapes as ``views``
    """
    if method not in PREPROCESSING:
        raise ValueError(
            f"Unknown preprocessing {method!r}; choose one of {', '.join(PREPROCESSING)}."
        )
    if method == "none":
        return list(views)
    if method == "unit_l2":
        return [normalize_l2(X, view=v) for v, X in enumerate(views)]
    if method == "tfidf":
        return [tfidf(X) for X in views]
    if method == "log1p":
        return [log1p(X) for X in views]
    return [standardize(X) for X in views]


def spread_directions(X):
    """How many directions a view's samples spread along, after the paper's unit-L2
    scaling (the scaling RMSC fits and the Data page's 2-D panels draw).

    Returns
    -------
    dict with ``pc1`` (the share of the spread, the total variance, along the first
    principal direction, 0-1: the panels' "PC1") and ``directions`` (the participation
    ratio of the covariance spectrum, (Σλ)² / Σλ²: 1 when the spread lies along one
    direction, k when it is spread evenly over k); both 0 for a view with no spread.
    Through the n x n Gram matrix of the centred samples when the view has more features
    than samples (the same nonzero spectrum).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # all-zero samples: said elsewhere
        Xn = normalize_l2(X)
    Xn = Xn.toarray() if sp.issparse(Xn) else np.asarray(to_numpy(Xn), dtype=float)
    Xc = Xn - Xn.mean(axis=0)
    G = Xc.T @ Xc if Xc.shape[1] <= Xc.shape[0] else Xc @ Xc.T
    lam = np.clip(np.linalg.eigvalsh(G), 0, None)
    total = float(lam.sum())
    if not total > 0:
        return {"pc1": 0.0, "directions": 0.0}
    return {"pc1": float(lam.max() / total), "directions": float(total ** 2 / np.sum(lam ** 2))}
