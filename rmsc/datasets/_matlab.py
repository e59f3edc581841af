"""MATLAB variables (either .mat version) to views and labels: the key conventions.

:func:`_parse_mat5` and :func:`_parse_mat73` (a file's bytes to views and labels) are what
:func:`rmsc.datasets.load` runs in its reader program (:mod:`rmsc.datasets._isolate`): this
module and those it imports stay light (no pandas, no scikit-learn), so that the program
starts quickly.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._conventions import (
    _EXTRA_LABEL_NAMES,
    LABEL_KEYS,
    VIEW_KEYS,
    _check_finite,
    _describe_value,
    _encode_labels,
    _find_key,
    _is_cell,
    _keys_listing,
    _matrix_locator,
    _numeric_view,
    _orient,
    _shape_str,
    _storage_notes,
    _triplet_views,
    _Unsupported,
    _valid_sparse,
)
from ._errors import DataLoadError
from ._mat5 import _read_mat5
from ._mat73 import _read_mat73

#: The formats' names in notes and messages.
MAT5_NAME, MAT73_NAME = "MATLAB v5", "MATLAB v7.3"


def _parse_mat5(raw, fname):
    """A MATLAB v5 file's bytes to (views, view names, labels, notes)."""
    return _interpret_mat(_read_mat5(raw, fname), fname, MAT5_NAME)


def _parse_mat73(raw, fname):
    """A MATLAB v7.3 (HDF5) file's bytes to (views, view names, labels, notes)."""
    return _interpret_mat(_read_mat73(raw, fname), fname, MAT73_NAME)


def _interpret_mat(variables, fname, fmt):
    notes = [f"Loaded from {fname} ({fmt})"]
    if not variables:
        raise DataLoadError(
            f"{fname} holds no variables; expected the views in a cell array under "
            f"{'/'.join(VIEW_KEYS)} and labels under {'/'.join(LABEL_KEYS)}."
        )
    keys = list(variables)
    label_key = _find_key(keys, LABEL_KEYS, _EXTRA_LABEL_NAMES)
    view_key = _find_key(keys, VIEW_KEYS)
    if view_key is None:
        cells = [k for k in keys if _is_cell(variables[k]) and k != label_key]
        if len(cells) == 1:
            view_key = cells[0]
            notes.append(f"views taken from the only cell array, {view_key}")
        else:
            found = (f"several cell arrays ({', '.join(cells)})" if cells
                     else "no cell array")
            raise DataLoadError(
                f"{fname}: no views found: none of the keys {', '.join(VIEW_KEYS)} exists and "
                f"the file holds {found}. Keys present: {_keys_listing(variables)}. Expected "
                "the views in a cell array under X (e.g. in MATLAB: X = {X1, X2, X3}; "
                "save(file, 'X', 'Y'))."
            )
    cell = variables[view_key]
    if not _is_cell(cell):
        raise DataLoadError(
            f"{fname}: {view_key} holds {_describe_value(cell)}, not a cell array of views. "
            f"Expected a 1 x m or m x 1 cell array with one (n_samples x n_features) matrix "
            f"per view (in MATLAB: {view_key} = {{X1, X2, X3}}). Keys present: "
            f"{_keys_listing(variables)}."
        )
    if cell.size == 0:
        raise DataLoadError(f"{fname}: the cell array {view_key} is empty; expected one matrix "
                            "per view.")
    if cell.ndim > 2 or (cell.ndim == 2 and min(cell.shape) > 1):
        raise DataLoadError(
            f"{fname}: {view_key} is a {_shape_str(cell.shape)} cell array; expected 1 x m or "
            "m x 1 (one matrix per view)."
        )
    notes.append(f"{cell.size} view(s) from the {_shape_str(cell.shape)} cell array {view_key}")
    views = []
    for k, item in enumerate(cell.ravel()):
        where = f"{view_key}{{{k + 1}}}"
        while _is_cell(item) and item.size == 1:  # a view wrapped in a 1x1 cell
            item = item.ravel()[0]
        views.append(_numeric_view(item, where, fname))

    labels_raw = None
    if label_key is not None:
        labels_raw = _mat_label_vector(variables[label_key], label_key, fname)
    wheres = [f"{view_key}{{{k + 1}}}" for k in range(len(views))]
    # Views kept as MATLAB's [i, j, v] = find(X) (an nnz x 3 matrix each) do not hold the same
    # samples as stored: read them as the sparse matrices they encode.
    triplets = _triplet_views(views, wheres, labels_raw, fname)
    if triplets is not None:
        views, triplet_note = triplets
        notes.append(triplet_note)
    views, orient_note = _orient(views, labels_raw, wheres, label_key, fname)
    notes.append(orient_note)
    notes.extend(_storage_notes(views, [f"{view_key}{{{k + 1}}}" for k in range(len(views))]))
    out_views = [v.X for v in views]
    for v, X in enumerate(out_views):
        _check_finite(X, f"{view_key}{{{v + 1}}} (view {v})", fname, _matrix_locator)
    labels, label_note = _encode_labels(labels_raw, label_key, fname)
    notes.append(label_note)
    return out_views, (), labels, notes


def _mat_label_vector(value, key, fname):
    """The labels variable as a 1-D array (numbers or strings)."""
    if _is_cell(value) and value.size > 1 and all(_as_text(x) is not None for x in value.ravel()):
        if value.ndim == 2 and min(value.shape) > 1:
            raise DataLoadError(
                f"{fname}: the labels {key} form a {_shape_str(value.shape)} cell array of "
                "text; expected a vector with one class name per sample."
            )
        return np.array([_as_text(x) for x in value.ravel()])  # class names, one per sample
    while _is_cell(value) and value.size >= 1:
        items = [np.asarray(_valid_sparse(x, key, fname).toarray() if sp.issparse(x) else x)
                 for x in value.ravel()]
        first = items[0]
        if any(x.shape != first.shape or not np.array_equal(x, first) for x in items[1:]):
            raise DataLoadError(
                f"{fname}: {key} is a cell array of {value.size} different label vectors; "
                "expected one label vector (a numeric row or column vector)."
            )
        value = items[0] if first.dtype != object else first
    if sp.issparse(value):
        value = _valid_sparse(value, key, fname).toarray()
    if isinstance(value, _Unsupported) or isinstance(value, str) or not isinstance(
            value, np.ndarray) or value.dtype == object or value.dtype.names:
        raise DataLoadError(
            f"{fname}: the labels {key} hold {_describe_value(value)}; expected a numeric row "
            "or column vector with one class label per sample."
        )
    if value.dtype.kind == "c":
        raise DataLoadError(f"{fname}: the labels {key} are complex numbers; expected integer "
                            "class labels.")
    if value.ndim > 1 and sum(s > 1 for s in value.shape) > 1:
        raise DataLoadError(
            f"{fname}: the labels {key} form a {_shape_str(value.shape)} matrix; expected a "
            "row or column vector with one class label per sample."
        )
    return value.ravel()


def _as_text(x):
    """A MATLAB char array (scipy: ndarray of str; h5py reader: str) as str, else None."""
    if isinstance(x, str):
        return x
    if isinstance(x, np.ndarray) and x.dtype.kind == "U" and x.size <= 1:
        return str(x.ravel()[0]) if x.size else ""
    return None
