"""The multi-view dataset type every loader returns and every page shows."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp


@dataclass(frozen=True)
class MultiViewDataset:
    """An immutable multi-view dataset.

    Attributes
    ----------
    name : str
    views : tuple of ndarray or scipy.sparse matrices
        One per view, each of shape (n_samples, n_features_v).
    labels : ndarray of shape (n_samples,) or None
        Integer class labels 0..c-1, when known.
    view_names : tuple of str
        One per view.
    outlier_mask : ndarray of bool, shape (n_views, n_samples), or None
        True where a (view, sample) pair was corrupted on purpose
        (:func:`rmsc.outliers.inject`).
    description : str
        Provenance: where the data came from and what was done to it.
    image_view : int or None
        Index of a view whose features are a picture of the sample (Digit: PIX).
    image_shape : tuple of int or None
        (height, width) of that picture; ``n_features`` of the view equals
        ``height * width`` (row-major).

    Use :func:`dataclasses.replace` (or :meth:`replace`) to derive a changed copy.
    """

    name: str
    views: tuple
    labels: np.ndarray | None = None
    view_names: tuple = ()
    outlier_mask: np.ndarray | None = None
    description: str = ""
    image_view: int | None = None
    image_shape: tuple | None = None

    def __post_init__(self):
        views = tuple(self.views)
        object.__setattr__(self, "views", views)
        names = tuple(str(v) for v in self.view_names) or tuple(
            f"view {v}" for v in range(len(views)))
        if len(names) != len(views):
            raise ValueError(
                f"{len(names)} view name(s) given for {len(views)} view(s); give one name per view."
            )
        object.__setattr__(self, "view_names", names)
        n = views[0].shape[0] if views else 0
        if self.labels is not None:
            labels = np.asarray(self.labels).ravel()
            if labels.shape[0] != n:
                raise ValueError(
                    f"{labels.shape[0]} labels given for {n} samples; give one label per sample."
                )
            labels.setflags(write=False)
            object.__setattr__(self, "labels", labels)
        if self.outlier_mask is not None:
            mask = np.asarray(self.outlier_mask, dtype=bool)
            if mask.shape != (len(views), n):
                raise ValueError(
                    f"outlier_mask has shape {mask.shape}; it must be (n_views, n_samples) = "
                    f"({len(views)}, {n})."
                )
            mask.setflags(write=False)
            object.__setattr__(self, "outlier_mask", mask)
        for X in views:
            if isinstance(X, np.ndarray):
                X.setflags(write=False)

    # -- sizes ---------------------------------------------------------------------------

    @property
    def n_samples(self):
        return self.views[0].shape[0]

    @property
    def n_views(self):
        return len(self.views)

    @property
    def n_clusters(self):
        """Number of distinct labels, or None without labels."""
        return None if self.labels is None else int(np.unique(self.labels).size)

    @property
    def n_features(self):
        """Features per view, as a tuple."""
        return tuple(X.shape[1] for X in self.views)

    # -- derived copies ------------------------------------------------------------------

    def replace(self, **changes):
        """A copy with some attributes changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    def images(self):
        """The sample pictures, shape (n_samples, height, width), or None."""
        if self.image_view is None or self.image_shape is None:
            return None
        X = self.views[self.image_view]
        X = X.toarray() if sp.issparse(X) else np.asarray(X)
        return X.reshape(X.shape[0], *self.image_shape)

    # -- identity ------------------------------------------------------------------------

    @property
    def fingerprint(self):
        """A short hex digest of the content (views, labels, mask, names).

        Equal data give equal fingerprints across processes, so it can key caches.
        """
        cached = self.__dict__.get("_fingerprint")
        if cached is not None:
            return cached
        h = hashlib.sha256()
        h.update(self.name.encode())
        for name, X in zip(self.view_names, self.views):
            h.update(name.encode())
            _hash_array(h, X)
        for extra in (self.labels, self.outlier_mask):
            h.update(b"-" if extra is None else b"+")
            if extra is not None:
                _hash_array(h, extra)
        digest = h.hexdigest()[:16]
        object.__setattr__(self, "_fingerprint", digest)
        return digest

    # -- description ---------------------------------------------------------------------

    def repeated_samples(self):
        """How many samples equal an earlier sample in every view (exact copies, which no
        method can tell apart); a sample equal to another in some views only is no repeat."""
        if self.n_samples < 2:
            return 0
        keys = zip(*(_row_keys(X) for X in self.views))
        return self.n_samples - len(set(keys))

    def describe(self):
        """A table of the views and the class counts.

        Returns
        -------
        views : pandas.DataFrame
            One row per view: name, features, storage (dense/sparse), density
            (fraction of nonzeros), min, max, and outliers (injected pairs).
        classes : pandas.Series or None
            Samples per class, indexed by label; None without labels.
        """
        rows = []
        for v, (name, X) in enumerate(zip(self.view_names, self.views)):
            if sp.issparse(X):
                nnz = X.nnz
                data = X.data
                lo = min(float(data.min()), 0.0) if nnz < X.shape[0] * X.shape[1] else float(data.min())
                hi = max(float(data.max()), 0.0) if nnz < X.shape[0] * X.shape[1] else float(data.max())
                if nnz == 0:
                    lo = hi = 0.0
                storage = "sparse"
            else:
                A = np.asarray(X)
                nnz = int(np.count_nonzero(A))
                lo, hi = float(A.min()), float(A.max())
                storage = "dense"
            rows.append({
                "view": name,
                "features": X.shape[1],
                "storage": storage,
                "density": nnz / (X.shape[0] * X.shape[1]),
                "min": lo,
                "max": hi,
                "outliers": 0 if self.outlier_mask is None else int(self.outlier_mask[v].sum()),
            })
        table = pd.DataFrame(rows)
        classes = None
        if self.labels is not None:
            values, counts = np.unique(self.labels, return_counts=True)
            classes = pd.Series(counts, index=pd.Index(values, name="class"), name="samples")
        return table, classes


def repeats_text(count):
    """How a description and the Data page say that ``count`` samples repeat another (the
    same words in both, so that the page can tell a repeat the description already says)."""
    return (f"{count} sample repeats" if count == 1 else f"{count} samples repeat") + \
        " another sample exactly in every view"


def _row_keys(X):
    """One hash per row of a view (dense or sparse), equal for equal rows."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        X.sort_indices()
        return [hash((X.indices[a:b].tobytes(), X.data[a:b].tobytes()))
                for a, b in zip(X.indptr[:-1], X.indptr[1:])]
    return [hash(r.tobytes()) for r in np.ascontiguousarray(X)]


def _hash_array(h, X):
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        h.update(f"sparse{X.shape}".encode())
        for part in (X.indptr, X.indices, X.data):
            h.update(np.ascontiguousarray(part).tobytes())
    else:
        A = np.ascontiguousarray(X)
        h.update(f"{A.dtype}{A.shape}".encode())
        h.update(A.tobytes())
