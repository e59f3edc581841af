"""Outlier injection: corrupt chosen (view, sample) pairs of a dataset, exactly recorded.

:func:`inject` corrupts chosen (view, sample) pairs of a
:class:`~rmsc.datasets.MultiViewDataset` and records exactly which ones in the
new dataset's ``outlier_mask`` (scoring them is :mod:`rmsc.outliers`).

Kinds of corruption (:data:`KINDS`), for the chosen samples of a chosen view:

``"replace"``
    The sample is replaced by a random vector matched to the view's scale:
    every feature is drawn from a normal distribution with that feature's mean
    and standard deviation over the view's samples (``severity`` multiplies
    the standard deviation). In a sparse view the vector is sparse instead:
    as many nonzeros as a random sample of the view has, placed on features
    drawn in proportion to how often they are nonzero, with values drawn from
    the view's nonzero values. The sample no longer lies near its cluster's
    subspace, nor near any other.
``"noise"``
    Heavy additive Gaussian noise: the noise vector's expected norm is
    ``severity`` times the view's median sample norm (so ``severity=1``
    buries the signal under noise as large as itself); the root-mean-square
    norm instead where the median is negligible (a view of mostly zero rows).
``"inconsistent"``
    View-inconsistent: the sample's features in that view are taken from a
    random sample of another class (``severity`` < 1 blends:
    ``(1 - s) x + s x_other``). The sample still looks normal in that view,
    just like the wrong class - the case the paper motivates per-sample,
    per-view weights with. It is the hardest kind to see: the view still
    reconstructs the sample well, so only the coupling to the consensus
    raises its loss (``benchmarks/bench_data.py --kinds inconsistent``
    measures how well the weights find it). Without labels the donor is any
    other sample.
``"features"``
    A random fifth of the features (at least one) is corrupted: each is set to
    its mean plus or minus ``3 * severity`` standard deviations (random sign),
    a gross error in a few measurements.

Values stay in the view's domain: in a view without negative values the
corrupted values are clipped at 0 (counts, pixel intensities, tf-idf).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from .. import memory

#: The kinds of corruption :func:`inject` knows.
KINDS = ("replace", "noise", "inconsistent", "features")


#: Fraction of the features that ``kind="features"`` corrupts.
FEATURE_FRACTION = 0.2


#: Standard deviations by which ``kind="features"`` moves a feature (times severity).
FEATURE_SHIFT = 3.0


def _view_indices(dataset, views):
    """Indices of the chosen views (names or indices, one or several), in order, unique."""
    if isinstance(views, (str, numbers.Integral)) and not isinstance(views, bool):
        views = [views]
    try:
        views = list(views)
    except TypeError:
        raise ValueError(
            f"views must be a view name, an index or a list of them; got {views!r}."
        ) from None
    if not views:
        raise ValueError("No view chosen: name at least one view to corrupt.")
    names = list(dataset.view_names)
    out = []
    for v in views:
        if isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, bool):
            idx = int(v)
            if not -len(names) <= idx < len(names):
                raise ValueError(
                    f"View index {idx} is out of range: {dataset.name} has {len(names)} views "
                    f"({', '.join(names)})."
                )
            idx %= len(names)
        elif isinstance(v, str) and v in names:
            idx = names.index(v)
        else:
            raise ValueError(
                f"Unknown view {v!r}; {dataset.name} has the views {', '.join(names)} "
                "(pass names or indices)."
            )
        if idx not in out:
            out.append(idx)
    return out


def _check_fraction(fraction):
    if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not (
            0.0 <= float(fraction) <= 1.0):
        raise ValueError(
            f"fraction must be a number between 0 and 1 (the share of samples to corrupt); "
            f"got {fraction!r}."
        )
    return float(fraction)


def _check_severity(severity):
    if isinstance(severity, bool) or not isinstance(severity, numbers.Real) or not (
            np.isfinite(severity) and severity > 0):
        raise ValueError(f"severity must be a positive number (1 = the default strength); "
                         f"got {severity!r}.")
    return float(severity)


def _feature_moments(X):
    """Per-feature mean and standard deviation (dense or sparse)."""
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        sq = np.asarray(X.multiply(X).mean(axis=0)).ravel()
        return mean, np.sqrt(np.maximum(sq - mean ** 2, 0.0))
    A = np.asarray(X, dtype=np.float64)
    return A.mean(axis=0), A.std(axis=0)


def _nonnegative(X):
    data = X.data if sp.issparse(X) else np.asarray(X)
    return data.size == 0 or float(data.min()) >= 0.0


def _rows(X, idx):
    """Rows ``idx`` of a view as a dense float array."""
    R = X[idx]
    return R.toarray().astype(np.float64) if sp.issparse(R) else np.array(R, dtype=np.float64)


def _corrupt_rows(X, idx, kind, severity, donors, rng, view_name):
    """New values for rows ``idx`` of view X (dense array, or sparse matrix for sparse X)."""
    k, d = len(idx), X.shape[1]
    nonneg = _nonnegative(X)
    if kind == "inconsistent":
        s = min(severity, 1.0)
        if sp.issparse(X):
            X = sp.csr_matrix(X)
            return X[donors] if s == 1.0 else (1.0 - s) * X[idx] + s * X[donors]
        A = np.asarray(X, dtype=np.float64)
        return A[donors].copy() if s == 1.0 else (1.0 - s) * A[idx] + s * A[donors]
    if kind == "replace" and sp.issparse(X):
        return _sparse_replacement(sp.csr_matrix(X), k, severity, rng)
    memory.check_dense_fits(k, d, what=f"Corrupting {k} samples of view {view_name!r}")
    mean, std = _feature_moments(X)
    if kind == "replace":
        new = mean + severity * std * rng.standard_normal((k, d))
    elif kind == "noise":
        norms = (np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()) if sp.issparse(X)
                 else np.linalg.norm(np.asarray(X, dtype=np.float64), axis=1))
        # The median norm; when it is negligible (most samples (nearly) zero), the
        # root-mean-square norm, so that the noise is never vanishingly small.
        rms = float(np.sqrt(np.mean(norms ** 2)))
        scale = float(np.median(norms))
        scale = (scale if scale > 1e-6 * rms else rms) or 1.0
        new = _rows(X, idx) + severity * scale / np.sqrt(d) * rng.standard_normal((k, d))
    elif kind == "features":
        new = _rows(X, idx)
        n_feat = max(1, int(round(FEATURE_FRACTION * d)))
        spread = np.where(std > 0, std, np.maximum(np.abs(mean), 1.0))
        for r in range(k):
            cols = rng.choice(d, size=n_feat, replace=False)
            signs = rng.choice((-1.0, 1.0), size=n_feat)
            new[r, cols] = mean[cols] + signs * FEATURE_SHIFT * severity * spread[cols]
    else:  # pragma: no cover - checked by inject
        raise ValueError(kind)
    if nonneg:
        np.maximum(new, 0.0, out=new)
    return sp.csr_matrix(new) if sp.issparse(X) else new


def _sparse_replacement(X, k, severity, rng):
    """k sparse random rows with the view's density, feature frequencies and values."""
    n, d = X.shape
    values = X.data
    if values.size == 0:  # an all-zero view: nothing to match; use unit values
        values = np.ones(1)
    freq = np.bincount(X.indices, minlength=d).astype(np.float64)
    prob = freq / freq.sum() if freq.sum() > 0 else np.full(d, 1.0 / d)
    counts = np.diff(X.indptr)[rng.randint(0, n, size=k)]
    rows, cols, vals = [], [], []
    support = int(np.count_nonzero(prob))
    for r, c in enumerate(counts):
        c = int(min(max(c, 1), support))
        cc = rng.choice(d, size=c, replace=False, p=prob)
        rows.append(np.full(c, r))
        cols.append(cc)
        vals.append(severity * values[rng.randint(0, values.size, size=c)])
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                         shape=(k, d))


