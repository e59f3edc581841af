"""Preprocessing a whole dataset (every view), recorded in its description.

The per-view transforms themselves are :mod:`rmsc.preprocessing` (the estimators use them too).
"""

from __future__ import annotations

from ..preprocessing import PREPROCESSING, normalize_l2, preprocess_views

_PREPROCESSING_TEXT = {
    "unit_l2": "every sample scaled to unit L2 norm in every view (the paper's preprocessing)",
    "tfidf": "tf-idf weighting of every view (counts), then unit L2 rows",
    "log1p": "log(1 + count) of every view (counts), then unit L2 rows",
    "standardize": "every feature standardised to zero mean and unit variance "
                   "(sparse views: scaled only)",
}


def preprocess(dataset, method):
    """A copy of ``dataset`` with every view preprocessed, noted in the description.

    Parameters
    ----------
    dataset : MultiViewDataset
    method : {"unit_l2", "tfidf", "log1p", "standardize", "none"}
        See :data:`rmsc.preprocessing.PREPROCESSING`; "none" returns the
        dataset as it is.

    Returns
    -------
    MultiViewDataset
        Same samples, labels and outlier mask.
    """
    if method not in PREPROCESSING:
        raise ValueError(
            f"Unknown preprocessing {method!r}; choose one of {', '.join(PREPROCESSING)}."
        )
    if method == "none":
        return dataset
    views = []
    for name, X in zip(dataset.view_names, dataset.views):
        try:
            if method == "unit_l2":
                views.append(normalize_l2(X, view=name))
            else:
                views.append(preprocess_views([X], method)[0])
        except ValueError as exc:
            raise ValueError(f"View {name!r} of {dataset.name}: {exc}") from None
    sep = " " if dataset.description.endswith(".") else ". " if dataset.description else ""
    return dataset.replace(
        views=views,
        description=f"{dataset.description}{sep}Preprocessed ({method}): "
        f"{_PREPROCESSING_TEXT[method]}.",
    )
