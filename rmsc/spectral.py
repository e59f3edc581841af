"""Affinity construction, normalised spectral embedding and the k-means protocol.

Every method in :mod:`rmsc` ends here, so that all of them are evaluated with
the same protocol as the paper: a normalised spectral embedding
(Ng, Jordan & Weiss 2002) of the affinity, then k-means ``n_init`` times
(20 in the paper) with different seeds; the spread over those runs is what the
paper reports as "mean ± std".
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg
from scipy.sparse.csgraph import connected_components
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

from . import device_spectral
from ._array_api import is_device_array, namespace
from ._spectral_shared import DENSE_EIGH_MAX as _DENSE_EIGH_MAX  # noqa: F401 (costs, multiview)
from ._spectral_shared import warn_isolated
from ._validation import check_fraction

#: Number of k-means restarts used by the paper's protocol.
N_KMEANS_RUNS = 20


def affinity_from_coefficients(Z, *, keep_mass=None, top_k=None, scale_columns=False):
    """Symmetric affinity ``S = (|Z| + |Z^T|) / 2`` from a self-representation.

    Parameters
    ----------
    Z : ndarray or sparse matrix of shape (n_samples, n_samples)
        Column ``j`` holds the coefficients that represent sample ``j``.
    keep_mass : float in (0, 1], optional
        SSC post-processing (Elhamifar & Vidal's rho, applied first): in each
        column keep the largest-magnitude coefficients, largest first, up to
        and including the one with which their absolute sum reaches
        ``keep_mass`` times the column's l1 norm; set the rest to zero. Ties
        are taken in row order. ``1`` keeps everything, as does ``None``
        (off, the paper's form). See the Notes for the source.
    top_k : int, optional
        SSC post-processing: keep only the ``top_k`` largest-magnitude
        coefficients of each column before symmetrising. ``None`` (the paper's
        form) keeps all.
    scale_columns : bool, default=False
        SSC post-processing: divide each column by its largest magnitude before
        symmetrising, so that every sample has the same scale of affinity.

    Returns
    -------
    S : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Dense when ``Z`` is dense, CSR when ``Z`` is sparse. Non-negative and
        symmetric.

    Notes
    -----
    The paper builds ``S`` from ``|Z*|`` directly. Elhamifar & Vidal's SSC code
    additionally keeps the strongest coefficients per column and scales
    columns by their maximum; on the Digit data this post-processing is worth
    several points of accuracy, so it is offered as a visible option.

    ``keep_mass`` is the rule of ``thrC(C, rho)`` in the MATLAB code released
    with Elhamifar & Vidal, "Sparse subspace clustering: algorithm, theory,
    and applications", IEEE TPAMI 35(11), 2013: per column, sorted by
    decreasing magnitude, the first ``t`` entries are kept for the smallest
    ``t`` whose cumulative absolute sum is ``>= rho * ||c||_1`` (so the entry
    that crosses the threshold is kept), and ``rho >= 1`` returns the matrix
    unchanged. Their motion-segmentation demo (Hopkins 155) uses rho = 0.7,
    their face demo (Extended Yale B) rho = 1. Their ``BuildAdjacency`` then
    divides each column by its largest magnitude and symmetrises
    (``scale_columns=True`` here).

    The order is keep_mass, then top_k, then scale_columns, then symmetrising.

    A ``Z`` of another array-API library (torch, CuPy, array_api_strict: a device fit's
    consensus) gives a dense ``S`` there, in Z's dtype, by the same rules
    (:mod:`rmsc.device_spectral`; ties in ``top_k`` go to the lower row there).
    """
    device = is_device_array(Z)
    if device:
        A = namespace(Z).abs(Z)
    else:
        A = abs(sp.csc_matrix(Z, dtype=np.float64)) if sp.issparse(Z) else np.abs(np.asarray(Z, dtype=np.float64))
    n = A.shape[0]
    if tuple(A.shape) != (n, n):
        raise ValueError(f"A self-representation must be square; got shape {tuple(A.shape)}.")
    if keep_mass is not None:
        keep_mass = check_fraction("keep_mass", keep_mass)
        if keep_mass < 1:
            A = _keep_mass_per_column(A, keep_mass)
    if top_k is not None:
        if int(top_k) < 1:
            raise ValueError(f"top_k must be a positive integer or None; got {top_k!r}.")
        A = _keep_top_k_per_column(A, int(top_k))
    if device:
        return device_spectral.scale_and_symmetrize(A, scale_columns)
    if scale_columns:
        colmax = np.asarray(A.max(axis=0).toarray() if sp.issparse(A) else A.max(axis=0)).ravel()
        inv = np.divide(1.0, colmax, out=np.zeros_like(colmax), where=colmax > 0)
        A = A @ sp.diags(inv) if sp.issparse(A) else A * inv[None, :]
    S = (A + A.T) / 2.0
    return sp.csr_matrix(S) if sp.issparse(S) else S


def _keep_mass_per_column(A, keep_mass):
    """``thrC``'s rule on the non-negative ``A`` (see :func:`affinity_from_coefficients`).

    Entry ``t`` of a column sorted by decreasing value (ties in row order) is kept when
    the sum of the entries before it is still below ``keep_mass`` times the column's
    sum: those are exactly the entries up to and including the one that reaches it.
    The sums are accumulated in that order, one column at a time, so dense and sparse
    input decide every entry identically (and a device array, on its device:
    :func:`rmsc.device_spectral.keep_mass_xp`).
    """
    if is_device_array(A):
        return device_spectral.keep_mass_xp(A, keep_mass)
    if sp.issparse(A):
        A = sp.csc_matrix(A, copy=True)
        A.sum_duplicates()  # canonical: rows ascending within every column
        A.eliminate_zeros()
        counts = np.diff(A.indptr)
        cols = np.repeat(np.arange(A.shape[1]), counts)
        # Decreasing value within each column, ties in row order: two stable sorts,
        # by value and then by column (faster than np.lexsort here).
        order = np.argsort(-A.data, kind="stable")
        order = order[np.argsort(cols[order], kind="stable")]
        vals = A.data[order]
        csum = _segment_cumsum(vals, A.indptr)
        before = np.concatenate([[0.0], csum[:-1]])
        nonempty = counts > 0
        before[A.indptr[:-1][nonempty]] = 0.0
        total = np.zeros(A.shape[1])
        total[nonempty] = csum[A.indptr[1:][nonempty] - 1]
        keep = before < keep_mass * total[cols]
        return sp.csc_matrix((vals[keep], (A.indices[order][keep], cols[keep])), shape=A.shape)
    order = np.argsort(-A, axis=0, kind="stable")
    vals = np.take_along_axis(A, order, axis=0)
    csum = np.cumsum(vals, axis=0)
    before = np.vstack([np.zeros((1, A.shape[1])), csum[:-1]])
    keep = before < keep_mass * csum[-1]
    out = np.zeros_like(A)
    np.put_along_axis(out, order, np.where(keep, vals, 0.0), axis=0)
    return out


def _segment_cumsum(vals, indptr):
    """Cumulative sums of ``vals`` restarted at every segment ``indptr[j]:indptr[j + 1]``,
    each accumulated left to right exactly as ``np.cumsum`` of the segment would.

    One vectorised step per position within a segment (up to the longest segment),
    each over the segments that reach that position: O(len(vals)) work in all.
    """
    starts, counts = indptr[:-1], np.diff(indptr)
    by_length = np.argsort(-counts, kind="stable")
    starts, counts = starts[by_length], counts[by_length]
    csum = np.array(vals, dtype=np.float64)
    for r in range(1, int(counts[0]) if counts.size else 0):
        idx = starts[: np.searchsorted(-counts, -r, side="left")] + r  # segments longer than r
        csum[idx] += csum[idx - 1]
    return csum


def _keep_top_k_per_column(A, k):
    if is_device_array(A):
        return device_spectral.keep_top_k_xp(A, k)
    n = A.shape[0]
    if k >= n:
        return A
    if sp.issparse(A):
        A = sp.csc_matrix(A)
        rows, cols, vals = [], [], []
        for j in range(n):
            start, end = A.indptr[j], A.indptr[j + 1]
            data = A.data[start:end]
            if data.size > k:
                keep = np.argpartition(data, -k)[-k:]
            else:
                keep = np.arange(data.size)
            rows.append(A.indices[start:end][keep])
            vals.append(data[keep])
            cols.append(np.full(keep.size, j))
        return sp.csc_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=A.shape
        )
    idx = np.argpartition(A, n - k, axis=0)[n - k:, :]
    out = np.zeros_like(A)
    cols = np.broadcast_to(np.arange(n), idx.shape)
    out[idx, cols] = A[idx, cols]
    return out


def eigengap(eigenvalues, n_clusters):
    """lambda_{c+1} - lambda_c of the normalised Laplacian, from the eigenvalues
    :func:`spectral_embedding` returns (the largest of D^-1/2 S D^-1/2, ascending: the
    Laplacian's lambda_c is 1 - w[-c]). Larger = a clearer c-cluster structure; 0 when
    fewer than c + 1 eigenvalues exist."""
    w = np.asarray(eigenvalues, dtype=float)
    return float(w[-n_clusters] - w[-n_clusters - 1]) if w.size > n_clusters else 0.0


def empty_rows(S):
    """How many samples have no affinity to any other (an empty row of S, sparse or dense,
    of any array-API library)."""
    if sp.issparse(S):
        return int(np.count_nonzero(sp.csr_matrix(S).getnnz(axis=1) == 0))
    xp = namespace(S)
    # S >= 0: a row is empty exactly when its largest entry is 0
    return int(xp.count_nonzero(xp.max(S, axis=1) == 0)) if xp is not np else int(
        np.count_nonzero(np.count_nonzero(S, axis=1) == 0))


def count_pieces(S, exclude=None):
    """Connected pieces of the graph of affinity S, without the samples ``exclude``.

    scipy's ``connected_components`` for host matrices; for a device array the same count
    there (:func:`rmsc.device_spectral.connected_pieces_xp`).

    Parameters
    ----------
    S : ndarray, sparse matrix or array-API array of shape (n, n)
    exclude : ndarray of int or None
        Samples left out of the graph (e.g. those placed by their neighbours).
    """
    if is_device_array(S):
        return device_spectral.connected_pieces_xp(S, exclude)
    if exclude is not None and len(exclude):
        kept = np.setdiff1d(np.arange(S.shape[0]), exclude)
        S = S[kept][:, kept] if sp.issparse(S) else np.asarray(S)[np.ix_(kept, kept)]
    return int(connected_components(S, directed=False)[0])


def spectral_embedding(S, n_components, *, random_state=None, return_eigenvalues=False):
    """Normalised spectral embedding of Ng, Jordan & Weiss (2002).

    The ``n_components`` leading eigenvectors of ``D^{-1/2} S D^{-1/2}``,
    each row scaled to unit length.

    Parameters
    ----------
    S : ndarray or sparse matrix of shape (n_samples, n_samples)
        Symmetric non-negative affinity.
    n_components : int
    random_state : int, RandomState or None
        Seeds the start vector of the sparse eigensolver.
    return_eigenvalues : bool, default=False
        Also return the ``n_components + 1`` largest eigenvalues of
        ``D^{-1/2} S D^{-1/2}`` (ascending), e.g. for the eigengap.

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_components)
        Samples with no affinity to any other sample (isolated) get a zero row,
        with a warning.
    eigenvalues : ndarray of shape (n_components + 1,)
        Only with ``return_eigenvalues=True``.

    Notes
    -----
    An ``S`` of another array-API library (a device fit's affinity) is solved on its
    device by a block Krylov iteration (:func:`rmsc.device_spectral.spectral_embedding_xp`);
    the embedding and eigenvalues still come back as NumPy arrays.
    """
    if is_device_array(S):
        return device_spectral.spectral_embedding_xp(S, n_components, random_state=random_state,
                                     return_eigenvalues=return_eigenvalues)
    n = S.shape[0]
    deg = np.asarray(S.sum(axis=1)).ravel()
    isolated = deg <= 0
    if isolated.any():
        warn_isolated(int(isolated.sum()))
    d = np.divide(1.0, np.sqrt(deg), out=np.zeros_like(deg), where=~isolated)
    if sp.issparse(S):
        L = sp.diags(d) @ sp.csr_matrix(S) @ sp.diags(d)
    else:
        L = S * d[:, None] * d[None, :]
    k = min(n_components + 1, n) if return_eigenvalues else n_components
    if n <= _DENSE_EIGH_MAX or k >= n - 1:
        dense = L.toarray() if sp.issparse(L) else L
        w, U = scipy.linalg.eigh(dense, subset_by_index=(n - k, n - 1))
    else:
        rng = check_random_state(random_state)
        v0 = rng.uniform(-1, 1, n)
        # Shift by the identity: the spectrum of L lies in [-1, 1], so the wanted
        # eigenvalues become the largest in magnitude, where Lanczos converges fastest.
        op = L + sp.identity(n, format="csr") if sp.issparse(L) else L + np.eye(n)
        w, U = scipy.sparse.linalg.eigsh(op, k=k, which="LM", v0=v0, tol=1e-10)
        order = np.argsort(w)
        w, U = w[order] - 1.0, U[:, order]
    U = U[:, -n_components:]
    norms = np.linalg.norm(U, axis=1)
    emb = np.divide(U, norms[:, None], out=np.zeros_like(U), where=norms[:, None] > 0)
    return (emb, w) if return_eigenvalues else emb


@dataclass(frozen=True)
class KMeansRuns:
    """The result of the k-means protocol on one embedding.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        The run with the lowest k-means inertia (chosen without labels).
    runs : ndarray of shape (n_runs, n_samples)
        Labels of every run, for mean ± std reporting.
    inertia : ndarray of shape (n_runs,)
    """

    labels: np.ndarray
    runs: np.ndarray
    inertia: np.ndarray


def kmeans_runs(embedding, n_clusters, *, n_runs=N_KMEANS_RUNS, random_state=None):
    """Run k-means ``n_runs`` times with different seeds (the paper's protocol).

    Each run is scikit-learn's ``KMeans(n_init=1)`` with k-means++ seeding and
    its own seed drawn from ``random_state``.

    Parameters
    ----------
    embedding : ndarray of shape (n_samples, n_features)
    n_clusters : int
    n_runs : int, default=20
    random_state : int, RandomState or None

    Returns
    -------
    KMeansRuns
    """
    rng = check_random_state(random_state)
    seeds = rng.randint(np.iinfo(np.int32).max, size=n_runs)
    runs = np.empty((n_runs, embedding.shape[0]), dtype=np.int64)
    inertia = np.empty(n_runs)
    with warnings.catch_warnings():
        # Duplicate points (e.g. isolated samples) make KMeans warn about fewer
        # distinct clusters; the affinity warning above already says why.
        warnings.simplefilter("ignore", category=UserWarning)
        for r, seed in enumerate(seeds):
            km = KMeans(n_clusters=n_clusters, n_init=1, random_state=int(seed)).fit(embedding)
            runs[r] = km.labels_
            inertia[r] = km.inertia_
    return KMeansRuns(labels=runs[int(np.argmin(inertia))], runs=runs, inertia=inertia)


def spectral_clustering(S, n_clusters, *, n_runs=N_KMEANS_RUNS, random_state=None):
    """Spectral clustering of an affinity with the paper's k-means protocol.

    Parameters
    ----------
    S : ndarray or sparse matrix of shape (n_samples, n_samples)
    n_clusters : int
    n_runs : int, default=20
    random_state : int, RandomState or None

    Returns
    -------
    result : KMeansRuns
    embedding : ndarray of shape (n_samples, n_clusters)
    """
    rng = check_random_state(random_state)
    embedding = spectral_embedding(S, n_clusters, random_state=rng)
    return kmeans_runs(embedding, n_clusters, n_runs=n_runs, random_state=rng), embedding
