"""Rebuild sample_data/3sources.npz from the paper's 3-Sources file (3sources.mat).

    python sample_data/build_3sources.py [path/to/3sources.mat]

The default path is ../shared/datasets/3sources.mat beside the repository (a folder is also
accepted). The file holds ``X``, a 3x1 cell of dense uint8 term-count matrices (BBC,
Guardian, Reuters; 169 stories as rows), and ``y``, the labels 1..6. The counts are written
exactly as stored (dense uint8; the archive's compression takes care of the zeros) with
:func:`rmsc.datasets._bundle_io.save_views`, then read back and compared with the .mat.
"""

import sys
from pathlib import Path

import numpy as np
import scipy.io

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from rmsc.datasets._bundle_io import load_views, save_views  # noqa: E402

FILE = "3sources.mat"
DEFAULT = ROOT.parent / "shared" / "datasets" / FILE
#: The cell order of `X`, told apart by vocabulary size (BBC 3560, Guardian 3631, Reuters 3068).
VIEW_NAMES = ("BBC", "Guardian", "Reuters")
VOCABULARY = (3560, 3631, 3068)
OUT = Path(__file__).with_name("3sources.npz")


def main(path=DEFAULT):
    path = Path(path)
    if path.is_dir():
        path = path / FILE
    mat = scipy.io.loadmat(path)
    views = [X for X in mat["X"].ravel()]
    labels = mat["y"].ravel()
    assert tuple(X.shape[1] for X in views) == VOCABULARY, [X.shape for X in views]
    for X in views:
        assert isinstance(X, np.ndarray) and X.dtype == np.uint8 and X.shape[0] == labels.size
    save_views(OUT, views, labels, VIEW_NAMES,
               source=f"{FILE}: X (3x1 cell, dense uint8 term counts), y (169x1)")
    back = load_views(OUT)
    assert back["labels"].dtype == labels.dtype and np.array_equal(back["labels"], labels)
    for X, Y in zip(views, back["views"]):
        assert Y.dtype == X.dtype and np.array_equal(X, Y)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB; read back and equal to {path.name})")


if __name__ == "__main__":
    main(*sys.argv[1:2])