def _replace_rows(X, idx, new):
    """View X with rows ``idx`` replaced by ``new``; every other row is copied unchanged."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        stacked = sp.vstack([X, sp.csr_matrix(new, dtype=X.dtype)], format="csr")
        order = np.arange(X.shape[0])
        order[idx] = X.shape[0] + np.arange(len(idx))
        return stacked[order]
    out = np.array(X, dtype=np.result_type(np.asarray(X).dtype, np.float64), copy=True)
    out[idx] = new
    return out


def _donors(labels, idx, n, rng):
    """For every sample in ``idx`` a random sample of another class (or any other sample)."""
    donors = np.empty(len(idx), dtype=np.int64)
    for r, j in enumerate(idx):
        if labels is None:
            pool = np.delete(np.arange(n), j)
        else:
            pool = np.flatnonzero(labels != labels[j])
        donors[r] = pool[rng.randint(0, pool.size)]
    return donors


def inject(dataset, views, fraction, kind="replace", severity=1.0, same_samples=True,
           random_state=None):
    """Corrupt a fraction of the samples in some views; return the new dataset.

    Parameters
    ----------
    dataset : MultiViewDataset
    views : str, int or list of them
        The views to corrupt, by name or index.
    fraction : float in [0, 1]
        Share of the samples corrupted in each chosen view (rounded to a whole
        number of samples, at least one when ``fraction > 0``).
    kind : {"replace", "noise", "inconsistent", "features"}, default="replace"
        See the module documentation.
    severity : float > 0, default=1.0
        Strength of the corruption (its meaning per kind is in the module
        documentation; 1 is the default strength).
    same_samples : bool, default=True
        True: the same samples are corrupted in every chosen view. False: an
        independent draw of samples for each view.
    random_state : int, RandomState instance or None
        The same seed gives the same corruption.

    Returns
    -------
    MultiViewDataset
        A new dataset: the corrupted views are copies with the chosen rows
        changed (every other entry is bit-identical to the input);
        ``outlier_mask`` marks exactly the corrupted (view, sample) pairs,
        merged (logical or) with the input's mask; the description records
        what was done.
    """
    if kind not in KINDS:
        raise ValueError(f"Unknown outlier kind {kind!r}; choose one of {', '.join(KINDS)}.")
    chosen = _view_indices(dataset, views)
    fraction = _check_fraction(fraction)
    severity = _check_severity(severity)
    rng = check_random_state(random_state)
    n, m = dataset.n_samples, dataset.n_views
    n_out = int(round(fraction * n))
    if fraction > 0 and n_out == 0:
        n_out = 1
    labels = dataset.labels
    if kind == "inconsistent":
        if n < 2:
            raise ValueError("kind='inconsistent' needs at least two samples to swap between.")
        if labels is not None and np.unique(labels).size < 2:
            raise ValueError(
                "kind='inconsistent' takes a sample's features from a sample of another "
                f"class, but {dataset.name} has a single class; choose another kind."
            )
    mask = np.zeros((m, n), dtype=bool)
    views_out = list(dataset.views)
    shared = np.sort(rng.choice(n, size=n_out, replace=False))
    for v in chosen:
        idx = shared if same_samples else np.sort(rng.choice(n, size=n_out, replace=False))
        if idx.size == 0:
            continue
        donors = _donors(labels, idx, n, rng) if kind == "inconsistent" else None
        new = _corrupt_rows(dataset.views[v], idx, kind, severity, donors, rng,
                            dataset.view_names[v])
        views_out[v] = _replace_rows(dataset.views[v], idx, new)
        mask[v, idx] = True
    if dataset.outlier_mask is not None:
        mask |= dataset.outlier_mask
    names = ", ".join(dataset.view_names[v] for v in chosen)
    how = "the same samples in every view" if same_samples or len(chosen) == 1 else \
        "samples drawn independently per view"
    seed = (f"seed {random_state}" if isinstance(random_state, numbers.Integral)
            else "unseeded" if random_state is None else "a given random state")
    text = (f"Outliers injected: {kind} (severity {severity:g}) in {names}, {n_out} of {n} "
            f"samples ({fraction:.0%}), {how}, {seed}.")
    sep = " " if dataset.description.endswith(".") else ". " if dataset.description else ""
    return dataset.replace(views=views_out, outlier_mask=mask,
                           description=f"{dataset.description}{sep}{text}")
