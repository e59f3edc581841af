"""rmsc.datasets: loading users' files (.mat v5 / v7.3, .npz, .zip of CSVs) and bad input."""

import io
import zipfile
from pathlib import Path

import h5py
import numpy as np
import pandas as pd
import pytest
import scipy.io
import scipy.sparse as sp

from rmsc import datasets
from rmsc.datasets import DataLoadError, MultiViewDataset, load

#: The paper's .mat files' conventions, written from the bundled copies (conftest).
from tests.support import (PAPER_MATS, _segfault, cell, named, paper_mat_variables,  # noqa: E402
                           write_mat73)


# ---------------------------------------------------------------------------
# helpers: writing files in the conventions users have
# ---------------------------------------------------------------------------


def mat5_bytes(variables):
    buf = io.BytesIO()
    scipy.io.savemat(buf, variables)
    return buf.getvalue()


def make_zip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return buf.getvalue()


def csv_text(X, header=None):
    lines = [",".join(header)] if header is not None else []
    lines += [",".join(repr(float(v)) for v in row) for row in X]
    return "\n".join(lines) + "\n"


@pytest.fixture
def small():
    """Two dense views of 12 samples, a sparse one, labels 1..3 (MATLAB style)."""
    rng = np.random.default_rng(3)
    A = rng.standard_normal((12, 4))
    B = rng.integers(0, 9, size=(12, 7)).astype(np.uint8)
    C = sp.random(12, 30, density=0.2, random_state=4, format="csc")
    y = np.repeat([1, 2, 3], 4)
    return A, B, C, y


# ---------------------------------------------------------------------------
# the paper's three .mat files, to the shapes in their README: written by the
# conftest.paper_mats fixture in the files' own conventions (keys, 1xm / mx1
# cells, sparse CSC cells, dense uint8/uint16, labels 1..c) from the bundled copies
# ---------------------------------------------------------------------------


def test_paper_digit_loads_as_in_readme_and_matches_the_bundled_copy(paper_mats):
    d = load(paper_mats / "digit_handwritten.mat", name="Digit")
    assert d.name == "Digit"
    assert d.n_samples == 2000 and d.n_features == (240, 76, 216, 47, 64, 6)
    assert all(isinstance(X, np.ndarray) and X.dtype == np.float64 for X in d.views)
    assert np.array_equal(np.bincount(d.labels), [200] * 10)
    assert np.array_equal(d.labels, np.repeat(np.arange(10), 200))  # 1..10 in blocks -> 0..9
    assert "samples as rows" in d.description and "1..10 shifted to 0..9" in d.description
    bundled = datasets.load_digit()
    # PIX and FAC are exact integers in both; the bundled CSV values carry ~5 digits.
    assert np.array_equal(d.views[0], bundled.views[0])
    assert np.array_equal(d.views[2], bundled.views[2])
    for v in (1, 3, 4, 5):
        np.testing.assert_allclose(d.views[v], bundled.views[v], rtol=1e-3, atol=1e-3)
    assert np.array_equal(d.labels, bundled.labels)


def test_paper_reuters_stays_sparse(paper_mats):
    d = load(paper_mats / "reuters_1200.mat")
    assert d.name == "reuters_1200"
    assert d.n_samples == 1200 and d.n_features == (2000,) * 5
    assert all(sp.issparse(X) and X.format == "csr" for X in d.views)
    density = np.mean([X.nnz / (1200 * 2000) for X in d.views])
    assert 0.01 < density < 0.025  # "~1.7 % nonzero"
    assert np.array_equal(np.bincount(d.labels), [200] * 6)
    assert np.all(np.diff(d.labels) >= 0)  # sorted
    empty_rows = sum(int(np.sum(X.getnnz(axis=1) == 0)) for X in d.views)
    assert empty_rows == 1  # "one document has an empty row in one view"
    assert "fea" in d.description and "gt" in d.description


def test_paper_3sources_column_cell_of_dense_counts(paper_mats):
    d = load(paper_mats / "3sources.mat")
    assert d.n_samples == 169 and d.n_features == (3560, 3631, 3068)
    for X in d.views:
        assert isinstance(X, np.ndarray)
        assert np.array_equal(X, np.round(X)) and X.min() == 0 and X.max() > 1  # raw counts
        assert 0.02 < np.count_nonzero(X) / X.size < 0.06
    assert np.array_equal(np.bincount(d.labels), [56, 21, 11, 18, 51, 12])
    assert not np.all(np.diff(d.labels) >= 0)  # interleaved
    assert "3x1 cell array X" in d.description
    assert "samples as rows in every view" in d.description
    assert "uint8" in d.description


def test_file_objects_give_the_same_dataset_as_the_path(paper_mats):
    path = paper_mats / "3sources.mat"
    from_path = load(path)
    upload = named(path.read_bytes(), "3sources.mat")
    upload.read(100)  # a half-read upload is read from the start
    assert load(upload).fingerprint == from_path.fingerprint
    with open(path, "rb") as fh:
        assert load(fh).fingerprint == from_path.fingerprint
    assert load(str(path)).fingerprint == from_path.fingerprint


@pytest.mark.parametrize("file, name", [("reuters_1200.mat", "Reuter"),
                                        ("3sources.mat", "3-Sources")])
