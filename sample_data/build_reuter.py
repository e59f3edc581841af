"""Rebuild sample_data/reuter.npz from the paper's Reuter file (reuters_1200.mat).

    python sample_data/build_reuter.py [path/to/reuters_1200.mat]

The default path is ../shared/datasets/reuters_1200.mat beside the repository (a folder is
also accepted). The file holds ``fea``, a 1x5 cell of sparse (CSC) document-term matrices,
one per language, samples as rows, and ``gt``, the 1200 class labels 1..6. Every view is
written exactly as stored (CSC, float64 values, sorted indices) with
:func:`rmsc.datasets._bundle_io.save_views`, then read back and compared with the .mat.
"""

import sys
from pathlib import Path

import numpy as np
import scipy.io

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rmsc.datasets._bundle_io import load_views, save_views  # noqa: E402

FILE = "reuters_1200.mat"
DEFAULT = ROOT.parent / "shared" / "datasets" / FILE
VIEW_NAMES = ("EN", "FR", "DE", "ES", "IT")  # the cell order of `fea`
OUT = Path(__file__).with_name("reuter.npz")


def main(path=DEFAULT):
    path = Path(path)
    if path.is_dir():
        path = path / FILE
    mat = scipy.io.loadmat(path)
    views = [X for X in mat["fea"].ravel()]
    labels = mat["gt"].ravel()
    assert len(views) == len(VIEW_NAMES), f"expected 5 views in fea, got {len(views)}"
    for X in views:
        assert X.format == "csc" and X.shape == (labels.size, 2000), (X.format, X.shape)
    save_views(OUT, views, labels, VIEW_NAMES,
               source=f"{FILE}: fea (1x5 cell, sparse CSC), gt (1200x1)")
    back = load_views(OUT)
    assert back["labels"].dtype == labels.dtype and np.array_equal(back["labels"], labels)
    for X, Y in zip(views, back["views"]):
        assert Y.format == X.format and Y.dtype == X.dtype and Y.shape == X.shape
        for part in ("data", "indices", "indptr"):
            assert np.array_equal(getattr(X, part), getattr(Y, part)), part
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB; read back and equal to {path.name})")


if __name__ == "__main__":
    main(*sys.argv[1:2])
