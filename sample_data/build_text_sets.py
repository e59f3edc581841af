"""Rebuild the paper's text sets, sample_data/reuter.npz and sample_data/3sources.npz, from their .mat files.

    python sample_data/build_text_sets.py Reuter    [path/to/reuters_1200.mat]
    python sample_data/build_text_sets.py 3-Sources [path/to/3sources.mat]

The default path is ../shared/datasets/<file> beside the repository (a folder is also
accepted). Every view is written exactly as stored with
:func:`rmsc.datasets._bundle_io.save_views`, then read back and compared with the .mat:

- ``reuters_1200.mat`` holds ``fea``, a 1x5 cell of sparse (CSC, float64) document-term
  matrices, one per language, samples as rows, and ``gt``, the 1200 class labels 1..6.
- ``3sources.mat`` holds ``X``, a 3x1 cell of dense uint8 term-count matrices (BBC, Guardian,
  Reuters, told apart by vocabulary size 3560, 3631, 3068; 169 stories as rows), and ``y``,
  the labels 1..6 (dense uint8 is kept: the archive's compression takes care of the zeros).
"""

import sys
from pathlib import Path

import numpy as np
import scipy.io
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rmsc.datasets._bundle_io import load_views, save_views  # noqa: E402

#: name -> (file, views key, labels key, view names in the cell's order, columns per view, out, source)
SETS = {
    "Reuter": ("reuters_1200.mat", "fea", "gt", ("EN", "FR", "DE", "ES", "IT"),
               (2000,) * 5, "reuter.npz", "fea (1x5 cell, sparse CSC), gt (1200x1)"),
    "3-Sources": ("3sources.mat", "X", "y", ("BBC", "Guardian", "Reuters"),
                  (3560, 3631, 3068), "3sources.npz",
                  "X (3x1 cell, dense uint8 term counts), y (169x1)"),
}


def _equal(X, Y):
    if sp.issparse(X):
        return (Y.format == X.format and Y.dtype == X.dtype and Y.shape == X.shape
                and all(np.array_equal(getattr(X, p), getattr(Y, p))
                        for p in ("data", "indices", "indptr")))
    return Y.dtype == X.dtype and np.array_equal(X, Y)


def main(name, path=None):
    file, vkey, ykey, names, columns, out, source = SETS[name]
    path = Path(path) if path else ROOT.parent / "shared" / "datasets" / file
    if path.is_dir():
        path = path / file
    out = Path(__file__).with_name(out)
    mat = scipy.io.loadmat(path)
    views = list(mat[vkey].ravel())
    labels = mat[ykey].ravel()
    shapes = [X.shape for X in views]
    assert shapes == [(labels.size, d) for d in columns], shapes
    save_views(out, views, labels, names, source=f"{file}: {source}")
    back = load_views(out)
    assert back["labels"].dtype == labels.dtype and np.array_equal(back["labels"], labels)
    assert all(_equal(X, Y) for X, Y in zip(views, back["views"]))
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB; read back and equal to {path.name})")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in SETS:
        sys.exit(f"usage: python {sys.argv[0]} {{{'|'.join(SETS)}}} [path/to/file.mat]")
    main(*sys.argv[1:3])
