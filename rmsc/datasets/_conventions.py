"""What every file format shares: key names, views and labels checked, oriented and recoded."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._errors import DataLoadError, _guard, _short

#: Keys (variables, arrays) holding the views, in order of preference.
VIEW_KEYS = ("X", "fea", "data", "views")


#: Keys holding the class labels, in order of preference.
LABEL_KEYS = ("Y", "y", "gt", "truelabel", "labels", "gnd")


#: Further label names accepted in any letter case (file stems in a .zip, keys).
_EXTRA_LABEL_NAMES = ("label", "truelabels", "target", "class", "classes")


_FORMATS_HINT = ("a MATLAB .mat file (v5 or v7.3) with the views in a cell array, an .npz "
                 "archive of view arrays and labels, or a .zip of CSV files (one per view, "
                 "plus labels.csv)")


class _Unsupported:
    """A MATLAB value the loader does not convert (struct, object, complex...)."""

    def __init__(self, what):
        self.what = what


def _is_cell(value):
    return isinstance(value, np.ndarray) and value.dtype == object


def _describe_value(value):
    """'a 2000x76 double matrix', 'a 1x6 cell array', ... for messages."""
    if isinstance(value, _Unsupported):
        return value.what
    if isinstance(value, str):
        return f"the text {value[:30]!r}"
    if sp.issparse(value):
        return f"a {_shape_str(value.shape)} sparse matrix"
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return f"a {_shape_str(value.shape)} cell array"
        if value.dtype.names:
            return f"a {_shape_str(value.shape)} struct"
        if value.dtype.kind in "US":
            return "text"
        return f"a {_shape_str(value.shape)} {value.dtype} array"
    return f"a {type(value).__name__}"


def _shape_str(shape):
    return "x".join(str(s) for s in shape) if len(shape) else "scalar"


def _find_key(keys, preferred, extra=()):
    """First of ``preferred`` in ``keys`` (exact), else a case-insensitive match."""
    for k in preferred:
        if k in keys:
            return k
    lowered = {str(k).lower(): k for k in keys}
    for k in tuple(preferred) + tuple(extra):
        if k.lower() in lowered:
            return lowered[k.lower()]
    return None


def _keys_listing(variables):
    return ", ".join(f"{k} ({_describe_value(v)})" for k, v in variables.items()) or "none"


class _View:
    """A view being loaded: matrix, and a note on its storage."""

    def __init__(self, X, stored=""):
        self.X = X
        self.stored = stored  # "sparse", or the original dtype when it was converted


def _storage_notes(views, wheres):
    """'uint8 views (X{1}, X{3}) stored as float64', 'sparse views (...) kept sparse (CSR)'."""
    groups = {}
    for view, where in zip(views, wheres):
        if view.stored:
            groups.setdefault(view.stored, []).append(str(where))
    notes = []
    for stored, where in groups.items():
        which = ", ".join(where)
        if stored == "sparse":
            notes.append(f"sparse views ({which}) kept sparse (CSR, float64)")
        elif stored == "triplets":
            continue  # described by _triplet_views
        elif stored == "bool":
            notes.append(f"logical views ({which}) stored as float64 0/1")
        else:
            notes.append(f"{stored} views ({which}) stored as float64")
    return notes


def _valid_sparse(X, where, fname):
    """X after a full structural check (corrupt index arrays would crash scipy's C code)."""
    # Rows and columns both get index pointers (CSR and CSC); refuse absurd shapes first.
    _guard(max(X.shape) + 1, 2, fname, f"indexing the sparse matrix {where}")
    try:
        X = X.tocsc() if X.format not in ("csc", "csr") else X
        n_minor = X.shape[0 if X.format == "csc" else 1]
        ptr, idx = np.asarray(X.indptr), np.asarray(X.indices)
        if ptr.size != X.shape[1 if X.format == "csc" else 0] + 1:
            raise ValueError("index pointer of the wrong length")
        if ptr[0] != 0 or np.any(np.diff(ptr) < 0) or ptr[-1] != idx.size or \
                idx.size > np.asarray(X.data).size:
            raise ValueError("index pointer inconsistent with the entries")
        if idx.size and (idx.min() < 0 or idx.max() >= n_minor):
            raise ValueError("indices out of range")
        X.check_format(full_check=True)
    except MemoryError:
        raise DataLoadError(f"{fname}: the sparse matrix {where} is too large for the memory "
                            "available (the file may be corrupt).") from None
    except Exception as exc:
        raise DataLoadError(
            f"{fname}: the sparse matrix {where} is malformed ({_short(exc)}); the file is "
            "corrupt. Save it again."
        ) from None
    return X


def _numeric_view(item, where, fname):
    """A cell element as a float64 matrix (dense) or CSR float64 (sparse)."""
    if sp.issparse(item):
        X = _valid_sparse(item, where, fname)
        if X.dtype.kind == "c":
            raise DataLoadError(f"{fname}: {where} holds complex numbers; expected real ones.")
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise DataLoadError(f"{fname}: {where} is an empty {_shape_str(X.shape)} matrix; "
                                "expected a view with samples and features.")
        return _View(sp.csr_matrix(X, dtype=np.float64), "sparse")
    if not isinstance(item, np.ndarray) or item.dtype == object or item.dtype.names or \
            item.dtype.kind not in "biuf":
        if isinstance(item, np.ndarray) and item.dtype.kind == "c":
            raise DataLoadError(f"{fname}: {where} holds complex numbers; expected real ones.")
        raise DataLoadError(
            f"{fname}: {where} holds {_describe_value(item)}; expected a numeric (dense or "
            "sparse) n_samples x n_features matrix."
        )
    if item.ndim != 2:
        raise DataLoadError(
            f"{fname}: {where} has {item.ndim} dimension(s) (shape {_shape_str(item.shape)}); "
            "expected a 2-D n_samples x n_features matrix."
        )
    if item.shape[0] == 0 or item.shape[1] == 0:
        raise DataLoadError(f"{fname}: {where} is an empty {_shape_str(item.shape)} matrix; "
                            "expected a view with samples and features.")
    stored = ""
    if item.dtype != np.float64:
        stored = str(item.dtype)
        _guard(item.shape[0], item.shape[1], fname, f"{where} as float64")
    return _View(np.asarray(item, dtype=np.float64), stored)


def _orient(views, labels, wheres, label_key, fname):
    """Put samples on the rows of every view; returns (views, note).

    With labels, a view whose rows do not match the label count but whose
    columns do is transposed. Without labels, all views must agree on a
    common row count (samples as rows) or a common column count (samples as
    columns).
    """
    shapes = [v.X.shape for v in views]
    if labels is not None:
        n = labels.shape[0]
        if n == 0:
            raise DataLoadError(f"{fname}: the labels {label_key} are empty; expected one "
                                "label per sample.")
        if not any(n in s for s in shapes):
            rows = {s[0] for s in shapes}
            count = (f"{shapes[0][0]} samples" if len(rows) == 1 else
                     "samples in numbers that differ from view to view")
            raise DataLoadError(
                f"{fname}: the labels {label_key} have {n} entries, but the views have {count} "
                "(" + ", ".join(f"{w} {_shape_str(s)}" for w, s in zip(wheres, shapes))
                + "); expected one label per sample."
            )
        flipped, square = [], []
        for v, (view, where) in enumerate(zip(views, wheres)):
            r, c = view.X.shape
            if r == n:
                if c == n:
                    square.append(where)
            elif c == n:
                view.X = view.X.T.tocsr() if sp.issparse(view.X) else \
                    np.ascontiguousarray(view.X.T)
                flipped.append(where)
            else:
                raise DataLoadError(
                    f"{fname}: {where} is {r} x {c}, but there are {n} labels in {label_key}: "
                    f"neither dimension matches. Expected every view to be {n} x n_features "
                    f"(or n_features x {n}); views: "
                    + ", ".join(f"{w} {_shape_str(s)}" for w, s in zip(wheres, shapes)) + "."
                )
        if not flipped:
            note = f"samples as rows in every view (row counts match the {n} labels)"
        elif len(flipped) == len(views):
            note = (f"samples as columns in every view (column counts match the {n} labels); "
                    "transposed to samples as rows")
        else:
            note = (f"samples as rows, except {', '.join(flipped)} stored samples-as-columns "
                    f"and transposed (matched to the {n} labels)")
        if square:
            note += (f"; {', '.join(square)} is square ({n} x {n}), so samples were assumed "
                     "to be its rows")
        return views, note
    rows = {s[0] for s in shapes}
    cols = {s[1] for s in shapes}
    listing = ", ".join(f"{w} {_shape_str(s)}" for w, s in zip(wheres, shapes))
    if len(rows) == 1:
        note = (f"no labels; samples assumed to be the rows ({shapes[0][0]}, the row count "
                "shared by every view)")
        if len(cols) == 1 and len(views) > 1:
            note += " - every view has the same shape, so the orientation is a guess"
        return views, note
    if len(cols) == 1:
        for view in views:
            view.X = view.X.T.tocsr() if sp.issparse(view.X) else np.ascontiguousarray(view.X.T)
        return views, (f"no labels; samples assumed to be the columns ({shapes[0][1]}, the "
                       "column count shared by every view), transposed to samples as rows")
    raise DataLoadError(
        f"{fname}: the views have different numbers of samples ({listing}); expected every "
        "view to hold the same samples, all as rows (n_samples x n_features_v) or all as "
        "columns."
    )


#: Fewest samples a loaded dataset may have: a clustering needs at least two clusters, and
#: RMSC and spectral clustering at least as many samples as clusters.
MIN_SAMPLES = 2


def _check_sample_count(n, fname):
    """Refuse a dataset no clustering can use (fewer than :data:`MIN_SAMPLES` samples)."""
    if n >= MIN_SAMPLES:
        return
    raise DataLoadError(
        f"{fname} holds {n} sample(s); clustering needs at least {MIN_SAMPLES} (and at least "
        "as many samples as clusters). If each view is one feature stored as a 1 x n row, "
        "store it as an n x 1 column (or add the labels, which decide the orientation)."
    )


def _looks_like_triplets(X):
    """Whether a dense matrix reads as MATLAB's ``[i, j, v] = find(A)``: an nnz x 3 array of
    whole-number 1-based row and column indices, no (row, column) pair twice, then values."""
    if sp.issparse(X) or X.ndim != 2 or X.shape[1] != 3 or X.shape[0] < 1:
        return False
    idx = X[:, :2]
    if not np.isfinite(idx).all() or (idx < 1).any() or (idx != np.round(idx)).any():
        return False
    pairs = idx.astype(np.int64)
    return np.unique(pairs, axis=0).shape[0] == pairs.shape[0]


def _triplet_views(views, wheres, labels, fname):
    """Views stored as (row, column, value) triplets made sparse; None when none looks so.

    Used only when the views as stored cannot hold the same samples: their row counts
    differ, or some view matches the labels in neither dimension (an ordinary n x 3
    view is never reinterpreted). MATLAB's ``find`` keeps no trailing all-zero
    rows or columns, so the shape is completed from the labels: with n labels a
    view whose row indices stay within n is n x (largest column index), samples as
    rows; one whose column indices stay within n is (largest row index) x n,
    samples as columns (turned by :func:`_orient`). Without labels the samples are
    assumed to be the rows, as many as the largest row index of any view (or the
    row count of the views stored as matrices).

    Returns
    -------
    (views, note) or None
    """
    which = [k for k, v in enumerate(views) if _looks_like_triplets(v.X)]
    rows = {v.X.shape[0] for v in views}
    if labels is not None and all(labels.shape[0] in v.X.shape for v in views):
        return None  # every view matches the labels as stored
    if not which or (labels is None and len(rows) == 1):
        return None
    if labels is not None:
        n = labels.shape[0]
        how = f"completed to the {n} labels"
    else:
        others = {views[k].X.shape[0] for k in range(len(views)) if k not in which}
        n = max([int(views[k].X[:, 0].max()) for k in which] + sorted(others)[-1:])
        how = (f"samples assumed to be the rows ({n}, the largest row index, since there are "
               "no labels)")
    out = list(views)
    for k in which:
        T = views[k].X
        i, j = T[:, 0].astype(np.int64) - 1, T[:, 1].astype(np.int64) - 1
        rows, cols = int(i.max()) + 1, int(j.max()) + 1
        if rows <= n:
            shape = (n, cols)
        elif labels is not None and cols <= n:
            shape = (rows, n)
        else:
            shape = (rows, cols)
        _guard(max(shape) + 1, 2, fname, f"indexing the sparse matrix {wheres[k]}")
        X = sp.csr_matrix((T[:, 2], (i, j)), shape=shape, dtype=np.float64)
        X.eliminate_zeros()
        out[k] = _View(X, "triplets")
    names = ", ".join(f"{wheres[k]} ({views[k].X.shape[0]:,} nonzeros -> "
                      f"{_shape_str(out[k].X.shape)})" for k in which)
    note = (f"{names} stored as (row, column, value) triplets, as MATLAB's [i, j, v] = find(X) "
            f"gives them: read as sparse matrices, {how}")
    return out, note


def _matrix_locator(r, c):
    return f"sample {r}, feature {c} (0-based)"


def _check_finite(X, where, fname, locate):
    data = X.data if sp.issparse(X) else X
    if np.isfinite(data).all():
        return
    if sp.issparse(X):
        coo = X.tocoo()
        bad = ~np.isfinite(coo.data)
        rows, cols = coo.row[bad], coo.col[bad]
    else:
        rows, cols = np.nonzero(~np.isfinite(X))
    kinds = []
    n_nan = int(np.isnan(data).sum())
    if n_nan:
        kinds.append(f"{n_nan} NaN")
    if rows.size - n_nan:
        kinds.append(f"{rows.size - n_nan} infinite")
    samples = np.unique(rows)
    listed = ", ".join(map(str, samples[:8])) + (" ..." if samples.size > 8 else "")
    raise DataLoadError(
        f"{fname}: {where} contains {' and '.join(kinds)} value(s), first at "
        f"{locate(int(rows[0]), int(cols[0]))}; samples affected: {listed}. Expected finite "
        "numbers: impute or drop those samples (in every view) and load the file again."
    )


def _encode_labels(raw, key, fname, locate=None):
    """Labels recoded to 0..c-1 and a note saying how."""
    if raw is None:
        return None, "no labels found (keys " + "/".join(LABEL_KEYS) + ")"
    raw = np.asarray(raw).ravel()
    if raw.dtype.kind in "biuf":
        bad = ~np.isfinite(raw.astype(np.float64))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            where = locate(i) if locate else f"sample {i} (0-based)"
            raise DataLoadError(
                f"{fname}: the labels {key} contain {int(bad.sum())} NaN or infinite "
                f"value(s), first at {where}; expected a class label for every sample."
            )
        frac = raw.astype(np.float64) != np.round(raw.astype(np.float64))
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            where = locate(i) if locate else f"sample {i} (0-based)"
            raise DataLoadError(
                f"{fname}: the labels {key} are not whole numbers (e.g. {raw[i]!r} at {where}); "
                "expected integer class labels (or class names, in a CSV)."
            )
        raw = raw.astype(np.int64)
    classes, labels = np.unique(raw, return_inverse=True)
    c = classes.size
    if raw.dtype.kind in "iu" and np.array_equal(classes, np.arange(c)):
        how = f"0..{c - 1} as stored"
    elif raw.dtype.kind in "iu" and np.array_equal(classes, np.arange(1, c + 1)):
        how = f"1..{c} shifted to 0..{c - 1}"
    else:
        shown = ", ".join(f"{cl}->{i}" for i, cl in enumerate(classes[:12]))
        how = f"recoded {shown}" + (" ..." if c > 12 else "")
    return labels.astype(np.int64), f"labels from {key}: {c} classes, {how}"