def test_bundled_text_sets_equal_their_mat_files(paper_mats, tmp_path, file, name):
    """load_bundled gives what load(.mat) gives, from v5 and from v7.3 (h5py) alike."""
    bundled = datasets.load_bundled(name)
    path73 = tmp_path / file
    write_mat73(path73, paper_mat_variables(file))
    for path in (paper_mats / file, path73):
        d = load(path, name=name)  # the .mat files store no view names: the bundle's
        assert d.replace(view_names=bundled.view_names).fingerprint == bundled.fingerprint
        for X, Y in zip(d.views, bundled.views):
            assert type(X) is type(Y) and X.dtype == Y.dtype == np.float64
        notes = [x.description.split("Loaded from ", 1)[1].split("; ", 1)[1] for x in (d, bundled)]
        assert notes[0] == notes[1]  # the same conventions read, the same notes
    view_key, label_key, column = PAPER_MATS[file]
    assert f"{'x'.join(map(str, paper_mat_variables(file)[view_key].shape))} cell array " \
           f"{view_key}" in bundled.description and f"labels from {label_key}" in bundled.description
    assert bundled.name == name and bundled.description.startswith(
        {"Reuter": "Reuters RCV1/RCV2", "3-Sources": "3-Sources (Greene"}[name])
    assert "Loaded from " + {"Reuter": "reuter.npz", "3-Sources": "3sources.npz"}[name] + \
           f" (bundled copy of {file})" in bundled.description


# ---------------------------------------------------------------------------
# MATLAB v5 conventions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("view_key", ["X", "fea", "data", "views"])
@pytest.mark.parametrize("label_key", ["Y", "y", "gt", "truelabel", "labels", "gnd"])
def test_mat5_key_conventions(small, view_key, label_key):
    A, B, C, y = small
    d = load(named(mat5_bytes({view_key: cell(A, B, C), label_key: y}), "u.mat"))
    assert d.n_features == (4, 7, 30)
    np.testing.assert_array_equal(d.views[0], A)
    np.testing.assert_array_equal(d.views[1], B.astype(float))
    assert sp.issparse(d.views[2]) and (d.views[2] != C).nnz == 0
    np.testing.assert_array_equal(d.labels, y - 1)
    assert label_key in d.description and view_key in d.description


def test_mat5_samples_as_columns_are_transposed_and_said_so(small):
    A, B, C, y = small
    raw = mat5_bytes({"X": cell(A.T, B.T, C.T.tocsc(), column=True), "Y": y[:, None]})
    d = load(named(raw, "cols.mat"))
    np.testing.assert_array_equal(d.views[0], A)
    np.testing.assert_array_equal(d.views[1], B)
    assert sp.issparse(d.views[2]) and (d.views[2] != C).nnz == 0
    assert "samples as columns in every view" in d.description


def test_mat5_mixed_orientation_is_decided_per_view_from_the_labels(small):
    A, B, C, y = small
    d = load(named(mat5_bytes({"X": cell(A, B.T), "Y": y}), "mixed.mat"))
    assert d.n_features == (4, 7)
    assert "X{2} stored samples-as-columns" in d.description


def test_mat5_labels_any_coding(small):
    A, B, _, _ = small
    y = np.array([0, 0, 5, 5, 9, 9, 0, 5, 9, 0, 5, 9])
    d = load(named(mat5_bytes({"X": cell(A, B), "gnd": y[None, :]}), "codes.mat"))
    np.testing.assert_array_equal(d.labels, np.unique(y, return_inverse=True)[1])
    assert "0->0, 5->1, 9->2" in d.description
    d0 = load(named(mat5_bytes({"X": cell(A, B), "y": np.arange(12) % 3}), "zero.mat"))
    np.testing.assert_array_equal(d0.labels, np.arange(12) % 3)
    assert "0..2 as stored" in d0.description


def test_mat5_labels_wrapped_in_a_cell(small):
    A, B, _, y = small
    d = load(named(mat5_bytes({"X": cell(A, B), "truelabel": cell(y, y)}), "tl.mat"))
    np.testing.assert_array_equal(d.labels, y - 1)


def test_mat5_without_labels_and_without_known_keys(small):
    A, B, _, _ = small
    d = load(named(mat5_bytes({"myviews": cell(A, B), "note": "hello"}), "nolabels.mat"))
    assert d.labels is None and d.n_samples == 12
    assert "only cell array, myviews" in d.description and "no labels" in d.description
    d = load(named(mat5_bytes({"X": cell(A.T, B.T)}), "nolabels_cols.mat"))
    assert d.n_samples == 12 and "columns" in d.description


def test_path_name_defaults_to_the_stem(tmp_path, small):
    A, B, _, y = small
    path = tmp_path / "my data.mat"
    path.write_bytes(mat5_bytes({"X": cell(A, B), "Y": y}))
    assert load(path).name == "my data"
    assert load(path, name="Mine").name == "Mine"


# ---------------------------------------------------------------------------
# MATLAB v7.3 (HDF5)
# ---------------------------------------------------------------------------


def test_mat73_row_cell_dense_integer_sparse(tmp_path, small):
    A, B, C, y = small
    path = tmp_path / "v73.mat"
    write_mat73(path, {"X": cell(A, B, C), "Y": y[:, None].astype(np.float64)})
    with h5py.File(path, "r") as f:  # the layout really is MATLAB's: stored transposed
        assert f["Y"].shape == (1, 12) and f["X"].shape == (3, 1)
    d = load(path)
    np.testing.assert_array_equal(d.views[0], A)
    np.testing.assert_array_equal(d.views[1], B)
    assert sp.issparse(d.views[2]) and (d.views[2] != C).nnz == 0
    np.testing.assert_array_equal(d.labels, y - 1)
    assert "MATLAB v7.3" in d.description and "samples as rows" in d.description


