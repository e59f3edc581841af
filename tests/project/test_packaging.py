"""The package as shipped: the bundled data files, their format, and where rmsc finds them."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from rmsc import _resources
from rmsc.datasets import _bundle_io

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_data"


# ---------------------------------------------------------------------------
# the bundle format: exact round trips
# ---------------------------------------------------------------------------


def test_bundle_round_trip_keeps_every_view_exactly(tmp_path):
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 30, size=(7, 300)).astype(np.uint8)
    csc = sp.random(7, 20, density=0.3, random_state=1, format="csc", dtype=np.float32)
    csr = sp.random(7, 70000, density=0.001, random_state=2, format="csr")  # columns > 2**16
    labels = np.array([3, 1, 2, 2, 1, 3, 3], dtype=np.uint8)
    path = tmp_path / "b.npz"
    _bundle_io.save_views(path, [counts, csc, csr], labels, ["a", "b", "c"], source="x.mat")
    back = _bundle_io.load_views(path)
    assert back["view_names"] == ["a", "b", "c"] and back["meta"] == {"source": "x.mat"}
    assert back["labels"].dtype == np.uint8 and np.array_equal(back["labels"], labels)
    A, B, C = back["views"]
    assert isinstance(A, np.ndarray) and A.dtype == np.uint8 and np.array_equal(A, counts)
    for got, want in ((B, csc), (C, csr)):
        assert got.format == want.format and got.dtype == want.dtype and got.shape == want.shape
        for part in ("data", "indices", "indptr"):
            assert np.array_equal(getattr(got, part), getattr(want, part))
        assert got.indices.dtype == np.int32  # narrowed on disk, usable index type on load
    with np.load(path) as f:  # on disk, index arrays take the smallest type that holds them
        assert f["view1_indices"].dtype == np.uint8  # row indices < 7
        assert f["view2_indices"].dtype == np.uint32  # column indices up to ~70000
        assert f["view2_indptr"].dtype == np.uint16 and csr.nnz < 2**16


def test_bundle_index_narrowing_picks_the_smallest_type():
    assert _bundle_io._narrow(np.array([0, 255])).dtype == np.uint8
    assert _bundle_io._narrow(np.array([0, 256])).dtype == np.uint16
    assert _bundle_io._narrow(np.array([70000])).dtype == np.uint32
    assert _bundle_io._narrow(np.array([2**33])).dtype == np.int64
    assert _bundle_io._narrow(np.array([], dtype=np.int32)).dtype == np.uint8


def test_bundle_refuses_bad_input_and_other_versions(tmp_path):
    with pytest.raises(ValueError, match="2 views but 1 view names"):
        _bundle_io.save_views(tmp_path / "x.npz", [np.eye(2), np.eye(2)], [0, 1], ["a"])
    with pytest.raises(ValueError, match="store sparse views as csr or csc, not coo"):
        _bundle_io.save_views(tmp_path / "x.npz", [sp.coo_matrix(np.eye(2))], [0, 1], ["a"])
    path = tmp_path / "old.npz"
    np.savez(path, format_version=np.array(99), view_names=np.array(["a"]), labels=np.zeros(1))
    with pytest.raises(ValueError, match="bundle format 99, this rmsc reads 1"):
        _bundle_io.load_views(path)


# ---------------------------------------------------------------------------
# the bundled paper datasets hold what sample_data/README.md says
# ---------------------------------------------------------------------------


def test_reuter_npz_is_the_readme_table():
    d = _bundle_io.load_views(SAMPLE / "reuter.npz")
    assert d["view_names"] == ["EN", "FR", "DE", "ES", "IT"]
    assert d["meta"]["source"].startswith("reuters_1200.mat")
    nnz = [42018, 41601, 40769, 40936, 40534]
    for X, n in zip(d["views"], nnz):
        assert sp.issparse(X) and X.format == "csc" and X.dtype == np.float64
        assert X.shape == (1200, 2000) and X.nnz == n and X.has_sorted_indices
        assert 0.1065 < X.data.min() and X.data.max() < 18.82
    empty = [int(np.sum(X.getnnz(axis=1) == 0)) for X in d["views"]]
    assert empty == [0, 0, 0, 1, 0]  # one document without a term in ES
    y = d["labels"]
    assert y.dtype == np.uint8 and np.array_equal(y, np.repeat(np.arange(1, 7), 200))


def test_3sources_npz_is_the_readme_table():
    d = _bundle_io.load_views(SAMPLE / "3sources.npz")
    assert d["view_names"] == ["BBC", "Guardian", "Reuters"]
    assert d["meta"]["source"].startswith("3sources.mat")
    for X, cols, nnz, top in zip(d["views"], (3560, 3631, 3068), (24458, 27902, 22080),
                                 (27, 26, 21)):
        assert isinstance(X, np.ndarray) and X.dtype == np.uint8 and X.shape == (169, cols)
        assert np.count_nonzero(X) == nnz and X.max() == top
    y = d["labels"]
    assert y.dtype == np.uint8 and np.array_equal(np.bincount(y)[1:], [56, 21, 11, 18, 51, 12])
    assert not np.all(np.diff(y.astype(int)) >= 0)  # interleaved (uint8 diff would wrap)


# ---------------------------------------------------------------------------
# where the dashboard and the data are: a checkout, or rmsc/_app in a wheel
# ---------------------------------------------------------------------------


def test_a_checkout_uses_the_repository_files():
    assert _resources.app_dir() == ROOT
    assert _resources.app_script() == ROOT / "app.py"
    assert _resources.sample_data_dir() == SAMPLE


def test_an_installed_package_uses_its_app_folder(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "rmsc"
    (package / "_app" / "sample_data").mkdir(parents=True)
    monkeypatch.setattr(_resources, "_PACKAGE", package)
    assert _resources.app_dir() == tmp_path / "site-packages"  # no app.py there yet
    (package / "_app" / "app.py").write_text("")
    assert _resources.app_script() == package / "_app" / "app.py"
    assert _resources.sample_data_dir() == package / "_app" / "sample_data"


def test_the_wheel_file_list_names_existing_files():
    """setup.py's APP_FILES: every glob matches, and they cover what the app opens."""
    import ast

    tree = ast.parse((ROOT / "setup.py").read_text())
    globs = next(ast.literal_eval(node.value) for node in ast.walk(tree)
                 if isinstance(node, ast.Assign) and node.targets[0].id == "APP_FILES")
    shipped = {p.relative_to(ROOT).as_posix() for g in globs for p in ROOT.glob(g)}
    assert all(list(ROOT.glob(g)) for g in globs)
    assert {"app.py", "ui/__init__.py", ".streamlit/config.toml", "sample_data/README.md",
            "sample_data/digit.npz", "sample_data/reuter.npz", "sample_data/3sources.npz"} <= shipped
    assert {f"pages/{p.name}" for p in (ROOT / "pages").iterdir() if p.suffix == ".py"} <= shipped
    assert {f"ui/{p.name}" for p in (ROOT / "ui").iterdir() if p.suffix == ".py"} <= shipped
    manifest = (ROOT / "MANIFEST.in").read_text()  # the sdist carries the same files
    for entry in ("app.py", "recursive-include ui *.py", ".streamlit/config.toml",
                  "recursive-include pages *.py",
                  "sample_data/*.npz", "sample_data/README.md"):
        assert entry in manifest


def test_the_licence_is_bsd_3_clause_and_ships_with_both_distributions():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License\n\nCopyright (c) 2026, the rmsc developers\n")
    assert "Neither the name of the copyright holder" in text
    pyproject = (ROOT / "pyproject.toml").read_text().splitlines()
    assert 'license = "BSD-3-Clause"' in pyproject and 'license-files = ["LICENSE"]' in pyproject
    assert "include LICENSE" in (ROOT / "MANIFEST.in").read_text().splitlines()
