"""NumPy .npz archives: view arrays, labels, and an optional ``view_names`` array."""

from __future__ import annotations

import io
import zipfile

import numpy as np

from ._conventions import (
    _EXTRA_LABEL_NAMES,
    LABEL_KEYS,
    _check_finite,
    _describe_value,
    _encode_labels,
    _find_key,
    _matrix_locator,
    _numeric_view,
    _orient,
    _shape_str,
    _storage_notes,
)
from ._errors import DataLoadError, _guard, _short


def _check_unpacked_size(zf, fname):
    """Refuse archives whose members unpack to more than the memory available."""
    total = sum(max(info.file_size, 0) for info in zf.infolist())
    _guard(total, 1, fname, "unpacking the archive", itemsize=1)


def _read_npz(raw, fname):
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            _check_unpacked_size(zf, fname)
    except DataLoadError:
        raise
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be read as an .npz archive ({_short(exc)}); it is corrupt or "
            "truncated. Save it again with numpy.savez."
        ) from None
    arrays = {}
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            for key in npz.files:
                try:
                    arrays[key] = npz[key]
                except ValueError as exc:
                    if "allow_pickle" in str(exc):
                        raise DataLoadError(
                            f"{fname}: the array {key!r} holds Python objects, which are not "
                            "loaded (unpickling a file can run code); expected numeric arrays "
                            "(views) and a numeric or text label array."
                        ) from None
                    raise
    except DataLoadError:
        raise
    except MemoryError:
        raise DataLoadError(
            f"{fname}: an array declares more data than the memory available; the file may "
            "be corrupt."
        ) from None
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be read as an .npz archive ({_short(exc)}); it is corrupt or "
            "truncated. Save it again with numpy.savez."
        ) from None
    return arrays


def _interpret_npz(arrays, fname):
    notes = [f"Loaded from {fname} (NumPy .npz)"]
    keys = list(arrays)
    if not keys:
        raise DataLoadError(f"{fname} holds no arrays; expected view arrays and labels "
                            "(numpy.savez(file, view1=X1, view2=X2, labels=y)).")
    if {"data", "indices", "indptr", "shape", "format"} <= set(keys):
        raise DataLoadError(
            f"{fname} is a single sparse matrix saved by scipy.sparse.save_npz, i.e. one view; "
            "save a multi-view dataset as a MATLAB .mat file with the views in a cell array "
            "(scipy.io.savemat(file, {'X': cell, 'Y': y}) keeps them sparse)."
        )
    label_key = _find_key(keys, LABEL_KEYS, _EXTRA_LABEL_NAMES)
    names_key = _find_key(keys, ("view_names",))
    if names_key is not None:
        listed = arrays[names_key]
        if listed.dtype.kind not in "US" or listed.ndim != 1:
            raise DataLoadError(
                f"{fname}: {names_key} holds {_describe_value(listed)}; expected a 1-D array of "
                "the names of the view arrays, in order."
            )
        view_keys = [str(k) for k in listed]
        missing = [k for k in view_keys if k not in arrays]
        if missing:
            raise DataLoadError(
                f"{fname}: {names_key} lists {', '.join(map(repr, missing))}, which the archive "
                f"does not hold; arrays present: {', '.join(keys)}."
            )
        ignored = [k for k in keys if k not in view_keys and k not in (label_key, names_key)]
        notes.append(f"views listed in {names_key}")
        if ignored:
            notes.append(f"arrays not listed and ignored: {', '.join(ignored)}")
    else:
        view_keys = [k for k in keys if k != label_key]
    if not view_keys:
        raise DataLoadError(
            f"{fname}: no view arrays found, only {', '.join(keys)}; expected one 2-D array "
            f"per view besides the labels ({'/'.join(LABEL_KEYS)})."
        )
    views = []
    for key in view_keys:
        X = arrays[key]
        if X.ndim != 2 and X.dtype.kind in "biuf" and names_key is None:
            raise DataLoadError(
                f"{fname}: the array {key!r} has shape {X.shape}, but every array other than "
                f"the labels ({'/'.join(LABEL_KEYS)}) must be a 2-D view (n_samples x "
                "n_features). Rename the label array to 'labels', reshape a one-feature view "
                "with X.reshape(-1, 1), or add a 'view_names' array listing the views."
            )
        views.append(_numeric_view(X, f"array {key!r}", fname))
    labels_raw = None
    if label_key is not None:
        y = arrays[label_key]
        if y.ndim > 1 and sum(s > 1 for s in y.shape) > 1:
            raise DataLoadError(
                f"{fname}: the labels {label_key!r} form a {_shape_str(y.shape)} array; "
                "expected a vector with one class label per sample."
            )
        if y.dtype.kind not in "biufUS":
            raise DataLoadError(
                f"{fname}: the labels {label_key!r} have dtype {y.dtype}; expected integers or "
                "class names."
            )
        labels_raw = y.ravel()
    wheres = [f"array {k!r}" for k in view_keys]
    views, orient_note = _orient(views, labels_raw, wheres, repr(label_key), fname)
    notes.append(orient_note)
    notes.extend(_storage_notes(views, view_keys))
    out = [v.X for v in views]
    for key, X in zip(view_keys, out):
        _check_finite(X, f"array {key!r}", fname, _matrix_locator)
    labels, label_note = _encode_labels(labels_raw, repr(label_key), fname)
    notes.append(label_note)
    return out, view_keys, labels, notes
