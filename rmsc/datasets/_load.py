"""``rmsc.datasets.load``: a user's file (path or upload) to a MultiViewDataset.

The format is recognised from the content (:func:`_sniff`); each format has its
module (``_mat5``, ``_mat73``, ``_npz``, ``_csvzip``) and the key conventions
they share are in ``_conventions``.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from ._conventions import _FORMATS_HINT, _check_sample_count
from ._csvzip import _read_csv_zip
from ._dataset import MultiViewDataset
from ._errors import DataLoadError
from ._isolate import run_isolated
from ._matlab import MAT5_NAME, MAT73_NAME, _parse_mat5, _parse_mat73
from ._npz import _interpret_npz, _read_npz

_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def load(source, *, name=None, isolate=True):
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
          one cell array, that cell array is used. A view kept as (row, column,
          value) triplets, as MATLAB's ``[i, j, v] = find(X)`` gives them (an
          nnz x 3 matrix of 1-based indices and values), is read as the sparse
          matrix it encodes when the views as stored cannot hold the same samples.
        * ``.npz``: 2-D view arrays and a label array under one of the label
          keys; an optional ``view_names`` array lists which arrays are views
          (and their order), otherwise every other array is a view, in the
          archive's order.
        * ``.zip`` of CSV files: one CSV per view (named after the file,
          samples as rows, an optional header row) plus an optional
          ``labels.csv`` (one column; numbers or class names).
    name : str, optional
        The dataset's name; default: the file name without its suffix.
    isolate : bool, default=True
        Read MATLAB files (whose compiled readers can crash on a corrupt file)
        in a child program (``python -m rmsc.datasets._isolate``, which never
        imports the caller's ``__main__``), so that a crash becomes a
        :class:`DataLoadError` instead of ending this process (the program
        starts once; its cost: docs/measurements.md, "MATLAB files read in a
        child process"). ``False`` reads them here: for
        trusted files.

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
        On anything that is not a well-formed multi-view dataset (including
        one with fewer than 2 samples, which no clustering can use); the message
        names the file, the key or column, what was found and what was expected.
    """
    fname, raw = _read_source(source)
    if len(raw) == 0:
        raise DataLoadError(f"{fname} is empty (0 bytes); expected {_FORMATS_HINT}.")
    suffix = Path(fname).suffix.lower()
    stem = Path(fname).stem if fname and not fname.startswith("<") else "dataset"
    name = stem if name is None else str(name)
    fmt = _sniff(raw, suffix, fname)
    parse = _PARSERS[fmt]
    try:
        if isolate and fmt in ISOLATED_FORMATS:
            views, view_names, labels, notes = run_isolated(
                parse, raw, fname, what=_FORMAT_NAMES[fmt])
        else:
            views, view_names, labels, notes = parse(raw, fname)
    except MemoryError:
        raise DataLoadError(
            f"{fname} needs more memory than is available: it is too large, or corrupt and "
            "declares absurd sizes."
        ) from None
    _check_sample_count(views[0].shape[0], fname)
    return MultiViewDataset(
        name=name,
        views=views,
        labels=labels,
        view_names=view_names,
        description="; ".join(notes) + ".",
    )


def _parse_npz(raw, fname):
    return _interpret_npz(_read_npz(raw, fname), fname)


#: Format (as :func:`_sniff` names it) -> parser(raw, fname) giving
#: (views, view names, labels, notes).
_PARSERS = {"mat5": _parse_mat5, "mat73": _parse_mat73, "npz": _parse_npz,
            "zip": _read_csv_zip}
_FORMAT_NAMES = {"mat5": MAT5_NAME, "mat73": MAT73_NAME, "npz": "NumPy .npz",
                 "zip": "zip of CSV files"}
#: Formats read by compiled code that may crash on a corrupt file: read in a child process.
ISOLATED_FORMATS = ("mat5", "mat73")


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
