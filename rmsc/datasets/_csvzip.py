"""A .zip of CSV files: one table per view (samples as rows) and an optional labels.csv."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from ._conventions import (
    _EXTRA_LABEL_NAMES,
    LABEL_KEYS,
    _check_finite,
    _encode_labels,
    _find_key,
)
from ._errors import DataLoadError, _short
from ._npz import _check_unpacked_size

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
        files = [i for i in infos if i.filename and not i.filename.endswith("/")
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
