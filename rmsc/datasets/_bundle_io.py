"""The file format of the bundled paper datasets (``sample_data/reuter.npz``, ``3sources.npz``).

One compressed ``.npz`` per dataset holding every view exactly as the source
``.mat`` file stores it: a dense view as one array (its dtype kept, e.g. the
uint8 term counts of 3-Sources), a sparse view as the arrays of its
compressed format (``data``, ``indices``, ``indptr``, ``shape``, ``format``,
as :func:`scipy.sparse.save_npz` keeps them; Reuter's views are CSC). Index
arrays are narrowed to the smallest unsigned type that holds them, which is
lossless. Labels are kept as stored too (e.g. 1..6); the loader
(:mod:`rmsc.datasets`) recodes them.

``sample_data/build_*.py`` write the files with :func:`save_views`; the
loader reads them with :func:`load_views`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: Version of the layout below, stored in every file.
FORMAT_VERSION = 1


def _narrow(index):
    """The index array in the smallest unsigned integer type that holds it (lossless)."""
    top = int(index.max()) if index.size else 0
    for dtype in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return index.astype(dtype)
    return index.astype(np.int64)


def save_views(path, views, labels, view_names, **meta):
    """Write views, labels and names to ``path`` (compressed .npz).

    Parameters
    ----------
    path : str or Path
    views : list of ndarray or scipy.sparse arrays/matrices, each (n_samples, n_features_v)
        Stored exactly: dense arrays keep their dtype; sparse ones their
        format (csr or csc), dtype, index order and values.
    labels : ndarray of shape (n_samples,)
    view_names : list of str, one per view
    **meta : str
        Further text fields (e.g. ``source``), stored as strings.
    """
    if len(views) != len(view_names):
        raise ValueError(f"{len(views)} views but {len(view_names)} view names.")
    arrays = {
        "format_version": np.array(FORMAT_VERSION),
        "view_names": np.array([str(n) for n in view_names]),
        "labels": np.asarray(labels),
    }
    for key, value in meta.items():
        arrays[f"meta_{key}"] = np.array(str(value))
    for v, X in enumerate(views):
        if sp.issparse(X):
            if X.format not in ("csr", "csc"):
                raise ValueError(f"view {v}: store sparse views as csr or csc, not {X.format}.")
            arrays[f"view{v}_format"] = np.array(X.format)
            arrays[f"view{v}_shape"] = np.array(X.shape, dtype=np.int64)
            arrays[f"view{v}_data"] = X.data
            arrays[f"view{v}_indices"] = _narrow(X.indices)
            arrays[f"view{v}_indptr"] = _narrow(X.indptr)
        else:
            arrays[f"view{v}_format"] = np.array("dense")
            arrays[f"view{v}"] = np.asarray(X)
    np.savez_compressed(path, **arrays)


def load_views(path):
    """Read a file written by :func:`save_views`.

    Returns
    -------
    dict
        ``views`` (list: dense ndarrays, or ``scipy.sparse.csr_matrix`` /
        ``csc_matrix`` with int32 indices, values and dtype as stored),
        ``labels`` (ndarray as stored), ``view_names`` (list of str) and
        ``meta`` (dict of str).
    """
    with np.load(path, allow_pickle=False) as f:
        version = int(f["format_version"])
        if version != FORMAT_VERSION:
            raise ValueError(f"{path}: bundle format {version}, this rmsc reads {FORMAT_VERSION}.")
        names = [str(n) for n in f["view_names"]]
        views = []
        for v in range(len(names)):
            fmt = str(f[f"view{v}_format"])
            if fmt == "dense":
                views.append(f[f"view{v}"])
                continue
            cls = {"csr": sp.csr_matrix, "csc": sp.csc_matrix}[fmt]
            shape = tuple(int(s) for s in f[f"view{v}_shape"])
            indptr = f[f"view{v}_indptr"]
            top = max(*shape, int(indptr[-1]) if indptr.size else 0)
            index_type = np.int32 if top < 2**31 else np.int64
            parts = (f[f"view{v}_data"], f[f"view{v}_indices"].astype(index_type),
                     indptr.astype(index_type))
            views.append(cls(parts, shape=shape))
        meta = {k[len("meta_"):]: str(f[k]) for k in f.files if k.startswith("meta_")}
        return {"views": views, "labels": f["labels"], "view_names": names, "meta": meta}
