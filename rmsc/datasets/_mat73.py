"""MATLAB v7.3 .mat files (HDF5, read with h5py): variables as scipy.io.loadmat gives them."""

from __future__ import annotations

import io

import numpy as np
import scipy.sparse as sp

from ._conventions import _Unsupported
from ._errors import DataLoadError, _guard, _short


def _read_mat73(raw, fname):
    import h5py

    try:
        f = h5py.File(io.BytesIO(raw), "r")
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be opened as a MATLAB v7.3 (HDF5) file ({_short(exc)}); it is "
            "corrupt or truncated. Save it again in MATLAB."
        ) from None
    variables = {}
    try:
        with f:
            for key in f.keys():
                if key.startswith("#"):  # '#refs#' (cell contents), '#subsystem#'
                    continue
                variables[key] = _h5_value(f, f[key], key, fname, 0)
    except DataLoadError:
        raise
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be read as a MATLAB v7.3 (HDF5) file ({_short(exc)}); it is "
            "corrupt or truncated. Save it again in MATLAB."
        ) from None
    return variables


def _h5_value(f, obj, where, fname, depth):
    """One MATLAB v7.3 value: ndarray (transposed back), sparse, object array (cell)."""
    import h5py

    if depth > 8:
        raise DataLoadError(f"{fname}: {where} nests cells more than 8 deep; expected views.")
    attrs = obj.attrs
    cls = attrs.get("MATLAB_class", None)
    if isinstance(cls, bytes):
        cls = cls.decode("ascii", "replace")
    elif cls is not None:
        cls = str(np.asarray(cls).ravel()[0] if np.asarray(cls).size else cls)
        if cls.startswith("b'"):
            cls = cls[2:-1]
    matlab = cls is not None
    if isinstance(obj, h5py.Group):
        if "MATLAB_sparse" in attrs:
            n_rows = int(np.asarray(attrs["MATLAB_sparse"]).ravel()[0])
            jc = np.asarray(obj["jc"][()]).ravel().astype(np.int64)
            ir = (np.asarray(obj["ir"][()]).ravel().astype(np.int64) if "ir" in obj
                  else np.zeros(0, np.int64))
            if "data" in obj:
                data = obj["data"][()]
                if data.dtype.names:
                    return _Unsupported("a complex sparse matrix")
                data = np.asarray(data).ravel()
            else:
                data = np.zeros(0)
            if cls == "logical":
                data = data.astype(bool)
            try:
                return sp.csc_matrix((data, ir, jc), shape=(n_rows, jc.size - 1))
            except ValueError as exc:
                raise DataLoadError(
                    f"{fname}: the sparse matrix {where} is malformed ({_short(exc)})."
                ) from None
        return _Unsupported("a struct" if cls == "struct" else
                            f"an object of class {cls}" if cls else "a group of arrays")
    if not isinstance(obj, h5py.Dataset):
        return _Unsupported(f"an HDF5 {type(obj).__name__}")
    if int(np.asarray(attrs.get("MATLAB_empty", 0)).ravel()[0] if "MATLAB_empty" in attrs
           else 0):
        return np.empty((0, 0), dtype=object if cls == "cell" else np.float64)
    if cls == "cell" or h5py.check_dtype(ref=obj.dtype) is not None:
        refs = obj[()]
        out = np.empty(refs.shape, dtype=object)
        for k, (idx, ref) in enumerate(np.ndenumerate(refs)):
            if not ref:
                raise DataLoadError(f"{fname}: element {k + 1} of the cell {where} is empty "
                                    "(a null reference).")
            out[idx] = _h5_value(f, f[ref], f"{where}{{{k + 1}}}", fname, depth + 1)
        return out.T if matlab else out
    if obj.dtype.names:
        return _Unsupported("complex numbers" if set(obj.dtype.names) >= {"real", "imag"}
                            else "a compound (record) array")
    if obj.dtype.kind not in "biuf":
        return _Unsupported(f"data of HDF5 type {obj.dtype}")
    shape = obj.shape
    _guard(int(np.prod(shape[:-1], dtype=np.int64)) if len(shape) > 1 else 1,
           shape[-1] if shape else 1, fname, f"reading {where}", itemsize=obj.dtype.itemsize)
    arr = np.asarray(obj[()])
    if cls == "char":
        try:
            return "".join(map(chr, arr.T.ravel().astype(np.int64)))
        except (ValueError, OverflowError):
            return _Unsupported("text")
    if matlab:  # MATLAB writes column-major arrays: HDF5 holds the transpose
        arr = arr.T
        if cls == "logical":
            arr = arr.astype(bool)
    return arr