def test_mat73_column_cell_samples_as_columns_from_upload(tmp_path, small):
    A, B, C, y = small
    path = tmp_path / "v73c.mat"
    write_mat73(path, {"fea": cell(A.T, B.T, C.T, column=True), "gt": y.astype(np.uint8),
                       "title": "a note"})
    d = load(named(path.read_bytes(), "v73c.mat"))
    np.testing.assert_array_equal(d.views[0], A)
    np.testing.assert_array_equal(d.views[1], B)
    assert (d.views[2] != C).nnz == 0
    assert "samples as columns in every view" in d.description


def test_mat73_errors_name_the_key(tmp_path, small):
    A, B, _, y = small
    path = tmp_path / "bad73.mat"
    write_mat73(path, {"X": cell(A, "text"), "Y": y.astype(float)})
    with pytest.raises(DataLoadError, match=r"bad73.mat: X\{2\} holds the text 'text'"):
        load(path)
    path2 = tmp_path / "nocell73.mat"
    write_mat73(path2, {"X": A, "Y": y.astype(float)})
    with pytest.raises(DataLoadError, match=r"nocell73.mat: X holds a 12x4 float64 array, not a "
                                            r"cell array"):
        load(path2)


def test_mat73_truncated(tmp_path, small):
    A, B, _, y = small
    path = tmp_path / "t.mat"
    write_mat73(path, {"X": cell(A, B), "Y": y.astype(float)})
    raw = path.read_bytes()
    for cut in (100, 600, len(raw) // 2, len(raw) - 10):
        with pytest.raises(DataLoadError, match="t.mat"):
            load(named(raw[:cut], "t.mat"))


# ---------------------------------------------------------------------------
# .npz and .zip of CSVs
# ---------------------------------------------------------------------------


def npz_bytes(**arrays):
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def test_npz_views_in_file_order(small):
    A, B, _, y = small
    d = load(named(npz_bytes(pix=A, fou=B, labels=y), "views.npz"))
    assert d.view_names == ("pix", "fou") and d.n_features == (4, 7)
    np.testing.assert_array_equal(d.labels, y - 1)


def test_npz_view_names_selects_and_orders(small):
    A, B, _, y = small
    d = load(named(npz_bytes(a=A, b=B, extra=np.arange(3), view_names=np.array(["b", "a"]),
                             y=y), "sel.npz"))
    assert d.view_names == ("b", "a") and d.n_features == (7, 4)
    assert "ignored: extra" in d.description


def test_bundled_digit_npz_loads_with_load():
    d = load(datasets.SAMPLE_DATA / "digit.npz")
    ref = datasets.load_digit()
    assert d.view_names == ref.view_names
    for X, Y in zip(d.views, ref.views):
        np.testing.assert_array_equal(X, Y)
    np.testing.assert_array_equal(d.labels, ref.labels)


def test_zip_of_csvs_with_headers_index_and_class_names(small):
    A, B, _, y = small
    names = np.array(["cat", "dog", "eel"])[y - 1]
    members = {
        "mydata/A.csv": pd.DataFrame(A, columns=[f"a{k}" for k in range(4)]).to_csv(),
        "mydata/B.csv": csv_text(B),
        "mydata/labels.csv": "\n".join(names) + "\n",
        "mydata/README.txt": "notes",
        "__MACOSX/mydata/._A.csv": "junk",
    }
    d = load(named(make_zip(members), "mine.zip"))
    assert d.view_names == ("A", "B")
    np.testing.assert_allclose(d.views[0], A, rtol=1e-15)
    np.testing.assert_array_equal(d.views[1], B)
    np.testing.assert_array_equal(d.labels, y - 1)
    assert "cat->0, dog->1, eel->2" in d.description
    assert "row index and dropped in mydata/A.csv" in d.description
    assert "README.txt" in d.description


def test_zip_labels_with_header_and_semicolons(small):
    A, B, _, y = small
    a = "\n".join(";".join(str(v) for v in row) for row in A)
    d = load(named(make_zip({"v1.csv": a, "v2.csv": csv_text(B),
                             "labels.csv": "label\n" + "\n".join(map(str, y))}), "s.zip"))
    np.testing.assert_allclose(d.views[0], A)
    np.testing.assert_array_equal(d.labels, y - 1)


# ---------------------------------------------------------------------------
# bad input: every error names the file, the key or column, found and expected
# ---------------------------------------------------------------------------


def test_unknown_keys_are_listed(small):
    A, B, _, y = small
    raw = mat5_bytes({"first": cell(A), "second": cell(B), "lab": y})
    with pytest.raises(DataLoadError) as err:
        load(named(raw, "keys.mat"))
    msg = str(err.value)
    assert msg.startswith("keys.mat: no views found")
    assert "first (a 1x1 cell array)" in msg and "lab (a 1x12" in msg
    assert "X, fea, data, views" in msg


def test_mat_without_a_cell_array(small):
    A, _, _, y = small
    with pytest.raises(DataLoadError, match=r"plain.mat: X holds a 12x4 float64 array, not a "
                                            r"cell array of views.*X = \{X1, X2, X3\}"):
        load(named(mat5_bytes({"X": A, "Y": y}), "plain.mat"))
    with pytest.raises(DataLoadError, match=r"none.mat: no views found.*no cell array.*Keys "
                                            r"present: A \(a 12x4 float64 array\)"):
        load(named(mat5_bytes({"A": A}), "none.mat"))


def test_views_with_different_sample_counts(small):
    A, B, _, _ = small
    with pytest.raises(DataLoadError, match=r"counts.mat: the views have different numbers of "
                                            r"samples \(X\{1\} 12x4, X\{2\} 11x7\)"):
        load(named(mat5_bytes({"X": cell(A, B[:11])}), "counts.mat"))
    with pytest.raises(DataLoadError, match=r"c.zip: the views have different numbers of "
                                            r"samples \(a.csv 12 rows, b.csv 11 rows\)"):
        load(named(make_zip({"a.csv": csv_text(A), "b.csv": csv_text(B[:11])}), "c.zip"))


def test_labels_of_the_wrong_length(small):
    A, B, _, y = small
    with pytest.raises(DataLoadError, match=r"len.mat: the labels Y have 13 entries, but the views "
                                            r"have 12 samples \(X\{1\} 12x4, X\{2\} 12x7\); "
                                            r"expected one label per sample"):
        load(named(mat5_bytes({"X": cell(A, B), "Y": np.arange(13)}), "len.mat"))
    with pytest.raises(DataLoadError, match=r"one.mat: X\{2\} is 11 x 7, but there are 12 labels "
                                            r"in Y: neither dimension matches"):
        load(named(mat5_bytes({"X": cell(A, B[:11]), "Y": y}), "one.mat"))
    with pytest.raises(DataLoadError, match=r"len.zip: labels.csv has 11 labels, but the views "
                                            r"have 12 samples"):
        load(named(make_zip({"a.csv": csv_text(A), "labels.csv": "\n".join(map(str, y[:11]))}),
                   "len.zip"))
    with pytest.raises(DataLoadError, match=r"len.npz: the labels 'labels' have 5 entries, but "
                                            r"the views have 12 samples"):
        load(named(npz_bytes(a=A, labels=y[:5]), "len.npz"))


def test_non_numeric_cells(small):
    A, B, _, y = small
    with pytest.raises(DataLoadError, match=r"txt.mat: X\{2\} holds text; expected a numeric"):
        load(named(mat5_bytes({"X": cell(A, "abc"), "Y": y}), "txt.mat"))
    with pytest.raises(DataLoadError, match=r"st.mat: X\{1\} holds a 1x1 struct"):
        load(named(mat5_bytes({"X": cell({"a": A}, B), "Y": y}), "st.mat"))
    text = csv_text(A, header=["p", "q", "r", "s"]).splitlines()
    text[4] = text[4].split(",", 1)[0] + ",oops," + text[4].split(",", 2)[2]
    with pytest.raises(DataLoadError, match=r"bad.zip: a.csv, line 5, column 2 \('q'\): found "
                                            r"'oops'; expected a number"):
        load(named(make_zip({"a.csv": "\n".join(text), "b.csv": csv_text(B)}), "bad.zip"))
    text = csv_text(B).splitlines()
    text[2] = ",".join(text[2].split(",")[:-1] + [""])
    with pytest.raises(DataLoadError, match=r"gap.zip: b.csv, line 3, column 7: found an empty "
                                            r"cell; expected a number"):
        load(named(make_zip({"a.csv": csv_text(A), "b.csv": "\n".join(text)}), "gap.zip"))
    with pytest.raises(DataLoadError, match=r"obj.npz: the array 'a' holds Python objects"):
        load(named(npz_bytes(a=np.array([{"x": 1}] * 3, dtype=object), labels=y), "obj.npz"))


def test_nan_and_inf_say_where(small):
    A, B, C, y = small
    A = A.copy()
    A[5, 2] = np.nan
    A[7, 0] = np.inf
    with pytest.raises(DataLoadError, match=r"nan.mat: X\{1\} \(view 0\) contains 1 NaN and 1 "
                                            r"infinite value\(s\), first at sample 5, feature 2 "
                                            r"\(0-based\); samples affected: 5, 7"):
        load(named(mat5_bytes({"X": cell(A, B), "Y": y}), "nan.mat"))
    C = C.tocsr(copy=True)
    C.data[0] = -np.inf
    r = int(np.flatnonzero(C.getnnz(axis=1))[0])
    with pytest.raises(DataLoadError, match=rf"inf.mat: X\{{2\}} \(view 1\) contains 1 infinite "
                                            rf"value\(s\), first at sample {r}"):
        load(named(mat5_bytes({"X": cell(B, C), "Y": y}), "inf.mat"))
    with pytest.raises(DataLoadError, match=r"nan.zip: a.csv contains 1 NaN and 1 infinite "
                                            r"value\(s\), first at line 7, column 3 of a.csv"):
        load(named(make_zip({"a.csv": csv_text(A, header=list("pqrs")), "labels.csv":
                             "\n".join(map(str, y))}), "nan.zip"))
    with pytest.raises(DataLoadError, match=r"lab.mat: the labels Y contain 1 NaN or infinite "
                                            r"value\(s\), first at sample 3"):
        load(named(mat5_bytes({"X": cell(B), "Y": np.where(np.arange(12) == 3, np.nan, y)}),
                   "lab.mat"))


@pytest.mark.parametrize("fname", ["empty.mat", "empty.npz", "empty.zip", "empty.dat"])
def test_empty_files(tmp_path, fname):
    path = tmp_path / fname
    path.write_bytes(b"")
    with pytest.raises(DataLoadError, match=rf"{fname} is empty \(0 bytes\); expected"):
        load(path)


def test_empty_members_and_archives(small):
    A, _, _, _ = small
    with pytest.raises(DataLoadError, match=r"e.zip: b.csv is empty"):
        load(named(make_zip({"a.csv": csv_text(A), "b.csv": "\n\n"}), "e.zip"))
    with pytest.raises(DataLoadError, match=r"n.zip holds no CSV files \(members: notes.txt\)"):
        load(named(make_zip({"notes.txt": "x"}), "n.zip"))
    with pytest.raises(DataLoadError, match=r"e.mat: the cell array X is empty"):
        load(named(mat5_bytes({"X": np.empty((1, 0), dtype=object)}), "e.mat"))
    with pytest.raises(DataLoadError, match=r"z.mat: X\{1\} is an empty 0x0 matrix"):
        load(named(mat5_bytes({"X": cell(np.zeros((0, 0)))}), "z.mat"))


def test_corrupt_and_truncated_files(small):
    A, B, _, y = small
    raw = mat5_bytes({"X": cell(A, B), "Y": y})
    for cut in (50, 200, len(raw) // 2, len(raw) - 3):
        with pytest.raises(DataLoadError, match=r"^cut.mat"):
            load(named(raw[:cut], "cut.mat"))
    zraw = make_zip({"a.csv": csv_text(A), "b.csv": csv_text(B)})
    with pytest.raises(DataLoadError, match=r"cut.zip could not be read as a zip archive"):
        load(named(zraw[: len(zraw) - 30], "cut.zip"))
    nraw = npz_bytes(a=A, labels=y)
    with pytest.raises(DataLoadError, match=r"cut.npz"):
        load(named(nraw[: len(nraw) // 2], "cut.npz"))
    with pytest.raises(DataLoadError, match=r"junk.mat could not be read as a MATLAB v5"):
        load(named(b"this is not a mat file" * 10, "junk.mat"))
    with pytest.raises(DataLoadError, match=r"Cannot tell the format of notes.bin"):
        load(named(b"hello", "notes.bin"))


def test_sources_that_are_not_files(tmp_path):
    with pytest.raises(DataLoadError, match=r"nope.mat: no such file"):
        load(tmp_path / "nope.mat")
    with pytest.raises(DataLoadError, match=r"is a folder"):
        load(tmp_path)
    with pytest.raises(DataLoadError, match=r"Cannot load from a int"):
        load(3)
    with pytest.raises(DataLoadError, match=r"opened in text mode"):
        load(io.StringIO("a,b"))


def test_errors_are_value_errors(paper_mats):
    assert issubclass(DataLoadError, ValueError)
    assert isinstance(load(paper_mats / "3sources.mat"), MultiViewDataset)


# ---------------------------------------------------------------------------
# bundled data, synthetic data, preprocessing
# ---------------------------------------------------------------------------


def test_bundled_names_and_loading():
    names = datasets.bundled_names()
    assert names == ["Digit", "Digit-small", "Subspaces", "Reuter", "3-Sources"]
    for name in names:
        d = datasets.load_bundled(name.upper())  # case-insensitive
        assert d.name == name and d.labels is not None and d.description
    with pytest.raises(ValueError, match=r"No bundled dataset called 'Iris'; choose one of "
                                         r"Digit, Digit-small, Subspaces, Reuter, 3-Sources"):
        datasets.load_bundled("Iris")


def test_digit_small_is_a_balanced_subset_of_digit_with_pictures():
    full = datasets.load_digit()
    small_ = datasets.load_bundled("Digit-small")
    assert small_.n_samples == 300 and small_.view_names == full.view_names
    assert np.array_equal(np.bincount(small_.labels), [30] * 10)
    assert np.all(np.diff(small_.labels) >= 0)  # class blocks
    # every row is a Digit sample, with its own label, in every view
    pix = {row.tobytes(): k for k, row in enumerate(full.views[0])}
    rows = np.array([pix[row.tobytes()] for row in small_.views[0]])
    assert np.unique(rows).size == 300
    for X, Y in zip(small_.views, full.views):
        np.testing.assert_array_equal(X, Y[rows])
    np.testing.assert_array_equal(small_.labels, full.labels[rows])
    assert small_.images().shape == (300, 16, 15)
    assert datasets.load_digit_small().fingerprint == small_.fingerprint  # deterministic


def test_make_multiview_subspaces_is_a_union_of_subspaces():
    d = datasets.make_multiview_subspaces(n_clusters=4, n_per_cluster=25, n_views=2,
                                          view_dims=(12, 30), subspace_dim=2, noise=0.0,
                                          random_state=1)
    assert d.n_samples == 100 and d.n_features == (12, 30) and d.n_clusters == 4
    np.testing.assert_array_equal(d.labels, np.repeat(np.arange(4), 25))
    for X in d.views:
        assert np.mean(np.linalg.norm(X, axis=1)) == pytest.approx(1.0)
        for c in range(4):  # each cluster spans exactly a 2-dimensional subspace
            s = np.linalg.svd(X[d.labels == c], compute_uv=False)
            assert s[2] < 1e-10 * s[0] and s[1] > 1e-3 * s[0]
        # all clusters together span the 8-dimensional latent space
        s = np.linalg.svd(X, compute_uv=False)
        assert s[8] < 1e-10 * s[0] and s[7] > 1e-3 * s[0]


def test_make_multiview_subspaces_noise_and_seed():
    clean = datasets.make_multiview_subspaces(noise=0.0, random_state=4)
    noisy = datasets.make_multiview_subspaces(noise=0.2, random_state=4)
    for X, Y in zip(clean.views, noisy.views):
        assert np.linalg.norm(Y - X, axis=1).mean() == pytest.approx(0.2, rel=0.15)
    again = datasets.make_multiview_subspaces(noise=0.2, random_state=4)
    assert again.fingerprint == noisy.fingerprint
    assert datasets.make_multiview_subspaces(random_state=5).fingerprint != noisy.fingerprint
    assert datasets.make_multiview_subspaces(n_views=2, view_dims=7).n_features == (7, 7)
    assert "noise 0.2" in noisy.description and "seed 4" in noisy.description


@pytest.mark.parametrize("kwargs, message", [
    ({"n_views": 2}, "view_dims gives 3 dimension"),
    ({"n_clusters": 0}, "n_clusters must be a positive integer"),
    ({"noise": -1}, "noise must be a finite non-negative number"),
    ({"view_dims": (20, 0, 5)}, "view_dims entry must be a positive integer"),
])
def test_make_multiview_subspaces_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        datasets.make_multiview_subspaces(**kwargs)


def test_preprocess_methods(paper_mats):
    from sklearn.feature_extraction.text import TfidfTransformer

    d = load(paper_mats / "3sources.mat")
    d = d.replace(outlier_mask=np.zeros((3, 169), bool))
    u = datasets.preprocess(d, "unit_l2")
    for X in u.views:
        np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    assert "Preprocessed (unit_l2): every sample scaled to unit L2 norm" in u.description
    assert u.description.startswith(d.description)
    t = datasets.preprocess(d, "tfidf")
    np.testing.assert_allclose(t.views[1], TfidfTransformer().fit_transform(d.views[1]).toarray())
    s = datasets.preprocess(d, "standardize")
    np.testing.assert_allclose(s.views[0].mean(axis=0), 0, atol=1e-12)
    kept = s.views[0].std(axis=0)
    np.testing.assert_allclose(kept[kept > 0], 1.0)
    for out in (u, t, s):
        assert out.outlier_mask is not None and np.array_equal(out.labels, d.labels)
    assert datasets.preprocess(d, "none") is d
    with pytest.raises(ValueError, match="Unknown preprocessing 'l2'"):
        datasets.preprocess(d, "l2")
    neg = datasets.make_multiview_subspaces(random_state=0)
    with pytest.raises(ValueError, match=r"View 'view 1 \(20-d\)' of Subspaces: tf-idf needs "
                                         r"non-negative counts"):
        datasets.preprocess(neg, "tfidf")


def test_log1p_weights_counts_then_scales_rows():
    import scipy.sparse as sp
    from rmsc.preprocessing import log1p

    e = np.e
    X = np.array([[0.0, e - 1.0, e ** 2 - 1.0], [0.0, 0.0, 0.0]])
    # row 0: log1p gives [0, 1, 2], norm sqrt(5); the empty row stays empty
    expect = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]) / np.array([[np.sqrt(5)], [1.0]])
    np.testing.assert_allclose(log1p(X), expect)
    S = log1p(sp.csr_matrix(X))
    assert sp.issparse(S)
    np.testing.assert_allclose(S.toarray(), expect)
    with pytest.raises(ValueError, match="log1p needs non-negative counts"):
        log1p(-X)
    d = datasets.load_bundled("3-Sources")
    w = datasets.preprocess(d, "log1p")
    assert "Preprocessed (log1p): log(1 + count)" in w.description
    np.testing.assert_allclose(w.views[0].toarray() if sp.issparse(w.views[0]) else w.views[0],
                               log1p(d.views[0]).toarray() if sp.issparse(d.views[0])
                               else log1p(d.views[0]))


def test_preprocess_keeps_sparse_views_sparse(paper_mats):
    d = load(paper_mats / "reuters_1200.mat")
    with pytest.warns(UserWarning, match="all zero"):  # the README's one empty document
        u = datasets.preprocess(d, "unit_l2")
    assert all(sp.issparse(X) for X in u.views)


# ---------------------------------------------------------------------------
# property-based: loaders on garbage, truncated and corrupted bytes; round trips
# ---------------------------------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
SUFFIXES = st.sampled_from(["x.mat", "x.npz", "x.zip", "x.csv", "x", "x.bin"])
MAGIC = st.sampled_from([b"", b"MATLAB 5.0 MAT-file" + b" " * 97 + b"\x00" * 8 + b"\x00\x01IM",
                         b"MATLAB 7.3 MAT-file", b"PK\x03\x04", b"PK\x05\x06",
                         b"\x89HDF\r\n\x1a\n", b"\x93NUMPY"])


def _valid_files():
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((6, 3)), rng.integers(0, 5, (6, 4)).astype(np.uint8)
    S = sp.random(6, 9, density=0.3, random_state=1, format="csc")
    y = np.array([1, 1, 2, 2, 3, 3])
    zipped = io.BytesIO()
    scipy.io.savemat(zipped, {"X": cell(A, B, S), "Y": y}, do_compression=True)
    out = {"v5.mat": mat5_bytes({"X": cell(A, B, S), "Y": y}),
           "v5z.mat": zipped.getvalue(),
           "v.npz": npz_bytes(a=A, b=B, labels=y),
           "v.zip": make_zip({"a.csv": csv_text(A), "b.csv": csv_text(B),
                              "labels.csv": "\n".join(map(str, y))})}
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "v73.mat"
        write_mat73(path, {"X": cell(A, B, S), "Y": y[:, None].astype(float)})
        out["v73.mat"] = path.read_bytes()
    return out


VALID = _valid_files()


def _load_or_data_error(raw, fname):
    """The property: a dataset, or a DataLoadError naming the file - nothing else."""
    try:
        d = load(named(raw, fname))
    except DataLoadError as exc:
        assert fname in str(exc) or "<" in str(exc)
        return None
    assert isinstance(d, MultiViewDataset) and d.n_views >= 1
    return d


@PROPERTY
@given(magic=MAGIC, body=st.binary(max_size=600), fname=SUFFIXES)
def test_garbage_bytes_raise_only_data_load_errors(magic, body, fname):
    _load_or_data_error(magic + body, fname)


@PROPERTY
@given(which=st.sampled_from(sorted(VALID)), cut=st.floats(0, 1, exclude_max=True))
def test_truncated_files_raise_only_data_load_errors(which, cut):
    raw = VALID[which]
    _load_or_data_error(raw[: int(cut * len(raw))], which)


@PROPERTY
@given(which=st.sampled_from(sorted(VALID)), data=st.data())
def test_corrupted_bytes_raise_only_data_load_errors(which, data):
    raw = bytearray(VALID[which])
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    _load_or_data_error(bytes(raw), which)


finite = st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False, width=64)


@st.composite
def multiview(draw):
    n = draw(st.integers(2, 12))
    m = draw(st.integers(1, 3))
    views = [draw(hnp.arrays(np.float64, (n, draw(st.integers(1, 5))), elements=finite))
             for _ in range(m)]
    labels = draw(hnp.arrays(np.int64, n, elements=st.integers(-3, 40)))
    return views, labels


@PROPERTY
@given(data=multiview(), fmt=st.sampled_from(["v5", "v73", "npz", "zip"]),
       columns=st.booleans())
def test_round_trip_through_every_format(tmp_path, data, fmt, columns):
    views, labels = data
    n = labels.size
    if fmt == "v5":
        stored = [X.T for X in views] if columns else views
        raw = mat5_bytes({"X": cell(*stored), "y": labels})
    elif fmt == "v73":
        path = tmp_path / f"rt{np.random.randint(1 << 30)}.mat"
        stored = [X.T for X in views] if columns else views
        write_mat73(path, {"data": cell(*stored, column=True), "gnd": labels})
        raw = path.read_bytes()
    elif fmt == "npz":
        raw = npz_bytes(**{f"v{k}": X for k, X in enumerate(views)}, labels=labels)
    else:
        raw = make_zip({**{f"v{k}.csv": csv_text(X) for k, X in enumerate(views)},
                        "labels.csv": "\n".join(map(str, labels))})
    d = load(named(raw, "rt." + ("zip" if fmt == "zip" else "npz" if fmt == "npz" else "mat")))
    assert d.n_samples == n and d.n_views == len(views)
    ambiguous = columns and fmt in ("v5", "v73") and any(X.shape[1] == n for X in views)
    if not ambiguous:
        for X, Y in zip(views, d.views):
            np.testing.assert_array_equal(Y, X)
    np.testing.assert_array_equal(d.labels, np.unique(labels, return_inverse=True)[1])


def test_regressions_found_by_fuzzing():
    """Corrupt files that crashed the process (scipy's compiled reader) or leaked errors."""
    import struct

    raw = bytearray(VALID["v5.mat"])  # X = {A (6x3 double), B (uint8), S (sparse)}, Y
    assert raw[192] == 6 and raw[193] == 0  # array flags of X{1}: class double, no flags
    flagged = bytearray(raw)
    flagged[193] |= 0x08  # "complex", but no imaginary part follows: scipy segfaulted
    # Read in a child process (rmsc.datasets._isolate): scipy's crash ends only the child.
    with pytest.raises(DataLoadError, match=r"^c.mat could not be read.* corrupt"):
        load(named(bytes(flagged), "c.mat"))
    assert raw[464 + 8] == 5  # X{3}: class sparse; its row indices follow the empty name
    assert struct.unpack_from("<II", raw, 504) == (5, 64)
    bad_rows = bytearray(raw)
    struct.pack_into("<i", bad_rows, 512, 1000)  # a row index beyond the 6 rows
    with pytest.raises(DataLoadError, match=r"^s.mat.* (corrupt|malformed)"):
        load(named(bytes(bad_rows), "s.mat"))
    # a zip member with an empty name (zipfile's is_dir() raised IndexError)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("a.csv", csv_text(np.eye(3)))
        zf.writestr(zipfile.ZipInfo(""), "x")
    assert load(named(buf.getvalue(), "e.zip")).n_samples == 3


def _sleep(raw, fname):
    import time

    time.sleep(30)


def _refuse(raw, fname):
    raise DataLoadError(f"{fname}: refused ({len(raw)} bytes)")


def test_isolated_reading_turns_crashes_and_hangs_into_load_errors():
    from rmsc.datasets._isolate import run_isolated

    with pytest.raises(DataLoadError, match=r"^x.mat could not be read: the MATLAB v5 reader "
                                            r"crashed \(SIGSEGV\)"):
        run_isolated(_segfault, b"abc", "x.mat", what="MATLAB v5")
    with pytest.raises(DataLoadError, match=r"^x.mat: reading it as a MATLAB v5 file took more "
                                            r"than 1 s and was stopped"):
        run_isolated(_sleep, b"abc", "x.mat", what="MATLAB v5", timeout=1)
    with pytest.raises(DataLoadError, match=r"^y.mat: refused \(3 bytes\)$"):
        run_isolated(_refuse, b"abc", "y.mat")
    assert run_isolated(_nbytes, b"abcd", "z.mat") == 4


def _nbytes(raw, fname):
    return len(raw)


def test_isolated_and_in_process_reading_agree(small):
    A, B, _, y = small
    raw = mat5_bytes({"X": cell(A, B), "Y": y})
    d1 = load(named(raw, "same.mat"))
    d2 = load(named(raw, "same.mat"), isolate=False)
    assert d1.fingerprint == d2.fingerprint and d1.description == d2.description


def test_mat_labels_as_a_cell_of_class_names(tmp_path, small):
    A, B, _, y = small
    names = np.array(["cat", "dog", "eel"])[y - 1]
    d = load(named(mat5_bytes({"X": cell(A, B), "labels": cell(*names, column=True)}), "n.mat"))
    np.testing.assert_array_equal(d.labels, y - 1)
    assert "cat->0, dog->1, eel->2" in d.description
    path = tmp_path / "n73.mat"
    write_mat73(path, {"X": cell(A, B), "labels": cell(*names)})
    np.testing.assert_array_equal(load(path).labels, y - 1)


# ---------------------------------------------------------------------------
# the edges the loader refuses or reinterprets (the pages' side is
# tests/app/test_dataset_grid.py)
# ---------------------------------------------------------------------------


def find_triplets(X):
    """A sparse view as MATLAB's ``[i, j, v] = find(X)`` gives it: 1-based, column by column."""
    C = sp.coo_matrix(X)
    order = np.lexsort((C.row, C.col))
    return np.column_stack([C.row[order] + 1, C.col[order] + 1, C.data[order]])


def sparse_views(n=30, dims=(500, 200), seed=0):
    rng = np.random.default_rng(seed)
    views = [sp.random(n, d, density=0.05, random_state=rng, format="csr") for d in dims]
    for X in views:
        X.data[:] = rng.integers(1, 5, X.nnz)  # word counts
    return views, np.repeat([1, 2, 3], n // 3)


@pytest.mark.parametrize("raw", [
    npz_bytes(a=np.ones((1, 5)), b=np.arange(4.0)[None], labels=np.array([1])),
    npz_bytes(a=np.ones((1, 5)), b=np.arange(4.0)[None]),
    mat5_bytes({"X": cell(np.ones((1, 5))), "Y": np.array([[3.0]])}),
], ids=["labelled npz", "unlabelled npz", "mat"])
def test_fewer_samples_than_a_clustering_needs_are_refused(raw):
    fname = "one.mat" if raw[:6] == b"MATLAB" else "one.npz"
    with pytest.raises(DataLoadError, match=r"^one\.\w+ holds 1 sample\(s\); clustering needs at "
                                            r"least 2.*1 x n row"):
        load(named(raw, fname))
    two = load(named(npz_bytes(a=np.ones((2, 5)), labels=np.array([1, 2])), "two.npz"))
    assert two.n_samples == 2  # enough for two clusters: loaded


def test_triplet_views_are_read_as_the_sparse_matrices_they_encode():
    views, y = sparse_views()
    d = load(named(mat5_bytes({"X": cell(*map(find_triplets, views)), "Y": y}), "t.mat"))
    assert d.n_samples == 30 and d.n_clusters == 3
    for X, Y in zip(views, d.views):
        assert sp.issparse(Y) and Y.shape[0] == 30
        assert Y.shape[1] <= X.shape[1]  # find() keeps no trailing all-zero column
        np.testing.assert_array_equal(Y.toarray(), X[:, :Y.shape[1]].toarray())
    assert "(row, column, value) triplets" in d.description and "find(X)" in d.description
    # without labels: as many samples as the largest row index
    d = load(named(mat5_bytes({"X": cell(*map(find_triplets, views))}), "t.mat"))
    assert d.n_samples == 30 and "no labels" in d.description
    # stored features x samples, with labels: turned to samples as rows
    d = load(named(mat5_bytes({"X": cell(*(find_triplets(X.T) for X in views)), "Y": y}),
                   "t.mat"))
    for X, Y in zip(views, d.views):
        np.testing.assert_array_equal(Y.toarray(), X[:, :Y.shape[1]].toarray())


def test_an_ordinary_three_column_view_is_not_read_as_triplets():
    rng = np.random.default_rng(0)
    A = rng.permutation(24).reshape(8, 3) + 1.0  # whole numbers >= 1, distinct pairs
    d = load(named(mat5_bytes({"X": cell(A, rng.standard_normal((8, 4))),
                               "Y": np.arange(8) % 2}), "a.mat"))
    np.testing.assert_array_equal(d.views[0], A)
    assert "triplets" not in d.description
